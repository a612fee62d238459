// An agent's tab to the front of its window (its window focused), for `tabs focus`, a raw
// client's Target.activateTarget or Page.bringToFront: only when the person's option lets agents.
// A tab in front takes the keys the person types into theirs, so it is off unless they turn it on;
// agents work in their tabs from behind (snapshots, actions and screenshots there need no front).

import { PersonRefusal } from './relay-connection';
import { personSays } from './settings';

export async function toFront(tabId: number): Promise<Record<string, never>> {
  if (!(await personSays('agentsMayFocusTabs')))
    throw new PersonRefusal(
      'focus_refused',
      'the person does not let agents bring their tabs to the front (the clawd extension\'s option "Agents may bring their tabs to the front" is off): a tab in front would take the keys they type into theirs; work in it from behind',
    );
  const tab = await chrome.tabs.update(tabId, { active: true });
  if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true });
  return {};
}
