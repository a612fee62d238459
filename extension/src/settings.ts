// The extension's settings, kept in chrome.storage.local: the relay's port and the extension key,
// which pairing (`clawd pair`) or the native host (`clawd install`) gives it — never the agents'
// token, and never typed in. The worker reconnects when either changes.

import { DEFAULT_RELAY_PORT } from '../../shared/defaults';

export interface Settings {
  relayPort: number;
  /** The extension key; '' until paired. */
  key: string;
}

export function normalizeSettings(raw: Record<string, unknown>): Settings {
  const port = Number(raw.relayPort);
  return {
    relayPort: Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_RELAY_PORT,
    key: typeof raw.extensionKey === 'string' ? raw.extensionKey.trim() : '',
  };
}

export async function loadSettings(): Promise<Settings> {
  return normalizeSettings(await chrome.storage.local.get(['relayPort', 'extensionKey']));
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
  await chrome.storage.local.set({ relayPort: settings.relayPort, extensionKey: settings.key });
}
