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

/**
 * The person's yes-or-no settings on the options page (and the side panel): whether agents may
 * open tabs in their browser (on unless they turned it off) and bring their tabs to the front (off
 * unless they turned it on: a tab in front takes the keys the person types into theirs).
 */
const SAYS = { agentsMayOpenTabs: true, agentsMayFocusTabs: false } as const;
export type PersonSay = keyof typeof SAYS;

export async function personSays(say: PersonSay): Promise<boolean> {
  const stored = (await chrome.storage.local.get(say))[say];
  return typeof stored === 'boolean' ? stored : SAYS[say];
}

export async function setPersonSays(say: PersonSay, allowed: boolean): Promise<void> {
  await chrome.storage.local.set({ [say]: allowed });
}

/** The person's "Agents may open tabs in my browser". */
export const agentsMayOpenTabs = (): Promise<boolean> => personSays('agentsMayOpenTabs');
export const setAgentsMayOpenTabs = (allowed: boolean): Promise<void> => setPersonSays('agentsMayOpenTabs', allowed);

/** Shows a setting in a checkbox and keeps it true to what is stored (Stop turns tabs off from the side panel). */
export function bindPersonSays(say: PersonSay, box: HTMLInputElement): void {
  void personSays(say).then((allowed) => (box.checked = allowed));
  box.addEventListener('change', () => void setPersonSays(say, box.checked));
  chrome.storage.onChanged.addListener((changes, area) => {
    const change = changes[say];
    if (area === 'local' && change) box.checked = typeof change.newValue === 'boolean' ? change.newValue : SAYS[say];
  });
}

export async function saveSettings(settings: Settings): Promise<void> {
  await chrome.storage.local.set({ relayPort: settings.relayPort, extensionKey: settings.key });
}
