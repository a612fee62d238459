// Playwright MCP as the cases that set a page's text beside it run it: its own process, attached
// to a browser's CDP port, its temporary files in a folder of its own (removed on close), a
// tool call answering the tool's whole text or throwing with what it said.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

interface ToolText {
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

export interface PlaywrightMcp {
  call(name: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

const textOf = (result: ToolText) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

export async function startPlaywrightMcp(cdpUrl: string): Promise<PlaywrightMcp> {
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  // It writes snapshots of navigations to files, and leaves a pw-… folder behind when its client
  // goes: both into a temp dir, not the checkout.
  const outputDir = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-mcp-'));
  const mcp = new Client({ name: 'clawd-bench', version: '1' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, '--cdp-endpoint', cdpUrl, '--output-dir', outputDir],
      cwd: outputDir,
      env: { ...(process.env as Record<string, string>), TMPDIR: outputDir },
      stderr: 'ignore',
    }),
  );
  return {
    async call(name, args) {
      const result = (await mcp.callTool({ name, arguments: args })) as ToolText;
      if (result.isError) throw new Error(`Playwright MCP ${name}: ${textOf(result).slice(0, 300)}`);
      return textOf(result);
    },
    async close() {
      await mcp.close().catch(() => {});
      rmSync(outputDir, { recursive: true, force: true });
    },
  };
}
