/**
 * `compare(a, b)`: text alignment with exact character spans (the engine's `compare`).
 *
 * Method (after Sanchez-Perez, Sidorov & Gelbukh, PAN 2014, with the obfuscation type recognition of
 * Sanchez-Perez, Gelbukh & Sidorov, PAN 2015, and word-exact boundaries):
 * 1. Both texts → `normalize` tokens with original spans → sentences (cut in the original text at
 *    sentence marks, blank lines and line breaks before a capital) → Porter stems of content words
 *    (prepare.ts).
 * 2. Verbatim detection on the whole pair (verbatimPassages), independent of sentences: exact runs of
 *    ≥ `verbatimRun` words (stop words included), chained in order on both sides with gaps ≤ 20 words;
 *    a chain of ≥ 40 run words covering ≥ `verbatimShare` of its extent on both sides is a verbatim
 *    passage with word-exact edges (when the shorter text has under 50 words, ≥ `verbatimShare` of its
 *    words, in runs of a quarter of them, at least 2). Texts that are the same word sequence after
 *    normalisation are one passage from the first word to the last, whatever their length. Type
 *    recognition: a pair with no verbatim passage is treated as obfuscated and seeded with
 *    `obfuscatedSeedCosine` / `obfuscatedSeedDice` instead of `seedCosine` / `seedDice` (obfuscated
 *    copies keep fewer shared words per sentence).
 * 3. tf-idf sentence vectors (idf over the sentences of both texts). Seeds: sentence pairs with
 *    cosine and Dice above the pair's thresholds (seeds.ts; the scoring loop runs in WebAssembly).
 * 4. Extension: seeds are clustered alternately by their sentence index in a and in b, splitting
 *    where consecutive seeds are more than `maxGap` sentences apart, until stable. A cluster
 *    becomes a passage pair (first to last sentence on each side); it is kept when the cosine of the
 *    two passages' summed vectors exceeds `validation`, else re-clustered with a smaller gap. In
 *    obfuscated pairs a passage then grows by edge sentences whose tf-idf weight is at least
 *    `extendShare` on words of the other passage (growEdges).
 * 5. Filtering: passages that overlap on both sides are merged, passages that overlap on one side
 *    only keep the better one; passages whose seeds hold fewer than `minSeeds` distinct sentences on
 *    either side need cosine ≥ `singleSeedCosine`; passages shorter than `minLength` characters on
 *    either side go.
 * 6. Spans run from the first word of the first sentence to the last word of the last sentence
 *    (plus closing sentence punctuation), in UTF-16 offsets of the original strings. Edge sentences
 *    are cut at a line break or clause mark when that drops mostly words the other passage lacks
 *    (trimEdges). Passages made of dense exact word runs get word-exact boundaries (refineVerbatim).
 * 7. Sentence passages mostly covered by verbatim passages are replaced by them (exact edges, one
 *    detection per copied passage); verbatim passages that no sentence passage touches are added
 *    (mergeVerbatim).
 */
import type { Core } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { fingerprintCore, toText } from '../fingerprint/fingerprint.js';
import { resolveOptions } from '../fingerprint/options.js';
import { distinctSorted, intersectionSize } from '../fingerprint/similarity.js';
import { prepare, TermDict, type Prepared } from './prepare.js';
import { idfWeights, postings, seedsReference, seedsWasm, vectors, type Seeds, type Vectors } from './seeds.js';

/** Options of `engine.compare`. Every member is optional. */
export interface CompareOptions {
  /** Seed threshold: tf-idf cosine of two sentences must exceed this. @default 0.33 */
  readonly seedCosine?: number;
  /** Seed threshold: Dice coefficient of the two sentences' distinct content words must exceed this. @default 0.33 */
  readonly seedDice?: number;
  /** Largest gap, in sentences, between two seeds of one passage (on each side). @default 4 */
  readonly maxGap?: number;
  /** A passage pair is kept when the cosine of its summed sentence vectors exceeds this. @default 0.34 */
  readonly validation?: number;
  /**
   * Shortest passage reported, in UTF-16 code units on each side; passages covering the whole of
   * the shorter text are reported whatever their length. @default 150
   */
  readonly minLength?: number;
  /** Sentences with fewer content words are joined to the next one. @default 3 */
  readonly minSentenceWords?: number;
  /** Shortest exact word run (all words, stop words included) used to trim verbatim passages. @default 6 */
  readonly verbatimRun?: number;
  /**
   * When the exact runs inside a passage cover at least this share of the words between the first and
   * the last run, the passage is verbatim: its spans are trimmed to those runs (word-exact boundaries
   * instead of sentence boundaries). @default 0.8
   */
  readonly verbatimShare?: number;
  /**
   * Passages whose seeds cover fewer distinct sentences than this (on the side with fewer) are kept only
   * when their cosine reaches `singleSeedCosine`. @default 2
   */
  readonly minSeeds?: number;
  /** See `minSeeds`. @default 0.5 */
  readonly singleSeedCosine?: number;
  /**
   * Seed cosine threshold for pairs recognised as obfuscated: pairs in which the whole-pair verbatim
   * detector finds no verbatim passage (obfuscation type recognition, Sanchez-Perez et al. 2015).
   * Obfuscated reuse keeps fewer shared words per sentence, so its seeds need a lower bar. @default 0.3
   */
  readonly obfuscatedSeedCosine?: number;
  /** Seed Dice threshold for pairs recognised as obfuscated (see `obfuscatedSeedCosine`). @default 0.3 */
  readonly obfuscatedSeedDice?: number;
  /**
   * In pairs recognised as obfuscated, a passage grows by the sentence next to one of its edges while at
   * least this share of that sentence's tf-idf weight is on words of the other passage; 0 turns growing
   * off. @default 0.5
   */
  readonly extendShare?: number;
}

/** One aligned passage: `a.slice(a_start, a_end)` was reused as `b.slice(b_start, b_end)`. */
export interface AlignedSpan {
  readonly a_start: number;
  readonly a_end: number;
  readonly b_start: number;
  readonly b_end: number;
  /** tf-idf cosine of the two passages (0..1); 1 for a verbatim passage found by the exact-run detector. */
  readonly score: number;
}

/** Result of `engine.compare`. */
export interface Comparison {
  /**
   * Share of the word characters (UTF-16 units inside word tokens) of the shorter text — the one
   * with fewer word characters — that lie inside aligned spans (0..1).
   */
  readonly similarity: number;
  /** Jaccard similarity of the distinct word 5-gram shingles. */
  readonly jaccard: number;
  /** |A ∩ B| / |A| over distinct word 5-grams: how much of `a` is in `b`. */
  readonly containment_a: number;
  /** |A ∩ B| / |B| over distinct word 5-grams. */
  readonly containment_b: number;
  /** Aligned passages, in order of `a_start`. */
  readonly spans: AlignedSpan[];
}

/** Options with defaults filled in. */
export interface ResolvedCompareOptions {
  readonly seedCosine: number;
  readonly seedDice: number;
  readonly maxGap: number;
  readonly validation: number;
  readonly minLength: number;
  readonly minSentenceWords: number;
  readonly verbatimRun: number;
  readonly verbatimShare: number;
  readonly minSeeds: number;
  readonly singleSeedCosine: number;
  readonly obfuscatedSeedCosine: number;
  readonly obfuscatedSeedDice: number;
  readonly extendShare: number;
}

const DEFAULTS: ResolvedCompareOptions = { seedCosine: 0.33, seedDice: 0.33, maxGap: 4, validation: 0.34, minLength: 150, minSentenceWords: 3, verbatimRun: 6, verbatimShare: 0.8, minSeeds: 2, singleSeedCosine: 0.5, obfuscatedSeedCosine: 0.3, obfuscatedSeedDice: 0.3, extendShare: 0.5 };

/** Validate and fill defaults; INVALID_OPTIONS names the first bad member. */
export function resolveCompareOptions(options: CompareOptions | undefined): ResolvedCompareOptions {
  if (options === undefined || options === null) return DEFAULTS;
  if (typeof options !== 'object') throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const out: Record<string, number> = { ...DEFAULTS };
  for (const [k, v] of Object.entries(options)) {
    if (!(k in DEFAULTS)) throw new TrainprintError('INVALID_OPTIONS', `unknown option "${k}"`);
    if (v === undefined) continue;
    const ratio = k === 'seedCosine' || k === 'seedDice' || k === 'validation' || k === 'verbatimShare' || k === 'singleSeedCosine' || k === 'obfuscatedSeedCosine' || k === 'obfuscatedSeedDice' || k === 'extendShare';
    const ok = typeof v === 'number' && (ratio ? v >= 0 && v < 1 : Number.isInteger(v) && v >= 0 && v <= 1_000_000);
    if (!ok) throw new TrainprintError('INVALID_OPTIONS', ratio ? `${k} must be a number in [0, 1)` : `${k} must be a non-negative integer`);
    out[k] = v as number;
  }
  return out as unknown as ResolvedCompareOptions;
}

/** Word 5-gram shingles only (no sketches). */
const SHINGLE_OPTIONS = resolveOptions({ winnow: false, minhash: false, simhash: false, workHash: false });

/** Which implementation scores the seeds ('wasm' in production; 'js' is the reference). */
export type SeedKernel = 'wasm' | 'js';

/**
 * Longest text `compare` aligns, in UTF-16 code units (about 100k words). Sentence-pair scoring
 * grows with the product of the two texts' sentence counts (measured: 0.2 s at 100 k characters
 * each, 1.7 s at 500 k, minutes at 1 M), so longer texts are refused rather than left to hang:
 * index the longer one as a dataset and use `search`, which scales.
 */
export const MAX_COMPARE_LENGTH = 500_000;

/**
 * Align `a` and `b` (sync). See the module comment for the method.
 * @throws INVALID_INPUT (not a string, lone surrogate), INVALID_OPTIONS, PAYLOAD_TOO_LARGE (a text
 *   longer than {@link MAX_COMPARE_LENGTH})
 */
export function compareTexts(core: Core, a: string, b: string, options?: CompareOptions, kernel: SeedKernel = 'wasm'): Comparison {
  a = checkText(a, 'a');
  b = checkText(b, 'b');
  const o = resolveCompareOptions(options);
  for (const [name, t] of [['a', a], ['b', b]] as const) {
    if (t.length > MAX_COMPARE_LENGTH) {
      throw new TrainprintError('PAYLOAD_TOO_LARGE', `${name} has ${t.length} characters; compare aligns texts of at most ${MAX_COMPARE_LENGTH} (index the longer text as a dataset and use search)`);
    }
  }

  const A = distinctSorted(fingerprintCore(core, a, SHINGLE_OPTIONS).fp.shingles.hashes);
  const B = distinctSorted(fingerprintCore(core, b, SHINGLE_OPTIONS).fp.shingles.hashes);
  const inter = intersectionSize(A, B);
  const union = A.length + B.length - inter;

  const spans = alignSpans(core, a, b, o, kernel);
  return {
    similarity: coveredShare(a, b, spans),
    jaccard: union === 0 ? 1 : inter / union,
    containment_a: A.length === 0 ? 0 : inter / A.length,
    containment_b: B.length === 0 ? 0 : inter / B.length,
    spans,
  };
}

function checkText(t: unknown, name: string): string {
  if (typeof t !== 'string') throw new TrainprintError('INVALID_INPUT', `${name} must be a string, got ${t === null ? 'null' : typeof t}`);
  try {
    return toText(t);
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${name}: ${(e as TrainprintError).detail ?? 'not well-formed'}`);
  }
}

/** A candidate passage pair in sentence indices (inclusive). */
interface Frag {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
  seeds: number[];
  cos: number;
}

/** The alignment proper: aligned spans of `a` and `b`. */
export function alignSpans(core: Core | null, a: string, b: string, o: ResolvedCompareOptions, kernel: SeedKernel = 'wasm'): AlignedSpan[] {
  const dict = new TermDict();
  const pa = prepare(a, dict, o.minSentenceWords);
  const pb = prepare(b, dict, o.minSentenceWords);
  if (pa.tokStart.length === 0 || pb.tokStart.length === 0) return [];
  // Identical after normalisation: one passage, whatever the length. The sentence machinery cannot
  // say so for short texts (one sentence a side gives every word idf 0; no verbatim chain reaches
  // 40 words), and for long ones it finds this very span.
  if (sameWords(pa, pb)) return [wholeSpan(pa, pb, a, b)];
  const idf = idfWeights(pa, pb, dict.size);
  const va = vectors(pa, idf);
  const vb = vectors(pb, idf);
  const post = postings(vb, dict.size);
  const verb = o.verbatimRun > 0 ? verbatimPassages(pa, pb, a, b, o) : [];
  // obfuscation type recognition (after Sanchez-Perez et al. 2015): a pair without any verbatim passage is
  // treated as obfuscated and seeded with the looser thresholds
  const obfuscated = verb.length === 0;
  const thCos = obfuscated ? o.obfuscatedSeedCosine : o.seedCosine;
  const thDice = obfuscated ? o.obfuscatedSeedDice : o.seedDice;
  const seeds = kernel === 'wasm' && core ? seedsWasm(core, va, post, vb, thCos, thDice) : seedsReference(va, post, vb, thCos, thDice);
  if (seeds.count === 0) return verb.sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start);

  const all = Array.from({ length: seeds.count }, (_, k) => k);
  let frags: Frag[] = [];
  for (const group of cluster(seeds, all, o.maxGap, 0, 0)) frags.push(...validate(seeds, group, o.maxGap, va, vb, o));
  if (obfuscated && o.extendShare > 0) frags = frags.map((f) => growEdges(f, pa, pb, idf, va, vb, o.extendShare));
  frags = resolveOverlaps(frags, va, vb);

  const minA = Math.min(o.minLength, pa.wordChars);
  const minB = Math.min(o.minLength, pb.wordChars);
  const spans: AlignedSpan[] = [];
  for (const f of frags) {
    if (seedSupport(seeds, f) < o.minSeeds && f.cos < o.singleSeedCosine) continue;
    const s = refineVerbatim(trimEdges(toSpan(f, pa, pb, a, b), f, pa, pb, a, b), f, pa, pb, a, b, o);
    if (s.a_end - s.a_start < minA || s.b_end - s.b_start < minB) continue;
    spans.push(s);
  }
  const out = mergeVerbatim(spans, verb);
  out.sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start);
  return out;
}

/** True when both texts are the same word sequence (after normalisation). */
function sameWords(pa: Prepared, pb: Prepared): boolean {
  const W = pa.tokWord, V = pb.tokWord;
  if (W.length !== V.length) return false;
  for (let t = 0; t < W.length; t++) if (W[t] !== V[t]) return false;
  return true;
}

/** The span from the first word to the last (with its closing punctuation) on both sides. */
function wholeSpan(pa: Prepared, pb: Prepared, a: string, b: string): AlignedSpan {
  const last = (p: Prepared, text: string): number => closeAt(text, p.tokEnd[p.tokEnd.length - 1]);
  return { a_start: pa.tokStart[0], a_end: last(pa, a), b_start: pb.tokStart[0], b_end: last(pb, b), score: 1 };
}

/** Exact runs of at least `K` words (all words), greedy longest-first from left to right in a: [a0, b0, len] token indices. */
function exactRuns(pa: Prepared, pb: Prepared, K: number, ta0 = 0, ta1 = pa.tokWord.length, tb0 = 0, tb1 = pb.tokWord.length): number[][] {
  const W = pa.tokWord, V = pb.tokWord;
  const index = new Map<number, number[]>();
  for (let q = tb0; q + 1 < tb1; q++) {
    const key = V[q] * 4194304 + V[q + 1];
    const l = index.get(key);
    if (l) { if (l.length < MAX_CANDIDATES) l.push(q); } else index.set(key, [q]);
  }
  const runs: number[][] = [];
  for (let p = ta0; p + 1 < ta1;) {
    const cands = index.get(W[p] * 4194304 + W[p + 1]);
    let best = 0, bq = -1;
    if (cands) {
      for (const q of cands) {
        let len = 2;
        while (p + len < ta1 && q + len < tb1 && W[p + len] === V[q + len]) len++;
        if (len > best) { best = len; bq = q; }
      }
    }
    if (best >= K) { runs.push([p, bq, best]); p += best; } else p++;
  }
  return runs;
}

/** Candidate positions kept per word bigram of b (bounds the work on repetitive texts). */
const MAX_CANDIDATES = 64;
/** Largest gap, in words, between two exact runs of one verbatim passage (on each side). */
const VERBATIM_GAP = 20;
/**
 * Shortest exact run of a short pair (see verbatimPassages); the runs must still cover 80 % of the
 * shorter text, so scattered shared bigrams never add up to a passage.
 */
const SHORT_MIN_RUN = 2;

const closeAt = (text: string, e: number): number => e + (CLOSERS.exec(text.slice(e, e + 8))?.[0].length ?? 0);

/**
 * Verbatim passages of the whole pair, independent of the sentence seeds: exact word runs of at least
 * `verbatimRun` words are chained in order on both sides (gaps ≤ VERBATIM_GAP words); a chain holding at
 * least VERBATIM_MIN_WORDS run words that cover `verbatimShare` of its extent on both sides is a passage
 * with word-exact edges (extended while the words agree).
 */
function verbatimPassages(pa: Prepared, pb: Prepared, a: string, b: string, o: ResolvedCompareOptions): AlignedSpan[] {
  // A pair whose shorter text has under 50 words could never reach 40 run words: the thresholds
  // scale with it (runs of a quarter of its words, at least 2), so a near copy of a short text is a
  // passage too. From 50 words on (runs: from 24), nothing changes.
  const words = Math.min(pa.tokWord.length, pb.tokWord.length);
  const minWords = Math.min(VERBATIM_MIN_WORDS, Math.ceil(o.verbatimShare * words));
  const runLength = Math.min(o.verbatimRun, Math.max(SHORT_MIN_RUN, Math.floor(words / 4)));
  const runs = exactRuns(pa, pb, runLength);
  const chains: { a0: number; a1: number; b0: number; b1: number; n: number }[] = [];
  for (const [p, q, len] of runs) {
    let c = null;
    for (let k = chains.length - 1; k >= 0 && k >= chains.length - 8; k--) {
      const x = chains[k];
      if (p - x.a1 <= VERBATIM_GAP && q >= x.b1 && q - x.b1 <= VERBATIM_GAP) { c = x; break; }
    }
    if (c) { c.a1 = p + len; c.b1 = q + len; c.n += len; } else chains.push({ a0: p, a1: p + len, b0: q, b1: q + len, n: len });
  }
  const W = pa.tokWord, V = pb.tokWord;
  const out: AlignedSpan[] = [];
  for (const c of chains) {
    if (c.n < minWords || c.n < o.verbatimShare * (c.a1 - c.a0) || c.n < o.verbatimShare * (c.b1 - c.b0)) continue;
    while (c.a0 > 0 && c.b0 > 0 && W[c.a0 - 1] === V[c.b0 - 1]) { c.a0--; c.b0--; }
    while (c.a1 < W.length && c.b1 < V.length && W[c.a1] === V[c.b1]) { c.a1++; c.b1++; }
    out.push({ a_start: pa.tokStart[c.a0], a_end: closeAt(a, pa.tokEnd[c.a1 - 1]), b_start: pb.tokStart[c.b0], b_end: closeAt(b, pb.tokEnd[c.b1 - 1]), score: 1 });
  }
  return out;
}

const spanOverlapA = (x: AlignedSpan, y: AlignedSpan): boolean => x.a_start < y.a_end && y.a_start < x.a_end;
const spanOverlapB = (x: AlignedSpan, y: AlignedSpan): boolean => x.b_start < y.b_end && y.b_start < x.b_end;

/**
 * Combine the sentence-level passages with the verbatim passages: a sentence passage mostly covered (on
 * both sides, by `a` characters) by verbatim passages is replaced by them (exact edges, one detection per
 * copied passage); a verbatim passage that no sentence passage touches is added (copies the seeds missed).
 */
function mergeVerbatim(spans: AlignedSpan[], verb: AlignedSpan[]): AlignedSpan[] {
  if (verb.length === 0) return spans;
  const out: AlignedSpan[] = [];
  const used = new Set<AlignedSpan>();
  for (const s of spans) {
    const vs = verb.filter((v) => spanOverlapA(s, v) && spanOverlapB(s, v));
    let cov = 0;
    for (const v of vs) cov += Math.min(s.a_end, v.a_end) - Math.max(s.a_start, v.a_start);
    if (vs.length > 0 && cov >= VERBATIM_COVER * (s.a_end - s.a_start)) {
      for (const v of vs) if (!used.has(v)) { used.add(v); out.push(v); }
    } else {
      for (const v of vs) used.add(v);
      out.push(s);
    }
  }
  for (const v of verb) if (!used.has(v) && !spans.some((s) => spanOverlapA(s, v) || spanOverlapB(s, v))) out.push(v);
  return out;
}

/** See mergeVerbatim. */
const VERBATIM_COVER = 0.5;

/** Seed support of a passage: the distinct seeded sentences on its less-supported side. */
function seedSupport(seeds: Seeds, f: Frag): number {
  const sa = new Set<number>(), sb = new Set<number>();
  for (const k of f.seeds) { sa.add(seeds.a[k]); sb.add(seeds.b[k]); }
  return Math.min(sa.size, sb.size);
}

/** Split seed indices where consecutive seeds (sorted on one side) are more than `gap` sentences apart; alternate sides until stable. */
function cluster(seeds: Seeds, ids: number[], gap: number, side: 0 | 1, depth: number): number[][] {
  const key = side === 0 ? seeds.a : seeds.b;
  const sorted = [...ids].sort((x, y) => key[x] - key[y] || x - y);
  const groups: number[][] = [];
  let cur: number[] = [sorted[0]];
  for (let k = 1; k < sorted.length; k++) {
    if (key[sorted[k]] - key[sorted[k - 1]] > gap) {
      groups.push(cur);
      cur = [];
    }
    cur.push(sorted[k]);
  }
  groups.push(cur);
  if (groups.length <= 1 && depth > 0) return groups;
  const out: number[][] = [];
  for (const g of groups) out.push(...cluster(seeds, g, gap, side === 0 ? 1 : 0, depth + 1));
  return out;
}

function fragOf(seeds: Seeds, ids: number[], va: Vectors, vb: Vectors): Frag {
  let a0 = Infinity, a1 = -1, b0 = Infinity, b1 = -1;
  for (const k of ids) {
    a0 = Math.min(a0, seeds.a[k]); a1 = Math.max(a1, seeds.a[k]);
    b0 = Math.min(b0, seeds.b[k]); b1 = Math.max(b1, seeds.b[k]);
  }
  return { a0, a1, b0, b1, seeds: ids, cos: rangeCosine(va, a0, a1, vb, b0, b1) };
}

/** Keep the cluster when its passages are similar enough, else re-cluster with a smaller gap. */
function validate(seeds: Seeds, ids: number[], gap: number, va: Vectors, vb: Vectors, o: ResolvedCompareOptions): Frag[] {
  const f = fragOf(seeds, ids, va, vb);
  if (f.cos > o.validation) return [f];
  if (gap <= 0) return [];
  const out: Frag[] = [];
  for (const g of cluster(seeds, ids, gap - 1, 0, 0)) out.push(...validate(seeds, g, gap - 1, va, vb, o));
  return out;
}

/**
 * Grow a passage of an obfuscated pair by whole sentences, until stable: the sentence next to an edge
 * joins when at least `share` of its tf-idf weight is on content words of the other passage (widened by
 * one sentence at each end, since its counterpart may be missing too). Obfuscated copies hold sentences
 * too altered to seed, yet mostly made of the source's words.
 */
function growEdges(f: Frag, pa: Prepared, pb: Prepared, idf: Float64Array, va: Vectors, vb: Vectors, share: number): Frag {
  const S_A = pa.sentTok.length - 1, S_B = pb.sentTok.length - 1;
  const termsOf = (p: Prepared, s0: number, s1: number, S: number): Set<number> => {
    const set = new Set<number>();
    for (let k = p.sentTerm[Math.max(0, s0)]; k < p.sentTerm[Math.min(S - 1, s1) + 1]; k++) set.add(p.terms[k]);
    return set;
  };
  const shared = (p: Prepared, s: number, other: Set<number>): number => {
    let all = 0, hit = 0;
    for (let k = p.sentTerm[s]; k < p.sentTerm[s + 1]; k++) { const w = idf[p.terms[k]] * p.counts[k]; all += w; if (other.has(p.terms[k])) hit += w; }
    return all === 0 ? 0 : hit / all;
  };
  let { a0, a1, b0, b1 } = f;
  let changed = false;
  for (;;) {
    let grew = false;
    const tb = termsOf(pb, b0 - 1, b1 + 1, S_B), ta = termsOf(pa, a0 - 1, a1 + 1, S_A);
    if (a0 > 0 && shared(pa, a0 - 1, tb) >= share) { a0--; grew = true; }
    if (a1 + 1 < S_A && shared(pa, a1 + 1, tb) >= share) { a1++; grew = true; }
    if (b0 > 0 && shared(pb, b0 - 1, ta) >= share) { b0--; grew = true; }
    if (b1 + 1 < S_B && shared(pb, b1 + 1, ta) >= share) { b1++; grew = true; }
    if (!grew) break;
    changed = true;
  }
  return changed ? { a0, a1, b0, b1, seeds: f.seeds, cos: rangeCosine(va, a0, a1, vb, b0, b1) } : f;
}

/** Cosine of the summed vectors of sentences a0..a1 of a and b0..b1 of b. */
function rangeCosine(va: Vectors, a0: number, a1: number, vb: Vectors, b0: number, b1: number): number {
  const sa = sumRange(va, a0, a1);
  const sb = sumRange(vb, b0, b1);
  let dot = 0, na = 0, nb = 0;
  for (const [t, w] of sa) {
    na += w * w;
    const x = sb.get(t);
    if (x !== undefined) dot += w * x;
  }
  for (const w of sb.values()) nb += w * w;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function sumRange(v: Vectors, s0: number, s1: number): Map<number, number> {
  const m = new Map<number, number>();
  for (let k = v.off[s0]; k < v.off[s1 + 1]; k++) m.set(v.terms[k], (m.get(v.terms[k]) ?? 0) + v.weights[k]);
  return m;
}

const overlaps = (x0: number, x1: number, y0: number, y1: number): boolean => x0 <= y1 && y0 <= x1;

/** Merge passages overlapping on both sides; of passages overlapping on one side, keep the more similar. */
function resolveOverlaps(frags: Frag[], va: Vectors, vb: Vectors): Frag[] {
  let changed = true;
  while (changed) {
    changed = false;
    frags.sort((x, y) => x.a0 - y.a0 || x.b0 - y.b0);
    outer: for (let i = 0; i < frags.length; i++) {
      for (let j = i + 1; j < frags.length; j++) {
        const x = frags[i], y = frags[j];
        if (y.a0 > x.a1 && !overlaps(x.b0, x.b1, y.b0, y.b1)) continue;
        const oa = overlaps(x.a0, x.a1, y.a0, y.a1), ob = overlaps(x.b0, x.b1, y.b0, y.b1);
        if (!oa && !ob) continue;
        if (oa && ob) {
          const a0 = Math.min(x.a0, y.a0), a1 = Math.max(x.a1, y.a1), b0 = Math.min(x.b0, y.b0), b1 = Math.max(x.b1, y.b1);
          frags[i] = { a0, a1, b0, b1, seeds: [...x.seeds, ...y.seeds], cos: rangeCosine(va, a0, a1, vb, b0, b1) };
          frags.splice(j, 1);
        } else {
          const wx = x.cos * (x.a1 - x.a0 + 1 + x.b1 - x.b0 + 1), wy = y.cos * (y.a1 - y.a0 + 1 + y.b1 - y.b0 + 1);
          frags.splice(wx >= wy ? j : i, 1);
        }
        changed = true;
        break outer;
      }
    }
  }
  return frags;
}

const CLOSERS = /^[.!?…]*["'”’»)\]]*/;

function toSpan(f: Frag, pa: Prepared, pb: Prepared, a: string, b: string): AlignedSpan {
  const end = (p: Prepared, s1: number, text: string): number => {
    const e = p.tokEnd[p.sentTok[s1 + 1] - 1];
    return e + (CLOSERS.exec(text.slice(e, e + 8))?.[0].length ?? 0);
  };
  return {
    a_start: pa.tokStart[pa.sentTok[f.a0]],
    a_end: end(pa, f.a1, a),
    b_start: pb.tokStart[pb.sentTok[f.b0]],
    b_end: end(pb, f.b1, b),
    score: Math.min(1, f.cos),
  };
}

/** Cut points inside a sentence: after a line break or a clause mark. */
const SOFT_GAP = /\n|[.!?;:]/;
/** Weight of a content word of the edge that the other passage shares (an unshared one weighs 1). */
const TRIM_SHARED = 2;

/**
 * Sentence edges are coarse where sentence marks are missing (web pages, obfuscated copies): the first and
 * the last sentence of each side may hold text around the reused passage. Each edge sentence is cut at the
 * soft boundary (line break or clause mark) that drops the most content words absent from the other
 * passage, counting each dropped shared word as TRIM_SHARED absent ones (a maximum prefix / suffix sum).
 */
function trimEdges(s: AlignedSpan, f: Frag, pa: Prepared, pb: Prepared, a: string, b: string): AlignedSpan {
  const termsOf = (p: Prepared, s0: number, s1: number): Set<number> => {
    const set = new Set<number>();
    for (let t = p.sentTok[s0]; t < p.sentTok[s1 + 1]; t++) if (p.tokTerm[t] >= 0) set.add(p.tokTerm[t]);
    return set;
  };
  const ta = termsOf(pa, f.a0, f.a1), tb = termsOf(pb, f.b0, f.b1);
  const side = (p: Prepared, text: string, s0: number, s1: number, other: Set<number>): [number, number] => {
    const w = (t: number): number => (p.tokTerm[t] < 0 ? 0 : other.has(p.tokTerm[t]) ? -TRIM_SHARED : 1);
    const soft = (t: number): boolean => SOFT_GAP.test(text.slice(p.tokEnd[t - 1], p.tokStart[t]));
    let start = p.sentTok[s0], sum = 0, best = 0;
    const firstEnd = p.sentTok[s0 + 1];
    for (let t = p.sentTok[s0]; t + 1 < firstEnd; t++) {
      sum += w(t);
      if (sum > best && soft(t + 1)) { best = sum; start = t + 1; }
    }
    let end = p.sentTok[s1 + 1];
    sum = 0; best = 0;
    const lastStart = Math.max(p.sentTok[s1], start + 1);
    for (let t = p.sentTok[s1 + 1] - 1; t > lastStart; t--) {
      sum += w(t);
      if (sum > best && soft(t)) { best = sum; end = t; }
    }
    return [start, end];
  };
  const [as, ae] = side(pa, a, f.a0, f.a1, tb);
  const [bs, be] = side(pb, b, f.b0, f.b1, ta);
  return { a_start: pa.tokStart[as], a_end: closeAt(a, pa.tokEnd[ae - 1]), b_start: pb.tokStart[bs], b_end: closeAt(b, pb.tokEnd[be - 1]), score: s.score };
}

/** Share of the shorter text's word characters inside spans. */
function coveredShare(a: string, b: string, spans: readonly AlignedSpan[]): number {
  const dict = new TermDict();
  const pa = prepare(a, dict, 1), pb = prepare(b, dict, 1);
  const useA = pa.wordChars <= pb.wordChars;
  const p = useA ? pa : pb;
  if (p.wordChars === 0) return a.length === 0 && b.length === 0 ? 1 : 0;
  const iv = spans.map((s) => (useA ? [s.a_start, s.a_end] : [s.b_start, s.b_end])).sort((x, y) => x[0] - y[0]);
  let covered = 0, k = 0;
  for (let t = 0; t < p.tokStart.length; t++) {
    while (k < iv.length && iv[k][1] <= p.tokStart[t]) k++;
    // tokens never straddle a span edge: spans start and end at token boundaries
    for (let m = k; m < iv.length && iv[m][0] <= p.tokStart[t]; m++) {
      if (iv[m][1] >= p.tokEnd[t]) { covered += p.tokEnd[t] - p.tokStart[t]; break; }
    }
  }
  return covered / p.wordChars;
}

/**
 * Verbatim passages get word-exact boundaries: exact runs of at least `verbatimRun` words (greedy,
 * longest first match from left to right) inside the passage pair; when they cover at least
 * `verbatimShare` of the words between the first and the last run, the spans shrink to that extent.
 */
/** Exact runs must hold at least this many words in all for a passage to count as verbatim. */
const VERBATIM_MIN_WORDS = 40;

function refineVerbatim(s: AlignedSpan, f: Frag, pa: Prepared, pb: Prepared, a: string, b: string, o: ResolvedCompareOptions): AlignedSpan {
  const ta0 = pa.sentTok[f.a0], ta1 = pa.sentTok[f.a1 + 1];
  const tb0 = pb.sentTok[f.b0], tb1 = pb.sentTok[f.b1 + 1];
  const K = o.verbatimRun;
  if (K === 0 || ta1 - ta0 < K || tb1 - tb0 < K) return s;
  const W = pa.tokWord, V = pb.tokWord;
  let covered = 0;
  let ra0 = -1, ra1 = -1, rb0 = Infinity, rb1 = -1;
  for (const [p, q, len] of exactRuns(pa, pb, K, ta0, ta1, tb0, tb1)) {
    covered += len;
    if (ra0 < 0) ra0 = p;
    ra1 = p + len;
    rb0 = Math.min(rb0, q);
    rb1 = Math.max(rb1, q + len);
  }
  if (ra0 < 0 || covered < o.verbatimShare * (ra1 - ra0) || covered < VERBATIM_MIN_WORDS) return s;
  // the copy may run on past the sentences that seeded it: extend word by word while the words agree
  let rb0i = rb0 as number;
  while (ra0 > 0 && rb0i > 0 && W[ra0 - 1] === V[rb0i - 1]) { ra0--; rb0i--; }
  while (ra1 < W.length && rb1 < V.length && W[ra1] === V[rb1]) { ra1++; rb1++; }
  rb0 = rb0i;
  return { a_start: pa.tokStart[ra0], a_end: closeAt(a, pa.tokEnd[ra1 - 1]), b_start: pb.tokStart[rb0], b_end: closeAt(b, pb.tokEnd[rb1 - 1]), score: s.score };
}
