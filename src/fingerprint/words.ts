/**
 * Word tokens of a text, computed in the core with the Unicode normaliser applied only where it
 * is needed.
 *
 * 1. The raw UTF-8 goes into wasm memory once.
 * 2. `findRegions` (assembly/regions.ts) skips inert separators (src/core/inert.ts) and returns
 *    the regions around every other non-ASCII character, extended to the nearest ASCII separator.
 * 3. Each region is normalised here (`normalize`, pinned NFKC_Casefold + tokens) and its UTF-8
 *    written to a side buffer; plain ASCII is never touched by JavaScript.
 * 4. `tokenizeRegions` tokenises ASCII stretches from the raw bytes (offsets are already those of
 *    the original text) and each region from its normalised text; region tokens are mapped back
 *    through the region's offset map.
 *
 * The token stream equals `normalize(text).text.split(' ')` exactly (property-tested), so real
 * English with curly quotes and a few accented names costs almost nothing extra.
 */
import type { Core, Layout } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
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
export function tokenizeWords(core: Core, L: Layout, input: string | Uint8Array, onRawBytes?: (view: Uint8Array) => void): WordTokens {
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
  const regions: Array<{ base: number; map: Uint32Array }> = [];
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
    const texts: string[] = new Array(nReg);
    const rec = core.u32(regPtr, nReg * 8);
    for (let r = 0; r < nReg; r++) {
      const o = r * 8;
      const piece = typeof input === 'string'
        ? input.slice(rec[o + 2], rec[o + 3])
        : utf8Decoder.decode(core.u8.subarray(inPtr + rec[o], inPtr + rec[o + 1]));
      const n = normalize(piece);
      texts[r] = n.text;
      regions.push({ base: rec[o + 2], map: n.map });
      sideBytes += n.text.length * 3;
    }
    const sidePtr = L.take(sideBytes + 16);
    L.commit();
    let at = sidePtr;
    const recs = core.u32(regPtr, nReg * 8);
    for (let r = 0; r < nReg; r++) {
      const written = core.writeUtf8(texts[r], at, texts[r].length * 3);
      recs[r * 8 + 4] = at;
      recs[r * 8 + 5] = written;
      at += written;
    }
    sideBytes = at - sidePtr;
  }

  // Every token takes at least one byte plus a separator, in the raw text or a region's text.
  const tokCap = ((len + sideBytes) >>> 1) + nReg + 2;
  const startsPtr = L.take(tokCap * 4);
  const endsPtr = L.take(tokCap * 4);
  const hashesPtr = L.take(tokCap * 8);
  const spareU64Ptr = L.take(tokCap * 8);
  const firstPtr = L.take(Math.max(nReg, 1) * 8);
  L.commit();
  const count = nReg === 0
    ? core.raw.tokenize(inPtr, len, 0n, startsPtr, endsPtr, hashesPtr)
    : core.raw.tokenizeRegions(inPtr, len, 0n, regPtr, nReg, startsPtr, endsPtr, hashesPtr, firstPtr);
  const regionFixes: RegionFix[] = [];
  if (nReg > 0) {
    const first = core.u32(firstPtr, nReg * 2);
    for (let r = 0; r < nReg; r++) {
      if (first[2 * r + 1] > first[2 * r]) regionFixes.push({ first: first[2 * r], last: first[2 * r + 1], ...regions[r] });
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
  for (const f of t.regionFixes) {
    for (let j = f.first; j < f.last; j++) {
      starts[j] = f.base + f.map[starts[j]];
      ends[j] = f.base + f.map[ends[j]];
    }
  }
  return { starts, ends };
}
