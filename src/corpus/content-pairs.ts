/**
 * The sampled pairs of nearby content words of a text, which candidate retrieval's second stage looks up
 * (the content-word index of ./content-words.ts): a pair is the two Porter stems of content words (stop words
 * and single characters out) at most {@link PAIR_REACH} content words apart, in sorted order, hashed to 32 bits;
 * only pairs whose hash is 0 modulo {@link PAIR_SAMPLE} are kept, in documents and queries alike.
 *
 * Two ways to the same pairs: {@link contentPairs} normalises the text in TypeScript (the reference, and the
 * pairs of short passages), {@link pairsOfTokens} reads the tokens the WebAssembly core found (a table keyed by
 * each form's 64-bit hash gives its stem, so a form is stemmed once) at about twice the speed, for index builds
 * and queries.
 */
import { tokenForm } from '../align/token-forms.js';
import { contentHashOf, countSpaces, FormTable, NOT_CONTENT } from '../align/tokens.js';
import type { Core } from '../core/abi.js';
import { withTokenHashes, type TokenHashes } from '../fingerprint/words.js';
import { normalize, type Normalized } from '../text/normalize.js';

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
  const lo = Math.min(x, y),
    hi = Math.max(x, y);
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
  const words = new Uint32Array(most),
    starts = new Uint32Array(most),
    ends = new Uint32Array(most);
  let n = 0;
  for (let s = 0; s < norm.length; ) {
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
 * WebAssembly core ({@link coreTokens}).
 */
export type TokenSource = <T>(text: string, use: (t: TokenHashes) => T) => T;

/**
 * The {@link TokenSource} of `core`: its tokenizer, as index builds and queries use it.
 * @example ContentWordIndex.build(texts, coreTokens(core))
 */
export const coreTokens =
  (core: Core): TokenSource =>
  (text, use) =>
    withTokenHashes(core, text, use);

/** Most forms a {@link TokenStems} table holds before it starts afresh (32 MB at the limit). */
const TOKEN_STEMS_LIMIT = 1 << 20;
/** Int32 values per {@link TokenStems} slot: the form hash's low and high halves, its content-word hash, state. */
const STEM_SLOT = 4;
/** Slot states: empty, a content word, no content word (a stop word or a single character). */
const EMPTY = 0,
  CONTENT = 1,
  NO_CONTENT = 2;

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
    const slots = this.slots,
      mask = slots.length / STEM_SLOT - 1;
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
 * characters, any other is read from the stretch of text around it normalised alone (`tokenForm`), else from
 * `normalize(text)`, whose tokens the core's are, one for one.
 */
function contentWordsOfTokens(
  text: string,
  t: TokenHashes,
  words: Uint32Array,
  starts: Uint32Array,
  ends: Uint32Array,
): number {
  const n = t.count,
    hashes = t.hashes,
    at = t.starts,
    to = t.ends;
  let forms: string[] | null = null;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const lo = hashes[2 * i] | 0,
      hi = hashes[2 * i + 1] | 0; // as int32: small integers in V8, no u32 doubles
    let b = tokenStems.find(lo, hi);
    if (tokenStems.slots[b + 3] === EMPTY) {
      let form: string;
      if (asciiWord(text, at[i], to[i])) form = text.slice(at[i], to[i]).toLowerCase();
      else {
        const own = forms === null ? tokenForm(text, at, to, n, i) : undefined;
        if (own !== undefined) form = own;
        else {
          forms ??= normalize(text).text.split(' ');
          if (forms.length !== n) return -1;
          form = forms[i];
        }
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
  const words = new Uint32Array(t.count),
    starts = new Uint32Array(t.count),
    ends = new Uint32Array(t.count);
  const n = contentWordsOfTokens(text, t, words, starts, ends);
  return n < 0 ? contentPairs(text) : pairsOfWords(words, starts, ends, n);
}

/** The sampled pairs of the first `n` content words (their hashes and spans, in text order). */
function pairsOfWords(words: Uint32Array, starts: Uint32Array, ends: Uint32Array, n: number): ContentPairs {
  const most = n * PAIR_REACH;
  const H = new Uint32Array(most),
    S = new Uint32Array(most),
    E = new Uint32Array(most);
  const m = pairsOfWordsInto(words, starts, ends, n, H, S, E);
  return { hashes: H.slice(0, m), starts: S.slice(0, m), ends: E.slice(0, m) };
}

/**
 * {@link pairsOfWords} written to `H`, `S` and `E` (room for `n × PAIR_REACH`; reused by an index build);
 * returns how many pairs.
 */
export function pairsOfWordsInto(
  words: Uint32Array,
  starts: Uint32Array,
  ends: Uint32Array,
  n: number,
  H: Uint32Array,
  S: Uint32Array,
  E: Uint32Array,
): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j <= i + PAIR_REACH && j < n; j++) {
      if (words[i] === words[j]) continue;
      const h = pairHash(words[i], words[j]);
      if (!sampled(h)) continue;
      H[m] = h;
      S[m] = starts[i];
      E[m++] = ends[j];
    }
  }
  return m;
}

/** One document's content words and pairs at a time, from the core's tokens: arrays grown to the longest text. */
export class PairScratch {
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
