/**
 * The word shingles and the content id in one pass (`shingleTokensAndId`) against the plain-TS reference and against
 * the two kernels it stands for (`shingleTokens`, `xxh64Pair`), on both builds: random token hashes at every size
 * around the pass's four-token step and at sizes up to 100,001, with repeated and all-equal hashes among them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../../src/core/abi.js';
import { compileCore, type CoreVariant } from '../../../src/core/load.js';
import { shinglesAndIdRef } from '../../reference/core.js';
import { Rng } from '../../reference/sketch.js';

const VARIANTS: CoreVariant[] = ['scalar', 'simd'];
const SIZES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 31, 32, 33, 1000, 1001, 1002, 1003, 100_001];
const ID_SEEDS: [bigint, bigint] = [0x7470_0001n, 0x7470_0002n];
const cores = new Map<CoreVariant, Core>();

beforeAll(async () => {
  for (const v of VARIANTS) cores.set(v, await Core.create(await compileCore(v)));
});

/** `n` token hashes of one of three kinds: random, drawn from a few values (repeated n-grams), or all equal. */
function tokenHashes(rng: Rng, n: number, kind: number): BigUint64Array {
  if (kind === 0) return rng.hashes(n);
  const few = rng.hashes(kind === 1 ? 3 : 1);
  return BigUint64Array.from({ length: n }, () => few[rng.int(few.length)]);
}

describe('shingleTokensAndId', () => {
  it('equals the reference and shingleTokens + xxh64Pair on both builds, n 1..9, sizes 0..100,001', () => {
    const rng = new Rng(83);
    SIZES.forEach((count, i) => {
      const tokens = tokenHashes(rng, count, i % 3);
      const n = count > 1000 ? 5 : 1 + (i % 9);
      const seed = rng.u64();
      const want = shinglesAndIdRef(Array.from(tokens), n, seed, ID_SEEDS);
      for (const v of VARIANTS) {
        const core = cores.get(v)!;
        const L = core.layout();
        const p = L.take(count * 8 + 8);
        const out = L.take(count * 8 + 8);
        const apart = L.take(count * 8 + 8);
        const idPtr = L.take(16);
        L.commit();
        core.u64(p, count).set(tokens);
        const at = `${v} n=${n} count=${count}`;
        const m = core.raw.shingleTokensAndId(p, count, n, seed, out, ID_SEEDS[0], ID_SEEDS[1], idPtr);
        expect(m, at).toBe(want.shingles.length);
        expect(Array.from(core.u64(out, m)), at).toEqual(want.shingles);
        expect(Array.from(core.u64(idPtr, 2)), at).toEqual(want.id);
        // the two kernels it stands for, on the same core
        expect(core.raw.shingleTokens(p, count, n, seed, apart), at).toBe(m);
        expect(core.u64(apart, m), at).toEqual(core.u64(out, m));
        const idA = BigInt.asUintN(64, core.raw.xxh64Pair(p, count * 8, ID_SEEDS[0], ID_SEEDS[1]));
        expect([idA, BigInt.asUintN(64, core.raw.xxh64PairSecond())], at).toEqual(want.id);
      }
    });
  });
});
