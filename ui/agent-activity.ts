// What agents did and what they ask, as a person's page shows it: the extension's side panel and
// the live view use these same two pieces. A list of the action log's lines (`click e12 button
// "Save"`, `navigate https://…`, a refusal with its code), newest last; and the questions waiting
// for the person, each with Allow and Deny. DOM only: no chrome.*, no server calls — the page
// hands in the data and what an answer does.

import { ASK_KIND_TEXT } from '../shared/ask-kinds';
import { elementLine } from '../shared/element-line';
import { PAGE_MARKS, pageParts } from '../shared/page-marks';
import type { ConsentAction, ConsentQuestion, StandingScope } from '../shared/consent-state';

/** Kinds whose address is worth a line's words (a load, a new tab, a refusal). */
const WITH_URL = new Set(['navigate', 'tabOpen', 'cdp.navigate', 'cdp.blocked', 'blocked']);

/** What a question's entries say happened to it. */
const ASK_OUTCOMES: Record<string, string> = {
  asked: 'asked you',
  allowed: 'you allowed',
  person_declined: 'you declined',
  person_no_answer: 'no answer',
  withdrawn: 'gave up asking',
};

/** One action as the log says it: `click e12 button "Save"`, `navigate https://…`, `you allowed: sending a form…`, a refusal with its code. */
export function actionText(entry: ConsentAction): string {
  if (entry.kind === 'ask')
    return `${ASK_OUTCOMES[entry.outcome] ?? entry.outcome}: ${(entry.detail ?? '').replace(PAGE_MARKS, '')}`;
  const element = entry.element ? ` ${elementLine(entry.element)}` : '';
  const url = entry.url && WITH_URL.has(entry.kind) ? ` ${entry.url}` : '';
  const outcome = entry.outcome === 'ok' ? '' : ` → ${entry.outcome}`;
  return `${entry.kind}${element}${url}${outcome}`;
}

/** Whether the entry is something that failed or was refused (shown as such). */
export function failed(entry: ConsentAction): boolean {
  return entry.outcome !== 'ok' && !(entry.kind === 'ask' && ['asked', 'allowed', 'withdrawn'].includes(entry.outcome));
}

export class ActionList {
  constructor(
    private readonly list: HTMLOListElement,
    private readonly shown = 20,
  ) {}

  /** Shows these entries (oldest first), replacing what was there. */
  show(entries: readonly ConsentAction[]): void {
    this.list.replaceChildren(...entries.slice(-this.shown).map((entry) => this.#item(entry)));
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** Adds the newest entry at the end. */
  add(entry: ConsentAction): void {
    this.list.append(this.#item(entry));
    while (this.list.children.length > this.shown) this.list.firstElementChild?.remove();
    this.list.scrollTop = this.list.scrollHeight;
  }

  #item(entry: ConsentAction): HTMLLIElement {
    const item = document.createElement('li');
    const time = document.createElement('time');
    time.dateTime = entry.time;
    time.textContent = new Date(entry.time).toLocaleTimeString();
    const who = entry.session ? `${entry.session}: ` : '';
    item.append(time, ` ${who}${actionText(entry)}`);
    item.dataset.outcome = entry.outcome;
    item.dataset.kind = entry.kind;
    if (failed(entry)) item.dataset.failed = 'true';
    if (entry.url) item.title = entry.url;
    return item;
  }
}

/** The questions waiting for the person, each with Allow and Deny (or, where this page may not answer, where to). */
export class QuestionList {
  constructor(
    private readonly root: HTMLElement,
    /**
     * `standing`: and the same on this site for 30 minutes, or in this tab until it closes;
     * `value`: the code the person typed, for a question that asks for one.
     */
    private readonly answer: (id: string, allow: boolean, standing?: StandingScope, value?: string) => void,
    /** Offer the standing yes (the side panel: the person's own browser). */
    private readonly offerStanding = false,
  ) {}

  /** `elsewhere`: this page may not answer; says where the person can instead. */
  show(questions: readonly ConsentQuestion[], elsewhere?: string): void {
    this.root.hidden = questions.length === 0;
    this.root.replaceChildren(...questions.map((question) => this.#item(question, elsewhere)));
  }

  #item(question: ConsentQuestion, elsewhere: string | undefined): HTMLElement {
    const item = document.createElement('article');
    item.className = 'question';
    item.dataset.id = question.id;
    const heading = document.createElement('h3');
    heading.textContent = question.terminal
      ? 'Your terminal asks to loosen your rules'
      : question.code !== undefined
        ? `${question.url ? hostOf(question.url) : 'The site'} asks for the code it sent you (the agent calls it “${question.code}”): type it here, never to the agent`
        : `${question.session ? `Agent session “${question.session}” asks` : 'An agent asks'}: ${question.kinds.map((k) => ASK_KIND_TEXT[k]).join(' and ')}`;
    const what = document.createElement('p');
    what.className = 'what';
    // The page's words in it (an element's name) are shown as the page's: a quote set apart.
    what.replaceChildren(
      ...pageParts(question.what).map((part) => {
        if (!part.page) return document.createTextNode(part.text);
        const quote = document.createElement('q');
        quote.className = 'page-words';
        quote.title = "the page's words, not clawd's";
        quote.textContent = part.text;
        return quote;
      }),
    );
    const where = document.createElement('p');
    where.className = 'where';
    where.textContent = question.url ?? '';
    where.hidden = !question.url;
    const until = document.createElement('p');
    until.className = 'until';
    until.textContent = `It waits until ${new Date(question.expires).toLocaleTimeString()}; no answer means no.`;
    const allow = document.createElement('button');
    allow.type = 'button';
    allow.className = 'allow';
    allow.textContent = 'Allow';
    const deny = document.createElement('button');
    deny.type = 'button';
    deny.className = 'deny';
    deny.textContent = 'Deny';
    // A standing yes is bound to a site (and for the tab's, a tab): none for a question without one.
    const standing: Array<[StandingScope, string]> =
      this.offerStanding && !question.terminal && question.code === undefined && question.url
        ? [
            ['minutes', `Allow on ${hostOf(question.url)} for 30 minutes`],
            ...(question.targetId ? [['tab', 'Allow in this tab until it closes'] as [StandingScope, string]] : []),
          ]
        : [];
    const more = standing.map(([scope, words]) =>
      Object.assign(document.createElement('button'), {
        type: 'button',
        className: `allow-${scope}`,
        textContent: words,
      }),
    );
    // A code the site sent the person: typed here, in their own page (the side panel), only.
    const code = question.code !== undefined && this.offerStanding ? codeField(allow) : undefined;
    const decide = (yes: boolean, scope?: StandingScope) => {
      if (yes && code && code.value.trim().length < 4) return code.focus(); // MIN_CODE_CHARS
      allow.disabled = deny.disabled = true;
      for (const button of more) button.disabled = true;
      item.dataset.answered = yes ? 'allowed' : 'declined';
      this.answer(question.id, yes, scope, yes && code ? code.value.trim() : undefined);
    };
    allow.addEventListener('click', () => decide(true));
    deny.addEventListener('click', () => decide(false));
    more.forEach((button, i) => button.addEventListener('click', () => decide(true, standing[i]![0])));
    const buttons = document.createElement('div');
    buttons.className = 'answer';
    const typedElsewhere =
      question.code !== undefined && !this.offerStanding
        ? "type the code in clawd's side panel in your browser"
        : undefined;
    elsewhere ??= typedElsewhere;
    if (elsewhere === undefined) buttons.append(...(code ? [code] : []), allow, deny, ...more);
    else buttons.append(Object.assign(document.createElement('p'), { className: 'elsewhere', textContent: elsewhere }));
    item.append(heading, what, where, until, buttons);
    return item;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** The field the person types a site's code into; its question's Allow becomes "Type it". */
function codeField(allow: HTMLButtonElement): HTMLInputElement {
  allow.textContent = 'Type it';
  return Object.assign(document.createElement('input'), {
    type: 'text',
    className: 'code',
    autocomplete: 'one-time-code',
    maxLength: 64,
    placeholder: 'the code',
  });
}
