// Starting and stopping our loopback HTTP listeners (the relay and the control API): a port in
// use is a clear `port_in_use` error, idle keep-alive connections outlive every common client's
// own idle limit, and a close ends open connections at once and can be called any number of times.

import type { Server } from 'node:http';
import { ClawdError } from '../errors';

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) races clients that
 * reuse a socket after 4–5 s idle (undici, Node's agent, browsers): the server closes it as the
 * request goes out and a POST fails with "other side closed". Clients give up on idle sockets
 * long before this, so the close is always theirs.
 */
const KEEP_ALIVE_MS = 65_000;

/** Listens, resolving with the bound port once listening; a port in use is a clear `port_in_use` error. */
export function listen(server: Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE') {
        reject(
          new ClawdError(
            'port_in_use',
            `${what} port ${port} on ${host} is already in use (another clawd serve?); choose another port`,
            { cause: error },
          ),
        );
      } else {
        reject(
          new ClawdError('internal', `${what} could not listen on ${host}:${port}: ${error.message}`, { cause: error }),
        );
      }
    };
    const onListening = () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.headersTimeout = KEEP_ALIVE_MS + 1_000; // must exceed keepAliveTimeout
    server.listen(port, host);
  });
}

/**
 * A close for `server` that runs `before` (closing what rides on it: sockets, timers), stops
 * listening, drops open connections (keep-alive ones would hold the close for minutes), and
 * returns the same promise on every call.
 */
export function closerOf(server: Server, before: () => void = () => {}): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve) => {
      before();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
}
