// Chrome tab groups as the person's consent, visible: a tab attached with the toolbar joins a
// group titled `clawd` in its window (lobster orange), a tab an agent session opens joins that
// session's own group `clawd · <session>` (a colour of its own), and a tab leaves its group when
// it is released (an empty group goes by itself). The person's drags are read back by the worker
// (a tab into a clawd group is attached, out of one released). Group changes run one at a
// time: two tabs joining at once would otherwise make two groups of one name.

export const CLAWD_GROUP = 'clawd';
const SESSION_SEPARATOR = ' · ';
/** Colours for sessions' groups; `clawd` itself is orange, like the managed browser. */
const SESSION_COLORS: Array<`${chrome.tabGroups.Color}`> = [
  'blue',
  'purple',
  'cyan',
  'green',
  'pink',
  'yellow',
  'red',
  'grey',
];

export function groupTitle(session: string | undefined): string {
  return session ? `${CLAWD_GROUP}${SESSION_SEPARATOR}${session}` : CLAWD_GROUP;
}

/** An agent session's name, as the agent API takes it. */
const SESSION_NAME = /^[\w.-]{1,64}$/;

/** What a group's title says: not a clawd group (null), the plain `clawd` group (''), or an agent session's (its name). */
export function sessionOfTitle(title: string | undefined): string | null {
  if (title === CLAWD_GROUP) return '';
  if (!title?.startsWith(`${CLAWD_GROUP}${SESSION_SEPARATOR}`)) return null;
  const session = title.slice(CLAWD_GROUP.length + SESSION_SEPARATOR.length);
  return SESSION_NAME.test(session) ? session : null; // "clawd · my shop" names no session an agent could use
}

const NO_GROUP = -1;

export class TabGroups {
  #queue: Promise<unknown> = Promise.resolve();
  // Tab id → the group the worker itself last put it in: a tab found there was not moved by the person.
  readonly #placed = new Map<number, number>();

  /** Runs group changes one after another; a failure (a tab gone meanwhile) does not stop the next. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Resolves once the group changes asked for so far are done (a tab's group read then is what it will stay). */
  settled(): Promise<void> {
    return this.#serial(async () => {});
  }

  /** The session a group stands for ('' the plain clawd group), or null for any other group or none. */
  async sessionOf(groupId: number | undefined): Promise<string | null> {
    if (groupId === undefined || groupId === NO_GROUP) return null;
    const group = await chrome.tabGroups.get(groupId).catch(() => undefined);
    return sessionOfTitle(group?.title);
  }

  /** Puts the tab in the clawd group of `session` (or the plain one) in its window, made when there is none. */
  join(tabId: number, session: string | undefined): Promise<void> {
    return this.#serial(async () => {
      const tab = await chrome.tabs.get(tabId).catch(() => undefined);
      if (!tab || tab.windowId === undefined) return;
      const title = groupTitle(session);
      const groups = await chrome.tabGroups.query({ windowId: tab.windowId });
      const existing = groups.find((g) => g.title === title);
      if (existing) {
        this.#placed.set(tabId, existing.id);
        if (tab.groupId !== existing.id) await chrome.tabs.group({ tabIds: [tabId], groupId: existing.id });
        return;
      }
      const groupId = await chrome.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
      this.#placed.set(tabId, groupId);
      const used = new Set(groups.filter((g) => sessionOfTitle(g.title) !== null).map((g) => g.color));
      await chrome.tabGroups.update(groupId, {
        title,
        color: session ? colorFor(session, used) : 'orange',
        collapsed: false,
      });
    });
  }

  /** Whether the tab is in the group the worker itself put it in (not one the person moved it to). */
  placedHere(tabId: number, groupId: number | undefined): boolean {
    return groupId !== undefined && this.#placed.get(tabId) === groupId;
  }

  /** Puts a tab in the clawd group another tab is in (a popup with its opener); none when the opener is in none. */
  async joinWith(tabId: number, otherTabId: number): Promise<void> {
    const other = await chrome.tabs.get(otherTabId).catch(() => undefined);
    const session = await this.sessionOf(other?.groupId);
    if (session !== null) await this.join(tabId, session || undefined);
  }

  /** Takes the tab out of its clawd group (the group goes with its last tab); a tab in another group of the person's stays there. */
  leave(tabId: number): Promise<void> {
    return this.#serial(async () => {
      this.#placed.delete(tabId);
      const tab = await chrome.tabs.get(tabId).catch(() => undefined);
      if (!tab || (await this.sessionOf(tab.groupId)) === null) return;
      await chrome.tabs.ungroup(tabId);
    });
  }

  /**
   * At the worker's start: clawd groups left by a browser restart or an extension reload hold
   * only tabs that are attached now (those that were attached when the worker stopped); the rest
   * are taken out, never attached silently.
   */
  reconcile(isAttached: (tabId: number) => boolean): Promise<void> {
    return this.#serial(async () => {
      const groups = (await chrome.tabGroups.query({})).filter((g) => sessionOfTitle(g.title) !== null);
      for (const group of groups) {
        const stray = (await chrome.tabs.query({ groupId: group.id }))
          .map((t) => t.id)
          .filter((id): id is number => id !== undefined && !isAttached(id));
        const [first, ...rest] = stray;
        if (first !== undefined) await chrome.tabs.ungroup([first, ...rest]);
      }
    });
  }
}

/** A colour of the session's own: the first its name points at that no other clawd group in the window uses. */
function colorFor(session: string, used: Set<string>): `${chrome.tabGroups.Color}` {
  let hash = 0;
  for (const ch of session) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  for (let i = 0; i < SESSION_COLORS.length; i++) {
    const color = SESSION_COLORS[(hash + i) % SESSION_COLORS.length]!;
    if (!used.has(color)) return color;
  }
  return SESSION_COLORS[hash % SESSION_COLORS.length]!;
}
