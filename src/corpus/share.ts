/**
 * The share of a work that a corpus holds, estimated from a sample of its passages (a remote corpus searched by
 * sampling, src/remote/sampling.ts): n passages drawn across the work, k of them found.
 *
 * A passage of the work that the corpus holds is found with probability `sensitivity` s (the search misses some:
 * measured on planted passages, {@link SAMPLING_SENSITIVITY}; it depends on the corpus — one that breaks its lines
 * where the work does not costs the search more — so the least it was measured at, `worst`, is kept as well); one it
 * does not hold is found with probability `falseFound` f (measured on natural texts, {@link SAMPLING_FALSE_FOUND}).
 * So E[k/n] = s·share + f·(1 − share), and
 *
 *   estimate = (k/n − f) / (s − f), clamped to [0, 1], with s the sensitivity over every corpus form measured;
 *   95 % interval: the Wilson score interval of k/n (Wilson 1927, which holds its level at small n and at k = 0 or
 *   k = n, where the normal interval collapses), each end turned into a share with the least favourable rates — the
 *   lower end as if the search missed nothing (s = 1) and found falsely at the false-found rate's upper bound (the
 *   rule of three, 3/m, for 0 of m), the upper end with no false finds and the Wilson lower bound of the worst
 *   form's sensitivity. So the interval holds whichever form the corpus has.
 *
 * Passages are drawn stratified by section (proportional allocation), which makes the variance at most that of a
 * simple random sample of the same size (Cochran 1977, §5.6): the Wilson interval of the pooled proportion is then
 * conservative, most of all for a work whose sections are held or not held as a whole.
 */

/** A measured rate: how many of how many. */
export interface MeasuredRate {
  readonly hits: number;
  readonly trials: number;
}

/**
 * Passages of a work found by the sampled search where the corpus holds all of it, over the corpus forms measured: a
 * novel (EPUB, reflowed) against the fixture infini-gram engine holding its chapters hard-wrapped (5,165 of 6,000)
 * and reflowed with Gutenberg's two spaces after a sentence (977 of 1,500) (`bench/whole-works.mjs`, part
 * `sampling`, `rates.sensitivity`).
 */
export const SAMPLING_SENSITIVITY: MeasuredRate = Object.freeze({ hits: 6142, trials: 7500 });

/**
 * The sensitivity in the form of corpus the search found least: a reflowed corpus that keeps two spaces after a
 * sentence (as Project Gutenberg's files do) against a work with one (an EPUB's text), measured with the search
 * before it skipped such places. Its Wilson lower bound (0.627) is what {@link verifiedShare} divides the upper end
 * by where a run measured no detection rate of its own (nothing held found): below every rate the present search
 * measured over the forms of `bench/whole-works.mjs` (part `forms`: 0.67 at the least).
 */
export const SAMPLING_SENSITIVITY_WORST: MeasuredRate = Object.freeze({ hits: 977, trials: 1500 });

/**
 * Passages found where the corpus holds none of the work: 0 of 6,000 (`bench/whole-works.mjs`, `rates.false_found`:
 * the novel against the engine holding another book).
 */
export const SAMPLING_FALSE_FOUND: MeasuredRate = Object.freeze({ hits: 0, trials: 6000 });

/** z of a two-sided 95 % interval. */
const Z95 = 1.959964;

/**
 * The Wilson score interval of k successes in n trials at 95 %.
 *
 * @example
 * wilson(0, 150) // [0, 0.025]
 */
export function wilson(k: number, n: number): [number, number] {
  if (n <= 0) return [0, 1];
  const p = k / n,
    z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** What {@link estimateShare} is given: the sample and the measured rates of the search. */
export interface ShareSample {
  /** Passages drawn and searched. */
  readonly passages: number;
  /** Passages found in the corpus. */
  readonly found: number;
  /** @default {@link SAMPLING_SENSITIVITY} */
  readonly sensitivity?: MeasuredRate;
  /** @default {@link SAMPLING_SENSITIVITY_WORST} */
  readonly sensitivityWorst?: MeasuredRate;
  /** @default {@link SAMPLING_FALSE_FOUND} */
  readonly falseFound?: MeasuredRate;
  /**
   * Found passages whose documents were fetched, and of those the ones the document holds (aligned): with these
   * the share counts verified passages only ({@link verifiedShare}); without them, found passages as found.
   */
  readonly fetched?: number;
  readonly verified?: number;
  /**
   * Of the fetched, the ones neither verified nor shown not to hold the passage (the document holds the stretch
   * found with the work's words beside it, but no alignment long enough to verify it): found but unchecked. They are
   * no evidence either way: the estimate counts them at the rate of the checked ones, and the interval runs from
   * none of them held to all of them held. @default 0
   */
  readonly unchecked?: number;
  /** Passages the documents show the corpus holds, searched as the sample was: the detection rate of this run. */
  readonly detection?: MeasuredRate;
  /**
   * How many of the detection's trials count as one independent trial in its interval: the calibration passages come
   * two from each fetched document (before and after a found passage), and two passages of one stretch are found or
   * missed together more often than two drawn apart — at most a design effect of 2 for clusters of two (Kish 1965,
   * §5.4). Results that count `documents.unchecked` were computed with 2; earlier ones with 1. @default 1
   */
  readonly detectionDesignEffect?: number;
  /**
   * How the verified share's interval joins the bounds of its rates: `joint` (one interval for their product, by the
   * method of variance estimates recovery) or `product` (the product of each rate's own bound: the rule of results
   * without `share.ci_rule`). See {@link verifiedShare}. @default 'joint'
   */
  readonly ciRule?: 'joint' | 'product';
}

/** The estimated share and its 95 % interval, each rounded to 4 decimals. */
export interface ShareEstimate {
  readonly estimate: number;
  readonly ci_95: readonly [number, number];
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/**
 * The share of a work a corpus holds, from `found` of `passages` sampled passages (see the module comment).
 * Everything it reads is in a result's `remote_corpora[].sampling`, so anyone can recompute it.
 *
 * @example
 * estimateShare({ passages: 150, found: 75 }) // { estimate: 0.5, ci_95: [0.4213, 0.5787] }
 * estimateShare({ passages: 150, found: 0 }).ci_95[1] // 0.025 (+ the false-found bound: 0)
 */
export function estimateShare(sample: ShareSample): ShareEstimate {
  const n = sample.passages,
    k = sample.found;
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || k < 0 || k > n)
    throw new RangeError('found and passages must be integers with 0 ≤ found ≤ passages');
  if (n === 0) return { estimate: 0, ci_95: [0, 1] };
  if (sample.verified !== undefined || sample.fetched !== undefined) return verifiedShare(sample);
  const sens = sample.sensitivity ?? SAMPLING_SENSITIVITY,
    worst = sample.sensitivityWorst ?? SAMPLING_SENSITIVITY_WORST,
    fals = sample.falseFound ?? SAMPLING_FALSE_FOUND;
  const s = sens.trials > 0 ? sens.hits / sens.trials : 1,
    f = fals.trials > 0 ? fals.hits / fals.trials : 0;
  const sLo = worst.trials > 0 ? wilson(worst.hits, worst.trials)[0] : 1;
  const fHi =
    fals.trials > 0 ? (fals.hits === 0 ? Math.min(1, 3 / fals.trials) : wilson(fals.hits, fals.trials)[1]) : 0;
  const [pLo, pHi] = wilson(k, n);
  const share = (p: number, sens: number, fal: number): number => (sens > fal ? clamp01((p - fal) / (sens - fal)) : 0);
  const estimate = share(k / n, s, f);
  const lo = Math.min(estimate, share(pLo, 1, fHi));
  // the upper end: no false finds and the lowest sensitivity (the most passages missed)
  const hi = Math.max(estimate, pHi >= 1 ? 1 : share(pHi, sLo, 0));
  return { estimate: round4(estimate), ci_95: [round4(lo), round4(hi)] };
}

/**
 * The share from verified passages (the sampled search that fetches documents, src/remote/sampling.ts): of n passages
 * k were found, d of those had their document fetched; of the d, v were held by it (aligned: verified), u were
 * neither verified nor shown not held (found but unchecked: the document holds the stretch found with the work around
 * it, but no alignment long enough to verify it), and the other a = d − v − u were shown not held (the document does
 * not hold the stretch, or holds only what was sent). The rate the documents confirm is r = v / (v + a), the checked
 * ones' (1 when none was checked): an unchecked find is not evidence against its passage. The found share that is
 * real is p·r, with p = k/n; the search finds a held passage at the detection rate s measured in the same run on
 * passages the documents show held (h of t found). So
 *
 *   estimate = (k/n)·r / (h/t), clamped to [0, 1].
 *
 * Each rate has its 95 % Wilson bounds: p's; r's from v/d (every unchecked find as not held) to (v + u)/d (every
 * unchecked find as held), so the interval covers the share whatever share of the fetched documents could be
 * verified; s's with its trials counted over the design effect ({@link ShareSample.detectionDesignEffect}). Where
 * every found passage was fetched (d = k) p and r are one rate, counted directly: Wilson of v/n and of (v + u)/n.
 * The interval of the estimate joins them by the method of variance estimates recovery (MOVER: Zou & Donner 2008,
 * "Construction of confidence limits about effect measures: a general approach", Statistics in Medicine 27:1693),
 * on the log scale where the estimate is a product: each rate's distance to its
 * bound, ln(bound ÷ rate), stands in for its standard error on that side, and the distances add in quadrature —
 *
 *   lower = min(1, p·r/s) × exp(−√(Σ ln²(rate ÷ its lower bound) + ln²(s's upper bound ÷ s))), at least the
 *           product rule's lower end (below);
 *   upper = p·r/s × exp(+√(Σ ln²(its upper bound ÷ rate) + ln²(s ÷ s's lower bound))), at most 1.
 *
 * Independent rates are not all at their worst at once: the product of their bounds (`ciRule: 'product'`, the rule
 * of earlier results: lower = Wilson lower of p × Wilson lower of v/d, the detection taken as 1; upper = the upper
 * bounds' product ÷ s's lower bound) is a level far above 95 %, and was 0.49–0.54 wide on single draws of code half
 * held where the joint interval is at most 0.34 (`bench/verified-share.mjs`, grid `code`). Wilson's bounds keep the
 * joint one honest at 0 or all of a rate found, where a standard error from the rate itself would vanish. Where a
 * rate is 0 (nothing verified: no logarithm) or nothing held was measured (t = 0: nothing found, or no calls left;
 * s's lower end is then the least measured over the forms of `bench/whole-works.mjs`,
 * {@link SAMPLING_SENSITIVITY_WORST}, a bound and no measurement), the product rule stands.
 *
 * With none fetched (d = 0) the estimate is 0 and only the upper end allows for the found passages.
 *
 * @example
 * verifiedShare({ passages: 100, found: 50, fetched: 50, verified: 50, detection: { hits: 30, trials: 30 } }).estimate // 0.5
 * verifiedShare({ passages: 100, found: 50, fetched: 30, verified: 15, unchecked: 15 }).estimate // 0.5: none checked failed
 */
export function verifiedShare(sample: ShareSample): ShareEstimate {
  const n = sample.passages,
    k = sample.found,
    d = sample.fetched ?? 0,
    v = sample.verified ?? 0,
    u = sample.unchecked ?? 0;
  if (!Number.isInteger(d) || !Number.isInteger(v) || d < 0 || v < 0 || v > d || d > k)
    throw new RangeError('verified and fetched must be integers with 0 ≤ verified ≤ fetched ≤ found');
  if (!Number.isInteger(u) || u < 0 || v + u > d)
    throw new RangeError('unchecked must be an integer with 0 ≤ verified + unchecked ≤ fetched');
  if (n === 0) return { estimate: 0, ci_95: [0, 1] };
  const det = sample.detection ?? { hits: 0, trials: 0 };
  const worst = sample.sensitivityWorst ?? SAMPLING_SENSITIVITY_WORST;
  const s = det.trials > 0 ? det.hits / det.trials : 1;
  const deff = sample.detectionDesignEffect ?? 1;
  if (!(deff >= 1)) throw new RangeError('detectionDesignEffect must be ≥ 1');
  const sLo =
    det.trials > 0
      ? wilson(det.hits / deff, det.trials / deff)[0]
      : worst.trials > 0
        ? wilson(worst.hits, worst.trials)[0]
        : 1;
  // the rate the checked documents confirm; with none checked (all unchecked) the finds count as found
  const checked = d - u;
  const r = checked > 0 ? v / checked : 1;
  // each rate of the product as [rate, Wilson lower, Wilson upper]
  const rates: [number, number, number][] = [];
  let p: number, lo: number, hi: number;
  if (d === k) {
    p = (k / n) * r;
    lo = wilson(v, n)[0];
    hi = wilson(v + u, n)[1];
    rates.push([p, lo, hi]);
  } else {
    const [pLo, pHi] = wilson(k, n);
    const [rLo, rHi] = d > 0 ? [wilson(v, d)[0], wilson(v + u, d)[1]] : [0, 1];
    p = d > 0 ? (k / n) * r : 0;
    lo = pLo * rLo;
    hi = pHi * rHi;
    rates.push([k / n, pLo, pHi], [r, rLo, rHi]);
  }
  const estimate = s > 0 ? clamp01(p / s) : p > 0 ? 1 : 0;
  let upper = sLo > hi ? hi / sLo : 1;
  if (sample.ciRule !== 'product' && p > 0 && s > 0 && det.trials > 0) {
    const sHi = wilson(det.hits / deff, det.trials / deff)[1];
    let below = Math.log(sHi / s) ** 2,
      above = Math.log(s / sLo) ** 2;
    for (const [x, l, h] of rates) {
      below += Math.log(x / l) ** 2;
      above += Math.log(h / x) ** 2;
    }
    // a share is at most 1: where more was found than the detection rate allows, the lower end is measured from 1,
    // and never below the product's (p and r at their lower bounds hold the share up whatever the detection rate)
    lo = Math.max(lo, Math.min(1, p / s) * Math.exp(-Math.sqrt(below)));
    upper = (p / s) * Math.exp(Math.sqrt(above));
  }
  return {
    estimate: round4(estimate),
    ci_95: [round4(Math.min(estimate, clamp01(lo))), round4(Math.max(estimate, clamp01(upper)))],
  };
}
