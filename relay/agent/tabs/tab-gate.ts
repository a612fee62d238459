// The one gate every agent call passes before it runs, when its operation says so (`gate` in
// relay/operations/): a call that changes a tab is refused while another session or the person
// holds it and waits while the person's own hands are on it; a call the person asked to be
// asked about (browser.profiles.<name>.ask) waits for their Allow; then the call's session takes
// the tab. Everything waits within the call's own bound, and the caller hears at once that it
// is waiting for the person. A new ask kind is a line in shared/ask-kinds.ts and what here
// tells that a call is one. What only the requests tell is watched during the call, and what the
// call left running after it (lingering-watches.ts).
// Kept whole (under the 400-line cap): every check a call passes (holds, hands, asks, the watch
// it runs under, a new tab's load) is one ordered pass; apart, a call could skip one.

import { WATCHED_ASK_KINDS, type AskKind } from '../../../shared/ask-kinds';
import { originOf } from '../../../shared/origin-policy';
import { callerSignal, noteForCaller } from '../../call-notes';
import type { PersonActivity } from '../../consent/person-activity';
import type { PersonQuestions } from '../../consent/person-questions';
import type { GateSpec, Touches } from '../../operations/operation';
import { within } from '../../time-limit';
import { ActionWatch, type WatchOptions } from '../actions/action-watch';
import type { AgentCall } from '../agent-calls';
import { LingeringWatches, type LeftWatches } from './lingering-watches';
import type { AgentPage } from './page-finder';
import type { ActTarget } from '../snapshots/snapshot-engine';
import type { TabControl } from './tab-control';
import { tabKey, tabOfKey } from './tab-key';

/** How long a call without a `timeoutMs` of its own (a new tab, a storage export) waits for the person. */
/** How long the page a question names may take to say where it is now (a rested tab wakes first). */
const NAMED_MS = 3_000;

export const GATE_WAIT_MS = 60_000;
/** How long the page may take to say whether an element sends a form. */
const PROBE_MS = 2_000;

export interface GateDeps {
  find(
    profile: string,
    targetId: string | undefined,
    session: string | undefined,
    timeoutMs: number,
  ): Promise<AgentPage>;
  /** A tab's whole target id from an id or a unique prefix, without reaching its page. */
  tabId(profile: string, idOrPrefix: string): Promise<string>;
  /** The element a call's ref names (a recipe step's by its locator: agent-calls.ts `target`). */
  resolve(call: AgentCall, found: AgentPage, ref: string): Promise<ActTarget>;
  control: TabControl;
  activity: PersonActivity;
  questions: PersonQuestions;
  /** What the person asked to be asked before on the profile. */
  askOf(profile: string): readonly AskKind[];
  /** Refuses a URL the profile's origin policy blocks (so nobody is asked about a load that cannot happen). */
  checkUrl(profile: string, url: string): void;
  /** Holds the pop-ups of the page's browser for their opener's watch (page-finder.ts). */
  holdPopups(found: AgentPage): Promise<void>;
}

/** One call at the gate: the call's record, its operation's spec, its checked input, and its label as the action log says it. */
export interface GateCall {
  call: AgentCall;
  spec: GateSpec<any>;
  input: Record<string, unknown>;
  label: string;
}

export interface GatePassed {
  /** How long the call waited for the person, in ms. */
  waited: number;
  /** The whole id of the tab the gate checked, when it checked one. */
  targetId?: string;
  /** The page it checked (a call that changes a page): the call acts on this one, found once. */
  found?: AgentPage;
  /**
   * Runs the call with the tab's requests judged by what happens (action-watch.ts), when the
   * person asks about something only the requests tell (a form sent, a new site, a download).
   */
  watched?<T>(work: () => Promise<T>): Promise<T>;
  /** A call that opens a tab (`opens`): runs its load on the new tab with the tab's requests watched. */
  opened?<T>(targetId: string, work: (found: AgentPage, leftMs: number) => Promise<T>): Promise<T>;
}

/** One call on its way through the gate. */
interface Passing {
  profile: string;
  session: string | undefined;
  targetId: string | undefined;
  label: string;
  /** What is left of the call's bound, in ms. */
  left(): number;
  found: AgentPage | undefined;
  /** The tab the call changes: its page's, or the tab alone (closing it). */
  changed: string | undefined;
  /** How long it has waited for the person, in ms. */
  waited: number;
}

export class TabGate {
  // `${profile} ${session}` → the origins that session has been on (loaded, or acted on a page of):
  // what `new-site` compares with. Grows with the sessions' work; dropped with close().
  readonly #visited = new Map<string, Set<string>>();
  readonly #lingering: LingeringWatches;

  constructor(private readonly deps: GateDeps) {
    this.#lingering = new LingeringWatches(deps);
  }

  /**
   * Lets the call through, or throws why not. Answers how long it waited for the person (the
   * call's bound shrinks by that) and the tab it checked: the call must act on that one, not on
   * whichever tab is the profile's default by the time it runs.
   */
  async pass(call: GateCall): Promise<GatePassed> {
    const { spec, input, label } = call;
    const { profile, session, targetId } = call.call;
    const began = Date.now();
    const bound = call.call.timeoutMs ?? GATE_WAIT_MS;
    const left = () => Math.max(0, bound - (Date.now() - began));
    const touches: Touches = spec.touches?.(input) ?? {};
    // A refused address is said before any browser is found or made (a Grid's slot, a start).
    if (touches.url !== undefined) this.deps.checkUrl(profile, touches.url);
    const asked = new Set(this.deps.askOf(profile));
    // A call that changes a tab is about a page (closing one, only the tab); a new tab or an export is not.
    const found = spec.changes && !spec.tabOnly ? await this.deps.find(profile, targetId, session, bound) : undefined;
    const tabOnly =
      spec.changes && spec.tabOnly && targetId !== undefined ? await this.deps.tabId(profile, targetId) : undefined;
    if (tabOnly !== undefined) this.deps.control.check(tabKey(profile, tabOnly), session);
    const p: Passing = {
      profile,
      session,
      targetId,
      label,
      left,
      found,
      changed: found?.targetId ?? tabOnly,
      waited: 0,
    };
    if (found) this.deps.control.check(found.tab, session);
    await this.#handsOff(p);
    const visited = this.#visitedBy(profile, session);
    const here = found && !found.page.isClosed() ? originOf(found.page.url()) : undefined;
    if (here) visited.add(here);

    const kinds: AskKind[] = [...(spec.asks ?? []), ...(spec.asksFor?.(input) ?? [])].filter((kind) => asked.has(kind));
    const clicked =
      touches.sends && found && (asked.has('submit') || asked.has('download'))
        ? await this.#clickDoes(call.call, found, touches.sends, left())
        : undefined;
    if (asked.has('submit') && clicked?.sends) kinds.push('submit');
    const destination = touches.url !== undefined ? originOf(touches.url) : undefined;
    if (asked.has('new-site') && destination && !visited.has(destination)) kinds.push('new-site');
    if (kinds.length > 0) {
      // A person's tab that rested may have moved meanwhile, unseen: it is read (and so woken, its
      // address told) before the person is asked about it.
      if (found && !found.page.isClosed())
        await within(found.page.title(), NAMED_MS, () => new Error('no title')).catch(() => {});
      const url = touches.url ?? (found && !found.page.isClosed() ? found.page.url() : undefined);
      await this.#waitFor(p, this.#question(p, label, url, kinds));
    }
    // Looked at again: while the person was asked, they may have put their hands on the tab, and
    // another session or a hand-over may have come. Only then is the tab taken.
    if (kinds.length > 0) await this.#handsOff(p);
    if (found) this.deps.control.change(found.tab, session);
    if (tabOnly !== undefined) this.deps.control.check(tabKey(profile, tabOnly), session);
    if (destination) visited.add(destination);
    const watched = this.#watchedFor(p, asked, visited, kinds, clicked?.downloads === true);
    const opened = spec.opens && destination ? this.#openedFor(p, asked, visited, kinds) : undefined;
    const { changed, waited } = p;
    return {
      waited,
      ...(changed !== undefined ? { targetId: changed } : {}),
      ...(found ? { found } : {}),
      ...(watched ? { watched } : {}),
      ...(opened ? { opened } : {}),
    };
  }

  /** Waits for the person; the call's bound shrinks by the time it took. */
  async #waitFor(p: Passing, person: Promise<void>): Promise<void> {
    const from = Date.now();
    try {
      await person;
    } finally {
      p.waited += Date.now() - from;
    }
  }

  /** While the person's hands are on the tab the call changes, it waits until they are idle. */
  async #handsOff(p: Passing): Promise<void> {
    if (p.changed !== undefined && this.deps.activity.busyFor(p.changed) > 0)
      await this.#waitFor(p, this.deps.activity.waitIdle(p.changed, p.left(), p.label));
  }

  /** Asks the person (the caller hears it is waiting), within what is left of the call's bound. */
  #question(p: Passing, what: string, url: string | undefined, asking: AskKind[]): Promise<void> {
    const where = p.found?.targetId ?? p.targetId;
    // The label quotes the page (an element's name) cut, flagged and marked: fenced for the agent.
    noteForCaller(
      `waiting for the person to allow: ${asking.join(' and ')}${where ? ` on tab ${where.slice(0, 8)}` : ''} (${what})`,
    );
    return this.deps.questions.ask(
      {
        profile: p.profile,
        ...(where ? { targetId: where } : {}),
        kinds: asking,
        ...(p.session ? { session: p.session } : {}),
        what,
        ...(url ? { url } : {}),
      },
      p.left(),
      callerSignal(),
      true,
    );
  }

  /**
   * What only the requests tell is judged while the call runs (the person's asks that the call
   * did not already answer here: a click that was not on a submit button may still send a form).
   * `downloads`: the call clicks a link that says `download`; once it has, its download is waited for.
   */
  #watchedFor(
    p: Passing,
    asked: Set<AskKind>,
    visited: Set<string>,
    kinds: AskKind[],
    downloads: boolean,
  ): GatePassed['watched'] {
    const { found } = p;
    const options = this.#watchOptions(p, asked, visited, kinds);
    if (!found || !options || found.page.isClosed()) return undefined;
    return <T>(work: () => Promise<T>) => this.#watched(p, found, work, options, downloads);
  }

  /**
   * A new tab's load is watched as a navigation's: without it, a tab opened on a site the session
   * has been on could go on to another site (a redirect) or send a form unasked.
   */
  #openedFor(p: Passing, asked: Set<AskKind>, visited: Set<string>, kinds: AskKind[]): GatePassed['opened'] {
    if (!this.#watchOptions(p, asked, visited, kinds)) return undefined;
    return async <T>(targetId: string, work: (found: AgentPage, leftMs: number) => Promise<T>) => {
      const found = await this.deps.find(p.profile, targetId, p.session, p.left());
      const onTab: Passing = { ...p, found, changed: targetId };
      const options = this.#watchOptions(onTab, asked, visited, kinds)!;
      return this.#watched(onTab, found, () => work(found, p.left()), options);
    };
  }

  /** What the call's watch judges (the person's asks the gate did not already answer), or undefined when nothing. */
  #watchOptions(p: Passing, asked: Set<AskKind>, visited: Set<string>, kinds: AskKind[]): WatchOptions | undefined {
    const watching = new Set(WATCHED_ASK_KINDS.filter((kind) => asked.has(kind)));
    if (watching.size === 0) return undefined;
    return {
      kinds: watching,
      visited,
      asked: new Set(kinds),
      ask: (asking, url, what) => this.#question(p, `${p.label}: ${what}`, url, asking),
      left: p.left,
    };
  }

  /** The person pressed Stop: what agents' calls left running on the profile's tabs is theirs now. */
  stopped(profile: string): void {
    this.#lingering.endProfile(profile);
  }

  /** The watches left on tabs, as raw clients' watches meet them (control-calls.ts `watchTab`). */
  readonly leftWatches: LeftWatches = {
    take: (found) => this.#lingering.take(found.tab, found.page),
    // Once the client has gone, what it left running is judged on there.
    stay: (found, watch, visited) => {
      const { profile } = tabOfKey(found.tab);
      this.#lingering.stay({ profile, session: undefined, label: 'a raw CDP client' }, found, watch, visited);
    },
  };

  close(): void {
    this.#visited.clear();
    this.#lingering.close();
  }

  /** Runs `work` with the page's requests watched; a refusal there is the call's answer. */
  async #watched<T>(
    p: Passing,
    found: AgentPage,
    work: () => Promise<T>,
    options: WatchOptions,
    downloads = false,
  ): Promise<T> {
    const { page, tab } = found;
    let watch: ActionWatch;
    try {
      // Every call, before the tab's watch is taken: the browser's hold on new pages may have
      // dropped since the watch began (failing, the watch left on the tab stays as it was).
      await this.deps.holdPopups(found);
      const taken = this.#lingering.take(tab, page);
      taken?.use(options);
      watch = taken ?? (await ActionWatch.start({ page, targetId: found.targetId, browser: found.endpoint }, options));
    } catch (error) {
      // Not watched, not let through unasked: the person is asked before, about all of it.
      const asking = [...options.kinds].filter((kind) => !options.asked.has(kind));
      if (asking.length > 0)
        await options.ask(asking, page.url(), `clawd cannot watch this tab's requests (${(error as Error).message})`);
      return work();
    }
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await this.#settled(p, found, watch, options); // a refused request is why the call failed: that is its answer
      throw error;
    }
    if (downloads) watch.expectDownload();
    await this.#settled(p, found, watch, options);
    return result;
  }

  /** Waits for what the call started (a refusal is thrown), then leaves the watch on the tab for what it left. */
  async #settled(p: Passing, found: AgentPage, watch: ActionWatch, during: WatchOptions): Promise<void> {
    try {
      await watch.settle();
    } finally {
      this.#lingering.stay(p, found, watch, during.visited);
    }
  }

  #visitedBy(profile: string, session: string | undefined): Set<string> {
    const key = `${profile} ${session ?? ''}`;
    let set = this.#visited.get(key);
    if (!set) this.#visited.set(key, (set = new Set()));
    return set;
  }

  /**
   * What a click on the call's element (or Enter in it, or in the focused field) would do: send
   * a form (a submit button, Enter in a form's field), start a download (a link that says
   * `download`). Read in the page, so it is the page's word: a ref that no longer resolves does
   * neither (the action fails on its own), a page that does not say (stuck, or its DOM patched to
   * throw) may do both. A recipe step's element not there yet may too: the step waits longer for it than this.
   */
  async #clickDoes(call: AgentCall, found: AgentPage, mode: 'click' | 'enter', leftMs: number): Promise<ClickDoes> {
    const unsure: ClickDoes = { sends: true, downloads: true };
    const ref = call.refs[0]?.ref;
    let target: ActTarget | undefined;
    if (ref !== undefined) {
      try {
        target = await this.deps.resolve(call, found, ref);
      } catch {
        return call.recipeElements?.has(ref) === true ? unsure : { sends: false, downloads: false };
      }
    }
    try {
      const read = target
        ? (target as { evaluate(fn: typeof clickDoes, mode: 'click' | 'enter'): Promise<unknown> }).evaluate(
            clickDoes,
            mode,
          )
        : found.page.evaluate(`(${clickDoes.toString()})(null, ${JSON.stringify(mode)})`);
      const does = (await within(
        read,
        Math.min(PROBE_MS, leftMs),
        () => new Error('no answer'),
      )) as Partial<ClickDoes> | null;
      if (typeof does !== 'object' || does === null) return unsure;
      return { sends: does.sends !== false, downloads: does.downloads !== false };
    } catch {
      return unsure;
    }
  }
}

/** What a click would do, by the page's word. */
interface ClickDoes {
  sends: boolean;
  downloads: boolean;
}

/**
 * Runs in the page: does a click on `el` (or Enter in it, or in the focused field when there is
 * no `el`) send a form — a submit button (or something inside one) of a form; Enter in a form's
 * text field (implicit submission) — or start a download (a link that says `download`)?
 */
function clickDoes(el: any, mode: 'click' | 'enter'): ClickDoes {
  const node = el ?? (globalThis as any).document?.activeElement;
  if (!node || typeof node.closest !== 'function') return { sends: false, downloads: false };
  // A link around it, in its own tree or a shadow host's (a custom element inside the link).
  let downloads = false;
  for (let at = node; at && !downloads; at = at.getRootNode?.()?.host)
    downloads = !!at.closest?.('a[download][href], area[download][href]');
  const submitter = node.closest('button, input[type=submit], input[type=image]');
  if (
    submitter?.form &&
    (submitter.tagName !== 'BUTTON' || (submitter.getAttribute('type') ?? 'submit').toLowerCase() === 'submit')
  )
    return { sends: true, downloads };
  if (mode !== 'enter') return { sends: false, downloads };
  const noSubmit = ['button', 'checkbox', 'radio', 'reset', 'file', 'color', 'range', 'hidden', 'image', 'submit'];
  return {
    sends: node.tagName === 'INPUT' && !!node.form && !noSubmit.includes(String(node.type).toLowerCase()),
    downloads,
  };
}
