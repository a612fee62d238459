// The control API's routes for every operation of the table, derived from it: each operation's
// method and path, its input read from the query string (GET, DELETE) or the JSON body (POST)
// plus any `:field` of the path, checked by its schema (a 400 naming the field), then its
// handler. `POST /act` is one route for every action: the body's `kind` picks the operation.
// An agent session may also come as the X-Clawd-Session header.

import type { Context, Hono } from 'hono';
import { jsonBody } from '../http/request-body';
import { actOperation } from '../operations/act-operations';
import type { Operation } from '../operations/operation';
import { OPERATION_LIST, parseOperationInput } from '../operations/operation-table';
import { EARLY_NOTES_HEADER, NOTE_HEADER, noteHeader, type Invoker } from '../operations/control-client';

async function rawInput(
  c: Context,
  operation: Operation,
  body: Record<string, unknown> | undefined,
): Promise<Record<string, unknown>> {
  const raw: Record<string, unknown> = { ...(body ?? c.req.query()), ...c.req.param() };
  delete raw.profile;
  const header = c.req.header('x-clawd-session');
  if (header !== undefined && header !== '' && raw.session === undefined && 'session' in operation.input.shape)
    raw.session = header;
  return raw;
}

export function registerOperationRoutes(app: Hono, invoker: Invoker): void {
  const routed = new Set<string>();
  for (const listed of OPERATION_LIST) {
    const { method, path } = listed.http;
    if (routed.has(`${method} ${path}`)) continue;
    routed.add(`${method} ${path}`);
    app.on(method, path, async (c) => {
      const body = method === 'POST' ? await jsonBody(c) : undefined;
      // POST /act: the body's kind says which action (a 400 listing them when it names none).
      const operation = listed.http.kind !== undefined ? actOperation(body?.kind) : listed;
      const input = parseOperationInput(operation, await rawInput(c, operation, body), body ? 'json' : 'text');
      const result = await invoker.invoke(
        operation,
        c.req.query('profile'),
        input,
        (said) => {
          const note = noteHeader(said);
          c.header(NOTE_HEADER, note, { append: true });
          // Said at once too, as 103 Early Hints, to a caller that asks for them (the CLI, a remote
          // `clawd mcp`): one that waits for the person's answer hears why meanwhile. Only when asked:
          // some HTTP clients (Python's http.client) take a 103 for the answer. Node sends Early Hints
          // only with a Link: `</>` (this server) asks nothing of anyone.
          if (c.req.header(EARLY_NOTES_HEADER) !== '1') return;
          const outgoing = (
            c.env as
              | { outgoing?: { writeEarlyHints?(hints: Record<string, string>): void; headersSent?: boolean } }
              | undefined
          )?.outgoing;
          if (outgoing && !outgoing.headersSent)
            outgoing.writeEarlyHints?.({ link: '</>; rel=preconnect', [NOTE_HEADER]: note });
        },
        c.req.raw.signal,
      );
      return c.json(result);
    });
  }
}
