// The memory of a whole process tree (a browser and its renderers, or everything a server
// launched), for the scale cases: resident size alone counts the pages a browser's processes
// share once per process, so this sums PSS (each shared page split among its users). Linux only.

import { readdirSync, readFileSync } from 'node:fs';

/** The pids below `root` (not `root` itself), from /proc's parent links. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields start after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The summed PSS of these processes in MB (a process that went meanwhile counts nothing). */
export function pssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/** Samples `measure` every `everyMs` until stopped; `peak` is the largest seen (stop takes one last sample). */
export function peakSampler(measure: () => number, everyMs = 1_000): { readonly peak: number; stop(): number } {
  let peak = measure();
  const timer = setInterval(() => (peak = Math.max(peak, measure())), everyMs);
  return {
    get peak() {
      return peak;
    },
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, measure());
      return peak;
    },
  };
}
