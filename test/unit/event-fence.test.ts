import { describe, expect, it, vi } from 'vitest';
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
