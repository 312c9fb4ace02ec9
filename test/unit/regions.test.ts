/** src/datasets/regions.ts against its plain reference (test/reference/regions.ts), on seeded random hits. */
import { describe, expect, it } from 'vitest';
import { columnRegions, hitRegions, type HitColumns, type RegionHit } from '../../src/datasets/regions.js';
import { prng } from '../reference/core.js';
import { hitRegionsRef } from '../reference/regions.js';

describe('candidate regions', () => {
  it('hitRegions and columnRegions (one scratch for several documents) agree with the reference', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = prng(seed);
      const items = 2 + Math.floor(rnd() * 400);
      const qStarts = Uint32Array.from({ length: items }, (_, i) => i * 7);
      const qEnds = qStarts.map((s) => s + 5);
      const rule = {
        sourceGap: 50 + Math.floor(rnd() * 3000),
        queryGap: 1 + Math.floor(rnd() * 80),
        minHits: 1 + Math.floor(rnd() * 4),
        minDensity: rnd() < 0.5 ? 0 : rnd() * 0.3,
        most: 1 + Math.floor(rnd() * 8),
        // fewer hits when they weigh enough, on half of the seeds (the content-word pairs' rule for rare pairs)
        ...(seed % 2 === 0 ? { rare: { hits: 1 + Math.floor(rnd() * 2), strength: rnd() * 2 } } : {}),
      };
      // several documents' hits one after another, with repeated items, offsets and keys (few distinct values)
      const docs: RegionHit[][] = [];
      // a passage copied in order (ever later offsets by item, now and then one repeated), as exact hits mostly are
      const copied = Math.floor(rnd() * 80);
      let at = Math.floor(rnd() * 1000);
      docs.push(
        Array.from({ length: copied }, (_, k) => {
          at += rnd() < 0.1 ? 0 : 1 + Math.floor(rnd() * 40);
          const i = Math.min(items - 1, k + Math.floor(k / 3));
          return { i, start: at, end: at + 25, weight: 0.1 + rnd(), key: seed % 3 === 0 ? undefined : 0 };
        }),
      );
      for (let d = 0; d < 3; d++) {
        const n = Math.floor(rnd() * (seed % 4 === 0 ? 300 : 40));
        const spread = 1 + Math.floor(rnd() * (seed % 5 === 0 ? 40 : 20_000)); // few offsets: places repeat
        docs.push(
          Array.from({ length: n }, () => {
            const start = Math.floor(rnd() * spread),
              i = Math.floor(rnd() * items);
            const key = seed % 3 === 0 ? undefined : i % 5;
            return { i, start, end: start + Math.floor(rnd() * 30), weight: 0.1 + rnd(), key };
          }),
        );
      }
      const all = docs.flat();
      const hits: HitColumns = {
        item: Uint32Array.from(all, (h) => h.i),
        start: Uint32Array.from(all, (h) => h.start),
        end: Uint32Array.from(all, (h) => h.end),
        weight: Float64Array.from(all, (h) => h.weight),
        key: Uint32Array.from(all, (h) => h.key ?? 0),
      };
      const order = new Uint32Array(all.length);
      let from = 0;
      for (const own of docs) {
        const want = hitRegionsRef(own, qStarts, qEnds, rule);
        expect(hitRegions(own, qStarts, qEnds, rule)).toEqual(want);
        expect(columnRegions(hits, from, from + own.length, qStarts, qEnds, rule, order)).toEqual(want);
        from += own.length;
      }
    }
  });

  it('a region of fewer hits than minHits stands when it meets the rare rule, and only then', () => {
    const q = Uint32Array.from({ length: 10 }, (_, i) => i * 10);
    const qe = q.map((x) => x + 5);
    const rule = { sourceGap: 2000, queryGap: 64, minHits: 3, minDensity: 0.05, most: 8 };
    const two = (w: number): RegionHit[] => [
      { i: 1, start: 100, end: 110, weight: w, key: 1 },
      { i: 3, start: 140, end: 150, weight: w, key: 2 },
    ];
    expect(hitRegions(two(0.5), q, qe, rule)).toEqual([]);
    const rare = { ...rule, rare: { hits: 2, strength: 0.5 } };
    expect(hitRegions(two(0.25), q, qe, rare)).toMatchObject([{ hits: 2, strength: 0.5 }]);
    expect(hitRegions(two(0.2), q, qe, rare)).toEqual([]);
    // one hit is never enough under this rule, however rare
    expect(hitRegions(two(1).slice(0, 1), q, qe, rare)).toEqual([]);
  });
});
