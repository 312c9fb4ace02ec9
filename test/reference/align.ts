/**
 * Obviously-correct oracle of the sentence-pair seed kernel (`alignSeeds`, assembly/align.ts): every pair (i, j) is
 * scored from the two sparse vectors directly — the dot product over the terms they share, the cosine of the norms,
 * the Dice coefficient of their distinct terms — with no inverted index, no accumulators and no sweep bounds.
 * O(na × nb × terms): for tests only.
 */
import type { Vectors } from '../../src/align/seeds.js';

/** One seed: sentence i of a, sentence j of b, and their cosine. */
export interface SeedRef {
  readonly i: number;
  readonly j: number;
  readonly cos: number;
  /** The Dice coefficient (exact: a ratio of small integers). */
  readonly dice: number;
}

/** Sentence `s` of `v` as a map term → weight (terms at or beyond `terms` are not in the index: dropped). */
function sentence(v: Vectors, s: number, terms: number): Map<number, number> {
  const m = new Map<number, number>();
  for (let k = v.off[s]; k < v.off[s + 1]; k++) if (v.terms[k] < terms) m.set(v.terms[k], v.weights[k]);
  return m;
}

/**
 * Every pair with cosine > thCos and Dice > thDice, ordered by (i, j). A pair must share a term; a sentence of a
 * whose norm is 0 gives no seed.
 * @example alignSeedsRef(va, vb, 0.2, 0.2, dict.size) // [{ i: 0, j: 3, cos: 0.91, dice: 0.8 }, …]
 */
export function alignSeedsRef(va: Vectors, vb: Vectors, thCos: number, thDice: number, terms: number): SeedRef[] {
  const out: SeedRef[] = [];
  const bs = Array.from({ length: vb.norms.length }, (_, j) => sentence(vb, j, terms));
  for (let i = 0; i < va.norms.length; i++) {
    if (va.norms[i] === 0) continue;
    const a = sentence(va, i, terms);
    for (let j = 0; j < bs.length; j++) {
      let dot = 0;
      let shared = 0;
      for (const [t, w] of a) {
        const wb = bs[j].get(t);
        if (wb === undefined) continue;
        dot += w * wb;
        shared++;
      }
      if (shared === 0) continue;
      const cos = vb.norms[j] === 0 ? 0 : dot / (va.norms[i] * vb.norms[j]);
      const dice = (2 * shared) / (va.sizes[i] + vb.sizes[j]);
      if (cos > thCos && dice > thDice) out.push({ i, j, cos, dice });
    }
  }
  return out;
}
