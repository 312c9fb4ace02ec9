/**
 * The measures of bench/eval-memorization.mjs on cases with known answers: the rank AUC, the TPR at a fixed FPR,
 * and the blind baseline (a model-free classifier that must read ≈ 0.5 on an IID split and near 1 when the two
 * sides differ in their words).
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS module shared with bench/eval-memorization.mjs
import { auc, blindScores, rng, shuffled, tprAt } from '../../bench/memorization-measures.mjs';

describe('eval measures', () => {
  it('rank AUC: separation, reversal, ties', () => {
    expect(auc([3, 4], [1, 2])).toBe(1);
    expect(auc([1, 2], [3, 4])).toBe(0);
    expect(auc([5, 5], [5, 5])).toBe(0.5);
    expect(auc([3, 1], [2])).toBe(0.5);
    expect(auc([2, 2], [2, 1])).toBe(0.75);
  });

  it('TPR at 1 % FPR counts the positives above the second-highest of 100 negatives', () => {
    const neg = Array.from({ length: 100 }, (_, i) => i);
    expect(tprAt([99.5, 98.5, 50], neg, 0.01)).toBeCloseTo(2 / 3, 12);
    expect(tprAt([99.5, 98.5, 50], neg, 0)).toBeCloseTo(1 / 3, 12);
    expect(tprAt([200], neg, 0.5)).toBe(1);
  });

  it('the generator is deterministic and shuffling permutes', () => {
    const a = rng(3);
    const b = rng(3);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
    const xs = Array.from({ length: 50 }, (_, i) => i);
    const s = shuffled(xs, rng(1));
    expect([...s].sort((x: number, y: number) => x - y)).toEqual(xs);
    expect(s).not.toEqual(xs);
  });

  it('the blind baseline reads ≈ 0.5 on one source split at random, ≈ 1 on two sources', () => {
    const r = rng(42);
    const vocab = (prefix: string) => Array.from({ length: 300 }, (_, i) => `${prefix}${i.toString(36)}`);
    const doc = (words: string[]) => Array.from({ length: 80 }, () => words[Math.floor(r() * words.length)]).join(' ');
    const one = vocab('w');
    const iid = blindScores(
      Array.from({ length: 200 }, () => doc(one)),
      Array.from({ length: 200 }, () => doc(one)),
      10,
      rng(7),
    );
    expect(Math.abs(auc(iid.pos, iid.neg) - 0.5)).toBeLessThan(0.08);
    const other = [...one.slice(0, 150), ...vocab('z').slice(0, 150)];
    const shifted = blindScores(
      Array.from({ length: 100 }, () => doc(one)),
      Array.from({ length: 100 }, () => doc(other)),
      10,
      rng(7),
    );
    expect(auc(shifted.pos, shifted.neg)).toBeGreaterThan(0.95);
  });
});
