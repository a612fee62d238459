// MCP over Streamable HTTP on the control API (`/mcp`), with the MCP spec's sessions: an
// initialize request without a session id opens a session (its own McpServer and transport), the
// `Mcp-Session-Id` header carries it after that, DELETE ends it. The route sits behind the same
// Host, Origin and token guards as every other route of the control API; its tools run the
// operations in this process (no loopback HTTP to itself). The MCP SDK is loaded at the first
// session, not with the server: it is ~15 MB of resident memory (the SDK, its JSON-schema
// validator) that a `clawd serve` nobody speaks MCP to never needs.

import { randomUUID } from 'node:crypto';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ClawdError } from '../errors';
import type { Invoker } from '../operations/control-client';

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
}

/** At most this many MCP sessions at once; a client that opens more is told so. */
const MAX_SESSIONS = 32;

export class McpHttpSessions {
  // Added when a session's initialize has been answered, removed when it is deleted or closed.
  readonly #sessions = new Map<string, Session>();

  constructor(private readonly invoker: Invoker) {}

  async handle(request: Request, profile: string | undefined): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    const body = request.method === 'POST' ? await request.json().catch(() => undefined) : undefined;
    if (request.method === 'POST' && body === undefined)
      throw new ClawdError('bad_request', 'the body of POST /mcp must be a JSON-RPC message');
    if (id) {
      const session = this.#sessions.get(id);
      if (!session) throw new ClawdError('not_found', `no MCP session ${id}: it ended; initialize a new one`);
      return session.transport.handleRequest(request, { parsedBody: body });
    }
    if (this.#sessions.size >= MAX_SESSIONS)
      throw new ClawdError('too_many_clients', `already ${MAX_SESSIONS} MCP sessions; end one (DELETE /mcp) first`);
    const [{ WebStandardStreamableHTTPServerTransport: Transport }, { createMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('./mcp-server'),
    ]);
    const server = createMcpServer(this.invoker, profile);
    const transport: WebStandardStreamableHTTPServerTransport = new Transport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => void this.#sessions.set(sessionId, { server, transport }),
      onsessionclosed: (sessionId) => void this.#sessions.delete(sessionId),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
  }
}
