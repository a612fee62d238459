// A tab as the agent layer keys it: its profile and its CDP target id together. The same target
// id can be reached through two profiles (a person's tabs belong to every extension profile), and
// refs, holds and hand-overs belong to the tab as one profile sees it.

export type TabKey = string & { readonly __tabKey: unique symbol };

export function tabKey(profile: string, targetId: string): TabKey {
  return `${profile}\u0000${targetId}` as TabKey;
}

export function tabOfKey(key: TabKey): { profile: string; targetId: string } {
  const at = key.indexOf('\u0000');
  return { profile: key.slice(0, at), targetId: key.slice(at + 1) };
}
