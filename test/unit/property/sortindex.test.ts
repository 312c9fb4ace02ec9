/**
 * The sorted-index kernels (prefix table, presence filter, grouped lookups) of both builds against the
 * plain-TS references, on seeded random keys: sizes across the lookup group (32 queries), prefix tables
 * from much sparser to much denser than the index and filters from none or one word to more words than
 * keys, with runs of equal keys and keys at the extremes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../../src/core/abi.js';
import { compileCore, type CoreVariant } from '../../../src/core/load.js';
import { filterRef, foundQueriesRef, lookupSortedRef, prefixRef, prng, sortPairsRef } from '../../reference/core.js';
import { lookupAll, radixSort } from '../abi/helpers.js';

const VARIANTS: CoreVariant[] = ['scalar', 'simd'];
const cores = new Map<CoreVariant, Core>();

beforeAll(async () => {
  for (const v of VARIANTS) cores.set(v, await Core.create(await compileCore(v)));
});

/** `n` random keys drawn from `distinct` values (so some repeat), plus the extremes now and then. */
function randomKeys(seed: number, n: number, distinct: number): bigint[] {
  const rnd = prng(seed);
  const word = () => BigInt(Math.floor(rnd() * 2 ** 32));
  const pool = Array.from({ length: Math.max(1, distinct) }, () => (word() << 32n) | word());
  if (distinct > 4) pool.push(0n, 0xffff_ffff_ffff_ffffn);
  return Array.from({ length: n }, () => pool[Math.floor(rnd() * pool.length)]);
}

describe.each(VARIANTS)('sorted index kernels (%s)', (variant) => {
  it('buildPrefix and lookupSorted agree with the references', () => {
    const core = cores.get(variant)!;
    for (let seed = 1; seed <= 24; seed++) {
      const rnd = prng(seed * 7919);
      const n = [0, 1, 2, 31, 32, 33, 500, 4000][seed % 8];
      const bits = 4 + Math.floor(rnd() * 11);
      const sorted = randomKeys(seed, n, Math.ceil(n * rnd())).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const queries = [...randomKeys(seed + 1000, 40, 60), ...sorted.filter(() => rnd() < 0.05)];
      const m = queries.length;
      // the dataset's size (one word per 8 keys), none, one word, or more words than keys
      const words = [Math.ceil(n / 8), 0, 1, 2 * n + 3][seed % 4];
      const { prefix, filter, out: got, found } = lookupAll(core, sorted, bits, queries, words);
      expect(Array.from(prefix), `prefix, seed ${seed}`).toEqual(prefixRef(sorted, bits));
      expect(Array.from(filter), `filter, seed ${seed}`).toEqual(filterRef(sorted, words));
      const want = lookupSortedRef(sorted, queries);
      for (let i = 0; i < m; i++) {
        expect(got[2 * i + 1], `count of query ${i}, seed ${seed}`).toBe(want[i][1]);
        expect(got[2 * i], `first of query ${i}, seed ${seed}`).toBe(want[i][1] > 0 ? want[i][0] : 0);
      }
      expect(found).toBe(want.filter(([, c]) => c > 0).length);
    }
  });

  it('foundQueries lists what the reference lists: runs of absent pairs, found ones at every place of a run of four', () => {
    const core = cores.get(variant)!;
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = prng(seed * 6007);
      const m = [0, 1, 3, 4, 5, 7, 8, 9, 64, 1000][seed % 10] + (seed > 20 ? Math.floor(rnd() * 40) : 0);
      const share = [0, 0.001, 0.05, 0.5, 1][seed % 5];
      const pairs = new Uint32Array(2 * m);
      for (let i = 0; i < m; i++) {
        if (rnd() >= share) continue;
        // a found query's first posting may be 0; its count never is (and may be large)
        pairs[2 * i] = rnd() < 0.3 ? 0 : Math.floor(rnd() * 2 ** 32);
        pairs[2 * i + 1] = rnd() < 0.1 ? 2 ** 32 - 1 : 1 + Math.floor(rnd() * 5);
      }
      const L = core.layout();
      const outPtr = L.take(Math.max(8 * m, 8));
      const listPtr = L.take(Math.max(4 * m, 4));
      L.commit();
      core.u32(outPtr, 2 * m).set(pairs);
      const listed = core.raw.foundQueries(outPtr, m, listPtr);
      expect(Array.from(core.u32(listPtr, listed)), `seed ${seed}`).toEqual(foundQueriesRef(pairs));
    }
  });

  it("foundQueries of lookupSorted's answers are the queries it found", () => {
    const core = cores.get(variant)!;
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = prng(seed * 4409);
      const n = [0, 1, 33, 500, 4000][seed % 5];
      const sorted = randomKeys(seed, n, Math.ceil(n * rnd())).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const queries = [...randomKeys(seed + 77, 90, 120), ...sorted.filter(() => rnd() < 0.05)];
      const { out, found } = lookupAll(core, sorted, 8, queries);
      const want = lookupSortedRef(sorted, queries).flatMap(([, c], i) => (c > 0 ? [i] : []));
      const L = core.layout();
      const outPtr = L.take(out.length * 4);
      const listPtr = L.take(queries.length * 4);
      L.commit();
      core.u32(outPtr, out.length).set(out);
      const listed = core.raw.foundQueries(outPtr, queries.length, listPtr);
      expect(listed, `seed ${seed}`).toBe(found);
      expect(Array.from(core.u32(listPtr, listed)), `seed ${seed}`).toEqual(want);
    }
  });
});

describe.each(VARIANTS)('sorted index sort (%s)', (variant) => {
  it('the radix sort kernels agree with a stable sort by key, whatever the chunking', () => {
    const core = cores.get(variant)!;
    for (let seed = 1; seed <= 16; seed++) {
      const rnd = prng(seed * 104729);
      const n = Math.floor(rnd() * 6000);
      // few distinct values: long runs of equal keys, whose rows must stay in order
      const keys = randomKeys(seed, n, rnd() < 0.3 ? 1 + Math.floor(rnd() * 8) : n);
      // keys sharing their top 11 bits land in one bucket: make some buckets large, with keys that differ
      // only in their low 42 bits in some
      if (seed % 4 === 0) for (let i = 0; i < n; i += 2) keys[i] &= 0x001f_ffff_ffff_ffffn;
      if (seed % 4 === 2) for (let i = 0; i < n; i += 2) keys[i] &= 0x0000_03ff_ffff_ffffn;
      const want = sortPairsRef(
        keys,
        keys.map((_, i) => i),
      );
      const cols = seed % 3 === 0 ? 2 : 3; // two payload columns (packed spans) or three
      const got = radixSort(core, BigUint64Array.from(keys), 1 + Math.floor(rnd() * 2000), cols);
      expect(Array.from(got.keys), `seed ${seed}`).toEqual(want.keys);
      expect(Array.from(got.rows), `seed ${seed}`).toEqual(want.vals);
      expect(Array.from(got.b), `seed ${seed}`).toEqual(want.vals.map((r) => r * 3));
      if (cols === 3) expect(Array.from(got.c), `seed ${seed}`).toEqual(want.vals.map((r) => ~r >>> 0));
      else
        expect(
          got.c.every((x) => x === 0),
          `seed ${seed}: the third column untouched`,
        ).toBe(true);
    }
  });
});
