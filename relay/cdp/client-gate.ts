// The relay's gate for raw CDP clients on the person's tabs, the twin of the agent layer's
// (agent/tab-gate.ts) for what the relay can tell from a command alone: a client's input waits
// while the person's own hands are on the tab, and the person is asked — when they asked to be —
// before a client goes to a site it has not been on (new-site), uploads a file (upload), reads
// the browser's cookies (raw-cookies) or takes a download's file (download, download-relay.ts). clawd's own agent layer is not held here: its calls passed
// its own gate, which knows more (the element, the session). Each raw client is an agent session
// of its own, named after it.

import type { AskKind } from '../../shared/ask-kinds';
import { originOf } from '../../shared/origin-policy';
import type { PersonActivity } from '../consent/person-activity';
import type { PersonQuestions } from '../consent/person-questions';
import type { ClientSession } from './client-session';
import { readsCookies } from './cookie-rules';
import type { TabRecord } from './target-registry';

/** How long a raw client's input waits for the person to be idle (it has no bound of its own to give). */
export const RAW_INPUT_WAIT_MS = 30_000;
/** How long a raw client's command waits for the person's answer. */
export const RAW_ASK_WAIT_MS = 60_000;

export interface ClientGateDeps {
  activity: PersonActivity;
  questions: PersonQuestions;
  /** The profile the person's tabs belong to (the extension profile), if there is one. */
  profile(): string | undefined;
  /** What the person asked to be asked before there. */
  asked(): readonly AskKind[];
}

export class ClientGate {
  // Each client's origins: those of the tabs it worked in and the addresses it loaded.
  readonly #visited = new WeakMap<ClientSession, Set<string>>();

  constructor(private readonly deps: ClientGateDeps) {}

  /** Before a raw client's command reaches a tab: what to wait for, or undefined to go at once. */
  before(
    client: ClientSession,
    tab: TabRecord | undefined,
    method: string,
    params: Record<string, unknown>,
  ): Promise<void> | undefined {
    // Every command of every raw client passes here: what most of them need is two lookups.
    if (client.internal) return undefined;
    if (tab && method.startsWith('Input.') && this.deps.activity.busyFor(tab.targetId) > 0) {
      return this.deps.activity.waitIdle(tab.targetId, RAW_INPUT_WAIT_MS, `${method} from ${client.name}`);
    }
    const asked = this.deps.asked();
    const profile = this.deps.profile();
    if (asked.length === 0 || profile === undefined) return undefined;
    const url = method === 'Page.navigate' || method === 'Target.createTarget' ? params.url : undefined;
    const newSite = asked.includes('new-site');
    const visited = this.#visitedBy(client);
    // The sites of the tabs it works in count as visited (only while new-site is asked: then it is read).
    const here = newSite && tab ? originOf(tab.info.url) : undefined;
    if (here) visited.add(here);
    const kinds: AskKind[] = [];
    const destination = typeof url === 'string' ? originOf(url) : undefined;
    if (newSite && destination && !visited.has(destination)) kinds.push('new-site');
    if (asked.includes('raw-cookies') && readsCookies(method)) kinds.push('raw-cookies');
    if (asked.includes('upload') && method === 'DOM.setFileInputFiles') kinds.push('upload');
    if (kinds.length === 0) {
      if (destination) visited.add(destination);
      return undefined;
    }
    const what = `${method}${typeof url === 'string' ? ` ${url}` : ''}`;
    return this.deps.questions
      .ask(
        {
          profile,
          ...(tab ? { targetId: tab.targetId } : {}),
          kinds,
          session: client.name,
          what,
          ...(typeof url === 'string' ? { url } : tab ? { url: tab.info.url } : {}),
        },
        RAW_ASK_WAIT_MS,
      )
      .then(() => {
        if (destination) visited.add(destination);
      });
  }

  /**
   * Whether a raw client is shown no cookie in events (request and response headers, cookie
   * lists): while the person asks before raw clients read cookies, an event cannot ask, so the
   * cookies are read with Network.getCookies and friends, which do.
   */
  asksBeforeCookies(client: ClientSession): boolean {
    return !client.internal && this.deps.profile() !== undefined && this.deps.asked().includes('raw-cookies');
  }

  /** Before a raw client has a download's file: the person's Allow, when they asked to be asked. */
  download(client: ClientSession, url: string): Promise<void> | undefined {
    const profile = this.deps.profile();
    if (client.internal || profile === undefined || !this.deps.asked().includes('download')) return undefined;
    return this.deps.questions.ask(
      { profile, kinds: ['download'], session: client.name, what: `download ${url}`, url },
      RAW_ASK_WAIT_MS,
    );
  }

  #visitedBy(client: ClientSession): Set<string> {
    let set = this.#visited.get(client);
    if (!set) this.#visited.set(client, (set = new Set()));
    return set;
  }
}
