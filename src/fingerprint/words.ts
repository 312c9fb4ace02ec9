/**
 * Word tokens of a text, computed in the core with the Unicode normaliser applied only where it
 * is needed.
 *
 * 1. The raw UTF-8 goes into wasm memory once.
 * 2. `findRegions` (assembly/regions.ts) skips inert separators (src/core/inert.ts) and returns
 *    the regions around every other non-ASCII character, extended to the nearest ASCII separator.
 * 3. Each region is normalised in the core (`nfkcUtf8`, assembly/nfkc.ts: pinned NFKC_Casefold +
 *    tokens, the same as `normalize`) from its UTF-8 into a side buffer, with its offset map; the rare
 *    region the core hands back is normalised here by `normalize`, the reference. Plain ASCII is never
 *    touched by JavaScript, and neither are the regions the core normalises.
 * 4. `tokenizeRegions` tokenises ASCII stretches from the raw bytes (offsets are already those of
 *    the original text) and each region from its normalised text; region tokens are mapped back
 *    through the region's offset map.
 *
 * The token stream equals `normalize(text).text.split(' ')` exactly (property-tested), so real
 * English with curly quotes and a few accented names costs almost nothing extra.
 */
import type { Core, Layout } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { flatTables } from '../text/nfkc-casefold.js';
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

/**
 * A region's offset map when the host normalised it (`map`; its tokens' offsets are fixed in {@link tokenSpans}),
 * or null when the core did (tokenizeRegions mapped its tokens' offsets with the core's map).
 */
interface RegionText {
  readonly base: number;
  readonly map: Uint32Array | null;
}

/** Whether each core's NFKC_Casefold tables are in place (false: they did not fit; JS normalises). */
const coreTables = new WeakMap<Core, boolean>();

/** Copies the normaliser's tables into `core` on its first non-ASCII text; false when that is impossible. */
export function ensureTables(core: Core, L: Layout): boolean {
  let ok = coreTables.get(core);
  if (ok !== undefined) return ok;
  const t = flatTables();
  const bytes = t.index.byteLength + t.data.byteLength + t.offsets.byteLength + t.pool.byteLength * 2;
  ok = false;
  if (bytes <= (core.raw.nfkcTableBytes.value as number)) {
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
    ok = core.raw.nfkcInit(t.data.length, t.offsets.length, t.pool.length, pairsPtr, t.pairs.length / 2) === 1;
  }
  coreTables.set(core, ok);
  return ok;
}

/**
 * Normalises each region found by findRegions: in the core (assembly/nfkc.ts) when it can, else (and for the
 * rare regions it hands back: lone surrogates, huge expansions, endless runs of marks) with `normalize`, the
 * reference. Writes each region's normalised UTF-8 pointer and length into record words [4] and [5], and into
 * [6] the core's offset map of the region (0 when normalised here), pushes one {@link RegionText} per region to
 * `regions`; returns the normalised bytes in all.
 * @throws INVALID_INPUT for a lone surrogate in a region (named by its index in the input)
 */
function normalizeRegions(
  core: Core,
  L: Layout,
  input: string | Uint8Array,
  inPtr: number,
  regPtr: number,
  nReg: number,
  regions: RegionText[],
): number {
  const pieceOf = (rec: Uint32Array, o: number): string =>
    typeof input === 'string'
      ? input.slice(rec[o + 2], rec[o + 3])
      : utf8Decoder.decode(core.u8.subarray(inPtr + rec[o], inPtr + rec[o + 1]));
  const inCore = ensureTables(core, L);
  let regionBytes = 0;
  let regionUnits = 0;
  let rec = core.u32(regPtr, nReg * 8);
  for (let r = 0; r < nReg; r++) {
    regionBytes += rec[r * 8 + 1] - rec[r * 8];
    regionUnits += rec[r * 8 + 3] - rec[r * 8 + 2];
  }
  // Room for the usual expansion (CJK: 3 bytes become 4 with the space between ideographs; a map entry per
  // UTF-16 unit, 2 units for 1 with those spaces); a region that needs more is normalised in JavaScript instead.
  const sideCap = inCore ? regionBytes + (regionBytes >>> 1) + 16 * nReg + 64 : 0;
  const mapCap = inCore ? 2 * regionUnits + 16 * nReg + 64 : 0;
  const sidePtr = L.take(sideCap);
  const mapsPtr = L.take(mapCap * 4);
  L.commit();
  rec = core.u32(regPtr, nReg * 8);
  let at = sidePtr;
  let mapAt = 0;
  const late: Array<{ r: number; text: string }> = [];
  let lateBytes = 0;
  for (let r = 0; r < nReg; r++) {
    const o = r * 8;
    const written = inCore
      ? core.raw.nfkcUtf8(
          inPtr + rec[o],
          rec[o + 1] - rec[o],
          at,
          sidePtr + sideCap - at,
          mapsPtr + mapAt * 4,
          mapCap - mapAt,
        )
      : -1;
    if (written >= 0) {
      const mapLength = core.raw.nfkcMapLength();
      rec[o + 4] = at;
      rec[o + 5] = written;
      rec[o + 6] = mapsPtr + mapAt * 4; // tokenizeRegions maps this region's offsets itself
      regions.push({ base: rec[o + 2], map: null });
      at += written;
      mapAt += mapLength;
    } else {
      const piece = pieceOf(rec, o);
      // the core hands back every region holding U+FFFD, which is what the encoder wrote for a lone surrogate
      const bad = loneSurrogateIndex(piece); // none in decoded bytes
      if (bad >= 0)
        throw new TrainprintError('INVALID_INPUT', `text contains a lone surrogate at index ${rec[o + 2] + bad}`);
      const n = normalize(piece);
      rec[o + 6] = 0; // offsets mapped here (tokenSpans), with n.map
      late.push({ r, text: n.text });
      lateBytes += n.text.length * 3;
      regions.push({ base: rec[o + 2], map: n.map });
    }
  }
  let sideBytes = at - sidePtr;
  if (late.length > 0) {
    let p = L.take(lateBytes + 16);
    L.commit();
    rec = core.u32(regPtr, nReg * 8);
    for (const { r, text } of late) {
      const written = core.writeUtf8(text, p, text.length * 3);
      rec[r * 8 + 4] = p;
      rec[r * 8 + 5] = written;
      p += written;
      sideBytes += written;
    }
  }
  return sideBytes;
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
  /** Room after the token arrays that the caller may use: one u64 per token (+1). */
  readonly spareU64Ptr: number;
  readonly regionFixes: readonly RegionFix[];
  /** UTF-8 byte length of the input. */
  readonly byteLength: number;
}

const utf8Decoder = new TextDecoder('utf-8');

/**
 * Tokenise `input` (a well-formed string, or bytes — validated here) in the core. `onRawBytes`
 * receives a view of the raw UTF-8 in wasm memory, valid only during the call.
 * @throws INVALID_INPUT for bytes that are not well-formed UTF-8
 */
export function tokenizeWords(
  core: Core,
  L: Layout,
  input: string | Uint8Array,
  onRawBytes?: (view: Uint8Array) => void,
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
    inPtr = L.take(input.length);
    L.commit();
    core.writeBytes(inPtr, input);
    len = input.length;
    const bad = core.raw.utf8Invalid(inPtr, len);
    if (bad !== 0) throw new TrainprintError('INVALID_INPUT', `bytes are not well-formed UTF-8 (offset ${bad - 1})`);
    asciiOnly = false; // findRegions finds none in ASCII
  }
  // The raw bytes are about to be rewritten (inert separators): let the caller see them first.
  if (onRawBytes) onRawBytes(core.u8.subarray(inPtr, inPtr + len));

  // Regions (findRegions also rewrites inert separators in place, so it runs exactly once with
  // enough room: a region needs at least two bytes, so len / 2 + 1 records always suffice).
  const regions: RegionText[] = [];
  let regPtr = 0;
  let nReg = 0;
  let sideBytes = 0;
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
    sideBytes = normalizeRegions(core, L, input, inPtr, regPtr, nReg, regions);
  }

  // Every token takes at least one byte plus a separator, in the raw text or a region's text.
  const tokCap = ((len + sideBytes) >>> 1) + nReg + 2;
  const startsPtr = L.take(tokCap * 4);
  const endsPtr = L.take(tokCap * 4);
  const hashesPtr = L.take(tokCap * 8);
  const spareU64Ptr = L.take(tokCap * 8);
  const firstPtr = L.take(Math.max(nReg, 1) * 8);
  L.commit();
  const count =
    nReg === 0
      ? core.raw.tokenize(inPtr, len, 0n, startsPtr, endsPtr, hashesPtr)
      : core.raw.tokenizeRegions(inPtr, len, 0n, regPtr, nReg, startsPtr, endsPtr, hashesPtr, firstPtr);
  const regionFixes: RegionFix[] = [];
  if (nReg > 0) {
    // regions the core normalised have their offsets mapped already (tokenizeRegions); the others are fixed later
    const first = core.u32(firstPtr, nReg * 2);
    for (let r = 0; r < nReg; r++) {
      const { map, base } = regions[r];
      if (map !== null && first[2 * r + 1] > first[2 * r]) {
        regionFixes.push({ first: first[2 * r], last: first[2 * r + 1], base, map });
      }
    }
  }
  return { count, startsPtr, endsPtr, hashesPtr, spareU64Ptr, regionFixes, byteLength: len };
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
    const L = core.layout();
    const t = tokenizeWords(core, L, text);
    const starts = core.u32(t.startsPtr, t.count),
      ends = core.u32(t.endsPtr, t.count);
    mapRegionOffsets(t.regionFixes, starts, ends); // in place: the core's scratch, read only during `use`
    return use({ count: t.count, hashes: core.u32(t.hashesPtr, 2 * t.count), starts, ends });
  });
}
