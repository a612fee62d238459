// Raw HTTP requests and WebSocket upgrades with any headers (fetch forbids setting Host and
// Origin freely).
import http from 'node:http';
import WebSocket from 'ws';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): any;
}

/** `headersOnly`: resolves at the headers and ends the request (for streams such as /events). */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; headersOnly?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        if (options.headersOnly) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', json: () => undefined });
          req.destroy();
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      },
    );
    req.on('error', (error) => (options.headersOnly && req.destroyed ? undefined : reject(error)));
    req.end(options.body);
  });
}

/** Attempts a WebSocket upgrade and returns the HTTP status of the refusal (or 101). */
export function upgradeStatus(url: string, headers: Record<string, string> = {}, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, origin, perMessageDeflate: false });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', (error) => reject(error));
  });
}
