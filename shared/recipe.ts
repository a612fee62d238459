// A task written down as steps a program can do again without a model: what a session's export
// writes as a Playwright script or test, and what a recipe the person teaches will hold. Elements
// by stable locators (element-locator.ts), never refs; values as named parameters
// (`{{param:NAME}}`, the session's values their defaults) and secrets as `{{secret:NAME}}` (a TOTP
// seed's code as `{{totp:NAME}}`), which only the run resolves — a recipe never holds a secret's
// value, nor a password field's, nor a code.

import type { LocatedElement } from './element-locator';

export type RecipeStep =
  /** Load an address in the page. */
  | { do: 'goto'; url: string }
  /** Go on in a new tab, at this address. */
  | { do: 'newPage'; url?: string }
  | { do: 'click' | 'hover' | 'focus' | 'scrollIntoView'; element: LocatedElement }
  /** Put a value in a field (replacing what is there): a template of params and secrets. */
  | { do: 'fill'; element: LocatedElement; value: string }
  | { do: 'check'; element: LocatedElement; checked: boolean }
  | { do: 'select'; element: LocatedElement; values: string[] }
  /** A key, on an element or on the page. */
  | { do: 'press'; key: string; element?: LocatedElement }
  | { do: 'drag'; element: LocatedElement; onto: LocatedElement }
  /** What the page said after the step before it (a status message, a new document's title). */
  | { do: 'expect'; text?: string; title?: string }
  /** A step of the session a program does not do again, and why (the agent's own code, a file). */
  | { do: 'note'; text: string };

export interface RecipeParam {
  name: string;
  /** The value the session used; none for a password field, which the run must be given. */
  default?: string;
  /** What it fills, in words (the field's label or name). */
  about?: string;
}

export interface Recipe {
  /** Where it came from, in words (`session s1 on profile chrome, 2026-11-29`). */
  source: string;
  params: RecipeParam[];
  /** The names of the secrets its steps type (`{{secret:NAME}}`), resolved at run time. */
  secrets: string[];
  /** The names of the TOTP seeds whose current code its steps type (`{{totp:NAME}}`), when there are any. */
  totp?: string[];
  steps: RecipeStep[];
}

/**
 * A parameter as an answer says it: its name, what it fills, and whether the recipe has a default
 * — never the default itself (a value another session typed is not every agent's to read).
 */
export interface ParamSaid {
  name: string;
  about?: string;
  hasDefault: boolean;
}

export const paramSaid = (param: RecipeParam): ParamSaid => ({
  name: param.name,
  ...(param.about !== undefined ? { about: param.about } : {}),
  hasDefault: param.default !== undefined,
});

/** The `{{param:NAME}}`, `{{secret:NAME}}` and `{{totp:NAME}}` marks of a step's value. */
export const VALUE_MARK = /\{\{(param|secret|totp):([A-Za-z0-9_-]+)\}\}/g;

/** A recipe as the home keeps it (`recipes/NAME.json`): an agent runs it by name. */
export interface SavedRecipe extends Recipe {
  name: string;
  /** When it was saved (ISO). */
  created: string;
}

/** A recipe's name: a file name on every system, and a word on a command line. */
export const RECIPE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * A parameter's name from what it fills (`Full name` → `fullName`), not yet one of `taken`'s: the
 * same rule for a session's export and the person's recording.
 */
export function paramName(about: string, taken: readonly { name: string }[]): string {
  const words = about
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase()
    .split(' ')
    .filter(Boolean)
    .slice(0, 4);
  const base = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('') || 'value';
  const name = /^[0-9]/.test(base) ? `v${base}` : base;
  let unique = name;
  for (let n = 2; taken.some((p) => p.name === unique); n++) unique = `${name}${n}`;
  return unique;
}
