// mcp-tools: what an agent pays before it does anything — the characters of each MCP server's
// `tools/list` answer (the JSON a host puts in the agent's context), for `clawd mcp` beside
// Playwright MCP and chrome-devtools-mcp, each asked over stdio in the same run. Also reported:
// each server's instructions, and what clawd's list would cost with one tool per operation
// instead of grouping actions into `act` (the choice measured both ways). Target: ≤ 0.6×
// Playwright MCP's list.

import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { toolDefinition } from '../../../relay/mcp/mcp-tools';
import { OPERATION_LIST } from '../../../relay/operations/operation-table';
import type { RelayProcess } from '../fixture';
import { round, type CaseResult } from '../stats';

const CLAWD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clawd.js');

interface Listed {
  chars: number;
  tools: number;
  instructions: number;
}

/** Starts an MCP server over stdio, reads its tools/list and instructions, and stops it. */
async function listTools(command: string, args: string[]): Promise<Listed> {
  // Their temp files (a pw-… folder, a chrome-devtools-mcp log) go with this folder.
  const temp = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-tools-'));
  const client = new Client({ name: 'clawd-bench', version: '1' });
  try {
    await client.connect(
      new StdioClientTransport({
        command,
        args,
        cwd: temp,
        env: { ...(process.env as Record<string, string>), TMPDIR: temp },
        stderr: 'ignore',
      }),
    );
    const listed = await client.listTools();
    return {
      chars: JSON.stringify(listed).length,
      tools: listed.tools.length,
      instructions: client.getInstructions()?.length ?? 0,
    };
  } finally {
    await client.close().catch(() => {});
    rmSync(temp, { recursive: true, force: true });
  }
}

function resolveBin(pkg: string, bin: string): string | undefined {
  try {
    return path.join(path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), bin);
  } catch {
    return undefined;
  }
}

export async function mcpTools(relay: RelayProcess): Promise<CaseResult> {
  const clawd = await listTools(process.execPath, [CLAWD, 'mcp', '--home', relay.home]);
  const playwright = await listTools(process.execPath, [resolveBin('@playwright/mcp', 'cli.js')!, '--headless']);
  const devtoolsBin = resolveBin('chrome-devtools-mcp', 'build/src/bin/chrome-devtools-mcp.js');
  const devtools = devtoolsBin ? await listTools(process.execPath, [devtoolsBin, '--headless']) : undefined;
  // The other way to draw the tools: one per operation, each with its own fields.
  const separate = JSON.stringify({
    tools: OPERATION_LIST.map((o) => toolDefinition({ tool: o.name, description: o.summary, members: [o] })),
  }).length;
  const ratio = clawd.chars / playwright.chars;
  return {
    name: 'mcp-tools',
    unit: 'characters of tools/list',
    value: clawd.chars,
    baseline: playwright.chars,
    ratio: round(ratio, 2),
    target: '≤ 0.6× Playwright MCP',
    ok: ratio <= 0.6,
    details: {
      tools: clawd.tools,
      instructions: clawd.instructions,
      playwrightTools: playwright.tools,
      ...(devtools
        ? {
            devtoolsChars: devtools.chars,
            devtoolsTools: devtools.tools,
            devtoolsRatio: round(clawd.chars / devtools.chars, 2),
          }
        : { devtools: 'not installed' }),
      onePerOperationChars: separate,
      onePerOperationRatio: round(separate / playwright.chars, 2),
    },
  };
}
