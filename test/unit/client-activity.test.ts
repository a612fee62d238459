import { describe, expect, it } from 'vitest';
import { ClientActivity } from '../../relay/control/client-activity';

describe('ClientActivity', () => {
  it('keeps when the last client left, though it came and went between two looks', () => {
    const activity = new ClientActivity();
    expect(activity.use).toEqual({ count: 0, lastLeftAt: undefined });
    const first = activity.begin();
    const second = activity.begin();
    expect(activity.use).toEqual({ count: 2, lastLeftAt: undefined });
    first();
    first(); // once only
    expect(activity.use).toEqual({ count: 1, lastLeftAt: undefined });
    const before = Date.now();
    second();
    const { count, lastLeftAt } = activity.use;
    expect(count).toBe(0);
    expect(lastLeftAt).toBeGreaterThanOrEqual(before);
  });
});
