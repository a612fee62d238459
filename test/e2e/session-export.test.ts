// A session becomes a script: an agent does a task across two pages of a local shop through
// `clawd mcp` (a field, a select, a checkbox, a secret, two submits); `export` writes it as a
// Playwright script and as a Playwright Test spec; with the shop reset, each run on its own, over
// the profile's CDP URL through clawd, puts the same order on the shop's server — with other
// parameter values when given — and the secret is in neither file, only its mark.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { driversToRun, extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { CLAWD_BIN, runCli } from '../helpers/cli';
import { refIn, unfenced } from '../helpers/fence';
import { startOrderShop } from '../helpers/order-shop';
import { answeringWhile } from '../helpers/waits';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SECRET = 'k9-Lighthouse-42';

/** Runs a file the export wrote, from a folder of the checkout (so it finds Playwright), to its end. */
function run(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe.each(
  driversToRun([
    ['extension', extensionDriver],
    ['managed', managedDriver],
  ] as const),
)('a session becomes a script, on a %s profile', (_name, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);

  it(
    'an agent does a two-page task over MCP; its export, run as a script and as a test, does it again',
    {
      timeout: 180_000,
    },
    async () => {
      const shop = await startOrderShop();
      const runs = path.join(ROOT, '.cache', `export-runs-${process.pid}-${Date.now()}`);
      mkdirSync(runs, { recursive: true });
      const home = ['--home', ctx.d.server.home, '--profile', ctx.d.profile];
      const client = new Client({ name: 'clawd-test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLAWD_BIN, 'mcp', ...home],
          env: { ...process.env } as Record<string, string>,
          stderr: 'ignore',
        }),
      );
      try {
        const set = await runCli(['secret-set', 'CODE', ...home], {}, 15_000, CLAWD_BIN, `${SECRET}\n`);
        expect(set.code, set.stderr).toBe(0);
        const targetId = ctx.d.targetId;
        const session = 'buyer';
        const tool = async (name: string, args: Record<string, unknown>) => {
          const result = (await client.callTool({ name, arguments: { targetId, session, ...args } })) as {
            content: Array<{ type: string; text?: string }>;
            isError?: boolean;
          };
          const text = unfenced(result.content.map((c) => c.text ?? '').join('\n'));
          expect(result.isError, text).toBeFalsy();
          return text;
        };

        // The agent's task, by refs, as an agent does it.
        await tool('navigate', { url: shop.url, snapshot: 'none' });
        let view = await tool('snapshot', {});
        await tool('act', { kind: 'type', ref: refIn(view, 'textbox', 'Full name'), text: 'Ada Lovelace' });
        await tool('act', { kind: 'select', ref: refIn(view, 'combobox', 'Plan'), values: ['pro'] });
        await tool('act', { kind: 'click', ref: refIn(view, 'button', 'Next') });
        view = await tool('snapshot', {});
        await tool('act', { kind: 'click', ref: refIn(view, 'checkbox', 'Send me news') });
        await tool('act', { kind: 'type', ref: refIn(view, 'textbox', 'Access code'), text: '{{secret:CODE}}' });
        await tool('act', { kind: 'click', ref: refIn(view, 'button', 'Place order') });
        const done = { name: 'Ada Lovelace', plan: 'pro', news: 'on', code: SECRET };
        expect(shop.order()).toEqual(done);

        // The export: a script, by the locators read when each action ran.
        const said = await tool('recipe', { action: 'export', format: 'script' });
        const file = /to (\S+\.mjs):/.exec(said)?.[1];
        expect(file, said).toBeDefined();
        expect(said).toContain('secrets (CLAWD_SECRET_NAME): CODE');
        const script = readFileSync(file!, 'utf8');
        expect(script).not.toContain(SECRET);
        expect(script).toContain('{{secret:CODE}}');
        expect(script).toContain('getByRole("textbox", { name: "Full name", exact: true })');
        expect(script).toContain('getByRole("button", { name: "Place order", exact: true })');
        expect(script).toMatch(/"fullName": "Ada Lovelace"/);

        // Run on its own, through clawd, against a shop that forgot the order.
        const env = { CLAWD_TOKEN: ctx.d.server.token, CLAWD_SECRET_CODE: SECRET };
        writeFileSync(path.join(runs, 'order.mjs'), script);
        shop.reset();
        const ran = await run(['order.mjs'], runs, env);
        expect(ran.code, ran.out).toBe(0);
        expect(shop.order()).toEqual(done);
        // With another value for a parameter, that value reaches the shop.
        shop.reset();
        const again = await run(['order.mjs', '--param', 'fullName=Grace Hopper'], runs, env);
        expect(again.code, again.out).toBe(0);
        expect(shop.order()).toEqual({ ...done, name: 'Grace Hopper' });

        // The same session as a Playwright Test spec: its expects pass.
        const saidTest = await tool('recipe', { action: 'export', format: 'test' });
        const spec = readFileSync(/to (\S+\.spec\.mjs):/.exec(saidTest)![1]!, 'utf8');
        expect(spec).not.toContain(SECRET);
        expect(spec).toContain(
          'await expect(page.getByText(value(params, "Order placed for {{param:fullName}}")).first()).toBeVisible();',
        );
        writeFileSync(path.join(runs, 'order.spec.mjs'), spec);
        shop.reset();
        const cli = path.join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
        const tested = await run(
          [cli, 'test', 'order.spec.mjs', '--reporter=line', '--workers=1', `--output=${path.join(runs, 'results')}`],
          runs,
          env,
        );
        expect(tested.code, tested.out).toBe(0);
        expect(tested.out).toMatch(/1 passed/);
        expect(shop.order()).toEqual(done);

        // The same session saved as a recipe: an agent runs it over MCP, with other values, no model.
        const saidRecipe = await tool('recipe', { action: 'export', format: 'recipe', name: 'order' });
        expect(saidRecipe).toContain('run-recipe order');
        expect(await tool('recipe', {})).toMatch(/^order: \d+ steps; params fullName, plan; secrets CODE$/m);
        shop.reset();
        const ranRecipe = await tool('recipe', {
          action: 'run',
          name: 'order',
          params: ['fullName=Grace Hopper', 'plan=basic'],
        });
        expect(ranRecipe, ranRecipe).toMatch(/^ran recipe order: \d+ steps/);
        expect(shop.order()).toEqual({ ...done, name: 'Grace Hopper', plan: 'basic' });

        // Under --ask submit, each step that sends a form is asked like the agent's own: Deny, and
        // the shop saw nothing; Allow, and it goes.
        // The person's rule, set as the person does (on their own browser an agent may not change it).
        expect((await ctx.d.loosen({ ask: ['submit'] })).status).toBe(200);
        const questions = ctx.d.server.server.consent.questions;
        shop.reset();
        const asked: string[] = [];
        const denied = await answeringWhile(
          questions,
          (q) => (q.terminal ? undefined : (asked.push(...q.kinds), false)),
          tool('recipe', { action: 'run', name: 'order', params: [] }),
        );
        expect(asked).toEqual(['submit']);
        // The caller hears at once that a step waits for the person, as for its own call.
        expect(denied).toMatch(/^waiting for the person to allow: submit/m);
        expect(denied).toMatch(/^recipe order stopped at step \d+ \(person_declined\)/m);
        expect(denied).toMatch(/^step \d+: click button "Next" — /m);
        expect(shop.order()).toBeUndefined();
        expect(shop.posts()).toBe(0);
        asked.length = 0;
        const allowed = await answeringWhile(
          questions,
          (q) => (q.terminal ? undefined : (asked.push(...q.kinds), true)),
          tool('recipe', { action: 'run', name: 'order', params: [] }),
        );
        expect(allowed).toMatch(/^ran recipe order/m);
        expect(asked).toEqual(['submit', 'submit']);
        expect(shop.order()).toEqual(done);
        expect((await ctx.d.loosen({ ask: [] })).status).toBe(200);

        // With the shop's button renamed, the run stops at that step, says what it expected, and
        // shows the page with refs to go on by hand.
        shop.reset();
        shop.rename('Next', 'Continue');
        const stopped = await tool('recipe', { action: 'run', name: 'order', params: [] });
        expect(stopped).toMatch(
          /^step \d+: click button "Next" — the step's element is not on the page: button "Next"$/m,
        );
        expect(stopped).toContain('expected: button "Next"');
        expect(stopped).toMatch(/button "Continue" \[e\d+\]/);
        expect(shop.order()).toBeUndefined();
      } finally {
        await client.close();
        await shop.close();
        rmSync(runs, { recursive: true, force: true });
      }
    },
  );
});
