// The clawd MCP server: every tool of mcp-tools.ts registered on an McpServer (the SDK checks
// arguments against each tool's zod schema and answers a bad call with isError naming the
// field), answers shaped for an agent — short text, screenshots as image content — and errors
// as isError with the same message and code the HTTP API gives.

import { promises as fs } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isClawdError } from '../errors';
import { VERSION } from '../version';
import { TOOLS, type ControlApi } from './mcp-tools';

export function createMcpServer(api: ControlApi, defaultProfile: string | undefined): McpServer {
  const server = new McpServer(
    { name: 'clawd-browser', version: VERSION },
    { instructions: 'Drive a browser by refs: snapshot, then act on an element by its ref (click, type, fill, …), then snapshot again or ask an action for snapshot: "diff". A ref whose element changed is refused as stale: take a new snapshot.' },
  );
  for (const tool of TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>) => {
      try {
        const answer = await tool.run(args, api, defaultProfile);
        const content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }> = [{ type: 'text', text: answer.text }];
        if (answer.image) content.push({ type: 'image', data: (await fs.readFile(answer.image.path)).toString('base64'), mimeType: answer.image.mimeType });
        return { content };
      } catch (error) {
        const text = isClawdError(error) ? `${error.message} (${error.code})` : String((error as Error)?.message ?? error);
        return { content: [{ type: 'text', text }], isError: true };
      }
    });
  }
  return server;
}
