// The toolbar badge per tab: `ON` (lobster orange) while the tab is handed to the agent, `YOU`
// (blue) while the agent has handed it back to the person for a moment (the reason in the tooltip), `…`
// while the relay link is (re)connecting, `!` with the reason in the tooltip on an error, and
// empty otherwise. The tooltip always says what a click will do.

const COLORS = { on: '#FF4500', you: '#1971C2', connecting: '#F2A900', error: '#D93025' } as const;
/** Every tooltip ends with where the side panel is. */
const PANEL_HINT = ' Right-click for the clawd side panel.';
const IDLE_TITLE = `clawd: click to hand this tab to your agent.${PANEL_HINT}`;

// One paint at a time per tab, in the order asked: two overlapping paints (connecting, then an
// error a moment later) would otherwise interleave and leave one's text with the other's title.
const queues = new Map<number, Promise<void>>();

function paint(tabId: number, text: string, color: string | undefined, title: string): Promise<void> {
  const run = async () => {
    try {
      // Text last: whoever sees the new text also sees the reason in the tooltip.
      await chrome.action.setTitle({ tabId, title });
      if (color) await chrome.action.setBadgeBackgroundColor({ tabId, color });
      await chrome.action.setBadgeText({ tabId, text });
    } catch {
      // The tab closed meanwhile: there is no badge left to paint.
    }
  };
  const next = (queues.get(tabId) ?? Promise.resolve()).then(run);
  queues.set(tabId, next);
  void next.then(() => {
    if (queues.get(tabId) === next) queues.delete(tabId);
  });
  return next;
}

export const badge = {
  attached: (tabId: number) =>
    paint(tabId, 'ON', COLORS.on, `clawd: your agent drives this tab. Click to take it back.${PANEL_HINT}`),
  handedOver: (tabId: number, reason: string) =>
    paint(
      tabId,
      'YOU',
      COLORS.you,
      `clawd: your agent asks you: ${reason} — click here when done to give the tab back.`,
    ),
  paused: (tabId: number, url: string) =>
    paint(
      tabId,
      '❚❚',
      COLORS.connecting,
      `clawd: paused while this tab shows ${url.slice(0, 60)}; the agent gets it back when it returns to a web page. Click to stop.`,
    ),
  connecting: (tabId: number) => paint(tabId, '…', COLORS.connecting, 'clawd: connecting to the relay…'),
  error: (tabId: number, reason: string) => paint(tabId, '!', COLORS.error, `clawd: ${reason}`),
  clear: (tabId: number) => paint(tabId, '', undefined, IDLE_TITLE),
};
