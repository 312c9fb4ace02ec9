/**
 * Word tokens of a text, computed in the core with the Unicode normaliser applied only where it
 * is needed.
 *
 * 1. The raw UTF-8 goes into wasm memory once.
 * 2. `findRegions` (assembly/regions.ts) skips inert separators (src/core/inert.ts) and returns
 *    the regions around every other non-ASCII character, extended to the nearest ASCII separator.
 * 3. `tokenizeRegions` tokenises the ASCII stretches from the raw bytes (offsets are already those of
 *    the original text) and each region straight from its UTF-8 with `nfkcTokens` (assembly/nfkc.ts: pinned
 *    NFKC_Casefold + tokens, the same as `normalize`): a token of code points that NFKC_Casefold leaves alone
 *    (most CJK, Cyrillic, Greek, lower-case Latin) is hashed where it lies in the input, the others as they
 *    fold, with no normalised text in between. A region holding U+FFFD comes back here first, to be searched for
 *    the lone surrogates the encoder writes as U+FFFD, and goes back to the core when it holds none; the rare
 *    region the core hands back otherwise is normalised here by `normalize`, the reference, and tokenised from
 *    that text. Plain ASCII is never touched by JavaScript, and neither are the regions the core tokenises.
 *
 * The token stream equals `normalize(text).text.split(' ')` exactly (property-tested), so real
 * English with curly quotes and a few accented names costs almost nothing extra.
 */
import type { Core, Layout } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { type FlatTables, flatTables, offerDecodedTables, tableSources } from '../text/nfkc-casefold.js';
import { normalize } from '../text/normalize.js';

/** Bytes per region record written by findRegions (8 × u32). */
const REGION_RECORD = 32;

/** A region's tokens [first, last) carry offsets local to its normalised text. */
interface RegionFix {
  readonly first: number;
  readonly last: number;
  readonly base: number;
  readonly map: Uint32Array;
}

/** Whether each core's NFKC_Casefold tables are in place (false: they did not fit; JS normalises). */
const coreTables = new WeakMap<Core, boolean>();

/**
 * Puts the normaliser's tables in `core` on its first non-ASCII text: decoded by the core itself from the varint
 * strings ({@link decodeTablesInCore}), or decoded here and copied in when that fails. False when neither fits.
 */
export function ensureTables(core: Core, L: Layout): boolean {
  let ok = coreTables.get(core);
  if (ok !== undefined) return ok;
  const decoded = decodeTablesInCore(core, L);
  ok = decoded
    ? core.raw.nfkcInit(decoded.dataLen, decoded.offsetsLen, decoded.poolLen, decoded.pairsPtr, decoded.pairs) === 1
    : copyTables(core, L);
  coreTables.set(core, ok);
  if (decoded !== undefined && ok) offerDecodedTables(coreTablesReader(core, decoded));
  return ok;
}

/**
 * Reads the tables `core` decoded ({@link decodeTablesInCore}) as {@link FlatTables}, for the TypeScript normaliser
 * (`offerDecodedTables`), which would otherwise decode the same strings again in the interpreter. The composition
 * pairs are copied now (they lie in scratch the next call reuses); the rest is read from the core's table area when
 * asked, less the bits only the core's copy has — unless the core is gone (held weakly: the offer keeps no engine
 * alive) or a trap left it unusable.
 * @example offerDecodedTables(coreTablesReader(core, decodeTablesInCore(core, core.layout())))
 */
export function coreTablesReader(core: Core, t: CoreTableLengths): () => FlatTables | undefined {
  const pairs = core.u32(t.pairsPtr, 2 * t.pairs).slice();
  const held = new WeakRef(core);
  return () => {
    const c = held.deref();
    if (c === undefined || !c.usable) return undefined;
    let at = c.raw.nfkcTables();
    const index = c.u16(at, INDEX_ENTRIES).slice();
    at += index.byteLength;
    const take = (n: number) => {
      const a = c.u32(at, n).slice();
      at += a.byteLength;
      return a;
    };
    const data = take(t.dataLen);
    for (let i = 0; i < data.length; i++) data[i] &= ~CORE_ONLY_BITS;
    const offsets = take(t.offsetsLen),
      pool = take(t.poolLen),
      poolInfo = take(t.poolLen);
    return { index, data, offsets, pool, poolInfo, pairs };
  };
}

/**
 * Bits of an info word that nfkcInit sets in the core's copy only (assembly/nfkc.ts INFO_SELF, INFO_SIMPLE: a mapped
 * code point's shortcuts); the reference's words leave them clear (mapping indexes stay under 2^18).
 */
const CORE_ONLY_BITS = 0xc000_0000;
/** Trie index entries: one per 64 code points. */
const INDEX_ENTRIES = 0x110000 >> 6;

/** Where the core's decode put the tables' parts, for nfkcInit. */
export interface CoreTableLengths {
  /** u32 words of trie data, mapping offsets, pool (and pool info) at nfkcTables() after the u16 index. */
  readonly dataLen: number;
  readonly offsetsLen: number;
  readonly poolLen: number;
  /** The (key, composite) u32 pairs in `L`'s scratch. */
  readonly pairsPtr: number;
  readonly pairs: number;
}

const asciiEncoder = new TextEncoder();

/**
 * Decodes the tables in the core (assembly/nfkc-decode.ts) into its table area, laid out as {@link copyTables} would
 * copy {@link flatTables}; undefined when they do not fit. Decoding them here instead cost a fresh process ~50–70 ms
 * of CPU, most of it the engine compiling loops that run once.
 */
export function decodeTablesInCore(core: Core, L: Layout): CoreTableLengths | undefined {
  const sources = tableSources();
  let total = 0;
  for (const s of sources) total += s.length;
  const src = L.take(total);
  const scratch = L.take(core.raw.nfkcDecodeScratch.value as number);
  L.commit();
  let at = src;
  for (const s of sources) {
    asciiEncoder.encodeInto(s, core.u8.subarray(at, at + s.length));
    at += s.length;
  }
  const [token, alone, ccc, composition, mapping] = sources.map((s) => s.length);
  const dataLen = core.raw.nfkcDecode(src, token, alone, ccc, composition, mapping, scratch);
  if (dataLen === 0) return undefined;
  const [offsetsLen, poolLen, pairs, pairsPtr] = core.u32(scratch, 4);
  return { dataLen, offsetsLen, poolLen, pairsPtr, pairs };
}

/** Decodes the tables here ({@link flatTables}, the reference) and copies them into `core`; false when they do not fit. */
export function copyTables(core: Core, L: Layout): boolean {
  const t = flatTables();
  const bytes = t.index.byteLength + t.data.byteLength + t.offsets.byteLength + t.pool.byteLength * 2;
  if (bytes > (core.raw.nfkcTableBytes.value as number)) return false;
  const pairsPtr = L.take(t.pairs.byteLength);
  L.commit();
  const base = core.raw.nfkcTables();
  core.u16(base, t.index.length).set(t.index);
  let at = base + t.index.byteLength;
  for (const a of [t.data, t.offsets, t.pool, t.poolInfo]) {
    core.u32(at, a.length).set(a);
    at += a.byteLength;
  }
  core.u32(pairsPtr, t.pairs.length).set(t.pairs);
  return core.raw.nfkcInit(t.data.length, t.offsets.length, t.pool.length, pairsPtr, t.pairs.length / 2) === 1;
}

/** A region normalised here (by `normalize`, the reference): its tokens' offsets are local to `map`'s text. */
interface HostRegion {
  readonly r: number;
  readonly base: number;
  readonly map: Uint32Array;
}

/**
 * Normalises region `r` with `normalize` (the reference) — the rare region the core hands back (lone surrogates,
 * huge expansions, endless runs of marks), or every region when the core has no tables — and puts its UTF-8 in the
 * core at record words [4] and [5], where tokenizeRegions tokenises it. Returns how many more tokens it may give
 * than the room tokenizeRegions counts for a region of its raw size.
 * @throws INVALID_INPUT for a lone surrogate in the region (as `normalize` reports it)
 */
function normalizeInHost(
  core: Core,
  L: Layout,
  input: WrittenInput,
  inPtr: number,
  regPtr: number,
  r: number,
  hosted: HostRegion[],
): number {
  let rec = core.u32(regPtr + r * REGION_RECORD, 8);
  const n = normalize(regionText(core, input, inPtr, rec));
  const cap = n.text.length * 3;
  const at = L.take(cap + 16);
  L.commit();
  const written = core.writeUtf8(n.text, at, cap);
  rec = core.u32(regPtr + r * REGION_RECORD, 8);
  rec[4] = at;
  rec[5] = written;
  hosted.push({ r, base: rec[2], map: n.map });
  return Math.max(0, (written >>> 1) - ((rec[1] - rec[0]) >>> 1));
}

/**
 * Texts joined by line feeds whose string is made only when read ({@link tokenizeWritten} of texts written one after
 * another): only a region normalised in the host reads it, and a batch of outputs rarely has one, where joining every
 * batch costs a copy of all its text.
 */
export interface JoinedTexts {
  readonly texts: readonly string[];
  /** UTF-16 units of the texts joined. */
  readonly length: number;
}

/** What {@link tokenizeWritten} tokenises: a string, its UTF-8 bytes, or texts joined by line feeds. */
export type WrittenInput = string | Uint8Array | JoinedTexts;

/** Each joined input's string, once made. */
const joinedStrings = new WeakMap<JoinedTexts, string>();

/** The string of `input` (texts joined by line feeds made once), or its bytes. */
function inputText(input: WrittenInput): string | Uint8Array {
  if (typeof input === 'string' || input instanceof Uint8Array) return input;
  let joined = joinedStrings.get(input);
  if (joined === undefined) {
    joined = input.texts.join('\n');
    joinedStrings.set(input, joined);
  }
  return joined;
}

/**
 * The text of the region whose record is `rec` (as `input` spells it: a string's UTF-16 slice, or bytes decoded).
 * @throws INVALID_INPUT for a lone surrogate in it (a string's), named by its index in the input: the encoder wrote it
 *   as U+FFFD, and the core hands back every region holding one unchecked, so this is where each is found
 */
function regionText(core: Core, written: WrittenInput, inPtr: number, rec: Uint32Array): string {
  const input = inputText(written);
  if (typeof input !== 'string') return utf8Decoder.decode(core.u8.subarray(inPtr + rec[0], inPtr + rec[1]));
  const piece = input.slice(rec[2], rec[3]);
  const bad = loneSurrogateIndex(piece);
  if (bad >= 0) throw new TrainprintError('INVALID_INPUT', `text contains a lone surrogate at index ${rec[2] + bad}`);
  return piece;
}

/**
 * When region `r`, handed back by the core, holds a U+FFFD of the text's own (no lone surrogate the encoder replaced),
 * marks its record so that the core tokenises it after all, and returns true: U+FFFD maps to itself and is a separator,
 * and the only reason to hand it back was the check done here. Normalising such a region here instead cost a fresh
 * process the JavaScript normaliser's first run. False when the region was already marked (the core gave it back for
 * another reason) or holds no U+FFFD.
 * @throws INVALID_INPUT for a lone surrogate in the region
 */
function takeOwnReplacements(core: Core, input: WrittenInput, inPtr: number, regPtr: number, r: number): boolean {
  const rec = core.u32(regPtr + r * REGION_RECORD, 8);
  if (rec[6] !== 0) return false;
  if (!regionText(core, input, inPtr, rec).includes('\ufffd')) return false;
  rec[6] = 1;
  return true;
}

/**
 * Index of the first lone surrogate of `s` (a string no UTF encoding can hold), or −1.
 * @example loneSurrogateIndex('a\ud800b') // 1
 */
export function loneSurrogateIndex(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/** Word tokens in the core's memory (pointers valid until the layout is reused). */
export interface WordTokens {
  readonly count: number;
  readonly startsPtr: number;
  readonly endsPtr: number;
  readonly hashesPtr: number;
  /**
   * Bytes of room at `hashesPtr` (`count` u64 of it hold the hashes): the caller's to reuse once it no longer reads the
   * token hashes, for outputs that then need no room of their own.
   */
  readonly hashesRoom: number;
  /** Room after the token arrays that the caller may use: one u64 per token (+1). */
  readonly spareU64Ptr: number;
  /**
   * The room the input's UTF-8 was written to (`inputRoom` bytes at `inputPtr`, `byteLength` of them written, pages the
   * process has touched): the caller's to reuse, as the tokenizer was the last to read it.
   */
  readonly inputPtr: number;
  readonly inputRoom: number;
  readonly regionFixes: readonly RegionFix[];
  /** UTF-8 byte length of the input. */
  readonly byteLength: number;
}

const utf8Decoder = new TextDecoder('utf-8');

/**
 * Tokenise `input` (a well-formed string, or bytes — validated here) in the core. `onRawBytes`
 * receives a view of the raw UTF-8 in wasm memory, valid only during the call. `bytesRoom` lays out that many bytes
 * (at least the input's) for bytes, as a string's three per UTF-16 unit are: room a caller reuses once the tokenizer
 * has read the input (see {@link WordTokens.inputRoom}).
 * @throws INVALID_INPUT for bytes that are not well-formed UTF-8
 */
export function tokenizeWords(
  core: Core,
  L: Layout,
  input: string | Uint8Array,
  onRawBytes?: (view: Uint8Array) => void,
  bytesRoom = 0,
): WordTokens {
  let inPtr: number;
  let len: number;
  let asciiOnly: boolean;
  if (typeof input === 'string') {
    const cap = input.length * 3;
    inPtr = L.take(cap);
    L.commit();
    len = core.writeUtf8(input, inPtr, cap);
    asciiOnly = len === input.length;
  } else {
    inPtr = L.take(Math.max(input.length, bytesRoom));
    L.commit();
    core.writeBytes(inPtr, input);
    len = input.length;
    const bad = core.raw.utf8Invalid(inPtr, len);
    if (bad !== 0) throw new TrainprintError('INVALID_INPUT', `bytes are not well-formed UTF-8 (offset ${bad - 1})`);
    asciiOnly = false; // findRegions finds none in ASCII
  }
  // The raw bytes are about to be rewritten (inert separators): let the caller see them first.
  if (onRawBytes) onRawBytes(core.u8.subarray(inPtr, inPtr + len));
  return tokenizeWritten(
    core,
    L,
    input,
    inPtr,
    len,
    asciiOnly,
    typeof input === 'string' ? input.length * 3 : Math.max(len, bytesRoom),
  );
}

/**
 * {@link tokenizeWords} of UTF-8 already in the core: `len` bytes at `inPtr` (in `room` bytes laid out for it), the
 * encoding of `input` (whose UTF-16 offsets the tokens' spans are), `asciiOnly` when every byte is ASCII. The bytes are
 * rewritten (inert separators).
 * For a caller that writes several texts one after another, each followed by a line feed, and tokenises them at once
 * (a token never crosses white space, so each text's tokens are those it has alone): `input` is then the texts,
 * {@link JoinedTexts}, joined only if a region is normalised in the host.
 * @throws INVALID_INPUT for a lone surrogate of `input` (a string)
 */
export function tokenizeWritten(
  core: Core,
  L: Layout,
  input: WrittenInput,
  inPtr: number,
  len: number,
  asciiOnly: boolean,
  room = len,
): WordTokens {
  if (!asciiOnly && !(input instanceof Uint8Array) && len >= WIDE_TEXT * input.length && ensureTables(core, L)) {
    const whole = wholeTextTokens(core, L, inPtr, len, input.length, room);
    if (whole) return whole;
  }
  // Regions (findRegions also rewrites inert separators in place, so it runs exactly once with
  // enough room: a region needs at least two bytes, so len / 2 + 1 records always suffice).
  let regPtr = 0;
  let nReg = 0;
  if (!asciiOnly) {
    const cap = Math.min((len >>> 1) + 1, 1024 + (len >>> 5));
    regPtr = L.take(cap * REGION_RECORD);
    L.commit();
    nReg = core.raw.findRegions(inPtr, len, regPtr, cap);
    if (nReg > cap) {
      // Rare (a region every < 32 bytes): the inert rewrite is done, so a second pass over the
      // rewritten bytes finds the same regions (a rewritten separator may join a region's front,
      // which only adds a separator to it).
      regPtr = L.take(nReg * REGION_RECORD);
      L.commit();
      nReg = core.raw.findRegions(inPtr, len, regPtr, nReg);
    }
  }
  // The core tokenises each region straight from its UTF-8 (nfkcTokens); a region it hands back, or every region
  // when its tables are missing, is normalised here first.
  const hosted: HostRegion[] = [];
  let extra = 0;
  if (nReg > 0 && !ensureTables(core, L)) {
    for (let r = 0; r < nReg; r++) extra += normalizeInHost(core, L, input, inPtr, regPtr, r, hosted);
  }
  let tokCap = 0;
  let startsPtr = 0;
  let endsPtr = 0;
  let hashesPtr = 0;
  let spareU64Ptr = 0;
  let firstPtr = 0;
  let count = -1;
  let from = 0;
  let n0 = 0;
  while (count < 0) {
    if (tokCap < (len >>> 1) + 2 * nReg + 2 + extra) {
      // (again, from the start, when a region normalised here needs more room than there is)
      tokCap = (len >>> 1) + 2 * nReg + 2 + extra;
      startsPtr = L.take(tokCap * 4);
      endsPtr = L.take(tokCap * 4);
      hashesPtr = L.take(tokCap * 8);
      spareU64Ptr = L.take(tokCap * 8);
      firstPtr = L.take(Math.max(nReg, 1) * 8);
      L.commit();
      from = 0;
      n0 = 0;
    }
    // with no region the whole text is one stretch, whose tokens are ASCII: the tokenizer's shorter hash path
    count = core.raw.tokenizeRegions(inPtr, len, 0n, regPtr, nReg, startsPtr, endsPtr, hashesPtr, firstPtr, from, n0);
    if (count < 0) {
      from = core.raw.failedRegion();
      n0 = core.u32(firstPtr + from * 8, 1)[0];
      if (!takeOwnReplacements(core, input, inPtr, regPtr, from)) {
        extra += normalizeInHost(core, L, input, inPtr, regPtr, from, hosted);
      }
    }
  }
  const regionFixes: RegionFix[] = [];
  if (hosted.length > 0) {
    // the regions normalised here carry offsets local to their text until tokenSpans maps them
    const first = core.u32(firstPtr, nReg * 2);
    hosted.sort((a, b) => a.r - b.r);
    for (const { r, base, map } of hosted) {
      if (first[2 * r + 1] > first[2 * r]) regionFixes.push({ first: first[2 * r], last: first[2 * r + 1], base, map });
    }
  }
  return {
    count,
    startsPtr,
    endsPtr,
    hashesPtr,
    hashesRoom: tokCap * 8,
    spareU64Ptr,
    inputPtr: inPtr,
    inputRoom: room,
    regionFixes,
    byteLength: len,
  };
}

/**
 * UTF-8 bytes per UTF-16 unit from which a text is tokenised as one region, without the region search: at least
 * 2.75 (ideographs, kana and their punctuation take 3, ASCII 1) leaves at most 4.5 % of the bytes ASCII. In such text
 * the search finds one region around nearly everything (10 MB of Chinese prose: one region; of Japanese: 65,
 * between ASCII stretches), and the ASCII words it would leave to the tokenizer cost the normaliser about 4 ms a MB more,
 * against the search's 0.35–0.45 ms a MB of wide text saved.
 */
const WIDE_TEXT = 2.75;

/**
 * The tokens of the `len` bytes at `inPtr` (the UTF-8 of a string of `units` UTF-16 units) with the whole text as one
 * region of the normaliser: the same tokens as the region search and the tokenizer's stretches give, since a region's
 * ASCII words and inert separators come out of the normaliser as the tokenizer makes them (why nearby regions are
 * merged). Null when the core hands the region back (a U+FFFD, a long run of marks, a large expansion): the bytes are
 * not rewritten by then, so the caller searches for regions as usual, and only the region that needs it goes to the
 * host rather than the whole text.
 */
function wholeTextTokens(
  core: Core,
  L: Layout,
  inPtr: number,
  len: number,
  units: number,
  room: number,
): WordTokens | null {
  const mark = L.size;
  const regPtr = L.take(REGION_RECORD);
  const tokCap = (len >>> 1) + 4; // as tokenizeWritten counts for one region
  const startsPtr = L.take(tokCap * 4);
  const endsPtr = L.take(tokCap * 4);
  const hashesPtr = L.take(tokCap * 8);
  const spareU64Ptr = L.take(tokCap * 8);
  const firstPtr = L.take(8);
  L.commit();
  core.u32(regPtr, REGION_RECORD / 4).set([0, len, 0, units, 0, 0, 0, 0]);
  const count = core.raw.tokenizeRegions(inPtr, len, 0n, regPtr, 1, startsPtr, endsPtr, hashesPtr, firstPtr, 0, 0);
  if (count < 0) {
    // the core wrote nothing the search needs: the search lays out its columns where these were
    L.rewind(mark);
    return null;
  }
  return {
    count,
    startsPtr,
    endsPtr,
    hashesPtr,
    hashesRoom: tokCap * 8,
    spareU64Ptr,
    inputPtr: inPtr,
    inputRoom: room,
    regionFixes: [],
    byteLength: len,
  };
}

/**
 * Copy token spans out of the core and map them into the original text. Returns arrays of
 * length `count`: starts[i], ends[i] of token i.
 */
export function tokenSpans(core: Core, t: WordTokens): { starts: Uint32Array; ends: Uint32Array } {
  const starts = core.u32(t.startsPtr, t.count).slice();
  const ends = core.u32(t.endsPtr, t.count).slice();
  mapRegionOffsets(t.regionFixes, starts, ends);
  return { starts, ends };
}

/**
 * Where tokens `first` … `last` of `t` lie in the original text (UTF-16 [start, end)), read from the core's memory
 * without copying the token arrays: for a few tokens of a long text.
 */
export function tokenRange(core: Core, t: WordTokens, first: number, last: number): [number, number] {
  const at = (ptr: number, j: number) => {
    const offset = core.u32(ptr + j * 4, 1)[0];
    const f = t.regionFixes.find((x) => x.first <= j && j < x.last);
    return f ? f.base + f.map[offset] : offset;
  };
  return [at(t.startsPtr, first), at(t.endsPtr, last)];
}

/** Map the spans of the tokens of regions normalised here (`fixes`) from their region's text into the input. */
function mapRegionOffsets(fixes: readonly RegionFix[], starts: Uint32Array, ends: Uint32Array): void {
  for (const f of fixes) {
    for (let j = f.first; j < f.last; j++) {
      starts[j] = f.base + f.map[starts[j]];
      ends[j] = f.base + f.map[ends[j]];
    }
  }
}

/**
 * {@link tokenizeWords} of `text` into `L`, the spans of the regions normalised in the host mapped into the text in
 * place: columns in the core's memory whose spans are all the text's, for a kernel that reads them next.
 * @example const t = tokenizeMapped(core, core.layout(), 'The cat'); core.u32(t.startsPtr, t.count) // [0, 4]
 */
export function tokenizeMapped(core: Core, L: Layout, text: string): WordTokens {
  const t = tokenizeWords(core, L, text);
  if (t.regionFixes.length > 0)
    mapRegionOffsets(t.regionFixes, core.u32(t.startsPtr, t.count), core.u32(t.endsPtr, t.count));
  return t;
}

/** A text's word tokens as the core computes them (see {@link withTokenHashes}). */
export interface TokenHashes {
  readonly count: number;
  /**
   * Each token's 64-bit hash of its normalised form (seed 0: equal forms, equal hashes, whatever their case or
   * Unicode spelling in the text), as (low, high) u32 pairs: 2 × count values.
   */
  readonly hashes: Uint32Array;
  /** Where each token starts and ends in the text (UTF-16 offsets). */
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
}

/**
 * Tokenise `text` in the core and hand `use` its tokens' form hashes and spans: views of the core's memory,
 * valid only during the call. The tokens are those of `normalize(text).text.split(' ')`, in that order. For
 * work over many texts that needs each token's form only once per distinct form (a table keyed by the hash),
 * not its characters: no string is made per token.
 * @example withTokenHashes(core, 'The cat sat.', (t) => t.count) // 3
 */
export function withTokenHashes<T>(core: Core, text: string, use: (t: TokenHashes) => T): T {
  return core.guard(() => {
    // spans mapped in place: the core's scratch, read only during `use`
    const t = tokenizeMapped(core, core.layout(), text);
    const starts = core.u32(t.startsPtr, t.count),
      ends = core.u32(t.endsPtr, t.count);
    return use({ count: t.count, hashes: core.u32(t.hashesPtr, 2 * t.count), starts, ends });
  });
}
