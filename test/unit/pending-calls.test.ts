import { describe, expect, it, vi } from 'vitest';
import { PendingCalls } from '../../relay/cdp/pending-calls';

describe('PendingCalls', () => {
  it('settles by id, once, synchronously and in the order answers arrive', () => {
    const calls = new PendingCalls<number>();
    const seen: string[] = [];
    const a = calls.create('A.a', 1_000, (error, value) => seen.push(error ? `A:${error.message}` : `A=${value}`));
    const b = calls.create('B.b', 1_000, (error, value) => seen.push(error ? `B:${error.message}` : `B=${value}`));
    expect(calls.resolve(b, 2)).toBe(true);
    expect(calls.resolve(a, 1)).toBe(true);
    expect(calls.resolve(a, 3)).toBe(false);
    expect(seen).toEqual(['B=2', 'A=1']);
    expect(calls.size).toBe(0);
  });

  it('offers a promise form', async () => {
    const calls = new PendingCalls<number>();
    const ok = calls.createPromise('A.a', 1_000);
    const bad = calls.createPromise('B.b', 1_000);
    calls.resolve(ok.id, 1);
    calls.reject(bad.id, new Error('no'));
    await expect(ok.promise).resolves.toBe(1);
    await expect(bad.promise).rejects.toThrow('no');
  });

  it('times out with an error naming the call', async () => {
    vi.useFakeTimers();
    try {
      const calls = new PendingCalls(() => Date.now());
      const { promise } = calls.createPromise('Page.printToPDF', 2_000);
      let settled = false;
      promise.catch(() => (settled = true));
      vi.advanceTimersByTime(1_900);
      await Promise.resolve();
      expect(settled).toBe(false);
      vi.advanceTimersByTime(350);
      await expect(promise).rejects.toMatchObject({
        code: 'command_timeout',
        message: 'Page.printToPDF got no answer within 2 s',
      });
      expect(calls.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('still times out a call made after the sweeper found nothing to do and stopped', async () => {
    vi.useFakeTimers();
    try {
      const calls = new PendingCalls(() => Date.now());
      const first = calls.create('A.a', 1_000, () => {});
      calls.resolve(first, undefined);
      vi.advanceTimersByTime(5_000); // idle: the sweeper stops itself
      expect(vi.getTimerCount()).toBe(0);
      const { promise } = calls.createPromise('B.b', 1_000);
      vi.advanceTimersByTime(1_300);
      await expect(promise).rejects.toMatchObject({ code: 'command_timeout' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails everything at once when the other side goes away', async () => {
    const calls = new PendingCalls();
    const a = calls.createPromise('A.a', 60_000);
    const b = calls.createPromise('B.b', 60_000);
    calls.rejectAll((label) => new Error(`${label} lost`));
    await expect(a.promise).rejects.toThrow('A.a lost');
    await expect(b.promise).rejects.toThrow('B.b lost');
    expect(calls.size).toBe(0);
  });
});
