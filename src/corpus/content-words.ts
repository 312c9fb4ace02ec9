/**
 * Candidate retrieval that survives word edits, reordering and rewording: an index of unordered
 * pairs of nearby content words (Porter stems, stop words out), built from the texts an exact
 * dataset keeps. Exact 5-grams vanish under a 30 % edit rate (about one in six survives, and the
 * winnowed index keeps about one in five of those); a pair of content words survives as long as
 * both words stay and stay close, in any order, whatever happens to the words between them.
 *
 * A pair is the two stems of content words at most {@link PAIR_REACH} content words apart, in
 * sorted order, hashed to 32 bits (FNV-1a). Only pairs whose hash is 0 modulo
 * {@link PAIR_SAMPLE} are kept, in documents and queries alike (the same pairs are sampled on
 * both sides, so a shared pair is always found when it is kept): this keeps the index at
 * ≈ 2 × 12 B / PAIR_SAMPLE = 8 B per content word. Postings are (hash, document, offset of the first word)
 * sorted by hash; a query's pairs are found by binary search, and hits are grouped into regions
 * like exact hits (close in the query and in the document).
 *
 * The index is built on the first search that needs it, from the kept texts (nothing more is
 * stored in snapshots), and rebuilt after documents are added. A dataset's texts are tokenized in
 * the WebAssembly core for it, and each distinct token form is stemmed once ({@link pairsOfTokens}):
 * the same pairs as {@link contentPairs}, at about twice its speed.
 */
import { contentHashOf, countSpaces, FormTable, NOT_CONTENT } from '../align/tokens.js';
import { columnRegions, type CandidateRegion, type HitColumns, type RegionRule } from '../datasets/regions.js';
import type { TokenHashes } from '../fingerprint/words.js';
import { normalize, type Normalized } from '../text/normalize.js';
import { withRoom } from '../util/grow.js';
import { sortByKeyU32, sortedByKeyU32 } from '../util/sorted.js';
import { finish, ITEMS_PER_PAUSE, PAUSE, type Steps } from '../util/steps.js';

/** Content words a pair may span (the second word is 1..PAIR_REACH content words after the first). */
export const PAIR_REACH = 2;
/**
 * One pair in PAIR_SAMPLE is kept (by hash). Recall of short reworded passages grows with the share kept, and the
 * index with it; on PAN 2013 as retrieval (bench/eval-pan-retrieval.mjs) one in four found random / translation
 * obfuscation at character recall 0.854 / 0.886, one in three at 0.878 / 0.915 (one in two: 0.893 / 0.935 at twice
 * the index of one in four), at the same verified share and confidence AUC; two words further apart per pair at the
 * same index size gained nothing.
 */
export const PAIR_SAMPLE = 3;
/** Fewest distinct sampled pairs in one region for a document to be a candidate. */
export const PAIR_MIN_HITS = 3;
/**
 * Fewest hits per query pair spanned for a region: reuse keeps a good share of its pairs together
 * (a third and more under heavy edits), chance hits of a long query are a few scattered ones.
 */
export const PAIR_MIN_DENSITY = 0.05;

/**
 * Bits of a pair hash that pick its bucket of the index: about 8 postings a bucket (a lookup is a short search
 * in one cache-friendly stretch, however large the index), between 2^12 and 2^24 buckets (0.5 B a posting).
 */
const prefixBitsFor = (postings: number): number => Math.min(24, Math.max(12, Math.ceil(Math.log2(postings / 8 + 1))));

/**
 * The end of the run of `h` that starts at `keys[lo]` (sorted keys): galloping, then a binary search, so a pair
 * with many postings costs a logarithm of them rather than a walk over them all.
 */
function endOfRun(keys: Uint32Array, lo: number, h: number): number {
  let step = 1, hi = lo + 1;
  while (hi < keys.length && keys[hi] === h) {
    lo = hi;
    hi = Math.min(keys.length, hi + step);
    step *= 2;
  }
  // keys[lo] === h, and hi is the end or a key > h
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] === h) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Pairs occurring in more documents than this are too common to say anything. */
export const MAX_POSTINGS = 64;
/**
 * A shared pair of content words is weaker evidence than a shared 5-gram (pairs recur by topic):
 * a pair hit counts this much of an exact hit in a candidate's strength.
 */
const PAIR_WEIGHT = 0.5;
/**
 * Regions of pair hits: ≤ 2,000 characters apart in the document, ≤ 64 sampled query pairs (≈ 128 content
 * words) apart in the query, PAIR_MIN_HITS and PAIR_MIN_DENSITY; 8 a document.
 */
const PAIR_REGIONS: RegionRule = {
  sourceGap: 2000, queryGap: 64, minHits: PAIR_MIN_HITS, minDensity: PAIR_MIN_DENSITY, most: 8,
};

/** The sampled content-word pairs of a text: hash, and the span of the pair's words. */
export interface ContentPairs {
  readonly hashes: Uint32Array;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
}

/** Token forms the stem cache holds before it starts afresh (a few MB). */
const STEM_CACHE_FORMS = 1 << 18;

/**
 * {@link contentHashOf} of each token form seen, found by the form's characters as they stand in the normalised
 * text ({@link FormTable}: a known form costs a hash and a comparison, no slice and no Map look-up, which were most
 * of the time of a query's pairs and of building the index). Bounded: past {@link STEM_CACHE_FORMS} forms it starts
 * afresh. Kept apart from the aligner's lexicon: the millions of forms of an index's texts would turn its epochs over.
 */
class StemCache {
  readonly #forms = new FormTable();
  readonly #values = new Float64Array(STEM_CACHE_FORMS);

  /** The content-word hash of `text.slice(from, to)`. */
  get(text: string, from: number, to: number): number {
    if (this.#forms.size === STEM_CACHE_FORMS) this.#forms.clear();
    const k = this.#forms.intern(text, from, to);
    if (this.#forms.added) this.#values[k] = contentHashOf(this.#forms.form(k));
    return this.#values[k];
  }
}

const stems = new StemCache();

/** Mix two stem hashes in sorted order (the pair is unordered). */
function pairHash(x: number, y: number): number {
  const lo = x < y ? x : y, hi = x < y ? y : x;
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ hi;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * Whether the pair hashed `h` (a u32) is kept: `h % PAIR_SAMPLE === 0`, computed on its 16-bit halves (2^16 ≡
 * 2^16 % PAIR_SAMPLE), so on small integers only; a u32 above 2^31 is no small integer in V8, and its remainder
 * was a floating-point one.
 */
function sampled(h: number): boolean {
  return ((h >>> 16) * (0x10000 % PAIR_SAMPLE) + (h & 0xffff)) % PAIR_SAMPLE === 0;
}

/** The sampled pairs of `text`, in text order. */
export function contentPairs(text: string): ContentPairs {
  return pairsOfNormalized(normalize(text));
}

/** {@link contentPairs} of a text already normalised (offsets through its map). */
export function pairsOfNormalized({ text: norm, map }: Normalized): ContentPairs {
  const most = norm.length === 0 ? 0 : countSpaces(norm) + 1;
  const words = new Uint32Array(most), starts = new Uint32Array(most), ends = new Uint32Array(most);
  let n = 0;
  for (let s = 0; s < norm.length;) {
    let e = norm.indexOf(' ', s);
    if (e < 0) e = norm.length;
    const h = stems.get(norm, s, e);
    if (h !== NOT_CONTENT) {
      words[n] = h;
      starts[n] = map[s];
      ends[n++] = map[e];
    }
    s = e + 1;
  }
  return pairsOfWords(words, starts, ends, n);
}

/**
 * Gives `use` the core's word tokens of a text ({@link TokenHashes}); what an index build needs from the
 * WebAssembly core, e.g. `(text, use) => withTokenHashes(core, text, use)`.
 */
export type TokenSource = <T>(text: string, use: (t: TokenHashes) => T) => T;

/** Most forms a {@link TokenStems} table holds before it starts afresh (32 MB at the limit). */
const TOKEN_STEMS_LIMIT = 1 << 20;
/** Int32 values per {@link TokenStems} slot: the form hash's low and high halves, its content-word hash, state. */
const STEM_SLOT = 4;
/** Slot states: empty, a content word, no content word (a stop word or a single character). */
const EMPTY = 0, CONTENT = 1, NO_CONTENT = 2;

/**
 * {@link contentHashOf} of token forms, keyed by the core's 64-bit hash of the form ({@link TokenHashes}): an
 * open-addressing table, at most half full, bounded at {@link TOKEN_STEMS_LIMIT} forms, one 16-byte slot a form
 * (a look-up reads one cache line). The tokens of an index's texts find their stems here without a string or a
 * character comparison per token; only a form seen for the first time is made a string and stemmed. Two forms
 * whose 64-bit hashes collide share a stem (at a million forms, a chance of about 3 in 10^8): a pair of content
 * words only proposes a candidate, which alignment then checks against the text.
 */
class TokenStems {
  /** STEM_SLOT int32 per slot (see {@link STEM_SLOT}); read directly by {@link contentWordsOfTokens}. */
  slots = new Int32Array(4096 * STEM_SLOT);
  #size = 0;

  /** The slot of the form hashed (lo, hi) (int32 halves): where it is, or the empty slot where it would go. */
  find(lo: number, hi: number): number {
    const slots = this.slots, mask = slots.length / STEM_SLOT - 1;
    for (let at = lo & mask; ; at = (at + 1) & mask) {
      const b = at * STEM_SLOT;
      if (slots[b + 3] === EMPTY || (slots[b] === lo && slots[b + 1] === hi)) return b;
    }
  }

  /** Remember the content-word hash of the form hashed (lo, hi), not in the table; returns its slot. */
  add(lo: number, hi: number, hash: number): number {
    const slotCount = this.slots.length / STEM_SLOT;
    if (this.#size === TOKEN_STEMS_LIMIT) this.#resize(4096, false);
    else if (2 * (this.#size + 1) > slotCount) this.#resize(2 * slotCount, true);
    const b = this.find(lo, hi);
    this.slots[b] = lo;
    this.slots[b + 1] = hi;
    this.slots[b + 2] = hash === NOT_CONTENT ? 0 : hash;
    this.slots[b + 3] = hash === NOT_CONTENT ? NO_CONTENT : CONTENT;
    this.#size++;
    return b;
  }

  #resize(slotCount: number, keep: boolean): void {
    const old = this.slots;
    this.slots = new Int32Array(slotCount * STEM_SLOT);
    this.#size = 0;
    if (!keep) return;
    for (let b = 0; b < old.length; b += STEM_SLOT) {
      if (old[b + 3] === EMPTY) continue;
      const to = this.find(old[b], old[b + 1]);
      for (let k = 0; k < STEM_SLOT; k++) this.slots[to + k] = old[b + k];
      this.#size++;
    }
  }
}

const tokenStems = new TokenStems();

/** True when `text.slice(from, to)` is only ASCII letters and digits (its normalised form is its lower case). */
function asciiWord(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    const lower = c | 0x20;
    if (!((lower >= 0x61 && lower <= 0x7a) || (c >= 0x30 && c <= 0x39))) return false;
  }
  return true;
}

/**
 * The content words of `text` from its tokens as the core found them (`t`): their hashes ({@link contentHashOf})
 * and spans, written to `words`, `starts` and `ends` (room for `t.count`); returns how many, or −1 in a case
 * that never occurs (the core's tokens and `normalize`'s differ in number). No normalised copy of the text and
 * no string per token, except for forms the table has not seen: an ASCII form is the lower case of its
 * characters, any other is read from `normalize(text)`, whose tokens the core's are, one for one.
 */
function contentWordsOfTokens(
  text: string, t: TokenHashes, words: Uint32Array, starts: Uint32Array, ends: Uint32Array,
): number {
  const n = t.count, hashes = t.hashes, at = t.starts, to = t.ends;
  let forms: string[] | null = null;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const lo = hashes[2 * i] | 0, hi = hashes[2 * i + 1] | 0; // as int32: small integers in V8, no u32 doubles
    let b = tokenStems.find(lo, hi);
    if (tokenStems.slots[b + 3] === EMPTY) {
      let form: string;
      if (asciiWord(text, at[i], to[i])) form = text.slice(at[i], to[i]).toLowerCase();
      else {
        forms ??= normalize(text).text.split(' ');
        if (forms.length !== n) return -1;
        form = forms[i];
      }
      b = tokenStems.add(lo, hi, contentHashOf(form));
    }
    const slots = tokenStems.slots; // after add: it may have grown
    if (slots[b + 3] === NO_CONTENT) continue;
    words[m] = slots[b + 2];
    starts[m] = at[i];
    ends[m++] = to[i];
  }
  return m;
}

/**
 * {@link contentPairs} of `text` from its tokens as the core found them (`t`, from a {@link TokenSource}): the
 * same pairs, made without a normalised copy of the text (see {@link contentWordsOfTokens}).
 * @example withTokenHashes(core, text, (t) => pairsOfTokens(text, t)) // = contentPairs(text)
 */
export function pairsOfTokens(text: string, t: TokenHashes): ContentPairs {
  const words = new Uint32Array(t.count), starts = new Uint32Array(t.count), ends = new Uint32Array(t.count);
  const n = contentWordsOfTokens(text, t, words, starts, ends);
  return n < 0 ? contentPairs(text) : pairsOfWords(words, starts, ends, n);
}

/** The sampled pairs of the first `n` content words (their hashes and spans, in text order). */
function pairsOfWords(words: Uint32Array, starts: Uint32Array, ends: Uint32Array, n: number): ContentPairs {
  const most = n * PAIR_REACH;
  const H = new Uint32Array(most), S = new Uint32Array(most), E = new Uint32Array(most);
  const m = pairsOfWordsInto(words, starts, ends, n, H, S, E);
  return { hashes: H.slice(0, m), starts: S.slice(0, m), ends: E.slice(0, m) };
}

/**
 * {@link pairsOfWords} written to `H`, `S` and `E` (room for `n × PAIR_REACH`; reused by an index build);
 * returns how many pairs.
 */
function pairsOfWordsInto(
  words: Uint32Array, starts: Uint32Array, ends: Uint32Array, n: number, H: Uint32Array, S: Uint32Array, E: Uint32Array,
): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j <= i + PAIR_REACH && j < n; j++) {
      if (words[i] === words[j]) continue;
      const h = pairHash(words[i], words[j]);
      if (!sampled(h)) continue;
      H[m] = h; S[m] = starts[i]; E[m++] = ends[j];
    }
  }
  return m;
}

/** One document's content words and pairs at a time, from the core's tokens: arrays grown to the longest text. */
class PairScratch {
  words = new Uint32Array(0);
  starts = this.words;
  ends = this.words;
  /** The pairs' hashes, first-word starts and last-word ends (room for PAIR_REACH a token). */
  H = this.words;
  S = this.words;
  E = this.words;

  constructor(private readonly tokens: TokenSource) {}

  /** The pairs of `text` into {@link H}, {@link S}, {@link E}; returns how many (−1: use {@link contentPairs}). */
  pairsOf(text: string): number {
    const n = this.tokens(text, (t) => {
      if (this.words.length < t.count) this.#grow(t.count);
      return contentWordsOfTokens(text, t, this.words, this.starts, this.ends);
    });
    return n < 0 ? n : pairsOfWordsInto(this.words, this.starts, this.ends, n, this.H, this.S, this.E);
  }

  #grow(tokens: number): void {
    this.words = new Uint32Array(tokens);
    this.starts = new Uint32Array(tokens);
    this.ends = new Uint32Array(tokens);
    this.H = new Uint32Array(tokens * PAIR_REACH);
    this.S = new Uint32Array(tokens * PAIR_REACH);
    this.E = new Uint32Array(tokens * PAIR_REACH);
  }
}

/** Postings of a content-word index in document order, not sorted yet: (pair hash, document, offset). */
export interface PairPostings {
  readonly keys: Uint32Array;
  readonly docs: Uint32Array;
  readonly offsets: Uint32Array;
}

/**
 * The postings of an index being built: (pair hash, document, offset) columns that grow by doubling, and a
 * document's pairs (or a stretch of documents' postings) appended at once.
 */
export class PostingColumns {
  keys = new Uint32Array(1 << 16);
  docs = new Uint32Array(1 << 16);
  offsets = new Uint32Array(1 << 16);
  size = 0;

  /** Append the first `m` pairs (hashes `H`, first-word starts `S`) of document `doc`. */
  append(doc: number, H: Uint32Array, S: Uint32Array, m: number): void {
    const at = this.#room(m);
    this.keys.set(H.subarray(0, m), at);
    this.docs.fill(doc, at, at + m);
    this.offsets.set(S.subarray(0, m), at);
  }

  /** Append postings made apart (documents after those appended so far). */
  appendAll(p: PairPostings): void {
    const at = this.#room(p.keys.length);
    this.keys.set(p.keys, at);
    this.docs.set(p.docs, at);
    this.offsets.set(p.offsets, at);
  }

  /** The postings appended, as arrays of their length (copies). */
  copied(): PairPostings {
    const n = this.size;
    return { keys: this.keys.slice(0, n), docs: this.docs.slice(0, n), offsets: this.offsets.slice(0, n) };
  }

  /** Room for `m` more postings; returns where they go. */
  #room(m: number): number {
    const at = this.size, need = at + m;
    this.keys = withRoom(this.keys, need, at);
    this.docs = withRoom(this.docs, need, at);
    this.offsets = withRoom(this.offsets, need, at);
    this.size = need;
    return at;
  }
}

/**
 * Append the postings of documents `first`, `first + 1`, … (their `texts`; null: not kept, skipped) to `out`, a
 * pause after each document. With `tokens`, each text is tokenized in the core ({@link pairsOfTokens}).
 */
export function* collectSteps(
  texts: ReadonlyArray<string | null>, first: number, tokens: TokenSource | undefined, out: PostingColumns,
): Steps<void> {
  const scratch = tokens ? new PairScratch(tokens) : null;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (text === null) continue;
    yield PAUSE;
    const n = scratch ? scratch.pairsOf(text) : -1;
    if (scratch && n >= 0) out.append(first + i, scratch.H, scratch.S, n);
    else {
      const p = contentPairs(text);
      out.append(first + i, p.hashes, p.starts, p.hashes.length);
    }
  }
}

/**
 * The postings of documents `first`, `first + 1`, … in one go (see {@link collectSteps}): a stretch of a
 * dataset's documents, which another thread can make (the 'pair-postings' work of src/corpus/work.ts).
 * @example pairPostings(['first text', null, 'third text'], 100).docs // 100s and 102s, in text order
 */
export function pairPostings(texts: ReadonlyArray<string | null>, first: number, tokens?: TokenSource): PairPostings {
  const out = new PostingColumns();
  finish(collectSteps(texts, first, tokens, out));
  return out.copied();
}

/** The postings range of each pair of a query (see {@link ContentWordIndex.postings}). */
export interface QueryPostings {
  readonly from: Uint32Array;
  readonly to: Uint32Array;
}

/** A candidate document from content-word pairs. */
export interface PairCandidate {
  readonly doc: number;
  readonly hits: number;
  readonly strength: number;
  readonly regions: CandidateRegion[];
}

/**
 * What the search reads of a content-word pair index: where the query's pairs sit, which documents hold
 * one, and the candidate documents. {@link ContentWordIndex} is one; a dataset in a database gives one
 * built from the postings a query fetched (src/corpus/stored.ts).
 */
export interface PairIndex {
  postings(q: ContentPairs): QueryPostings;
  holdsAt(at: QueryPostings, i: number, doc: number): boolean;
  candidateSteps(q: ContentPairs, at: QueryPostings): Steps<PairCandidate[]>;
}

/**
 * The content-word pair index of a set of documents (see the module comment).
 * @example
 * const index = ContentWordIndex.build(['first document text', 'second document text'])
 * index.candidates(contentPairs('a query that rewords the second document'))
 */
export class ContentWordIndex implements PairIndex {
  /** Where each bucket's keys start (a key's bucket is its top 32 − shift bits): a lookup searches one bucket. */
  private readonly buckets: Uint32Array;
  /** A key's bucket is `key >>> shift`. */
  private readonly shift: number;
  /** Where {@link postingSteps} leaves the keys it read ahead (kept so that the reads are not optimised away). */
  #touched = 0;
  /** Hit counts (then write cursors) per document for {@link candidateSteps}, zeroed between uses. */
  #hitCounts: Uint32Array | null = null;

  private constructor(
    private readonly keys: Uint32Array,
    private readonly docs: Uint32Array,
    private readonly offsets: Uint32Array,
    /** Documents indexed (documents without text are skipped but keep their number). */
    readonly documents: number,
  ) {
    const bits = prefixBitsFor(keys.length);
    this.shift = 32 - bits;
    this.buckets = new Uint32Array((1 << bits) + 1);
    for (const k of keys) this.buckets[(k >>> this.shift) + 1]++;
    for (let b = 0; b < 1 << bits; b++) this.buckets[b + 1] += this.buckets[b];
  }

  /**
   * Build from the documents' texts (null: not kept, skipped). With `tokens` (the core's tokenizer), each text
   * is tokenized in the core ({@link pairsOfTokens}); the index is the same either way.
   */
  static build(texts: ReadonlyArray<string | null>, tokens?: TokenSource): ContentWordIndex {
    return finish(ContentWordIndex.buildSteps(texts, tokens));
  }

  /**
   * {@link build} as steps (src/util/steps.ts): it pauses between documents and between the passes over the
   * postings, so the first search of a large dataset, which builds its index, shares the thread too.
   */
  static *buildSteps(texts: ReadonlyArray<string | null>, tokens?: TokenSource): Steps<ContentWordIndex> {
    const out = new PostingColumns();
    yield* collectSteps(texts, 0, tokens, out);
    yield PAUSE;
    const index = ContentWordIndex.fromColumns(out, texts.length);
    yield PAUSE;
    return index;
  }

  /**
   * The index of postings gathered in document order (`out`, whose columns it takes as scratch) of a dataset
   * of `documents` documents: sorted by pair hash, stably, so in document order within a hash.
   * @example ContentWordIndex.fromColumns(columns, texts.length)
   */
  static fromColumns(out: PostingColumns, documents: number): ContentWordIndex {
    const [keys, docs, offsets] = sortedByKeyU32(out.size, out.keys, out.docs, out.offsets);
    return new ContentWordIndex(keys, docs, offsets, documents);
  }

  /**
   * An index of the given postings (pair hash, document, offset of the first word), in that order within
   * each hash: the postings a query fetched from a database, for instance. Sorts the arrays in place.
   * @example ContentWordIndex.fromPostings(hashes, docs, offsets, 1000).postings(contentPairs(query))
   */
  static fromPostings(keys: Uint32Array, docs: Uint32Array, offsets: Uint32Array, documents: number): ContentWordIndex {
    sortByKeyU32(keys, docs, offsets);
    return new ContentWordIndex(keys, docs, offsets, documents);
  }

  /**
   * Where each pair of a query sits in the index: its postings are `[from[i], to[i])` (empty when
   * the index lacks it). One binary search per pair, done once per query and shared by the
   * candidate search and every {@link holdsAt} of the alignment stage.
   */
  postings(q: ContentPairs): QueryPostings {
    return finish(this.postingSteps(q));
  }

  /** {@link postings} as steps (src/util/steps.ts): it pauses every ITEMS_PER_PAUSE query pairs. */
  *postingSteps(q: ContentPairs): Steps<QueryPostings> {
    const n = q.hashes.length, keys = this.keys;
    const from = new Uint32Array(n), to = new Uint32Array(n);
    // Each pair's bucket, then a read of its bucket's first key, each in a pass of its own: loads that do
    // not depend on one another, so the processor has many of these cache misses (a large index is far
    // bigger than the caches) under way at once, instead of one after another inside each binary search.
    for (let i = 0; i < n; i++) {
      const b = q.hashes[i] >>> this.shift;
      from[i] = this.buckets[b];
      to[i] = this.buckets[b + 1];
    }
    let touched = 0;
    for (let i = 0; i < n; i++) if (from[i] < to[i]) touched ^= keys[from[i]];
    this.#touched = touched;
    for (let i = 0; i < n; i++) {
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
      const h = q.hashes[i];
      let lo = from[i], hi = to[i];
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid] < h) lo = mid + 1;
        else hi = mid;
      }
      from[i] = lo;
      to[i] = lo < keys.length && keys[lo] === h ? endOfRun(keys, lo, h) : lo;
    }
    return { from, to };
  }

  /**
   * True when document `doc` holds query pair `i` (binary search inside the pair's postings,
   * which are in document order).
   */
  holdsAt(at: QueryPostings, i: number, doc: number): boolean {
    let lo = at.from[i], hi = at.to[i];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid] < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo < at.to[i] && this.docs[lo] === doc;
  }

  /** Bytes the index takes (keys, documents, offsets, bucket table). */
  get bytes(): number {
    return this.keys.length * 12 + this.buckets.byteLength;
  }

  /**
   * Documents sharing ≥ PAIR_MIN_HITS sampled pairs with one stretch of the query (its pairs:
   * {@link contentPairs}), strongest first.
   */
  candidates(q: ContentPairs, at: QueryPostings = this.postings(q)): PairCandidate[] {
    return finish(this.candidateSteps(q, at));
  }

  /**
   * {@link candidates} as steps (src/util/steps.ts): it pauses every ITEMS_PER_PAUSE query pairs and
   * between documents. The hits are grouped by document in the order found (by query pair), and each group is
   * ordered by (offset, query pair) by columnRegions.
   */
  *candidateSteps(q: ContentPairs, at: QueryPostings): Steps<PairCandidate[]> {
    // First count the hits per document: one with fewer than PAIR_MIN_HITS can hold no region, and most
    // documents a query's pairs touch are such (chance pairs), so their hits are never written.
    let counts = this.#hitCounts ?? new Uint32Array(this.documents);
    this.#hitCounts = null; // taken: a search sliced into steps may run beside another
    const touched: number[] = [];
    for (let i = 0; i < q.hashes.length; i++) {
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
      const lo = at.from[i], end = at.to[i];
      if (end - lo > MAX_POSTINGS) continue;
      for (let k = lo; k < end; k++) {
        const doc = this.docs[k];
        if (doc >= counts.length) counts = withRoom(counts, doc + 1); // a document added since
        if (counts[doc]++ === 0) touched.push(doc);
      }
    }
    // the documents that can hold a region, in document order, each given its range [from, to) of the hit
    // columns; from here on a document's count is 1 + where its next hit goes (0: not kept)
    const kept = touched.filter((doc) => counts[doc] >= PAIR_MIN_HITS).sort((a, b) => a - b);
    for (const doc of touched) if (counts[doc] < PAIR_MIN_HITS) counts[doc] = 0;
    const from = new Uint32Array(kept.length), to = new Uint32Array(kept.length);
    let total = 0;
    kept.forEach((doc, t) => {
      from[t] = total;
      to[t] = total += counts[doc];
      counts[doc] = from[t] + 1;
    });
    const offsets = new Uint32Array(total), hits: HitColumns = {
      item: new Uint32Array(total), start: offsets, end: offsets, weight: new Float64Array(total),
      key: new Uint32Array(total),
    };
    // then write them, in query-pair order within each document
    for (let i = 0; i < q.hashes.length; i++) {
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
      const lo = at.from[i], end = at.to[i];
      if (end - lo > MAX_POSTINGS) continue;
      const weight = PAIR_WEIGHT / (end - lo);
      for (let k = lo; k < end; k++) {
        const doc = this.docs[k], next = counts[doc];
        if (next === 0) continue;
        counts[doc] = next + 1;
        hits.item[next - 1] = i;
        offsets[next - 1] = this.offsets[k];
        hits.weight[next - 1] = weight;
        hits.key[next - 1] = q.hashes[i];
      }
    }
    for (const doc of kept) counts[doc] = 0;
    this.#hitCounts = counts;
    const out: PairCandidate[] = [];
    const order = new Uint32Array(total);
    for (let t = 0; t < kept.length; t++) {
      yield PAUSE;
      // columnRegions orders the hits by (offset, query pair) itself: they were written in query-pair order
      const regions = columnRegions(hits, from[t], to[t], q.starts, q.ends, PAIR_REGIONS, order);
      const best = regions[0];
      if (best) out.push({ doc: kept[t], hits: best.hits, strength: best.strength, regions });
    }
    return out.sort((a, b) => b.strength - a.strength || a.doc - b.doc);
  }
}
