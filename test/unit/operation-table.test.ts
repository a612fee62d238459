// The operation table is the one definition of every agent operation: this walks it and checks
// that each operation is reachable over HTTP, MCP and the CLI with the same fields — every field
// is a query/body field, a tool property and a flag or argument, and the operation's example
// arrives at the work as the same checked input through each door — that every operation has
// its handler, and that the skill and docs/reference.md list them as the table says.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../relay/cli/command-table';
import type { CommandContext } from '../../relay/cli/cli-command';
import { referenceMarkdown } from '../../relay/cli/reference-doc';
import { skillMarkdown } from '../../relay/cli/skill-doc';
import { commandName, flagFields } from '../../relay/cli/operation-commands';
import { HANDLERS } from '../../relay/control/operation-handlers';
import { registerOperationRoutes } from '../../relay/control/operation-routes';
import { httpErrorBody, httpStatusOf } from '../../relay/errors';
import { callTool, toolDefinitions } from '../../relay/mcp/mcp-tools';
import { httpRequest, type ControlClient, type Invoker } from '../../relay/operations/control-client';
import { fieldKind } from '../../relay/operations/fields';
import type { Operation } from '../../relay/operations/operation';
import { pageWords, unmarked } from '../../relay/operations/page-fence';
import {
  isFixedField,
  OPERATION_LIST,
  OPERATIONS,
  parseOperationInput,
  toolGroups,
} from '../../relay/operations/operation-table';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** An invoker that records what reached the work instead of doing it. */
function recorder(): Invoker & {
  calls: Array<{ operation: string; profile: string | undefined; input: Record<string, unknown> }>;
} {
  const calls: Array<{ operation: string; profile: string | undefined; input: Record<string, unknown> }> = [];
  return {
    calls,
    async invoke(operation: Operation, profile: string | undefined, input: Record<string, unknown>) {
      calls.push({ operation: operation.name, profile, input });
      return {} as never;
    },
  };
}

const checked = (operation: Operation) =>
  parseOperationInput(operation, operation.example as Record<string, unknown>, 'json');

/** The example as a command line: positional arguments, then a flag for each other field. */
function argvOf(operation: Operation): string[] {
  const example = operation.example as Record<string, unknown>;
  const argv = [commandName(operation)];
  for (const spec of operation.cli.args ?? []) {
    const value = example[spec.field];
    if (value === undefined) continue;
    argv.push(...(Array.isArray(value) ? value.map(String) : spec.rest ? String(value).split(' ') : [String(value)]));
  }
  for (const [flag, field] of flagFields(operation)) {
    const value = example[field];
    if (value === undefined || isFixedField(operation, field)) continue;
    const kind = fieldKind(operation.input.shape[field]!);
    if (kind === 'boolean') {
      if (value === true) argv.push(`--${flag}`);
      else argv.push(...Object.keys(operation.cli.extra ?? {}).map((extra) => `--${extra}`)); // dialog's --dismiss
    } else
      argv.push(
        `--${flag}`,
        kind === 'json' ? JSON.stringify(value) : Array.isArray(value) ? value.join(',') : String(value),
      );
  }
  return [...argv, '--profile', 'work'];
}

describe('the operation table', () => {
  it('names each operation as its key, and every operation has its handler', () => {
    for (const [key, operation] of Object.entries(OPERATIONS)) expect(operation.name, key).toBe(key);
    expect(Object.keys(HANDLERS).sort()).toEqual(Object.keys(OPERATIONS).sort());
    expect(new Set(OPERATION_LIST.map(commandName)).size).toBe(OPERATION_LIST.length);
  });

  it.each(OPERATION_LIST.map((o) => [o.name, o] as const))(
    '%s: its example passes its own checks',
    (_name, operation) => {
      expect(() => checked(operation)).not.toThrow();
    },
  );

  it('offers every field through every door: a tool property, and a CLI flag or argument', () => {
    const tools = new Map(
      toolDefinitions().map((t) => [t.name, t.inputSchema as { properties: Record<string, unknown> }]),
    );
    for (const operation of OPERATION_LIST) {
      const fields = Object.keys(operation.input.shape).filter((f) => !isFixedField(operation, f));
      if (operation.mcp.tool === null) {
        // Not an agent's tool, and it says why (the person's: loosening an agent's own limits).
        expect(operation.mcp.why.length, operation.name).toBeGreaterThan(20);
      } else {
        const tool = tools.get(operation.mcp.tool)!;
        for (const field of fields)
          expect(tool.properties, `${operation.name}.${field} over MCP`).toHaveProperty(field);
      }
      const onCli = new Set([...flagFields(operation).values(), ...(operation.cli.args ?? []).map((a) => a.field)]);
      for (const field of fields) expect(onCli.has(field), `${operation.name}.${field} on the CLI`).toBe(true);
    }
  });

  it.each(OPERATION_LIST.map((o) => [o.name, o] as const))(
    '%s: the example reaches the work as the same input over HTTP, MCP and the CLI',
    async (_name, operation) => {
      const expected = checked(operation);

      // HTTP: the request a client makes of it, through the real routes.
      const http = recorder();
      const app = new Hono();
      app.onError((error, c) => c.json(httpErrorBody(error), httpStatusOf(error) as 400));
      registerOperationRoutes(app, http);
      const { method, path: route, body } = httpRequest(operation, expected);
      const response = await app.request(`${route}${route.includes('?') ? '&' : '?'}profile=work`, {
        method,
        ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      expect(http.calls).toEqual([{ operation: operation.name, profile: 'work', input: expected }]);

      // MCP: the tool it belongs to, chosen by kind or action (none for what is the person's alone).
      const group = toolGroups().find((g) => g.members.includes(operation));
      expect(group === undefined, `${operation.name} is an MCP tool unless it says why not`).toBe(
        operation.mcp.tool === null,
      );
      if (group) {
        const mcp = recorder();
        const args = {
          ...(operation.example as Record<string, unknown>),
          ...(group.chooser ? { [group.chooser]: operation.mcp.as } : {}),
          profile: 'work',
        };
        const answer = await callTool(group, args, mcp, undefined, 'k4m2x9p7q3').catch((error: Error) => ({
          content: [{ type: 'text' as const, text: error.message }],
          isError: true,
        }));
        // The recorder answers {} and the operation's text may not read it; what reached the work is the point
        // (with what the tool assumes for a field the agent left out: navigate's brief view).
        const overMcp = parseOperationInput(
          operation,
          { ...operation.mcp.defaults, ...(operation.example as Record<string, unknown>) },
          'json',
        );
        expect(mcp.calls[0], JSON.stringify(answer)).toEqual({
          operation: operation.name,
          profile: 'work',
          input: overMcp,
        });
      }

      // CLI: the example as a command line.
      const cli = recorder();
      const line = parseCommandLine(argvOf(operation));
      if (line.kind !== 'run') throw new Error(`${operation.name}: the command line was not read as a run`);
      const ctx: CommandContext = {
        home: '/nonexistent',
        profile: 'work',
        json: true,
        client: async () => cli as unknown as ControlClient,
        personClient: async () => cli as unknown as ControlClient,
        print: () => {},
        progress: () => {},
      };
      await line.command.run(line.args, line.flags, ctx).catch(() => {});
      expect(cli.calls[0]).toEqual({ operation: operation.name, profile: 'work', input: expected });
    },
  );

  it("the skill lists every command an agent may use (not the person's policy), and docs/reference.md is the one the table generates (npm run build writes it)", () => {
    const skill = skillMarkdown();
    expect(skill).toMatch(/^---\nname: clawd-browser\ndescription: .+\n---\n/);
    for (const operation of OPERATION_LIST)
      if (operation.mcp.tool === null) expect(skill, operation.name).not.toContain(`clawd ${commandName(operation)}`);
      else expect(skill, operation.name).toContain(`\`clawd ${commandName(operation)}`);
    // Never tells an agent to start a server in the background, nor to wait before the person has the link.
    expect(skill).not.toMatch(/serve &|clawd handoff "[^"\n]*" --wait/);
    expect(skill).toContain('--snapshot none|brief|diff|full');
    expect(readFileSync(path.join(ROOT, 'docs/reference.md'), 'utf8')).toBe(referenceMarkdown());
  });
});

describe('answers as an agent reads them', () => {
  const clicked = { ok: true as const, kind: 'click', targetId: 'T1', url: 'http://127.0.0.1:1/b', timeoutMs: 8_000 };

  it('an action says where it led when it loaded another page, and nothing more when it did not', () => {
    const text = (result: object) =>
      unmarked((OPERATIONS.click.text as (r: object, i: object) => string)(result, { ref: 'e4' }));
    expect(text(clicked)).toBe('clicked e4');
    expect(text({ ...clicked, navigated: true, title: 'Basket | Acme' })).toBe(
      'clicked e4\nnow on: Basket | Acme — http://127.0.0.1:1/b',
    );
    expect(text({ ...clicked, navigated: true, title: '' })).toBe('clicked e4\nnow on: http://127.0.0.1:1/b');
    // Said from where the tab was: the path on the same site, nothing for the same URL, all of it elsewhere.
    expect(
      text({
        ...clicked,
        url: 'http://127.0.0.1:1/shop?page=2',
        navigated: true,
        title: 'Shop',
        from: 'http://127.0.0.1:1/shop',
      }),
    ).toBe('clicked e4\nnow on: Shop — /shop?page=2');
    expect(text({ ...clicked, navigated: true, title: 'Welcome', from: 'http://127.0.0.1:1/b' })).toBe(
      'clicked e4\nnow on: Welcome',
    );
    expect(text({ ...clicked, navigated: true, title: '', from: 'http://127.0.0.1:1/b' })).toBe(
      'clicked e4\nnow on: http://127.0.0.1:1/b',
    );
    expect(text({ ...clicked, navigated: true, title: 'Bank', from: 'http://127.0.0.1:2/b' })).toBe(
      'clicked e4\nnow on: Bank — http://127.0.0.1:1/b',
    );
  });

  it('an action that stayed says the words it made appear, with a count of the rest, or that the view changed', () => {
    const text = (result: object) =>
      unmarked((OPERATIONS.click.text as (r: object, i: object) => string)(result, { ref: 'e4' }));
    expect(text({ ...clicked, changed: ['Cart (3)', 'Total: £30.00'] })).toBe(
      'clicked e4\n+ "Cart (3)"\n+ "Total: £30.00"',
    );
    expect(text({ ...clicked, changed: ['Inbox 23'], changedMore: 4 })).toBe(
      'clicked e4\n+ "Inbox 23"\n+ … and 4 more',
    );
    expect(text({ ...clicked, changedMore: 15, changedView: true })).toBe(
      'clicked e4\n~ 15 texts changed: another view',
    );
    // What the page announced is said even then, in the page's fence; the count is ours, outside it.
    expect(text({ ...clicked, changed: ['Archived'], changedMore: 5, changedView: true })).toBe(
      'clicked e4\n+ "Archived"\n~ 5 more texts changed: another view',
    );
    const raw = (OPERATIONS.click.text as (r: object, i: object) => string)(
      { ...clicked, changed: ['Archived'], changedMore: 5, changedView: true },
      { ref: 'e4' },
    );
    expect(raw).toBe(`clicked e4\n${pageWords('+ "Archived"')}\n~ 5 more texts changed: another view`);
  });

  const view = { format: 'agent' as const, refs: {}, stats: { chars: 9, lines: 1, refs: 1 }, truncated: false };

  it('a view after an action is not headed by the page again; a diff counts only when cut', () => {
    const text = (result: object) =>
      unmarked((OPERATIONS.click.text as (r: object, i: object) => string)(result, { ref: 'e4' }));
    const diff = {
      ...view,
      snapshot: '+ button "Save" [e9]',
      id: 's3',
      diff: { since: 's2', added: 1, removed: 0, changed: 0 },
    };
    expect(text({ ...clicked, title: 'Form', snapshot: diff })).toBe('clicked e4\n+ button "Save" [e9]');
    expect(
      text({
        ...clicked,
        title: 'Form',
        snapshot: { ...diff, snapshot: '', diff: { since: 's2', added: 0, removed: 0, changed: 0 } },
      }),
    ).toBe('clicked e4\nchanges: none');
    const brief = { ...view, snapshot: 'button "Pay" [e9]', id: 's3', brief: true };
    expect(text({ ...clicked, title: 'Basket', navigated: true, from: 'http://127.0.0.1:1/a', snapshot: brief })).toBe(
      'clicked e4\nnow on: Basket — /b\nbrief view\nbutton "Pay" [e9]',
    );
    // Asked for with since=, a diff says its page and the id it is since.
    expect(
      unmarked(
        OPERATIONS.snapshot.text(
          { ...diff, targetId: 'T1', url: 'http://127.0.0.1:1/b', title: 'Form' } as never,
          {} as never,
        ),
      ),
    ).toBe('page: Form — http://127.0.0.1:1/b · changes since s2:\n+ button "Save" [e9]');
  });

  it('a load says the page by its title, the URL only when it landed elsewhere, the status only when it is not a success', () => {
    const text = (result: object, url = 'http://127.0.0.1:1/b') =>
      unmarked((OPERATIONS.navigate.text as (r: object, i: object) => string)(result, { url }));
    const loaded = { ok: true as const, targetId: 'T1', url: 'http://127.0.0.1:1/b', title: 'Basket', status: 200 };
    expect(text(loaded)).toBe('loaded: Basket');
    expect(text({ ...loaded, url: 'http://127.0.0.1:1/' }, 'http://127.0.0.1:1')).toBe('loaded: Basket');
    expect(text({ ...loaded, url: 'http://127.0.0.1:1/login' })).toBe('loaded: Basket — http://127.0.0.1:1/login');
    expect(text({ ...loaded, status: 404 })).toBe('loaded: Basket (HTTP 404)');
    expect(text({ ...loaded, snapshot: { ...view, snapshot: 'button "Pay" [e9]', id: 's1', brief: true } })).toBe(
      'loaded: Basket · brief view\nbutton "Pay" [e9]',
    );
  });

  it('find says on which page only when nothing matched', () => {
    const text = (result: object) =>
      unmarked((OPERATIONS.find.text as (r: object, i: object) => string)(result, { q: 'x' }));
    const found = { targetId: 'T1', url: 'http://127.0.0.1:1/b', title: 'Basket', refs: {}, id: 's2' };
    expect(text({ ...found, text: 'button "Pay" [e9]', matches: 1, shown: 1 })).toBe('button "Pay" [e9]');
    expect(text({ ...found, text: 'a\nb', matches: 12, shown: 2 })).toBe('2 of 12 matches\na\nb');
    expect(text({ ...found, text: '', matches: 0, shown: 0 })).toBe(
      'no match on Basket: try other words, a role, or a snapshot',
    );
  });
});
