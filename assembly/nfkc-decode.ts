// The NFKC_Casefold tables decoded in the core: the same varint strings (src/text/unicode-tables.generated.ts) and
// the same steps as decodeTables in src/text/nfkc-casefold.ts, which stays the reference (a unit test compares the
// two entry for entry), writing the trie, mappings and composition pairs where nfkcInit reads them.
//
// Why here: the decode runs once per process. In JavaScript its loops run in the interpreter while the engine
// compiles them on other threads, which cost a fresh process ~50–70 ms of CPU on its first non-ASCII text; the
// core's code is compiled already when the first text arrives.

import { nfkcTables, NFKC_TABLE_BYTES } from './nfkc';

// Info word bits, as in nfkc-casefold.ts.
// @ts-ignore: decorator
@inline const INFO_CCC: u32 = 0xff;
// @ts-ignore: decorator
@inline const INFO_TOKEN: u32 = 0x100;
// @ts-ignore: decorator
@inline const INFO_STANDS_ALONE: u32 = 0x200;
// @ts-ignore: decorator
@inline const INFO_SECOND: u32 = 0x400;
// @ts-ignore: decorator
@inline const INFO_MAPPED: u32 = 0x800;
// @ts-ignore: decorator
@inline const INFO_INDEX_SHIFT: u32 = 12;
// @ts-ignore: decorator
@inline const KEEP_WHEN_MAPPED: u32 = INFO_CCC | INFO_TOKEN | INFO_STANDS_ALONE;
// @ts-ignore: decorator
@inline const SECOND_IDS: u32 = 128;
// @ts-ignore: decorator
@inline const CODE_POINTS: u32 = 0x110000;
// @ts-ignore: decorator
@inline const BLOCKS: u32 = CODE_POINTS >> 6;
// @ts-ignore: decorator
@inline const V_BASE: u32 = 0x1161;
// @ts-ignore: decorator
@inline const V_COUNT: u32 = 21;
// @ts-ignore: decorator
@inline const T_BASE: u32 = 0x11a7;
// @ts-ignore: decorator
@inline const T_COUNT: u32 = 28;

// Scratch layout at the host's `scratch` (its bytes need not be zero): the result record, the five strings' ends,
// one dirty byte per 64-code-point block, the mapping lists, the composition pairs (read by nfkcInit), the seconds'
// code points by id, the uniform blocks' values and ids, the content hash of the other blocks, the decoded varints,
// and the info words: one for each uniform block, 64 for each of the others (a block a run boundary or a single code
// point's entry falls in: ~500 of the 17,408). A flat word per code point (4.4 MB, as the reference has) would cost a
// fresh process a page fault every 1,024 of them.
// @ts-ignore: decorator
@inline const MAX_OFFSETS: u32 = 16384;
// @ts-ignore: decorator
@inline const MAX_POOL: u32 = 32768;
// @ts-ignore: decorator
@inline const MAX_PAIRS: u32 = 2048;
// @ts-ignore: decorator
@inline const MAX_UNIFORM: u32 = 1024;
// @ts-ignore: decorator
@inline const MAX_DIRTY: u32 = 2048;
// @ts-ignore: decorator
@inline const BLOCK_SLOTS: u32 = 4096; // power of two, more than the data area's ~1,000 blocks
// @ts-ignore: decorator
@inline const R_ENDS: usize = 16;
// @ts-ignore: decorator
@inline const R_DIRTY: usize = 48;
// @ts-ignore: decorator
@inline const R_OFFSETS: usize = R_DIRTY + <usize>BLOCKS;
// @ts-ignore: decorator
@inline const R_POOL: usize = R_OFFSETS + (<usize>MAX_OFFSETS << 2);
// @ts-ignore: decorator
@inline const R_PAIRS: usize = R_POOL + (<usize>MAX_POOL << 2);
// @ts-ignore: decorator
@inline const R_SECONDS: usize = R_PAIRS + (<usize>MAX_PAIRS << 3);
// @ts-ignore: decorator
@inline const R_UNIFORM: usize = R_SECONDS + (<usize>SECOND_IDS << 2);
// @ts-ignore: decorator
@inline const R_SLOTS: usize = R_UNIFORM + (<usize>MAX_UNIFORM << 3);
// @ts-ignore: decorator
@inline const R_VALUES: usize = R_SLOTS + (<usize>BLOCK_SLOTS << 2);
/** Room for the decoded varints: no more than the strings' bytes (the host checks their total against it). */
// @ts-ignore: decorator
@inline const MAX_VALUES: u32 = 65536;
/** Each block's word when uniform (u32), and its slot in R_WORDS when dirty (u16). */
// @ts-ignore: decorator
@inline const R_VALUE: usize = R_VALUES + (<usize>MAX_VALUES << 2);
// @ts-ignore: decorator
@inline const R_SLOT: usize = R_VALUE + (<usize>BLOCKS << 2);
// @ts-ignore: decorator
@inline const R_WORDS: usize = R_SLOT + (<usize>BLOCKS << 1);
// @ts-ignore: decorator
@inline const R_END: usize = R_WORDS + (<usize>MAX_DIRTY << 8);

/** Bytes of scratch nfkcDecode needs (≈ 1 MB; the decode touches ~0.4 MB of it). */
export const NFKC_DECODE_SCRATCH: u32 = <u32>R_END;

/** The varints of the strings being read, decoded up front (one loop: the readers below are plain loads). */
let pos: usize = 0;
let stop: usize = 0;
/** Set when a string ends inside a varint or a value goes out of range: the decode then reports 0. */
let broken = false;

// @ts-ignore: decorator
@inline function done(): bool {
  return pos >= stop;
}

/** The next value (a varint of the string being read). */
// @ts-ignore: decorator
@inline function next(): u32 {
  const v = load<u32>(pos);
  pos += 4;
  return v;
}

/** A zigzag varint. */
// @ts-ignore: decorator
@inline function nextSigned(): i32 {
  const n = next();
  return (n & 1) == 1 ? -<i32>((n + 1) >> 1) : <i32>(n >> 1);
}

/**
 * Decodes the varints of the `len` ASCII bytes at `from` (5 payload bits per base64url digit, bit 5 = more follows:
 * build/unicode.mjs) as u32 words at `to`; returns the address after the last, or 0 when the string ends inside one.
 */
function decodeVarints(from: usize, len: u32, to: usize): usize {
  let value: u32 = 0;
  let shift: u32 = 0;
  for (let p = from, end = from + len; p < end; p++) {
    const c = <u32>load<u8>(p);
    const digit: u32 = c >= 97 ? c - 71 : c == 95 ? 63 : c >= 65 ? c - 65 : c >= 48 ? c + 4 : 62;
    value += (digit & 31) << shift;
    if (digit < 32) {
      store<u32>(to, value);
      to += 4;
      value = 0;
      shift = 0;
    } else if ((shift += 5) > 30) return 0;
  }
  return shift == 0 ? to : 0;
}

/** Marks block `b` (ignored outside the table, as a typed array ignores such writes in the reference). */
// @ts-ignore: decorator
@inline function markDirty(s: usize, b: i32): void {
  if (b >= 0 && b < <i32>BLOCKS) store<u8>(s + R_DIRTY + <usize>b, 1);
}

/**
 * Whether the stages only mark the blocks that need words of their own (the first pass) or write the info words
 * (the second, over the same varints): a block's marks are all known before any of its words is written.
 */
let writing = false;

// @ts-ignore: decorator
@inline function isDirty(s: usize, cp: u32): bool {
  return load<u8>(s + R_DIRTY + <usize>(cp >> 6)) != 0;
}

/** Where the info word of `cp` lies, in a dirty block's words or as its uniform block's one word. */
// @ts-ignore: decorator
@inline function wordAt(s: usize, cp: u32): usize {
  const b = <usize>(cp >> 6);
  if (load<u8>(s + R_DIRTY + b) == 0) return s + R_VALUE + (b << 2);
  return s + R_WORDS + ((((<usize>load<u16>(s + R_SLOT + (b << 1))) << 6) | <usize>(cp & 63)) << 2);
}

/** The info word of `cp` (flat[cp] in the reference). */
// @ts-ignore: decorator
@inline function infoAt(s: usize, cp: u32): u32 {
  return load<u32>(wordAt(s, cp));
}

/** Sets `bits` in the info word of `cp` and marks its block. */
function setInfo(s: usize, cp: u32, bits: u32): void {
  if (cp >= CODE_POINTS) {
    broken = true;
    return;
  }
  if (writing) store<u32>(wordAt(s, cp), infoAt(s, cp) | bits);
  else store<u8>(s + R_DIRTY + <usize>(cp >> 6), 1);
}

/**
 * `value` for every code point of [from, end): a word at a time in dirty blocks, the one word of a uniform block
 * (a block not dirty lies wholly inside the run: the blocks of its ends are marked).
 */
function fillRange(s: usize, from: u32, end: u32, value: u32): void {
  for (let c = from; c < end; ) {
    const blockEnd = min<u32>((c | 63) + 1, end);
    if (!isDirty(s, c)) store<u32>(s + R_VALUE + (<usize>(c >> 6) << 2), value);
    else for (; c < blockEnd; c++) store<u32>(wordAt(s, c), value);
    c = blockEnd;
  }
}

/** Alternating runs without and with a property: `value` on those with it (fillRuns in the reference). */
function fillRuns(s: usize, value: u32): void {
  let cp: u32 = 0;
  let on = false;
  while (!done() && !broken) {
    const end = cp + next();
    if (end > CODE_POINTS) {
      broken = true;
      return;
    }
    if (on && writing) fillRange(s, cp, end, value);
    markDirty(s, <i32>(cp >> 6));
    markDirty(s, (<i32>end - 1) >> 6);
    markDirty(s, <i32>(end >> 6));
    cp = end;
    on = !on;
  }
}

/** Canonical_Combining_Class ranges (decodeCombiningClasses in the reference). */
function decodeCombiningClasses(s: usize): void {
  let nextCp: u32 = 0;
  while (!done() && !broken) {
    const start = nextCp + next();
    const end = start + next() + 1;
    const ccc = next();
    if (end > CODE_POINTS) {
      broken = true;
      return;
    }
    for (let c = start; c < end; c++) setInfo(s, c, ccc);
    nextCp = end;
  }
}

/** The primary composites as (first × 128 + second's id, composite) pairs in order; returns how many. */
function decodeCompositions(s: usize): u32 {
  let count: u32 = 0;
  let ids: u32 = 0;
  let c: u32 = 0;
  let a: i32 = 0;
  let b: i32 = 0;
  while (!done() && !broken) {
    c += next();
    a += nextSigned();
    b += nextSigned();
    if (a < 0 || b < 0 || <u32>a >= CODE_POINTS || count >= MAX_PAIRS) {
      broken = true;
      return 0;
    }
    let id: u32 = 0;
    while (id < ids && load<u32>(s + R_SECONDS + (<usize>id << 2)) != <u32>b) id++;
    if (id == ids) {
      if (ids == SECOND_IDS) {
        broken = true;
        return 0;
      }
      store<u32>(s + R_SECONDS + (<usize>id << 2), <u32>b);
      ids++;
      setInfo(s, <u32>b, INFO_SECOND | (id << INFO_INDEX_SHIFT));
    }
    // The generator writes each (first, second) once, so no key repeats (a Map in the reference).
    store<u32>(s + R_PAIRS + (<usize>count << 3), <u32>a * SECOND_IDS + id);
    store<u32>(s + R_PAIRS + (<usize>count << 3), c, 4);
    count++;
  }
  for (let v = V_BASE; v < V_BASE + V_COUNT; v++) setInfo(s, v, INFO_SECOND);
  for (let t = T_BASE + 1; t < T_BASE + T_COUNT; t++) setInfo(s, t, INFO_SECOND);
  return count;
}

/** How many offsets decodeMappings wrote (the mapping count + 1). */
let offsetsLen: u32 = 0;

/** Mapping lists (decodeMappings in the reference); returns the pool's length, the offsets' in `offsetsLen`. */
function decodeMappings(s: usize): u32 {
  const offsets = s + R_OFFSETS;
  const pool = s + R_POOL;
  store<u32>(offsets, 0);
  store<u32>(offsets, 0, 4);
  let nOffsets: u32 = 2;
  let nPool: u32 = 0;
  let nextCp: u32 = 0;
  let prevTarget: i32 = 0;
  while (!done() && !broken) {
    const cp0 = nextCp + next();
    const count = next() + 1;
    let stride: u32 = 1;
    let shift: i32 = 0;
    if (count > 1) {
      stride = next() + 1;
      shift = nextSigned();
    }
    const length = next();
    const first = nPool; // the targets of the run's first code point, read into the pool where they belong
    if (length > 18 || nPool + count * length > MAX_POOL || nOffsets + count > MAX_OFFSETS) {
      broken = true;
      return 0;
    }
    for (let j: u32 = 0; j < length; j++) {
      prevTarget += nextSigned();
      store<u32>(pool + (<usize>(first + j) << 2), <u32>prevTarget);
    }
    const last = cp0 + (count - 1) * stride;
    if (last >= CODE_POINTS) {
      broken = true;
      return 0;
    }
    if (length == 0) {
      // a block not dirty here lies inside a run of stride 1, and its one word takes the same change as each entry
      for (let cp = cp0; cp <= last && writing; cp += stride) {
        store<u32>(wordAt(s, cp), (infoAt(s, cp) & KEEP_WHEN_MAPPED) | INFO_MAPPED);
      }
      markDirty(s, <i32>(cp0 >> 6));
      markDirty(s, <i32>(last >> 6));
      if (stride != 1) for (let cp = cp0; cp <= last; cp += stride) markDirty(s, <i32>(cp >> 6));
    } else {
      for (let k: u32 = 0; k < count; k++) {
        if (k > 0) {
          for (let j: u32 = 0; j < length; j++) {
            const target = <i32>load<u32>(pool + (<usize>(first + j) << 2)) + <i32>k * shift;
            store<u32>(pool + (<usize>(nPool + j) << 2), <u32>target);
          }
        }
        nPool += length;
        const cp = cp0 + k * stride;
        if (writing) store<u32>(wordAt(s, cp), infoAt(s, cp) & KEEP_WHEN_MAPPED);
        setInfo(s, cp, INFO_MAPPED | ((nOffsets - 1) << INFO_INDEX_SHIFT));
        store<u32>(offsets + (<usize>nOffsets << 2), nPool);
        nOffsets++;
      }
    }
    nextCp = last + 1;
  }
  offsetsLen = nOffsets;
  return nPool;
}

/** FNV-1a over a block's 64 info words, as in the reference (any hash would do: blocks are compared in full). */
function blockHash(p: usize): u32 {
  let h: u32 = 0x811c9dc5;
  for (let i: usize = 0; i < 64; i++) h = (h ^ load<u32>(p + (i << 2))) * 0x01000193;
  return h;
}

/** Whether the 64 words at `a` and `b` are equal. */
function sameBlock(a: usize, b: usize): bool {
  for (let i: usize = 0; i < 256; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  return true;
}

/** Appends a block to the data area: the 64 words at `p`, or `value` 64 times when `p` is 0; its id, or -1 when full. */
function addBlock(data: usize, limit: u32, count: u32, p: usize, value: u32): i32 {
  if ((count + 1) << 6 > limit) return -1;
  const at = data + (<usize>count << 8);
  if (p != 0) memory.copy(at, p, 256);
  else for (let i: usize = 0; i < 256; i += 4) store<u32>(at + i, value);
  return <i32>count;
}

/**
 * Folds the info words into the trie at nfkcTables() (foldTrie in the reference: uniform blocks shared by value,
 * the others by content, ids in order of first use); returns the data length in words, or 0 when it does not fit.
 */
function foldTrie(s: usize, limit: u32): u32 {
  const index = nfkcTables();
  const data = index + (<usize>BLOCKS << 1);
  let unique: u32 = 0;
  let uniformCount: u32 = 0;
  memory.fill(s + R_SLOTS, 0, <usize>BLOCK_SLOTS << 2);
  let lastValue: u64 = 0xFFFFFFFFFFFFFFFF;
  let lastId: u32 = 0;
  for (let b: u32 = 0; b < BLOCKS; b++) {
    if (load<u8>(s + R_DIRTY + <usize>b) == 0) {
      const value = load<u32>(s + R_VALUE + (<usize>b << 2));
      if (<u64>value != lastValue) {
        let k: u32 = 0;
        while (k < uniformCount && load<u32>(s + R_UNIFORM + (<usize>k << 3)) != value) k++;
        if (k == uniformCount) {
          const id = addBlock(data, limit, unique, 0, value);
          if (id < 0 || uniformCount == MAX_UNIFORM) return 0;
          unique++;
          store<u32>(s + R_UNIFORM + (<usize>k << 3), value);
          store<u32>(s + R_UNIFORM + (<usize>k << 3), <u32>id, 4);
          uniformCount++;
        }
        lastValue = <u64>value;
        lastId = load<u32>(s + R_UNIFORM + (<usize>k << 3), 4);
      }
      store<u16>(index + (<usize>b << 1), <u16>lastId);
      continue;
    }
    const base = s + R_WORDS + (<usize>load<u16>(s + R_SLOT + (<usize>b << 1)) << 8);
    let slot = blockHash(base) & (BLOCK_SLOTS - 1);
    let id: i32 = -1;
    while (true) {
      const held = load<u32>(s + R_SLOTS + (<usize>slot << 2));
      if (held == 0) break;
      if (sameBlock(data + (<usize>(held - 1) << 8), base)) {
        id = <i32>held - 1;
        break;
      }
      slot = (slot + 1) & (BLOCK_SLOTS - 1);
    }
    if (id < 0) {
      id = addBlock(data, limit, unique, base, 0);
      if (id < 0) return 0;
      unique++;
      store<u32>(s + R_SLOTS + (<usize>slot << 2), <u32>id + 1);
    }
    store<u16>(index + (<usize>b << 1), <u16>id);
  }
  return unique << 6;
}

/** The pool's length after runStages. */
let nPoolLen: u32 = 0;

/** The decode's stages over the five strings' varints, in the reference's order; the composition pairs' count. */
function runStages(s: usize): u32 {
  pos = s + R_VALUES;
  stop = load<usize>(s + R_ENDS);
  fillRuns(s, INFO_TOKEN);
  broken = broken || pos != stop;
  stop = load<usize>(s + R_ENDS, 4);
  fillRuns(s, INFO_TOKEN | INFO_STANDS_ALONE);
  broken = broken || pos != stop;
  stop = load<usize>(s + R_ENDS, 8);
  decodeCombiningClasses(s);
  broken = broken || pos != stop;
  stop = load<usize>(s + R_ENDS, 12);
  const pairs = decodeCompositions(s);
  broken = broken || pos != stop;
  stop = load<usize>(s + R_ENDS, 16);
  nPoolLen = decodeMappings(s);
  broken = broken || pos != stop;
  return pairs;
}

/** Gives each dirty block its 64 words (zero), and every block's uniform word 0; false when there are too many. */
function giveWords(s: usize): bool {
  let n: u32 = 0;
  for (let b: u32 = 0; b < BLOCKS; b++) {
    if (load<u8>(s + R_DIRTY + <usize>b) == 0) continue;
    if (n == MAX_DIRTY) return false;
    store<u16>(s + R_SLOT + (<usize>b << 1), <u16>n);
    n++;
  }
  memory.fill(s + R_VALUE, 0, <usize>BLOCKS << 2);
  memory.fill(s + R_WORDS, 0, <usize>n << 8);
  return true;
}

let srcAt: usize = 0;
let valuesAt: usize = 0;

/** The varints of string `k` (`len` bytes at srcAt) as words at valuesAt; false when it ends inside one. */
function readString(s: usize, k: u32, len: u32): bool {
  const end = decodeVarints(srcAt, len, valuesAt);
  if (end == 0) return false;
  store<usize>(s + R_ENDS + (<usize>k << 2), end);
  srcAt += len;
  valuesAt = end;
  return true;
}

/**
 * Decodes the NFKC_Casefold tables from the varint strings at `src` (TOKEN, STANDS_ALONE, CCC, COMPOSITION and
 * MAPPING of src/text/unicode-tables.generated.ts, as ASCII bytes, one after the other, of the given lengths) into
 * nfkcTables(): the trie index, data, offsets, pool and poolInfo, laid out as the host's copy would be. `scratch`
 * holds NFKC_DECODE_SCRATCH bytes, not necessarily zero. Returns the data length in u32 words (0: the tables do not
 * fit or the strings are malformed; the host then copies its own decode); the other lengths and the composition
 * pairs (for nfkcInit) are in the record at `scratch`: offsets, pool, pairs' count, pairs' pointer.
 */
export function nfkcDecode(
  src: usize,
  tokenLen: u32,
  aloneLen: u32,
  cccLen: u32,
  compositionLen: u32,
  mappingLen: u32,
  scratch: usize,
): u32 {
  const s = scratch;
  broken = false;
  if (<u64>tokenLen + aloneLen + cccLen + compositionLen + mappingLen > MAX_VALUES) return 0;
  // each string's varints as words, one string after the other (R_ENDS: the address after each string's)
  srcAt = src;
  valuesAt = s + R_VALUES;
  if (!readString(s, 0, tokenLen) || !readString(s, 1, aloneLen) || !readString(s, 2, cccLen)) return 0;
  if (!readString(s, 3, compositionLen) || !readString(s, 4, mappingLen)) return 0;
  memory.fill(s + R_DIRTY, 0, <usize>BLOCKS);
  writing = false;
  runStages(s);
  if (broken || !giveWords(s)) return 0;
  writing = true;
  const pairs = runStages(s);
  const poolLen = nPoolLen;
  if (broken) return 0;
  const limit = NFKC_TABLE_BYTES >> 2;
  const indexWords = BLOCKS >> 1;
  const dataLen = foldTrie(s, limit - indexWords);
  if (dataLen == 0 || indexWords + dataLen + offsetsLen + (poolLen << 1) > limit) return 0;
  const offsets = nfkcTables() + (<usize>BLOCKS << 1) + (<usize>dataLen << 2);
  const pool = offsets + (<usize>offsetsLen << 2);
  const poolInfo = pool + (<usize>poolLen << 2);
  memory.copy(offsets, s + R_OFFSETS, <usize>offsetsLen << 2);
  memory.copy(pool, s + R_POOL, <usize>poolLen << 2);
  for (let j: u32 = 0; j < poolLen; j++) {
    const cp = load<u32>(pool + (<usize>j << 2));
    if (cp >= CODE_POINTS) return 0;
    store<u32>(poolInfo + (<usize>j << 2), infoAt(s, cp));
  }
  store<u32>(s, offsetsLen);
  store<u32>(s, poolLen, 4);
  store<u32>(s, pairs, 8);
  store<u32>(s, <u32>(s + R_PAIRS), 12);
  return dataLen;
}
