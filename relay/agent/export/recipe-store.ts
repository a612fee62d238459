// The recipes of a home: `<home>/recipes/NAME.json` (mode 0600: a recipe holds addresses and the
// values its parameters default to, never a secret's). Saved by the session export and by the
// person's recording; read by name when an agent runs one (recipe-runner.ts).

import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ClawdError } from '../../errors';
import { RECIPE_NAME, type Recipe, type SavedRecipe } from '../../../shared/recipe';
import { recipeProblem } from '../../../shared/recipe-parse';

export class RecipeStore {
  readonly #dir: string;

  constructor(home: string) {
    this.#dir = path.join(home, 'recipes');
  }

  /**
   * Saves a recipe under a name no recipe has (an agent never replaces one another agent or the
   * person may run: recipe_exists); answers the file.
   */
  async save(name: string, recipe: Recipe): Promise<string> {
    checkName(name);
    await fs.mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.#dir, `${name}.json`);
    const saved: SavedRecipe = { name, created: new Date().toISOString(), ...recipe };
    // Written whole, then linked in place only if the name is free: a reader never sees half a
    // recipe, and of two saves of one name one wins and the other is told.
    const partial = path.join(this.#dir, `.${name}.${randomUUID()}.tmp`);
    await fs.writeFile(partial, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
    try {
      await fs.link(partial, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new ClawdError('recipe_exists', `a recipe named ${name} is saved already: pick another name`);
      throw error;
    } finally {
      await fs.rm(partial, { force: true });
    }
    return file;
  }

  async load(name: string): Promise<SavedRecipe> {
    checkName(name);
    const text = await fs.readFile(path.join(this.#dir, `${name}.json`), 'utf8').catch(() => undefined);
    if (text === undefined)
      throw new ClawdError('not_found', `no recipe named ${JSON.stringify(name)}: recipes lists them`);
    let recipe: unknown;
    try {
      recipe = JSON.parse(text);
    } catch (error) {
      throw new ClawdError('bad_request', `recipe ${name} cannot be read: ${(error as Error).message}`);
    }
    // A file of the home may have been written by hand: it runs only as a recipe a run knows.
    const problem = recipeProblem(recipe);
    if (problem) throw new ClawdError('bad_request', `recipe ${name} cannot be run: ${problem}`);
    return recipe as SavedRecipe;
  }

  /** Every recipe that can be read, by name (one that cannot is left out). */
  async list(): Promise<SavedRecipe[]> {
    const files = await fs.readdir(this.#dir).catch(() => [] as string[]);
    const names = files
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .filter((n) => RECIPE_NAME.test(n));
    const read = await Promise.all(names.sort().map((name) => this.load(name).catch(() => undefined)));
    return read.filter((r): r is SavedRecipe => r !== undefined);
  }
}

function checkName(name: string): void {
  if (!RECIPE_NAME.test(name))
    throw new ClawdError('bad_request', `recipe name ${JSON.stringify(name)}: letters, digits, - and _ (up to 64)`);
}
