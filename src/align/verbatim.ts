/**
 * Exact word runs of a pair and the verbatim passages they make (steps 2, 6 and 7 of the method in
 * compare.ts): whole-pair verbatim detection, word-exact edges for copied sentence passages, and the
 * merge of the two kinds of passage. Every stage is linear in the two texts' tokens (a bigram index
 * over typed arrays, at most MAX_CANDIDATES positions a bigram) or in the passages (sorted sweeps).
 */
import type { AlignedSpan, ResolvedCompareOptions } from './types.js';
import type { Prepared } from './prepare.js';
import { GramIndex, greedyRuns } from '../util/exact-runs.js';

/** Candidate positions kept per word bigram of b (bounds the work on repetitive texts). */
const MAX_CANDIDATES = 64;
/** Largest gap, in words, between two exact runs of one verbatim passage (on each side). */
const VERBATIM_GAP = 20;
/** Exact runs must hold at least this many words in all for a passage to count as verbatim. */
export const VERBATIM_MIN_WORDS = 40;
/**
 * Shortest exact run of a short pair (see verbatimPassages); the runs must still cover 80 % of the
 * shorter text, so scattered shared bigrams never add up to a passage.
 */
const SHORT_MIN_RUN = 2;
/** A sentence passage this much covered (on `a`) by verbatim passages is replaced by them. */
const VERBATIM_COVER = 0.5;
/** Chains a run may join: the most recent ones (runs come in order of `a`). */
const CHAIN_LOOKBACK = 8;

const CLOSERS = /^[.!?…]*["'”’»)\]]*/;

/** The end offset `e` of a word moved past closing sentence punctuation and quotes. */
export const closeAt = (text: string, e: number): number => e + (CLOSERS.exec(text.slice(e, e + 8))?.[0].length ?? 0);

/** A token range of each text: [ta0, ta1) of a and [tb0, tb1) of b. */
interface TokenRange {
  readonly ta0: number;
  readonly ta1: number;
  readonly tb0: number;
  readonly tb1: number;
}

/**
 * Exact runs of at least `K` words (all words), greedy longest-first from left to right in a, as flat
 * triples [a0, b0, len, a0, b0, len, …] of token indices: the library's one run finder (src/util/exact-runs.ts)
 * over b's word bigrams, at most MAX_CANDIDATES positions each.
 */
export function exactRuns(pa: Prepared, pb: Prepared, K: number, r?: TokenRange): number[] {
  const { ta0, ta1, tb0, tb1 } = r ?? { ta0: 0, ta1: pa.tokWord.length, tb0: 0, tb1: pb.tokWord.length };
  return greedyRuns(pa.tokWord, new GramIndex(pb.tokWord, 2, MAX_CANDIDATES, tb0, tb1), K, ta0, ta1);
}

/** A chain of exact runs in token indices: [a0, a1) of a, [b0, b1) of b, `n` run words. */
interface Chain {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
  n: number;
}

/** Runs chained in order on both sides, each joining a recent chain it follows within VERBATIM_GAP words. */
function chainRuns(runs: number[]): Chain[] {
  const chains: Chain[] = [];
  for (let r = 0; r < runs.length; r += 3) {
    const p = runs[r],
      q = runs[r + 1],
      len = runs[r + 2];
    let c: Chain | null = null;
    for (let k = chains.length - 1; k >= 0 && k >= chains.length - CHAIN_LOOKBACK; k--) {
      const x = chains[k];
      if (p - x.a1 <= VERBATIM_GAP && q >= x.b1 && q - x.b1 <= VERBATIM_GAP) {
        c = x;
        break;
      }
    }
    if (c) {
      c.a1 = p + len;
      c.b1 = q + len;
      c.n += len;
    } else chains.push({ a0: p, a1: p + len, b0: q, b1: q + len, n: len });
  }
  return chains;
}

/**
 * Verbatim passages of the whole pair, independent of the sentence seeds: exact word runs of at least
 * `verbatimRun` words are chained in order on both sides (gaps ≤ VERBATIM_GAP words); a chain holding at
 * least VERBATIM_MIN_WORDS run words that cover `verbatimShare` of its extent on both sides is a passage
 * with word-exact edges (extended while the words agree).
 */
export function verbatimPassages(
  pa: Prepared,
  pb: Prepared,
  a: string,
  b: string,
  o: ResolvedCompareOptions,
): AlignedSpan[] {
  // A pair whose shorter text has under 50 words could never reach 40 run words: the thresholds
  // scale with it (runs of a quarter of its words, at least 2), so a near copy of a short text is a
  // passage too. From 50 words on (runs: from 24), nothing changes.
  const words = Math.min(pa.tokWord.length, pb.tokWord.length);
  const minWords = Math.min(VERBATIM_MIN_WORDS, Math.ceil(o.verbatimShare * words));
  const runLength = Math.min(o.verbatimRun, Math.max(SHORT_MIN_RUN, Math.floor(words / 4)));
  const W = pa.tokWord,
    V = pb.tokWord;
  const out: AlignedSpan[] = [];
  for (const c of chainRuns(exactRuns(pa, pb, runLength))) {
    if (c.n < minWords || c.n < o.verbatimShare * (c.a1 - c.a0) || c.n < o.verbatimShare * (c.b1 - c.b0)) continue;
    while (c.a0 > 0 && c.b0 > 0 && W[c.a0 - 1] === V[c.b0 - 1]) {
      c.a0--;
      c.b0--;
    }
    while (c.a1 < W.length && c.b1 < V.length && W[c.a1] === V[c.b1]) {
      c.a1++;
      c.b1++;
    }
    out.push(tokenSpan(pa, pb, a, b, c, 1));
  }
  return out;
}

/**
 * `found` with the exact runs of at least `minWords` words it misses: a run beside a passage on both sides widens it,
 * a run that no passage overlaps on either side is a verbatim span (score 1) of its own — the short quotations the
 * sentence aligner leaves out (under `minLength`, or too few words for a verbatim chain). Only `compare` adds them;
 * they do not change how the rest of the pair is aligned.
 */
export function shortRuns(
  pa: Prepared,
  pb: Prepared,
  a: string,
  b: string,
  minWords: number,
  found: readonly AlignedSpan[],
): AlignedSpan[] {
  const runs = exactRuns(pa, pb, minWords);
  const spans = found.slice();
  for (let r = 0; r < runs.length; r += 3) {
    const p = runs[r],
      q = runs[r + 1],
      len = runs[r + 2];
    const s = tokenSpan(pa, pb, a, b, { a0: p, a1: p + len, b0: q, b1: q + len }, 1);
    // a run just beside a passage on both sides is that passage's edge, which the aligner trimmed: the passage
    // grows over it (one detection per reused passage); a run that overlaps a passage on one side only is left out
    const near = spans.findIndex(
      (v) =>
        gap(v.a_start, v.a_end, s.a_start, s.a_end) <= EDGE_GAP &&
        gap(v.b_start, v.b_end, s.b_start, s.b_end) <= EDGE_GAP,
    );
    if (near >= 0) {
      const v = spans[near];
      spans[near] = {
        ...v,
        a_start: Math.min(v.a_start, s.a_start),
        a_end: Math.max(v.a_end, s.a_end),
        b_start: Math.min(v.b_start, s.b_start),
        b_end: Math.max(v.b_end, s.b_end),
      };
      continue;
    }
    const touches = (v: AlignedSpan) =>
      (v.a_start < s.a_end && s.a_start < v.a_end) || (v.b_start < s.b_end && s.b_start < v.b_end);
    if (!spans.some(touches)) spans.push(s);
  }
  return spans;
}

/** Characters between two ranges (0 when they overlap or touch). */
const gap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, b0 - a1, a0 - b1);

/** A short run this close (characters) to a passage on both sides is that passage's edge (see shortRuns). */
const EDGE_GAP = 200;

/** The span of token ranges [a0, a1) of a and [b0, b1) of b, ends moved past closing punctuation. */
function tokenSpan(pa: Prepared, pb: Prepared, a: string, b: string, r: Omit<Chain, 'n'>, score: number): AlignedSpan {
  return {
    a_start: pa.tokStart[r.a0],
    a_end: closeAt(a, pa.tokEnd[r.a1 - 1]),
    b_start: pb.tokStart[r.b0],
    b_end: closeAt(b, pb.tokEnd[r.b1 - 1]),
    score,
  };
}

/**
 * Verbatim passages get word-exact boundaries: exact runs of at least `verbatimRun` words (greedy,
 * longest first match from left to right) inside the passage pair's tokens `r`; when they cover at least
 * `verbatimShare` of the words between the first and the last run, the spans shrink to that extent — on each
 * side where what lies beyond the runs is not reworded reuse ({@link reworded}): a copy that runs on edited
 * keeps the edited part, with the passage's own edge there.
 */
export function refineVerbatim(
  s: AlignedSpan,
  r: TokenRange,
  pa: Prepared,
  pb: Prepared,
  a: string,
  b: string,
  o: ResolvedCompareOptions,
): AlignedSpan {
  const K = o.verbatimRun;
  if (K === 0 || r.ta1 - r.ta0 < K || r.tb1 - r.tb0 < K) return s;
  const W = pa.tokWord,
    V = pb.tokWord;
  const runs = exactRuns(pa, pb, K, r);
  if (runs.length === 0) return s;
  let covered = 0,
    rb0 = Infinity,
    rb1 = -1;
  for (let k = 0; k < runs.length; k += 3) {
    covered += runs[k + 2];
    rb0 = Math.min(rb0, runs[k + 1]);
    rb1 = Math.max(rb1, runs[k + 1] + runs[k + 2]);
  }
  let ra0 = runs[0];
  let ra1 = runs[runs.length - 3] + runs[runs.length - 1];
  if (covered < o.verbatimShare * (ra1 - ra0) || covered < VERBATIM_MIN_WORDS) return s;
  const trimStart = !reworded(pa, pb, r.ta0, ra0, r.tb0, rb0);
  const trimEnd = !reworded(pa, pb, ra1, r.ta1, rb1, r.tb1);
  if (!trimStart && !trimEnd) return s;
  // the copy may run on past the sentences that seeded it: extend word by word while the words agree
  if (trimStart)
    while (ra0 > 0 && rb0 > 0 && W[ra0 - 1] === V[rb0 - 1]) {
      ra0--;
      rb0--;
    }
  if (trimEnd)
    while (ra1 < W.length && rb1 < V.length && W[ra1] === V[rb1]) {
      ra1++;
      rb1++;
    }
  const exact = tokenSpan(pa, pb, a, b, { a0: ra0, a1: ra1, b0: rb0, b1: rb1 }, s.score);
  return {
    a_start: trimStart ? exact.a_start : s.a_start,
    a_end: trimEnd ? exact.a_end : s.a_end,
    b_start: trimStart ? exact.b_start : s.b_start,
    b_end: trimEnd ? exact.b_end : s.b_end,
    score: s.score,
  };
}

/**
 * True when tokens [a0, a1) of a and [b0, b1) of b — the part of a passage pair beyond its exact runs on one
 * side — are reworded reuse, not sentence slack: each holds at least REWORDED_MIN_WORDS content words and their
 * Dice coefficient (content terms, counted with repeats) reaches REWORDED_DICE. A third of the words replaced
 * and neighbours swapped leaves about 0.6; the neighbouring sentences a passage of sentences takes in beside a
 * copy share few content words.
 */
function reworded(pa: Prepared, pb: Prepared, a0: number, a1: number, b0: number, b1: number): boolean {
  const count = new Map<number, number>();
  let na = 0,
    nb = 0,
    shared = 0;
  for (let t = a0; t < a1; t++) {
    const term = pa.tokTerm[t];
    if (term < 0) continue;
    na++;
    count.set(term, (count.get(term) ?? 0) + 1);
  }
  for (let t = b0; t < b1; t++) {
    const term = pb.tokTerm[t];
    if (term < 0) continue;
    nb++;
    const c = count.get(term) ?? 0;
    if (c > 0) {
      shared++;
      count.set(term, c - 1);
    }
  }
  return na >= REWORDED_MIN_WORDS && nb >= REWORDED_MIN_WORDS && 2 * shared >= REWORDED_DICE * (na + nb);
}

/**
 * Content words each side of a passage's part beyond its exact runs needs to count as reworded reuse (a sentence
 * or so: fewer is slack either way).
 */
const REWORDED_MIN_WORDS = 8;
/**
 * Dice coefficient of content words from which a passage's part beyond its exact runs is reworded reuse. On the
 * PAN 2013 training corpus (bench/eval-pan.mjs) every sub-corpus scored the same with 0.35 and 0.5 as without the
 * rule (02 0.9949); trimming to the runs whatever lies beyond them within 40 words instead cost 02 0.009.
 */
const REWORDED_DICE = 0.5;

/** Spans sorted by their start on one side, with the running maximum of their ends: overlap queries. */
class SpanIndex {
  private readonly order: number[];
  private readonly maxEnd: Float64Array;

  constructor(
    private readonly spans: readonly AlignedSpan[],
    private readonly side: 'a' | 'b',
  ) {
    const start = (k: number): number => (side === 'a' ? spans[k].a_start : spans[k].b_start);
    this.order = spans.map((_, k) => k).sort((x, y) => start(x) - start(y) || x - y);
    this.maxEnd = new Float64Array(spans.length);
    let m = -Infinity;
    for (let k = 0; k < this.order.length; k++) this.maxEnd[k] = m = Math.max(m, this.end(this.order[k]));
  }

  private start(k: number): number {
    return this.side === 'a' ? this.spans[k].a_start : this.spans[k].b_start;
  }

  private end(k: number): number {
    return this.side === 'a' ? this.spans[k].a_end : this.spans[k].b_end;
  }

  /** Indices (ascending) of the spans overlapping [start, end) on this side. */
  overlapping(start: number, end: number): number[] {
    let lo = 0,
      hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.start(this.order[mid]) < end) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let k = lo - 1; k >= 0 && this.maxEnd[k] > start; k--) {
      if (this.end(this.order[k]) > start) out.push(this.order[k]);
    }
    return out.sort((x, y) => x - y);
  }
}

/**
 * Combine the sentence-level passages with the verbatim passages: a sentence passage mostly covered (on
 * both sides, by `a` characters) by verbatim passages is replaced by them (exact edges, one detection per
 * copied passage); a verbatim passage that no sentence passage touches is added (copies the seeds missed).
 */
export function mergeVerbatim(spans: AlignedSpan[], verb: AlignedSpan[]): AlignedSpan[] {
  if (verb.length === 0) return spans;
  const out: AlignedSpan[] = [];
  const used = new Uint8Array(verb.length);
  const verbA = new SpanIndex(verb, 'a');
  for (const s of spans) {
    const vs = verbA
      .overlapping(s.a_start, s.a_end)
      .filter((k) => s.b_start < verb[k].b_end && verb[k].b_start < s.b_end);
    let cov = 0;
    for (const k of vs) cov += Math.min(s.a_end, verb[k].a_end) - Math.max(s.a_start, verb[k].a_start);
    if (vs.length > 0 && cov >= VERBATIM_COVER * (s.a_end - s.a_start)) {
      for (const k of vs)
        if (!used[k]) {
          used[k] = 1;
          out.push(verb[k]);
        }
    } else {
      for (const k of vs) used[k] = 1;
      out.push(s);
    }
  }
  const spansA = new SpanIndex(spans, 'a'),
    spansB = new SpanIndex(spans, 'b');
  for (const [k, v] of verb.entries()) {
    const touched =
      spansA.overlapping(v.a_start, v.a_end).length > 0 || spansB.overlapping(v.b_start, v.b_end).length > 0;
    if (!used[k] && !touched) out.push(v);
  }
  return out;
}
