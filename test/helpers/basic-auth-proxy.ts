// A Selenium Grid behind basic auth, as companies run one: a reverse proxy of the test's own in
// front of the hub that lets through only requests and WebSocket upgrades carrying the right
// `Authorization: Basic` header (401 otherwise), so every connection clawd makes to the Grid —
// WebDriver, each browser's se:cdp, the policy guard's — must carry the credentials.

import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface BasicAuthProxy {
  /** The proxy's URL without credentials. */
  url: string;
  /** The same with `user:password@` in it, as a person writes a Grid URL. */
  urlWith(user: string, password: string): string;
  /** Requests and upgrades refused for want of the credentials, `METHOD path`. */
  refused: string[];
  close(): Promise<void>;
}

export async function startBasicAuthProxy(target: string, user: string, password: string): Promise<BasicAuthProxy> {
  const upstream = new URL(target);
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const refused: string[] = [];
  const sockets = new Set<net.Socket>();
  const allowed = (req: http.IncomingMessage) => {
    if (req.headers.authorization === expected) return true;
    refused.push(`${req.method} ${req.url}`);
    return false;
  };
  const server = http.createServer((req, res) => {
    if (!allowed(req))
      return res
        .writeHead(401, { 'www-authenticate': 'Basic realm="grid"', 'content-type': 'text/plain' })
        .end('who are you?');
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => res.writeHead(502).end(error.message));
    req.pipe(forward);
  });
  server.on('upgrade', (req, socket, head) => {
    if (!allowed(req)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nwho are you?');
      return;
    }
    // The upgrade request as it came, to the hub; then bytes both ways.
    const out = net.connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      out.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) out.write(head);
      out.pipe(socket);
      socket.pipe(out);
    });
    sockets.add(out).add(socket as net.Socket);
    const end = () => {
      out.destroy();
      socket.destroy();
    };
    out.on('error', end).on('close', end);
    socket.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    urlWith: (u, p) => `http://${encodeURIComponent(u)}:${encodeURIComponent(p)}@127.0.0.1:${port}`,
    refused,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
