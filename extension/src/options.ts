// The options page: relay port and token, saved to chrome.storage.local (the worker reconnects
// on change), a "Test connection" that says precisely what is wrong, and the worker's live state.

import { DEFAULT_RELAY_PORT } from '../../shared/defaults';
import { checkRelay } from './connection-check';
import { loadSettings, saveSettings } from './settings';

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
  return { relayPort: Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_RELAY_PORT, token: tokenInput.value.trim() };
}

async function refreshLive(): Promise<void> {
  try {
    const state = (await chrome.runtime.sendMessage({ type: 'status' })) as { status: string; detail: string; attachedTabs: number };
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
(globalThis as { refreshLiveForTests?: () => Promise<string | null> }).refreshLiveForTests = () => refreshLive().then(() => live.textContent);
