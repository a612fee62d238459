import { describe, expect, it, vi } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventFence } from '../../relay/cdp/event-fence';

describe('EventFence', () => {
  it('delivers at once when nothing is in flight', () => {
    const fence = new EventFence(100);
    const seen: string[] = [];
    fence.push(() => seen.push('e1'));
    expect(seen).toEqual(['e1']);
  });

  it('holds an event until the commands in flight when it arrived have answered, in order', () => {
    const fence = new EventFence(100);
    const seen: string[] = [];
    const a = fence.begin();
    const b = fence.begin();
    fence.push(() => seen.push('e1'));
    const c = fence.begin(); // sent after e1 arrived: e1 does not wait for it
    fence.push(() => seen.push('e2'));
    fence.end(b);
    expect(seen).toEqual([]);
    fence.end(a);
    expect(seen).toEqual(['e1']); // e2 waits for c
    fence.end(c);
    expect(seen).toEqual(['e1', 'e2']);
  });

  it('keeps later events behind a held one, even with nothing in flight', () => {
    const fence = new EventFence(100);
    const seen: string[] = [];
    const a = fence.begin();
    fence.push(() => seen.push('e1'));
    fence.push(() => seen.push('e2'));
    fence.end(a);
    fence.push(() => seen.push('e3'));
    expect(seen).toEqual(['e1', 'e2', 'e3']);
  });

  it('releases held events after the window, so a command that waits on an event cannot deadlock', () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const fence = new EventFence(100, () => now);
      const seen: string[] = [];
      fence.begin(); // never answers (a dialog is open)
      fence.push(() => seen.push('dialog'));
      now = 99;
      vi.advanceTimersByTime(99);
      expect(seen).toEqual([]);
      now = 100;
      vi.advanceTimersByTime(1);
      expect(seen).toEqual(['dialog']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('delivers what it holds when closed, then nothing more', () => {
    const fence = new EventFence(100);
    const seen: string[] = [];
    fence.begin();
    fence.push(() => seen.push('held'));
    fence.close();
    fence.push(() => seen.push('late'));
    expect(seen).toEqual(['held']);
  });
});

describe('EventFence under a flood', () => {
  it('lets a console line at the head go once its count wait behind it, the rest still in order', () => {
    const fence = new EventFence(60_000, () => 0, 2);
    const seen: string[] = [];
    const a = fence.begin(); // an evaluate whose console lines flood in before it answers
    for (const name of ['e1', 'e2', 'e3']) fence.push(() => seen.push(name), true);
    expect(seen).toEqual(['e1']);
    fence.push(() => seen.push('e4'), true);
    expect(seen).toEqual(['e1', 'e2']);
    fence.end(a);
    expect(seen).toEqual(['e1', 'e2', 'e3', 'e4']);
    fence.close();
  });

  it('keeps a target or context event at the head for its window, however many wait behind it', () => {
    const fence = new EventFence(60_000, () => 0, 2);
    const seen: string[] = [];
    const a = fence.begin();
    fence.push(() => seen.push('attached'), false);
    for (const name of ['c1', 'c2', 'c3', 'c4']) fence.push(() => seen.push(name), true);
    expect(seen).toEqual([]);
    fence.end(a);
    expect(seen).toEqual(['attached', 'c1', 'c2', 'c3', 'c4']);
    fence.close();
  });

  it('delivers thousands in order through a queue that never runs empty, and the rest after one that throws', () => {
    const failures: unknown[] = [];
    const fence = new EventFence(
      60_000,
      () => 0,
      1,
      (error) => failures.push(error),
    );
    const seen: number[] = [];
    const a = fence.begin();
    for (let i = 0; i < 3_000; i++)
      fence.push(() => {
        if (i === 1_500) throw new Error('a client went away');
        seen.push(i);
      }, true);
    expect(seen).toHaveLength(2_998); // all but the last, held, and the one that threw
    fence.end(a);
    expect(seen).toEqual(Array.from({ length: 3_000 }, (_, i) => i).filter((i) => i !== 1_500));
    expect(failures).toHaveLength(1);
    fence.close();
  });

  it('lets go of an event once delivered, while later ones are still held', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const fence = new EventFence(60_000, () => 0, 1);
    fence.begin();
    const seen: string[] = [];
    const first = pushHolding(fence, seen);
    fence.push(() => seen.push('e2'), true); // past the count: the first is delivered, this one stays held
    expect(seen).toEqual(['delivered']);
    await new Promise((resolve) => setImmediate(resolve)); // a WeakRef keeps its target to the job's end
    gc();
    expect(first.deref()).toBeUndefined();
    fence.close();
    expect(seen).toEqual(['delivered', 'e2']);
  });

  it('arms its timer again when it fires before the clock reaches the deadline', () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const fence = new EventFence(100, () => now);
      const seen: string[] = [];
      fence.begin(); // never answers
      fence.push(() => seen.push('e1'));
      now = 90; // the timer fires, the clock says 90
      vi.advanceTimersByTime(100);
      expect(seen).toEqual([]);
      now = 100;
      vi.advanceTimersByTime(10);
      expect(seen).toEqual(['e1']);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** Pushes an event whose delivery holds a payload; the WeakRef tells whether anything still reaches it. */
function pushHolding(fence: EventFence, seen: string[]): WeakRef<object> {
  const payload = { lines: Array.from({ length: 1000 }, () => 0) };
  fence.push(() => seen.push(payload.lines.length > 0 ? 'delivered' : 'empty'), true);
  return new WeakRef(payload);
}
