/**
 * Plain reference of src/datasets/seed-chains.ts, as the search chained hits with one object per hit: the hits
 * sorted by (document, query shingle, source start) with `Array.prototype.sort`, each document's hits made a
 * candidate by their regions (test/reference/regions.ts), then chained along diagonals, a document at a time. The
 * property test holds the column version (and the in-memory index's search, which ends there) to it.
 */
import type { ChainedHits, ExactCandidate, SeedChain, ShingleHit } from '../../src/datasets/seed-chains.js';
import type { Fingerprint } from '../../src/types.js';
import { hitRegionsRef } from './regions.js';

const EXACT_REGIONS = { sourceGap: 2000, queryGap: 256, minHits: 2, minDensity: 0, most: 8 };

export function chainHitsRef(
  given: readonly ShingleHit[],
  fp: Fingerprint,
  window: number,
  size: number,
  minTokens: number,
): ChainedHits {
  const hits = [...given].sort((a, b) => a.doc - b.doc || a.i - b.i || a.start - b.start);
  const hitsOf: ShingleHit[][] = [];
  for (let from = 0; from < hits.length; ) {
    let to = from;
    while (to < hits.length && hits[to].doc === hits[from].doc) to++;
    hitsOf.push(hits.slice(from, to));
    from = to;
  }
  const candidates: ExactCandidate[] = [];
  for (const own of hitsOf) {
    const regions = hitRegionsRef(own, fp.shingles.starts, fp.shingles.ends, EXACT_REGIONS);
    if (regions[0]) candidates.push({ doc: own[0].doc, hits: regions[0].hits, strength: regions[0].strength, regions });
  }
  candidates.sort((a, b) => b.strength - a.strength || a.doc - b.doc);
  type Chain = { doc: number; firstI: number; lastI: number; lastQ: number; delta: number } & Record<
    'start' | 'end' | 'count',
    number
  >;
  const qs = fp.shingles.starts;
  const maxGap = 2 * window + size - 1;
  const done: Chain[] = [];
  for (const own of hitsOf) {
    let active: Chain[] = [];
    for (const h of own) {
      const q = qs[h.i];
      const delta = h.start - q;
      // chains left behind by more than the gap are done; of the others (not already at this shingle), the one
      // whose diagonal drifts least, within its allowance
      done.push(...active.filter((c) => h.i - c.lastI > maxGap));
      active = active.filter((c) => h.i - c.lastI <= maxGap);
      const fits = active
        .filter((c) => c.lastI !== h.i)
        .map((c) => ({ c, drift: Math.abs(delta - c.delta) }))
        .filter(({ c, drift }) => drift <= 32 + (q - c.lastQ) / 4);
      const best = fits.reduce<(typeof fits)[number] | undefined>(
        (b, x) => (!b || x.drift < b.drift ? x : b),
        undefined,
      );
      if (best) {
        const c = best.c;
        Object.assign(c, {
          lastI: h.i,
          lastQ: q,
          delta,
          start: Math.min(c.start, h.start),
          end: Math.max(c.end, h.end),
        });
        c.count++;
      } else
        active.push({ doc: h.doc, firstI: h.i, lastI: h.i, lastQ: q, delta, start: h.start, end: h.end, count: 1 });
    }
    done.push(...active);
  }
  const chains: SeedChain[] = done
    .map(({ doc, firstI, lastI, start, end, count }) => ({
      ...{ doc, firstI, lastI, start, end, count },
      tokens: Math.min(lastI - firstI + size, fp.token_count),
    }))
    .filter((c) => c.tokens >= minTokens);
  return { candidates, chains };
}
