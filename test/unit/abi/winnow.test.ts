/**
 * Winnowing (assembly/winnow.ts: winnow) in the scalar, SIMD and debug builds against the plain reference
 * (test/reference/core.ts: winnowRef), with ties where the rule matters: hashes drawn from a few values (an equal
 * minimum arriving while the earlier one is still in the window keeps the earlier one; a rescan takes the rightmost),
 * equal minima exactly w − 1, w and w + 1 apart, runs of one value, sequences sorted up and down, and the edges of the
 * unsigned order (0, 2^63 − 1, 2^63, 2^64 − 1). The default window 8 has a path of its own, so it is drawn as often as
 * the others together.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { prng, winnowRef } from '../../reference/core.js';
import { minhashOphRef, simhash64Ref } from '../../reference/sketch.js';
import { BUILDS, coreOf } from './helpers.js';

const EDGES = [0n, 1n, (1n << 63n) - 1n, 1n << 63n, (1n << 64n) - 1n];

/** winnow(hashes, w) in `core`: the selected positions. */
function winnowOf(core: Core, hashes: readonly bigint[], w: number): number[] {
  const L = core.layout();
  const h = L.take(hashes.length * 8 + 8);
  const out = L.take(hashes.length * 4 + 4);
  L.commit();
  core.u64(h, hashes.length).set(hashes);
  const n = core.raw.winnow(h, hashes.length, w, out);
  return Array.from(core.u32(out, n));
}

/**
 * winnowOphSimhash(hashes, w) in `core` (assembly/sketches.ts): the selected positions, the OPH signature at k = 128
 * and the SimHash of one pass over pieces of the hashes.
 */
function winnowSketchesOf(
  core: Core,
  hashes: readonly bigint[],
  w: number,
  seed: bigint,
): { positions: number[]; minhash: number[]; simhash: bigint } {
  const L = core.layout();
  const h = L.take(hashes.length * 8 + 8);
  const out = L.take(hashes.length * 4 + 4);
  const sig = L.take(128 * 4);
  L.commit();
  core.u64(h, hashes.length).set(hashes);
  const n = core.raw.winnowOphSimhash(h, hashes.length, w, out, seed, sig);
  return {
    positions: Array.from(core.u32(out, n)),
    minhash: Array.from(core.u32(sig, 128)),
    simhash: BigInt.asUintN(64, core.raw.ophSimhashSecond()),
  };
}

/** A sequence of `count` hashes of one of several shapes, drawn by `rand`. */
function sequence(rand: () => number, count: number, w: number): bigint[] {
  const big = () => (BigInt(Math.floor(rand() * 2 ** 32)) << 32n) | BigInt(Math.floor(rand() * 2 ** 32));
  const shape = Math.floor(rand() * 6);
  const few = Array.from({ length: 1 + Math.floor(rand() * 4) }, () =>
    rand() < 0.3 ? EDGES[Math.floor(rand() * 5)] : big(),
  );
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    if (shape === 0) out.push(big());
    else if (shape === 1) out.push(few[Math.floor(rand() * few.length)]);
    else if (shape === 2) out.push(i % w === 0 || i % (w + 1) === 0 || i % (w - 1 || 1) === 0 ? 5n : 9n + BigInt(i));
    else if (shape === 3) out.push(rand() < 0.5 ? EDGES[Math.floor(rand() * 5)] : big());
    else if (shape === 4) out.push(BigInt(rand() < 0.5 ? i : count - i) * 0x1_0000_0001n);
    else out.push(rand() < 0.2 ? 3n : big()); // an equal small value now and then, at any distance
  }
  return out;
}

describe.each(BUILDS)('winnow ABI (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
  });

  it('selects what the reference selects, ties included', () => {
    const rand = prng(0x77_1a);
    for (let c = 0; c < 1200; c++) {
      const w = rand() < 0.5 ? 8 : [1, 2, 3, 7, 9, 16, 33][Math.floor(rand() * 7)];
      const count = rand() < 0.1 ? Math.floor(rand() * (w + 2)) : Math.floor(rand() * 400);
      const hashes = sequence(rand, count, w);
      expect(winnowOf(core, hashes, w), `case ${c}: w ${w}, ${count} hashes`).toEqual(winnowRef(hashes, w));
    }
  });

  it('keeps the earlier of equal minima while it is in the window, then takes the rightmost', () => {
    // 1 at 7, 9 and 11: windows [0, 7] to [7, 14] keep 7; [8, 15] rescans and takes 11 (rightmost), not 9
    const h = Array.from({ length: 20 }, (_, i) => (i === 7 || i === 9 || i === 11 ? 1n : 9n));
    expect(winnowOf(core, h, 8)).toEqual([7, 11, 19]);
    expect(winnowRef(h, 8)).toEqual([7, 11, 19]);
    // the same value everywhere: each selection is kept for its whole window, then the window's last position
    const flat = Array.from({ length: 40 }, () => 7n);
    expect(winnowOf(core, flat, 8)).toEqual(winnowRef(flat, 8));
    expect(winnowOf(core, flat, 8)).toEqual([7, 15, 23, 31, 39]);
  });

  it('takes the whole sequence as one window when it is shorter than w, and nothing when empty or w is 0', () => {
    expect(winnowOf(core, [5n, 3n, 3n, 8n], 8)).toEqual([2]);
    expect(winnowOf(core, [], 8)).toEqual([]);
    expect(winnowOf(core, [5n, 3n], 0)).toEqual([]);
    expect(winnowOf(core, [(1n << 64n) - 1n, 1n << 63n, (1n << 63n) - 1n], 2)).toEqual([1, 2]);
  });

  it('winnowOphSimhash: the selections of winnow, the signature and SimHash of ophSimhash, across its pieces', () => {
    const rand = prng(0x5e_7c);
    // the core's pieces are 8,192 hashes: counts on both sides of one and two boundaries, a selection carried across
    const counts = [0, 1, 5, 8, 9, 300, 8191, 8192, 8193, 8199, 8200, 16_383, 16_385, 20_001];
    for (let c = 0; c < counts.length * 2; c++) {
      const count = counts[c % counts.length];
      const w = c < counts.length ? 8 : [1, 2, 3, 7, 9, 16, 33][c % 7];
      const hashes = sequence(rand, count, w);
      const seed = BigInt(Math.floor(rand() * 1000));
      const at = `case ${c}: w ${w}, ${count} hashes`;
      const got = winnowSketchesOf(core, hashes, w, seed);
      expect(got.positions, at).toEqual(winnowRef(hashes, w));
      expect(got.minhash, at).toEqual(Array.from(minhashOphRef(hashes, 128, seed)));
      expect(got.simhash, at).toBe(simhash64Ref(hashes));
    }
  });
});
