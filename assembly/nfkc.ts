// Pinned NFKC_Casefold + word tokens over UTF-8, the core's copy of src/text/nfkc-casefold.ts and
// normalizeGeneral in src/text/normalize.ts (those stay the reference; a property test compares them).
//
// The tables are the ones the TypeScript side decodes from src/text/unicode-tables.generated.ts: the
// core decodes the same strings into TABLES itself (nfkc-decode.ts), or the host copies its own decode
// there (nfkcTables), once per instance the first time a text needs them, then nfkcInit; the binary
// carries no Unicode data (TABLES is zero-initialised static memory, not bytes in the module).
//
// nfkcTokens folds one region of UTF-8 (a region found by findRegions) and writes the word tokens of its
// normalised text — what the tokenizer would find in normalize(region).text, each mapped back through
// normalize(region).map to the UTF-16 offsets where its first character starts and its last one ends — with no
// normalised text in between. Anything it does not handle identically it leaves to the host (returns
// NFKC_FALLBACK): U+FFFD unless the host has checked the region (what the encoder writes for a lone surrogate,
// which the host must report; a U+FFFD of the text itself maps to itself and is a separator, which fold takes like
// any other), more tokens than the room given, or a run without a chunk boundary longer than the scratch arrays.

import { avalanche64, P1, P5, xxh64Folded, xxh64FoldedShort } from './hash/xxh64';
import { lead16, masks16, wide16 } from './tokenize';

// Info word bits, as in nfkc-casefold.ts: `ccc | flags | mappingIndex << 12`.
// @ts-ignore: decorator
@inline const INFO_CCC: u32 = 0xff;
// @ts-ignore: decorator
@inline const INFO_TOKEN: u32 = 0x100;
// @ts-ignore: decorator
@inline const INFO_STANDS_ALONE: u32 = 0x200; // a token of its own: ideographs, kana, Thai… (nfkc-casefold.ts)
// @ts-ignore: decorator
@inline const INFO_SECOND: u32 = 0x400;
// @ts-ignore: decorator
@inline const INFO_MAPPED: u32 = 0x800;
// @ts-ignore: decorator
@inline const INFO_INDEX_SHIFT: u32 = 12;
/**
 * Set by nfkcInit, in the core's copy only, on a mapped code point that folds back to itself on its own (é,
 * ñ, ü…: NFD in the tables, NFC again after composition) and whose mapping starts with a starter that is
 * never a second: between boundaries it can go straight to the output.
 */
// @ts-ignore: decorator
@inline const INFO_SELF: u32 = 0x80000000;
/**
 * Set by nfkcInit, in the core's copy only, on a mapped starter that is never a second and whose mapping is one
 * code point that is a boundary (capitals of Latin, Greek and Cyrillic, fullwidth punctuation and letters…): its
 * fold, on its own, is that code point, and it touches neither neighbour, so between boundaries it goes to the
 * output as its mapping without fold's scratch arrays. Mapping indexes are < 2^18 (nfkcInit checks).
 */
// @ts-ignore: decorator
@inline const INFO_SIMPLE: u32 = 0x40000000;
// @ts-ignore: decorator
@inline const INFO_INDEX_MASK: u32 = 0x3FFFF;
// @ts-ignore: decorator
@inline const SECOND_IDS: u32 = 128;

// @ts-ignore: decorator
@inline const S_BASE: i32 = 0xac00;
// @ts-ignore: decorator
@inline const L_BASE: i32 = 0x1100;
// @ts-ignore: decorator
@inline const V_BASE: i32 = 0x1161;
// @ts-ignore: decorator
@inline const T_BASE: i32 = 0x11a7;
// @ts-ignore: decorator
@inline const L_COUNT: i32 = 19;
// @ts-ignore: decorator
@inline const V_COUNT: i32 = 21;
// @ts-ignore: decorator
@inline const T_COUNT: i32 = 28;
// @ts-ignore: decorator
@inline const N_COUNT: i32 = V_COUNT * T_COUNT;
// @ts-ignore: decorator
@inline const S_COUNT: i32 = L_COUNT * N_COUNT;

/**
 * A code point with none of these bits is a boundary: NFC joins nothing across the point before it (it is an
 * unmapped starter that is never the second of a composition).
 */
// @ts-ignore: decorator
@inline const BOUNDARY: u32 = INFO_MAPPED | INFO_SECOND | INFO_CCC;

/** Returned by nfkcTokens when the host must normalise the region itself. */
// @ts-ignore: decorator
@inline const NFKC_FALLBACK: u32 = 0xFFFFFFFF;

// Table area: the trie index (u16 per 64-code-point block) at TABLES, then data, offsets, pool and poolInfo
// (u32 each), then the composition hash at the end. Unicode 17 needs ~250 KB of the first part.
// @ts-ignore: decorator
@inline const INDEX_ENTRIES: usize = 0x110000 >> 6;
// @ts-ignore: decorator
@inline const HASH_SLOTS: u32 = 4096; // power of two, at least twice the 961 primary composites
// @ts-ignore: decorator
@inline const HASH_BYTES: usize = <usize>HASH_SLOTS << 3;
// @ts-ignore: decorator
@inline const TABLE_BYTES: usize = 320 << 10;
const TABLES: usize = memory.data(<i32>TABLE_BYTES, 16);
const HASH: usize = TABLES + TABLE_BYTES - HASH_BYTES;

/** Bytes at nfkcTables() that the host may fill (index, data, offsets, pool, poolInfo). */
export const NFKC_TABLE_BYTES: u32 = <u32>(TABLE_BYTES - HASH_BYTES);

let dataPtr: usize = 0;
let offsetsPtr: usize = 0;
let poolPtr: usize = 0;
let poolInfoPtr: usize = 0;
let ready = false;

// Cluster scratch: the fold works on at most CAP code points at a time (see nfkcTokens).
// @ts-ignore: decorator
@inline const CAP: u32 = 4096;
const S_CP: usize = memory.data(<i32>(CAP << 2), 16);
const S_INFO: usize = memory.data(<i32>(CAP << 2), 16);
const S_START: usize = memory.data(<i32>(CAP << 2), 16);
const S_END: usize = memory.data(<i32>(CAP << 2), 16);
// Counting sort of long runs of marks: 257 counters and room for one run.
const SORT_COUNT: usize = memory.data(257 << 2, 16);
const SORT_CP: usize = memory.data(<i32>(CAP << 2), 16);
const SORT_INFO: usize = memory.data(<i32>(CAP << 2), 16);

/** Where the host copies the decoded tables (see NFKC_TABLE_BYTES). */
export function nfkcTables(): usize {
  return TABLES;
}

// @ts-ignore: decorator
@inline function hashSlot(key: u32): u32 {
  return (key * 0x9E3779B1) >> 20; // top 12 bits: HASH_SLOTS = 4096
}

/**
 * Tables copied in at nfkcTables(): the index (0x110000 / 64 u16), then `dataLen`, `offsetsLen`, `poolLen`
 * and `poolLen` u32 (data, offsets, pool, poolInfo). `pairs` (key, composite) u32 pairs at `pairsPtr` fill
 * the composition hash (key = first * 128 + id of the second). Returns 1, or 0 when they do not fit.
 */
export function nfkcInit(dataLen: u32, offsetsLen: u32, poolLen: u32, pairsPtr: usize, pairs: u32): u32 {
  const need = (INDEX_ENTRIES << 1) + ((<usize>dataLen + <usize>offsetsLen + (<usize>poolLen << 1)) << 2);
  if (need > <usize>NFKC_TABLE_BYTES || pairs > (HASH_SLOTS >> 1) || offsetsLen > INFO_INDEX_MASK) return 0;
  dataPtr = TABLES + (INDEX_ENTRIES << 1);
  offsetsPtr = dataPtr + (<usize>dataLen << 2);
  poolPtr = offsetsPtr + (<usize>offsetsLen << 2);
  poolInfoPtr = poolPtr + (<usize>poolLen << 2);
  memory.fill(HASH, 0xFF, HASH_BYTES); // empty slot: key 0xFFFFFFFF (keys are < 0x110000 * 128)
  for (let i: u32 = 0; i < pairs; i++) {
    const key = load<u32>(pairsPtr + (<usize>i << 3));
    let s = hashSlot(key);
    while (load<u32>(HASH + (<usize>s << 3)) != 0xFFFFFFFF) s = (s + 1) & (HASH_SLOTS - 1);
    store<u32>(HASH + (<usize>s << 3), key);
    store<u32>(HASH + (<usize>s << 3), load<u32>(pairsPtr + (<usize>i << 3), 4), 4);
  }
  ready = true;
  markFast();
  nextAloneGen(aloneSeed); // the tables' records of aloneRun, made again from these tables
  return 1;
}

/** Writes the UTF-8 of code point `c` at `o`; returns its length in bytes. */
// @ts-ignore: decorator
@inline function putUtf8(o: usize, c: u32): usize {
  if (c < 0x80) {
    store<u8>(o, <u8>c);
    return 1;
  }
  if (c < 0x800) {
    store<u8>(o, <u8>(0xC0 | (c >> 6)));
    store<u8>(o, <u8>(0x80 | (c & 0x3F)), 1);
    return 2;
  }
  if (c < 0x10000) {
    store<u8>(o, <u8>(0xE0 | (c >> 12)));
    store<u8>(o, <u8>(0x80 | ((c >> 6) & 0x3F)), 1);
    store<u8>(o, <u8>(0x80 | (c & 0x3F)), 2);
    return 3;
  }
  store<u8>(o, <u8>(0xF0 | (c >> 18)));
  store<u8>(o, <u8>(0x80 | ((c >> 12) & 0x3F)), 1);
  store<u8>(o, <u8>(0x80 | ((c >> 6) & 0x3F)), 2);
  store<u8>(o, <u8>(0x80 | (c & 0x3F)), 3);
  return 4;
}

const ONE: usize = memory.data(8, 8);
/** One byte per data block (at most TABLE_BYTES / 256 of them): set once markFast has visited it. */
const VISITED: usize = memory.data(<i32>(TABLE_BYTES >> 8), 16);

/**
 * Sets INFO_SELF and INFO_SIMPLE (see there) in the data blocks. A mapped code point with a non-empty mapping has
 * its own mapping index, so its block is shared with no other range and the bit marks that code point alone.
 *
 * For the same reason a data block shared by several 64-code-point ranges holds no entry this writes, so each data
 * block is visited once, through the first range that uses it (~430 blocks of 64 entries where every code point from
 * U+0080 took 1.1M lookups: most of the core's set-up on a process's first non-ASCII text).
 */
function markFast(): void {
  memory.fill(VISITED, 0, TABLE_BYTES >> 8);
  for (let b: u32 = 0x80 >> 6; b < 0x110000 >> 6; b++) {
    if (b == 0xD800 >> 6) b = 0xE000 >> 6;
    const block = <usize>load<u16>(TABLES + (<usize>b << 1));
    if (load<u8>(VISITED + block) != 0) continue;
    store<u8>(VISITED + block, 1);
    for (let c: u32 = b << 6, end = c + 64; c < end; c++) markFastOne(c);
  }
  markPlain2();
}

/** markFast's step for code point `c`. */
function markFastOne(c: u32): void {
  const inf = infoOf(c);
  if ((inf & INFO_MAPPED) == 0) return;
  const k = <usize>((inf >> INFO_INDEX_SHIFT) & INFO_INDEX_MASK);
  const from = <usize>load<u32>(offsetsPtr + (k << 2));
  const to = <usize>load<u32>(offsetsPtr + ((k + 1) << 2));
  if (from == to) return; // maps to nothing
  const first = load<u32>(poolInfoPtr + (from << 2));
  if ((first & (INFO_CCC | INFO_SECOND)) != 0) return;
  const a = dataPtr + ((((<usize>load<u16>(TABLES + (<usize>(c >> 6) << 1))) << 6) | <usize>(c & 63)) << 2);
  if (to - from == 1 && (first & BOUNDARY) == 0 && (inf & (INFO_CCC | INFO_SECOND)) == 0) {
    store<u32>(a, inf | INFO_SIMPLE);
    return;
  }
  const n = putUtf8(ONE, c);
  if (fold(ONE, ONE + n, 0) == 1 && load<u32>(S_CP) == c) store<u32>(a, inf | INFO_SELF);
}

/** The 2-byte tables PLAIN2, SIMPLE2, PLAIN_LO and PLAIN_HI, from the marked data blocks. */
function markPlain2(): void {
  memory.fill(PLAIN2, 0, 240);
  for (let c: u32 = 0x80; c < 0x800; c++) {
    const inf = infoOf(c);
    if ((inf & (INFO_TOKEN | INFO_STANDS_ALONE)) == INFO_TOKEN && ((inf & BOUNDARY) == 0 || (inf & INFO_SELF) != 0)) {
      const k = c - 0x80;
      store<u8>(PLAIN2 + (k >> 3), <u8>(<u32>load<u8>(PLAIN2 + (k >> 3)) | (<u32>1 << (k & 7))));
    }
  }
  // 2-byte capitals (and other INFO_SIMPLE code points) that map to a 2-byte PLAIN2 letter
  memory.fill(SIMPLE2, 0, 1920 << 1);
  for (let c: u32 = 0x80; c < 0x800; c++) {
    const inf = infoOf(c);
    if ((inf & INFO_SIMPLE) == 0) continue;
    const m = load<u32>(poolPtr + simpleAt(inf));
    if (m >= 0x80 && m < 0x800 && isPlain2(m)) store<u16>(SIMPLE2 + (<usize>(c - 0x80) << 1), <u16>m);
  }
  // 2-byte capitals whose mapping is a decomposition that composes back to one PLAIN2 letter (É: e + U+0301, é; Й, Ό,
  // Ż…): a starter that is no composition's second maps to that letter whatever stands around it, so a word of them
  // needs no fold (which took such a word, 1,466 capitals in 2 MB of mixed-script prose, code point by code point)
  for (let c: u32 = 0x80; c < 0x800; c++) {
    const inf = infoOf(c);
    const kind = inf & (INFO_MAPPED | INFO_SIMPLE | INFO_SELF | INFO_CCC | INFO_SECOND | INFO_TOKEN | INFO_STANDS_ALONE);
    if (kind != (INFO_MAPPED | INFO_TOKEN) || load<u16>(SIMPLE2 + (<usize>(c - 0x80) << 1)) != 0) continue;
    if (fold(ONE, ONE + putUtf8(ONE, c), 0) != 1) continue;
    const m = load<u32>(S_CP);
    if (m >= 0x80 && m < 0x800 && isPlain2(m)) store<u16>(SIMPLE2 + (<usize>(c - 0x80) << 1), <u16>m);
  }
  // each lead byte's longest run of second bytes that make PLAIN2 code points
  for (let lead: u32 = 0; lead < 32; lead++) {
    let best: u32 = 0;
    let lo: u32 = 0xFF;
    let hi: u32 = 0;
    for (let x: u32 = 0x80, run: u32 = 0; x < 0xC0; x++) {
      run = lead >= 2 && isPlain2((lead << 6) | (x & 0x3F)) ? run + 1 : 0;
      if (run > best) {
        best = run;
        lo = x + 1 - run;
        hi = x;
      }
    }
    store<u8>(PLAIN_LO + lead, <u8>lo);
    store<u8>(PLAIN_HI + lead, <u8>hi);
  }
}

/**
 * For each 2-byte code point c (at c − 0x80): its mapping when c is INFO_SIMPLE and that is a 2-byte code point in
 * PLAIN2 (Cyrillic, Greek and Latin-1 capitals), else 0. Filled by markFast.
 */
const SIMPLE2: usize = memory.data(1920 << 1, 16);

/** Whether the 2-byte code point `c` is in PLAIN2. */
// @ts-ignore: decorator
@inline function isPlain2(c: u32): bool {
  const bit = c - 0x80;
  return ((<u32>load<u8>(PLAIN2 + (bit >> 3)) >> (bit & 7)) & 1) != 0;
}

/**
 * For each lead byte 0xC0 + i: the second bytes [PLAIN_LO[i], PLAIN_HI[i]] of its longest run of PLAIN2 code points
 * (lower-case Cyrillic, Greek, Latin-1…), or an empty range: a SIMD check of 16 bytes of a word (plainRangeBits)
 * before the exact one, code point by code point.
 */
const PLAIN_LO: usize = memory.data(32, 16);
const PLAIN_HI: usize = memory.data(32, 16);

/**
 * SIMD: the bits of `leads` (lead bytes among the 16 bytes at `w`) whose code point lies in its lead's PLAIN_LO..HI; 0
 * in the scalar build (every lead is then looked up). The leads left out are the few that a word's lookup loop visits:
 * its capitals, and letters outside their lead's longest run.
 */
// @ts-ignore: decorator
@inline function plainRangeBits(w: usize, leads: u32): u32 {
  if (ASC_FEATURE_SIMD) {
    const idx = v128.and(v128.load(w), i8x16.splat(0x1F));
    const hiIdx = v128.xor(idx, i8x16.splat(0x10));
    const lo = v128.or(i8x16.swizzle(v128.load(PLAIN_LO), idx), i8x16.swizzle(v128.load(PLAIN_LO, 16), hiIdx));
    const hi = v128.or(i8x16.swizzle(v128.load(PLAIN_HI), idx), i8x16.swizzle(v128.load(PLAIN_HI, 16), hiIdx));
    const second = v128.load(w, 1);
    const ok = v128.and(i8x16.ge_u(second, lo), i8x16.le_u(second, hi));
    return <u32>i8x16.bitmask(ok) & leads;
  }
  return 0;
}

/**
 * Bit c − 0x80 set (c < 0x800): a 2-byte code point that is a token character joining its neighbours (not one that
 * stands alone) and goes out as it is between boundaries (a boundary, or INFO_SELF): most letters of Cyrillic,
 * Greek, Armenian, Hebrew, Arabic and lower-case Latin with diacritics. Filled by markFast.
 */
const PLAIN2: usize = memory.data(240, 16);

/** Where the one-code-point mapping of an INFO_SIMPLE code point (info `inf`) lies in the pool (and its info in poolInfo). */
// @ts-ignore: decorator
@inline function simpleAt(inf: u32): usize {
  return <usize>load<u32>(offsetsPtr + (<usize>((inf >> INFO_INDEX_SHIFT) & INFO_INDEX_MASK) << 2)) << 2;
}

/**
 * True for a code point (info `inf`) that, between boundaries, goes out unchanged (a boundary, or INFO_SELF) or as its
 * one-code-point mapping (INFO_SIMPLE), and that never joins the code point before it.
 */
// @ts-ignore: decorator
@inline function isFast(inf: u32): bool {
  return (inf & BOUNDARY) == 0 || (inf & (INFO_SELF | INFO_SIMPLE)) != 0;
}

/** The primary composite of `first` and the second with id `id`, or -1. */
// @ts-ignore: decorator
@inline function composePair(first: u32, id: u32): i32 {
  const key = first * SECOND_IDS + id;
  let s = hashSlot(key);
  while (true) {
    const k = load<u32>(HASH + (<usize>s << 3));
    if (k == key) return <i32>load<u32>(HASH + (<usize>s << 3), 4);
    if (k == 0xFFFFFFFF) return -1;
    s = (s + 1) & (HASH_SLOTS - 1);
  }
}

/** The info word of a code point. */
// @ts-ignore: decorator
@inline function infoOf(cp: u32): u32 {
  return infoIn(dataPtr, cp);
}

/** {@link infoOf} with the data table at `data` (dataPtr, which a hot loop holds in a local). */
// @ts-ignore: decorator
@inline function infoIn(data: usize, cp: u32): u32 {
  const block = <usize>load<u16>(TABLES + (<usize>(cp >> 6) << 1));
  return load<u32>(data + (((block << 6) | <usize>(cp & 63)) << 2));
}

// @ts-ignore: decorator
@inline function put(k: u32, c: u32, inf: u32, s: u32, e: u32): void {
  const o = <usize>k << 2;
  store<u32>(S_CP + o, c);
  store<u32>(S_INFO + o, inf);
  store<u32>(S_START + o, s);
  store<u32>(S_END + o, e);
}

/** What readUtf8 gives for a 0xFF byte: the tail of an inert separator (see fold); no code point is this large. */
const INERT_TAIL: u32 = 0x110000;

/** The well-formed UTF-8 code point at `i` (a 0xFF byte: {@link INERT_TAIL}). */
// @ts-ignore: decorator
@inline function readUtf8(i: usize): u32 {
  const b = <u32>load<u8>(i);
  if (b < 0x80) return b;
  if (b < 0xE0) return ((b & 0x1F) << 6) | (<u32>load<u8>(i, 1) & 0x3F);
  if (b < 0xF0) return ((b & 0x0F) << 12) | ((<u32>load<u8>(i, 1) & 0x3F) << 6) | (<u32>load<u8>(i, 2) & 0x3F);
  if (b == 0xFF) return INERT_TAIL;
  return ((b & 0x07) << 18) | ((<u32>load<u8>(i, 1) & 0x3F) << 12) | ((<u32>load<u8>(i, 2) & 0x3F) << 6) |
    (<u32>load<u8>(i, 3) & 0x3F);
}

/** UTF-8 bytes of what {@link readUtf8} read (INERT_TAIL: its one byte). */
// @ts-ignore: decorator
@inline function utf8Bytes(c: u32): usize {
  return c < 0x80 || c == INERT_TAIL ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/**
 * True while nfkcTokens works on a region whose U+FFFD the host has checked: every one is the text's own, not a lone
 * surrogate the encoder replaced, so fold takes it like any other code point (it maps to itself and is a separator).
 */
let replacementsChecked = false;

// Where the last fold stopped (globals: no multiple return values).
let foldNext: usize = 0;
let foldNextU: u32 = 0;

/**
 * Decomposes code points of the UTF-8 at [`i`, `end`) (UTF-16 offset `u` at `i`) into the scratch arrays up
 * to the next boundary (a code point with none of the BOUNDARY bits) after the first, orders and composes
 * them; returns the cluster's length (and sets foldNext / foldNextU), or NFKC_FALLBACK. Mirrors foldChunk in
 * nfkc-casefold.ts, whose chunks end at the same kind of boundary (only further on).
 */
function fold(i: usize, end: usize, u: u32): u32 {
  let len: u32 = 0;
  let composable = false;
  let marks: u32 = 0; // nonzero when some code point has a nonzero ccc (else nothing to order)
  while (i < end) {
    const c = readUtf8(i);
    // The tail of an inert separator that findRegions rewrote as ' ' + 0xFF bytes (regions merge over such
    // gaps). An inert separator acts exactly like that ' ' (ccc 0, no token character, never composes), and
    // its UTF-16 unit is the ' ' byte's, so the tail is skipped, as the tokenizer does.
    if (c == INERT_TAIL) {
      i++;
      continue;
    }
    // maybe a lone surrogate, which the host reports: taken as it is only once the host has looked at the region's
    // text and found none (decodeAt sends every U+FFFD here, so this is the one place that decides)
    if (c == 0xFFFD && !replacementsChecked) return NFKC_FALLBACK;
    const bytes = utf8Bytes(c);
    const units: u32 = bytes == 4 ? 2 : 1;
    const inf = infoOf(c);
    if (len != 0 && (inf & BOUNDARY) == 0) break;
    // The longest mapping is 18 code points (U+FDFA), so 32 free slots cover any single step.
    if (len + 32 > CAP) return NFKC_FALLBACK;
    const s = u;
    const e = u + units;
    if (inf & INFO_MAPPED) {
      const k = <usize>((inf >> INFO_INDEX_SHIFT) & INFO_INDEX_MASK);
      const to = <usize>load<u32>(offsetsPtr + ((k + 1) << 2));
      for (let j = <usize>load<u32>(offsetsPtr + (k << 2)); j < to; j++) {
        const mi = load<u32>(poolInfoPtr + (j << 2));
        put(len++, load<u32>(poolPtr + (j << 2)), mi, s, e);
        if (mi & INFO_SECOND) composable = true;
        marks |= mi & INFO_CCC;
      }
    } else if (<i32>c >= S_BASE && <i32>c < S_BASE + S_COUNT) {
      const si = <i32>c - S_BASE;
      const ti = si % T_COUNT;
      put(len++, <u32>(L_BASE + si / N_COUNT), INFO_TOKEN, s, e);
      put(len++, <u32>(V_BASE + (si % N_COUNT) / T_COUNT), INFO_TOKEN | INFO_SECOND, s, e);
      if (ti != 0) put(len++, <u32>(T_BASE + ti), INFO_TOKEN | INFO_SECOND, s, e);
      composable = true;
    } else {
      put(len++, c, inf, s, e);
      if (inf & INFO_SECOND) composable = true;
      marks |= inf & INFO_CCC;
    }
    i += bytes;
    u = e;
  }
  foldNext = i;
  foldNextU = u;

  // Canonical ordering: sort each run of non-starters by ccc; starters (ccc 0) never move.
  for (let r: u32 = 0; marks != 0 && r < len; ) {
    if ((load<u32>(S_INFO + (<usize>r << 2)) & INFO_CCC) == 0) {
      r++;
      continue;
    }
    let e = r + 1;
    while (e < len && (load<u32>(S_INFO + (<usize>e << 2)) & INFO_CCC) != 0) e++;
    if (e - r > 1) sortByCcc(r, e);
    r = e;
  }
  return composable ? compose(len) : len;
}

/** Stable sort of scratch [from, to) by ccc (code points and info move; offsets stay). */
function sortByCcc(from: u32, to: u32): void {
  if (to - from <= 32) {
    for (let i = from + 1; i < to; i++) {
      const inf = load<u32>(S_INFO + (<usize>i << 2));
      const k = inf & INFO_CCC;
      if ((load<u32>(S_INFO + (<usize>(i - 1) << 2)) & INFO_CCC) <= k) continue;
      const c = load<u32>(S_CP + (<usize>i << 2));
      let j = i;
      while (j > from && (load<u32>(S_INFO + (<usize>(j - 1) << 2)) & INFO_CCC) > k) {
        store<u32>(S_CP + (<usize>j << 2), load<u32>(S_CP + (<usize>(j - 1) << 2)));
        store<u32>(S_INFO + (<usize>j << 2), load<u32>(S_INFO + (<usize>(j - 1) << 2)));
        j--;
      }
      store<u32>(S_CP + (<usize>j << 2), c);
      store<u32>(S_INFO + (<usize>j << 2), inf);
    }
    return;
  }
  // A counting sort for long runs, so a chunk of stacked marks stays linear.
  memory.fill(SORT_COUNT, 0, 257 << 2);
  for (let i = from; i < to; i++) {
    const a = SORT_COUNT + (<usize>((load<u32>(S_INFO + (<usize>i << 2)) & INFO_CCC) + 1) << 2);
    store<u32>(a, load<u32>(a) + 1);
  }
  for (let k: usize = 1; k < 257; k++) {
    store<u32>(SORT_COUNT + (k << 2), load<u32>(SORT_COUNT + (k << 2)) + load<u32>(SORT_COUNT + ((k - 1) << 2)));
  }
  for (let i = from; i < to; i++) {
    const inf = load<u32>(S_INFO + (<usize>i << 2));
    const a = SORT_COUNT + (<usize>(inf & INFO_CCC) << 2);
    const slot = <usize>load<u32>(a);
    store<u32>(a, <u32>slot + 1);
    store<u32>(SORT_CP + (slot << 2), load<u32>(S_CP + (<usize>i << 2)));
    store<u32>(SORT_INFO + (slot << 2), inf);
  }
  memory.copy(S_CP + (<usize>from << 2), SORT_CP, <usize>(to - from) << 2);
  memory.copy(S_INFO + (<usize>from << 2), SORT_INFO, <usize>(to - from) << 2);
}

/** Canonical composition of the scratch in place (UAX #15 §1.3); returns the new length. */
function compose(len: u32): u32 {
  let w: u32 = 0;
  let starter: i32 = -1;
  let lastCcc: u32 = 0;
  for (let r: u32 = 0; r < len; r++) {
    const ro = <usize>r << 2;
    const c = load<u32>(S_CP + ro);
    const inf = load<u32>(S_INFO + ro);
    const k = inf & INFO_CCC;
    if ((inf & INFO_SECOND) != 0 && starter >= 0 && (<i32>w - 1 == starter || (lastCcc != 0 && lastCcc < k))) {
      const so = <usize>starter << 2;
      const a = <i32>load<u32>(S_CP + so);
      let composite: i32 = -1;
      const ci = <i32>c;
      if (ci < T_BASE + T_COUNT && ci >= V_BASE) {
        const li = a - L_BASE;
        const si = a - S_BASE;
        if (ci < V_BASE + V_COUNT && li >= 0 && li < L_COUNT) {
          composite = S_BASE + (li * V_COUNT + (ci - V_BASE)) * T_COUNT;
        } else if (ci > T_BASE && si >= 0 && si < S_COUNT && si % T_COUNT == 0) {
          composite = a + (ci - T_BASE);
        }
      } else {
        composite = composePair(<u32>a, inf >> INFO_INDEX_SHIFT);
      }
      if (composite >= 0) {
        store<u32>(S_CP + so, <u32>composite);
        store<u32>(S_INFO + so, infoOf(<u32>composite));
        const er = load<u32>(S_END + ro);
        if (er > load<u32>(S_END + so)) store<u32>(S_END + so, er);
        continue;
      }
    }
    if (k == 0) starter = <i32>w;
    lastCcc = k;
    const wo = <usize>w << 2;
    store<u32>(S_CP + wo, c);
    store<u32>(S_INFO + wo, inf);
    store<u32>(S_START + wo, load<u32>(S_START + ro));
    store<u32>(S_END + wo, load<u32>(S_END + ro));
    w++;
  }
  return w;
}

// Token state shared by emitToken and the loop (globals).
let inToken = false;
let tokenEnd: u32 = 0;

// The code point decodeAt read (globals: no multiple return values).
let dCp: u32 = 0;
let dInfo: u32 = 0;
let dBytes: usize = 0;
let dUnits: u32 = 0;
let dFast = false;

/**
 * Decodes the code point at `i` into dCp / dInfo / dBytes / dUnits. A 0xFF byte (see fold) and U+FFFD get
 * dInfo INFO_MAPPED, so they are never a boundary and fold, which handles both, sees them.
 */
function decodeAt(i: usize): void {
  const read = readUtf8(i);
  const bytes = utf8Bytes(read);
  const units: u32 = bytes == 4 ? 2 : 1;
  const c = read == INERT_TAIL ? 0xFFFD : read;
  dCp = c;
  const inf = infoOf(c);
  // A boundary, or a code point that folds back to itself or to one boundary without touching what precedes it.
  dFast = isFast(inf);
  if (c == 0xFFFD) {
    dFast = false;
    dInfo = INFO_MAPPED;
  } else dInfo = inf;
  dBytes = bytes;
  dUnits = units;
}

// Token output of nfkcTokens (globals, like the text output above).
let tStarts: usize = 0;
let tEnds: usize = 0;
let tHashes: usize = 0;
let tCount: u32 = 0;
let tCap: u32 = 0;
let tBase: u32 = 0;
let tSeed: u64 = 0;
let tReadable: usize = 0; // end of memory: xxh64FoldedShort may read 16 bytes from a token's start below it
let tokStart: u32 = 0; // UTF-16 offset (in the region) where the open token starts
let tokRaw: usize = 0; // the open token's bytes are [tokRaw, tokRawEnd) of the input, or 0: they are in TOK
let tokRawEnd: usize = 0;
let tokLen: usize = 0; // bytes of the open token in TOK (when tokRaw is 0)
let tokOpen = false; // a token was started and not yet written out

/** The bytes of a token whose code points did not all come through unchanged (16 spare for the short hash); a longer
 * one (no word is 2 KiB long) sends its region to the host. */
// @ts-ignore: decorator
@inline const TOK_CAP: usize = 2 << 10;
const TOK: usize = memory.data(<i32>(TOK_CAP + 16), 16);

/** Writes the open token out, if one is open (see writeToken); false when the token room is full. */
// @ts-ignore: decorator
@inline function closeToken(): bool {
  return tokOpen ? writeToken() : true;
}

/** XXH64 (seed tSeed) of the `n` bytes of a token at `at`, ASCII folded (see xxh64Folded). */
function tokenHash(at: usize, n: usize): u64 {
  return n < 16 && at + 16 <= tReadable ? xxh64FoldedShort(at, n, tSeed) : xxh64Folded(at, n, tSeed);
}

/** Writes the open token out (start, end, XXH64 of its normalised UTF-8); false when the token room is full. */
function writeToken(): bool {
  tokOpen = false;
  if (tCount >= tCap) return false;
  const at = tokRaw != 0 ? tokRaw : TOK;
  const h = tokenHash(at, tokRaw != 0 ? tokRawEnd - tokRaw : tokLen);
  const o = <usize>tCount << 2;
  store<u32>(tStarts + o, tBase + tokStart);
  store<u32>(tEnds + o, tBase + tokenEnd);
  store<u64>(tHashes + (o << 1), h);
  tCount++;
  return true;
}

/**
 * Takes folded code point `c` (info `inf`, from the region's UTF-16 [`s`, `e`)) as normalizeGeneral does — a
 * token character joins the open token (one that stands alone, an ideograph, is a token of its own), anything else
 * ends it — and writes each token out when it ends: the UTF-16 start of its first character, the largest end of its
 * characters (what normalize's map gives for the token's first unit and for the unit after it) and the hash of its
 * UTF-8. `raw` is where the code point's own UTF-8 (`rawLen` bytes) lies in the input when it comes out unchanged,
 * else 0 (a code point from fold). A token of unchanged code points is hashed straight from the input; the first
 * changed one moves it to TOK.
 */
// @ts-ignore: decorator
@inline function emitToken(c: u32, inf: u32, s: u32, e: u32, raw: usize, rawLen: usize): bool {
  if ((inf & INFO_TOKEN) == 0) {
    inToken = false;
    return closeToken();
  }
  const alone = (inf & INFO_STANDS_ALONE) != 0;
  if (!inToken || alone) {
    if (!closeToken()) return false;
    tokenEnd = 0;
    inToken = !alone;
    tokOpen = true;
    tokStart = s;
    tokRaw = raw;
    tokRawEnd = raw;
    tokLen = 0;
  }
  if (raw != 0 && tokRaw != 0 && raw == tokRawEnd) tokRawEnd = raw + rawLen;
  else if (!spellInTok(c)) return false;
  if (e > tokenEnd) tokenEnd = e;
  return true;
}

/** Appends `c` to the open token in TOK, moving the token there first if it was in the input; false when full. */
function spellInTok(c: u32): bool {
  if (tokRaw != 0) {
    // the token's bytes so far are in the input; from here on it is spelled in TOK
    tokLen = tokRawEnd - tokRaw;
    if (tokLen + 4 > TOK_CAP) return false;
    memory.copy(TOK, tokRaw, tokLen);
    tokRaw = 0;
  }
  if (tokLen + 4 > TOK_CAP) return false;
  tokLen += putUtf8(TOK + tokLen, c);
  return true;
}

// @ts-ignore: decorator
@inline const ALONE_MASK: u32 = BOUNDARY | INFO_TOKEN | INFO_STANDS_ALONE;
/** Info of a code point that stands alone as a token (INFO_STANDS_ALONE, the one test for that) and folds to itself. */
// @ts-ignore: decorator
@inline const STABLE_ALONE: u32 = INFO_TOKEN | INFO_STANDS_ALONE;
// @ts-ignore: decorator
@inline const SELF_ALONE: u32 = INFO_SELF | INFO_TOKEN | INFO_STANDS_ALONE;

/**
 * True for a code point (info `inf`) that stands alone as a token and folds to itself: a boundary (most ideographs
 * and kana) or INFO_SELF (kana with a voicing mark, NFD in the tables).
 */
// @ts-ignore: decorator
@inline function aloneAsItIs(inf: u32): bool {
  return (inf & ALONE_MASK) == STABLE_ALONE || (inf & SELF_ALONE) == SELF_ALONE;
}

/**
 * The token of one code point U+0800..U+FFFF, looked up: for each such code point its kind in ALONE_CLASS (a byte: 3
 * when it stands alone as a token and folds to itself, aloneAsItIs; 1 when it is a separator that a run of them steps
 * over, isSkipped; 0 when neither, or not yet known) and the XXH64 of the first kind's UTF-8 (u64 at ALONE_HASHES +
 * cp * 8), filled for a block of 64 code points (cp >> 6) at a time, and for each block the generation it was filled
 * for (u32 in ALONE_GEN). A token of a run of ideographs and kana then costs a byte's load and the hash's, where it
 * took the info table's two loads, a lookup of XXH64's state after two bytes, the third byte's step and the final mix
 * (4 multiplies). Prose uses a few hundred blocks, each filled on first use (64 info lookups and hashes) for the seed
 * a call uses. Static memory, zero until filled (asconfig.json's initial memory holds it: 18 pages): the binary
 * carries no table, and a page of it no block of the text falls in is never touched.
 *
 * A byte per code point, not a bit of a block's record: the five-at-once step of aloneRun read each of its five code
 * points' bit by a shift whose count x86 takes in one register (cl), and V8 spilled a dozen values to the stack a step
 * (32 KiB of records and 8 KiB of their or became 64 KiB of bytes, of which prose touches the pages of its blocks). A
 * new generation clears the kinds of the blocks filled in the one before (ALONE_FILLED), so the step needs no
 * generation test: a block not filled for this one reads 0, "does not fit".
 */
const ALONE_GEN: usize = memory.data(1024 << 2, 16);
const ALONE_HASHES: usize = memory.data(0x10000 << 3, 16);
const ALONE_CLASS: usize = memory.data(0x10000, 16);
/** The blocks of ALONE_CLASS filled in this generation (u16 each), and how many. */
const ALONE_FILLED: usize = memory.data(1024 << 1, 16);
let aloneFilled: u32 = 0;
/** The generation ALONE_GEN's blocks are valid for (0: none): a new one for each new seed and new tables. */
let aloneGen: u32 = 0;
let aloneSeed: u64 = 0;

/** Makes blocks of earlier seeds or tables stale (a generation that wraps clears every block's, so none is reused). */
function nextAloneGen(seed: u64): void {
  aloneGen++;
  if (aloneGen == 0) {
    memory.fill(ALONE_GEN, 0, 1024 << 2);
    aloneGen = 1;
  }
  aloneSeed = seed;
  for (let j: u32 = 0; j < aloneFilled; j++) {
    memory.fill(ALONE_CLASS + (<usize>load<u16>(ALONE_FILLED + (<usize>j << 1)) << 6), 0, 64);
  }
  aloneFilled = 0;
}

/**
 * XXH64 (seed `seed`) of the 3-byte UTF-8 of `c` (U+0800..U+FFFF): the specification's path for an input under 4
 * bytes, one single-byte step a byte, then the final mix. Bytes >= 0x80 need no case folding.
 */
function xxh64Of3(c: u32, seed: u64): u64 {
  let h = seed + P5 + 3;
  h = rotl<u64>(h ^ (<u64>(0xE0 | (c >> 12)) * P5), 11) * P1;
  h = rotl<u64>(h ^ (<u64>(0x80 | ((c >> 6) & 63)) * P5), 11) * P1;
  h = rotl<u64>(h ^ (<u64>(0x80 | (c & 63)) * P5), 11) * P1;
  return avalanche64(h);
}

/**
 * True for a code point (info `inf`) that a run of aloneRun steps over: a separator that goes out as it is or as one
 * separator (punctuation, fullwidth or not, spaces), or as several (mapsToSeparators: an ellipsis).
 */
// @ts-ignore: decorator
@inline function isSkipped(c: u32, inf: u32): bool {
  if (c == 0xFFFD) return false;
  if (!isFast(inf)) return mapsToSeparators(inf);
  return (((inf & INFO_SIMPLE) != 0 ? load<u32>(poolInfoPtr + simpleAt(inf)) : inf) & INFO_TOKEN) == 0;
}

/**
 * True for a mapped starter that is never a second (info `inf`) whose mapping is two or more code points that are
 * boundaries and not token characters — U+2026 HORIZONTAL ELLIPSIS ("..."), U+2025, U+203C ("!!"): NFC leaves such a
 * mapping as it is, it joins neither neighbour when both are boundaries (as in a run of aloneRun), and it holds no
 * token, so between two code points of a run it only ends the token before it, as a separator of one code point does.
 * Japanese prose has about 200 ellipses a megabyte; each ended a run and went through fold.
 */
function mapsToSeparators(inf: u32): bool {
  if ((inf & BOUNDARY) != INFO_MAPPED) return false;
  const k = <usize>((inf >> INFO_INDEX_SHIFT) & INFO_INDEX_MASK);
  const from = <usize>load<u32>(offsetsPtr + (k << 2));
  const to = <usize>load<u32>(offsetsPtr + ((k + 1) << 2));
  if (from == to) return false;
  for (let j = from; j < to; j++) {
    if ((load<u32>(poolInfoPtr + (j << 2)) & (BOUNDARY | INFO_TOKEN)) != 0) return false;
  }
  return true;
}

/** Fills the kinds of block `k` (code points k << 6 ..) and its code points' hashes for tSeed. */
function fillAloneBlock(k: u32): void {
  for (let j: u32 = 0; j < 64; j++) {
    const c = (k << 6) | j;
    const inf = infoOf(c);
    let cls: u32 = 0;
    if (aloneAsItIs(inf)) {
      store<u64>(ALONE_HASHES + (<usize>c << 3), xxh64Of3(c, tSeed));
      cls = 3;
    } else if (isSkipped(c, inf)) cls = 1;
    store<u8>(ALONE_CLASS + <usize>c, <u8>cls);
  }
  store<u32>(ALONE_GEN + (<usize>k << 2), aloneGen);
  store<u16>(ALONE_FILLED + (<usize>aloneFilled << 1), <u16>k);
  aloneFilled++;
}

/**
 * Masks of aloneRun's five-at-once step: 16 bytes that are five whole 3-byte code points (lead bytes E0..EF at 0, 3,
 * 6, 9 and 12, continuation bytes 80..BF between; byte 15 is not looked at) are these, and'ed with the first vector,
 * equal to the second.
 */
const FIVE3: usize = memory.data<u8>([
  0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0,
  0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0,
], 16);

/**
 * Constants of aloneRun's five-at-once step in SIMD: the swizzle that puts the bytes of the first four 3-byte code
 * points of 16 in lanes of 32 bits (each as a little-endian load would: lead byte lowest, the top byte zero), then the
 * masks of decode3 (0x0F, 0xFC0, 0x3F) for each lane.
 */
const DECODE4: usize = memory.data<u8>([
  0, 1, 2, 0x80, 3, 4, 5, 0x80, 6, 7, 8, 0x80, 9, 10, 11, 0x80,
  0x0F, 0, 0, 0, 0x0F, 0, 0, 0, 0x0F, 0, 0, 0, 0x0F, 0, 0, 0,
  0xC0, 0x0F, 0, 0, 0xC0, 0x0F, 0, 0, 0xC0, 0x0F, 0, 0, 0xC0, 0x0F, 0, 0,
  0x3F, 0, 0, 0, 0x3F, 0, 0, 0, 0x3F, 0, 0, 0, 0x3F, 0, 0, 0,
], 16);

/** The code point of the 3-byte UTF-8 in the low three bytes of `w` (little-endian: the lead byte lowest). */
// @ts-ignore: decorator
@inline function decode3(w: u32): u32 {
  return ((w & 0x0F) << 12) | ((w >> 2) & 0xFC0) | ((w >> 16) & 0x3F);
}

/**
 * Writes the one-character token of `c` (UTF-16 offset `at`, hash from ALONE_HASHES) at output offset `o`, and returns
 * the offset after it when `keep` is 1, else `o` (the slot is written over next): no branch.
 */
// @ts-ignore: decorator
@inline function putAlone(starts: usize, ends: usize, hashes: usize, o: usize, at: u32, c: u32, keep: u32): usize {
  store<u32>(starts + o, at);
  store<u32>(ends + o, at + 1);
  store<u64>(hashes + (o << 1), load<u64>(ALONE_HASHES + (<usize>c << 3)));
  return o + (<usize>keep << 2);
}

// Where aloneRun or fastRun stopped (globals: no multiple return values): the UTF-16 offset there, and (fastRun)
// whether the code point there goes to fold (the one after it is not fast).
let runU: u32 = 0;
let runFold = false;

/**
 * nfkcTokens on a run of 3-byte code points that each stand alone as a token and fold to themselves (aloneAsItIs: a
 * run of Chinese, of kanji and kana, or of any letter the tables make a token of its own) and of separators between
 * them that fold to themselves or to one separator (punctuation, fullwidth or not, spaces), starting with one that
 * stands alone at `i` (UTF-16 offset `u`): writes each of those but the last as its own token, straight from the
 * input, and skips the separators — exactly what emitToken would do, since each is followed by a code point that
 * joins nothing before it. Returns where the last code point of the run starts (what the general loop takes next,
 * decodeAt's state its; runU its UTF-16 offset), or 0 when the token room ran out.
 */
function aloneRun(i: usize, end: usize, u: u32): usize {
  if (!closeToken()) return 0;
  inToken = false;
  if (aloneGen == 0 || aloneSeed != tSeed) nextAloneGen(tSeed);
  const gen = aloneGen;
  // the first code point's hash is read from its block too
  if (load<u32>(ALONE_GEN + (<usize>(dCp >> 6) << 2)) != gen) fillAloneBlock(dCp >> 6);
  // the globals the loop reads, in locals (a global is a load from the instance at each use)
  const starts = tStarts;
  const ends = tEnds;
  const hashes = tHashes;
  const data = dataPtr;
  let at = tBase + u;
  let q = i;
  let qc = dCp; // the code point at q (decodeAt read the first)
  let qb: usize = 3; // the code point at q: its bytes (each is one UTF-16 unit: no 4-byte one gets here), and whether
  let alone = true; // it stands alone (else a separator)
  let qu: u32 = 1; // and its UTF-16 units (0: the tail of an inert separator, one byte at a time)
  let o = <usize>tCount << 2;
  const room = <usize>tCap << 2;
  let blockAfter: usize = 0; // the five-at-once step is tried only for a next code point past this
  while (q + qb < end) {
    const nq = q + qb;
    if (ASC_FEATURE_SIMD && nq > blockAfter && nq + 16 <= end && o + 20 <= room) {
      // Five 3-byte code points at once: when the 16 bytes at nq are five whole ones whose kinds (ALONE_CLASS,
      // filled for this seed) say each stands alone or is skipped, the current code point and the next four are
      // written (those that stand alone: every slot is stored, and the output moves on by the kind's alone bit) and
      // the fifth becomes the current one — what five turns of the loop below do, without a branch a character.
      // Otherwise the loop below takes the characters up to the first that did not fit (blockAfter) before this is
      // tried again.
      const v = v128.load(nq);
      const shape = i8x16.bitmask(i8x16.ne(v128.and(v, v128.load(FIVE3)), v128.load(FIVE3, 16)));
      if (shape != 0) blockAfter = nq + <usize>ctz<u32>(shape);
      else {
        // each slot is written before the next code point's class is known; a step that meets one that does not fit
        // takes its slots back (o0): they lie past the tokens written and are written over later
        const o0 = o;
        o = putAlone(starts, ends, hashes, o, at, qc, alone ? 1 : 0);
        // the first four decoded side by side (decode3 on each lane)
        const w = i8x16.swizzle(v, v128.load(DECODE4));
        const lead = i32x4.shl(v128.and(w, v128.load(DECODE4, 16)), 12);
        const middle = v128.and(i32x4.shr_u(w, 2), v128.load(DECODE4, 32));
        const cps = v128.or(v128.or(lead, middle), v128.and(i32x4.shr_u(w, 16), v128.load(DECODE4, 48)));
        const c0 = <u32>i32x4.extract_lane(cps, 0);
        let k = <u32>load<u8>(ALONE_CLASS + <usize>c0);
        let fits = k;
        o = putAlone(starts, ends, hashes, o, at + 1, c0, k >> 1);
        const c1 = <u32>i32x4.extract_lane(cps, 1);
        k = <u32>load<u8>(ALONE_CLASS + <usize>c1);
        fits &= k;
        o = putAlone(starts, ends, hashes, o, at + 2, c1, k >> 1);
        const c2 = <u32>i32x4.extract_lane(cps, 2);
        k = <u32>load<u8>(ALONE_CLASS + <usize>c2);
        fits &= k;
        o = putAlone(starts, ends, hashes, o, at + 3, c2, k >> 1);
        const c3 = <u32>i32x4.extract_lane(cps, 3);
        k = <u32>load<u8>(ALONE_CLASS + <usize>c3);
        fits &= k;
        o = putAlone(starts, ends, hashes, o, at + 4, c3, k >> 1);
        const c4 = decode3(load<u32>(nq, 12));
        k = <u32>load<u8>(ALONE_CLASS + <usize>c4);
        if ((fits & k) != 0) {
          at += 5;
          q = nq + 12;
          qc = c4;
          qb = 3;
          alone = k > 1;
          continue;
        }
        o = o0;
        // the first of the five that does not fit (its block not this seed's, or neither alone nor skipped)
        let j: usize = 0;
        while (load<u8>(ALONE_CLASS + <usize>decode3(load<u32>(nq + j))) != 0) j += 3;
        blockAfter = nq + j;
      }
    }
    const lead = <u32>load<u8>(nq);
    let c: u32 = 0;
    let b: usize = 3;
    let units: u32 = 1;
    // 3-byte code points first: the run is made of them
    if ((lead & 0xF0) == 0xE0) {
      c = ((lead & 0x0F) << 12) | ((<u32>load<u8>(nq, 1) & 0x3F) << 6) | (<u32>load<u8>(nq, 2) & 0x3F);
    } else if (lead < 0x80) {
      c = lead;
      b = 1;
    } else if (lead < 0xE0) {
      c = ((lead & 0x1F) << 6) | (<u32>load<u8>(nq, 1) & 0x3F);
      b = 2;
    } else if (lead == 0xFF) {
      // the tail of an inert separator that findRegions rewrote as ' ' + 0xFF bytes (a Japanese full stop before a
      // newline): no code point, no UTF-16 unit, and nothing after it joins across it (fold skips it too), so the run
      // steps over it; what follows is ASCII or the end
      c = INERT_TAIL;
      b = 1;
      units = 0;
    } else break; // astral: the general loop's
    let nextAlone = false;
    if (units == 0) {
      // stepped over
    } else if (b == 3) {
      if (load<u32>(ALONE_GEN + (<usize>(c >> 6) << 2)) != gen) fillAloneBlock(c >> 6);
      const k = <u32>load<u8>(ALONE_CLASS + <usize>c);
      // a separator that goes out as it is or as one separator, or the end of the run
      if (k == 0) break;
      nextAlone = k > 1;
    } else if (!isSkipped(c, infoIn(data, c))) break;
    if (alone) {
      if (o >= room) return 0;
      store<u32>(starts + o, at);
      store<u32>(ends + o, at + 1);
      store<u64>(hashes + (o << 1), load<u64>(ALONE_HASHES + (<usize>qc << 3)));
      o += 4;
    }
    at += qu;
    q = nq;
    qc = c;
    qb = b;
    qu = units;
    alone = nextAlone;
  }
  tCount = <u32>(o >> 2);
  if (q != i) decodeAt(q);
  runU = at - tBase;
  return q;
}


// What scanPlain found beside the word's end (globals: no multiple return values).
let scanLeads: u32 = 0; // lead bytes in the word (its UTF-16 units are its bytes less these)
let scanChanged = false; // some code point is a capital of SIMPLE2
let scanCaps: u64 = 0; // when scanChanged: the capitals' lead bytes in the word's first 32 bytes (bit k: byte k)
let scanAfter: u32 = 0; // token bytes of the last 32 bytes read, from the word's end on (bit 0: the end), none past `end`

/**
 * The end of a word at `q` (a token byte) that the normaliser leaves as it is: a run of token bytes (ASCII letters and
 * digits, bytes >= 0x80) up to an ASCII separator or `end`, each non-ASCII code point in it a 2-byte one in PLAIN2 or a
 * capital of SIMPLE2; 0 when it is not such a word, or the 33 bytes from a 32-byte stretch of it would pass the end of
 * memory. Reads 32 bytes a step: a word of Cyrillic or Greek (two bytes a letter) is about as often over 16 bytes as
 * under, so a loop of 16-byte steps would leave at a mispredicted branch for many words.
 */
// @ts-ignore: decorator
@inline function scanPlain(q: usize, end: usize): usize {
  let w = q;
  let leads: u32 = 0;
  let changed = false;
  let caps: u64 = 0;
  while (true) {
    if (w + 33 > tReadable) return 0; // (plainRangeBits reads the 16 bytes at w + 17)
    const tokLo = masks16(w);
    const leadLo = lead16;
    const wideLo = wide16;
    const tok = <u64>tokLo | (<u64>masks16(w + 16) << 16);
    const lead = <u64>leadLo | (<u64>lead16 << 16);
    const wide = <u64>wideLo | (<u64>wide16 << 16);
    let stop = ~tok & 0xFFFFFFFF;
    if (end - w < 32) stop |= <u64>0xFFFFFFFF << <u64>(end - w); // (end > w here)
    const k = stop != 0 ? ctz<u64>(stop) : 32;
    const part = (<u64>1 << k) - 1; // bytes of the word in these 32 (k = 32: all)
    if ((wide & part) != 0) return 0;
    const l = lead & part;
    leads += <u32>popcnt<u64>(l);
    // the leads outside their lead's plain run, looked up one by one: capitals (their bits kept for foldShort)
    let m = l & ~(<u64>plainRangeBits(w, <u32>l & 0xFFFF) | (<u64>plainRangeBits(w + 16, <u32>(l >> 16)) << 16));
    while (m != 0) {
      const bit = m & (~m + 1);
      m ^= bit;
      const at = w + <usize>ctz<u64>(bit);
      const c = ((<u32>load<u8>(at) & 0x1F) << 6) | (<u32>load<u8>(at, 1) & 0x3F);
      if (isPlain2(c)) continue;
      if (load<u16>(SIMPLE2 + (<usize>(c - 0x80) << 1)) == 0) return 0;
      changed = true;
      // bits of later steps are kept too, at offsets from their own step: foldShort reads these only for a word of
      // at most 32 bytes, whose leads all lie in the first step
      caps |= bit;
    }
    w += <usize>k;
    if (k < 32 || w >= end) {
      scanAfter = k < 32 ? <u32>((tok & ~stop) >> k) : 0;
      break;
    }
  }
  scanLeads = leads;
  scanChanged = changed;
  scanCaps = caps;
  return w;
}

/**
 * Writes the word [`q`, `w`) that scanPlain found (UTF-16 offset `u`) as a token, hashed from the input as closeToken
 * would (ASCII capitals fold in the hash, as NFKC_Casefold folds them; a word with other capitals is spelled folded in
 * TOK first); returns its UTF-16 units, or 0 when it was changed and is too long for TOK (nothing written then). The
 * caller has checked there is room for a token.
 */
// @ts-ignore: decorator
@inline function writePlain(q: usize, w: usize, u: u32): u32 {
  const n = w - q;
  let at = q;
  if (scanChanged) {
    if (n <= 32) foldShort(q);
    else if (!foldLong(q, n)) return 0;
    at = TOK;
  }
  const h = n < 16 ? xxh64FoldedShort(at, n, tSeed) : xxh64Folded(at, n, tSeed); // 16 bytes at q or TOK are readable
  const units = <u32>n - scanLeads;
  const o = <usize>tCount << 2;
  store<u32>(tStarts + o, tBase + u);
  store<u32>(tEnds + o, tBase + u + units);
  store<u64>(tHashes + (o << 1), h);
  tCount++;
  return units;
}

/**
 * Spells the word of at most 32 bytes at `q` folded in TOK: its 32 bytes copied in two 16-byte steps (scanPlain has
 * read them, and TOK has the room), then each capital that scanPlain found (scanCaps; most such words hold one, at
 * their start) written as its letter. Only the capitals are visited: a byte-at-a-time loop over the whole word, with
 * a branch a byte, and a memory.copy call took longer than the word's scan.
 */
// @ts-ignore: decorator
@inline function foldShort(q: usize): void {
  if (ASC_FEATURE_SIMD) {
    v128.store(TOK, v128.load(q));
    v128.store(TOK, v128.load(q, 16), 16);
  } else {
    store<u64>(TOK, load<u64>(q));
    store<u64>(TOK, load<u64>(q, 8), 8);
    store<u64>(TOK, load<u64>(q, 16), 16);
    store<u64>(TOK, load<u64>(q, 24), 24);
  }
  let m = scanCaps;
  while (m != 0) {
    const j = <usize>ctz<u64>(m);
    m &= m - 1;
    const c = ((<u32>load<u8>(q + j) & 0x1F) << 6) | (<u32>load<u8>(q + j, 1) & 0x3F);
    const f = <u32>load<u16>(SIMPLE2 + (<usize>(c - 0x80) << 1));
    store<u8>(TOK + j, <u8>(0xC0 | (f >> 6)));
    store<u8>(TOK + j, <u8>(0x80 | (f & 0x3F)), 1);
  }
}

/**
 * Spells the word of `n` > 32 bytes at `q` folded in TOK, a byte at a time (each capital's two bytes become its
 * letter's); false when it is longer than TOK.
 */
function foldLong(q: usize, n: usize): bool {
  if (n > TOK_CAP) return false;
  memory.copy(TOK, q, n);
  for (let j: usize = 0; j < n; j++) {
    const b = <u32>load<u8>(TOK + j);
    if (b < 0xC0) continue;
    const m = <u32>load<u16>(SIMPLE2 + (<usize>((((b & 0x1F) << 6) | (<u32>load<u8>(TOK + j, 1) & 0x3F)) - 0x80) << 1));
    if (m != 0) {
      store<u8>(TOK + j, <u8>(0xC0 | (m >> 6)));
      store<u8>(TOK + j, <u8>(0x80 | (m & 0x3F)), 1);
    }
    j++;
  }
  return true;
}

// UTF-16 units from where plainWords started to where it stopped (globals: no multiple return values).
let wordUnits: u32 = 0;

/**
 * Words from `q0` (UTF-16 offset `u0`, no token open) that the normaliser leaves as they are (scanPlain), and the
 * ASCII separators between them: writes each word as a token — what emitToken would make of it code point by code
 * point, since each code point is a boundary (or INFO_SELF, or goes out as one) followed by one, or by the separator or
 * the end — and skips the separators, each a boundary followed by a boundary (they only end a token, and none is
 * open). Returns where it stopped (wordUnits: the UTF-16 units up to there): the end, or the ASCII separator after the
 * last word written, or the one before a word that is not such a word (fastRun looks at what follows it); 0 when the
 * word at `q0` is not such a word (nothing written then). The caller has checked there is room for a token.
 */
function plainWords(q0: usize, end: usize, u0: u32): usize {
  let q = q0;
  let u = u0;
  while (true) {
    const w = scanPlain(q, end);
    const units = w != 0 ? writePlain(q, w, u) : 0;
    if (units == 0) {
      if (q == q0) return 0;
      wordUnits = u - 1 - u0;
      return q - 1;
    }
    u += units;
    // the next word, if the last 16 bytes read show where it starts and there is room for its token
    const next = scanAfter & ~1; // (bit 0: the separator at w)
    if (w >= end || next == 0 || tCount >= tCap) {
      wordUnits = u - u0;
      return w;
    }
    const k = ctz<u32>(next);
    q = w + <usize>k;
    u += <u32>k; // ASCII separators: a unit each
  }
}

/**
 * nfkcTokens on a run of code points that each go out as they are or as their one-code-point mapping (isFast),
 * starting with the one decodeAt read at `i` (UTF-16 offset `u`): emits each whose next code point is fast too (or
 * that ends the text), exactly as the general loop would, reading each code point once into locals and extending a
 * token spelled in the input without a call. Stops at the end, before a run aloneRun takes, or at a code point whose
 * next one is not fast (then runFold: fold takes it with what follows); returns where (runU: the UTF-16 offset), or
 * 0 when the token room ran out or a changed token grew too long.
 */
function fastRun(i: usize, end: usize, u: u32): usize {
  let q = i;
  let uu = u;
  let c = dCp;
  let inf = dInfo;
  let b = dBytes;
  let n = dUnits;
  // the open token is spelled in the input and ends at q: a token character spelled as it is extends it (its end
  // and UTF-16 end are written back to tokRawEnd / tokenEnd before anything else reads them)
  let ext = inToken && tokRaw != 0 && tokRawEnd == q;
  let pending = false;
  let pendingEnd: usize = 0;
  let pendingU: u32 = 0;
  runFold = false;
  while (true) {
    if (!inToken && (b == 2 || (c < 0x80 && (inf & INFO_TOKEN) != 0))) {
      // a word may start here: words that need no normalising are written at once (plainWords)
      if (!closeToken()) return 0;
      if (tCount < tCap) {
        const w = plainWords(q, end, uu);
        if (w != 0) {
          q = w;
          uu += wordUnits;
          if (w >= end) break;
          c = <u32>load<u8>(w); // an ASCII separator
          inf = infoOf(c);
          b = 1;
          n = 1;
        }
      }
    }
    let nq = q + b;
    // the tail of an inert separator that findRegions rewrote as ' ' + 0xFF bytes (a no-break space or a guillemet
    // before ASCII: about 1,400 a MB of the mixed-script corpus): no code point and no UTF-16 unit, and what follows
    // it is ASCII, which joins nothing (fold skips it too), so the run goes on after it instead of ending at it
    while (nq < end && load<u8>(nq) == 0xFF) nq++;
    let c2: u32 = 0;
    let inf2: u32 = 0;
    let b2: usize = 1;
    let n2: u32 = 1;
    if (nq < end) {
      const lead = <u32>load<u8>(nq);
      if (lead < 0x80) c2 = lead;
      else if (lead < 0xE0) {
        c2 = ((lead & 0x1F) << 6) | (<u32>load<u8>(nq, 1) & 0x3F);
        b2 = 2;
      } else if (lead < 0xF0) {
        c2 = ((lead & 0x0F) << 12) | ((<u32>load<u8>(nq, 1) & 0x3F) << 6) | (<u32>load<u8>(nq, 2) & 0x3F);
        b2 = 3;
      } else if (lead == 0xFF) {
        c2 = 0xFFFD; // the tail of an inert separator (see fold): not fast
      } else {
        c2 = ((lead & 0x07) << 18) | ((<u32>load<u8>(nq, 1) & 0x3F) << 12) | ((<u32>load<u8>(nq, 2) & 0x3F) << 6) |
          (<u32>load<u8>(nq, 3) & 0x3F);
        b2 = 4;
        n2 = 2;
      }
      inf2 = infoOf(c2);
      if (c2 == 0xFFFD || !isFast(inf2)) {
        runFold = true;
        break;
      }
    }
    if (ext && (inf & (INFO_SIMPLE | INFO_TOKEN | INFO_STANDS_ALONE)) == INFO_TOKEN) {
      // the hot path: one more character of a token spelled in the input
      pending = true;
      pendingEnd = nq;
      pendingU = uu + n;
    } else {
      if (pending) {
        tokRawEnd = pendingEnd;
        if (pendingU > tokenEnd) tokenEnd = pendingU;
        pending = false;
      }
      let ec = c;
      let einf = inf;
      let raw = q;
      if (inf & INFO_SIMPLE) {
        const m = simpleAt(inf);
        ec = load<u32>(poolPtr + m);
        einf = load<u32>(poolInfoPtr + m);
        raw = 0;
      }
      if (!emitToken(ec, einf, uu, uu + n, raw, b)) return 0;
      ext = inToken && tokRaw != 0 && tokRawEnd == nq;
    }
    q = nq;
    uu += n;
    if (nq >= end) break;
    c = c2;
    inf = inf2;
    b = b2;
    n = n2;
    if (b == 3 && aloneAsItIs(inf)) break; // aloneRun's
  }
  if (pending) {
    tokRawEnd = pendingEnd;
    if (pendingU > tokenEnd) tokenEnd = pendingU;
  }
  runU = uu;
  return q;
}

/**
 * The loop of nfkcTokens over the bytes from `p` (UTF-16 offset `u0` in the region, no token open) to `end`; false
 * when the host must normalise the text itself.
 *
 * Most code points are boundaries followed by a boundary (CJK, most lower-case letters, ASCII), or map to one such
 * (capitals, fullwidth forms): NFC leaves such a code point alone, so it goes straight to the output (aloneRun,
 * fastRun); only the clusters around the others (letters that decompose, marks, Hangul, seconds of compositions)
 * go through fold's scratch arrays.
 */
function normaliseRun(p: usize, end: usize, u0: u32): bool {
  inToken = false;
  tokenEnd = 0;
  let i = p;
  let u = u0;
  if (i < end) decodeAt(i);
  while (i < end) {
    if (dBytes == 3 && aloneAsItIs(dInfo)) {
      // a run of 3-byte code points that stand alone (ideographs, kana): each but the last (which fastRun takes) is a
      // token of its own
      const stop = aloneRun(i, end, u);
      if (stop == 0) return false;
      u = runU;
      i = stop;
    }
    if (dFast) {
      const stop = fastRun(i, end, u);
      if (stop == 0) return false;
      i = stop;
      u = runU;
      if (!runFold) {
        if (i < end) decodeAt(i);
        continue;
      }
      // the code point at i joins what follows it: fold takes them together
    }
    const n = fold(i, end, u);
    if (n == NFKC_FALLBACK) return false;
    i = foldNext;
    u = foldNextU;
    for (let j: u32 = 0; j < n; j++) {
      const jo = <usize>j << 2;
      const c = load<u32>(S_CP + jo);
      const inf = load<u32>(S_INFO + jo);
      const s = load<u32>(S_START + jo);
      const e = load<u32>(S_END + jo);
      if (!emitToken(c, inf, s, e, 0, 0)) return false;
    }
    if (i < end) decodeAt(i);
  }
  return true;
}

/**
 * The word tokens of the `len` bytes of UTF-8 at `p` (a region of findRegions starting at UTF-16 offset `base` of
 * the text), exactly those the tokenizer finds in normalize(region).text, mapped through its map: for token i its start
 * and end in the text (u32 at `startsPtr`, `endsPtr`) and the XXH64 (`seed`) of its normalised UTF-8 (u64 at
 * `hashesPtr`). Writes at most `cap` tokens. Returns the token count, or 0xFFFFFFFF when the host must normalise
 * the region itself (see the top of this file; also when a changed token is over 2 KiB). `checked` not 0: the host has
 * found no lone surrogate in the region's text, so its U+FFFD are its own and are normalised here.
 */
export function nfkcTokens(
  p: usize, len: usize, base: u32, seed: u64, startsPtr: usize, endsPtr: usize, hashesPtr: usize, cap: u32,
  checked: u32,
): u32 {
  if (!ready) return NFKC_FALLBACK;
  replacementsChecked = checked != 0;
  tStarts = startsPtr;
  tEnds = endsPtr;
  tHashes = hashesPtr;
  tCount = 0;
  tCap = cap;
  tBase = base;
  tSeed = seed;
  tReadable = (<usize>memory.size()) << 16;
  tokOpen = false;
  const end = p + len;
  let from = p;
  let u: u32 = 0;
  // A short region is most often an ASCII separator and one word whose letters need no normalising (' über', ' déjà';
  // about half of the regions of mixed-script prose): such words are written at once, before the general loop's set-up
  // (decodeAt, fastRun's first steps over the separator), which cost more than the word.
  const b0 = len > 0 ? <u32>load<u8>(p) : 0;
  const sep0: u32 = len > 1 && b0 < 0x80 && !isAsciiTokenByte(b0) ? 1 : 0;
  if (len > sep0) {
    const b1 = <u32>load<u8>(p + sep0);
    if (b1 >= 0xC0 || (b1 < 0x80 && isAsciiTokenByte(b1))) {
      const w = plainWords(p + sep0, end, sep0);
      if (w != 0) {
        // the words are written and no token is open: what is left starts at an ASCII separator (or is empty)
        from = w;
        u = sep0 + wordUnits;
      }
    }
  }
  if (!normaliseRun(from, end, u) || !closeToken()) return NFKC_FALLBACK;
  return tCount;
}

/** Whether the ASCII byte `b` is a letter or a digit (a token byte). */
// @ts-ignore: decorator
@inline function isAsciiTokenByte(b: u32): bool {
  return b - 0x30 < 10 || (b | 0x20) - 0x61 < 26;
}
