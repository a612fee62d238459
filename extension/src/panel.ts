// The side panel (and the same page opened as a tab): the consent state the relay sends through
// the worker — the questions waiting for the person with Allow and Deny, Stop, the tabs agents
// have and who holds each, what agents did (the same list the live view shows), the origin policy
// with "Block this site" for the tab beside the panel, what the person is asked before, and
// whether agents may open tabs here (Stop turns it off: an agent running on must not come back),
// and Record on each tab (panel-recording.ts). Everything it says goes back over the same port.

import { ASK_KINDS, ASK_KIND_TEXT, type AskKind } from '../../shared/ask-kinds';
import type { ConsentState } from '../../shared/consent-state';
import { ActionList, QuestionList } from '../../ui/agent-activity';
import { CONSENT_PORT, type PanelMessage, type WorkerMessage } from './consent-port';
import { RecordingPanel } from './panel-recording';
import { bindPersonSays } from './settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  status: $('status'),
  stop: $<HTMLButtonElement>('stop'),
  tabs: $<HTMLUListElement>('tabs'),
  handoffs: $<HTMLUListElement>('handoffs'),
  noTabs: $('no-tabs'),
  noActions: $('no-actions'),
  policy: $('policy'),
  block: $<HTMLButtonElement>('block'),
  ask: $<HTMLFieldSetElement>('ask'),
  approvals: $('approvals'),
  approvalList: $<HTMLUListElement>('approval-list'),
};

let port: chrome.runtime.Port | undefined;
const say = (message: PanelMessage) => port?.postMessage(message);
const actions = new ActionList($<HTMLOListElement>('actions'), 30); // PANEL_ACTIONS: what the relay sends
const questions = new QuestionList(
  $('questions'),
  (id, allow, standing, value) =>
    say({
      say: { answer: id, allow, ...(standing ? { for: standing } : {}), ...(value !== undefined ? { value } : {}) },
    }),
  true,
);
let state: ConsentState | undefined;
const recording = new RecordingPanel(
  {
    section: $('recording'),
    where: $('recording-where'),
    steps: $<HTMLOListElement>('steps'),
    name: $<HTMLInputElement>('recipe-name'),
    save: $<HTMLButtonElement>('save-recipe'),
    discard: $<HTMLButtonElement>('discard-recipe'),
    said: $('recipe-said'),
  },
  (message) => say({ say: message }),
);

function showTabs(s: ConsentState): void {
  ui.noTabs.hidden = s.tabs.length > 0;
  ui.tabs.replaceChildren(
    ...s.tabs.map((tab) => {
      const item = document.createElement('li');
      item.dataset.targetId = tab.targetId;
      item.dataset.person = String(tab.personActive);
      const title = document.createElement('div');
      title.className = 'title';
      title.textContent = tab.title || tab.url;
      const who = document.createElement('div');
      who.className = 'who';
      const holder =
        tab.holder === null
          ? 'no agent holds it yet'
          : tab.holder.kind === 'agent'
            ? `held by ${tab.holder.session}`
            : `handed to you: ${tab.holder.reason}`;
      who.textContent = `${tab.personActive ? 'yours while you use it · ' : ''}${holder} · ${hostOf(tab.url)}`;
      item.append(title, who);
      if (!recording.recording) {
        const record = Object.assign(document.createElement('button'), {
          type: 'button',
          className: 'record',
          textContent: 'Record a task here',
        });
        record.addEventListener('click', () => void recording.start(tab).then(() => state && show(state)));
        item.append(record);
      }
      return item;
    }),
  );
}

/** Tabs agents handed to the person in clawd's own browsers: each opens the person's own live view. */
function showHandoffs(s: ConsentState): void {
  const handoffs = s.handoffs ?? [];
  ui.handoffs.hidden = handoffs.length === 0;
  ui.handoffs.replaceChildren(
    ...handoffs.map((handoff) => {
      const item = document.createElement('li');
      item.dataset.targetId = handoff.targetId;
      const why = document.createElement('div');
      why.className = 'title';
      why.textContent = `An agent hands you a tab of ${handoff.profile}: ${handoff.reason}`;
      const open = Object.assign(document.createElement('button'), {
        type: 'button',
        className: 'open-view',
        textContent: 'Open the live view',
      });
      open.addEventListener('click', () =>
        say({ say: { view: { profile: handoff.profile, targetId: handoff.targetId } } }),
      );
      item.append(why, open);
      return item;
    }),
  );
}

/** The person's standing yeses, each with Take back. */
function showApprovals(s: ConsentState): void {
  const approvals = s.approvals ?? [];
  ui.approvals.hidden = approvals.length === 0;
  ui.approvalList.replaceChildren(
    ...approvals.map((approval) => {
      const item = document.createElement('li');
      item.dataset.id = approval.id;
      const words = document.createElement('span');
      words.textContent = `${approval.session ? `agent session “${approval.session}”: ` : ''}${approval.kinds.map((k) => ASK_KIND_TEXT[k]).join(' and ')} on ${hostOf(approval.origin)} ${
        approval.until ? `until ${new Date(approval.until).toLocaleTimeString()}` : 'in one tab, until it closes'
      }`;
      const back = Object.assign(document.createElement('button'), {
        type: 'button',
        className: 'revoke',
        textContent: 'Take back',
      });
      back.addEventListener('click', () => say({ say: { revoke: approval.id } }));
      item.append(words, ' ', back);
      return item;
    }),
  );
}

function showPolicy(s: ConsentState): void {
  const lines = [
    s.policy.allow ? `Only: ${s.policy.allow.join(', ') || 'nothing'}` : 'Any site',
    ...(s.policy.block?.length ? [`Never: ${s.policy.block.join(', ')}`] : []),
  ];
  ui.policy.replaceChildren(...lines.map((text) => Object.assign(document.createElement('p'), { textContent: text })));
}

function showAsk(kinds: readonly AskKind[]): void {
  for (const box of ui.ask.querySelectorAll<HTMLInputElement>('input[type=checkbox]'))
    box.checked = kinds.includes(box.value as AskKind);
}

function show(next: ConsentState): void {
  state = next;
  ui.status.dataset.state = 'connected';
  ui.status.textContent = next.tabs.length
    ? `${next.tabs.length} tab(s) handed to your agents.`
    : 'Connected to clawd. No tab is handed over.';
  // First: a recording that ended shows its tab's Record again below.
  recording.stateChanged(next);
  questions.show(next.questions);
  showTabs(next);
  showHandoffs(next);
  actions.show(next.actions);
  ui.noActions.hidden = next.actions.length > 0;
  showPolicy(next);
  showAsk(next.ask);
  showApprovals(next);
  void refreshBlock();
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
};

/** "Block this site" for the web page beside the panel (not when the panel is that tab itself). */
async function refreshBlock(): Promise<void> {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  const origin = tab?.url && /^https?:/.test(tab.url) ? new URL(tab.url).origin : undefined;
  ui.block.hidden = !origin || !state || (state.policy.block ?? []).includes(origin);
  ui.block.dataset.origin = origin ?? '';
  ui.block.textContent = origin ? `Block ${new URL(origin).host}` : 'Block this site';
}

for (const kind of ASK_KINDS) {
  const label = document.createElement('label');
  const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: kind, name: 'ask' });
  label.append(box, ` ${ASK_KIND_TEXT[kind]}`);
  ui.ask.append(label);
}
ui.ask.addEventListener('change', () => {
  const kinds = [...ui.ask.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value as AskKind);
  say({ say: { ask: kinds } });
});
ui.stop.addEventListener('click', () => say({ say: { stop: true } }));
bindPersonSays('agentsMayOpenTabs', $<HTMLInputElement>('may-open'));
ui.block.addEventListener('click', () => {
  if (ui.block.dataset.origin) say({ say: { block: ui.block.dataset.origin } });
});
chrome.tabs.onActivated.addListener(() => void refreshBlock());

/** A port to the worker; when the worker stops (it is reclaimed when idle), a new one wakes it. */
function connect(): void {
  port = chrome.runtime.connect({ name: CONSENT_PORT });
  port.onMessage.addListener((message: WorkerMessage) => {
    if (message.state) show(message.state);
    else if (message.status) {
      ui.status.dataset.state = message.status.state;
      ui.status.textContent = message.status.text;
    }
  });
  port.onDisconnect.addListener(() => {
    port = undefined;
    setTimeout(connect, 250);
  });
}
connect();
