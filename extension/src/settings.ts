// The extension's settings, kept in chrome.storage.local and set from the options page: the
// relay's port and the token from `clawd token`. The worker reconnects when either changes.

import { DEFAULT_RELAY_PORT } from '../../shared/defaults';

export interface Settings {
  relayPort: number;
  token: string;
}

export function normalizeSettings(raw: Record<string, unknown>): Settings {
  const port = Number(raw.relayPort);
  return {
    relayPort: Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_RELAY_PORT,
    token: typeof raw.token === 'string' ? raw.token.trim() : '',
  };
}

export async function loadSettings(): Promise<Settings> {
  return normalizeSettings(await chrome.storage.local.get(['relayPort', 'token']));
}

/** The person's "Agents may open tabs in my browser" (options page; on unless they turned it off). */
export async function agentsMayOpenTabs(): Promise<boolean> {
  const { agentsMayOpenTabs: allowed } = await chrome.storage.local.get('agentsMayOpenTabs');
  return allowed !== false;
}

export async function setAgentsMayOpenTabs(allowed: boolean): Promise<void> {
  await chrome.storage.local.set({ agentsMayOpenTabs: allowed });
}

/** Shows the setting in a checkbox and keeps it true to what is stored (Stop turns it off from the side panel). */
export function bindAgentsMayOpenTabs(box: HTMLInputElement): void {
  void agentsMayOpenTabs().then((allowed) => (box.checked = allowed));
  box.addEventListener('change', () => void setAgentsMayOpenTabs(box.checked));
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && 'agentsMayOpenTabs' in changes) box.checked = changes.agentsMayOpenTabs!.newValue !== false;
  });
}

export async function saveSettings(settings: Settings): Promise<void> {
  await chrome.storage.local.set({ relayPort: settings.relayPort, token: settings.token });
}
