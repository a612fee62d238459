// The options page: relay port and token, saved to chrome.storage.local (the worker reconnects
// on change), a "Test connection" that says precisely what is wrong, and the worker's live state.

import { ASK_KINDS, ASK_KIND_TEXT, type AskKind } from '../../shared/ask-kinds';
import { DEFAULT_RELAY_PORT } from '../../shared/defaults';
import { checkRelay } from './connection-check';
import { CONSENT_PORT, type PanelMessage, type WorkerMessage } from './consent-port';
import { bindAgentsMayOpenTabs, loadSettings, saveSettings } from './settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const portInput = $<HTMLInputElement>('port');
const tokenInput = $<HTMLInputElement>('token');
const result = $<HTMLDivElement>('result');
const live = $<HTMLParagraphElement>('live');

function show(ok: boolean, message: string): void {
  result.className = ok ? 'ok' : 'bad';
  result.textContent = message;
}

function formSettings() {
  const port = Number(portInput.value);
  return {
    relayPort: Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_RELAY_PORT,
    token: tokenInput.value.trim(),
  };
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

$<HTMLFormElement>('form').addEventListener('submit', (event) => {
  event.preventDefault();
  void saveSettings(formSettings()).then(() => show(true, 'Saved. The extension reconnects with these settings.'));
});

$<HTMLButtonElement>('test').addEventListener('click', () => {
  const { relayPort, token } = formSettings();
  result.className = '';
  void checkRelay(relayPort, token).then((r) => show(r.ok, r.message));
});

void loadSettings().then((settings) => {
  portInput.value = String(settings.relayPort);
  tokenInput.value = settings.token;
});
void refreshLive();
setInterval(() => void refreshLive(), 2_000);
// Lets a test read a fresh status line without waiting for the next refresh.
(globalThis as { refreshLiveForTests?: () => Promise<string | null> }).refreshLiveForTests = () =>
  refreshLive().then(() => live.textContent);

// The person's say: may agents open tabs here (kept in the extension, which refuses them), and
// what to be asked before (clawd's, through the same port the side panel uses).
bindAgentsMayOpenTabs($<HTMLInputElement>('may-open'));

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
