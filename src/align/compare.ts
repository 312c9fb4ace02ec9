/**
 * `compare(a, b)`: text alignment with exact character spans (the engine's `compare`).
 *
 * Method (after Sanchez-Perez, Sidorov & Gelbukh, PAN 2014, with the obfuscation type recognition of
 * Sanchez-Perez, Gelbukh & Sidorov, PAN 2015, and word-exact boundaries):
 * 1. Both texts → `normalize` tokens with original spans → sentences (cut in the original text at
 *    sentence marks, blank lines and line breaks before a capital) → Porter stems of content words
 *    (prepare.ts).
 * 2. Verbatim detection on the whole pair (verbatim.ts), independent of sentences: exact runs of
 *    ≥ `verbatimRun` words (stop words included), chained in order on both sides with gaps ≤ 20 words;
 *    a chain of ≥ 40 run words covering ≥ `verbatimShare` of its extent on both sides is a verbatim
 *    passage with word-exact edges (when the shorter text has under 50 words, ≥ `verbatimShare` of its
 *    words, in runs of a quarter of them, at least 2). Texts that are the same word sequence after
 *    normalisation are one passage from the first word to the last, whatever their length. Type
 *    recognition: a pair with no verbatim passage is treated as obfuscated and seeded with
 *    `obfuscatedSeedCosine` / `obfuscatedSeedDice` instead of `seedCosine` / `seedDice` (obfuscated
 *    copies keep fewer shared words per sentence).
 * 3. tf-idf sentence vectors (idf over the sentences of both texts). Seeds: sentence pairs with
 *    cosine and Dice above the pair's thresholds (seeds.ts). Up to ALL_PAIRS_LIMIT sentence pairs, every
 *    pair is scored (the scoring loop runs in WebAssembly); in longer pairs only the pairs inside
 *    seeded regions are, regions found by hashing content-word keys (regions.ts), so that whole books
 *    align in time and memory linear in their length. Both ways give a pair the same score.
 * 4. Extension (passages.ts): in obfuscated pairs, seeds dominated by a much stronger seed of one of
 *    their two sentences are dropped first (dominantSeeds): they share the topic, not the text. Seeds are
 *    clustered alternately by their sentence index in a and in b, splitting where consecutive seeds are
 *    more than `maxGap` sentences apart, until stable. A cluster
 *    becomes a passage pair (first to last sentence on each side); it is kept when the cosine of the
 *    two passages' summed vectors exceeds `validation`, else re-clustered with a smaller gap. In
 *    obfuscated pairs an outlying edge seed goes when the passage without it has the higher cosine
 *    (pruneEdges); a passage then grows by edge sentences whose tf-idf weight is at least
 *    `extendShare` on words of the other passage, and by the two sentences just outside one of its ends
 *    when their cosine reaches half the obfuscated seed threshold (growEdges). Summary mode: seeds are
 *    clustered again with a wide gap on one side; a few densely seeded sentences whose words are mostly
 *    in a passage at least 3 times as long on the other side, and that no ordinary passage explains, are
 *    a summary passage (summaryPassages).
 * 5. Filtering (passages.ts): passages that overlap on both sides are merged, passages that overlap on
 *    one side only keep the better one; in obfuscated pairs, passages whose shared words weigh less than
 *    MIN_EVIDENCE (sharedEvidence) go; passages whose seeds hold fewer than `minSeeds` distinct sentences on
 *    either side, counting the alike sentence pairs they grew by (passageSupport), need cosine ≥
 *    `singleSeedCosine`; passages shorter than `minLength` characters on
 *    either side go; in pairs with verbatim passages, passages beside them need twice the evidence
 *    (VERBATIM_PAIR_EVIDENCE).
 * 6. Spans run from the first word of the first sentence to the last word of the last sentence
 *    (plus closing sentence punctuation), in UTF-16 offsets of the original strings. Edge sentences
 *    are cut at a line break or clause mark when that drops mostly words the other passage lacks
 *    (trimEdges). Passages made of dense exact word runs get word-exact boundaries (refineVerbatim).
 * 7. Sentence passages mostly covered by verbatim passages are replaced by them (exact edges, one
 *    detection per copied passage); verbatim passages that no sentence passage touches are added
 *    (mergeVerbatim).
 * 8. Each span gets its kind (reuse.ts): `summary` when the summary mode found it, else `verbatim` / `edited` /
 *    `paraphrase` by the share of its words in runs of ≥ 3 words that its other side holds (`similarity`).
 */
import type { Core } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { shingleHashesCore, toText } from '../fingerprint/fingerprint.js';
import { resolveOptions } from '../fingerprint/options.js';
import { distinctSorted, intersectionSize } from '../fingerprint/similarity.js';
import { wholeSpan, toSpan, trimEdges } from './edges.js';
import {
  dominantSeeds,
  growEdges,
  passageSupport,
  passagesOf,
  pruneEdges,
  resolveOverlaps,
  sharedEvidence,
  summaryPassages,
  type Frag,
} from './passages.js';
import { preparePair, sentences, type Prepared } from './prepare.js';
import { reuseKind, runShare, type PassageKind } from './reuse.js';
import { tokenize, type Tokens } from './tokens.js';
import { seededRegions } from './regions.js';
import { synonymsLoaded } from './synonyms.js';
import {
  idfWeights,
  postings,
  seedsOfPairs,
  seedsReference,
  seedsWasm,
  vectors,
  type Seeds,
  type Vectors,
} from './seeds.js';
import type { AlignedSpan, ResolvedCompareOptions } from './types.js';
import { mergeVerbatim, refineVerbatim, shortRuns, verbatimPassages } from './verbatim.js';

export type { AlignedSpan, ResolvedCompareOptions } from './types.js';

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
  /**
   * A run of at least this many consecutive words (stop words included, as written after normalisation) that both
   * texts hold is a `verbatim` passage whatever its length in characters, when no other passage covers it: the
   * shortest reuse that winnowing guarantees to see (window 8 of word 5-grams: 8 + 5 − 1 = 12 words), so a
   * sentence quoted word for word is never missed for being under `minLength`. 0 turns it off. @default 12
   */
  readonly minRunWords?: number;
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
   * Passages whose seeds cover fewer distinct sentences than this (on the side with fewer; each sentence
   * pair a passage grew by as an alike pair counts as one more) are kept only when their cosine reaches
   * `singleSeedCosine`. @default 2
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
  /** Seed Dice threshold for pairs recognised as obfuscated (see `obfuscatedSeedCosine`). @default 0.25 */
  readonly obfuscatedSeedDice?: number;
  /**
   * In pairs recognised as obfuscated, a passage grows by the sentence next to one of its edges while at
   * least this share of that sentence's tf-idf weight is on words of the other passage; 0 turns growing
   * off. @default 0.55
   */
  readonly extendShare?: number;
  /**
   * Read a content word of `a` that `b` lacks as `b`'s word of the same WordNet 3.1 synonym set when `b` holds one
   * and `a` does not (coupon → voucher), so reworded sentences meet their source; `false` aligns the words as
   * written. Exact runs, verbatim passages and each span's `similarity` always read the words as written. The table
   * is loaded by `createEngine` unless it is given `synonyms: false`; without it the words are read as written and
   * the result says so (`limitations`).
   * @default true
   */
  readonly synonyms?: boolean;
}

/** A passage of `compare`'s result: its spans and score, and what kind of reuse it is. */
export interface ComparedSpan extends Omit<AlignedSpan, 'summary'> {
  /** `'verbatim'`, `'edited'`, `'paraphrase'` (by `similarity`) or `'summary'` (see {@link PassageKind}). */
  readonly kind: PassageKind;
  /** Share of the words of `a`'s side inside runs of ≥ 3 words that `b`'s side holds too, 0..1 (4 decimals). */
  readonly similarity: number;
}

/** Result of `engine.compare`. */
export interface Comparison {
  /**
   * Share of the word characters (UTF-16 units inside word tokens) of the shorter text — the one
   * with fewer word characters — that lie inside aligned spans (0..1).
   */
  readonly similarity: number;
  /** Jaccard similarity of the distinct word 5-gram shingles (0 where neither text has one). */
  readonly jaccard: number;
  /** |A ∩ B| / |A| over distinct word 5-grams: how much of `a` is in `b`. */
  readonly containment_a: number;
  /** |A ∩ B| / |B| over distinct word 5-grams. */
  readonly containment_b: number;
  /** Aligned passages, in order of `a_start`. */
  readonly spans: ComparedSpan[];
  /**
   * What this comparison could not do, when anything: `'synonyms_not_loaded'` — synonyms were asked for
   * (`synonyms`, the default) but the engine was created with `synonyms: false`, so words were read as written.
   */
  readonly limitations?: readonly CompareLimitation[];
}

/** Codes of {@link Comparison.limitations}. */
export type CompareLimitation = 'synonyms_not_loaded';

const DEFAULTS: ResolvedCompareOptions = {
  seedCosine: 0.33,
  seedDice: 0.33,
  maxGap: 4,
  validation: 0.34,
  minLength: 150,
  minRunWords: 12,
  minSentenceWords: 3,
  verbatimRun: 6,
  verbatimShare: 0.8,
  minSeeds: 2,
  singleSeedCosine: 0.5,
  obfuscatedSeedCosine: 0.3,
  obfuscatedSeedDice: 0.25,
  extendShare: 0.55,
  synonyms: true,
};

/** Validate and fill defaults; INVALID_OPTIONS names the first bad member. */
export function resolveCompareOptions(options: CompareOptions | undefined): ResolvedCompareOptions {
  if (options === undefined || options === null) return DEFAULTS;
  if (typeof options !== 'object') throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const out: Record<string, number | boolean> = { ...DEFAULTS };
  for (const [k, v] of Object.entries(options)) {
    if (!(k in DEFAULTS)) throw new TrainprintError('INVALID_OPTIONS', `unknown option "${k}"`);
    if (v === undefined) continue;
    if (k === 'synonyms') {
      if (typeof v !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'synonyms must be a boolean');
      out[k] = v;
      continue;
    }
    const ratio =
      k === 'seedCosine' ||
      k === 'seedDice' ||
      k === 'validation' ||
      k === 'verbatimShare' ||
      k === 'singleSeedCosine' ||
      k === 'obfuscatedSeedCosine' ||
      k === 'obfuscatedSeedDice' ||
      k === 'extendShare';
    const ok = typeof v === 'number' && (ratio ? v >= 0 && v < 1 : Number.isInteger(v) && v >= 0 && v <= 1_000_000);
    if (!ok)
      throw new TrainprintError(
        'INVALID_OPTIONS',
        ratio ? `${k} must be a number in [0, 1)` : `${k} must be a non-negative integer`,
      );
    out[k] = v as number;
  }
  return out as unknown as ResolvedCompareOptions;
}

/** Word 5-gram shingles only (no sketches). */
const SHINGLE_OPTIONS = resolveOptions({ winnow: false, minhash: false, simhash: false, workHash: false });

/** Which implementation scores the seeds ('wasm' in production; 'js' is the reference). */
export type SeedKernel = 'wasm' | 'js';

/**
 * Longest text `compare` aligns, in UTF-16 code units (64 Mi, about 12 million words). Every stage is
 * near-linear in the two texts (two 10 MB texts align in about 3 s, bench/compare-books.mjs); the bound
 * only keeps the working memory, some 15–30 bytes per character of the two texts, within what one
 * process can hold.
 */
export const MAX_COMPARE_LENGTH = 64 * 1024 * 1024;

/**
 * Align `a` and `b` (sync). See the module comment for the method.
 * @example
 * const { similarity, spans } = compareTexts(core, suspect, source)
 * @throws INVALID_INPUT (not a string, lone surrogate), INVALID_OPTIONS, PAYLOAD_TOO_LARGE (a text
 *   longer than {@link MAX_COMPARE_LENGTH})
 */
export function compareTexts(
  core: Core,
  a: string,
  b: string,
  options?: CompareOptions,
  kernel: SeedKernel = 'wasm',
): Comparison {
  a = checkText(a, 'a');
  b = checkText(b, 'b');
  const o = resolveCompareOptions(options);
  for (const [name, t] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (t.length > MAX_COMPARE_LENGTH) {
      const detail = `${name} has ${t.length} characters; compare aligns texts of at most ${MAX_COMPARE_LENGTH}`;
      throw new TrainprintError('PAYLOAD_TOO_LARGE', detail);
    }
  }

  const A = distinctSorted(shingleHashesCore(core, a, SHINGLE_OPTIONS));
  const B = distinctSorted(shingleHashesCore(core, b, SHINGLE_OPTIONS));
  const inter = intersectionSize(A, B);
  const union = A.length + B.length - inter;

  const { pa, pb, words } = preparePair(tokenize(a), tokenize(b), o.minSentenceWords, o.synonyms);
  const aligned = alignPrepared(core, { pa, pb, a, b, words }, o, 'auto', kernel);
  const spans =
    o.minRunWords > 0
      ? shortRuns(pa, pb, a, b, o.minRunWords, aligned).sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start)
      : aligned;
  return {
    similarity: coveredShare(pa, pb, spans),
    jaccard: union === 0 ? 0 : inter / union, // no shingle on either side: nothing shared, as the containments say
    containment_a: A.length === 0 ? 0 : inter / A.length,
    containment_b: B.length === 0 ? 0 : inter / B.length,
    spans: spans.map((s) => comparedSpan(s, pa, pb)),
    ...(o.synonyms && !synonymsLoaded() ? { limitations: ['synonyms_not_loaded'] as const } : {}),
  };
}

/** The tokens [from, to) of a prepared text inside the span [start, end) (spans start and end at tokens). */
function tokensIn(p: Prepared, start: number, end: number): [number, number] {
  const first = (x: number): number => {
    let lo = 0,
      hi = p.tokStart.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p.tokStart[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [first(start), first(end)];
}

/**
 * A span of the result: its kind from its shared word runs (on the prepared tokens' word ids: the same share as
 * `sharedRuns` of the two passages), or `'summary'` as the aligner found it.
 */
function comparedSpan(s: AlignedSpan, pa: Prepared, pb: Prepared): ComparedSpan {
  const [a0, a1] = tokensIn(pa, s.a_start, s.a_end),
    [b0, b1] = tokensIn(pb, s.b_start, s.b_end);
  const similarity = runShare(pa.tokWord, a0, a1, pb.tokWord, b0, b1);
  return {
    a_start: s.a_start,
    a_end: s.a_end,
    b_start: s.b_start,
    b_end: s.b_end,
    score: s.score,
    kind: s.summary ? 'summary' : reuseKind(similarity),
    similarity: Math.round(similarity * 1e4) / 1e4,
  };
}

function checkText(t: unknown, name: string): string {
  if (typeof t !== 'string')
    throw new TrainprintError('INVALID_INPUT', `${name} must be a string, got ${t === null ? 'null' : typeof t}`);
  try {
    return toText(t);
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${name}: ${(e as TrainprintError).detail ?? 'not well-formed'}`);
  }
}

/**
 * Which sentence pairs are scored for seeds: 'all-pairs' (the PAN method as published), 'regions' (only
 * pairs inside seeded regions, regions.ts), or 'auto': all pairs while there are at most
 * {@link ALL_PAIRS_LIMIT} of them, regions above.
 */
export type SeedScope = 'auto' | 'all-pairs' | 'regions';

/**
 * Most sentence pairs (sentences of a × sentences of b) scored all against all under 'auto' scope: about
 * two 300,000-character texts of prose, or a 10 MB text against 4,000 characters. There both ways take
 * about 0.1 s and give the same spans (`scopes` in bench/compare-books.mjs); every PAN 2013 pair
 * (sources up to 72 KB) is far below it, so their seeds are those of the published method.
 */
export const ALL_PAIRS_LIMIT = 4_000_000;

/**
 * The alignment proper: aligned spans of `a` and `b`.
 * @example
 * const spans = alignSpans(core, query, sourceText, resolveCompareOptions(undefined))
 */
export function alignSpans(
  core: Core | null,
  a: string,
  b: string,
  o: ResolvedCompareOptions,
  kernel: SeedKernel = 'wasm',
): AlignedSpan[] {
  return alignSpansScoped(core, a, b, o, 'auto', kernel);
}

/**
 * {@link alignSpans} with the seed scope chosen (the evaluation and the tests compare the two scopes).
 * @example
 * const viaRegions = alignSpansScoped(core, a, b, resolveCompareOptions(undefined), 'regions')
 */
export function alignSpansScoped(
  core: Core | null,
  a: string,
  b: string,
  o: ResolvedCompareOptions,
  scope: SeedScope,
  kernel: SeedKernel = 'wasm',
): AlignedSpan[] {
  const { pa, pb, words } = preparePair(tokenize(a), tokenize(b), o.minSentenceWords, o.synonyms);
  return alignPrepared(core, { pa, pb, a, b, words }, o, scope, kernel);
}

/**
 * {@link alignSpans} of two texts already {@link tokenize}d (e.g. windows of a {@link TokenizedText}): the same
 * spans, without tokenizing the texts again.
 * @example
 * const q = new TokenizedText(query)
 * const spans = alignTokens(core, q.window(0, 4000), tokenize(source), resolveCompareOptions(undefined))
 */
export function alignTokens(core: Core | null, a: Tokens, b: Tokens, o: ResolvedCompareOptions): AlignedSpan[] {
  const { pa, pb, words } = preparePair(a, b, o.minSentenceWords, o.synonyms);
  return alignPrepared(core, { pa, pb, a: a.text, b: b.text, words }, o, 'auto', 'wasm');
}

/** Two prepared texts (one term dictionary of `words` terms) and the strings they came from. */
interface Pair {
  readonly pa: Prepared;
  readonly pb: Prepared;
  readonly a: string;
  readonly b: string;
  readonly words: number;
}

/** Steps 2–7 of the method on two prepared texts. */
function alignPrepared(
  core: Core | null,
  pair: Pair,
  o: ResolvedCompareOptions,
  scope: SeedScope,
  kernel: SeedKernel,
): AlignedSpan[] {
  const { pa, pb, a, b } = pair;
  if (pa.tokStart.length === 0 || pb.tokStart.length === 0) return [];
  // Identical after normalisation: one passage, whatever the length. The sentence machinery cannot
  // say so for short texts (one sentence a side gives every word idf 0; no verbatim chain reaches
  // 40 words), and for long ones it finds this very span.
  if (sameWords(pa, pb)) return [wholeSpan(pa, pb, a, b)];
  const idf = idfWeights(pa, pb, pair.words);
  const va = vectors(pa, idf);
  const vb = vectors(pb, idf);
  const verb = o.verbatimRun > 0 ? verbatimPassages(pa, pb, a, b, o) : [];
  // obfuscation type recognition (after Sanchez-Perez et al. 2015): a pair without any verbatim passage is
  // treated as obfuscated and seeded with the looser thresholds
  const obfuscated = verb.length === 0;
  const th: Thresholds = obfuscated
    ? { cos: o.obfuscatedSeedCosine, dice: o.obfuscatedSeedDice }
    : { cos: o.seedCosine, dice: o.seedDice };
  const allPairs = scope === 'all-pairs' || (scope === 'auto' && sentences(pa) * sentences(pb) <= ALL_PAIRS_LIMIT);
  const seeds = allPairs
    ? seedsOfAllPairs(core, kernel, va, vb, pair.words, th)
    : seedsOfPairs(va, vb, seededRegions(pa, pb, { margin: o.maxGap }), th.cos, th.dice);
  if (seeds.count === 0) {
    const out = obfuscated ? verb : [...verb, ...rewordedBeside(core, kernel, pair, o, idf, va, vb, verb, allPairs)];
    return out.sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start);
  }

  // one seed set from here on: passages hold indices into it
  const kept = obfuscated ? dominantSeeds(seeds, DOMINANT_SEED) : seeds;
  let frags = passagesOf(kept, va, vb, o);
  if (obfuscated) frags = frags.map((f) => pruneEdges(f, kept, va, vb));
  if (obfuscated && o.extendShare > 0) frags = frags.map((f) => growEdges(f, pa, pb, idf, va, vb, o.extendShare));
  if (obfuscated) frags = [...frags, ...summaryPassages(kept, frags, pa, pb, va, vb, o)];
  frags = resolveOverlaps(frags, va, vb, obfuscated ? SIDE_BY_SIDE : 0);

  if (obfuscated) frags = frags.filter((f) => sharedEvidence(f, pa, pb, idf) >= MIN_EVIDENCE);
  // a pair with verbatim reuse is two texts on one subject: passages beside the copies need more evidence
  else {
    frags = frags.filter(
      (f) => touchesVerbatim(toSpan(f, pa, pb, a, b), verb) || sharedEvidence(f, pa, pb, idf) >= VERBATIM_PAIR_EVIDENCE,
    );
  }
  const out = mergeVerbatim(spansOf(frags, kept, pair, o), verb);
  if (!obfuscated) out.push(...rewordedBeside(core, kernel, pair, o, idf, va, vb, out, allPairs));
  out.sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start);
  return out;
}

/**
 * In a pair with verbatim passages, the reworded passages elsewhere in it: the pair's thresholds are the strict
 * ones of a pair with copies (a copy says the texts are related, not that every reused passage is a copy), so
 * a passage reworded as much as those of an obfuscated pair seeds nothing there. Here it is seeded as in an
 * obfuscated pair, among the sentences that no passage found so far touches, grouped, pruned and grown the same
 * way, and kept when its shared words weigh VERBATIM_PAIR_EVIDENCE, as every passage beside a copy must; a span
 * that overlaps one found before in either text goes. Only where every sentence pair is scored (up to
 * ALL_PAIRS_LIMIT). On the PAN 2013 training corpus, where a pair's cases are all copied or all obfuscated,
 * every figure stayed the same (02 0.99486 → 0.99487; so with 20 instead of 12).
 */
function rewordedBeside(
  core: Core | null,
  kernel: SeedKernel,
  pair: Pair,
  o: ResolvedCompareOptions,
  idf: Float64Array,
  va: Vectors,
  vb: Vectors,
  found: readonly AlignedSpan[],
  allPairs: boolean,
): AlignedSpan[] {
  const { pa, pb } = pair;
  if (!allPairs) return [];
  const th = { cos: o.obfuscatedSeedCosine, dice: o.obfuscatedSeedDice };
  const loose = seedsOfAllPairs(core, kernel, va, vb, pair.words, th);
  if (loose.count === 0) return [];
  const usedA = sentencesTouched(pa, found, 'a'),
    usedB = sentencesTouched(pb, found, 'b');
  const keep: number[] = [];
  for (let k = 0; k < loose.count; k++) if (!usedA[loose.a[k]] && !usedB[loose.b[k]]) keep.push(k);
  if (keep.length === 0) return [];
  const seeds: Seeds = {
    a: Uint32Array.from(keep, (k) => loose.a[k]),
    b: Uint32Array.from(keep, (k) => loose.b[k]),
    cos: Float64Array.from(keep, (k) => loose.cos[k]),
    count: keep.length,
  };
  const kept = dominantSeeds(seeds, DOMINANT_SEED);
  let frags = passagesOf(kept, va, vb, o).map((f) => pruneEdges(f, kept, va, vb));
  if (o.extendShare > 0) frags = frags.map((f) => growEdges(f, pa, pb, idf, va, vb, o.extendShare));
  frags = resolveOverlaps(frags, va, vb, SIDE_BY_SIDE).filter(
    (f) => sharedEvidence(f, pa, pb, idf) >= VERBATIM_PAIR_EVIDENCE,
  );
  const overlapsFound = (s: AlignedSpan) =>
    found.some((v) => (v.a_start < s.a_end && s.a_start < v.a_end) || (v.b_start < s.b_end && s.b_start < v.b_end));
  return spansOf(frags, kept, pair, o).filter((s) => !overlapsFound(s));
}

/** Sentences of a text (side 'a' or 'b') that some span overlaps. */
function sentencesTouched(p: Prepared, spans: readonly AlignedSpan[], side: 'a' | 'b'): Uint8Array {
  const n = p.sentTok.length - 1;
  const used = new Uint8Array(n);
  for (let s = 0; s < n; s++) {
    const start = p.tokStart[p.sentTok[s]],
      end = p.tokEnd[p.sentTok[s + 1] - 1];
    for (const v of spans) {
      const v0 = side === 'a' ? v.a_start : v.b_start,
        v1 = side === 'a' ? v.a_end : v.b_end;
      if (v0 < end && start < v1) {
        used[s] = 1;
        break;
      }
    }
  }
  return used;
}

/** Passage pairs → spans: weak single-seed and short passages dropped, edges trimmed or made word-exact. */
function spansOf(frags: Frag[], seeds: Seeds, pair: Pair, o: ResolvedCompareOptions): AlignedSpan[] {
  const { pa, pb, a, b } = pair;
  const minA = Math.min(o.minLength, pa.wordChars);
  const minB = Math.min(o.minLength, pb.wordChars);
  const spans: AlignedSpan[] = [];
  for (const f of frags) {
    if (passageSupport(seeds, f) < o.minSeeds && f.cos < o.singleSeedCosine) continue;
    const tokens = {
      ta0: pa.sentTok[f.a0],
      ta1: pa.sentTok[f.a1 + 1],
      tb0: pb.sentTok[f.b0],
      tb1: pb.sentTok[f.b1 + 1],
    };
    const s = refineVerbatim(trimEdges(toSpan(f, pa, pb, a, b), f, pa, pb, a, b), tokens, pa, pb, a, b, o);
    if (s.a_end - s.a_start < minA || s.b_end - s.b_start < minB) continue;
    spans.push(f.summary ? { ...s, summary: true } : s);
  }
  return spans;
}

/**
 * In obfuscated pairs, passages overlapping on one side only by less than this share of the shorter one's
 * sentences there both stay: grown edges make neighbouring passages touch, and two reused passages of one
 * source can sit side by side. Measured on the PAN 2013 training corpus (bench/eval-pan.mjs): plagdet of
 * 03 0.9125 → 0.9168 and 04 0.9182 → 0.9231 (the same from 0.34 to 0.67), 01 and 02 unchanged.
 */
const SIDE_BY_SIDE = 0.5;

/**
 * In obfuscated pairs, a seed is kept only when its cosine is at least this share of the best seed of each of
 * its two sentences (see dominantSeeds). Measured on the PAN 2013 training corpus (bench/eval-pan.mjs):
 * plagdet of 03 0.9168 → 0.9219 and 04 0.9230 → 0.9335, gains on both the even and the odd pairs and for
 * every ratio from 0.6 to 0.8; 01 and 02 unchanged.
 */
const DOMINANT_SEED = 0.7;

/**
 * In obfuscated pairs, a passage pair is reported only when its shared content words weigh at least this
 * (sharedEvidence: a word of a single sentence of the pair weighs 1, a word found all through both texts
 * about 0), so that two texts on one subject do not make a passage of their names and topic words. On
 * the PAN 2013 training corpus (bench/eval-pan.mjs) it drops one of the 3 false detections of 01
 * (0.030 % → 0.018 % of the suspicious characters), 03 0.9310 → 0.9304 and 04 0.9431 → 0.9442; from 6
 * to 6.5 the same.
 */
const MIN_EVIDENCE = 6;

/**
 * In pairs with verbatim passages (not obfuscated), a passage that overlaps none of them is reported only when its
 * shared words weigh at least this (sharedEvidence): twice what an obfuscated pair's passages need, since the
 * texts are on one subject and sentences about it resemble each other without being reuse. On the PAN 2013
 * training corpus the detections of 02 outside every gold case were such (two launch dates of Voyager told in
 * other words, two admission rules, two cancer statistics; the copied passages that were not annotated are
 * verbatim); with this rule 02 plagdet 0.9912 → 0.9949 (precision 0.987 → 0.994), 04 0.9468 → 0.9475, 01 and 03
 * the same (from 8 to 15: 0.9940–0.9958). An edited passage beside a copy keeps its rare words: four sentences
 * with a quarter of their words replaced weigh 20 and stay (unit test), with a third replaced 10 and go.
 */
const VERBATIM_PAIR_EVIDENCE = 2 * MIN_EVIDENCE;

/** A passage's span (toSpan) overlaps one of the verbatim passages in both texts. */
const touchesVerbatim = (s: AlignedSpan, verb: readonly AlignedSpan[]): boolean =>
  verb.some((v) => v.a_start < s.a_end && s.a_start < v.a_end && v.b_start < s.b_end && s.b_start < v.b_end);

/** Seed thresholds of one pair (loose ones for obfuscated pairs). */
interface Thresholds {
  readonly cos: number;
  readonly dice: number;
}

/** Every sentence pair scored, by the kernel or its reference. */
function seedsOfAllPairs(
  core: Core | null,
  kernel: SeedKernel,
  va: Vectors,
  vb: Vectors,
  words: number,
  th: Thresholds,
): Seeds {
  const post = postings(vb, words);
  if (kernel === 'wasm' && core) return seedsWasm(core, va, post, vb, th.cos, th.dice);
  return seedsReference(va, post, vb, th.cos, th.dice);
}

/** True when both texts are the same word sequence (after normalisation). */
function sameWords(pa: Prepared, pb: Prepared): boolean {
  const W = pa.tokWord,
    V = pb.tokWord;
  if (W.length !== V.length) return false;
  for (let t = 0; t < W.length; t++) if (W[t] !== V[t]) return false;
  return true;
}

/**
 * Share of the shorter text's word characters inside spans; 0 where it has none (empty, spaces, punctuation or emoji
 * alone: nothing to compare, as the Jaccard and containments say).
 */
function coveredShare(pa: Prepared, pb: Prepared, spans: readonly AlignedSpan[]): number {
  const useA = pa.wordChars <= pb.wordChars;
  const p = useA ? pa : pb;
  if (p.wordChars === 0) return 0;
  const iv = spans.map((s) => (useA ? [s.a_start, s.a_end] : [s.b_start, s.b_end])).sort((x, y) => x[0] - y[0]);
  let covered = 0,
    k = 0;
  for (let t = 0; t < p.tokStart.length; t++) {
    while (k < iv.length && iv[k][1] <= p.tokStart[t]) k++;
    // tokens never straddle a span edge: spans start and end at token boundaries
    for (let m = k; m < iv.length && iv[m][0] <= p.tokStart[t]; m++) {
      if (iv[m][1] >= p.tokEnd[t]) {
        covered += p.tokEnd[t] - p.tokStart[t];
        break;
      }
    }
  }
  return covered / p.wordChars;
}
