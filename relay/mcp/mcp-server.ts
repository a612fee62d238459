// The clawd MCP server: the tools of mcp-tools.ts (derived from the operation table) on the SDK's
// low-level Server, so the tool list is exactly what we describe (short, shared fields said once
// in the instructions) and every call is checked by the operation's own schema, the same as HTTP.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Invoker } from '../operations/control-client';
import { toolGroups } from '../operations/operation-table';
import { VERSION } from '../version';
import { fenceMeaning, fenceNonce } from '../operations/page-fence';
import { callTool, INSTRUCTIONS, toolDefinition } from './mcp-tools';

/** `said`: a sentence added to the instructions (which profiles there are, when the client chose none). */
export function createMcpServer(invoker: Invoker, defaultProfile: string | undefined, said?: string): Server {
  // The page fence's nonce, one per MCP session: said once in the instructions, on every answer's page words.
  const nonce = fenceNonce();
  const instructions = [INSTRUCTIONS, fenceMeaning(nonce), ...(said ? [said] : [])].join(' ');
  const server = new Server(
    { name: 'clawd-browser', version: VERSION },
    { capabilities: { tools: {}, logging: {} }, instructions },
  );
  const groups = toolGroups();
  const tools = groups.map(toolDefinition);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const group = groups.find((g) => g.tool === request.params.name);
    if (!group)
      return {
        content: [
          {
            type: 'text',
            text: `no tool named ${request.params.name}: the tools are ${groups.map((g) => g.tool).join(', ')} (bad_request)`,
          },
        ],
        isError: true,
      };
    // A note (waiting for the person's answer) reaches the client at once, besides its line in the answer.
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    const said = (note: string) => {
      void extra
        .sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'clawd', data: note } })
        .catch(() => {});
      if (progressToken !== undefined)
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: ++progress, message: note },
          })
          .catch(() => {});
    };
    return callTool(
      group,
      (request.params.arguments ?? {}) as Record<string, unknown>,
      invoker,
      defaultProfile,
      nonce,
      said,
      extra.signal,
    );
  });
  return server;
}
