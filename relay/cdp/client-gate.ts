// The gate for raw CDP clients, one per profile: the person's tabs (the relay's) and each managed
// profile's port (profiles/raw-client-rules.ts). The twin of the agent layer's (agent/tab-gate.ts)
// for what can be told from a command alone: a client's input waits while the person's own hands
// are on the tab, and the person is asked — when they asked to be — before a client goes to a
// site it has not been on (new-site), uploads a file (upload), reads the browser's cookies
// (raw-cookies) or takes a download's file (download, download-relay.ts); and, for what a command
// cannot tell (a form its input sends, a site a click loads), its commands other than reads go
// once the tab's requests are watched, for the client's stay (raw-watches.ts). clawd's own agent
// layer is not held here: its calls passed its own gate, which knows more (the element, the
// session). Each raw client is an agent session of its own, named after it.

import { WATCHED_ASK_KINDS, type AskKind } from '../../shared/ask-kinds';
import { originOf } from '../../shared/origin-policy';
import { ClawdError } from '../errors';
import type { PersonActivity } from '../consent/person-activity';
import type { PersonQuestions } from '../consent/person-questions';
import { readsCookies } from './cookie-rules';
import { downloadPlaceRefused } from './client-loads';
import { RawWatches, type OpenWatch } from './raw-watches';

/** A raw client as the gate knows it: the relay's ClientSession, or a managed port's connection. */
export interface GateClient {
  readonly id: number;
  readonly name: string;
  /** clawd's own connection: it passed the agent layer's gate. */
  readonly internal: boolean;
}

/** The tab a command reaches, with the address it shows now. */
export interface GateTab {
  readonly targetId: string;
  readonly info: { readonly url: string };
}

/** How long a raw client's input waits for the person to be idle (it has no bound of its own to give). */
export const RAW_INPUT_WAIT_MS = 30_000;
/** How long a raw client's command waits for the person's answer. */
export const RAW_ASK_WAIT_MS = 60_000;

/**
 * A raw client's commands that only read or set up what it is shown (the DOM, styles, the
 * accessibility tree, the frame tree, a screenshot, its own domains and sessions). Any other —
 * input, a script, a change of the DOM, a navigation, a dialog answered, what nobody listed —
 * goes once the tab's requests are watched (while watched kinds are asked).
 */
const READS =
  /^(\w+\.(enable|disable)|DOM\.(get\w+|describeNode|querySelector(All)?|resolveNode|requestNode|requestChildNodes|pushNodes\w*|performSearch|getSearchResults|discardSearchResults|highlight\w*|hideHighlight)|CSS\.get\w+|Accessibility\.\w+|Overlay\.\w+|Page\.(get\w+|captureScreenshot|createIsolatedWorld|setLifecycleEventsEnabled|startScreencast|stopScreencast|screencastFrameAck|bringToFront)|Runtime\.(getProperties|releaseObject|releaseObjectGroup|runIfWaitingForDebugger|getIsolateId|getHeapUsage|discardConsoleEntries|setAsyncCallStackDepth)|Network\.(getResponseBody|getRequestPostData|setCacheDisabled|setExtraHTTPHeaders|setUserAgentOverride)|Emulation\.\w+|Target\.\w+|Log\.\w+|Inspector\.\w+|Performance\.\w+|Browser\.getVersion)$/;

export interface ClientGateDeps {
  activity: PersonActivity;
  questions: PersonQuestions;
  /** The profile the person's tabs belong to (the extension profile), if there is one. */
  profile(): string | undefined;
  /** What the person asked to be asked before there. */
  asked(): readonly AskKind[];
  /** Opens a watch on a tab's requests (the agent layer's, once it exists). */
  watch(): OpenWatch | undefined;
  /** Whether the person was asked about going to a site on the profile and has not allowed it since (consent/unallowed-sites.ts). */
  unallowed(profile: string, site: string): boolean;
  /** Why the person has the tab (handed over, taken over, being recorded), if they have it. */
  personHas?(targetId: string): string | undefined;
  warn(message: string): void;
}

/**
 * What no raw client may send, asked or not: the page's own channel to the browser's protocol,
 * which would reach past every rule here; a DevTools window; DevTools' own fetch of any address
 * (with the browser's cookies if asked), which is no page's request: no policy, no question and
 * no watch sees it; a virtual authenticator (a passkey the person makes in a tab handed to them
 * would be the client's); web apps installed, launched or handed files of this machine, in
 * windows no watch holds; extensions loaded.
 */
const NEVER =
  /^(Target\.(exposeDevToolsProtocol|openDevTools)|Network\.loadNetworkResource|WebAuthn\.\w+|PWA\.\w+|Extensions\.\w+)$/;

/** A raw client's command refused whatever the person asks (both doors), or undefined. */
export function refusedOutright(method: string, params: Record<string, unknown>): ClawdError | undefined {
  if (NEVER.test(method))
    return new ClawdError(
      'unsupported',
      `${method} is not available to CDP clients of clawd: it would reach past the person's rules`,
    );
  return downloadPlaceRefused(method, params);
}

/** A command that hands the page files of this machine: a file input's, or a drag's drop (its `data.files`). */
function givesFiles(method: string, params: Record<string, unknown>): boolean {
  if (method === 'DOM.setFileInputFiles') return true;
  const files = (params.data as { files?: unknown } | undefined)?.files;
  return method === 'Input.dispatchDragEvent' && Array.isArray(files) && files.length > 0;
}

/**
 * What a raw client may not do to a tab the person has: their input, loads, closing it, answering
 * its dialogs (their "confirm transfer?"), changing its document. A script is not among them:
 * clients read pages with scripts too (what one does is judged by the watch, when asked).
 */
const CHANGES_WHILE_PERSONS =
  /^(Input\.\w+|Page\.(navigate|reload|navigateToHistoryEntry|resetNavigationHistory|close|crash|setDocumentContent|handleJavaScriptDialog)|DOM\.(set\w+|remove\w+|moveTo|copyTo|undo|redo)|Target\.(closeTarget|activateTarget))$/;

export class ClientGate {
  // Each client's origins: those of the tabs it worked in and the addresses it loaded.
  readonly #visited = new WeakMap<GateClient, Set<string>>();
  readonly #watches: RawWatches;
  // Each client's tabs where it ran code or changed the page (any command but a read or input),
  // by `${client.id}\n${targetId}`: a listener it left could turn the person's own key into its
  // load, so a load there while the person's hands are on the tab is asked too.
  readonly #meddled = new Set<string>();
  // Per tab asked about: aborted when the tab goes, which withdraws its questions.
  readonly #tabs = new Map<string, AbortController>();

  constructor(private readonly deps: ClientGateDeps) {
    this.#watches = new RawWatches(deps.warn);
  }

  close(): void {
    this.#watches.close();
    for (const tab of this.#tabs.values()) tab.abort();
    this.#tabs.clear();
  }

  /** A tab went: questions about it are withdrawn (nobody is left to answer for), its watches end. */
  tabGone(targetId: string): void {
    this.#tabs.get(targetId)?.abort();
    this.#tabs.delete(targetId);
    this.#watches.endTab(targetId);
    for (const key of this.#meddled) if (key.endsWith(`\n${targetId}`)) this.#meddled.delete(key);
  }

  /** What withdraws a question about the tab once it goes. */
  #goneSignal(targetId: string): AbortSignal {
    let tab = this.#tabs.get(targetId);
    if (!tab) this.#tabs.set(targetId, (tab = new AbortController()));
    return tab.signal;
  }

  /** A client went: its watches end (what they hold is answered first). */
  forget(client: GateClient): void {
    this.#watches.end(`${client.id}\n`);
    for (const key of this.#meddled) if (key.startsWith(`${client.id}\n`)) this.#meddled.delete(key);
  }

  /** Before a raw client's command reaches a tab: what to wait for, or undefined to go at once. */
  before(
    client: GateClient,
    tab: GateTab | undefined,
    method: string,
    params: Record<string, unknown>,
  ): Promise<void> | undefined {
    // Every command of every raw client passes here: what most of them need is two lookups.
    if (client.internal) return undefined;
    const never = refusedOutright(method, params);
    if (never) return Promise.reject(never);
    // A new tab is the browser's, whichever session asked for it: no question of it is the tab's.
    if (method === 'Target.createTarget') tab = undefined;
    // The person has the tab: as the agent API answers 423, a raw client's input and loads are refused.
    // A tab closed or brought to the front from the browser's session is named in the command.
    const named = method.startsWith('Target.') && typeof params.targetId === 'string' ? params.targetId : tab?.targetId;
    const persons =
      named !== undefined && CHANGES_WHILE_PERSONS.test(method) ? this.deps.personHas?.(named) : undefined;
    if (persons !== undefined)
      return Promise.reject(
        new ClawdError(
          'user_in_control',
          `${method}: the person has this tab ("${persons}"); nothing was done. Wait until they give it back`,
        ),
      );
    if (tab && method.startsWith('Input.') && this.deps.activity.busyFor(tab.targetId) > 0)
      return this.deps.activity
        .waitIdle(tab.targetId, RAW_INPUT_WAIT_MS, `${method} from ${client.name}`)
        .then(() => this.#asks(client, tab, method, params));
    return this.#asks(client, tab, method, params);
  }

  /** What the person asked to be asked before, for this command. */
  #asks(
    client: GateClient,
    tab: GateTab | undefined,
    method: string,
    params: Record<string, unknown>,
  ): Promise<void> | undefined {
    const asked = this.deps.asked();
    const profile = this.deps.profile();
    if (asked.length === 0 || profile === undefined) return undefined;
    const watchedKinds = WATCHED_ASK_KINDS.filter((kind) => asked.includes(kind));
    // The watch holds a tab's requests (on the person's browser, on the tab's one debugger
    // session, where any client's continue lets one go, its id guessed or shown): a client's own
    // interception, there or browser-wide, could let them go unanswered, or change them once
    // judged. One a client started before the person's asks stops with the client.
    if (watchedKinds.length > 0 && method.startsWith('Fetch.') && method !== 'Fetch.disable')
      return Promise.reject(
        new ClawdError(
          'unsupported',
          `${method}: the person asks before ${watchedKinds.join(', ')}, so clawd holds the tabs' requests for their answer; a client's own request interception is refused meanwhile`,
        ),
      );
    const watching = new Set(tab ? watchedKinds : []);
    const acts = watching.size > 0 && !READS.test(method);
    if (acts && !method.startsWith('Input.')) this.#meddled.add(`${client.id}\n${tab!.targetId}`);
    const watched = acts ? () => this.#watched(client, tab!, profile, watching) : undefined;
    const url = method === 'Page.navigate' || method === 'Target.createTarget' ? params.url : undefined;
    const newSite = asked.includes('new-site');
    const visited = this.#visitedBy(client);
    // The sites of the tabs it works in count as visited (only while new-site is asked: then it is read).
    const here = newSite && tab ? originOf(tab.info.url) : undefined;
    // Not a site the person was asked about and has not allowed: a tab shows its error page there.
    if (here && !this.deps.unallowed(profile, here)) visited.add(here);
    const kinds: AskKind[] = [];
    const destination = typeof url === 'string' ? originOf(url) : undefined;
    if (newSite && destination && !visited.has(destination)) kinds.push('new-site');
    // A page of no site (data:, javascript:, blob:) runs what its address carries at once, before
    // any watch: a new site every time (about:blank, an empty tab, is none).
    else if (newSite && typeof url === 'string' && !destination && !/^about:blank\b/i.test(url.trim()))
      kinds.push('new-site');
    if (asked.includes('raw-cookies') && readsCookies(method)) kinds.push('raw-cookies');
    if (asked.includes('upload') && givesFiles(method, params)) kinds.push('upload');
    if (kinds.length === 0) {
      if (destination) visited.add(destination);
      return watched?.();
    }
    const what = `${method}${typeof url === 'string' ? ` ${url}` : ''}`;
    const answered = this.deps.questions
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
        tab ? this.#goneSignal(tab.targetId) : undefined,
      )
      .then(() => {
        if (destination) visited.add(destination);
      });
    return watched ? answered.then(watched) : answered;
  }

  /**
   * A raw client's new tab at `url` (Target.createTarget, /json/new) while the person asks about
   * what only requests tell: the door opens it blank and loads `url` once what this answers has
   * resolved — the client's watch on the new tab — so a redirect to another site or a form its
   * page sends at once is judged as after the client's navigation. Undefined: open it as asked
   * (nothing is watched, or nothing is loaded).
   */
  opensWatched(client: GateClient, url: string): ((targetId: string) => Promise<void>) | undefined {
    const profile = this.deps.profile();
    if (client.internal || profile === undefined || url === '' || /^about:blank\b/i.test(url.trim())) return undefined;
    const asked = this.deps.asked();
    const watching = new Set(WATCHED_ASK_KINDS.filter((kind) => asked.includes(kind)));
    if (watching.size === 0) return undefined;
    return (targetId) => {
      // The client made the tab: what loads in it is the client's, the person's hands on it or not.
      this.#meddled.add(`${client.id}\n${targetId}`);
      return this.#watched(client, { targetId, info: { url } }, profile, watching);
    };
  }

  /** Resolves once the tab's requests are watched for the client (raw-watches.ts). */
  #watched(client: GateClient, tab: GateTab, profile: string, kinds: ReadonlySet<AskKind>): Promise<void> {
    const key = `${client.id}\n${tab.targetId}`;
    const ask = (asking: AskKind[], url: string, what: string) =>
      // What the person does with their own hands on the tab is theirs, not the client's — unless
      // the client ran code there, which could have made their key its load.
      this.deps.activity.busyFor(tab.targetId) > 0 && !this.#meddled.has(key)
        ? Promise.resolve()
        : this.deps.questions.ask(
            { profile, targetId: tab.targetId, kinds: asking, session: client.name, what, url },
            RAW_ASK_WAIT_MS,
            this.#goneSignal(tab.targetId),
          );
    const open = this.deps.watch();
    const visited = this.#visitedBy(client);
    return this.#watches.arm(
      key,
      () =>
        open
          ? open({ targetId: tab.targetId, kinds, visited, ask, left: () => RAW_ASK_WAIT_MS })
          : Promise.reject(new Error('the agent layer is not running')),
      // Not watched, not let through unasked: the person is asked about all of it, once for the client's stay.
      (error) => ask([...kinds], tab.info.url, `clawd cannot watch this tab's requests (${error.message})`),
    );
  }

  /**
   * Whether a raw client is shown no cookie in events (request and response headers, cookie
   * lists): while the person asks before raw clients read cookies, an event cannot ask, so the
   * cookies are read with Network.getCookies and friends, which do.
   */
  asksBeforeCookies(client: GateClient): boolean {
    return !client.internal && this.deps.profile() !== undefined && this.deps.asked().includes('raw-cookies');
  }

  /** Before a raw client has a download's file: the person's Allow, when they asked to be asked. */
  download(client: GateClient, url: string): Promise<void> | undefined {
    const profile = this.deps.profile();
    if (client.internal || profile === undefined || !this.deps.asked().includes('download')) return undefined;
    return this.deps.questions.ask(
      { profile, kinds: ['download'], session: client.name, what: `download ${url}`, url },
      RAW_ASK_WAIT_MS,
    );
  }

  #visitedBy(client: GateClient): Set<string> {
    let set = this.#visited.get(client);
    if (!set) this.#visited.set(client, (set = new Set()));
    return set;
  }
}
