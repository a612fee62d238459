import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActionEntry } from '../../relay/events/event-bus';
import { renderScript } from '../../relay/agent/export/script-render';
import { sessionRecipe } from '../../relay/agent/export/session-steps';

const at = (n: number) => `2026-11-29T10:00:${String(n).padStart(2, '0')}.000Z`;
const entry = (n: number, e: Partial<ActionEntry> & { kind: string }): ActionEntry => ({
  time: at(n),
  id: `r.${n}`,
  profile: 'chrome',
  outcome: 'ok',
  durationMs: 5,
  ...e,
});
const name = { ref: 'e1', role: 'textbox', name: 'Full name', locator: { by: 'label' as const, label: 'Full name' } };
const code = {
  ref: 'e2',
  role: 'textbox',
  name: 'Access code',
  locator: { by: 'label' as const, label: 'Access code' },
  password: true as const,
};
const plan = { ref: 'e3', role: 'combobox', name: 'Plan', locator: { by: 'css' as const, css: '#plan' } };
const save = {
  ref: 'e4',
  role: 'button',
  name: 'Save',
  locator: { by: 'role' as const, role: 'button', name: 'Save', nth: 1 },
};

const SESSION: ActionEntry[] = [
  entry(1, { kind: 'navigate', url: 'http://shop.test/' }),
  entry(2, { kind: 'type', element: name, text: { length: 12 } }),
  entry(3, { kind: 'type', element: code, text: { length: 4 } }),
  entry(4, { kind: 'type', element: { ...code, ref: 'e5' }, text: { length: 15 } }),
  entry(5, { kind: 'select', element: plan }),
  entry(6, { kind: 'fill', element: { ...name, ref: 'e6', role: 'checkbox', name: 'News' } }),
  entry(7, { kind: 'click', element: { ref: 'e9', role: 'button', name: 'Gone' }, outcome: 'ok' }),
  entry(8, { kind: 'evaluate' }),
  entry(9, { kind: 'click', element: save, outcome: 'ref_stale' }),
  entry(10, { kind: 'click', element: save, seen: { messages: ['status "Saved \\"it\\""', 'textbox "x" [invalid]'] } }),
  entry(11, { kind: 'press', key: 'Enter', element: save, seen: { title: 'Done' } }),
];
const GIVEN: Record<string, unknown> = {
  'r.2': 'Ada Lovelace',
  'r.4': '{{secret:CODE}}',
  'r.5': ['pro'],
  'r.6': true,
};

describe('a session as a recipe', () => {
  const recipe = sessionRecipe(SESSION, (e) => GIVEN[e.id!], 'session s1 on profile chrome');

  it('keeps the actions that went through, by their locators, with values as parameters', () => {
    expect(recipe.steps).toEqual([
      { do: 'goto', url: 'http://shop.test/' },
      { do: 'fill', element: { locator: name.locator }, value: '{{param:fullName}}' },
      { do: 'fill', element: { locator: code.locator, password: true }, value: '{{param:accessCode}}' },
      { do: 'fill', element: { locator: code.locator, password: true }, value: '{{secret:CODE}}' },
      { do: 'select', element: { locator: plan.locator }, values: ['{{param:plan}}'] },
      { do: 'check', element: { locator: name.locator }, checked: true },
      { do: 'note', text: 'click e9: the element could not be read for a locator when it ran' },
      { do: 'note', text: "evaluate: not done again by a script (it ran the agent's own code)" },
      { do: 'click', element: { locator: save.locator } },
      { do: 'expect', text: 'Saved "it"' },
      { do: 'press', key: 'Enter', element: { locator: save.locator } },
      { do: 'expect', title: 'Done' },
    ]);
  });

  it("gives a password field's parameter no default, and keeps a typed secret as its mark", () => {
    expect(recipe.params).toEqual([
      { name: 'fullName', about: 'Full name', default: 'Ada Lovelace' },
      { name: 'accessCode', about: 'Access code' },
      { name: 'plan', about: 'Plan', default: 'pro' },
    ]);
    expect(recipe.secrets).toEqual(['CODE']);
  });

  it('begins on the page of its first action when it did not load one', () => {
    const later = sessionRecipe(
      [entry(1, { kind: 'click', element: save, url: 'http://shop.test/cart' })],
      () => undefined,
      's',
    );
    expect(later.steps[0]).toEqual({ do: 'goto', url: 'http://shop.test/cart' });
  });
});

describe('a recipe as a program', () => {
  const recipe = sessionRecipe(SESSION, (e) => GIVEN[e.id!], 'session s1 on profile chrome');
  const target = { cdpUrl: 'http://127.0.0.1:18792/', profile: 'chrome' };

  it('writes locators, parameters and expects as Playwright does, page words only as string literals', () => {
    const script = renderScript(recipe, 'script', target);
    expect(script).toContain('await page.getByLabel("Full name", { exact: true }).fill(params["fullName"]);');
    expect(script).toContain(
      'await page.getByLabel("Access code", { exact: true }).fill(value(params, "{{secret:CODE}}"));',
    );
    expect(script).toContain('await page.locator("#plan").selectOption([params["plan"]]);');
    expect(script).toContain('await page.getByRole("button", { name: "Save", exact: true }).nth(1).click();');
    expect(script).toContain('await expectText(page, "Saved \\"it\\"");');
    expect(script).toContain('"accessCode": null');
    const test = renderScript(recipe, 'test', target);
    expect(test).toContain('await expect(page).toHaveTitle("Done");');
    expect(test).toContain('from "@playwright/test"');
  });

  it('is a module Node can parse, in both formats', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-export-'));
    try {
      for (const format of ['script', 'test'] as const) {
        const file = path.join(dir, `${format}.mjs`);
        writeFileSync(file, renderScript(recipe, format, target));
        const checked = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
        expect(checked.status, checked.stderr).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a page's words with a line break stay in their comment line", () => {
    const named = {
      ref: 'e1',
      role: 'textbox',
      name: 'x\nprocess.exit(7)\u2028//',
      locator: { by: 'css' as const, css: '#a' },
    };
    const recipe = sessionRecipe([entry(1, { kind: 'type', element: named })], () => 'v', 'a\nprocess.exit(8)');
    const script = renderScript(recipe, 'script', target);
    expect(script.split(/[\n\u2028\u2029]/).filter((line) => line.startsWith('process.exit'))).toEqual([]);
    expect(script).toContain('//   xProcessExit7: x process.exit(7) //');
  });

  it('a page word that looks like code stays a string', () => {
    const evil = sessionRecipe(
      [
        entry(1, {
          kind: 'click',
          element: { ...save, locator: { by: 'label', label: '"); process.exit(1); ("' } },
          seen: { messages: ['status "`${1}` \\u2028 */"'] },
        }),
      ],
      () => undefined,
      'x */ y',
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-export-'));
    try {
      const file = path.join(dir, 'evil.mjs');
      writeFileSync(file, renderScript(evil, 'script', target));
      expect(spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' }).status).toBe(0);
      expect(renderScript(evil, 'script', target)).toContain(
        'getByLabel("\\"); process.exit(1); (\\"", { exact: true })',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
