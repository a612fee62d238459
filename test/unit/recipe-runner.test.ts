import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecipeStore } from '../../relay/agent/export/recipe-store';
import { RecipeRunner } from '../../relay/control/recipe-runner';
import { ClawdError } from '../../relay/errors';
import type { Recipe } from '../../shared/recipe';

const button = { locator: { by: 'role' as const, role: 'button', name: 'Next' } };
const field = { locator: { by: 'label' as const, label: 'Full name' } };
const RECIPE: Recipe = {
  source: 'a test',
  params: [
    { name: 'fullName', default: 'Ada' },
    { name: 'code', about: 'Access code' },
  ],
  secrets: ['PIN'],
  steps: [
    { do: 'goto', url: 'http://shop.test/' },
    { do: 'fill', element: field, value: 'Dr {{param:fullName}}' },
    { do: 'fill', element: field, value: '{{secret:PIN}}' },
    { do: 'note', text: 'evaluate: not done again' },
    { do: 'click', element: button },
    { do: 'expect', text: 'Saved for {{param:fullName}}' },
  ],
};

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
function runnerWith(fail?: (operation: string) => Error | undefined) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'clawd-recipes-'));
  homes.push(home);
  const store = new RecipeStore(home);
  const calls: Array<{ operation: string; input: Record<string, unknown>; refs: string[] }> = [];
  const runner = new RecipeRunner(store, async (operation, _profile, input, elements) => {
    calls.push({ operation: operation.name, input, refs: [...elements.keys()] });
    const error = fail?.(operation.name);
    if (error) throw error;
    return operation.name === 'snapshot' ? { snapshot: 'button "Continue" [e4]' } : { targetId: 'T1' };
  });
  return { store, runner, calls, home };
}
const call = { profile: 'clawd', named: true, targetId: 'T1', session: 's', refs: [] };

describe('recipes', () => {
  it('are kept by name, mode 0600; a bad name is refused', async () => {
    const { store, home } = runnerWith();
    const file = await store.save('order', RECIPE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(path.dirname(file)).toBe(path.join(home, 'recipes'));
    expect((await store.list()).map((r) => r.name)).toEqual(['order']);
    // A saved name is never replaced by another save (another agent, or the person, may run it).
    await expect(store.save('order', { ...RECIPE, steps: [] })).rejects.toMatchObject({ code: 'recipe_exists' });
    expect((await store.load('order')).steps).toHaveLength(RECIPE.steps.length);
    await expect(store.save('../x', RECIPE)).rejects.toMatchObject({ code: 'bad_request' });
    await expect(store.load('nope')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('run each step as an operation, parameters put in and secrets left as marks, elements by ref', async () => {
    const { store, runner, calls } = runnerWith();
    await store.save('order', RECIPE);
    const result = await runner.run(call, { name: 'order', params: ['code=1234', 'fullName=Grace'] });
    expect(result.ok).toBe(true);
    expect(calls.map((c) => [c.operation, c.refs])).toEqual([
      ['navigate', []],
      ['type', ['e1']],
      ['type', ['e1']],
      ['click', ['e1']],
      ['wait', []],
    ]);
    expect(calls[1]!.input).toMatchObject({ text: 'Dr Grace', targetId: 'T1', session: 's' });
    expect(calls[2]!.input).toMatchObject({ text: '{{secret:PIN}}' });
    expect(calls[4]!.input).toMatchObject({ text: 'Saved for Grace' });
    expect(result.done.map((d) => d.step)).toEqual([1, 2, 3, 5, 6]);
  });

  it('refuse a parameter they do not have, and one with no default left out', async () => {
    const { store, runner } = runnerWith();
    await store.save('order', RECIPE);
    await expect(runner.run(call, { name: 'order', params: ['colour=red', 'code=1'] })).rejects.toThrow(
      /no parameter colour/,
    );
    await expect(runner.run(call, { name: 'order', params: [] })).rejects.toThrow(/needs code=VALUE/);
  });

  it('stop at the step that fails, saying what it expected, with the page then', async () => {
    const { store, runner, calls } = runnerWith((operation) =>
      operation === 'click'
        ? new ClawdError('ref_stale', 'the step\'s element is not on the page: button "Next"')
        : undefined,
    );
    await store.save('order', RECIPE);
    const result = await runner.run(call, { name: 'order', params: ['code=1'] });
    expect(result.ok).toBe(false);
    expect(result.stopped).toMatchObject({
      step: 5,
      did: 'click button "Next"',
      code: 'ref_stale',
      expected: 'button "Next"',
      page: 'button "Continue" [e4]',
    });
    expect(calls.at(-1)!.operation).toBe('snapshot');
    expect(calls.some((c) => c.operation === 'wait')).toBe(false);
  });
});
