// Playwright traces of a profile's browser context, started and stopped by agent calls: while
// one runs, each agent call is a named group in it ("click e12 button \"Save\""), so the trace
// viewer shows what the agent did beside the DOM snapshots, network and console Playwright
// records. One per profile; dropped if its browser goes. Groups are a stack in Playwright's
// trace, shared by the whole context: a call made while another is in its group opens none of its
// own (it would close the other's), and Playwright files its actions under the open one.

import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';

/** Starting or saving a trace (a zip of every snapshot and screenshot) may take a while on a big page. */
const TRACE_MS = 60_000;

interface Running {
  context: BrowserContext;
  targetId: string;
  actions: number;
  onClose: () => void;
  /** Held from the start call on, so two calls at once cannot both begin or both end it. */
  state: 'starting' | 'running' | 'stopping';
  /** A call's group is open. */
  grouped: boolean;
}

export class Traces {
  readonly #running = new Map<string, Running>();

  constructor(private readonly dir: string) {}

  async start(
    profile: string,
    context: BrowserContext,
    targetId: string,
    options: { screenshots: boolean; snapshots: boolean },
  ): Promise<void> {
    const running = this.#running.get(profile);
    if (running)
      throw new ClawdError(
        'trace_running',
        `a trace of profile ${profile} is ${running.state === 'running' ? 'already running' : running.state} (on tab ${running.targetId}): stop it first (trace stop)`,
      );
    // Taken before any wait, so a second start at the same moment is refused, not raced.
    const onClose = () => this.#running.delete(profile);
    const entry: Running = { context, targetId, actions: 0, onClose, state: 'starting', grouped: false };
    this.#running.set(profile, entry);
    try {
      await within(
        context.tracing.start({ ...options, title: `clawd ${profile} ${targetId}` }),
        TRACE_MS,
        () => new ClawdError('command_timeout', `the trace did not start within ${seconds(TRACE_MS)}`),
      );
    } catch (error) {
      // Whatever Playwright began is ended, so the next start is not refused by a trace nobody holds.
      await context.tracing.stop().catch(() => {});
      this.#running.delete(profile);
      throw error;
    }
    entry.state = 'running';
    context.once('close', onClose);
  }

  async stop(profile: string): Promise<{ targetId: string; path: string; bytes: number; actions: number }> {
    const running = this.#running.get(profile);
    if (!running || running.state !== 'running')
      throw new ClawdError(
        'no_trace',
        running
          ? `the trace of profile ${profile} is ${running.state}: try again in a moment`
          : `no trace of profile ${profile} is running: start one first (trace start)`,
      );
    running.state = 'stopping';
    running.context.off('close', running.onClose);
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const file = path.join(this.dir, `${profile}-${new Date().toISOString().replace(/[:.]/g, '-')}.zip`);
      await within(
        running.context.tracing.stop({ path: file }),
        TRACE_MS,
        () => new ClawdError('command_timeout', `the trace was not saved within ${seconds(TRACE_MS)}`),
      );
      await chmod(file, 0o600);
      return { targetId: running.targetId, path: file, bytes: (await stat(file)).size, actions: running.actions };
    } catch (error) {
      // Not saved: tracing is ended anyway, so the profile can be traced again.
      await running.context.tracing.stop().catch(() => {});
      throw error;
    } finally {
      this.#running.delete(profile);
    }
  }

  /** Runs one agent call, named as a group in the profile's trace when one is running. */
  async around<T>(profile: string, label: () => string, work: () => Promise<T>): Promise<T> {
    const running = this.#running.get(profile);
    if (running?.state !== 'running' || running.grouped) return work();
    const tracing = running.context.tracing;
    running.grouped = true;
    const opened = await tracing.group(label()).then(
      () => true,
      () => false,
    );
    if (opened) running.actions++;
    else running.grouped = false;
    try {
      return await work();
    } finally {
      // Only while the same trace runs: a trace stopped and started again meanwhile has groups of its own.
      if (opened && this.#running.get(profile) === running) {
        await tracing.groupEnd().catch(() => {});
        running.grouped = false;
      }
    }
  }

  /** Stops every running trace without saving (the server is closing). */
  async close(): Promise<void> {
    const running = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(running.map((r) => r.context.tracing.stop().catch(() => {})));
  }
}
