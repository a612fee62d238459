import { describe, expect, it } from 'vitest';
import { seconds, settlesWithin, within } from '../../relay/time-limit';

const never = new Promise<never>(() => {});

describe('within', () => {
  it('settles like the work when the work is in time', async () => {
    await expect(within(Promise.resolve(42), 1_000, () => new Error('late'))).resolves.toBe(42);
    await expect(within(Promise.reject(new Error('own')), 1_000, () => new Error('late'))).rejects.toThrow('own');
  });

  it('rejects with the given error when the work never settles', async () => {
    await expect(within(never, 5, () => new Error('late'))).rejects.toThrow('late');
  });
});

describe('settlesWithin', () => {
  it('is true for work that fulfils, false for work that rejects or hangs', async () => {
    expect(await settlesWithin(Promise.resolve(), 1_000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('x')), 1_000)).toBe(false);
    expect(await settlesWithin(never, 5)).toBe(false);
  });
});

it('writes milliseconds as seconds with one decimal', () => {
  expect(seconds(600)).toBe('0.6 s');
  expect(seconds(5_000)).toBe('5 s');
});
