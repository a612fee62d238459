// An agent session's action log lines as a recipe (shared/recipe.ts): each action that went
// through, by the locator read when it ran; what it typed or chose as a named parameter whose
// default is the session's value (kept in memory only: action-log.ts), a password field's with no
// default, a typed `{{secret:NAME}}` or `{{totp:NAME}}` kept as the mark; what the page said
// afterwards as expects.
// What a program cannot do again (the agent's own code, a file to upload) is a note at its place.

import type { ActionEntry, LoggedElement } from '../../events/event-bus';
import { elementWords, type LocatedElement } from '../../../shared/element-locator';
import { VALUE_MARK, paramName, type Recipe, type RecipeParam, type RecipeStep } from '../../../shared/recipe';

/** What the log kept of an entry in memory: what was typed or chosen there. */
export type GivenOf = (entry: ActionEntry) => unknown;

const ELEMENT_STEPS = new Set(['click', 'hover', 'focus', 'scrollIntoView']);
/** Roles a value is chosen in rather than typed (a `<select>`). */
const CHOOSERS = new Set(['combobox', 'listbox']);
/** Kinds that change nothing a script must do again (reading, waiting for the person, the log). */
const SILENT = new Set(['wait', 'scroll', 'resize', 'tabFocus', 'release', 'handoffWait']);

/** Turns the log's lines of one session (oldest first) into a recipe. */
export function sessionRecipe(entries: readonly ActionEntry[], given: GivenOf, source: string): Recipe {
  const build = new RecipeBuild();
  const done = entries.filter((e) => e.outcome === 'ok');
  // A session that began on a page it did not load begins there.
  const first = done[0];
  if (first && first.kind !== 'navigate' && first.kind !== 'tabOpen' && first.url)
    build.steps.push({ do: 'goto', url: first.url });
  for (const entry of done) build.add(entry, given(entry));
  const totp = build.totp.size > 0 ? { totp: [...build.totp] } : {};
  return { source, params: build.params, secrets: [...build.secrets], ...totp, steps: build.steps };
}

class RecipeBuild {
  readonly steps: RecipeStep[] = [];
  readonly params: RecipeParam[] = [];
  readonly secrets = new Set<string>();
  readonly totp = new Set<string>();

  add(entry: ActionEntry, given: unknown): void {
    const element = located(entry.element);
    if (entry.element && !element) {
      this.note(`${entry.kind} ${entry.element.ref}: the element could not be read for a locator when it ran`);
      return;
    }
    this.#step(entry, element, given);
    for (const message of entry.seen?.messages ?? []) {
      const text = messageText(message);
      if (text) this.steps.push({ do: 'expect', text: this.#withParams(text) });
    }
    if (entry.seen?.title) this.steps.push({ do: 'expect', title: entry.seen.title });
  }

  #step(entry: ActionEntry, element: LocatedElement | undefined, given: unknown): void {
    const { kind } = entry;
    if (kind === 'navigate' && entry.url) this.steps.push({ do: 'goto', url: entry.url });
    else if (kind === 'tabOpen') this.steps.push({ do: 'newPage', ...(entry.url ? { url: entry.url } : {}) });
    else if (element && ELEMENT_STEPS.has(kind))
      this.steps.push({ do: kind as 'click' | 'hover' | 'focus' | 'scrollIntoView', element });
    else if (element && (kind === 'type' || kind === 'fill')) this.#put(entry, element, given);
    else if (element && kind === 'select') this.#select(entry, element, given);
    else if (kind === 'press' && (entry.key !== undefined || typeof given === 'string'))
      // A character pressed is kept in memory only (as typed text is): the log says named keys.
      this.steps.push({ do: 'press', key: entry.key ?? (given as string), ...(element ? { element } : {}) });
    else if (element && kind === 'drag' && located(entry.onto))
      this.steps.push({ do: 'drag', element, onto: located(entry.onto)! });
    else if (!SILENT.has(kind))
      this.note(`${kind}: not done again by a script (${NOT_AGAIN[kind] ?? 'not an action a script repeats'})`);
  }

  /** A typed or filled value: a checkbox's state, else a parameter (or the secret it named). */
  #put(entry: ActionEntry, element: LocatedElement, given: unknown): void {
    if (typeof given === 'boolean') {
      this.steps.push({ do: 'check', element, checked: given });
      return;
    }
    // A form's fill chose in a list box as the agent's `select` does.
    if (entry.kind === 'fill' && CHOOSERS.has(entry.element?.role ?? ''))
      return this.#select(entry, element, given === undefined ? undefined : [given]);
    this.steps.push({ do: 'fill', element, value: this.#value(entry.element!, element, given) });
    if (entry.kind === 'type' && entry.key === 'Enter') this.steps.push({ do: 'press', key: 'Enter', element });
  }

  #select(entry: ActionEntry, element: LocatedElement, given: unknown): void {
    const values = Array.isArray(given) ? given.map(String) : undefined;
    // One choice is a parameter (one the log no longer holds too, without a default); several
    // are written as they were.
    const chosen =
      values === undefined || values.length === 1 ? [this.#value(entry.element!, element, values?.[0])] : values;
    this.steps.push({ do: 'select', element, values: chosen });
  }

  /** The step's value: a value typed with a secret in it stays as typed (its marks); anything else is a named parameter. */
  #value(logged: LoggedElement, element: LocatedElement, given: unknown): string {
    if (typeof given === 'string' && given.search(VALUE_MARK) >= 0) {
      for (const [, kind, name] of given.matchAll(VALUE_MARK))
        if (kind === 'secret') this.secrets.add(name!);
        else if (kind === 'totp') this.totp.add(name!);
      return given;
    }
    const about = logged.name || elementWords(element.locator) || logged.role || 'field';
    const name = paramName(about, this.params);
    // Never a password field's value: the log did not keep it, and the run must be given one.
    const param: RecipeParam = {
      name,
      about,
      ...(typeof given === 'string' && !element.password ? { default: given } : {}),
    };
    this.params.push(param);
    return `{{param:${name}}}`;
  }

  /**
   * What the page said, with the values the session gave written as their parameters (`Order
   * placed for {{param:fullName}}`): a run with other values expects its own. Short values are
   * left as said (two letters match too much); a mark the page wrote is no mark here.
   */
  #withParams(text: string): string {
    let said = text.replace(VALUE_MARK, (mark) => mark.replace('{{', '{\u200b{'));
    for (const param of [...this.params].sort((a, b) => (b.default?.length ?? 0) - (a.default?.length ?? 0)))
      if (param.default !== undefined && param.default.length >= 3)
        said = said.split(param.default).join(`{{param:${param.name}}}`);
    return said;
  }

  note(text: string): void {
    this.steps.push({ do: 'note', text });
  }
}

const NOT_AGAIN: Record<string, string> = {
  evaluate: "it ran the agent's own code",
  upload: 'it chose files of this machine',
  dialog: "it answered the page's dialog",
  download: 'it saved a file',
  close: 'it closed the tab',
  tabClose: 'it closed a tab',
  handoff: 'it handed the tab to the person',
  handoffEnd: 'it took the tab back from the person',
};

/** The locator, when the action could read one. */
function located(element: LoggedElement | undefined): LocatedElement | undefined {
  if (!element?.locator) return undefined;
  return {
    locator: element.locator,
    ...(element.frame ? { frame: element.frame } : {}),
    ...(element.password ? { password: true as const } : {}),
  };
}

/** A status or alert line of an answer (`status "Saved"`) as the text a script expects to see. */
function messageText(line: string): string | undefined {
  const match = /^(?:status|alert) ("(?:[^"\\]|\\.)*")$/.exec(line);
  if (!match) return undefined;
  try {
    // A message cut to its first words ends with an ellipsis: the script looks for what is left.
    return (JSON.parse(match[1]!) as string).replace(/…$/, '').trim() || undefined;
  } catch {
    return undefined;
  }
}
