// A browser that gives only its CDP WebSocket, as a Selenium Grid session's `se:cdp` or a hosted
// browser does: an HTTP server that answers 404 to every request (no `/json/*` beside it) and, at
// one path with the right token in its query, pipes a WebSocket to the browser's own. A wrong or
// missing token is answered 401, as such services do.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

export interface BareCdpEndpoint {
  /** The socket's URL, token included. */
  url: string;
  /** The same with another token (refused). */
  urlWithToken(token: string): string;
  close(): Promise<void>;
}

export async function startBareCdpEndpoint(browserWs: string, token = 'tok3n9x'): Promise<BareCdpEndpoint> {
  const PATH = '/session/4f2a9c/se/cdp';
  const sockets = new WebSocketServer({ noServer: true });
  const server = http.createServer((_req, res) =>
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route'),
  );
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== PATH || url.searchParams.get('token') !== token) {
      socket.end(
        'HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nbad or missing token',
      );
      return;
    }
    sockets.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(browserWs, { perMessageDeflate: false });
      const waiting: WebSocket.RawData[] = [];
      upstream.once('open', () => {
        for (const data of waiting.splice(0)) upstream.send(data, { binary: false });
      });
      client.on('message', (data) =>
        upstream.readyState === WebSocket.OPEN ? upstream.send(data, { binary: false }) : waiting.push(data),
      );
      upstream.on('message', (data) => client.readyState === WebSocket.OPEN && client.send(data, { binary: false }));
      const end = () => {
        client.close();
        upstream.close();
      };
      client.once('close', end);
      upstream.once('close', end);
      client.on('error', end);
      upstream.on('error', end);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  return {
    url: `${base}?token=${token}`,
    urlWithToken: (other) => `${base}?token=${other}`,
    async close() {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
