/**
 * The fingerprint pipeline: text → (pinned normalisation) → UTF-8 in wasm memory →
 * tokens → shingle hashes → winnowing, MinHash, SimHash → copied-out typed arrays.
 * One wasm call per stage per document; nothing is allocated inside the core.
 */
import type { Core, Layout } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import type { Fingerprint, ShingleSet, WinnowSet } from '../types.js';
import { normalize } from '../text/normalize.js';
import {
  loneSurrogateIndex,
  tokenizeWords,
  tokenizeWritten,
  tokenRange,
  tokenSpans,
  type WordTokens,
} from './words.js';

export { loneSurrogateIndex };
import { paramsId, type ResolvedOptions } from './options.js';
import { startSha256Hex } from './sha256.js';
import { minhashAt, ophAndSimhashAt } from '../sketch/minhash.js';
import { simhashAt } from '../sketch/simhash.js';
import { builtinModule } from '../util/builtin.js';
import { lowerBound } from '../util/sorted.js';

/** Seeds of the two halves of the 128-bit content id ('tp' = 0x7470). */
const ID_SEED_A = 0x7470_0001n;
const ID_SEED_B = 0x7470_0002n;

const hex64 = (v: bigint): string => BigInt.asUintN(64, v).toString(16).padStart(16, '0');

/**
 * Reject anything that is not a well-formed string; decode UTF-8 bytes strictly. With `surrogatesLater`, a string is
 * not read here: the caller's word tokenizer finds a lone surrogate where it must look anyway (the UTF-8 encoder writes
 * one as U+FFFD, which the core's normaliser hands back to {@link tokenizeWords}, so only a text holding U+FFFD is
 * searched), which saves a pass over every text.
 * @example toText('a\ud800b') // throws INVALID_INPUT: text contains a lone surrogate at index 1
 */
export function toText(input: unknown, surrogatesLater = false): string {
  if (typeof input === 'string') {
    // isWellFormed (native, fast) answers the common case; the index is found only to report it.
    const wellFormed = (input as { isWellFormed?: () => boolean }).isWellFormed;
    const bad =
      surrogatesLater || (typeof wellFormed === 'function' && wellFormed.call(input)) ? -1 : loneSurrogateIndex(input);
    if (bad >= 0) throw new TrainprintError('INVALID_INPUT', `text contains a lone surrogate at index ${bad}`);
    return input;
  }
  if (input instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch (cause) {
      throw new TrainprintError('INVALID_INPUT', 'bytes are not valid UTF-8', { cause });
    }
  }
  throw new TrainprintError(
    'INVALID_INPUT',
    `text must be a string or a Uint8Array of UTF-8, got ${input === null ? 'null' : typeof input}`,
  );
}

/** Fingerprint without `work_hash` (sync part), plus the raw bytes the hash needs. */
export interface CoreFingerprint {
  readonly fp: Omit<Fingerprint, 'work_hash'>;
  /** The pending SHA-256 hex of the raw UTF-8 when `workHash` is on, else null. */
  readonly workHash: Promise<string> | null;
}

/**
 * Which per-shingle columns of a word-shingle fingerprint a caller takes at once, in the same pass; the others are
 * computed from the text when first read (see {@link lazyShingles}). Character shingles always come with all three.
 */
export interface Columns {
  /** `shingles.hashes` */
  readonly hashes?: boolean;
  /** `shingles.starts` and `shingles.ends` */
  readonly spans?: boolean;
}

/**
 * Run the synchronous part of the pipeline on one core. `text` must be a string (see toText; with word shingles a
 * lone surrogate is found here) or UTF-8 bytes, whose fingerprint is that of the string they decode to (validated in
 * the core; with word shingles tokenised as they are, no string made of them). Bytes are the call's from then on: the
 * columns computed when first read tokenise them again, so the caller must never change them (the engine's
 * `fingerprint` hands in its own copy). With word shingles, `onRawBytes` sees the text's UTF-8 as written into the
 * core (a view, valid only during the call), and the per-shingle columns not named in `columns` are computed when
 * first read.
 * @example fingerprintCore(core, text, resolveOptions(), undefined, { hashes: true }).fp.shingles.hashes
 */
export function fingerprintCore(
  core: Core,
  text: string | Uint8Array,
  o: ResolvedOptions,
  onRawBytes?: (view: Uint8Array) => void,
  columns: Columns = {},
): CoreFingerprint {
  return core.guard(() => {
    const L = core.layout();
    const seed = BigInt(o.seed);
    let count: number; // tokens or code points
    let m: number; // shingles
    let hashesPtr: number;
    let shingles: ShingleSet;
    let idA: bigint, idB: bigint;
    let workHash: Promise<string> | null = null;
    let byteLength: number;
    let tokens: WordTokens | null = null;

    if (o.unit === 'word') {
      const { t, pendingHash } = tokenizeInput(core, L, text, o, onRawBytes);
      // A region the core hands back to the host normaliser (a large NFKC expansion, a long run of marks, a changed
      // word over 2 KiB; rare in prose) is mapped by offsets of the input as a string: bytes holding one are
      // fingerprinted as the string they decode to, so their spans are that string's by construction.
      if (typeof text !== 'string' && t.regionFixes.length > 0)
        return fingerprintCore(core, toText(text), o, onRawBytes, columns);
      workHash = pendingHash;
      count = t.count;
      // the shingle hashes in the input's room (read, mapped) when they fit: not the spare column's fresh pages
      hashesPtr = count * 8 <= t.inputRoom ? t.inputPtr : t.spareU64Ptr;
      // the shingles and the content id (both halves) in one pass over the token hashes
      const idPtr = L.take(16);
      L.commit();
      m = core.raw.shingleTokensAndId(t.hashesPtr, count, o.size, seed, hashesPtr, ID_SEED_A, ID_SEED_B, idPtr);
      [idA, idB] = core.u64(idPtr, 2);
      // only the columns asked for leave the core now (most callers read none: 3.5 fresh bytes per input byte)
      const hashes = columns.hashes ? core.u64(hashesPtr, m).slice() : undefined;
      const spans = columns.spans ? shingleSpansOf(core, t, o.size, m) : undefined;
      shingles = lazyShingles(core, text, o, m, hashes, spans);
      byteLength = t.byteLength;
      tokens = t;
    } else {
      // Character k-grams over the canonical normalised text (or the raw text with 'none').
      const str = typeof text === 'string' ? text : toText(text); // bytes decoded strictly
      let src = str;
      let map: Uint32Array | null = null;
      if (o.normalize === 'nfkc-casefold') {
        const n = normalize(str); // reports a lone surrogate itself
        src = n.text;
        map = n.map;
      } else toText(str); // reports a lone surrogate
      const cap = src.length * 3;
      const inPtr = L.take(cap);
      L.commit();
      const len = core.writeUtf8(src, inPtr, cap);
      const cpCap = src.length + 1; // code points <= UTF-16 units
      hashesPtr = L.take(cpCap * 8);
      const startsPtr = L.take(cpCap * 4);
      const endsPtr = L.take(cpCap * 4);
      L.commit();
      m = core.raw.charShingles(inPtr, len, o.size, seed, hashesPtr, startsPtr, endsPtr);
      count = codePointCount(src);
      idA = core.raw.xxh64Pair(inPtr, len, ID_SEED_A, ID_SEED_B);
      idB = core.raw.xxh64PairSecond();
      const starts = core.u32(startsPtr, m).slice();
      const ends = core.u32(endsPtr, m).slice();
      if (map) mapCharSpans(src, map, starts, ends, m);
      shingles = { hashes: core.u64(hashesPtr, m).slice(), starts, ends };
      if (src === str) {
        if (o.workHash) workHash = startSha256Hex(core.u8.subarray(inPtr, inPtr + len));
        byteLength = len;
      } else byteLength = utf8Length(str);
    }

    // Sketches read the shingle hashes where they already are.
    let winPtr = 0,
      w = 0;
    let sketches: Sketches | undefined;
    if (o.window > 0) {
      // with word tokens, in the room of the token hashes: the shingles and the content id were their last readers
      winPtr = tokens ? tokens.hashesPtr : L.take(Math.max(m, 1) * 4);
      L.commit();
      if (winnowsWithSketches(o)) ({ w, ...sketches } = winnowAndSketches(core, L, hashesPtr, m, o, winPtr));
      else w = core.raw.winnow(hashesPtr, m, o.window, winPtr);
    }
    const { minhash, simhash } = sketches ?? sketchesOf(core, L, hashesPtr, m, o);

    // Copy out (views die with the next memory growth).
    let winnow: WinnowSet | undefined;
    if (o.window > 0 && tokens) {
      winnow = copyColumns(winnowedOf(core, L, tokens, hashesPtr, winPtr, w, o.size));
    } else if (o.window > 0) {
      const { hashes, starts, ends } = shingles;
      const positions = core.u32(winPtr, w).slice();
      const wh = gatherU64(new Uint32Array(hashes.buffer, hashes.byteOffset, m * 2), positions);
      const ws = new Uint32Array(w);
      const we = new Uint32Array(w);
      for (let i = 0; i < w; i++) {
        ws[i] = starts[positions[i]];
        we[i] = ends[positions[i]];
      }
      winnow = { hashes: wh, starts: ws, ends: we, positions };
    }
    const fp: Omit<Fingerprint, 'work_hash'> = {
      version: 1,
      params: paramsId(o),
      fingerprint: `${o.normalize === 'none' ? 'tp1r' : 'tp1'}:${hex64(idA)}${hex64(idB)}`,
      byte_length: byteLength,
      token_count: count,
      shingles,
      ...(winnow ? { winnow } : {}),
      ...(minhash ? { minhash } : {}),
      ...(simhash !== undefined ? { simhash } : {}),
    };
    if (o.workHash && !workHash)
      workHash = startSha256Hex(typeof text === 'string' ? new TextEncoder().encode(text) : text);
    return { fp, workHash };
  });
}

/**
 * The `m` character k-gram spans `[starts[i], ends[i])` of the normalised `text` mapped in place to the input's, by
 * `map` (src/text/normalize.ts: a token's code unit at the source character it comes from, a separator space and the
 * end at the end of the token before it). A span covers the source characters its k-gram comes from: where a character
 * normalises to several (ß → ss, ﬁ → fi, ½ → 1 2, its parts even tokens apart), map[end] inside it is still its
 * start, and a separator between its parts its end, so a plain map[start], map[end] read as empty or inverted.
 */
function mapCharSpans(text: string, map: Uint32Array, starts: Uint32Array, ends: Uint32Array, m: number): void {
  const last = map.length - 1;
  for (let i = 0; i < m; i++) {
    const [s, e] = [starts[i], ends[i]];
    let from = map[s];
    let to = 0;
    for (let k = s; k < e; k++) {
      if (map[k] < from) from = map[k];
      if (text.charCodeAt(k) === 0x20 && map[k] > to) to = map[k]; // a separator's map is an end
    }
    if (text.charCodeAt(e - 1) === 0x20) {
      // a separator last: on to the next token's start (the gap's source), or back to it inside one character
      if (map[e] > to) to = map[e];
      if (map[e] < from) from = map[e];
    } else {
      // the end of the source character of the last code unit: the next offset past its start
      const at = map[e - 1];
      let j = e;
      while (j < last && text.charCodeAt(j) !== 0x20 && map[j] <= at) j++;
      if (map[j] > to) to = map[j];
    }
    starts[i] = from;
    ends[i] = to;
  }
}

/** The k of OPH MinHash that the core takes in one pass with SimHash (the default). */
const OPH_ONE_PASS_K = 128;

/** Whether `o` asks for winnowing, OPH MinHash at the one-pass k and SimHash: the core's one pass of the three. */
function winnowsWithSketches(o: ResolvedOptions): boolean {
  return o.window > 0 && o.minhashMode === 'oph' && o.permutations === OPH_ONE_PASS_K && o.simhash;
}

/** A fingerprint's MinHash and SimHash, each where its options ask for it. */
interface Sketches {
  minhash?: Uint32Array;
  simhash?: bigint;
}

/**
 * The winnowed indices of the `m` shingle hashes at `hashesPtr` (to `winPtr`; `w` of them) with the default sketches,
 * which read each piece of the hashes winnowing has just read (assembly/sketches.ts winnowOphSimhash): for options
 * that {@link winnowsWithSketches}.
 */
function winnowAndSketches(
  core: Core,
  L: Layout,
  hashesPtr: number,
  m: number,
  o: ResolvedOptions,
  winPtr: number,
): Sketches & { w: number } {
  const sigPtr = L.take(OPH_ONE_PASS_K * 4);
  L.commit();
  const w = core.raw.winnowOphSimhash(hashesPtr, m, o.window, winPtr, BigInt(o.seed), sigPtr);
  const minhash = core.u32(sigPtr, OPH_ONE_PASS_K).slice();
  return { w, minhash, simhash: BigInt.asUintN(64, core.raw.ophSimhashSecond()) };
}

/** The MinHash and SimHash `o` asks for of the `m` shingle hashes at `hashesPtr`; the default pair in one pass. */
function sketchesOf(core: Core, L: Layout, hashesPtr: number, m: number, o: ResolvedOptions): Sketches {
  const seed = BigInt(o.seed);
  if (o.minhashMode === 'off') return o.simhash ? { simhash: simhashAt(core, hashesPtr, m) } : {};
  const sigPtr = L.take(o.permutations * 4);
  L.commit();
  if (o.minhashMode === 'oph' && o.simhash)
    return ophAndSimhashAt(core, hashesPtr, m, sigPtr, { k: o.permutations, seed });
  const minhash = minhashAt(core, hashesPtr, m, sigPtr, { k: o.permutations, seed, mode: o.minhashMode });
  return o.simhash ? { minhash, simhash: simhashAt(core, hashesPtr, m) } : { minhash };
}

/**
 * The word tokens of `text` (bytes laid out as a string's UTF-8 is: the shingle hashes then fit in the input's touched
 * room) and the pending `work_hash` when `o` asks for it.
 */
function tokenizeInput(
  core: Core,
  L: Layout,
  text: string | Uint8Array,
  o: ResolvedOptions,
  onRawBytes?: (view: Uint8Array) => void,
): { t: WordTokens; pendingHash: Promise<string> | null } {
  let pendingHash: Promise<string> | null = null;
  const see = (raw: Uint8Array) => {
    if (o.workHash) pendingHash = startSha256Hex(raw);
    onRawBytes?.(raw);
  };
  const bytesRoom = typeof text === 'string' ? 0 : text.length * 3;
  const t = tokenizeWords(core, L, text, o.workHash || onRawBytes ? see : undefined, bytesRoom);
  return { t, pendingHash };
}

/** The number of shingles of each word-shingle set whose columns are computed when first read. */
const lazyCounts = new WeakMap<ShingleSet, number>();

/**
 * How many shingles `s` holds, without computing a column that has not been read yet.
 * @example shingleCount(fp.shingles) // fp.shingles.hashes.length, without the hashes
 */
export function shingleCount(s: ShingleSet): number {
  const n = s !== null && typeof s === 'object' ? (lazyCounts.get(s) ?? s.hashes?.length) : undefined;
  if (n === undefined) throw new TrainprintError('INVALID_INPUT', "shingleCount takes a fingerprint's shingles");
  return n;
}

/**
 * A word-shingle set of `text` whose columns not given are computed on `core` when first read: hashes by the
 * tokenizer and shingler again, starts and ends (together) by the tokenizer again — the values `fingerprintCore`
 * would have copied out, in a pass of their own. Each column becomes a plain property once read (or assigned).
 */
function lazyShingles(
  core: Core,
  text: string | Uint8Array,
  o: ResolvedOptions,
  m: number,
  hashes: BigUint64Array | undefined,
  spans: { starts: Uint32Array; ends: Uint32Array } | undefined,
): ShingleSet {
  const set = {} as ShingleSet & Record<string, unknown>;
  const put = (key: string, value: unknown, get?: () => unknown) =>
    Object.defineProperty(
      set,
      key,
      get
        ? { get, set: (v) => put(key, v), enumerable: true, configurable: true }
        : { value, writable: true, enumerable: true, configurable: true },
    );
  const lazy = (key: string) => Object.getOwnPropertyDescriptor(set, key)?.get;
  const makeSpans = () => {
    const s = core.guard(() => shingleSpansOf(core, tokenizeWords(core, core.layout(), text), o.size, m));
    if (lazy('starts')) put('starts', s.starts);
    if (lazy('ends')) put('ends', s.ends);
  };
  put('hashes', hashes, hashes ? undefined : () => (put('hashes', shingleHashesCore(core, text, o)), set.hashes));
  for (const key of ['starts', 'ends'] as const)
    put(key, spans?.[key], spans ? undefined : () => (makeSpans(), set[key]));
  lazyCounts.set(set, m);
  return set;
}

/**
 * A word-shingle set as it crosses to another thread: its count and the columns `columns` names, as plain typed
 * arrays (each read here: computed now if it was not). The others stay behind, not computed.
 * @example port.postMessage(shinglesToSend(fp.shingles, { spans: true }))
 */
export function shinglesToSend(s: ShingleSet, columns: Columns): SentShingles {
  return {
    count: shingleCount(s),
    ...(columns.hashes ? { hashes: s.hashes } : {}),
    ...(columns.spans ? { starts: s.starts, ends: s.ends } : {}),
  };
}

/** A word-shingle set sent by {@link shinglesToSend}: its count and the columns that were asked for. */
export interface SentShingles {
  readonly count: number;
  readonly hashes?: BigUint64Array;
  readonly starts?: Uint32Array;
  readonly ends?: Uint32Array;
}

/**
 * The shingle set of a {@link SentShingles} on the thread that receives it: the columns sent as plain properties,
 * the count for {@link shingleCount}; a column that was not sent cannot be computed here (the text's core is on the
 * other thread), so reading it is NOT_SUPPORTED, naming the column — the work should have asked for it.
 * @example shingleCount(shinglesReceived({ count: 3 })) // 3
 */
export function shinglesReceived(sent: SentShingles): ShingleSet {
  const set = {} as ShingleSet & Record<string, unknown>;
  for (const key of ['hashes', 'starts', 'ends'] as const) {
    const value = sent[key];
    const missing = () => {
      const asked = key === 'hashes' ? 'hashes' : 'spans';
      throw new TrainprintError(
        'NOT_SUPPORTED',
        `shingles.${key} of a fingerprint made on another thread: its work's columns did not ask for it (columns: { ${asked}: true })`,
      );
    };
    Object.defineProperty(
      set,
      key,
      value === undefined
        ? { get: missing, enumerable: false, configurable: true }
        : { value, writable: true, enumerable: true, configurable: true },
    );
  }
  lazyCounts.set(set, sent.count);
  return set;
}

/** The spans of the `m` shingles of `size` tokens of `t`: shingle i spans tokens i … min(i + size − 1, count − 1). */
function shingleSpansOf(
  core: Core,
  t: WordTokens,
  size: number,
  m: number,
): { starts: Uint32Array; ends: Uint32Array } {
  const spans = tokenSpans(core, t);
  const last = Math.min(size - 1, Math.max(t.count - 1, 0));
  // fresh arrays from tokenSpans: no second copy
  return { starts: spans.starts.subarray(0, m), ends: spans.ends.subarray(last, last + m) };
}

/** What a dataset keeps of a document: its winnowed fingerprints with spans, and its size. */
export interface DocumentFingerprint {
  readonly token_count: number;
  readonly byte_length: number;
  readonly winnow: WinnowSet;
  /**
   * MinHash signature of ALL the document's shingles (not only the winnowed ones), when the
   * options ask for one (`o.minhashMode !== 'off'`): exact datasets keep it for near-duplicate
   * search (MinHash-LSH). All 0xFFFFFFFF for a text without shingles.
   */
  readonly minhash?: Uint32Array;
}

/**
 * Winnowed fingerprints of a word-shingle fingerprint only (sync): the fast path for indexing.
 * Only the selected shingles' hashes and spans leave the core (≈ 2 / (window + 1) of them), so no
 * per-shingle arrays are copied. `o` must use word shingles with winnowing on. When `o` asks for
 * MinHash (`o.minhashMode`, `o.permutations`, seed `o.seed`), the signature is computed over all
 * m shingle hashes where they already are in the core's memory (no copy) — the same signature as
 * `fingerprintCore(core, text, o).minhash`.
 */
export function winnowCore(core: Core, text: string, o: ResolvedOptions): DocumentFingerprint {
  return withWinnowed(core, text, o, copyWinnowed);
}

/**
 * {@link winnowCore} without the copies: `use` gets the fingerprint with its winnowed columns as views
 * of the core's memory, valid only during the call (copy what is kept). For a build that copies the
 * postings into its own columns at once: a document's four arrays, each allocated outside the JS heap,
 * added up to about as many bytes as the index, and made V8 collect the whole heap every few hundred
 * documents.
 * @example withWinnowed(core, text, DATASET_OPTIONS, (fp) => staged.add(d, fp.winnow.hashes, fp.winnow.starts, fp.winnow.ends))
 */
export function withWinnowed<T>(core: Core, text: string, o: ResolvedOptions, use: (fp: DocumentFingerprint) => T): T {
  return core.guard(() => {
    const L = core.layout();
    const t = tokenizeWords(core, L, text);
    const m = core.raw.shingleTokens(t.hashesPtr, t.count, o.size, BigInt(o.seed), t.spareU64Ptr);
    const winPtr = t.hashesPtr; // the token hashes' room: the shingles were their last reader
    const sigPtr = o.minhashMode === 'off' ? 0 : L.take(o.permutations * 4);
    L.commit();
    const w = core.raw.winnow(t.spareU64Ptr, m, o.window, winPtr);
    const minhash =
      o.minhashMode === 'off'
        ? undefined
        : minhashAt(core, t.spareU64Ptr, m, sigPtr, { k: o.permutations, seed: BigInt(o.seed), mode: o.minhashMode });
    const winnow = winnowedOf(core, L, t, t.spareU64Ptr, winPtr, w, o.size);
    return use({ token_count: t.count, byte_length: t.byteLength, winnow, ...(minhash ? { minhash } : {}) });
  });
}

/**
 * The `w` winnowed shingles of tokens `t` (their indices at `winPtr`, hashes at `hashesPtr`, m in all) with their
 * spans in the input, as views of the core's memory: gathered in the core, then the spans of tokens in regions
 * normalised here (offsets local to their region's text: a text holding U+FFFD has one) mapped in place. `winPtr` is
 * the start of the token hashes' room, which the caller no longer reads: the postings go after the indices there when
 * they fit (8 bytes of room for every 2 bytes of text, against 4 a shingle's index and 16 a selected one's posting; at
 * the default window about 2 / 9 of the shingles are selected), else in room of their own. Neither then grows the memory nor lands on pages of their own: a process's
 * first 10 MB of English faults 2,000 pages fewer, of Japanese 3,100, and the core grows twice less — each growth of
 * tens of MB makes V8 collect the whole heap, as it counts a wasm memory as external memory.
 */
function winnowedOf(
  core: Core,
  L: Layout,
  t: WordTokens,
  hashesPtr: number,
  winPtr: number,
  w: number,
  size: number,
): WinnowSet {
  const after = winPtr + ((Math.max(t.count, 1) * 4 + 15) & ~15); // past the winnowed indices (m ≤ count of them)
  const fits = winPtr === t.hashesPtr && after + w * 16 <= t.hashesPtr + t.hashesRoom;
  const at = fits ? after : L.take(w * 16);
  L.commit();
  core.raw.winnowPostings(hashesPtr, winPtr, w, size, t.count, t.startsPtr, t.endsPtr, at, at + w * 8, at + w * 12);
  const positions = core.u32(winPtr, w);
  const starts = core.u32(at + w * 8, w);
  const ends = core.u32(at + w * 12, w);
  for (const f of t.regionFixes) {
    // postings whose first token (p) or last token (min(p + size − 1, count − 1)) lies in tokens [f.first, f.last)
    for (let i = lowerBound(positions, Math.max(0, f.first - size + 1)); i < w && positions[i] < f.last; i++) {
      const p = positions[i];
      const q = Math.min(p + size - 1, t.count - 1);
      if (p >= f.first) starts[i] = f.base + f.map[starts[i]];
      if (q >= f.first && q < f.last) ends[i] = f.base + f.map[ends[i]];
    }
  }
  return { hashes: core.u64(at, w), starts, ends, positions };
}

/**
 * The shingle hashes of `text` (those `fingerprintCore(core, text, o).shingles.hashes` holds), handed to `use` as a
 * view of the core's memory, valid only during the call, with the text's UTF-8 length and a reader of the text span
 * of shingles first … last (`fingerprintCore`'s `starts[first]`, `ends[last]`): no spans made, no ids, nothing
 * copied out. For a question about the hashes alone — does an index hold any of them? — asked of many short texts,
 * where the copies and objects of a whole fingerprint cost more than the hashing. With `wordsUpTo` > 0, `use` also
 * gets the text's words (runs of characters outside `\s`, what `/\s+/` splits on) counted up to `wordsUpTo`, read
 * from the UTF-8 the tokenizer reads (assembly/words.ts): a scan's "enough words?" without a pass over the string.
 * @example withShingleHashes(core, 'It is a truth universally acknowledged', o, (hashes) => hashes.length) // 2
 */
export function withShingleHashes<T>(
  core: Core,
  text: string,
  o: ResolvedOptions,
  use: (
    hashes: BigUint64Array,
    byteLength: number,
    span: (first: number, last: number) => [number, number],
    words: number,
  ) => T,
  wordsUpTo = 0,
): T {
  if (o.unit !== 'word') throw new TrainprintError('INVALID_OPTIONS', 'withShingleHashes needs word shingles');
  return core.guard(() => {
    const L = core.layout();
    let words = 0;
    const count =
      wordsUpTo > 0
        ? (raw: Uint8Array) => (words = core.raw.wordsAtLeast(raw.byteOffset, raw.length, wordsUpTo)) // a view of the core's memory: its offset is the pointer
        : undefined;
    const t = tokenizeWords(core, L, text, count);
    const m = core.raw.shingleTokens(t.hashesPtr, t.count, o.size, BigInt(o.seed), t.spareU64Ptr);
    // shingles first … last span tokens first … last + size − 1 (the last shingle may be shorter)
    const span = (first: number, last: number) =>
      tokenRange(core, t, first, Math.min(last + o.size - 1, Math.max(t.count - 1, 0)));
    return use(core.u64(t.spareU64Ptr, m), t.byteLength, span, words);
  });
}

/** The shingle hashes of several texts at once ({@link withShingleHashesOfTexts}): views of the core's memory. */
export interface ShingleHashesOfTexts {
  /** Every text's shingle hashes, one text after another: text i's are `hashes[from[i] … from[i + 1])`. */
  readonly hashes: BigUint64Array;
  readonly from: Uint32Array;
  /** Each text's UTF-8 length. */
  readonly byteLength: Uint32Array;
  /** Each text's words (runs of characters outside `\s`) counted up to `wordsUpTo` (0 without it). */
  readonly words: Uint32Array;
  /** Where shingles first … last of text i lie in it (UTF-16 [start, end), as {@link withShingleHashes}'s reader). */
  span(i: number, first: number, last: number): [number, number];
}

/**
 * {@link withShingleHashes} of many short texts in one pass of the tokenizer: each text's UTF-8 is written after the
 * last, followed by a line feed, the whole is tokenised once (a token never crosses white space, so each text's
 * tokens and their hashes are those it has alone), and each text's shingles are hashed from its own tokens. The
 * same hashes, lengths, words and spans as one call per text, for a fraction of the calls across the boundary: a
 * scan of short outputs asks this of each of them. Null when the pass cannot stand for the calls one by one (a
 * text that the tokenizer refuses, such as one with a lone surrogate, or a region it hands back to be normalised
 * here): the caller asks text by text, which reports what it must.
 * @example withShingleHashesOfTexts(core, ['It is a truth', 'universally acknowledged'], o, (b) => b.from[2]) // 2
 */
export function withShingleHashesOfTexts<T>(
  core: Core,
  texts: readonly string[],
  o: ResolvedOptions,
  use: (b: ShingleHashesOfTexts) => T,
  wordsUpTo = 0,
): T | null {
  if (o.unit !== 'word') throw new TrainprintError('INVALID_OPTIONS', 'withShingleHashesOfTexts needs word shingles');
  const n = texts.length;
  let units = 0;
  for (const text of texts) units += text.length + 1;
  return core.guard(() => {
    const L = core.layout();
    const inPtr = L.take(units * 3);
    L.commit();
    const byteLength = new Uint32Array(n);
    const words = new Uint32Array(n);
    const base = new Uint32Array(n + 1); // each text's first UTF-16 offset in the texts joined by line feeds
    let len = 0;
    for (let i = 0; i < n; i++) {
      const text = texts[i];
      const written = core.writeUtf8(text, inPtr + len, text.length * 3);
      byteLength[i] = written;
      // counted on the raw bytes, before the tokenizer rewrites inert separators (as withShingleHashes does)
      if (wordsUpTo > 0) words[i] = core.raw.wordsAtLeast(inPtr + len, written, wordsUpTo);
      core.u8[inPtr + len + written] = 0x0a;
      len += written + 1;
      base[i + 1] = base[i] + text.length + 1;
    }
    let t: WordTokens;
    try {
      // the texts joined only if a region is normalised in the host: a copy of every batch's text saved
      t = tokenizeWritten(core, L, { texts, length: base[n] - 1 }, inPtr, len, len === base[n]);
    } catch (e) {
      if (e instanceof TrainprintError && e.code === 'INVALID_INPUT') return null;
      throw e;
    }
    if (t.regionFixes.length > 0) return null;
    const firstPtr = L.take((n + 1) * 4);
    const fromPtr = L.take((n + 1) * 4);
    L.commit();
    const starts = core.u32(t.startsPtr, t.count);
    const firsts = core.u32(firstPtr, n + 1);
    firsts[0] = 0;
    for (let i = 1; i <= n; i++) firsts[i] = lowerBound(starts, base[i], firsts[i - 1]);
    // every text's shingles in one call, not one a text
    core.raw.shingleTexts(t.hashesPtr, firstPtr, n, o.size, BigInt(o.seed), t.spareU64Ptr, fromPtr);
    // copies: `use` may grow the core's memory, which leaves every view of it empty
    const firstToken = firsts.slice();
    const from = core.u32(fromPtr, n + 1).slice();
    const span = (i: number, first: number, last: number): [number, number] => {
      const count = firstToken[i + 1] - firstToken[i];
      const [s, e] = tokenRange(
        core,
        t,
        firstToken[i] + first,
        firstToken[i] + Math.min(last + o.size - 1, Math.max(count - 1, 0)),
      );
      return [s - base[i], e - base[i]];
    };
    return use({ hashes: core.u64(t.spareU64Ptr, from[n]), from, byteLength, words, span });
  });
}

/** A fingerprint from {@link withWinnowed} with its columns copied out of the core. */
function copyWinnowed(fp: DocumentFingerprint): DocumentFingerprint {
  return { ...fp, winnow: copyColumns(fp.winnow) };
}

/** Copies of a winnowed set's columns (out of the core's memory). */
function copyColumns(s: WinnowSet): WinnowSet {
  return { hashes: s.hashes.slice(), starts: s.starts.slice(), ends: s.ends.slice(), positions: s.positions.slice() };
}

/**
 * Word-shingle hashes only (no spans, no sketches): the fastest path, for building indexes.
 * Bytes must be well-formed UTF-8 (else INVALID_INPUT).
 */
export function shingleHashesCore(
  core: Core,
  input: string | Uint8Array,
  o: ResolvedOptions,
  into?: BigUint64Array,
): BigUint64Array {
  return core.guard(() => {
    const L = core.layout();
    const t = tokenizeWords(core, L, input);
    const m = core.raw.shingleTokens(t.hashesPtr, t.count, o.size, BigInt(o.seed), t.spareU64Ptr);
    const view = core.u64(t.spareU64Ptr, m);
    if (!into) return view.slice();
    if (into.length < m)
      throw new TrainprintError('INVALID_INPUT', `into holds ${into.length} hashes but ${m} are needed`);
    into.set(view);
    return into.subarray(0, m);
  });
}

/** The full pipeline including `work_hash` (async: WebCrypto). */
export async function fingerprintText(core: Core, text: string | Uint8Array, o: ResolvedOptions): Promise<Fingerprint> {
  const { fp, workHash } = fingerprintCore(core, text, o);
  if (!workHash) return fp;
  return { ...fp, work_hash: `sha256:${await workHash}` };
}

/**
 * The 64-bit values at `positions` of an array given as its u32 lanes (two per value). Gathering
 * through u32 lanes avoids the BigInt that reading each BigUint64Array element allocates.
 */
function gatherU64(lanes: Uint32Array, positions: Uint32Array): BigUint64Array {
  const out = new BigUint64Array(positions.length);
  const dst = new Uint32Array(out.buffer);
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i];
    dst[2 * i] = lanes[2 * p];
    dst[2 * i + 1] = lanes[2 * p + 1];
  }
  return out;
}

function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/**
 * UTF-8 bytes of `text` (a lone surrogate counts as U+FFFD, 3 bytes, as TextEncoder writes it), without encoding it.
 * @example utf8Length('é😀') // 6
 */
export function utf8Length(text: string): number {
  return nativeUtf8Length && text.length >= NATIVE_UTF8_LENGTH_FROM ? nativeUtf8Length(text) : utf8LengthHere(text);
}

/**
 * `Buffer.byteLength(text, 'utf8')` where the runtime lends `node:buffer`: V8 counts the UTF-8 of a string as it lies
 * (a lone surrogate as 3 bytes, as the loop does), 10 MB of English in about 5 ms where the loop took 14 ms optimised
 * and 25 ms on a server's thread, which checks every registered text's size with it.
 */
const nativeUtf8Length: ((text: string) => number) | undefined = (() => {
  const b = builtinModule<{ Buffer: { byteLength(text: string, encoding: 'utf8'): number } }>('node:buffer')?.Buffer;
  return typeof b?.byteLength === 'function' ? (text: string) => b.byteLength(text, 'utf8') : undefined;
})();
/** Strings shorter than this are counted by the loop: a call into the runtime costs more than a short count. */
const NATIVE_UTF8_LENGTH_FROM = 1024;

/** {@link utf8Length} counted here, unit by unit (where no runtime lends a count, and for short strings). */
export function utf8LengthHere(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
