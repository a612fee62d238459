// mcp-tasks: what a whole agent task costs in context, not just one look. Five everyday tasks on
// a local site (task-site.ts) done by scripted agents (task-agents.ts) through `clawd mcp` and
// through Playwright MCP, each over stdio on the same Chromium in one run. Counted per server:
// tool calls, characters the agent reads and writes (every answer's text plus every call's
// arguments), and time. Every task is judged by the site's end state (what was signed up,
// ordered, saved), so a cheap run that did not do the task fails the case. Playwright MCP runs
// the plan twice: looking at an unseen page whole, and (frugal) through a find and a snapshot
// of the page's main landmark; the cheaper is the baseline. The tool list each server costs once
// per session is the mcp-tools case, not counted here.
// Target (#50): clawd's characters over all five tasks ≤ 0.15× Playwright MCP's cheaper plan.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findExecutable } from '../../../relay/browser/executable';
import { TASKS, type AgentSession, type TaskScript } from '../task-agents';
import { startTaskSite, type TaskSite } from '../task-site';
import { round, type CaseResult } from '../stats';

const CLAWD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clawd.js');

interface Tally {
  calls: number;
  chars: number;
  ms: number;
}

export interface ServerRun {
  total: Tally;
  perTask: Record<string, Tally>;
}

/** A session that counts what the agent reads and writes; a tool error ends the task. */
function counted(client: Client, tally: Tally, trace: boolean, frugal: boolean): AgentSession {
  return {
    frugal,
    async call(tool, args) {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as {
        content: Array<{ type: string; text?: string }>;
        isError?: boolean;
      };
      const text = result.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');
      tally.calls += 1;
      tally.chars += JSON.stringify(args).length + text.length;
      if (trace) process.stderr.write(`--- ${tool} ${JSON.stringify(args)}\n${text}\n`);
      if (result.isError) throw new Error(`${tool} failed: ${text}`);
      return text;
    },
  };
}

/** One server's run of the tasks over stdio, each judged by the site's end state. */
export async function runServer<Site extends Pick<TaskSite, 'url' | 'reset'>>(
  side: 'clawd' | 'playwright',
  command: string[],
  cwd: string,
  site: Site,
  trace: boolean,
  tasks: readonly TaskScript<Site>[],
  frugal = false,
): Promise<ServerRun> {
  const client = new Client({ name: 'clawd-bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: command,
      cwd,
      env: { ...(process.env as Record<string, string>), TMPDIR: cwd },
      stderr: 'ignore',
    }),
  );
  const total: Tally = { calls: 0, chars: 0, ms: 0 };
  const perTask: Record<string, Tally> = {};
  try {
    for (const task of tasks) {
      site.reset();
      const tally: Tally = { calls: 0, chars: 0, ms: 0 };
      const started = performance.now();
      const answer = await (task[side] as TaskScript<Site>['clawd'])(
        counted(client, tally, trace, frugal),
        site.url,
      ).catch((error: Error) => {
        throw new Error(`${side}, task "${task.name}": ${error.message}`);
      });
      tally.ms = performance.now() - started;
      // What the page itself sends after the agent's last answer (the todo list's save) may
      // trail it a moment: looked at again for up to 2 s before it counts as not done.
      let wrong = task.verify(site, answer);
      for (const ended = Date.now() + 2_000; wrong && Date.now() < ended; wrong = task.verify(site, answer))
        await new Promise((resolve) => setTimeout(resolve, 50));
      if (wrong) throw new Error(`${side}, task "${task.name}" not done: ${wrong}`);
      perTask[task.name] = tally;
      total.calls += tally.calls;
      total.chars += tally.chars;
      total.ms += tally.ms;
    }
  } finally {
    await client.close().catch(() => {});
  }
  return { total, perTask };
}

/** `clawd mcp` on a home of its own under `temp`, on free ports. */
export function clawdMcpArgs(temp: string): string[] {
  return [CLAWD, 'mcp', '--home', path.join(temp, 'home'), '--relay-port', '0', '--control-port', '0'];
}

/** Playwright MCP, headless and isolated, on the same Chromium. */
export function playwrightMcpArgs(temp: string): string[] {
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  return [
    cli,
    '--headless',
    '--isolated',
    '--executable-path',
    findExecutable(undefined).path,
    '--output-dir',
    path.join(temp, 'pw-out'),
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  ];
}

export async function mcpTasks(quick: boolean): Promise<CaseResult> {
  const site = await startTaskSite();
  const temp = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-tasks-'));
  const trace = process.env.CLAWD_BENCH_TRACE === '1';
  // Quick (CI's smoke run): the first two tasks (a form, a shop), each side's path through its
  // tools still walked and each end state still checked.
  const tasks = quick ? TASKS.slice(0, 2) : TASKS;
  try {
    const clawd = await runServer('clawd', clawdMcpArgs(temp), temp, site, trace, tasks);
    const playwrightArgs = playwrightMcpArgs(temp);
    // Quick (CI's smoke run): the frugal plan only, the one that sets the baseline.
    const playwright = quick ? undefined : await runServer('playwright', playwrightArgs, temp, site, trace, tasks);
    // The same plan with Playwright MCP looking at the form and the todo list through a find and
    // a snapshot of the page's main landmark instead of the whole page: its cheapest look.
    const frugal = await runServer('playwright', playwrightArgs, temp, site, trace, tasks, true);
    // Judged against Playwright MCP at its cheapest: whichever of its two plans cost less.
    const whole = playwright ?? frugal;
    const best = Math.min(whole.total.chars, frugal.total.chars);
    const ratio = clawd.total.chars / best;
    const perTask = Object.fromEntries(
      tasks.map((t) => {
        const [c, f] = [clawd.perTask[t.name]!, frugal.perTask[t.name]!];
        const p = playwright?.perTask[t.name];
        return [
          t.name.replace(/[^a-z0-9]+/gi, '-'),
          `${c.chars}/${p?.chars ?? '-'}/${f.chars} chars ${c.calls}/${p?.calls ?? '-'}/${f.calls} calls`,
        ];
      }),
    );
    return {
      name: 'mcp-tasks',
      unit: `characters over ${tasks.length} tasks`,
      value: clawd.total.chars,
      baseline: best,
      ratio: round(ratio, 3),
      target: '≤ 0.15× Playwright MCP',
      ok: ratio <= 0.15,
      details: {
        calls: clawd.total.calls,
        wholePageLookChars: playwright ? playwright.total.chars : 'not run (quick)',
        wholePageLookRatio: playwright ? round(clawd.total.chars / playwright.total.chars, 3) : 'not run (quick)',
        frugalLookChars: frugal.total.chars,
        frugalLookRatio: round(clawd.total.chars / frugal.total.chars, 3),
        playwrightCalls: playwright ? `${playwright.total.calls}/${frugal.total.calls}` : `-/${frugal.total.calls}`,
        timeMs: Math.round(clawd.total.ms),
        playwrightTimeMs: playwright ? Math.round(playwright.total.ms) : 'not run (quick)',
        timeRatio: playwright ? round(clawd.total.ms / playwright.total.ms, 2) : 'not run (quick)',
        perTask: playwright ? 'clawd/whole-page look/frugal look' : 'clawd/-/frugal look',
        ...perTask,
      },
    };
  } finally {
    await site.close();
    rmSync(temp, { recursive: true, force: true });
  }
}
