/**
 * Word tokens of texts to align, with process-wide ids: a lexicon that interns each token form once (its word id
 * and the id of its Porter stem), {@link tokenize} for one text, and {@link TokenizedText} for the windows of a
 * long text that a search aligns again and again (the query against every candidate, a document's probe and
 * widened windows): tokenized once in chunks, a window's tokens are sliced from them.
 */
import type { Core } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { normalize } from '../text/normalize.js';
import { lowerBound, upperBound } from '../util/sorted.js';
import { isTokenSeparator } from '../util/space.js';
import { ASCII_WORD, sameAsciiForm } from './ascii-forms.js';
import { porterStem, stemOnce, STOP_WORDS } from './stem.js';
import { namedTokens, type TokenNamer, UNDECIDED } from './token-columns.js';

/**
 * Token forms found by the characters of the text they stand in: ids in order of first sight, in an
 * open-addressing table keyed by a hash of the characters, so a form seen before costs a hash and a comparison —
 * no substring and no Map look-up (a per-token `slice` + `Map.get` was the largest single cost of aligning fresh
 * candidate documents, and of a query's content-word pairs). Each slot holds the form's hash, id, and where its
 * characters lie in one pool of UTF-16 units, so a look-up reads one slot and the pool: with a million forms the
 * table is far larger than the caches, and following an id to a per-id hash and then to a string on the heap
 * cost four memory misses a token instead of two.
 * @example
 * const forms = new FormTable()
 * forms.intern('two cats', 4, 8) === forms.intern('cats', 0, 4) // true
 */
export class FormTable {
  /** The form of each id. */
  #forms: string[] = [];
  /** SLOT_INTS per slot: the form's hash, id + 1 (0: empty), its offset in `#pool`, its length; at most half full. */
  #slots = new Int32Array(2048 * SLOT_INTS);
  /** The characters of every form, one after another. */
  #pool = new Uint16Array(8192);
  #poolUsed = 0;
  /** Whether the last {@link intern} added its form (a new id). */
  added = false;

  /** Forms held. */
  get size(): number {
    return this.#forms.length;
  }

  /** The form of id `id`. */
  form(id: number): string {
    return this.#forms[id];
  }

  /** The id of the form `text.slice(from, to)`, added on first sight (then {@link added} is true). */
  intern(text: string, from: number, to: number): number {
    return this.internHashed(text, from, to, formHash(text, from, to));
  }

  /** {@link intern} with the form's {@link formHash} `h` already computed (as a tokenizer scanning it can). */
  internHashed(text: string, from: number, to: number, hash: number): number {
    const h = hash | 0;
    const slots = this.#slots,
      pool = this.#pool;
    const mask = slots.length / SLOT_INTS - 1;
    const len = to - from;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const b = at * SLOT_INTS;
      const id = slots[b + 1] - 1;
      if (id < 0) {
        this.added = true;
        return this.#add(text, from, to, h, at);
      }
      if (slots[b] !== h || slots[b + 3] !== len) continue;
      const off = slots[b + 2];
      let k = 0;
      while (k < len && pool[off + k] === text.charCodeAt(from + k)) k++;
      if (k === len) {
        this.added = false;
        return id;
      }
    }
  }

  /** Forgets every form (ids start again at 0). */
  clear(): void {
    this.#forms = [];
    this.#slots = new Int32Array(2048 * SLOT_INTS);
    this.#pool = new Uint16Array(8192);
    this.#poolUsed = 0;
  }

  #add(text: string, from: number, to: number, h: number, at: number): number {
    const id = this.#forms.length;
    const len = to - from;
    if (this.#poolUsed + len > this.#pool.length) {
      const pool = new Uint16Array(Math.max(2 * this.#pool.length, this.#poolUsed + len));
      pool.set(this.#pool.subarray(0, this.#poolUsed));
      this.#pool = pool;
    }
    const off = this.#poolUsed;
    for (let k = 0; k < len; k++) this.#pool[off + k] = text.charCodeAt(from + k);
    this.#poolUsed += len;
    this.#forms.push(text.slice(from, to));
    const b = at * SLOT_INTS;
    this.#slots[b] = h;
    this.#slots[b + 1] = id + 1;
    this.#slots[b + 2] = off;
    this.#slots[b + 3] = len;
    if (2 * (id + 1) > this.#slots.length / SLOT_INTS) this.#rehash((2 * this.#slots.length) / SLOT_INTS);
    return id;
  }

  #rehash(size: number): void {
    const old = this.#slots;
    const slots = new Int32Array(size * SLOT_INTS);
    const mask = size - 1;
    for (let b = 0; b < old.length; b += SLOT_INTS) {
      if (old[b + 1] === 0) continue;
      let at = old[b] & mask;
      while (slots[at * SLOT_INTS + 1] !== 0) at = (at + 1) & mask;
      const to = at * SLOT_INTS; // the four ints by hand: a subarray per slot is an object per form
      slots[to] = old[b];
      slots[to + 1] = old[b + 1];
      slots[to + 2] = old[b + 2];
      slots[to + 3] = old[b + 3];
    }
    this.#slots = slots;
  }
}

/** Int32 values per {@link FormTable} slot: hash, id + 1, pool offset, length (16 bytes: one cache line holds 4). */
const SLOT_INTS = 4;

/** A 32-bit hash of `text.slice(from, to)` (FNV-1a over UTF-16 units, then a murmur3 finaliser for the low bits). */
function formHash(text: string, from: number, to: number): number {
  let h = FNV_BASIS;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return finishFormHash(h);
}

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The last step of {@link formHash}, for a caller that ran its FNV-1a loop itself. */
function finishFormHash(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** {@link contentHashOf} of a token that is no content word (a stop word or a single character). */
export const NOT_CONTENT = -1;

/**
 * The content-word hash of a token form (candidate retrieval's pairs are made of them): FNV-1a of its Porter
 * stem, or {@link NOT_CONTENT} for a stop word or a single character.
 * @example contentHashOf('running') === contentHashOf('runs') // true
 */
export function contentHashOf(form: string): number {
  if (STOP_WORDS.has(form) || form.length <= 1) return NOT_CONTENT;
  return stemContentHash(porterStem(form));
}

/**
 * Token forms seen by this process, interned once: a word id per form ({@link FormTable}) and a term id per
 * Porter stem (−1 for a stop word). A search aligns the query with many candidate windows, each pair with its own
 * dense ids; stemming and hashing every token again for every pair took half of a search's time. Bounded: past
 * {@link LEXICON_LIMIT} forms it starts afresh (a new epoch; tokens of an older epoch are interned again).
 */
export class Lexicon {
  epoch = 0;
  readonly #forms = new FormTable();
  /** Porter stems: the term id of a stem is its id here (a table like the forms', not a Map of a million strings). */
  readonly #stems = new FormTable();
  /** Term id of each word id (−1: a stop word). */
  termOf = new Int32Array(1024);
  /**
   * Word ids of forms of ASCII letters and digits by the low 32 bits of the core's 64-bit hash of the form (one form
   * a key: the first seen), for {@link asciiWordAt}.
   */
  readonly #byHash = new Map<number, number>();

  get words(): number {
    return this.#forms.size;
  }

  get terms(): number {
    return this.#stems.size;
  }

  /**
   * The word id of `form` (interned on first sight).
   * @example lexicon.word('cats') === lexicon.wordAt('two cats', 4, 8) // true
   */
  word(form: string): number {
    return this.wordAt(form, 0, form.length);
  }

  /**
   * The word id of the form `text.slice(from, to)`, without making that string unless the form is new.
   * @example const id = lexicon.wordAt(normalised, start, end)
   */
  wordAt(text: string, from: number, to: number): number {
    return this.wordHashed(text, from, to, formHash(text, from, to));
  }

  /**
   * The word id of the token at [a, b) of `text` whose normalised form the core hashed to `key` (its low 32 bits),
   * when the token is ASCII letters and digits (its form is its lower case: interned on first sight); −1 for any
   * other token, which the caller interns by its normalised form. A key held for another form (two forms whose
   * hashes agree) costs the token a look-up by its characters, never another form's id.
   * @example lexicon.asciiWordAt(key, 'The cat', 0, 3) === lexicon.word('the') // true
   */
  asciiWordAt(key: number, text: string, a: number, b: number): number {
    const held = this.#byHash.get(key);
    if (held !== undefined && sameAsciiForm(this.#forms.form(held), text, a, b)) return held;
    const token = text.slice(a, b);
    if (!ASCII_WORD.test(token)) return -1;
    const id = this.word(token.toLowerCase());
    if (held === undefined) this.#byHash.set(key, id);
    return id;
  }

  /** {@link wordAt} with the form's hash computed by the caller ({@link FormTable.internHashed}). */
  wordHashed(text: string, from: number, to: number, hash: number): number {
    const id = this.#forms.internHashed(text, from, to, hash);
    if (this.#forms.added) this.#describe(id, this.#forms.form(id));
    return id;
  }

  /** Term id of a new word id. */
  #describe(id: number, form: string): void {
    if (id === this.termOf.length) {
      const termOf = new Int32Array(id * 2);
      termOf.set(this.termOf);
      this.termOf = termOf;
    }
    // a new form: the lexicon is the memo of its stem
    this.termOf[id] = STOP_WORDS.has(form) ? -1 : this.#stem(stemOnce(form));
  }

  /**
   * The stem of term id `term`.
   * @example lexicon.stemOf(lexicon.termOf[lexicon.word('running')]) // 'run'
   */
  stemOf(term: number): string {
    return this.#stems.form(term);
  }

  #stem(stem: string): number {
    return this.#stems.intern(stem, 0, stem.length);
  }

  /** Starts afresh when full (before a text is interned, so one text's ids are always of one epoch). */
  reserve(): void {
    if (this.#forms.size < LEXICON_LIMIT) return;
    this.#forms.clear();
    this.#stems.clear();
    this.#byHash.clear();
    this.epoch++;
  }
}

/**
 * FNV-1a of a Porter stem: the content-word hash of candidate retrieval.
 * @example stemContentHash(porterStem('running')) === stemContentHash(porterStem('runs')) // true
 */
export function stemContentHash(stem: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < stem.length; i++) h = Math.imul(h ^ stem.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Most token forms the lexicon holds (about 100 MB at the limit: forms, stems and tables). */
const LEXICON_LIMIT = 1 << 20;
/** The process's lexicon. */
export const lexicon = new Lexicon();

/** A text's word tokens: spans in the string and lexicon word ids (see {@link tokenize}). */
export interface Tokens {
  readonly text: string;
  readonly epoch: number;
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly word: Int32Array;
}

/**
 * The word tokens of `text` as {@link prepare} cuts them (pinned NFKC_Casefold, spans in `text`), with
 * process-wide word ids: the part of preparing a text that does not depend on the other text of the pair.
 * With `core`, the tokens come from the core's tokenizer (the same spans and ids: {@link tokensFromCore}).
 * @example const t = tokenize('The cat sat.') // t.start = [0, 4, 8], t.end = [3, 7, 11]
 * @example const t = tokenize('The cat sat.', core) // the same
 */
export function tokenize(text: string, core?: Core): Tokens {
  lexicon.reserve();
  const fromCore = core === undefined ? null : tokensFromCore(core, text);
  if (fromCore !== null) return fromCore;
  const { text: norm, map } = normalize(text);
  const n = norm.length === 0 ? 0 : countSpaces(norm) + 1;
  const start = new Uint32Array(n);
  const end = new Uint32Array(n);
  const word = new Int32Array(n);
  let s = 0;
  for (let t = 0; t < n; t++) {
    // one pass over the token finds its end and hashes it (formHash, inlined)
    let e = s,
      h = FNV_BASIS;
    for (; e < norm.length; e++) {
      const c = norm.charCodeAt(e);
      if (c === SPACE_UNIT) break;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    start[t] = map[s];
    end[t] = map[e];
    word[t] = lexicon.wordHashed(norm, s, e, finishFormHash(h));
    s = e + 1;
  }
  return { text, epoch: lexicon.epoch, start, end, word };
}

/**
 * {@link tokenize} from the core's tokens (src/fingerprint/words.ts: the tokens of `normalize`, with their spans and
 * a hash of each form): a token of ASCII letters and digits is interned by its hash and characters
 * ({@link Lexicon.asciiWordAt}), any other by its form in `normalize(text)`, made only when the text has one. The
 * same word ids, interned in the same order, as {@link tokenize}'s own pass (property-tested). Why: a search's
 * windows are tokenized a few hundred times a process, as baseline code, where the normaliser's loop over every
 * character cost more than the tokens. Null when the core refuses the text (a lone surrogate: `normalize` names it).
 */
function tokensFromCore(core: Core, text: string): Tokens | null {
  try {
    const t = namedTokens(core, text, 0, text.length, new LexiconNamer());
    return t === null ? null : { text, epoch: lexicon.epoch, start: t.start, end: t.end, word: t.id };
  } catch (e) {
    if (e instanceof TrainprintError && e.code === 'INVALID_INPUT') return null;
    throw e;
  }
}

/**
 * The lexicon's word ids of one text's tokens from the core ({@link tokensFromCore}): a token of ASCII letters and
 * digits by its key and characters, any other by its form in `normalize(text)`, made on the first such token.
 */
class LexiconNamer implements TokenNamer {
  #forms: string[] | null = null;

  idOf(key: number, text: string, a: number, b: number, i: number): number {
    const id = lexicon.asciiWordAt(key, text, a, b);
    if (id >= 0) return id;
    this.#forms ??= normalize(text).text.split(' ');
    // never out of range: the core's tokens are normalize's, one for one (else the text takes tokenize's own pass)
    return i < this.#forms.length ? lexicon.word(this.#forms[i]) : UNDECIDED;
  }
}

/** The space between the tokens of a normalised text. */
const SPACE_UNIT = 0x20;

/** Spaces in `s` (tokens of a normalised text are separated by single spaces). */
export function countSpaces(s: string): number {
  let c = 0;
  for (let i = s.indexOf(' '); i >= 0; i = s.indexOf(' ', i + 1)) c++;
  return c;
}

/** Characters per chunk of a {@link TokenizedText} (the chunk then runs on to the next white space). */
const CHUNK = 4096;
/** Furthest a chunk runs on to find white space; a chunk cut elsewhere marks its windows for the slow path. */
const CHUNK_REACH = 256;

interface Chunk {
  readonly from: number;
  readonly to: number;
  tokens: Tokens | undefined;
}

/**
 * A text whose windows are tokenized from shared chunks: `window(from, to)` gives exactly
 * `tokenize(text.slice(from, to))` — tokens never cross white space and the normaliser composes nothing
 * across it, so a window cut at white space holds the same tokens as the whole text there (property-tested).
 * Windows cut elsewhere, or crossing a chunk cut made without white space (long runs without spaces, e.g.
 * CJK), are tokenized on their own.
 * @example
 * const q = new TokenizedText(query)
 * const t = q.window(1200, 5400) // tokens of query.slice(1200, 5400), positions in that slice
 */
export class TokenizedText {
  readonly text: string;
  readonly #chunks: Chunk[] = [];
  /** True when the chunk cut at the end of chunk i is at white space. */
  readonly #safeCut: boolean[] = [];

  constructor(text: string) {
    this.text = text;
    for (let from = 0; from < text.length; ) {
      let to = Math.min(text.length, from + CHUNK);
      let safe = to === text.length;
      for (let i = to; !safe && i < Math.min(text.length, to + CHUNK_REACH); i++) {
        if (isTokenSeparator(text.charCodeAt(i))) {
          to = i;
          safe = true;
        }
      }
      if (!safe && (text.charCodeAt(to) & 0xfc00) === 0xdc00) to--; // never split a surrogate pair
      this.#chunks.push({ from, to, tokens: undefined });
      this.#safeCut.push(safe);
      from = to;
    }
  }

  /** The tokens of `text.slice(from, to)`, positions in that slice; tokenized by `core` when one is given. */
  window(from: number, to: number, core?: Core): Tokens {
    const { text } = this;
    const atSpace = (p: number) => p <= 0 || p >= text.length || isTokenSeparator(text.charCodeAt(p));
    const first = this.#chunkAt(from),
      last = this.#chunkAt(Math.max(from, to - 1));
    let safe = atSpace(from) && atSpace(to);
    for (let c = first; safe && c < last; c++) safe = this.#safeCut[c];
    if (!safe || from >= to) return tokenize(text.slice(from, to), core);
    const parts: Tokens[] = [];
    for (let c = first; c <= last; c++) parts.push(this.#tokens(c, core));
    // a chunk tokenized late may have started a new lexicon epoch: then the window is tokenized on its own
    if (parts.some((p) => p.epoch !== lexicon.epoch)) return tokenize(text.slice(from, to), core);
    // a chunk's tokens are in text order and do not overlap: those inside [from, to) are one run of each chunk,
    // from the first starting at or after `from` to the last ending at or before `to`
    const lo = parts.map((p) => lowerBound(p.start, from));
    const hi = parts.map((p) => upperBound(p.end, to));
    let n = 0;
    for (let c = 0; c < parts.length; c++) n += Math.max(0, hi[c] - lo[c]);
    const start = new Uint32Array(n),
      end = new Uint32Array(n),
      word = new Int32Array(n);
    let k = 0;
    for (let c = 0; c < parts.length; c++) {
      // each column read into a local once: this runs cold, where every property read is a call
      const { start: pStart, end: pEnd, word: pWord } = parts[c];
      const tHi = hi[c];
      for (let t = lo[c]; t < tHi; t++) {
        start[k] = pStart[t] - from;
        end[k] = pEnd[t] - from;
        word[k++] = pWord[t];
      }
    }
    return { text: text.slice(from, to), epoch: lexicon.epoch, start, end, word };
  }

  #chunkAt(p: number): number {
    let lo = 0,
      hi = this.#chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#chunks[mid].from <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Chunk c's tokens, positions in the whole text (tokenized again after a lexicon epoch change). */
  #tokens(c: number, core: Core | undefined): Tokens {
    const chunk = this.#chunks[c];
    if (chunk.tokens && chunk.tokens.epoch === lexicon.epoch) return chunk.tokens;
    const t = tokenize(this.text.slice(chunk.from, chunk.to), core);
    const { start, end } = t,
      from = chunk.from;
    for (let i = 0; i < start.length; i++) {
      start[i] += from;
      end[i] += from;
    }
    chunk.tokens = t;
    return t;
  }
}

/**
 * The {@link TokenizedText}s of documents recently aligned, so a document that is a candidate of one search after
 * another (a licence quoted by many queries, a chance candidate of common words) is tokenized once, not per search.
 * Keyed by the document's owner (its dataset object) and number, checked against the text itself; least recently
 * used first out beyond `limitUnits` UTF-16 units of text (its tokens take about 2 bytes a unit once all are used).
 * @example
 * const cache = new TokenizedCache(1 << 24)
 * cache.get(dataset, 3, text).window(0, 400) // tokenized on the first call, kept for the next
 */
export class TokenizedCache {
  readonly #owners = new WeakMap<object, number>();
  readonly #entries = new Map<string, TokenizedText>();
  #units = 0;

  constructor(readonly limitUnits: number) {}

  /** Units of text held. */
  get units(): number {
    return this.#units;
  }

  /** Document `doc` of `owner` tokenized, its text being `text` (a text that differs is tokenized afresh). */
  get(owner: object, doc: number, text: string): TokenizedText {
    let serial = this.#owners.get(owner);
    if (serial === undefined) this.#owners.set(owner, (serial = nextOwner++));
    const key = `${serial}:${doc}`;
    const held = this.#entries.get(key);
    if (held !== undefined) {
      this.#entries.delete(key);
      if (held.text === text) {
        this.#entries.set(key, held); // most recently used: last
        return held;
      }
      this.#units -= held.text.length;
    }
    const made = new TokenizedText(text);
    if (text.length > this.limitUnits) return made;
    this.#entries.set(key, made);
    this.#units += text.length;
    for (const [k, t] of this.#entries) {
      if (this.#units <= this.limitUnits) break;
      this.#entries.delete(k);
      this.#units -= t.text.length;
    }
    return made;
  }
}

let nextOwner = 0;

/** The last texts {@link tokenizedOnce} tokenized, most recent first. */
const recentTexts: TokenizedText[] = [];

/**
 * The {@link TokenizedText} of `text`, shared by the pieces of one search that read its tokens — the query's
 * content-word pairs, then the alignment windows — so the query is tokenized once. Holds the last two texts.
 * @example tokenizedOnce(query) === tokenizedOnce(query) // true
 */
export function tokenizedOnce(text: string): TokenizedText {
  for (const t of recentTexts) if (t.text === text) return t;
  const made = new TokenizedText(text);
  recentTexts.unshift(made);
  if (recentTexts.length > 2) recentTexts.pop();
  return made;
}
