// The toolbar badge per tab: `ON` (lobster orange) while the tab is handed to the agent, `YOU`
// (blue) while the agent has handed it back to the person for a moment (the reason in the tooltip), `…`
// while the relay link is (re)connecting, `!` with the reason in the tooltip on an error, `❚❚`
// while a handed-over tab shows a browser page, and empty otherwise. The tooltip always says what
// a click will do. A handed-over tab's badge is a function of its state and the link's
// (`badgeLook`); `…` and `!` are also painted for a moment while a click attaches a tab.

import type { LinkStatus } from './relay-connection';

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

/** What one badge shows. */
export interface BadgeLook {
  text: string;
  color: string | undefined;
  title: string;
}

/** A handed-over tab, as the badge needs it. */
export interface TabLook {
  /** The browser page it shows, while parked. */
  parked?: string;
  /** The agent's reason, while the agent has handed it to the person. */
  handedOver?: string;
}

const LOOKS = {
  attached: (): BadgeLook => ({
    text: 'ON',
    color: COLORS.on,
    title: `clawd: your agent drives this tab. Click to take it back.${PANEL_HINT}`,
  }),
  handedOver: (reason: string): BadgeLook => ({
    text: 'YOU',
    color: COLORS.you,
    title: `clawd: your agent asks you: ${reason} — click here when done to give the tab back.`,
  }),
  paused: (url: string): BadgeLook => ({
    text: '❚❚',
    color: COLORS.connecting,
    title: `clawd: paused while this tab shows ${url.slice(0, 60)}; the agent gets it back when it returns to a web page. Click to stop.`,
  }),
  connecting: (): BadgeLook => ({ text: '…', color: COLORS.connecting, title: 'clawd: connecting to the relay…' }),
  error: (reason: string): BadgeLook => ({ text: '!', color: COLORS.error, title: `clawd: ${reason}` }),
  idle: (): BadgeLook => ({ text: '', color: undefined, title: IDLE_TITLE }),
};

/**
 * The badge of a tab: `tab` undefined when it is not handed over. A parked tab keeps ❚❚ whatever
 * the link does (it says why the agent cannot have it); otherwise the link comes first (a tab the
 * agent cannot reach is not ON), then the person's turn, then ON.
 */
export function badgeLook(tab: TabLook | undefined, link: { status: LinkStatus; detail: string }): BadgeLook {
  if (!tab) return LOOKS.idle();
  if (tab.parked !== undefined) return LOOKS.paused(tab.parked);
  if (link.status === 'connecting') return LOOKS.connecting();
  if (link.status !== 'connected') return LOOKS.error(link.detail);
  return tab.handedOver !== undefined ? LOOKS.handedOver(tab.handedOver) : LOOKS.attached();
}

const show = (tabId: number, look: BadgeLook) => paint(tabId, look.text, look.color, look.title);

export const badge = {
  /** Paints what `badgeLook` says. */
  show,
  /** For a moment, while a click attaches the tab. */
  connecting: (tabId: number) => show(tabId, LOOKS.connecting()),
  /** Why a click could not attach the tab. */
  error: (tabId: number, reason: string) => show(tabId, LOOKS.error(reason)),
};
