/**
 * The sentence-pair seed kernel (`alignSeeds`, assembly/align.ts) in every build, and its same-loop TS twin
 * (`seedsReference`), against the brute-force oracle (test/reference/align.ts) that scores every pair from the two
 * sparse vectors directly. Random vectors cover empty texts, zero norms (a term in every sentence has idf 0), zero
 * weights, terms beyond the index, single-term sentences and thresholds from 0 up. The seeds must be the same pairs
 * in the same order; cosines agree to rounding (the kernel sums in posting order, the oracle in term order), and a
 * pair whose cosine lies within rounding of the threshold may fall either way.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { postings, seedsReference, seedsWasm, type Seeds, type Vectors } from '../../../src/align/seeds.js';
import { alignSeedsRef, type SeedRef } from '../../reference/align.js';
import { prng } from '../../reference/core.js';
import { BUILDS, coreOf } from '../abi/helpers.js';

const ROUNDS = 300;
/** Rounding room: the cosine of two sums of up to ~60 products, in two orders. */
const EPS = 1e-12;

type Rng = ReturnType<typeof rng>;
function rng(seed: number) {
  const next = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return { next, int, chance: (p: number) => next() < p };
}

/** Random sparse vectors: `sentences` rows of distinct term ids below `vocab` (some beyond `indexed`). */
function randomVectors(r: Rng, sentences: number, vocab: number): Vectors {
  const off = new Uint32Array(sentences + 1);
  const terms: number[] = [];
  const weights: number[] = [];
  const norms = new Float64Array(sentences);
  const sizes = new Uint32Array(sentences);
  for (let s = 0; s < sentences; s++) {
    // at most the vocabulary: the terms of a sentence are distinct
    const n = r.chance(0.1) ? 0 : Math.min(vocab, r.chance(0.15) ? 1 : r.int(2, 40));
    const chosen = new Set<number>();
    while (chosen.size < n) chosen.add(r.int(0, vocab - 1));
    let sq = 0;
    for (const t of [...chosen].sort((a, b) => a - b)) {
      // idf 0 (a term in every sentence) gives weight 0; otherwise tf × idf
      const w = r.chance(0.1) ? 0 : r.int(1, 4) * (0.1 + 3 * r.next());
      terms.push(t);
      weights.push(w);
      sq += w * w;
    }
    off[s + 1] = terms.length;
    norms[s] = Math.sqrt(sq);
    sizes[s] = n;
  }
  return { off, terms: Uint32Array.from(terms), weights: Float64Array.from(weights), norms, sizes };
}

/** Seeds as a list, and the oracle's seeds apart from those within rounding of the cosine threshold. */
const listOf = (s: Seeds): Array<[number, number, number]> =>
  Array.from({ length: s.count }, (_, k) => [s.a[k], s.b[k], s.cos[k]]);
const edge = (x: SeedRef | { cos: number }, thCos: number): boolean => Math.abs(x.cos - thCos) <= EPS;

function expectSame(got: Seeds, want: SeedRef[], thCos: number, label: string): void {
  const g = listOf(got).filter(([, , c]) => !edge({ cos: c }, thCos));
  const w = want.filter((x) => !edge(x, thCos));
  expect(
    g.map(([i, j]) => `${i},${j}`),
    label,
  ).toEqual(w.map((x) => `${x.i},${x.j}`));
  for (let k = 0; k < g.length; k++) expect(Math.abs(g[k][2] - w[k].cos), label).toBeLessThanOrEqual(EPS);
}

const cores = new Map<string, Core>();
beforeAll(async () => {
  for (const b of BUILDS) cores.set(b, await coreOf(b));
});

describe('alignSeeds against the brute-force oracle', () => {
  it(`${ROUNDS} random vector pairs: the same seeds in every build and in the TS twin`, () => {
    const r = rng(20_261_124);
    let seeds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const vocab = r.int(1, 120);
      const indexed = r.chance(0.2) ? r.int(1, vocab) : vocab; // terms of a beyond b's postings are skipped
      const va = randomVectors(r, r.chance(0.05) ? 0 : r.int(1, 30), vocab);
      const vb = randomVectors(r, r.chance(0.05) ? 0 : r.int(1, 30), vocab);
      const thCos = r.chance(0.1) ? 0 : r.next() * 0.8;
      const thDice = r.chance(0.1) ? 0 : r.next() * 0.8;
      const post = postings(vb, indexed);
      const want = alignSeedsRef(va, vb, thCos, thDice, indexed);
      seeds += want.length;
      const label = `round ${round} (vocab ${vocab}, indexed ${indexed}, thresholds ${thCos}, ${thDice})`;
      expectSame(seedsReference(va, post, vb, thCos, thDice), want, thCos, `${label} seedsReference`);
      for (const [build, core] of cores)
        expectSame(seedsWasm(core, va, post, vb, thCos, thDice), want, thCos, `${label} ${build}`);
    }
    expect(seeds).toBeGreaterThan(ROUNDS); // the rounds do produce seeds
  });

  it('known answer: two sentences sharing two of three terms', () => {
    // a0 = {0: 1, 1: 1, 2: 1}, b0 = {1: 1, 2: 1, 3: 1}: dot 2, norms √3, cosine 2/3, Dice 4/6
    const v = (terms: number[]): Vectors => ({
      off: Uint32Array.from([0, terms.length]),
      terms: Uint32Array.from(terms),
      weights: Float64Array.from(terms.map(() => 1)),
      norms: Float64Array.from([Math.sqrt(terms.length)]),
      sizes: Uint32Array.from([terms.length]),
    });
    const va = v([0, 1, 2]),
      vb = v([1, 2, 3]);
    const [ref] = alignSeedsRef(va, vb, 0.5, 0.5, 4);
    expect(ref).toMatchObject({ i: 0, j: 0, dice: 4 / 6 });
    expect(ref.cos).toBeCloseTo(2 / 3, 15); // 2 / (√3 · √3), to rounding
    for (const core of cores.values()) {
      const s = seedsWasm(core, va, postings(vb, 4), vb, 0.5, 0.5);
      expect(listOf(s)).toEqual([[0, 0, ref.cos]]);
      expect(seedsWasm(core, va, postings(vb, 4), vb, 0.7, 0.5).count).toBe(0); // cosine 0.667 is not > 0.7
      expect(seedsWasm(core, va, postings(vb, 4), vb, 0.5, 2 / 3).count).toBe(0); // Dice is not > itself
    }
  });
});
