/** Statistics helpers (src/stats/): known values and agreement with direct summation. */
import { describe, expect, it } from 'vitest';
import { binomialUpperTail, logGamma, wilsonInterval } from '../../src/stats/binomial.js';

/** P(X ≥ k) by summing every pmf term with exact-ish products (small n only). */
function directTail(k: number, n: number, p: number): number {
  let sum = 0;
  for (let i = k; i <= n; i++) {
    let c = 1;
    for (let j = 0; j < i; j++) c = (c * (n - j)) / (j + 1);
    sum += c * p ** i * (1 - p) ** (n - i);
  }
  return sum;
}

describe('stats', () => {
  it('logGamma matches factorials', () => {
    let f = 1;
    for (let n = 1; n < 30; n++) {
      f *= n;
      expect(logGamma(n + 1)).toBeCloseTo(Math.log(f), 10);
    }
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
  });

  it('binomialUpperTail: known values and direct sums', () => {
    expect(binomialUpperTail(3, 100, 0.01)).toBeCloseTo(0.0793732, 6);
    expect(binomialUpperTail(0, 10, 0.3)).toBe(1);
    expect(binomialUpperTail(11, 10, 0.3)).toBe(0);
    for (const [n, p] of [
      [10, 0.3],
      [40, 0.05],
      [60, 0.5],
      [25, 0.9],
    ] as const) {
      for (let k = 0; k <= n; k++) {
        const want = directTail(k, n, p);
        expect(Math.abs(binomialUpperTail(k, n, p) - want)).toBeLessThan(1e-12 + want * 1e-9);
      }
    }
    // large n stays finite and monotone
    const a = binomialUpperTail(150, 10_000, 0.0113);
    const b = binomialUpperTail(160, 10_000, 0.0113);
    expect(a).toBeGreaterThan(b);
    expect(a).toBeLessThan(1);
    expect(binomialUpperTail(400, 1_000_000, 1e-6)).toBeLessThan(1e-300 + 1e-200);
  });

  it('wilsonInterval: known values, inside [0, 1]', () => {
    const [lo, hi] = wilsonInterval(0, 10);
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(0.2775, 4);
    const [l2, h2] = wilsonInterval(50, 100);
    expect(l2).toBeCloseTo(0.4038, 4);
    expect(h2).toBeCloseTo(0.5962, 4);
    expect(wilsonInterval(10, 10)[1]).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });
});
