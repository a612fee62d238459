// Is a TCP port free on loopback, and which port of a range to give a new profile.

import net from 'node:net';
import { LOOPBACK_HOST } from '../../shared/defaults';

export function isPortFree(port: number, host: string = LOOPBACK_HOST): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The first port of the range that no profile holds and nothing listens on. Ports are given once
 * and kept, so a port another program happens to use at creation time is simply skipped.
 */
export async function firstFreePort(
  range: { from: number; to: number },
  taken: Set<number>,
  reserved: Set<number>,
): Promise<number | undefined> {
  for (let port = range.from; port <= range.to; port++) {
    if (taken.has(port) || reserved.has(port)) continue;
    if (await isPortFree(port)) return port;
  }
  return undefined;
}

/** `CLAWD_CDP_PORTS=19000-19099` overrides the managed port range (tests pick free ranges). */
export function portRangeFromEnv(env: NodeJS.ProcessEnv = process.env): { from: number; to: number } | undefined {
  const match = env.CLAWD_CDP_PORTS?.match(/^(\d+)-(\d+)$/);
  if (!match) return undefined;
  const [from, to] = [Number(match[1]), Number(match[2])];
  return from >= 1 && to <= 65535 && from <= to ? { from, to } : undefined;
}
