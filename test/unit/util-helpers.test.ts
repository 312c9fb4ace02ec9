/**
 * The small helpers the library shares (src/util): `sleep` (the retry waits of the remote transport, the model
 * adapter and the TypeScript client), `mapLimit` (bounded concurrency of the memorization and remote calls) and
 * `positiveInt` (an integer option, checked one way).
 */
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import { mapLimit, spreadOrder } from '../../src/util/pool.js';
import { sleep } from '../../src/util/timers.js';
import { positiveInt } from '../../src/util/validate.js';

describe('sleep', () => {
  it('resolves after the wait', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });

  it("rejects at once with the signal's reason, or the caller's error, when aborted before or during the wait", async () => {
    const before = new AbortController();
    before.abort(new Error('gone'));
    await expect(sleep(60_000, before.signal)).rejects.toThrow('gone');
    const during = new AbortController();
    const waiting = sleep(60_000, during.signal, () => new TrainprintError('INVALID_INPUT', 'cancelled'));
    during.abort();
    await expect(waiting).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('cancelled'),
    });
  });
});

describe('spreadOrder', () => {
  it("is a permutation whose every prefix of m leaves no gap over 4n/m, the text's end included", () => {
    expect(spreadOrder(8)).toEqual([0, 4, 2, 6, 1, 5, 3, 7]);
    expect(spreadOrder(0)).toEqual([]);
    expect(spreadOrder(1)).toEqual([0]);
    for (const n of [2, 3, 5, 17, 100, 179, 1000]) {
      const order = spreadOrder(n);
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
      for (let m = 1; m <= n; m++) {
        const taken = order.slice(0, m).sort((a, b) => a - b);
        const gaps = [taken[0], ...taken.slice(1).map((x, i) => x - taken[i]), n - taken[m - 1]];
        expect(Math.max(...gaps)).toBeLessThanOrEqual(Math.ceil((4 * n) / m));
      }
    }
  });
});

describe('mapLimit', () => {
  it('keeps input order and never more than `limit` calls in flight', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 2], 3, async (n, i) => {
      most = Math.max(most, ++running);
      await sleep(n);
      running--;
      return n * 10 + i;
    });
    expect(out).toEqual([50, 11, 42, 23, 34, 5, 26]);
    expect(most).toBe(3);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });

  it('rejects with the first failure and starts no call after it', async () => {
    const started: number[] = [];
    const run = mapLimit([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('boom');
      await sleep(5);
      return n;
    });
    await expect(run).rejects.toThrow('boom');
    await sleep(30);
    expect(started).toEqual([0, 1]);
  });
});

describe('positiveInt', () => {
  it('takes the fallback when not given, and an integer in 1..max', () => {
    expect(positiveInt('n', undefined, 7)).toBe(7);
    expect(positiveInt('n', 1, 7, 10)).toBe(1);
    expect(positiveInt('n', 10, 7, 10)).toBe(10);
  });

  it('takes any safe positive integer without a max', () => {
    expect(positiveInt('maxDatasetBodyBytes', 4 * 1024 ** 3, 1)).toBe(4 * 1024 ** 3);
    expect(() => positiveInt('maxBodyBytes', 0, 1)).toThrow('maxBodyBytes must be a positive integer, got 0');
  });

  it('refuses anything else as INVALID_OPTIONS naming the option, its range and the value', () => {
    for (const bad of [0, -1, 1.5, 11, Number.NaN])
      expect(() => positiveInt('leaseSeconds', bad, 7, 10)).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTIONS',
          message: expect.stringContaining(`leaseSeconds must be an integer in 1..10, got ${bad}`),
        }),
      );
  });
});
