// The side panel's Record: the person teaches a task by doing it in a tab of theirs. Record puts
// the recorder (recorder.ts) into the tab's page — and, while it records, into every page as it
// starts, before the page's first script (a click right after a load is a step too; only the
// recorded tab's recorder is answered yes, the rest stop) — and tells clawd,
// which keeps every agent's changing call off the tab meanwhile; the person's steps are listed as
// they come, each with Delete, and a field's step with "keep this value" (off: the value stays out
// of the recipe, the field becomes a parameter the run is given; a password field's value is never
// read). "Stop and save" names the recipe and sends it to clawd, which saves it in the home.

import { elementWords, locatorWords } from '../../shared/element-locator';
import { RECIPE_NAME, paramName, type Recipe, type RecipeParam, type RecipeStep } from '../../shared/recipe';
import { recipeProblem } from '../../shared/recipe-parse';
import type { ConsentState, ConsentTab } from '../../shared/consent-state';
import type { PanelMessage } from './consent-port';
import { RECORD_ASK, RECORD_STOP, type RecordStepMessage, type RecordedStep } from './recording-messages';

/** A step as the panel holds it: the person may keep a field's value, or delete the step. */
type HeldStep = (RecordedStep | { do: 'goto'; url: string }) & { keep?: boolean };

/**
 * The recorder put into every page while a panel records: one registration per panel, named by
 * a lock the panel holds while it is open. A panel closed mid-recording leaves its registration
 * until the next recording takes away those whose lock is free, or the browser restarts (each
 * page's recorder then asks, hears no answer, and stops).
 */
const RECORDER_SCRIPT = 'clawd-recorder-';

/** Navigations the person made themselves (the address bar, a bookmark): a `goto` step each. */
const OWN_NAVIGATIONS = new Set(['typed', 'auto_bookmark', 'generated', 'keyword', 'keyword_generated']);

export interface RecordingUi {
  section: HTMLElement;
  where: HTMLElement;
  steps: HTMLOListElement;
  name: HTMLInputElement;
  save: HTMLButtonElement;
  discard: HTMLButtonElement;
  said: HTMLElement;
}

export class RecordingPanel {
  #tab: ConsentTab | undefined;
  #steps: HeldStep[] = [];
  /** The id of the save sent to clawd, until the consent state says how it went. */
  #saving: string | undefined;
  /** clawd said the tab is the person's: from then on, a tab no longer theirs ends the recording. */
  #held = false;
  /** This panel's recorder registration (and the lock that says the panel is open). */
  readonly #script = `${RECORDER_SCRIPT}${crypto.randomUUID()}`;

  constructor(
    private readonly ui: RecordingUi,
    private readonly say: (message: PanelMessage['say']) => void,
  ) {
    void navigator.locks.request(this.#script, () => new Promise(() => {}));
    chrome.runtime.onMessage.addListener((message: unknown, sender, reply) => {
      const mine = this.#tab !== undefined && sender.tab?.id === this.#tab.tabId && sender.frameId === 0;
      const type = (message as { type?: string })?.type;
      // Only the panel recording the tab answers: a tab no panel records hears nothing, and stops.
      if (type === RECORD_ASK && mine) reply(true);
      const step = message as Partial<RecordStepMessage>;
      if (type !== 'clawd-record' || !step.step || !mine) return false;
      this.#steps.push(step.step);
      this.#show();
      return false;
    });
    chrome.webNavigation.onCommitted.addListener((details) => {
      if (!this.#tab || details.tabId !== this.#tab.tabId || details.frameId !== 0) return;
      if (OWN_NAVIGATIONS.has(details.transitionType) || details.transitionQualifiers.includes('from_address_bar')) {
        this.#steps.push({ do: 'goto', url: details.url });
        this.#show();
      }
      // A page back from the back/forward cache, or a prerendered one shown, ran no content script
      // now: put in here and once it is parsed (the page's guard keeps it to one).
      void this.#inject();
    });
    chrome.webNavigation.onDOMContentLoaded.addListener((details) => {
      if (this.#tab && details.tabId === this.#tab.tabId && details.frameId === 0) void this.#inject();
    });
    chrome.tabs.onRemoved.addListener((tabId) => {
      if (tabId === this.#tab?.tabId) this.#lost('the tab was closed');
    });
    ui.save.addEventListener('click', () => this.#save());
    ui.discard.addEventListener('click', () => this.#end());
  }

  get recording(): boolean {
    return this.#tab !== undefined;
  }

  /** Record in this tab: from where it is now. */
  async start(tab: ConsentTab): Promise<void> {
    if (this.#tab) return;
    this.#tab = tab;
    this.#steps = [{ do: 'goto', url: tab.url }];
    this.ui.said.textContent = '';
    this.say({ record: { targetId: tab.targetId, on: true } });
    await this.#registerRecorder();
    await this.#inject();
    this.#show();
  }

  /** The recorder into every page as it starts (the first script there), for as long as this panel records. */
  async #registerRecorder(): Promise<void> {
    const open = new Set(((await navigator.locks.query()).held ?? []).map((lock) => lock.name));
    const left = (await chrome.scripting.getRegisteredContentScripts())
      .map((script) => script.id)
      .filter((id) => id.startsWith(RECORDER_SCRIPT) && !open.has(id));
    if (left.length > 0) await chrome.scripting.unregisterContentScripts({ ids: left }).catch(() => {});
    await chrome.scripting
      .registerContentScripts([
        {
          id: this.#script,
          js: ['recorder.js'],
          matches: ['<all_urls>'],
          runAt: 'document_start',
          persistAcrossSessions: false,
        },
      ])
      .catch(() => {}); // registered already (a recording this panel began before)
  }

  /** The consent state came: whether the tab is still the person's, and how a save went once clawd says. */
  stateChanged(state: ConsentState): void {
    const tab = this.#tab && state.tabs.find((t) => t.targetId === this.#tab!.targetId);
    if (this.#tab && tab?.holder?.kind === 'person') this.#held = true;
    else if (this.#tab && this.#held && !this.#saving)
      return this.#lost(tab ? 'the tab was given back (Stop, or its toolbar button)' : 'the tab is gone');
    const said = state.recipeSaid;
    if (!this.#saving || said?.id !== this.#saving) return;
    this.#saving = undefined;
    if (said.saved) {
      this.ui.said.textContent = `Saved as ${said.name}: an agent runs it with run-recipe ${said.name}.`;
      this.#end(false);
    } else {
      this.ui.said.textContent = `Not saved: ${said.error ?? 'clawd refused it'}. Name it again to save it.`;
      this.#show();
    }
  }

  /** The recording ended under it: the steps stay out of any recipe. */
  #lost(why: string): void {
    this.#end(false);
    this.ui.said.textContent = `Recording ended: ${why}. Nothing was saved.`;
  }

  async #inject(): Promise<void> {
    if (!this.#tab) return;
    await chrome.scripting
      .executeScript({ target: { tabId: this.#tab.tabId }, files: ['recorder.js'], injectImmediately: true })
      .catch((error: Error) => (this.ui.said.textContent = `This page cannot be recorded: ${error.message}`));
  }

  #save(): void {
    const name = this.ui.name.value.trim();
    if (!this.#tab || !RECIPE_NAME.test(name)) {
      this.ui.said.textContent = 'Name it first: letters, digits, - and _ (up to 64).';
      return;
    }
    // Checked as clawd checks it: a frame it cannot take would end the browser's link to it.
    const recipe = recipeOf(this.#steps);
    const problem = recipeProblem(recipe);
    if (problem) {
      this.ui.said.textContent = `This recording cannot be saved: ${problem}.`;
      return;
    }
    this.#saving = crypto.randomUUID();
    this.ui.save.disabled = true;
    this.ui.said.textContent = `Saving ${name}…`;
    this.say({ recipe: { id: this.#saving, name, targetId: this.#tab.targetId, recipe } });
  }

  /** The recording ends: the page's recorder stops, and clawd gives the tab back (unless the save did). */
  #end(tell = true): void {
    if (!this.#tab) return;
    void chrome.tabs.sendMessage(this.#tab.tabId, { type: RECORD_STOP }).catch(() => {});
    void chrome.scripting.unregisterContentScripts({ ids: [this.#script] }).catch(() => {});
    if (tell) this.say({ record: { targetId: this.#tab.targetId, on: false } });
    this.#tab = undefined;
    this.#steps = [];
    this.#saving = undefined;
    this.#held = false;
    this.ui.name.value = '';
    this.#show();
  }

  #show(): void {
    const tab = this.#tab;
    this.ui.section.hidden = !tab;
    this.ui.save.disabled = this.#saving !== undefined;
    if (!tab) return;
    this.ui.where.textContent = `Recording in ${tab.title || tab.url}. Do the task; agents wait meanwhile.`;
    this.ui.steps.replaceChildren(...this.#steps.map((step, i) => this.#item(step, i)));
  }

  #item(step: HeldStep, index: number): HTMLLIElement {
    const item = document.createElement('li');
    item.className = 'step';
    const words = document.createElement('span');
    words.textContent = stepWords(step);
    item.append(words);
    if ((step.do === 'fill' || step.do === 'select') && !step.element.password) {
      const keep = Object.assign(document.createElement('input'), {
        type: 'checkbox',
        className: 'keep',
        checked: !!step.keep,
      });
      keep.addEventListener('change', () => (step.keep = keep.checked));
      const label = document.createElement('label');
      label.append(keep, ' keep this value');
      item.append(label);
    }
    const remove = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'delete',
      textContent: 'Delete',
    });
    remove.addEventListener('click', () => {
      this.#steps.splice(index, 1);
      this.#show();
    });
    item.append(remove);
    return item;
  }
}

/** A step in the person's words, as the panel lists it (never a value not kept). */
function stepWords(step: HeldStep): string {
  switch (step.do) {
    case 'goto':
      return `go to ${step.url}`;
    case 'click':
      return `click ${locatorWords(step.element.locator)}`;
    case 'fill':
      return `fill ${locatorWords(step.element.locator)}${step.element.password ? ' (a password: asked of each run)' : ''}`;
    case 'check':
      return `${step.checked ? 'check' : 'uncheck'} ${locatorWords(step.element.locator)}`;
    case 'select':
      return `choose in ${locatorWords(step.element.locator)}`;
    case 'press':
      return `press ${step.key}${step.element ? ` in ${locatorWords(step.element.locator)}` : ''}`;
  }
}

/**
 * The recipe the steps make: each field a parameter (its value the default only where the person
 * kept it; a password field's never), the rest as done.
 */
export function recipeOf(steps: readonly HeldStep[]): Recipe {
  const params: RecipeParam[] = [];
  const param = (about: string, value: string | undefined): string => {
    const name = paramName(about || 'field', params);
    params.push({ name, ...(about ? { about } : {}), ...(value !== undefined ? { default: value } : {}) });
    return `{{param:${name}}}`;
  };
  const recipeSteps = steps.map((step): RecipeStep => {
    const about = 'element' in step && step.element ? elementWords(step.element.locator) : '';
    switch (step.do) {
      case 'fill':
        return {
          do: 'fill',
          element: step.element,
          value: param(about, step.keep && !step.element.password ? step.value : undefined),
        };
      case 'select':
        return {
          do: 'select',
          element: step.element,
          values: step.values.map((v) => param(about, step.keep ? v : undefined)),
        };
      default: {
        const { keep: _keep, ...rest } = step;
        return rest as RecipeStep;
      }
    }
  });
  return { source: 'recorded by the person', params, secrets: [], steps: recipeSteps };
}
