// Agent calls as named groups of a running trace: Playwright's groups are a stack, so a call made
// while another's group is open runs ungrouped (neither nested in it nor waiting for it).

import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { Traces } from '../../relay/agent/network/traces';
import { quiet } from '../helpers/waits';

/** A context whose tracing records the calls made to it, in order. */
function recordingContext(calls: string[]): BrowserContext {
  const tracing = {
    start: async () => void calls.push('start'),
    stop: async () => void calls.push('stop'),
    group: async (name: string) => void calls.push(`group ${name}`),
    groupEnd: async () => void calls.push('groupEnd'),
  };
  return { tracing, once: () => {}, off: () => {} } as unknown as BrowserContext;
}

describe('calls in a trace', () => {
  it('names one call at a time; a call made meanwhile runs too, ungrouped', async () => {
    const calls: string[] = [];
    const traces = new Traces('/nonexistent');
    await traces.start('clawd', recordingContext(calls), 'T1', { screenshots: false, snapshots: false });
    let release!: () => void;
    const slow = traces.around(
      'clawd',
      () => 'click e1',
      () => new Promise<string>((resolve) => (release = () => resolve('slow'))),
    );
    await quiet(10); // the slow call is under way
    const quick = await traces.around(
      'clawd',
      () => 'snapshot',
      async () => 'quick',
    );
    release();
    expect([await slow, quick]).toEqual(['slow', 'quick']);
    expect(
      await traces.around(
        'clawd',
        () => 'navigate',
        async () => 'next',
      ),
    ).toBe('next');
    expect(calls).toEqual(['start', 'group click e1', 'groupEnd', 'group navigate', 'groupEnd']);
  });

  it('does not close a group of a trace started after the call began', async () => {
    const calls: string[] = [];
    const traces = new Traces('/nonexistent');
    const context = recordingContext(calls);
    await traces.start('clawd', context, 'T1', { screenshots: false, snapshots: false });
    let release!: () => void;
    const slow = traces.around(
      'clawd',
      () => 'click e1',
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    await quiet(10); // the slow call is under way
    await traces.stop('clawd').catch(() => {}); // saving fails here (no such folder): tracing ends anyway
    await traces.start('clawd', context, 'T1', { screenshots: false, snapshots: false });
    release();
    await slow;
    expect(calls.slice(calls.lastIndexOf('start'))).toEqual(['start']);
  });

  it('runs calls as they are when no trace is running', async () => {
    expect(
      await new Traces('/nonexistent').around(
        'clawd',
        () => 'click e1',
        async () => 7,
      ),
    ).toBe(7);
  });
});
