/**
 * The verified share's joint interval (src/corpus/share.ts `verifiedShare`, `ciRule: 'joint'`): the bounds of the
 * sample's rates — found of passages, verified of fetched, detected of tried — joined by the method of variance
 * estimates recovery on the log scale (Zou & Donner 2008), against a plain reference, the product of bounds it
 * replaces, and its coverage in simulated searches of known shares.
 */
import { describe, expect, it } from 'vitest';
import { type ShareSample, verifiedShare, wilson } from '../../src/corpus/share.js';
import { mulberry32 } from '../../src/util/random.js';

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** The joint interval written out plainly from its definition (only where every rate is above 0). */
function reference(
  x: Required<Pick<ShareSample, 'passages' | 'found' | 'fetched' | 'verified' | 'unchecked'>> & {
    detection: { hits: number; trials: number };
    deff: number;
  },
): [number, number] {
  const { passages: n, found: k, fetched: d, verified: v, unchecked: u } = x;
  const { hits: h, trials: t } = x.detection;
  const s = h / t;
  const [sLo, sHi] = wilson(h / x.deff, t / x.deff);
  const r = d - u > 0 ? v / (d - u) : 1;
  // [rate, lower, upper] of each factor of (k/n)·r; one factor where every found passage was fetched
  const factors: [number, number, number][] =
    d === k
      ? [[(k / n) * r, wilson(v, n)[0], wilson(v + u, n)[1]]]
      : [
          [k / n, ...wilson(k, n)],
          [r, wilson(v, d)[0], wilson(v + u, d)[1]],
        ];
  const est = factors.reduce((a, f) => a * f[0], 1) / s;
  const down = [...factors.map(([f, lo]) => Math.log(f / lo)), Math.log(sHi / s)];
  const up = [...factors.map(([f, , hi]) => Math.log(hi / f)), Math.log(s / sLo)];
  const sq = (xs: number[]) => Math.sqrt(xs.reduce((a, b) => a + b * b, 0));
  const productLower = factors.reduce((a, f) => a * f[1], 1);
  return [Math.max(productLower, Math.min(1, est) * Math.exp(-sq(down))), Math.min(1, est * Math.exp(sq(up)))];
}

/** Seeded counts of a sampled search: n passages, k found, d of them fetched, v verified, u unchecked, h of t. */
function counts(random: () => number) {
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const n = int(60, 160),
    k = int(1, n),
    d = random() < 0.3 ? k : int(1, k),
    u = random() < 0.5 ? 0 : int(0, Math.floor(d / 4)),
    v = int(1, d - u),
    t = int(4, 120),
    h = int(1, t);
  return { passages: n, found: k, fetched: d, verified: v, unchecked: u, detection: { hits: h, trials: t } };
}

describe('the joint interval of the verified share', () => {
  it('is the plain reference, to the 4 decimals a result carries (1,000 seeded samples)', () => {
    const random = mulberry32(88);
    for (let i = 0; i < 1000; i++) {
      const c = counts(random);
      const deff = random() < 0.5 ? 1 : 2;
      const got = verifiedShare({ ...c, detectionDesignEffect: deff });
      const [lo, hi] = reference({ ...c, deff });
      expect(got.ci_95[0]).toBeCloseTo(Math.min(got.estimate, round4(lo)), 4);
      expect(got.ci_95[1]).toBeCloseTo(Math.max(got.estimate, round4(hi)), 4);
    }
  });

  it('holds the estimate and lies inside the product of bounds (1,000 seeded samples)', () => {
    const random = mulberry32(7);
    for (let i = 0; i < 1000; i++) {
      const sample = { ...counts(random), detectionDesignEffect: 2 };
      const joint = verifiedShare(sample);
      const product = verifiedShare({ ...sample, ciRule: 'product' });
      expect(joint.estimate).toBe(product.estimate);
      expect(joint.ci_95[0]).toBeLessThanOrEqual(joint.estimate);
      expect(joint.ci_95[1]).toBeGreaterThanOrEqual(joint.estimate);
      expect(joint.ci_95[0]).toBeGreaterThanOrEqual(product.ci_95[0]);
      expect(joint.ci_95[1]).toBeLessThanOrEqual(product.ci_95[1]);
    }
  });

  it('known answer: code half held on the real infini-gram mini (a draw of bench/results/real-verified-share.json)', () => {
    // wrapped, 2,000-character documents: truth 0.4954; the product of bounds read [0.3681, 0.6829]
    const sample = {
      passages: 124,
      found: 63,
      fetched: 41,
      verified: 40,
      unchecked: 0,
      detection: { hits: 50, trials: 50 },
      detectionDesignEffect: 2,
    };
    const joint = verifiedShare(sample);
    const [lo, hi] = reference({ ...sample, deff: 2 });
    expect(joint.estimate).toBe(0.4957);
    expect(joint.ci_95).toEqual([round4(lo), round4(hi)]);
    expect(joint.ci_95).toEqual([0.3988, 0.6136]);
    expect(joint.ci_95[1] - joint.ci_95[0]).toBeLessThan(0.3);
    expect(joint.ci_95[0]).toBeLessThan(0.4954);
    expect(joint.ci_95[1]).toBeGreaterThan(0.4954);
  });

  it('more found than the detection rate allows: the estimate is 1 and the lower end below it, not [1, 1]', () => {
    // every passage found and verified, calibration passages found at 0.9: the raw ratio is 1.11
    const all = { passages: 149, found: 149, fetched: 49, verified: 49, detection: { hits: 81, trials: 90 } };
    const s = verifiedShare({ ...all, detectionDesignEffect: 2 });
    expect(s.estimate).toBe(1);
    expect(s.ci_95[1]).toBe(1);
    expect(s.ci_95[0]).toBeLessThan(0.96);
    expect(s.ci_95[0]).toBeGreaterThanOrEqual(
      verifiedShare({ ...all, detectionDesignEffect: 2, ciRule: 'product' }).ci_95[0],
    );
  });

  it('where a rate is 0 or no detection was measured, the product rule stands', () => {
    const none = { passages: 149, found: 0, fetched: 0, verified: 0, unchecked: 0 };
    expect(verifiedShare(none)).toEqual(verifiedShare({ ...none, ciRule: 'product' }));
    expect(verifiedShare(none).ci_95[1]).toBe(0.0401);
    const refuted = {
      passages: 149,
      found: 9,
      fetched: 9,
      verified: 0,
      unchecked: 0,
      detection: { hits: 0, trials: 0 },
    };
    expect(verifiedShare(refuted)).toEqual(verifiedShare({ ...refuted, ciRule: 'product' }));
    const unmeasured = { passages: 149, found: 40, fetched: 20, verified: 20 };
    expect(verifiedShare(unmeasured)).toEqual(verifiedShare({ ...unmeasured, ciRule: 'product' }));
    // every fetched find unchecked: nothing shows a passage held, so the lower end is 0 under either rule
    const unchecked = {
      passages: 149,
      found: 40,
      fetched: 40,
      verified: 0,
      unchecked: 40,
      detection: { hits: 9, trials: 10 },
    };
    expect(verifiedShare(unchecked).ci_95[0]).toBe(0);
  });
});

/**
 * Searches simulated with a known share: each of n passages held with probability `share`, a held one found at the
 * detection rate, a passage not held found at 0.02 and then refuted by its document; the documents of `fetch` found
 * passages fetched; `tried` calibration passages in pairs that are found or missed together half the time (the
 * clusters the design effect of 2 allows for).
 */
function simulate(random: () => number, share: number, detect: number, n: number, fetch: number, tried: number) {
  let found = 0,
    held = 0;
  const finds: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const isHeld = random() < share;
    if (isHeld) held++;
    if (random() < (isHeld ? detect : 0.02)) {
      found++;
      finds.push(isHeld);
    }
  }
  const fetched = Math.min(fetch, found);
  // an even spread of the found passages: every (found ÷ fetched)-th
  let verified = 0;
  for (let i = 0; i < fetched; i++) if (finds[Math.floor((i * found) / fetched)]) verified++;
  let hits = 0;
  for (let i = 0; i < tried; i += 2) {
    const a = random() < detect;
    hits += a ? 1 : 0;
    hits += (random() < 0.5 ? a : random() < detect) ? 1 : 0;
  }
  const sample = { passages: n, found, fetched, verified, unchecked: 0, detection: { hits, trials: tried } };
  return { truth: held / n, sample: { ...sample, detectionDesignEffect: 2 } };
}

describe('coverage of the joint interval in simulated searches', () => {
  const cases = [
    { share: 0.1, detect: 0.95, fetch: 16, tried: 24 },
    { share: 0.25, detect: 0.8, fetch: 36, tried: 60 },
    { share: 0.5, detect: 0.95, fetch: 36, tried: 70 },
    { share: 0.5, detect: 0.75, fetch: 36, tried: 50 },
    { share: 0.9, detect: 0.9, fetch: 49, tried: 80 },
  ];
  for (const c of cases) {
    it(`a share of ${c.share} found at ${c.detect}: covers the sample's own share in ≥ 95 % of 2,000 searches, narrower than the product`, () => {
      const random = mulberry32(Math.round(c.share * 1000 + c.detect * 100));
      let covered = 0,
        jointWidth = 0,
        productWidth = 0;
      const runs = 2000;
      for (let i = 0; i < runs; i++) {
        const { truth, sample } = simulate(random, c.share, c.detect, 149, c.fetch, c.tried);
        const j = verifiedShare(sample);
        const p = verifiedShare({ ...sample, ciRule: 'product' });
        if (j.ci_95[0] <= truth && truth <= j.ci_95[1]) covered++;
        jointWidth += j.ci_95[1] - j.ci_95[0];
        productWidth += p.ci_95[1] - p.ci_95[0];
      }
      expect(covered / runs).toBeGreaterThanOrEqual(0.95);
      expect(jointWidth).toBeLessThan(0.85 * productWidth);
    });
  }
});
