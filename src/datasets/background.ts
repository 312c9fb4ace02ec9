/**
 * The null of a portrait: how unrelated natural text hits it, measured, and the chance of a query's runs of hits
 * under it.
 *
 * **Why a measured null.** A portrait answers "is this n-gram in the corpus?" with false positives at the filter's
 * rate (≈ 1.1 %), but that is not how often unrelated text hits it: the common phrases of a language ("at the end of
 * the", "the name of the ship") are real members of any large corpus of that language. On natural English in no
 * pack, the shipped portraits are hit 1.4–5 % of the time, not 1.1–2.3 %, and a plain count of scattered hits
 * tested against the filter's rate calls every long enough text a member. Two things stay rare in unrelated text:
 * **runs** of consecutive hits (a copied passage hits on nearly every fingerprint it spans) and the same n-grams
 * recurring as runs. So the evidence is read from runs only, against run rates measured on natural text.
 *
 * **The model** (a two-state Markov chain of hits along the query's winnowed fingerprints, with a heavier tail):
 * after a miss a run of hits starts with probability `a`; a run of one goes on to two with probability `c₁`, and a run
 * of k ≥ 2 goes on to k + 1 with probability `cₜ`. The chance that a run of at least r hits starts at a given place is
 * π(r) = a · c₁ · cₜ^(r−2). `engine.measureBackground` reads `a`, `c₁` and `cₜ` off a background corpus of natural
 * text kept out of the dataset (`c₁` and `cₜ` as the upper ends of their 95 % Wilson intervals, `cₜ` pooled over
 * runs of 2–5 so that a few long quotations in the background do not dominate it, with 20 pseudo-runs at the default
 * rate so that a background with few runs of two does not leave it unbounded). Each query then uses its own
 * start rate where that is higher — the hits outside its runs per miss, shrunk towards the measured rate — so a text
 * dense in stock phrases is judged against its own density (overdispersion between texts), never a lower one.
 *
 * **The statistic** (as for the chains of an exact dataset, src/services/analyze/evidence.ts). Runs are counted by
 * the fingerprints they add: sorted longest first, a run counts only the hashes no earlier run holds, so a phrase
 * repeated through the text ("the Government of the United States of America", ten times) is one run, not ten. The
 * K runs of at least two new fingerprints, with π₍ⱼ₎ the j-th smallest, give
 *
 *     chance = min(1, K · minⱼ P(Poisson(m · π₍ⱼ₎) ≥ j))      (m: the query's fingerprints)
 *
 * One long run (j = 1: a quotation) and many short ones (a copy with word edits) are both covered. The runs that
 * reach the minimum are the evidence, shown as matches when the chance is below the dataset's alpha; scattered
 * single hits never enter it.
 */
import { TrainprintError } from '../errors.js';
import { type ChainNull, checkChainNull } from './chain-null.js';
import { poissonUpperTail, wilsonInterval } from '../stats/binomial.js';
import { round6 } from '../util/round.js';

/** How unrelated natural text hits a portrait (see the module comment), with how it was measured. */
export interface PortraitBackground {
  /** `a`: runs of hits that start per miss. */
  readonly run_start: number;
  /** `c₁`: P(a run of one hit goes on to two), upper end of its 95 % interval. */
  readonly continue_first: number;
  /** `cₜ`: P(a run of k ≥ 2 hits goes on to k + 1), pooled over k = 2..4, upper end of its 95 % interval. */
  readonly continue_tail: number;
  /** Hits per fingerprint of the background (the rate scattered hits are read against). */
  readonly hit_rate: number;
  /**
   * Intra-text correlation ρ of the background's hit counts (beta-binomial overdispersion: a text's hit rate varies
   * around `hit_rate` with variance `hit_rate · (1 − hit_rate) · ρ`); 0 when the texts vary no more than binomially.
   */
  readonly dispersion: number;
  /** What it was measured on. */
  readonly measured_on: {
    /** The background corpus in words: its sources, how it was kept out of the dataset. */
    readonly corpus: string;
    readonly texts: number;
    /** Query fingerprints looked up. */
    readonly fingerprints: number;
    /** YYYY-MM-DD. */
    readonly date: string;
  };
  /**
   * For a portrait that locates: how long the chains of documents of its kind that it does not hold reach
   * (./chain-null.ts), measured apart from the rest on its own corpus. Absent: its chains keep their own chance.
   */
  readonly chains?: ChainNull;
}

/**
 * The largest share of a section's n-grams another document holds by chance under the pack's null: the mean
 * `hit_rate` plus 3.09 standard deviations (1 in 1,000) of its text-to-text spread, `hit_rate · (1 − hit_rate) ·
 * dispersion`. Japanese character 5-grams (ている) are in every novel: 39 % for `pack:aozora`, 2–9 % for English packs.
 * @example
 * sharedByChance({ hit_rate: 0.208809, dispersion: 0.021148 }) // 0.3915
 */
export function sharedByChance(bg: Pick<PortraitBackground, 'hit_rate' | 'dispersion'>): number {
  const p = Math.min(Math.max(bg.hit_rate, 0), 1);
  return p + 3.09 * Math.sqrt(p * (1 - p) * Math.max(bg.dispersion, 0));
}

/**
 * The null of a portrait nobody measured one for: the largest rates measured on the shipped reference packs
 * (bench/measure-background.mjs, natural English in no pack), rounded up. A portrait of another language, of code or
 * of a web-scale corpus can be hit more often; measure its own with `engine.measureBackground`.
 */
export const DEFAULT_PORTRAIT_BACKGROUND: PortraitBackground = Object.freeze({
  run_start: 0.05,
  continue_first: 0.1,
  continue_tail: 0.3,
  hit_rate: 0.06,
  dispersion: 0.02,
  measured_on: Object.freeze({
    corpus:
      'not measured for this dataset: the largest rates measured on the shipped reference packs, rounded up (docs/analyze.md)',
    texts: 0,
    fingerprints: 0,
    date: '2026-11-25',
  }),
});

/** Prior weight, in misses, of the measured start rate when a query's own rate is estimated. */
const SHRINK_MISSES = 50;
/** Runs of fewer new fingerprints than this are read as background, never as evidence. */
export const MIN_EVIDENCE_RUN = 2;
/** Run lengths pooled for `continue_tail`: k = 2 .. TAIL_LAST. */
const TAIL_LAST = 4;
/**
 * Pseudo-runs at the default tail rate added to the measured ones: a small portrait or a small background shows few
 * runs of two hits, and an interval over none is [0, 1]; with the prior the tail starts at the default's and the
 * measurement takes over as runs accumulate (the reference packs: 100–260 runs).
 */
const TAIL_PRIOR_RUNS = 20;

/** One run of consecutive hits of a query: [start, end) in fingerprint positions, and its distinct hashes. */
export interface HitRun {
  readonly start: number;
  readonly end: number;
  /** Distinct fingerprints in the run. */
  readonly distinct: number;
  /** Distinct fingerprints no longer run holds (see the module comment). */
  readonly fresh: number;
  /** min(1, m · π(distinct)): the chance of a run at least this long anywhere in the query. */
  readonly chance: number;
}

/** What the statistic of one query found. */
export interface RunEvidence {
  /** Every run of hits, in query order. */
  readonly runs: HitRun[];
  /** Indices into `runs` of the runs the chance rests on (strongest first); empty when there are none. */
  readonly evidence: number[];
  /** Runs of at least {@link MIN_EVIDENCE_RUN} fresh fingerprints (K). */
  readonly counted: number;
  /** The start rate used: the measured one, or the query's own where higher. */
  readonly run_start: number;
  readonly chance: number;
}

/**
 * The runs of `hits` (1 = the fingerprint at that position is in the portrait) and their chance under `bg`.
 * @example
 * const hits = Uint8Array.from([0, 1, 1, 1, 1, 1, 1, 0, 0, 1])
 * runEvidence(hits, BigUint64Array.from([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n]), DEFAULT_PORTRAIT_BACKGROUND).evidence
 * // [0]: the run of six; the single hit at the end is background
 */
export function runEvidence(hits: Uint8Array, hashes: BigUint64Array, bg: PortraitBackground): RunEvidence {
  const m = hits.length;
  // a run's fingerprints are compared by a 32-bit key of each 64-bit hash (its halves mixed): no BigInt per hit,
  // and two of a query's few thousand hit hashes share a key about once in a thousand queries, which can only lower
  // a run's fresh count (a more cautious chance)
  const u = new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.length * 2);
  const keyAt = (i: number): number => (u[2 * i] ^ Math.imul(u[2 * i + 1], 0x9e3779b1)) >>> 0;
  const spans: Array<{ start: number; end: number; keys: number[] }> = [];
  for (let i = 0; i < m; ) {
    if (!hits[i]) {
      i++;
      continue;
    }
    const keys = new Set<number>();
    let j = i;
    for (; j < m && hits[j]; j++) keys.add(keyAt(j));
    spans.push({ start: i, end: j, keys: [...keys] });
    i = j;
  }
  // fresh fingerprints: longest first (then earlier), each run counting only hashes no run before it holds
  const order = spans.map((_, k) => k).sort((x, y) => spans[y].keys.length - spans[x].keys.length || x - y);
  const fresh = new Int32Array(spans.length);
  const seen = new Set<number>();
  for (const k of order) {
    let n = 0;
    for (const h of spans[k].keys) if (!seen.has(h)) n++;
    for (const h of spans[k].keys) seen.add(h);
    fresh[k] = n;
  }
  // the query's own start rate: runs that are not evidence, per miss, shrunk towards the measured rate
  let misses = 0;
  for (let i = 0; i < m; i++) misses += hits[i] ^ 1;
  let background = 0;
  for (let k = 0; k < spans.length; k++) if (fresh[k] < MIN_EVIDENCE_RUN) background++;
  const own = (background + SHRINK_MISSES * bg.run_start) / (misses + SHRINK_MISSES);
  const a = Math.min(1, Math.max(bg.run_start, own));
  const pi = (r: number): number =>
    r <= 1 ? a : Math.min(1, a * bg.continue_first * bg.continue_tail ** (r - MIN_EVIDENCE_RUN));
  const runs: HitRun[] = spans.map((s, k) => ({
    start: s.start,
    end: s.end,
    distinct: s.keys.length,
    fresh: fresh[k],
    chance: Math.min(1, m * pi(s.keys.length)),
  }));
  const counted = order.filter((k) => fresh[k] >= MIN_EVIDENCE_RUN).sort((x, y) => fresh[y] - fresh[x] || x - y);
  let best = 1;
  let upTo = 0;
  for (let j = 1; j <= counted.length; j++) {
    const p = poissonUpperTail(j, m * pi(fresh[counted[j - 1]]));
    if (p < best) {
      best = p;
      upTo = j;
    }
  }
  const chance = counted.length === 0 ? 1 : Math.min(1, counted.length * best);
  return {
    runs,
    evidence: counted.slice(0, upTo).sort((x, y) => x - y),
    counted: counted.length,
    run_start: a,
    chance,
  };
}

/** Counts a background measurement accumulates, text by text (see {@link BackgroundTally.add}). */
export class BackgroundTally {
  texts = 0;
  fingerprints = 0;
  hits = 0;
  misses = 0;
  starts = 0;
  /** runsAtLeast[k]: runs of at least k distinct fingerprints (k = 1 .. TAIL_LAST + 1). */
  readonly runsAtLeast = new Float64Array(TAIL_LAST + 2);
  /** Per text: [fingerprints, hits], for the dispersion. */
  private readonly perText: Array<[number, number]> = [];

  /** Add one background text's hits (1 = in the portrait) and fingerprint hashes. */
  add(hits: Uint8Array, hashes: BigUint64Array): void {
    const m = hits.length;
    if (m === 0) return;
    let h = 0;
    for (let i = 0; i < m; ) {
      if (!hits[i]) {
        this.misses++;
        i++;
        continue;
      }
      const keys = new Set<bigint>();
      let j = i;
      while (j < m && hits[j]) keys.add(hashes[j++]);
      h += j - i;
      this.starts++;
      for (let k = 1; k <= Math.min(keys.size, TAIL_LAST + 1); k++) this.runsAtLeast[k]++;
      i = j;
    }
    this.texts++;
    this.fingerprints += m;
    this.hits += h;
    this.perText.push([m, h]);
  }

  /**
   * The background these counts give. `floor` is the filter's false-positive rate: runs start at least that often
   * whatever the text (a small background may show none).
   * @throws INVALID_INPUT when no text had a fingerprint
   */
  result(corpus: string, date: string, floor = 0): PortraitBackground {
    if (this.fingerprints === 0)
      throw new TrainprintError('INVALID_INPUT', 'the background texts give no fingerprints: nothing to measure on');
    const r = this.runsAtLeast;
    let tailUp = 0,
      tailAll = 0;
    for (let k = 2; k <= TAIL_LAST; k++) {
      tailUp += r[k + 1];
      tailAll += r[k];
    }
    const p = this.hits / this.fingerprints;
    const prior = DEFAULT_PORTRAIT_BACKGROUND.continue_tail;
    return {
      run_start: round6(Math.max(floor, this.starts / Math.max(1, this.misses))),
      continue_first: round6(wilsonInterval(r[2], r[1])[1]),
      continue_tail: round6(wilsonInterval(tailUp + TAIL_PRIOR_RUNS * prior, tailAll + TAIL_PRIOR_RUNS)[1]),
      hit_rate: round6(Math.max(floor, p)),
      dispersion: round6(intraTextCorrelation(this.perText, p)),
      measured_on: { corpus, texts: this.texts, fingerprints: this.fingerprints, date },
    };
  }
}

/**
 * ρ of a beta-binomial fitted by moments to per-text counts (n_i, x_i) around the pooled rate p: the excess of the
 * observed variance of x_i over the binomial one, relative to what ρ = 1 would add (Kleinman 1973's estimator); 0
 * when there is no excess.
 */
function intraTextCorrelation(texts: ReadonlyArray<readonly [number, number]>, p: number): number {
  if (texts.length < 2 || p <= 0 || p >= 1) return 0;
  let excess = 0,
    scale = 0;
  for (const [n, x] of texts) {
    excess += (x - n * p) ** 2 - n * p * (1 - p);
    scale += n * (n - 1) * p * (1 - p);
  }
  return scale > 0 ? Math.min(1, Math.max(0, excess / scale)) : 0;
}

/** Check a background given by a caller or read from a file (INVALID_INPUT naming the field). */
export function checkPortraitBackground(v: unknown, where = 'background'): PortraitBackground {
  const bad = (detail: string): never => {
    throw new TrainprintError('INVALID_INPUT', `${where}: ${detail}`);
  };
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad('must be an object');
  const o = v as Record<string, unknown>;
  const keys = ['run_start', 'continue_first', 'continue_tail', 'hit_rate', 'dispersion', 'measured_on'];
  for (const k of Object.keys(o)) if (k !== 'chains' && !keys.includes(k)) bad(`unknown field "${k}"`);
  for (const k of keys.slice(0, 5)) {
    const x = o[k];
    if (typeof x !== 'number' || !(x >= 0 && x <= 1)) bad(`"${k}" must be a number in [0, 1]`);
  }
  if (!((o.run_start as number) > 0)) bad('"run_start" must be above 0');
  const mo = o.measured_on as Record<string, unknown> | undefined;
  if (mo === null || typeof mo !== 'object' || Array.isArray(mo)) bad('"measured_on" must be an object');
  for (const k of Object.keys(mo!))
    if (!['corpus', 'texts', 'fingerprints', 'date'].includes(k)) bad(`unknown field "measured_on.${k}"`);
  if (typeof mo!.corpus !== 'string' || mo!.corpus.length === 0 || mo!.corpus.length > 2000)
    bad('"measured_on.corpus" must be a string of 1 to 2000 characters');
  for (const k of ['texts', 'fingerprints'])
    if (!Number.isSafeInteger(mo![k]) || (mo![k] as number) < 0) bad(`"measured_on.${k}" must be an integer ≥ 0`);
  if (typeof mo!.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(mo!.date))
    bad('"measured_on.date" must be YYYY-MM-DD');
  return {
    run_start: o.run_start as number,
    continue_first: o.continue_first as number,
    continue_tail: o.continue_tail as number,
    hit_rate: o.hit_rate as number,
    dispersion: o.dispersion as number,
    measured_on: {
      corpus: mo!.corpus as string,
      texts: mo!.texts as number,
      fingerprints: mo!.fingerprints as number,
      date: mo!.date as string,
    },
    ...(o.chains === undefined ? {} : { chains: checkChainNull(o.chains, `${where}.chains`) }),
  };
}
