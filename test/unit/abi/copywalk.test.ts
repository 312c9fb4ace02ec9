/**
 * Raw-ABI tests of copyWalk (assembly/copywalk.ts) on the scalar, SIMD and debug builds: known answers worked out
 * by hand — a copy with a word replaced, one with words inserted and dropped, a region an earlier copy covers, a
 * region no copy covers, a 4-gram holding a word the query lacks — as six i32 a region.
 */
import { describe, expect, it } from 'vitest';
import { copyWalkScratch } from '../../../src/align/copy-walk.js';
import type { Core } from '../../../src/core/abi.js';
import { BUILDS, coreOf } from './helpers.js';

/** Run the kernel on ids Q (word i at [2i, 2i + 1)) and S, regions as [start, end) pairs; returns [done, out]. */
function run(core: Core, Q: number[], S: number[], regions: Array<[number, number]>): [number, number[]] {
  const L = core.layout();
  const q = L.take(4 * Q.length),
    s = L.take(4 * S.length),
    st = L.take(4 * Q.length),
    en = L.take(4 * Q.length),
    reg = L.take(8 * regions.length),
    scratch = L.take(copyWalkScratch(S.length)),
    out = L.take(24 * regions.length);
  L.commit();
  const b = core.u8.buffer;
  new Int32Array(b, q, Q.length).set(Q);
  new Int32Array(b, s, S.length).set(S);
  new Uint32Array(b, st, Q.length).set(Q.map((_, i) => 2 * i));
  new Uint32Array(b, en, Q.length).set(Q.map((_, i) => 2 * i + 1));
  new Uint32Array(b, reg, 2 * regions.length).set(regions.flat());
  new Int32Array(b, out, 6 * regions.length).fill(-7);
  const done = core.raw.copyWalk(q, Q.length, s, S.length, st, en, reg, regions.length, scratch, out);
  return [done, Array.from(new Int32Array(core.u8.buffer, out, 6 * regions.length))];
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe.each(BUILDS)('copyWalk (%s)', (build) => {
  it('walks over a replaced word, and counts the words in shared runs of three', async () => {
    const core = await coreOf(build);
    // query 0..19 with word 10 replaced in the document (by -1: a word the query lacks), after 5 other words
    const S = [-1, -1, -1, -1, -1, ...range(0, 10), -1, ...range(11, 20), -1];
    expect(run(core, range(0, 20), S, [[0, 39]])).toEqual([1, [0, 20, 5, 25, 1, 19]]);
  });

  it('walks over two words inserted and three dropped', async () => {
    const core = await coreOf(build);
    const Q = range(0, 30);
    const S = [...range(0, 8), -1, -1, ...range(8, 17), ...range(20, 30)];
    // forward from 0: 8 agree, a gap (0, 2) with 3 agreeing after it, on to 17 = 20 after a gap (3, 0)
    expect(run(core, Q, S, [[0, 59]])).toEqual([1, [0, 30, 0, 29, 5, 27]]);
  });

  it('skips a region an earlier copy covers, and stops at a region no copy covers', async () => {
    const core = await coreOf(build);
    const Q = [...range(0, 12), 50, 51, 52, 53, 54];
    const S = range(0, 12).concat(-1);
    const [done, out] = run(core, Q, S, [
      [0, 9], // words 0–4: the copy of words 0–11
      [10, 21], // words 5–10: inside it
      [24, 33], // words 12–16: not in the document
    ]);
    expect(done).toBe(2);
    expect(out.slice(0, 12)).toEqual([0, 12, 0, 12, 0, 12, -1, -7, -7, -7, -7, -7]);
  });

  it('indexes no 4-gram that holds a word the query lacks, and reads no key outside the region', async () => {
    const core = await coreOf(build);
    // the only 4-gram of the document that the query holds runs into a −1
    expect(run(core, [0, 1, 2, 3], [0, 1, 2, -1], [[0, 7]])[0]).toBe(0);
    // the query's one 4-gram the document holds starts before the region (words 1–3): not a starting place
    expect(run(core, [0, 1, 2, 3, 4], [0, 1, 2, 3, 9], [[2, 7]])).toEqual([0, [-7, -7, -7, -7, -7, -7]]);
    // from word 0 the same walk covers the region [0, 7)
    expect(run(core, [0, 1, 2, 3, 4], [0, 1, 2, 3, 9], [[0, 7]])).toEqual([1, [0, 4, 0, 4, 0, 4]]);
  });
});
