/** Raw-ABI tests of the sorted index kernels (radix sort, prefix table, lookups) on every build. */
import { describe, expect, it } from 'vitest';
import { BUILDS, coreOf } from './helpers.js';
import { prng } from '../../reference/core.js';
import { lookupAll, radixSort } from './helpers.js';

function randomKeys(seed: number, n: number, distinct: number): BigUint64Array {
  const rnd = prng(seed);
  const pool = Array.from(
    { length: distinct },
    () => (BigInt(Math.floor(rnd() * 2 ** 32)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32)),
  );
  return BigUint64Array.from({ length: n }, () => pool[Math.floor(rnd() * distinct)]);
}

describe.each(BUILDS)('sorted index (%s)', (build) => {
  it('radixCount, radixScatter and sortBuckets sort keys ascending and carry rows stably', async () => {
    const core = await coreOf(build);
    for (const [n, distinct] of [
      [0, 1],
      [1, 1],
      [2, 2],
      [17, 3],
      [1000, 50],
      [20000, 20000],
      [5000, 7],
    ]) {
      const keys = randomKeys(n + distinct, n, distinct);
      const sorted = radixSort(core, keys, 333);
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
        keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b,
      );
      expect(Array.from(sorted.rows)).toEqual(order);
      expect(Array.from(sorted.keys)).toEqual(order.map((i) => keys[i]));
    }
  });

  it('lookupSorted finds every run of equal keys and nothing else', async () => {
    const core = await coreOf(build);
    for (const [n, bits] of [
      [0, 4],
      [1, 4],
      [3000, 8],
      [3000, 12],
      [50000, 14],
    ]) {
      const keys = randomKeys(n * 7 + bits, n, Math.max(1, n >> 2)).sort();
      const queries = BigUint64Array.from([
        ...randomKeys(5, 500, 1000),
        ...keys.slice(0, 500),
        0n,
        0xffff_ffff_ffff_ffffn,
      ]);
      const m = queries.length;
      const { out: res, found } = lookupAll(core, keys, bits, queries);
      let want = 0;
      for (let i = 0; i < m; i++) {
        const first = keys.indexOf(queries[i]);
        const count = keys.filter((x) => x === queries[i]).length;
        if (count) want++;
        expect(res[2 * i + 1], `query ${i}`).toBe(count);
        if (count) expect(res[2 * i]).toBe(first);
      }
      expect(found).toBe(want);
    }
  });
});
