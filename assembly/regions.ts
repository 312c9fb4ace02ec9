// Regions of a UTF-8 text that need the Unicode normaliser (nfkc.ts; TypeScript's normalize is the reference).
//
// The core tokenises ASCII itself. A non-ASCII character needs the normaliser unless it is an
// "inert separator" followed by an ASCII byte (or the end): no-break spaces, curly quotes,
// dashes, bullets, C1 controls… — characters whose NFKC_Casefold is non-empty and holds no
// token character, with combining class 0 and never the second half of a canonical composition
// (src/fingerprint/prepare.ts lists them; test/unit/prepare.test.ts checks each against the
// Unicode tables). Those act exactly like an ASCII separator, so the tokenizer skips them.
//
// Every other non-ASCII character is a trigger. A region is the maximal run of ASCII letters,
// digits and non-inert non-ASCII characters around triggers, plus the one ASCII separator just
// before it (NFC composes '=' + U+0338 into '≠'); no canonical composition has an ASCII second
// character, so the right edge needs no such care. Record r (8 × u32 at out + 32·r):
//   [0] byte start  [1] byte end  [2] UTF-16 start  [3] UTF-16 end  [4] 0, or where the host put the region's
//   normalised UTF-8 when the core handed it back  [5] that text's byte length  [6..7] free (see tokenizeRegions).

import { nfkcTokens } from './nfkc';
import { anyHigh, finishStretches, startStretches, tokenize, tokenizeStretch, tokMask } from './tokenize';

// Bit i set: U+0080 + i is inert (i < 128); U+2000 + (i - 128) (i < 256); U+3000 + (i - 256) (i < 320);
// bit 320: U+2212 MINUS SIGN.
// Kept in step with INERT_SEPARATORS in src/fingerprint/prepare.ts (an ABI test compares them).
const INERT: usize = memory.data(48);

// @ts-ignore: decorator
@inline function setBit(i: u32): void {
  store<u8>(INERT + (i >> 3), <u8>(<u32>load<u8>(INERT + (i >> 3)) | (<u32>1 << (i & 7))));
}

let inertReady = false;

/** Mark code points `lo..hi` (inclusive) inert; called by the host once (see prepare.ts). */
export function setInert(lo: u32, hi: u32): void {
  for (let cp = lo; cp <= hi; cp++) {
    if (cp >= 0x80 && cp < 0x100) setBit(cp - 0x80);
    else if (cp >= 0x2000 && cp < 0x2080) setBit(cp - 0x2000 + 128);
    else if (cp >= 0x3000 && cp < 0x3040) setBit(cp - 0x3000 + 256);
    else if (cp == 0x2212) setBit(320);
  }
  inertReady = true;
}

// @ts-ignore: decorator
@inline function isInert(cp: u32): bool {
  let i: u32;
  if (cp < 0x100) i = cp - 0x80;
  else if (cp == 0x2212) i = 320;
  else if (cp - 0x2000 < 0x80) i = cp - 0x2000 + 128;
  else if (cp - 0x3000 < 0x40) i = cp - 0x3000 + 256;
  else return false;
  return (load<u8>(INERT + (i >> 3)) >> (i & 7)) & 1 ? true : false;
}

// @ts-ignore: decorator
@inline function isAsciiAlnum(b: u32): bool {
  return (b - 0x30 < 10) || ((b | 0x20) - 0x61 < 26);
}

/**
 * The 2- or 3-byte character with lead byte `b` at `at` (of a text ending at `end`), rewritten in place as ' ' +
 * 0xFF… when it is an inert separator followed by ASCII or the end; true when it was. The tokenizer reads 0xFF
 * (never in UTF-8) as a separator worth 0 UTF-16 units, so offsets stay those of the original text.
 */
// @ts-ignore: decorator
@inline function rewriteInert(at: usize, b: u32, end: usize): bool {
  const cpBytes: usize = b < 0xE0 ? 2 : 3;
  const cp: u32 = cpBytes == 2
    ? ((b & 0x1F) << 6) | (<u32>load<u8>(at, 1) & 0x3F)
    : ((b & 0x0F) << 12) | ((<u32>load<u8>(at, 1) & 0x3F) << 6) | (<u32>load<u8>(at, 2) & 0x3F);
  const next = at + cpBytes;
  if (!isInert(cp) || (next < end && load<u8>(next) >= 0x80)) return false;
  store<u8>(at, 0x20);
  for (let j: usize = 1; j < cpBytes; j++) store<u8>(at + j, 0xFF);
  return true;
}

// Outputs of blockMasks (globals: no multiple return values), bit k for byte k of the block.
let maskHigh: u64 = 0; // bytes >= 0x80
let maskCont: u64 = 0; // continuation bytes (0x80..0xBF): no UTF-16 unit of their own
let maskLead4: u64 = 0; // lead bytes of 4-byte characters: two UTF-16 units
let maskCheck: u64 = 0; // lead bytes of characters that may be inert separators (see blockMasks)

/**
 * SIMD: the masks above for the 64 bytes at `b`; false when the block holds a 0xFF byte (the tail of a separator
 * rewritten by an earlier call: left to the byte loop). Inert separators lie in U+0080..U+00FF, U+2000..U+207F,
 * U+2212 and U+3000..U+303F: behind lead bytes C2-C3, E2, and E3 followed by 0x80 — maskCheck (an E3 in the last
 * byte counts: its next byte is in the next block). Every other non-ASCII character is a trigger, known without
 * decoding it.
 */
// @ts-ignore: decorator
@inline function blockMasks(b: usize): bool {
  if (ASC_FEATURE_SIMD) {
    // 0xF0..0xFF is rare (astral characters, or a rewritten tail): one test for the block, its masks only then
    const top = i8x16.max_u(
      i8x16.max_u(v128.load(b), v128.load(b, 16)),
      i8x16.max_u(v128.load(b, 32), v128.load(b, 48)),
    );
    let l4: u64 = 0;
    if (i8x16.bitmask(i8x16.ge_u(top, i8x16.splat(<i8>0xF0))) != 0) {
      if (v128.any_true(i8x16.eq(top, i8x16.splat(-1)))) return false;
      for (let k = 0; k < 4; k++) {
        const v = v128.load(b + (<usize>k << 4));
        l4 |= (<u64><u32>i8x16.bitmask(i8x16.ge_u(v, i8x16.splat(<i8>0xF0)))) << (<u64>k << 4);
      }
    }
    let hi: u64 = 0, co: u64 = 0, check: u64 = 0;
    for (let k = 0; k < 4; k++) {
      const at = b + (<usize>k << 4);
      const v = v128.load(at);
      // the byte after each byte; past the block's end 0x80, so an E3 in its last byte is checked whatever follows
      const next = k < 3
        ? v128.load(at, 1)
        : i8x16.shuffle(v, i8x16.splat(<i8>0x80), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
      const sh = <u64>k << 4;
      hi |= (<u64><u32>i8x16.bitmask(v)) << sh;
      co |= (<u64><u32>i8x16.bitmask(i8x16.lt_s(v, i8x16.splat(-64)))) << sh; // 0x80..0xBF
      // lead bytes C2, C3 or E2, and E3 followed by 0x80
      const c23 = i8x16.eq(v128.and(v, i8x16.splat(<i8>0xFE)), i8x16.splat(<i8>0xC2));
      const e2 = i8x16.eq(v, i8x16.splat(<i8>0xE2));
      const e380 = v128.and(i8x16.eq(v, i8x16.splat(<i8>0xE3)), i8x16.eq(next, i8x16.splat(<i8>0x80)));
      check |= (<u64><u32>i8x16.bitmask(v128.or(v128.or(c23, e2), e380))) << sh;
    }
    maskHigh = hi;
    maskCont = co;
    maskLead4 = l4;
    maskCheck = check;
    return true;
  }
  return false;
}

/** The UTF-16 units of the block allWide last took (its lead bytes). */
let wideUnits: u32 = 0;

/**
 * SIMD: true when the 64 bytes at `b` are all in 0x80..0xEF and the 4 after them (which must be readable) are
 * >= 0x80: no ASCII, no 4-byte character, no rewritten separator's 0xFF, and nothing an inert separator could be
 * rewritten for. Leaves the block's UTF-16 units (its bytes >= 0xC0) in wideUnits.
 */
// @ts-ignore: decorator
@inline function allWide(b: usize): bool {
  if (ASC_FEATURE_SIMD) {
    const v0 = v128.load(b);
    const v1 = v128.load(b, 16);
    const v2 = v128.load(b, 32);
    const v3 = v128.load(b, 48);
    const lo = i8x16.min_u(i8x16.min_u(v0, v1), i8x16.min_u(v2, v3));
    const hi = i8x16.max_u(i8x16.max_u(v0, v1), i8x16.max_u(v2, v3));
    if (
      i8x16.bitmask(v128.and(lo, i8x16.lt_u(hi, i8x16.splat(<i8>0xF0)))) != 0xFFFF ||
      (load<u32>(b, 64) & 0x80808080) != 0x80808080
    ) {
      return false;
    }
    // lead bytes (>= 0xC0: below -64 as i8 is a continuation byte)
    const lead = i8x16.splat(-65);
    wideUnits =
      popcnt<u32>(
        <u32>i8x16.bitmask(i8x16.gt_s(v0, lead)) | (<u32>i8x16.bitmask(i8x16.gt_s(v1, lead)) << 16),
      ) +
      popcnt<u32>(<u32>i8x16.bitmask(i8x16.gt_s(v2, lead)) | (<u32>i8x16.bitmask(i8x16.gt_s(v3, lead)) << 16));
    return true;
  }
  return false;
}

/** UTF-16 units of the first `k` bytes (0..64) of a block read by blockMasks (k at a character boundary). */
// @ts-ignore: decorator
@inline function unitsBefore(k: u64): u32 {
  const below = k >= 64 ? <u64>-1 : (<u64>1 << k) - 1;
  return <u32>k - <u32>popcnt<u64>(maskCont & below) + <u32>popcnt<u64>(maskLead4 & below);
}

/**
 * Whether every word holding a trigger in the 64-byte block at `b` (`marks`: its non-ASCII bytes inside words) would
 * merge into the region that ended at `prevEndB`, so the block needs no separator-by-separator walk. A word's gap to
 * the region before it is shorter than the run of mark-free bytes before its first mark, so it is enough that the
 * first mark lies at most MERGE_GAP bytes after `prevEndB` and no run of more than MERGE_GAP mark-free bytes lies
 * between two marks. (A word still open at the block's start ends after `prevEndB` and before the first mark of the
 * next word, so the first test covers its gaps too.)
 */
// @ts-ignore: decorator
@inline function extendsRegion(b: usize, marks: u64, prevEndB: usize): bool {
  if (marks == 0 || b + <usize>ctz<u64>(marks) - prevEndB > MERGE_GAP) return false;
  // runs of MERGE_GAP + 1 = 33 mark-free bytes up to the last mark: each step doubles the run a set bit stands for
  const top = <u64>(63 - clz<u64>(marks));
  let z = ~marks & (top >= 63 ? <u64>-1 : (<u64>2 << top) - 1);
  z &= z >> 1;
  z &= z >> 2;
  z &= z >> 4;
  z &= z >> 8;
  z &= z >> 16;
  z &= z >> 1;
  return z == 0;
}

/**
 * Find the normaliser regions of `len` UTF-8 bytes at `p` (well-formed UTF-8) and rewrite every
 * inert separator outside them to ' ' followed by 0xFF bytes (so: call it once per text). Writes
 * up to `cap` records at `outPtr` and returns how many regions there are (when that exceeds
 * `cap`, the records past `cap` were not written; the rewrite is complete either way).
 * Returns 0xFFFFFFFF when the inert table was never set.
 */
export function findRegions(p: usize, len: usize, outPtr: usize, cap: u32): u32 {
  if (!inertReady) return 0xFFFFFFFF;
  const end = p + len;
  let i = p;
  let u: u32 = 0;
  let n: u32 = 0;
  let wordB = p; // start of the current word (bytes / UTF-16)
  let wordU: u32 = 0;
  let asciiSepBefore = false; // the byte before the word is an ASCII separator
  let trigger = false; // the current word holds a character that needs the normaliser
  let prevEndB = p; // end of the previous region (a region never starts before it)
  while (true) {
    // Fast path: 64 ASCII bytes at a time, acting only on their separators.
    if (end - i >= 64 && !anyHigh(i)) {
      const sep = ~tokMask(i);
      if (sep != 0) {
        if (trigger) {
          const k = <usize>ctz<u64>(sep);
          n = emitRegion(outPtr, cap, n, p, wordB, wordU, asciiSepBefore, prevEndB, i + k, u + <u32>k);
          prevEndB = i + k;
          trigger = false;
        }
        const last = <usize>(63 - clz<u64>(sep));
        wordB = i + last + 1;
        wordU = u + <u32>last + 1;
        asciiSepBefore = true;
      }
      i += 64;
      u += 64;
      continue;
    }
    // SIMD: a block of 64 bytes of one-, two- and three-byte characters' lead and continuation bytes, none ASCII, and
    // the 4 bytes after it non-ASCII too (runs of ideographs and kana with their punctuation): it holds no separator,
    // and no inert one can be rewritten (each character in it is followed by a non-ASCII byte), so it only makes its
    // word a trigger and moves the UTF-16 offset on by its lead bytes.
    if (ASC_FEATURE_SIMD && end - i >= 68 && allWide(i)) {
      trigger = true;
      i += 64;
      u += wideUnits;
      continue;
    }
    // SIMD: a block with non-ASCII characters (CJK, Cyrillic, Greek…), acting only on its separators as the byte loop
    // below would: ASCII separators, and inert separators followed by ASCII (rewritten here). Its last character may
    // run past the block: the next block starts with its continuation bytes, word bytes of no UTF-16 unit.
    if (ASC_FEATURE_SIMD && end - i >= 64 && blockMasks(i)) {
      const hi = maskHigh; // high bytes inside words (separators are never inside one)
      let sep = ~tokMask(i); // ASCII separators (tokMask counts every high byte a token byte)
      let inert: u64 = 0; // bytes of rewritten inert separators
      let check = maskCheck;
      while (check != 0) {
        const k = ctz<u64>(check);
        check &= check - 1;
        const b = <u32>load<u8>(i + <usize>k);
        if (rewriteInert(i + <usize>k, b, end)) {
          // its bytes inside this block are separators now (a tail past the block is the next block's 0xFF)
          const bits = ((<u64>1 << (b < 0xE0 ? 2 : 3)) - 1) << k;
          sep |= bits;
          inert |= bits;
        }
      }
      const marks = hi & ~sep; // non-ASCII bytes inside words: each makes its word a trigger
      if (n > 0 && extendsRegion(i, marks, prevEndB)) {
        // Every trigger word of the block merges into the open region (prose in one script): only the last word's
        // end and the start of the last word are needed, not each separator's.
        if (sep != 0) {
          const lastSep = <u64>(63 - clz<u64>(sep));
          // the last word closed in this block that holds a trigger ends at the first separator after its last mark
          const closed = marks & ((<u64>1 << lastSep) - 1);
          let e: i64 = -1;
          if (closed != 0) {
            const m = <u64>(63 - clz<u64>(closed));
            e = <i64>(m + 1 + ctz<u64>(sep >> (m + 1)));
          } else if (trigger) e = <i64>ctz<u64>(sep); // the word open at the block's start
          if (e >= 0) {
            const endU = u + unitsBefore(<u64>e);
            if (n - 1 < cap) {
              const o = outPtr + (<usize>(n - 1) << 5);
              store<u32>(o, <u32>(i + <usize>e - p), 4);
              store<u32>(o, endU, 12);
            }
            prevEndB = i + <usize>e;
          }
          trigger = (marks >> lastSep) != 0;
          wordB = i + <usize>lastSep + 1;
          wordU = u + unitsBefore(lastSep + 1);
          asciiSepBefore = ((inert >> lastSep) & 1) == 0;
        } else if (marks != 0) trigger = true;
        i += 64;
        u += unitsBefore(64);
        continue;
      }
      // Otherwise word by word, only from the words holding a trigger: with none open, the separators before the next
      // mark only move the start of the word that holds it.
      let pos: u64 = 0;
      while (pos < 64) {
        if (!trigger) {
          const ahead = marks >> pos;
          const seps = ahead == 0 ? sep >> pos : (sep >> pos) & ((<u64>1 << ctz<u64>(ahead)) - 1);
          if (seps != 0) {
            // the word holding the next mark (or the block's last word) starts after the last of these separators
            const last = pos + <u64>(63 - clz<u64>(seps));
            wordB = i + <usize>last + 1;
            wordU = u + unitsBefore(last + 1);
            asciiSepBefore = ((inert >> last) & 1) == 0;
          }
          if (ahead == 0) break;
          trigger = true;
          pos += ctz<u64>(ahead);
        }
        // the word holding a trigger ends at the next separator, if it is in this block
        const rest = sep >> pos;
        if (rest == 0) break;
        const k = pos + ctz<u64>(rest);
        n = emitRegion(outPtr, cap, n, p, wordB, wordU, asciiSepBefore, prevEndB, i + <usize>k, u + unitsBefore(k));
        prevEndB = i + <usize>k;
        trigger = false;
        // past the run of separators from k: the next word starts at j
        const tokAfter = k < 63 ? ~sep >> (k + 1) : 0;
        const j: u64 = tokAfter == 0 ? 64 : k + 1 + ctz<u64>(tokAfter);
        wordB = i + <usize>j;
        wordU = u + unitsBefore(j);
        asciiSepBefore = ((inert >> (j - 1)) & 1) == 0;
        pos = j;
      }
      i += 64;
      u += unitsBefore(64);
      continue;
    }
    // Otherwise one character at a time up to the end of this 64-byte stretch.
    const stop = end - i > 64 ? i + 64 : end;
    while (i < stop) {
      const b = <u32>load<u8>(i);
      let sep = true;
      let cpBytes: usize = 1;
      let units: u32 = 1;
      if (b < 0x80) {
        sep = !isAsciiAlnum(b);
      } else if (b < 0xC0) {
        // a continuation byte: the tail of a character that began in a block read as a whole (above)
        sep = false;
        units = 0;
      } else if (b == 0xFF) {
        units = 0; // the tail of an inert separator rewritten by an earlier call
      } else if (b >= 0xF0) {
        cpBytes = 4; // astral: two UTF-16 units, never inert
        units = 2;
        sep = false;
        trigger = true;
      } else {
        cpBytes = b < 0xE0 ? 2 : 3;
        if (!rewriteInert(i, b, end)) {
          sep = false;
          trigger = true;
        }
      }
      if (sep) {
        if (trigger) {
          n = emitRegion(outPtr, cap, n, p, wordB, wordU, asciiSepBefore, prevEndB, i, u);
          prevEndB = i;
          trigger = false;
        }
        asciiSepBefore = b < 0x80;
        i += cpBytes;
        u += units;
        wordB = i;
        wordU = u;
      } else {
        i += cpBytes;
        u += units;
      }
    }
    if (i >= end) break;
  }
  if (trigger) n = emitRegion(outPtr, cap, n, p, wordB, wordU, asciiSepBefore, prevEndB, end, u);
  return n;
}

/** Regions separated by at most this many bytes are merged into one. */
// @ts-ignore: decorator
@inline const MERGE_GAP: usize = 32;

// @ts-ignore: decorator
@inline function emitRegion(outPtr: usize, cap: u32, n: u32, p: usize, wordB: usize, wordU: u32, asciiSepBefore: bool, prevEndB: usize, endB: usize, endU: u32): u32 {
  if (n > 0 && wordB - prevEndB <= MERGE_GAP) {
    // Close to the previous region: extend it over the gap instead (one normaliser call for a
    // whole run of Cyrillic or Greek words rather than one per word; ASCII inside a region is
    // normalised to the same tokens the core would make).
    if (n - 1 < cap) {
      const o = outPtr + (<usize>(n - 1) << 5);
      store<u32>(o, <u32>(endB - p), 4);
      store<u32>(o, endU, 12);
    }
    return n;
  }
  let sb = wordB;
  let su = wordU;
  if (asciiSepBefore && sb - 1 >= prevEndB) { sb--; su--; }
  if (n < cap) {
    const o = outPtr + (<usize>n << 5);
    store<u32>(o, <u32>(sb - p));
    store<u32>(o, <u32>(endB - p), 4);
    store<u32>(o, su, 8);
    store<u32>(o, endU, 12);
    store<u32>(o, 0, 16); // no host-normalised text (yet): see tokenizeRegions
    store<u32>(o, 0, 24); // its U+FFFD not checked by the host (yet)
  }
  return n + 1;
}

/** Returned by tokenizeRegions when the host must normalise region {@link failedRegion} itself. */
// @ts-ignore: decorator
@inline const REGION_FALLBACK: u32 = 0xFFFFFFFF;

let failed: u32 = 0;

/** The region that made the last tokenizeRegions return 0xFFFFFFFF. */
export function failedRegion(): u32 {
  return failed;
}

/**
 * Tokenise a text whose regions were found by `findRegions`: the stretches between regions are tokenised from the
 * main buffer (UTF-16 offsets of the original text), each region by nfkcTokens straight from its UTF-8 (its tokens'
 * offsets those of the original text too), or, when the host normalised it (record word [4] not 0), from the
 * normalised UTF-8 at record words [4] (pointer) and [5] (byte length), its offsets then local to that text. Record
 * word [6] not 0: the host found no lone surrogate in the region, and nfkcTokens takes its U+FFFD as they are. For
 * region r writes the indices of its first and one-past-last token to `firstTokPtr` + 8·r (2 × u32). Returns the
 * token count, or 0xFFFFFFFF when region failedRegion() needs the host (nfkcTokens gave up on it): the host
 * normalises it and fills its words [4] and [5], or sets word [6] when what it holds is a U+FFFD of the text's own, and
 * calls again with `from` = that region and `n0` = its first token (written at `firstTokPtr`), which carries on from
 * there.
 *
 * Room: each stretch of b bytes gives at most ⌈b / 2⌉ tokens, and nfkcTokens may write up to ⌊b / 2⌋ + 1 for a
 * region of b bytes (it hands back a region that would need more), so `(len >> 1) + 2 · regions + 2` tokens always
 * suffice for the regions left to the core; a host-normalised region of t bytes needs ⌊t / 2⌋ + 1.
 */
export function tokenizeRegions(
  p: usize, len: usize, seed: u64, regPtr: usize, regions: u32, startsPtr: usize, endsPtr: usize, hashesPtr: usize,
  firstTokPtr: usize, from: u32, n0: u32,
): u32 {
  let n = n0;
  // the stretches' tokens may read past their stretch, up to the end of memory (see tokenizeStretch)
  const readable = (<usize>memory.size()) << 16;
  startStretches();
  for (let r = from; r <= regions; r++) {
    const o = regPtr + (<usize>r << 5);
    if (r > from || n0 == 0) {
      // the stretch before region r (after region r - 1)
      const pos: usize = r > 0 ? <usize>load<u32>(o - 32, 4) : 0;
      const u: u32 = r > 0 ? load<u32>(o - 32, 12) : 0;
      const segEnd: usize = r < regions ? <usize>load<u32>(o) : len;
      n = tokenizeStretch(p + pos, segEnd - pos, readable, seed, u, startsPtr, endsPtr, hashesPtr, n);
    }
    if (r == regions) break;
    store<u32>(firstTokPtr + (<usize>r << 3), n);
    const s = startsPtr + (<usize>n << 2);
    const e = endsPtr + (<usize>n << 2);
    const h = hashesPtr + (<usize>n << 3);
    const text = <usize>load<u32>(o, 16);
    let k: u32;
    if (text != 0) k = tokenize(text, <usize>load<u32>(o, 20), seed, s, e, h);
    else {
      const b0 = load<u32>(o);
      const bytes = load<u32>(o, 4) - b0;
      k = nfkcTokens(p + <usize>b0, <usize>bytes, load<u32>(o, 8), seed, s, e, h, (bytes >> 1) + 1, load<u32>(o, 24));
      if (k == REGION_FALLBACK) {
        finishStretches(seed, startsPtr, endsPtr, hashesPtr, readable);
        failed = r;
        return REGION_FALLBACK;
      }
    }
    n += k;
    store<u32>(firstTokPtr + (<usize>r << 3), n, 4);
  }
  finishStretches(seed, startsPtr, endsPtr, hashesPtr, readable);
  return n;
}
