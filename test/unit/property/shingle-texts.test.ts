/**
 * The word shingles of several texts' tokens in one call (`shingleTexts`) against the plain-TS reference
 * (`shingleTextsRef`: each text's `shinglesRef`, one after another) on both builds: batches of random texts with no
 * tokens, fewer than n, exactly n and many, at n 1..9, with repeated hashes among them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../../src/core/abi.js';
import { compileCore, type CoreVariant } from '../../../src/core/load.js';
import { shingleTextsRef } from '../../reference/core.js';
import { Rng } from '../../reference/sketch.js';

const VARIANTS: CoreVariant[] = ['scalar', 'simd'];
const cores = new Map<CoreVariant, Core>();

beforeAll(async () => {
  for (const v of VARIANTS) cores.set(v, await Core.create(await compileCore(v)));
});

describe('shingleTexts', () => {
  it('equals the reference on both builds: 300 batches of 0..70 texts of 0..400 tokens, n 1..9', () => {
    const rng = new Rng(211);
    for (let round = 0; round < 300; round++) {
      const n = 1 + (round % 9);
      const texts = rng.int(71);
      // a text's tokens: none, fewer than n, n, or many (the batches' texts lie one after another)
      const counts = Array.from({ length: texts }, () => [0, rng.int(n), n, rng.int(400)][rng.int(4)]);
      const first = [0];
      for (const c of counts) first.push(first[first.length - 1] + c);
      const total = first[texts];
      const few = rng.hashes(3);
      const tokens =
        round % 5 === 0 ? BigUint64Array.from({ length: total }, () => few[rng.int(3)]) : rng.hashes(total);
      const seed = rng.u64();
      const want = shingleTextsRef(Array.from(tokens), first, n, seed);
      for (const v of VARIANTS) {
        const core = cores.get(v)!;
        const L = core.layout();
        const tokPtr = L.take(total * 8 + 8);
        const firstPtr = L.take(first.length * 4);
        const outPtr = L.take(total * 8 + 16);
        const fromPtr = L.take(first.length * 4);
        L.commit();
        core.u64(tokPtr, total).set(tokens);
        core.u32(firstPtr, first.length).set(first);
        core.u64(outPtr, total + 2).fill(0xa5a5n);
        const m = core.raw.shingleTexts(tokPtr, firstPtr, texts, n, seed, outPtr, fromPtr);
        const at = `${v}, round ${round}`;
        expect(m, at).toBe(want.hashes.length);
        expect(Array.from(core.u64(outPtr, m)), at).toEqual(want.hashes);
        expect(Array.from(core.u32(fromPtr, texts + 1)), at).toEqual(want.from);
        expect(core.u64(outPtr, m + 1)[m], `${at}: nothing past the last`).toBe(0xa5a5n);
      }
    }
  });
});
