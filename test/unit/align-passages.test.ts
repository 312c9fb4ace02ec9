/**
 * Passage-level rules of compare's obfuscated mode (src/align/passages.ts): dominated seeds are dropped
 * before clustering, so that a weak topical seed beside a reused sentence does not stretch its passage, and
 * passages grow by pairs of altered sentences next to their ends.
 */
import { describe, expect, it } from 'vitest';
import { resolveCompareOptions } from '../../src/align/compare.js';
import { dominantSeeds, growEdges, sentenceCosine } from '../../src/align/passages.js';
import { prepare, TermDict } from '../../src/align/prepare.js';
import { idfWeights, vectors, type Seeds } from '../../src/align/seeds.js';

const seedsOf = (rows: [number, number, number][]): Seeds => ({
  a: Uint32Array.from(rows, (r) => r[0]),
  b: Uint32Array.from(rows, (r) => r[1]),
  cos: Float64Array.from(rows, (r) => r[2]),
  count: rows.length,
});

const pairs = (s: Seeds): string[] => Array.from({ length: s.count }, (_, k) => `${s.a[k]}-${s.b[k]}`);

describe('dominantSeeds', () => {
  it('drops a seed far weaker than the best seed of one of its sentences, keeps split sentences', () => {
    // sentence 325 of a reused as 6 and 7 of b (a split: similar cosines), and a topical seed 325-21
    const s = seedsOf([
      [324, 4, 0.6], [325, 6, 0.68], [325, 7, 0.54], [325, 21, 0.39], [326, 9, 0.77], [329, 18, 0.34], [329, 12, 0.62],
    ]);
    expect(pairs(dominantSeeds(s, 0.7))).toEqual(['324-4', '325-6', '325-7', '326-9', '329-12']);
  });

  it('a seed dominated on the other side goes too; ratio 0 keeps everything (same object)', () => {
    const s = seedsOf([[1, 5, 0.9], [2, 5, 0.4], [3, 6, 0.5]]);
    expect(pairs(dominantSeeds(s, 0.7))).toEqual(['1-5', '3-6']);
    expect(dominantSeeds(s, 0)).toBe(s);
  });

  it('no seeds → no seeds', () => {
    expect(dominantSeeds(seedsOf([]), 0.7).count).toBe(0);
  });
});

describe('growEdges: the two sentences just outside one end join together when alike', () => {
  const o = resolveCompareOptions(undefined);
  const setup = (a: string, b: string) => {
    const dict = new TermDict();
    const pa = prepare(a, dict, o.minSentenceWords), pb = prepare(b, dict, o.minSentenceWords);
    const idf = idfWeights(pa, pb, dict.size);
    return { pa, pb, idf, va: vectors(pa, idf), vb: vectors(pb, idf) };
  };
  const A = [
    'Bakers in the old quarter rise before dawn to knead sourdough loaves.',
    'The mayor opened a museum of maritime history near the harbour wall.',
    'Fishermen mend their nets on the quay while gulls circle the boats.',
    'Tourists crowd the narrow lanes every summer looking for souvenirs.',
  ].join(' ');
  const B = [
    'Quantum processors need cryogenic cooling to keep qubits coherent.',
    'A harbour wall museum on maritime history was opened by the mayor, with model ships.',
    'Nets are mended on the quay by fishermen as gulls circle over boats.',
    'Rainfall records from the northern valleys show a drier decade.',
  ].join(' ');

  it('a passage seeded on its last sentences grows by the altered sentence pair before it', () => {
    const { pa, pb, idf, va, vb } = setup(A, B);
    const f = { a0: 2, a1: 2, b0: 2, b1: 2, seeds: [0], cos: sentenceCosine(va, 2, vb, 2) };
    expect(sentenceCosine(va, 1, vb, 1)).toBeGreaterThanOrEqual(0.15);
    expect(sentenceCosine(va, 3, vb, 3)).toBe(0);
    // extendShare near 1: only the pair rule can grow it
    const g = growEdges(f, pa, pb, idf, va, vb, 0.99);
    expect([g.a0, g.a1, g.b0, g.b1]).toEqual([1, 2, 1, 2]);
  });

  it('sentenceCosine is the cosine of the two sentence vectors', () => {
    const { va, vb } = setup(A, A);
    expect(sentenceCosine(va, 1, vb, 1)).toBeCloseTo(1, 12);
    expect(sentenceCosine(va, 0, vb, 1)).toBe(0);
  });
});
