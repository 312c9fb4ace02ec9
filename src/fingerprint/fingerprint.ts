/**
 * The fingerprint pipeline: text → (pinned normalisation) → UTF-8 in wasm memory →
 * tokens → shingle hashes → winnowing, MinHash, SimHash → copied-out typed arrays.
 * One wasm call per stage per document; nothing is allocated inside the core.
 */
import type { Core } from '../engine/abi.js';
import { TrainprintError } from '../errors.js';
import type { Fingerprint, ShingleSet, WinnowSet } from '../types.js';
import { isAsciiOnly, normalize } from './normalize.js';
import { mapOffsets, prepareWords, type Prepared } from './prepare.js';
import { paramsId, type ResolvedOptions } from './options.js';
import { sha256Hex } from './sha256.js';
import { minhashAt } from '../sketch/minhash.js';
import { simhashAt } from '../sketch/simhash.js';

/** Seeds of the two halves of the 128-bit content id ('tp' = 0x7470). */
const ID_SEED_A = 0x7470_0001n;
const ID_SEED_B = 0x7470_0002n;

/** Worst-case token arrays above this many bytes are sized by a counting pass instead. */
const WORST_CASE_LIMIT = 256 * 1024 * 1024;

const hex64 = (v: bigint): string => BigInt.asUintN(64, v).toString(16).padStart(16, '0');

/** Reject anything that is not a well-formed string; decode UTF-8 bytes strictly. */
export function toText(input: unknown): string {
  if (typeof input === 'string') {
    const wellFormed = (input as { isWellFormed?: () => boolean }).isWellFormed;
    if (typeof wellFormed === 'function' ? !wellFormed.call(input) : hasLoneSurrogate(input)) {
      throw new TrainprintError('INVALID_INPUT', `text contains a lone surrogate at index ${loneSurrogateIndex(input)}`);
    }
    return input;
  }
  if (input instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch (cause) {
      throw new TrainprintError('INVALID_INPUT', 'bytes are not valid UTF-8', { cause });
    }
  }
  throw new TrainprintError('INVALID_INPUT', `text must be a string or a Uint8Array of UTF-8, got ${input === null ? 'null' : typeof input}`);
}

function loneSurrogateIndex(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

function hasLoneSurrogate(s: string): boolean {
  return loneSurrogateIndex(s) >= 0;
}

/** Fingerprint without `work_hash` (sync part), plus the raw bytes the hash needs. */
export interface CoreFingerprint {
  readonly fp: Omit<Fingerprint, 'work_hash'>;
  /** The raw UTF-8 bytes when they were already in wasm memory (ASCII input), else null. */
  readonly rawBytes: Uint8Array | null;
}

/**
 * Run the synchronous part of the pipeline on one core. `text` must be well-formed (see toText).
 */
export function fingerprintCore(core: Core, text: string, o: ResolvedOptions): CoreFingerprint {
  return core.guard(() => {
    // Word unit: ASCII stays verbatim (the core folds it), non-ASCII regions are normalised in JS.
    // Char unit: k-grams run over the canonical normalised text (or the raw text with 'none').
    let prepared: Prepared | null = null;
    let map: Uint32Array | null = null;
    let src = text;
    if (o.unit === 'word') {
      prepared = prepareWords(text);
      src = prepared.text;
    } else if (o.normalize === 'nfkc-casefold' && !isAsciiOnly(text)) {
      const n = normalize(text);
      src = n.text;
      map = n.map;
    } else if (o.normalize === 'nfkc-casefold') {
      src = normalize(text).text;
    }
    const rawIsSrc = src === text; // then the raw UTF-8 is already in wasm memory
    const L = core.layout();
    const cap = src.length * 3;
    const inPtr = L.take(cap);
    L.commit();
    const len = core.writeUtf8(src, inPtr, cap);
    const seed = BigInt(o.seed);

    let count: number; // tokens or code points
    let m: number; // shingles
    let hashesPtr: number, startsPtr: number, endsPtr: number;
    let idA: bigint, idB: bigint;

    if (o.unit === 'word') {
      let tokCap = (len >>> 1) + 1;
      if (tokCap * 24 > WORST_CASE_LIMIT) tokCap = core.raw.countTokens(inPtr, len) + 1;
      const tStarts = L.take(tokCap * 4);
      const tEnds = L.take(tokCap * 4);
      const tHashes = L.take(tokCap * 8);
      hashesPtr = L.take(tokCap * 8);
      L.commit();
      count = core.raw.tokenize(inPtr, len, 0n, tStarts, tEnds, tHashes);
      m = core.raw.shingleTokens(tHashes, count, o.size, seed, hashesPtr);
      startsPtr = tStarts;
      // shingle i ends where its last token ends: token min(i + size - 1, count - 1)
      endsPtr = tEnds + 4 * Math.min(o.size - 1, Math.max(count - 1, 0));
      idA = core.raw.xxh64(tHashes, count * 8, ID_SEED_A);
      idB = core.raw.xxh64(tHashes, count * 8, ID_SEED_B);
    } else {
      const cpCap = src.length + 1; // code points <= UTF-16 units
      hashesPtr = L.take(cpCap * 8);
      startsPtr = L.take(cpCap * 4);
      endsPtr = L.take(cpCap * 4);
      L.commit();
      m = core.raw.charShingles(inPtr, len, o.size, seed, hashesPtr, startsPtr, endsPtr);
      count = codePointCount(src);
      idA = core.raw.xxh64(inPtr, len, ID_SEED_A);
      idB = core.raw.xxh64(inPtr, len, ID_SEED_B);
    }

    // Sketches read the shingle hashes where they already are.
    let winPtr = 0, w = 0;
    if (o.window > 0) {
      winPtr = L.take(Math.max(m, 1) * 4);
      L.commit();
      w = core.raw.winnow(hashesPtr, m, o.window, winPtr);
    }
    let minhash: Uint32Array | undefined;
    if (o.minhashMode !== 'off') {
      const sigPtr = L.take(o.permutations * 4);
      L.commit();
      minhash = minhashAt(core, hashesPtr, m, sigPtr, { k: o.permutations, seed: BigInt(o.seed), mode: o.minhashMode });
    }
    const simhash = o.simhash ? simhashAt(core, hashesPtr, m) : undefined;

    // Copy out (views die with the next memory growth).
    const rawBytes = rawIsSrc && o.workHash ? core.u8.slice(inPtr, inPtr + len) : null;
    const hashes = core.u64(hashesPtr, m).slice();
    const starts = core.u32(startsPtr, m).slice();
    const ends = core.u32(endsPtr, m).slice();
    if (prepared) {
      mapOffsets(prepared, starts, ends);
    } else if (map) {
      for (let i = 0; i < m; i++) {
        starts[i] = map[starts[i]];
        ends[i] = map[ends[i]];
      }
    }
    const shingles: ShingleSet = { hashes, starts, ends };
    let winnow: WinnowSet | undefined;
    if (o.window > 0) {
      const positions = core.u32(winPtr, w).slice();
      const wh = new BigUint64Array(w);
      const ws = new Uint32Array(w);
      const we = new Uint32Array(w);
      for (let i = 0; i < w; i++) {
        const p = positions[i];
        wh[i] = hashes[p];
        ws[i] = starts[p];
        we[i] = ends[p];
      }
      winnow = { hashes: wh, starts: ws, ends: we, positions };
    }
    const fp: Omit<Fingerprint, 'work_hash'> = {
      version: 1,
      params: paramsId(o),
      fingerprint: `${o.normalize === 'none' ? 'tp1r' : 'tp1'}:${hex64(idA)}${hex64(idB)}`,
      byte_length: rawIsSrc ? len : utf8Length(text),
      token_count: count,
      shingles,
      ...(winnow ? { winnow } : {}),
      ...(minhash ? { minhash } : {}),
      ...(simhash !== undefined ? { simhash } : {}),
    };
    return { fp, rawBytes };
  });
}

/** The full pipeline including `work_hash` (async: WebCrypto). */
export async function fingerprintText(core: Core, text: string, o: ResolvedOptions): Promise<Fingerprint> {
  const { fp, rawBytes } = fingerprintCore(core, text, o);
  if (!o.workHash) return fp;
  const raw = rawBytes ?? new TextEncoder().encode(text);
  return { ...fp, work_hash: `sha256:${await sha256Hex(raw)}` };
}

function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}
