/**
 * A score's per-dataset value and its bootstrap interval with kept tails (src/services/score/order-statistic.ts)
 * against the plain computation (test/reference/order-statistic.ts) that sorts each resample and sums a tail per
 * rank: the same numbers bit for bit. Random chunk chances cover 0, 1 (a chunk that shows nothing), ties, tiny and
 * middling chances, no flagged chunk, one chunk, one and two datasets of each calibration, and a work past the
 * tails' table (its tails in a Map).
 */
import { describe, expect, it } from 'vitest';
import { bootstrapInterval, ChunkValues } from '../../../src/services/score/order-statistic.js';
import { bootstrapOf, datasetValueOf } from '../../reference/order-statistic.js';
import { prng } from '../../reference/core.js';

const KINDS = ['exact', 'portrait', 'remote', 'source'] as const;

interface Drawn {
  chances: Float64Array;
  flagged: Uint8Array;
  kind: (typeof KINDS)[number];
  certainty: number;
}

/** n chunks of one dataset: each chance one of a few (ties) or fresh, flagged mostly where it is below 1. */
function drawDataset(next: () => number, n: number): Drawn {
  const pool = [0, 1, 1e-300, 1e-12, 3e-7, 0.004, 0.2, 0.5, 0.9999, next(), next() * 1e-5];
  const chances = new Float64Array(n);
  const flagged = new Uint8Array(n);
  const flagShare = next() < 0.15 ? 0 : next();
  for (let i = 0; i < n; i++) {
    chances[i] = next() < 0.6 ? pool[Math.floor(next() * pool.length)] : next() ** 4;
    flagged[i] = chances[i] < 1 && next() < flagShare ? 1 : 0;
  }
  const kind = KINDS[Math.floor(next() * KINDS.length)];
  return { chances, flagged, kind, certainty: [1, 0.85, 0.6, next()][Math.floor(next() * 4)] };
}

const same = (a: number, b: number) => Object.is(a, b);

describe('score values with kept tails', () => {
  it('equal the plain computation over every chunk, over random multisets, and in the bootstrap', () => {
    const next = prng(77);
    for (let round = 0; round < 24; round++) {
      const n = round === 0 ? 0 : round === 1 ? 1 : round === 2 ? 600 : 1 + Math.floor(next() * 45);
      const words = Math.floor(next() * 12_000);
      const datasets = Array.from({ length: 1 + Math.floor(next() * 2) }, () => drawDataset(next, n));
      const values = datasets.map((d) => new ChunkValues(d.chances, d.flagged, d, words));
      for (const [d, dataset] of datasets.entries()) {
        const draws = [Array.from({ length: n }, (_, i) => i)];
        for (let k = 0; k < (n > 100 ? 2 : 5); k++) draws.push(Array.from({ length: n }, () => Math.floor(next() * n)));
        for (const idx of draws) {
          const counts = new Int32Array(n);
          for (const i of idx) counts[i]++;
          const got = values[d].over(counts);
          const want = datasetValueOf(dataset, idx, words);
          for (const key of ['chance', 'strength', 'confidence', 'value'] as const)
            expect(same(got[key], want[key]), `round ${round}, n ${n}, ${key}: ${got[key]} vs ${want[key]}`).toBe(true);
        }
      }
      if (n > 100) continue; // the reference's 1,000 sorted resamples of 600 chunks take seconds
      const seed = Math.floor(next() * 2 ** 32);
      const boot = bootstrapInterval(values, n, seed);
      const want = bootstrapOf(datasets, n, words, seed);
      expect(
        boot.ci.map((x, i) => same(x, want[i])),
        `round ${round}: ${boot.ci} vs ${want}`,
      ).toEqual([true, true]);
      expect(boot).toMatchObject({ resamples: n === 0 ? 0 : 1000, seed });
    }
  });
});
