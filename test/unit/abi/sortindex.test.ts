/** Raw-ABI tests of the sorted index kernels (radix sort, prefix table, presence filter, lookups) on every build. */
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

  it('foundQueries lists the queries whose count is not 0, across runs of absent ones and at the end', async () => {
    const core = await coreOf(build);
    // 16 queries, found at 0 (first posting 0), 4 (the last of four from 1), 7 (a count of 2^32 − 1), 9 and 15
    const pairs = new Array(32).fill(0);
    for (const [i, first, count] of [
      [0, 0, 3],
      [4, 7, 1],
      [7, 0, 0xffff_ffff],
      [9, 2, 1],
      [15, 9, 2],
    ])
      pairs.splice(2 * i, 2, first, count);
    const L = core.layout();
    const outPtr = L.take(pairs.length * 4);
    const listPtr = L.take(128);
    L.commit();
    core.u32(outPtr, pairs.length).set(pairs);
    core.u32(listPtr, 32).fill(0xdead);
    expect(core.raw.foundQueries(outPtr, 16, listPtr)).toBe(5);
    expect(Array.from(core.u32(listPtr, 6))).toEqual([0, 4, 7, 9, 15, 0xdead]);
    expect(core.raw.foundQueries(outPtr, 15, listPtr)).toBe(4);
    expect(core.raw.foundQueries(outPtr, 0, listPtr)).toBe(0);
    // with a lookup: every present key's query, none of the absent ones
    const keys = BigUint64Array.from([5n, 9n, 9n, 40n]);
    const { out } = lookupAll(core, keys, 4, [1n, 9n, 2n, 3n, 4n, 6n, 40n, 41n]);
    core.u32(outPtr, out.length).set(out);
    expect(core.raw.foundQueries(outPtr, 8, listPtr)).toBe(2);
    expect(Array.from(core.u32(listPtr, 2))).toEqual([1, 6]);
  });

  it('buildFilter sets the known bits: the word of the top 32 bits, three bits of the key times 0x9e3779b97f4a7c15', async () => {
    const core = await coreOf(build);
    // 0x0123456789abcdef: word 0 of 4, bits 3, 9, 14; 0xfedcba9876543210: word 3, bits 21, 19, 19 (two coincide)
    const { filter, found } = lookupAll(core, [0x0123_4567_89ab_cdefn, 0xfedc_ba98_7654_3210n], 4, [], 4);
    expect(Array.from(filter)).toEqual([0x4208n, 0n, 0n, 0x28_0000n]);
    expect(found).toBe(0);
  });

  it('the presence filter misses no key and passes few absent ones (one word per 8 keys)', async () => {
    const core = await coreOf(build);
    const n = 40_000;
    const keys = randomKeys(77, n, n).sort();
    const absent = randomKeys(78, 20_000, 20_000).filter((q) => keys.indexOf(q) < 0);
    const { filter } = lookupAll(core, keys, 12, [], Math.ceil(n / 8));
    const words = BigInt(filter.length);
    const passes = (k: bigint) => {
      const h = (k * 0x9e37_79b9_7f4a_7c15n) & 0xffff_ffff_ffff_ffffn;
      const mask = (1n << (h >> 58n)) | (1n << ((h >> 52n) & 63n)) | (1n << ((h >> 46n) & 63n));
      return (filter[Number(((k >> 32n) * words) >> 32n)] & mask) === mask;
    };
    expect(keys.every(passes)).toBe(true);
    const rate = absent.filter(passes).length / absent.length;
    // a word-blocked Bloom filter of 8 bits a key, 3 bits set a key, passes ≈ 3.7 % of absent uniform keys
    expect(rate).toBeGreaterThan(0.01);
    expect(rate).toBeLessThan(0.1);
  });
});
