// The options page: whether this browser is paired with clawd (and on which port) — the key comes
// from pairing or the native host, never typed in — a "Test connection" that says precisely
// what is wrong, the worker's live state, and the person's say.

import { ASK_KINDS, ASK_KIND_TEXT, type AskKind } from '../../shared/ask-kinds';
import { checkRelay } from './connection-check';
import { CONSENT_PORT, type PanelMessage, type WorkerMessage } from './consent-port';
import { bindPersonSays, loadSettings } from './settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const paired = $<HTMLParagraphElement>('paired');
const result = $<HTMLDivElement>('result');
const live = $<HTMLParagraphElement>('live');

function show(ok: boolean, message: string): void {
  result.className = ok ? 'ok' : 'bad';
  result.textContent = message;
}

async function refreshLive(): Promise<void> {
  try {
    const state = (await chrome.runtime.sendMessage({ type: 'status' })) as {
      status: string;
      detail: string;
      attachedTabs: number;
    };
    live.textContent = `Status: ${state.status} (${state.detail}); ${state.attachedTabs} tab(s) attached.`;
  } catch {
    live.textContent = 'Status: the background worker is starting…';
  }
}

$<HTMLButtonElement>('test').addEventListener('click', () => {
  result.className = '';
  void loadSettings()
    .then((settings) => checkRelay(settings.relayPort))
    .then((r) => show(r.ok, r.message));
});

function showPaired(): void {
  void loadSettings().then((settings) => {
    paired.textContent = settings.key
      ? `Paired with clawd on port ${settings.relayPort}.`
      : 'Not paired yet: run `clawd pair` in your terminal and open the link it prints.';
  });
}
showPaired();
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && ('relayPort' in changes || 'extensionKey' in changes)) showPaired();
});
void refreshLive();
setInterval(() => void refreshLive(), 2_000);
// Lets a test read a fresh status line without waiting for the next refresh.
(globalThis as { refreshLiveForTests?: () => Promise<string | null> }).refreshLiveForTests = () =>
  refreshLive().then(() => live.textContent);

// The person's say: may agents open tabs here (kept in the extension, which refuses them), and
// what to be asked before (clawd's, through the same port the side panel uses).
bindPersonSays('agentsMayOpenTabs', $<HTMLInputElement>('may-open'));
bindPersonSays('agentsMayFocusTabs', $<HTMLInputElement>('may-focus'));

const ask = $<HTMLFieldSetElement>('ask');
ask.disabled = true;
for (const kind of ASK_KINDS) {
  const label = document.createElement('label');
  label.append(Object.assign(document.createElement('input'), { type: 'checkbox', value: kind }), ASK_KIND_TEXT[kind]);
  ask.append(label);
}
let consent: chrome.runtime.Port | undefined;
function connectConsent(): void {
  consent = chrome.runtime.connect({ name: CONSENT_PORT });
  consent.onMessage.addListener((message: WorkerMessage) => {
    if (!message.state) return;
    ask.disabled = false;
    for (const box of ask.querySelectorAll<HTMLInputElement>('input'))
      box.checked = message.state.ask.includes(box.value as AskKind);
  });
  consent.onDisconnect.addListener(() => {
    ask.disabled = true;
    setTimeout(connectConsent, 500);
  });
}
connectConsent();
ask.addEventListener('change', () => {
  const kinds = [...ask.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value as AskKind);
  consent?.postMessage({ say: { ask: kinds } } satisfies PanelMessage);
});
