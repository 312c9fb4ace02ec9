/**
 * Passage-level rules of compare's obfuscated mode (src/align/passages.ts): dominated seeds are dropped
 * before clustering, so that a weak topical seed beside a reused sentence does not stretch its passage.
 */
import { describe, expect, it } from 'vitest';
import { dominantSeeds } from '../../src/align/passages.js';
import type { Seeds } from '../../src/align/seeds.js';

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
