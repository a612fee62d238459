// A recipe checked where it comes in — the person's recording over the extension's socket, a
// file of the home read back — before anything runs it: every step one of the kinds a run knows,
// every element a locator, every string bounded. Says what is wrong, or null.

import type { ElementLocator } from './element-locator';
import type { Recipe, RecipeStep } from './recipe';

/** The most steps, parameters and characters a recipe may have (a task, not a crawl). */
export const RECIPE_LIMITS = { steps: 500, params: 100, chars: 4_000 } as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= RECIPE_LIMITS.chars;
const optText = (v: unknown) => v === undefined || isText(v);

const LOCATORS: Record<ElementLocator['by'], (v: Obj) => boolean> = {
  testId: (v) => isText(v.testId),
  role: (v) =>
    isText(v.role) && isText(v.name) && (v.nth === undefined || (Number.isInteger(v.nth) && (v.nth as number) >= 0)),
  label: (v) => isText(v.label),
  placeholder: (v) => isText(v.placeholder),
  css: (v) => isText(v.css),
};

function elementProblem(v: unknown): string | null {
  if (!isObj(v) || !isObj(v.locator)) return 'needs an element with a locator';
  const by = v.locator.by;
  const check =
    typeof by === 'string' && Object.hasOwn(LOCATORS, by) ? LOCATORS[by as ElementLocator['by']] : undefined;
  if (!check || !check(v.locator)) return `has a locator that is not one of ${Object.keys(LOCATORS).join(', ')}`;
  if (!optText(v.frame) || (v.password !== undefined && v.password !== true)) return 'has a bad frame or password mark';
  return null;
}

/** Each kind of step: its fields beside `do` (an element's are checked by elementProblem). */
const STEPS: Record<RecipeStep['do'], (v: Obj) => string | null> = {
  goto: (v) => (isText(v.url) ? null : 'needs a url'),
  newPage: (v) => (optText(v.url) ? null : 'has a bad url'),
  click: (v) => elementProblem(v.element),
  hover: (v) => elementProblem(v.element),
  focus: (v) => elementProblem(v.element),
  scrollIntoView: (v) => elementProblem(v.element),
  fill: (v) => elementProblem(v.element) ?? (isText(v.value) ? null : 'needs a value'),
  check: (v) => elementProblem(v.element) ?? (typeof v.checked === 'boolean' ? null : 'needs checked'),
  select: (v) =>
    elementProblem(v.element) ??
    (Array.isArray(v.values) && v.values.length <= RECIPE_LIMITS.params && v.values.every(isText)
      ? null
      : 'needs values'),
  press: (v) =>
    (isText(v.key) && v.key.length > 0 ? null : 'needs a key') ??
    (v.element === undefined ? null : elementProblem(v.element)),
  drag: (v) => elementProblem(v.element) ?? elementProblem(v.onto),
  expect: (v) =>
    optText(v.text) && optText(v.title) && (v.text ?? v.title) !== undefined ? null : 'needs a text or title',
  note: (v) => (isText(v.text) ? null : 'needs a text'),
};

export function recipeProblem(v: unknown): string | null {
  if (!isObj(v)) return 'a recipe must be an object';
  if (!isText(v.source)) return 'a recipe needs a source';
  if (!Array.isArray(v.steps) || v.steps.length === 0 || v.steps.length > RECIPE_LIMITS.steps)
    return `a recipe needs 1 to ${RECIPE_LIMITS.steps} steps`;
  if (!Array.isArray(v.params) || v.params.length > RECIPE_LIMITS.params)
    return `a recipe has at most ${RECIPE_LIMITS.params} params`;
  if (!Array.isArray(v.secrets) || !v.secrets.every(isText)) return 'a recipe needs its secrets’ names';
  if (v.totp !== undefined && (!Array.isArray(v.totp) || !v.totp.every(isText)))
    return 'a recipe’s totp are the names of TOTP seeds';
  for (const [i, p] of v.params.entries()) {
    if (!isObj(p) || !isText(p.name) || !/^[A-Za-z0-9_-]+$/.test(p.name) || !optText(p.default) || !optText(p.about))
      return `param ${i} needs a name of letters, digits, - and _`;
  }
  for (const [i, step] of v.steps.entries()) {
    const check =
      isObj(step) && typeof step.do === 'string' && Object.hasOwn(STEPS, step.do)
        ? STEPS[step.do as RecipeStep['do']]
        : undefined;
    if (!check) return `step ${i + 1} is not one of ${Object.keys(STEPS).join(', ')}`;
    const problem = check(step as Obj);
    if (problem) return `step ${i + 1} (${String(step.do)}) ${problem}`;
  }
  return null;
}

/** The recipe, typed, or what is wrong with it. */
export function parseRecipe(v: unknown): Recipe | string {
  return recipeProblem(v) ?? (v as Recipe);
}
