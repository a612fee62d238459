// `clawd mcp` driven by the official MCP SDK client over stdio, as an agent's host would run it:
// against a running server on a managed profile and on an extension-attached tab, and alone on a
// fresh home with no server, where it must run one and leave nothing behind when the client goes.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { processesUsing } from '../../relay/browser/processes';
import { extensionDriver, managedDriver, useAgentDriver, type AgentDriver } from '../helpers/agent-drivers';
import { CLAWD_BIN, runCli } from '../helpers/cli';
import { until } from '../helpers/waits';
import { fenceLinesIn, refIn, unfenced } from '../helpers/fence';

interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  isError?: boolean;
}

async function connect(args: string[]): Promise<{ client: Client; transport: StdioClientTransport }> {
  const client = new Client({ name: 'clawd-test', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLAWD_BIN, 'mcp', ...args],
    env: { ...process.env } as Record<string, string>,
    stderr: 'ignore',
  });
  await client.connect(transport);
  return { client, transport };
}

/** An MCP client of the driver's server: `clawd mcp` over stdio, or the control API's /mcp. */
async function connectTo(d: AgentDriver, over: 'stdio' | 'http'): Promise<Client> {
  if (over === 'stdio') return (await connect(['--home', d.server.home, '--profile', d.profile])).client;
  const client = new Client({ name: 'clawd-test', version: '1' });
  const url = new URL(`${d.server.controlUrl}/mcp?profile=${d.profile}`);
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${d.server.token}` } } }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
/** An answer's text, its fence lines taken out (the fence is asserted on its own below). */
const text = (result: ToolResult) => unfenced(fencedText(result));
const fencedText = (result: ToolResult) =>
  result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

describe.each([
  ['managed', managedDriver],
  ['extension', extensionDriver],
] as const)('MCP with a running server, on a %s profile', (_kind, makeDriver) => {
  // One server and browser for both doors: each test connects a client of its own.
  const ctx = useAgentDriver(makeDriver);
  describe.each(['stdio', 'http'] as const)('over %s', (over) => {
    it(
      'lists tools with schemas, fills and submits a form by refs, and shows what the page says',
      { timeout: 60_000 },
      async () => {
        const client = await connectTo(ctx.d, over);
        try {
          const { tools } = await client.listTools();
          const names = tools.map((t) => t.name);
          for (const name of [
            'snapshot',
            'navigate',
            'act',
            'screenshot',
            'content',
            'upload',
            'dialog',
            'handoff',
            'tabs',
            'browser',
          ])
            expect(names).toContain(name);
          for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
          const act = tools.find((t) => t.name === 'act')!;
          expect(act.inputSchema.required).toEqual(['kind']);
          expect((act.inputSchema.properties as Record<string, { enum?: string[] }>).kind!.enum).toEqual(
            expect.arrayContaining(['click', 'type', 'fill', 'select', 'press', 'scroll', 'wait', 'evaluate']),
          );

          const targetId = ctx.d.targetId;
          // navigate answers where it landed: a brief view, enough to act on.
          const loaded = text(await call(client, 'navigate', { url: ctx.pages.url('/agent-form'), targetId }));
          expect(loaded).toMatch(/^loaded: agent form · brief view\ntextbox "Name" \[e\d+\]/);
          expect(loaded).not.toContain('"not submitted"');
          expect(
            text(await call(client, 'navigate', { url: ctx.pages.url('/agent-form'), targetId, snapshot: 'none' })),
          ).toBe('loaded: agent form');
          const fencedSnap = fencedText(await call(client, 'snapshot', { targetId }));
          const snap = unfenced(fencedSnap);
          // The page's words are fenced with this session's nonce, said once in the instructions.
          const nonce = client.getInstructions()?.match(/‹page ([a-z0-9]{8})›/)?.[1];
          expect(nonce, client.getInstructions()).toBeDefined();
          expect(fenceLinesIn(fencedSnap)).toEqual([`‹page ${nonce}›`, `‹/page ${nonce}›`]);
          expect(fencedSnap.split('\n')[1]).toBe(`‹page ${nonce}›`);
          expect(snap).toMatch(/^page: agent form — http.*\/agent-form · snapshot s\d+\ntextbox "Name" \[e\d+\]/);
          const filled = await call(client, 'act', {
            kind: 'fill',
            targetId,
            fields: [
              { ref: refIn(snap, 'textbox', 'Name'), value: 'Ada' },
              { ref: refIn(snap, 'checkbox', 'Agree'), value: true },
            ],
          });
          expect(text(filled)).toBe('filled 2 field(s)');
          const sent = await call(client, 'act', {
            kind: 'click',
            targetId,
            ref: refIn(snap, 'button', 'Send'),
            snapshot: 'diff',
          });
          // The answer carries what changed, so the agent needs no second call.
          expect(text(sent)).toMatch(/^clicked e\d+\n[-+~] /);
          expect(text(sent)).toContain('+ "submitted name=Ada&email=&agree=yes&color=red"');
          expect(await ctx.d.inPage('document.getElementById("result").textContent')).toBe(
            'submitted name=Ada&email=&agree=yes&color=red',
          );

          const shot = await call(client, 'screenshot', { targetId });
          expect(shot.isError).toBeFalsy();
          const image = shot.content.find((c) => c.type === 'image');
          expect(image?.mimeType).toBe('image/png');
          expect(Buffer.from(image!.data!, 'base64').subarray(1, 4).toString()).toBe('PNG');
          expect(text(shot)).toMatch(/^saved .*\.png \(\d+×\d+\)$/);
        } finally {
          await client.close();
        }
      },
    );

    it(
      'answers a stale ref and bad arguments with isError and the reason, and leaves the page alone',
      { timeout: 60_000 },
      async () => {
        const client = await connectTo(ctx.d, over);
        try {
          const targetId = ctx.d.targetId;
          await call(client, 'navigate', { url: ctx.pages.url('/replace'), targetId });
          const save = refIn(text(await call(client, 'snapshot', { targetId })), 'button', 'Save');
          await ctx.d.inPage('document.getElementById("victim").textContent = "Delete"');
          const stale = await call(client, 'act', { kind: 'click', targetId, ref: save });
          expect(stale.isError).toBe(true);
          expect(text(stale)).toBe(`ref ${save} is stale: take a new snapshot (ref_stale)`);
          expect(await ctx.d.inPage('document.getElementById("log").textContent')).toBe('log:');
          // Bad arguments: the same message and code the HTTP API gives.
          const bad = await call(client, 'act', { kind: 'click', targetId });
          expect(bad.isError).toBe(true);
          expect(text(bad)).toBe('ref is required (a ref from the snapshot, like e12) (bad_request)');
          const wrongType = await call(client, 'act', {
            kind: 'fill',
            targetId,
            fields: [{ ref: 'e1', value: { nested: true } }],
          });
          expect(wrongType.isError).toBe(true);
          expect(text(wrongType)).toBe(
            'fields[0].value must be a string, number, boolean or a list of option names (bad_request)',
          );
          const unknownKind = await call(client, 'act', { kind: 'teleport', targetId });
          expect(text(unknownKind)).toMatch(/^kind "teleport" is unknown: use one of click, type, fill/);
        } finally {
          await client.close();
        }
      },
    );

    it(
      'hands the tab over with a live view link for the person, and waits for it to come back',
      { timeout: 60_000 },
      async () => {
        const client = await connectTo(ctx.d, over);
        try {
          const targetId = ctx.d.targetId;
          const handed = text(
            await call(client, 'handoff', { targetId, reason: 'Log in, then press Done', timeoutMs: 1_000 }),
          );
          expect(handed).toMatch(
            new RegExp(
              `This link lets them watch the tab \\(it works once\\): http://127\\.0\\.0\\.1:\\d+/view#code=[\\w-]+&profile=${ctx.d.profile}&target=${targetId} — they act in it from their own live view \\(clawd's side panel, or \`clawd view\`\\)$`,
            ),
          );
          // Nobody comes: the wait ends with the hand-over's own limit (run out on purpose: 1 s, the
          // least a hand-over takes, is many times what the wait needs to reach the server), and the
          // tab is free again.
          expect(text(await call(client, 'handoff', { action: 'wait', targetId, timeoutMs: 20_000 }))).toBe(
            'the person did not give the tab back in time',
          );
          expect(
            ((await ctx.d.api('GET', '/tabs')).body.tabs as Array<{ targetId: string; holder?: unknown }>).find(
              (t) => t.targetId === targetId,
            )?.holder,
          ).toBeUndefined();
          expect(text(await call(client, 'handoff', { action: 'wait', targetId }))).toMatch(
            /^the tab is back \(it was not handed over\)/,
          );
          // Given and waited for in one call: the link comes with the answer.
          const both = text(
            await call(client, 'handoff', { targetId, reason: 'Solve the CAPTCHA', timeoutMs: 1_000, wait: true }),
          );
          expect(both).toMatch(
            /^handed .* "Solve the CAPTCHA"\. This link lets them watch the tab .*\nthe person did not give the tab back in time$/,
          );
        } finally {
          await client.close();
        }
      },
    );
  });
});

describe('two MCP clients at once', () => {
  const ctx = useAgentDriver(managedDriver);

  it('stdio and HTTP each work on their own tab', { timeout: 60_000 }, async () => {
    const [stdio, http] = await Promise.all([connectTo(ctx.d, 'stdio'), connectTo(ctx.d, 'http')]);
    try {
      const opened = text(await call(http, 'tabs', { action: 'open', url: ctx.pages.url('/form') }));
      const second = opened.match(/^opened (\S+)/)![1]!;
      const [a, b] = await Promise.all([
        call(stdio, 'navigate', { url: ctx.pages.url('/agent-form'), targetId: ctx.d.targetId }).then(() =>
          call(stdio, 'snapshot', { targetId: ctx.d.targetId }),
        ),
        call(http, 'snapshot', { targetId: second }),
      ]);
      expect(text(a)).toContain('button "Send"');
      expect(text(b)).toContain('button "Go"');
      expect(text(b)).not.toContain('button "Send"');
      const go = refIn(text(b), 'button', 'Go');
      // The page's answer to the click ("clicked " and the empty name) is said with it.
      expect(text(await call(http, 'act', { kind: 'click', targetId: second, ref: go }))).toBe(
        `clicked ${go}\n+ "clicked"`,
      );
      const clicked = await call(stdio, 'act', {
        kind: 'click',
        targetId: ctx.d.targetId,
        ref: refIn(text(a), 'button', 'Send'),
      });
      expect(clicked.isError).toBeFalsy();
      expect(await ctx.d.inPage('document.getElementById("result").textContent')).toBe(
        'submitted name=&email=&color=red',
      );
    } finally {
      await Promise.all([stdio.close(), http.close()]);
    }
  });
});

describe("an agent that names no profile finds the person's tabs", () => {
  const ctx = useAgentDriver(extensionDriver);

  it(
    'its instructions name the profile of the person’s browser, and tabs lists their handed-over tab and how to reach it',
    { timeout: 60_000 },
    async () => {
      const { client } = await connect(['--home', ctx.d.server.home]);
      try {
        expect(client.getInstructions()).toMatch(
          new RegExp(
            `Profiles: .*${ctx.d.profile} \\(the person's own browser: only the tabs they handed over, 1 now; name it to use them\\)`,
          ),
        );
        const listed = text(await call(client, 'tabs'));
        expect(listed).toContain(
          `handed over by the person in profile ${ctx.d.profile} (name that profile to use them):`,
        );
        expect(listed).toContain(ctx.d.targetId.slice(0, 8));
        // Named, it reads the tab.
        const snapshot = await call(client, 'snapshot', { profile: ctx.d.profile, targetId: ctx.d.targetId });
        expect(snapshot.isError, text(snapshot)).toBeFalsy();
        expect(text(snapshot)).toContain('heading "home"');
      } finally {
        await client.close();
      }
      // An agent that chose the profile is not told of it again.
      const { client: chosen } = await connect(['--home', ctx.d.server.home, '--profile', ctx.d.profile]);
      try {
        expect(chosen.getInstructions()).not.toContain('Profiles:');
        expect(text(await call(chosen, 'tabs'))).not.toContain('handed over by the person');
      } finally {
        await chosen.close();
      }
    },
  );
});

describe('clawd mcp over stdio with no server running', () => {
  it(
    'runs its own server for the session, starts the managed browser on the first call, and leaves nothing behind',
    { timeout: 90_000 },
    async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-mcp-'));
      const home = path.join(root, 'home');
      try {
        const { client, transport } = await connect(['--home', home, '--relay-port', '0', '--control-port', '0']);
        const pid = transport.pid!;
        // Nothing started: the first navigate starts the profile and loads, in one call.
        const loaded = await call(client, 'navigate', { url: 'about:blank' });
        expect(loaded.isError, text(loaded)).toBeFalsy();
        expect(text(loaded)).toMatch(
          /^\(started profile clawd in [\d.]+ s: it was not running\)\nloaded: about:blank · brief view/,
        );
        expect(text(await call(client, 'tabs'))).toContain('about:blank');
        const userDataDir = path.join(home, 'profiles', 'clawd', 'user-data');
        expect((await processesUsing(userDataDir)).length).toBeGreaterThan(0);
        const { controlUrl, relayUrl } = JSON.parse(readFileSync(path.join(home, 'serve.json'), 'utf8')) as {
          controlUrl: string;
          relayUrl: string;
        };
        expect((await fetch(`${controlUrl}/`)).ok).toBe(true);
        await client.close();
        await until(
          'clawd mcp to exit',
          () => {
            try {
              process.kill(pid, 0);
              return false;
            } catch {
              return true;
            }
          },
          20_000,
        );
        // The server it started stops a few seconds after its last client, and its browsers with it.
        await until('the browser stopped', async () => (await processesUsing(userDataDir)).length === 0, 20_000);
        await until('serve.json removed', () => !existsSync(path.join(home, 'serve.json')), 20_000);
        // Nothing listens on its ports any more.
        for (const url of [controlUrl, relayUrl])
          await until(
            `${url} closed`,
            () =>
              fetch(`${url}/`).then(
                () => false,
                () => true,
              ),
            20_000,
          );
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});

describe('two agents on one machine', () => {
  it(
    'share the server the first clawd mcp started: it stays while the second is connected, and goes after the last',
    { timeout: 90_000 },
    async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-mcp-'));
      const home = path.join(root, 'home');
      try {
        const first = await connect(['--home', home, '--relay-port', '0', '--control-port', '0']);
        expect(text(await call(first.client, 'browser', { action: 'status' }))).toContain('clawd (managed)');
        const { controlUrl } = JSON.parse(readFileSync(path.join(home, 'serve.json'), 'utf8')) as {
          controlUrl: string;
        };
        const second = await connect(['--home', home]);
        expect(text(await call(second.client, 'browser', { action: 'status' }))).toContain('clawd (managed)');
        // The agent host kills the first clawd mcp when it leaves: the server it started stays for the second.
        await first.client.close();
        const loaded = await call(second.client, 'navigate', { url: 'about:blank' });
        expect(loaded.isError, text(loaded)).toBeFalsy();
        expect((await fetch(`${controlUrl}/`)).ok).toBe(true);
        await second.client.close();
        const userData = path.join(home, 'profiles', 'clawd', 'user-data');
        // When either wait fails: what the server said as it stopped, and what still runs.
        const said = async (error: Error) => {
          const log = path.join(home, 'log', 'serve.log');
          const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '(no serve.log)';
          const left = await processesUsing(userData);
          return new Error(`${error.message}\nstill running: ${JSON.stringify(left)}\n${log}:\n${tail}`);
        };
        await until(
          'the server to go after the last client',
          () =>
            fetch(`${controlUrl}/`).then(
              () => false,
              () => true,
            ),
          30_000,
        ).catch(async (error: Error) => Promise.reject(await said(error)));
        await until('its browser stopped', async () => (await processesUsing(userData)).length === 0, 20_000).catch(
          async (error: Error) => Promise.reject(await said(error)),
        );
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

  it(
    "runs its own server when the default port is another home's server, and says so, never that the token is wrong",
    { timeout: 90_000 },
    async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-mcp-'));
      const other = path.join(root, 'other');
      const mine = path.join(root, 'mine');
      try {
        const theirs = await connect(['--home', other, '--relay-port', '0', '--control-port', '0']);
        const { controlUrl } = JSON.parse(readFileSync(path.join(other, 'serve.json'), 'utf8')) as {
          controlUrl: string;
        };
        // This home knows no server of its own; the other's is where it would look (as on the default port).
        const client = new Client({ name: 'clawd-test', version: '1' });
        let stderr = '';
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [CLAWD_BIN, 'mcp', '--home', mine, '--relay-port', '0', '--control-port', '0'],
          env: { ...process.env, CLAWD_CONTROL_URL: controlUrl } as Record<string, string>,
          stderr: 'pipe',
        });
        transport.stderr?.on('data', (d) => (stderr += d));
        await client.connect(transport);
        const status = await call(client, 'browser', { action: 'status' });
        expect(status.isError, text(status)).toBeFalsy();
        expect(stderr).toContain(`serves another home (${other})`);
        const mineState = JSON.parse(readFileSync(path.join(mine, 'serve.json'), 'utf8')) as { controlUrl: string };
        expect(mineState.controlUrl).not.toBe(controlUrl);
        // The CLI of this home, pointed at the other's server, says whose it is.
        const cli = await runCli(['tabs', '--home', mine], { CLAWD_CONTROL_URL: controlUrl });
        expect(cli.code).not.toBe(0);
        expect(cli.stderr).toContain(`serves another home (${other})`);
        expect(cli.stderr).not.toMatch(/token is wrong/i);
        await client.close();
        await theirs.client.close();
        for (const url of [controlUrl, mineState.controlUrl])
          await until(
            `${url} stopped`,
            () =>
              fetch(`${url}/`).then(
                () => false,
                () => true,
              ),
            20_000,
          );
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
