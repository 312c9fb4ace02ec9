/**
 * The null of a portrait (src/datasets/background.ts): runs read against a measured background, with known answers
 * computed by hand from the formula, the counts a measurement accumulates, the checks of a background given by a
 * caller, the beta-binomial tail behind the membership record, and properties of the statistic on random hit
 * sequences (a longer run is never less surprising; a repeated phrase is one run; scattered hits are never evidence).
 */
import { describe, expect, it } from 'vitest';
import {
  BackgroundTally,
  checkPortraitBackground,
  DEFAULT_PORTRAIT_BACKGROUND,
  runEvidence,
  type PortraitBackground,
  sharedByChance,
} from '../../src/datasets/background.js';
import { betaBinomialUpperTail, binomialUpperTail, poissonUpperTail } from '../../src/stats/binomial.js';
import { prng } from '../reference/core.js';

const BG: PortraitBackground = {
  run_start: 0.04,
  continue_first: 0.08,
  continue_tail: 0.15,
  hit_rate: 0.045,
  dispersion: 0.005,
  measured_on: { corpus: 'test', texts: 10, fingerprints: 1000, date: '2026-11-25' },
};
const bits = (s: string) => Uint8Array.from(s, (c) => (c === '1' ? 1 : 0));
const distinctHashes = (n: number) => BigUint64Array.from({ length: n }, (_, i) => BigInt(i + 1));

describe('runEvidence', () => {
  it('one run of six among forty: π(6) = a·c₁·cₜ⁴, chance = P(Poisson(m·π) ≥ 1)', () => {
    const hits = bits(`${'0'.repeat(10)}111111${'0'.repeat(24)}`);
    const r = runEvidence(hits, distinctHashes(40), BG);
    // no background runs: the query's own rate, (0 + 50·a)/(34 + 50), is below a, so a is used
    expect(r.run_start).toBe(BG.run_start);
    const pi = 0.04 * 0.08 * 0.15 ** 4;
    expect(r.counted).toBe(1);
    expect(r.evidence).toEqual([0]);
    expect(r.chance).toBeCloseTo(poissonUpperTail(1, 40 * pi), 15);
    expect(r.runs[0]).toMatchObject({ start: 10, end: 16, distinct: 6, fresh: 6 });
    expect(r.runs[0].chance).toBeCloseTo(40 * pi, 15);
  });

  it('scattered single hits are background, never evidence: chance 1', () => {
    const hits = bits('0100010000100000100001000000100000000010');
    const r = runEvidence(hits, distinctHashes(hits.length), BG);
    expect(r.counted).toBe(0);
    expect(r.evidence).toEqual([]);
    expect(r.chance).toBe(1);
    // seven runs of one among 33 misses: the query's own start rate (7 + 50·0.04)/(33 + 50) is above the measured one
    expect(r.run_start).toBeCloseTo((7 + 50 * 0.04) / (33 + 50), 15);
  });

  it('a phrase repeated through a text is one run: later copies add no fresh fingerprint', () => {
    // the same three hashes (a stock phrase) in five places, then nothing else
    const hashes = new BigUint64Array(60);
    const hits = new Uint8Array(60);
    for (let k = 0; k < 5; k++)
      for (let i = 0; i < 3; i++) {
        hits[k * 12 + i] = 1;
        hashes[k * 12 + i] = BigInt(100 + i);
      }
    for (let i = 0; i < 60; i++) if (!hits[i]) hashes[i] = BigInt(1000 + i);
    const r = runEvidence(hits, hashes, BG);
    expect(r.runs.map((x) => x.fresh)).toEqual([3, 0, 0, 0, 0]);
    expect(r.counted).toBe(1);
    // the four repeats count as background runs for the query's own rate
    expect(r.run_start).toBeCloseTo((4 + 50 * 0.04) / (45 + 50), 15);
  });

  it('a mosaic of short runs is evidence together: the minimum over j of the Poisson tails, times K', () => {
    // ten runs of three in 300 fingerprints (a copy with an edit every few words)
    const hits = new Uint8Array(300);
    for (let k = 0; k < 10; k++) hits.fill(1, k * 30, k * 30 + 3);
    const r = runEvidence(hits, distinctHashes(300), BG);
    const pi = BG.run_start * BG.continue_first * BG.continue_tail;
    let best = 1;
    for (let j = 1; j <= 10; j++) best = Math.min(best, poissonUpperTail(j, 300 * pi));
    expect(r.counted).toBe(10);
    expect(r.evidence).toHaveLength(10);
    expect(r.chance).toBeCloseTo(10 * best, 15);
    expect(r.chance).toBeLessThan(1e-6);
  });

  it('properties on random sequences: a longer planted run is more surprising; evidence runs have ≥ 2 fresh fingerprints', () => {
    const rnd = prng(42);
    for (let t = 0; t < 300; t++) {
      const m = 20 + Math.floor(rnd() * 400);
      const hits = new Uint8Array(m);
      for (let i = 0; i < m; i++) hits[i] = rnd() < 0.05 ? 1 : 0;
      const r = runEvidence(hits, distinctHashes(m), BG);
      expect(r.chance).toBeGreaterThanOrEqual(0);
      expect(r.chance).toBeLessThanOrEqual(1);
      expect(r.run_start).toBeGreaterThanOrEqual(BG.run_start);
      // evidence runs are runs of at least two fresh fingerprints
      for (const k of r.evidence) expect(r.runs[k].fresh).toBeGreaterThanOrEqual(2);
      // a planted run grows longer: its chance falls
      const at = Math.floor(rnd() * (m - 12));
      let last = Infinity;
      for (const len of [3, 5, 8, 12]) {
        const h = hits.slice();
        h.fill(1, at, at + len);
        if (at > 0) h[at - 1] = 0;
        if (at + len < m) h[at + len] = 0;
        const c = runEvidence(h, distinctHashes(m), BG);
        const run = c.runs.find((x) => x.start === at)!;
        expect(run.chance).toBeLessThanOrEqual(last);
        last = run.chance;
      }
    }
  });
});

describe('BackgroundTally', () => {
  it('counts run starts per miss, continuations with a prior on the tail, and the hit rate', () => {
    const t = new BackgroundTally();
    // runs: 1, 1, 2, 3 (distinct hashes) in 20 fingerprints; 13 misses
    t.add(bits('01000100110001110000'), distinctHashes(20));
    const b = t.result('constructed', '2026-11-25');
    expect(b.run_start).toBeCloseTo(4 / 13, 6);
    expect(b.hit_rate).toBeCloseTo(7 / 20, 6);
    // continue_first: upper end of the Wilson interval of 2 of 4 runs reaching two hits
    expect(b.continue_first).toBeGreaterThan(0.5);
    expect(b.continue_first).toBeLessThan(0.95);
    // continue_tail: runs ≥ 3 of runs ≥ 2 (1 of 2) plus 20 pseudo-runs at the default's 0.3, upper end
    expect(b.continue_tail).toBeGreaterThan((1 + 6) / (2 + 20));
    expect(b.continue_tail).toBeLessThan(0.6);
    expect(b.measured_on).toEqual({ corpus: 'constructed', texts: 1, fingerprints: 20, date: '2026-11-25' });
  });

  it('with no fingerprints, refuses to measure', () => {
    expect(() => new BackgroundTally().result('x', '2026-11-25')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });

  it('the dispersion is 0 for texts that vary no more than binomially, above 0 for texts that do', () => {
    const even = new BackgroundTally();
    const rnd = prng(3);
    for (let k = 0; k < 40; k++) {
      const h = new Uint8Array(500);
      for (let i = 0; i < 500; i++) h[i] = rnd() < 0.04 ? 1 : 0;
      even.add(h, distinctHashes(500));
    }
    expect(even.result('x', '2026-11-25').dispersion).toBeLessThan(0.002);
    const uneven = new BackgroundTally();
    for (let k = 0; k < 40; k++) {
      const rate = k % 2 ? 0.01 : 0.1;
      const h = new Uint8Array(500);
      for (let i = 0; i < 500; i++) h[i] = rnd() < rate ? 1 : 0;
      uneven.add(h, distinctHashes(500));
    }
    expect(uneven.result('x', '2026-11-25').dispersion).toBeGreaterThan(0.01);
  });
});

describe('checkPortraitBackground', () => {
  it('accepts the default and a measured one; refuses what is wrong, naming the field', () => {
    expect(checkPortraitBackground(DEFAULT_PORTRAIT_BACKGROUND)).toEqual(DEFAULT_PORTRAIT_BACKGROUND);
    expect(checkPortraitBackground(BG)).toEqual(BG);
    const bad = (v: unknown, msg: RegExp) =>
      expect(() => checkPortraitBackground(v)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(msg) }),
      );
    bad(null, /must be an object/);
    bad({ ...BG, extra: 1 }, /unknown field "extra"/);
    bad({ ...BG, run_start: 0 }, /run_start/);
    bad({ ...BG, continue_tail: 1.5 }, /continue_tail/);
    bad({ ...BG, hit_rate: '0.1' }, /hit_rate/);
    bad({ ...BG, measured_on: { ...BG.measured_on, date: 'today' } }, /measured_on.date/);
    bad({ ...BG, measured_on: { ...BG.measured_on, texts: -1 } }, /measured_on.texts/);
    bad({ ...BG, measured_on: { ...BG.measured_on, corpus: '' } }, /measured_on.corpus/);
  });
});

describe('betaBinomialUpperTail', () => {
  it('is the binomial at ρ = 0 and a plain sum of the beta-binomial pmf otherwise; overdispersion fattens the tail', () => {
    expect(betaBinomialUpperTail(10, 200, 0.03, 0)).toBe(binomialUpperTail(10, 200, 0.03));
    const lgamma = (x: number): number => {
      // Stirling with enough terms for x ≥ 1 after shifting
      let s = 0;
      while (x < 10) {
        s -= Math.log(x);
        x += 1;
      }
      return s + (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x ** 3);
    };
    const ref = (k: number, n: number, p: number, rho: number) => {
      const a = (p * (1 - rho)) / rho,
        b = ((1 - p) * (1 - rho)) / rho;
      const lb = (x: number, y: number) => lgamma(x) + lgamma(y) - lgamma(x + y);
      let s = 0;
      for (let i = k; i <= n; i++)
        s += Math.exp(lgamma(n + 1) - lgamma(i + 1) - lgamma(n - i + 1) + lb(i + a, n - i + b) - lb(a, b));
      return s;
    };
    for (const [k, n, p, rho] of [
      [10, 200, 0.03, 0.01],
      [3, 50, 0.05, 0.02],
      [40, 300, 0.045, 0.005],
      [1, 10, 0.2, 0.1],
    ])
      expect(betaBinomialUpperTail(k, n, p, rho)).toBeCloseTo(ref(k, n, p, rho), 7);
    expect(betaBinomialUpperTail(10, 200, 0.03, 0.01)).toBeGreaterThan(binomialUpperTail(10, 200, 0.03));
    expect(betaBinomialUpperTail(0, 10, 0.1, 0.1)).toBe(1);
    expect(betaBinomialUpperTail(11, 10, 0.1, 0.1)).toBe(0);
  });
});

describe('sharedByChance', () => {
  it("is the null's mean share plus 3.09 standard deviations of its text-to-text spread (known answers)", () => {
    // pack:aozora's and pack:gutenberg's nulls (packs/index.json)
    expect(sharedByChance({ hit_rate: 0.208809, dispersion: 0.021148 })).toBeCloseTo(0.39145, 4);
    expect(sharedByChance({ hit_rate: 0.044664, dispersion: 0.004959 })).toBeCloseTo(0.08961, 4);
    expect(sharedByChance({ hit_rate: 0.0146, dispersion: 0 })).toBe(0.0146);
    // the null of a portrait nobody measured one for stays under the table's own 0.2: no English claim changes
    expect(sharedByChance(DEFAULT_PORTRAIT_BACKGROUND)).toBeLessThan(0.2);
  });

  it('never falls under the mean, and grows with the rate (up to one half) and the spread', () => {
    const rnd = prng(82);
    for (let i = 0; i < 2000; i++) {
      const p = rnd() * 0.5;
      const q = p + rnd() * (0.5 - p);
      const d = rnd() * 0.05;
      const e = d + rnd() * 0.05;
      const x = sharedByChance({ hit_rate: p, dispersion: d });
      expect(x).toBeGreaterThanOrEqual(p);
      expect(sharedByChance({ hit_rate: q, dispersion: d })).toBeGreaterThanOrEqual(x - 1e-12);
      expect(sharedByChance({ hit_rate: p, dispersion: e })).toBeGreaterThanOrEqual(x - 1e-12);
    }
  });
});
