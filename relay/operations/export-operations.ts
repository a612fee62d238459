// A session becomes a script: what an agent did (the action log, with each element's locator read
// when it acted) written as a Playwright program a person runs again without a model —
// `script` for Node on playwright-core, `test` for Playwright Test — connecting to the profile
// through clawd, so its policy and asks hold. Values as parameters, secrets as their marks.

import { z } from 'zod';
import { RECIPE_NAME, type ParamSaid } from '../../shared/recipe';
import { bad } from './fields';
import { operation } from './operation';
import { tabFields } from './shared-fields';

export interface ExportResult {
  /** The file, under the home's exports/ (a recipe: recipes/NAME.json), mode 0600. */
  path: string;
  format: 'script' | 'test' | 'recipe';
  /** A recipe's name: run-recipe NAME. */
  name?: string;
  /** How many steps it does (expects included), and how many of the session's it could not (notes in the file). */
  steps: number;
  notes: number;
  params: ParamSaid[];
  /** The secrets it types, by name: given to the run as CLAWD_SECRET_NAME, never written. */
  secrets: string[];
  /** The TOTP seeds whose codes it types, by name: a script makes the code from CLAWD_TOTP_NAME when it runs. */
  totp?: string[];
}

export const exportSession = operation<ExportResult>()({
  name: 'export',
  summary: 'write what an agent session did as a runnable Playwright script or test (values as parameters)',
  details:
    "From the action log: each action that went through, its element by the locator read when it ran (a test id, role and name, label, placeholder; CSS only where nothing else tells it apart), what the page said after as expects, typed values as --param NAME=VALUE with the session's values as defaults (a password field's: none), typed secrets as {{secret:NAME}} read from CLAWD_SECRET_NAME when it runs (a TOTP code, {{totp:NAME}}, made from the seed in CLAWD_TOTP_NAME). The file is saved under the home's exports/ (mode 0600) and connects to this profile through clawd (CLAWD_CDP_URL, CLAWD_TOKEN), so the policy and the asks hold for it. A default is known while this server runs (typed values are kept in its memory only, unless browser.logText).",
  input: z.object({
    session: tabFields.session.describe('the agent session to export (default: every call on the profile)'),
    since: z
      .string()
      .datetime({ offset: true, message: 'must be a time like 2026-11-25T10:00:00Z' })
      .optional()
      .describe('only what was done after this time'),
    format: z
      .enum(['script', 'test', 'recipe'])
      .default('script')
      .describe('script (node FILE), test (Playwright Test) or recipe (run it by name)'),
    name: z.string().regex(RECIPE_NAME, 'letters, digits, - and _ (up to 64)').optional().describe('the recipe'),
  }),
  check(input) {
    if (input.format === 'recipe' && input.name === undefined) throw bad('name: a recipe needs one (--name NAME)');
  },
  http: { method: 'POST', path: '/export' },
  cli: {
    group: 'agent',
    flags: { since: { value: 'TIME' }, format: { value: 'script|test|recipe' }, name: { value: 'NAME' } },
  },
  mcp: { tool: 'recipe', as: 'export' },
  example: { session: 'agent-1', format: 'script' },
  text: (r) => {
    const run =
      r.format === 'recipe'
        ? `run-recipe ${r.name}`
        : r.format === 'test'
          ? `npx playwright test ${r.path}`
          : `node ${r.path}`;
    const what = { recipe: 'recipe', test: 'Playwright test', script: 'Playwright script' }[r.format];
    const params = r.params.map((p) => `${p.name}${p.hasDefault ? '' : ' (no default)'}`);
    return [
      `wrote a ${what} of ${r.steps} steps to ${r.path}: ${run}`,
      ...(params.length > 0 ? [`parameters (--param NAME=VALUE): ${params.join(', ')}`] : []),
      ...(r.secrets.length > 0 ? [`secrets (CLAWD_SECRET_NAME): ${r.secrets.join(', ')}`] : []),
      ...(r.totp?.length ? [`TOTP seeds (CLAWD_TOTP_NAME, a script makes the code): ${r.totp.join(', ')}`] : []),
      ...(r.notes > 0 ? [`${r.notes} step(s) not done again by it: see the notes in the file`] : []),
    ].join('\n');
  },
});

export type ExportRequest = z.output<typeof exportSession.input>;
