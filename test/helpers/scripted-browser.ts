// A scripted browser socket for the policy guard's socket tests: it answers every command with an
// empty result but as Chrome orders what matters to the guard (attach events before answers), and
// lets a test hold answers back, so each step of the guard's is seen.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface Sent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/** A browser socket (`existing`: the targets it has) answering every command with an empty result, but `Target.attachToTarget` as Chrome does. */
export async function scriptedBrowser(
  existing: ReadonlyArray<{ sessionId: string; targetId: string; type: string }> = [],
) {
  const sent: Sent[] = [];
  let socket: WebSocket | undefined;
  let held = false;
  /** Answers held back, by method and session, until the test lets them go. */
  const holds = new Map<string, Array<() => void>>();
  let heldBack: (() => void) | undefined;
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const { id, method, params, sessionId } = JSON.parse(data.toString()) as Sent & { id: number };
      sent.push({ method, params, ...(sessionId ? { sessionId } : {}) });
      // The targets already there are told of before the auto-attach's answer, as Chrome does.
      if (method === 'Target.setAutoAttach' && sessionId === undefined)
        for (const target of existing)
          ws.send(JSON.stringify(attached(target.sessionId, target.targetId, false, undefined, target.type)));
      if (method === 'Target.attachToTarget') {
        // The event first, then the answer, as Chrome sends them; held back when the test says so.
        const answer = () => {
          ws.send(JSON.stringify(attached('stand-in', params.targetId as string, false)));
          ws.send(JSON.stringify({ id, result: { sessionId: 'stand-in' } }));
        };
        return held ? void (heldBack = answer) : answer();
      }
      const answer = () => ws.send(JSON.stringify({ id, result: {} }));
      const hold = holds.get(`${method} ${sessionId ?? ''}`);
      if (hold) hold.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/devtools/browser/b`,
    sent,
    /** Holds the next attachToTarget's answer back until `answerHeld`. */
    holdAttach: () => void (held = true),
    answerHeld: () => heldBack?.(),
    /** Holds back the answers to `method` on `sessionId`; the returned function sends them. */
    holdAnswers: (method: string, sessionId: string) => {
      const held: Array<() => void> = [];
      holds.set(`${method} ${sessionId}`, held);
      return () => {
        holds.delete(`${method} ${sessionId}`);
        for (const answer of held) answer();
      };
    },
    event: (message: object) => socket!.send(JSON.stringify(message)),
    close: () => {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Chrome's attachedToTarget for a frame (or a target of `type`), at the root or on a page's session (`on`). */
export function attached(sessionId: string, targetId: string, waiting: boolean, on?: string, type = 'iframe') {
  return {
    method: 'Target.attachedToTarget',
    params: { sessionId, targetInfo: { targetId, type, url: '' }, waitingForDebugger: waiting },
    ...(on ? { sessionId: on } : {}),
  };
}
