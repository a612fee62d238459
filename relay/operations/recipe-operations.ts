// Recipes are agent tools: a task saved as steps (a session's export, the person's recording) is
// run by name without a model — each step gated like the agent's own call (policy, asks, the
// person's hands first) — and stops at the first step whose element is gone or whose outcome
// differs, saying what it expected and showing the page, so the agent can finish by hand.

import { z } from 'zod';
import { RECIPE_NAME, type ParamSaid } from '../../shared/recipe';
import { pageWords } from './page-fence';
import { operation } from './operation';
import { tabFields } from './shared-fields';

export interface RecipeSummary {
  name: string;
  source: string;
  created: string;
  steps: number;
  params: ParamSaid[];
  secrets: string[];
}

export const recipes = operation<{ recipes: RecipeSummary[] }>()({
  name: 'recipes',
  summary:
    'the saved recipes (tasks done before): what each is, its steps and parameters — run one instead of doing it by hand',
  input: z.object({}),
  http: { method: 'GET', path: '/recipes' },
  cli: { group: 'agent' },
  mcp: { tool: 'recipe', as: 'list' },
  example: {},
  text: (r) =>
    r.recipes.length === 0
      ? 'no recipes saved (export --format recipe --name NAME saves a session as one)'
      : r.recipes
          .map((recipe) => {
            const params = recipe.params.map((p) => `${p.name}${p.hasDefault ? '' : ' (no default)'}`);
            const said = [
              `${recipe.name}: ${recipe.steps} steps`,
              ...(params.length ? [`params ${params.join(', ')}`] : []),
              ...(recipe.secrets.length ? [`secrets ${recipe.secrets.join(', ')}`] : []),
            ].join('; ');
            // What the fields are about came from pages: the page's words.
            const about = recipe.params.filter((p) => p.about).map((p) => `${p.name}: ${p.about}`);
            return about.length > 0 ? `${said}\n${pageWords(about.join('\n'))}` : said;
          })
          .join('\n'),
});

/** One step of a run, as it went. */
export interface RecipeStepDone {
  step: number;
  did: string;
}

export interface RecipeRunResult {
  name: string;
  ok: boolean;
  targetId: string | undefined;
  done: RecipeStepDone[];
  /** The step it stopped at: what it was, what it expected, why, and the page then. */
  stopped?: { step: number; did: string; code: string; error: string; expected?: string; page?: string };
}

export const runRecipe = operation<RecipeRunResult>()({
  name: 'runRecipe',
  summary: 'run a saved recipe step by step on the tab, with parameters (NAME=VALUE); stops where the page differs',
  details:
    "Each step runs as your own call would — the origin policy, what the person asked to be asked, the person's hands first, the action log — with its element found by the locator saved with it. A step whose element is not on the page, or whose expected message does not come, stops the run: the answer says which step, what it expected, and shows the page (with refs) so you can finish by hand. A parameter not given takes the recipe's default; one without a default must be given.",
  input: z.object({
    ...tabFields,
    name: z.string().regex(RECIPE_NAME, 'letters, digits, - and _ (up to 64)').describe('the recipe'),
    params: z
      .array(z.string().regex(/^[A-Za-z0-9_-]+=/s, 'must be NAME=VALUE'))
      .default([])
      .describe('NAME=VALUE each'),
  }),
  http: { method: 'POST', path: '/recipes/:name/run' },
  cli: {
    group: 'agent',
    name: 'run-recipe',
    args: [
      { field: 'name', value: 'NAME' },
      { field: 'params', value: 'NAME=VALUE', rest: true, optional: true },
    ],
    flags: { params: { flag: 'param', value: 'NAME=VALUE,…' } },
    exitCode: (r: RecipeRunResult) => (r.ok ? 0 : 1),
  },
  mcp: { tool: 'recipe', as: 'run' },
  example: { name: 'order', params: ['fullName=Ada Lovelace'] },
  // The steps name elements by what pages wrote (a button's name): the page's words.
  text: (r) => {
    const done = r.done.map((d) => `${d.step}. ${d.did}`);
    if (r.ok) return `ran recipe ${r.name}: ${r.done.length} steps\n${pageWords(done.join('\n'))}`;
    const s = r.stopped!;
    const why = [
      `step ${s.step}: ${s.did} — ${s.error}`,
      ...(s.expected ? [`expected: ${s.expected}`] : []),
      ...(done.length > 0 ? ['done before it:', ...done] : []),
    ];
    return [
      `recipe ${r.name} stopped at step ${s.step} (${s.code}); finish by hand from the page below`,
      pageWords(why.join('\n')),
      ...(s.page ? [pageWords(s.page)] : []),
    ].join('\n');
  },
  clientTimeoutMs: () => 10 * 60_000,
});

export type RunRecipeRequest = z.output<typeof runRecipe.input>;
