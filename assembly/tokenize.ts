// Word tokenizer over UTF-8 with UTF-16 offsets.
//
// Contract with the host (src/fingerprint/words.ts): the bytes are either raw text outside the
// normaliser's regions — ASCII (tokens are [A-Za-z0-9]+, folded to lower case while hashing) plus
// inert separators rewritten by findRegions as ' ' + 0xFF bytes — or a region's normalised text,
// "token token token" in lower-case NFKC_CF. So a byte >= 0x80 other than 0xFF is part of a token,
// 0xFF and every ASCII byte other than [A-Za-z0-9] separate tokens, and one classification serves
// both.
//
// Offsets are counted in UTF-16 code units (JavaScript string indices) while scanning, so the
// host never converts byte offsets: a lead byte of a 4-byte sequence adds 2 (a surrogate pair),
// other lead bytes and ASCII add 1, continuation bytes add 0.
//
// The scan works on 64-byte blocks: one u64 bit mask of token bytes per block (SIMD128: four
// i8x16 compares + bitmask; scalar: SWAR on eight u64 words), so token starts and ends fall out
// of `tok & ~(tok << 1)` and `~tok & (tok << 1)` and are walked with ctz. The UTF-16 offset of
// byte k of a block is the block's offset + k − (continuation bytes before k) + (4-byte leads
// before k), two popcnts, and both masks are zero in a pure-ASCII block. The block loop never
// reads past the input: the last partial block is copied into a scratch block padded with spaces.

import { xxh64AsciiShort, xxh64AsciiUnder8, xxh64Folded, xxh64FoldedShort } from './hash/xxh64';

// The last (partial, possibly empty) block of an input, padded with separators.
const TAIL: usize = memory.data(64, 16);

// @ts-ignore: decorator
@inline const H8: u64 = 0x8080808080808080;
// @ts-ignore: decorator
@inline const L7: u64 = 0x7F7F7F7F7F7F7F7F;
// @ts-ignore: decorator
@inline const GATHER: u64 = 0x0102040810204080;

/** Scalar: bit i set iff the high bit of byte i of `x` is set (x has only high bits). */
// @ts-ignore: decorator
@inline function gather8(x: u64): u64 {
  return ((x >> 7) * GATHER) >> 56;
}

/** Scalar: high bit of each byte of `x` set iff the byte is a token byte ([0-9A-Za-z] or >= 0x80). */
// @ts-ignore: decorator
@inline function tokBytes(x: u64): u64 {
  const a = x & L7;
  const f = a | 0x2020202020202020;
  const letter = (f + 0x1F1F1F1F1F1F1F1F) & ~(f + 0x0505050505050505); // 0x61 <= f <= 0x7a
  const digit = (a + 0x5050505050505050) & ~(a + 0x4646464646464646); // 0x30 <= a <= 0x39
  return (letter | digit | x) & H8;
}

/** SIMD: 16-bit mask of the token bytes of `v`. */
// @ts-ignore: decorator
@inline function tok16(v: v128): u64 {
  const f = v128.or(v, i8x16.splat(0x20));
  // unsigned range checks as signed compares after a shift by -(lo + 0x80)
  const letter = i8x16.lt_s(i8x16.sub(f, i8x16.splat(<i8>0xE1)), i8x16.splat(-102)); // 0x61..0x7a
  const digit = i8x16.lt_s(i8x16.sub(v, i8x16.splat(<i8>0xB0)), i8x16.splat(-118)); // 0x30..0x39
  return <u64><u32>i8x16.bitmask(v128.or(v128.or(letter, digit), v));
}

// Outputs of masks16 beside its result (globals: no multiple return values), bit k for byte k.
export let lead16: u32 = 0; // lead bytes (>= 0xC0)
export let wide16: u32 = 0; // lead bytes of 3- and 4-byte characters, and 0xFF (>= 0xE0)

/**
 * Mask of the token bytes of the 16 bytes at `b` (bit k for byte k); their lead bytes and wide lead bytes in lead16 and
 * wide16. For the normaliser's words that need no normalising (nfkc.ts).
 */
// @ts-ignore: decorator
@inline export function masks16(b: usize): u32 {
  if (ASC_FEATURE_SIMD) {
    const v = v128.load(b);
    lead16 = <u32>i8x16.bitmask(i8x16.ge_u(v, i8x16.splat(<i8>0xC0)));
    wide16 = <u32>i8x16.bitmask(i8x16.ge_u(v, i8x16.splat(<i8>0xE0)));
    return <u32>tok16(v);
  } else {
    const x = load<u64>(b);
    const y = load<u64>(b, 8);
    // a byte's top bits: bit 7 and 6 set (>= 0xC0), and bit 5 too (>= 0xE0)
    const lx = x & (x << 1);
    const ly = y & (y << 1);
    lead16 = <u32>(gather8(lx & H8) | (gather8(ly & H8) << 8));
    wide16 = <u32>(gather8(lx & (x << 2) & H8) | (gather8(ly & (y << 2) & H8) << 8));
    return <u32>(gather8(tokBytes(x)) | (gather8(tokBytes(y)) << 8));
  }
}

/** Mask of the token bytes of the 64 bytes at `b`. */
// @ts-ignore: decorator
@inline export function tokMask(b: usize): u64 {
  if (ASC_FEATURE_SIMD) {
    return tok16(v128.load(b)) | (tok16(v128.load(b, 16)) << 16) |
      (tok16(v128.load(b, 32)) << 32) | (tok16(v128.load(b, 48)) << 48);
  } else {
    return gather8(tokBytes(load<u64>(b))) | (gather8(tokBytes(load<u64>(b, 8))) << 8) |
      (gather8(tokBytes(load<u64>(b, 16))) << 16) | (gather8(tokBytes(load<u64>(b, 24))) << 24) |
      (gather8(tokBytes(load<u64>(b, 32))) << 32) | (gather8(tokBytes(load<u64>(b, 40))) << 40) |
      (gather8(tokBytes(load<u64>(b, 48))) << 48) | (gather8(tokBytes(load<u64>(b, 56))) << 56);
  }
}

/** True when one of the 64 bytes at `b` is >= 0x80. */
// @ts-ignore: decorator
@inline export function anyHigh(b: usize): bool {
  if (ASC_FEATURE_SIMD) {
    const v = v128.or(v128.or(v128.load(b), v128.load(b, 16)), v128.or(v128.load(b, 32), v128.load(b, 48)));
    return i8x16.bitmask(v) != 0;
  } else {
    const v = (load<u64>(b) | load<u64>(b, 8) | load<u64>(b, 16) | load<u64>(b, 24)) |
      (load<u64>(b, 32) | load<u64>(b, 40) | load<u64>(b, 48) | load<u64>(b, 56));
    return (v & H8) != 0;
  }
}

/** UTF-8 continuation bytes (0x80..0xbf) of the 8 bytes `x`, as a byte mask of high bits. */
// @ts-ignore: decorator
@inline function contBytes(x: u64): u64 {
  return x & ~(x << 1) & H8;
}

/** Lead bytes of 4-byte sequences (0xf0..0xff) of the 8 bytes `x`, as a byte mask of high bits. */
// @ts-ignore: decorator
@inline function lead4Bytes(x: u64): u64 {
  return x & (x << 1) & (x << 2) & (x << 3) & H8;
}

// @ts-ignore: decorator
@inline function cont16(v: v128): u64 {
  return <u64><u32>i8x16.bitmask(i8x16.lt_s(v, i8x16.splat(-64)));
}

// @ts-ignore: decorator
@inline function lead4x16(v: v128): u64 {
  return <u64><u32>i8x16.bitmask(v128.and(i8x16.gt_s(v, i8x16.splat(-17)), v));
}

// @ts-ignore: decorator
@inline function ff16(v: v128): u64 {
  return <u64><u32>i8x16.bitmask(i8x16.eq(v, i8x16.splat(-1)));
}

/** Scalar: high bit of each byte of `x` set iff the byte is 0xFF (exact, no borrow across bytes). */
// @ts-ignore: decorator
@inline function ffBytes(x: u64): u64 {
  const y = ~x;
  return ~(((y & L7) + L7) | y) & H8;
}

// Outputs of highMasks (globals: AssemblyScript has no multiple return values).
let maskCont: u64 = 0;
let maskLead4: u64 = 0;
let maskFF: u64 = 0;

/**
 * The continuation bytes, the 4-byte lead bytes and the 0xFF bytes of the 64 bytes at `b`, as
 * bit masks in maskCont / maskLead4 / maskFF. 0xFF never occurs in UTF-8: findRegions
 * (regions.ts) writes it over the tail of an inert separator whose lead it replaced with ' ', and
 * the tokenizer reads it as a separator worth 0 UTF-16 units, so offsets stay the original's.
 * Only blocks holding a byte >= 0x80 need this.
 */
// @ts-ignore: decorator
@inline function highMasks(b: usize): void {
  let c: u64 = 0;
  let l: u64 = 0;
  let f: u64 = 0;
  if (ASC_FEATURE_SIMD) {
    for (let i = 0; i < 4; i++) {
      const v = v128.load(b + (<usize>i << 4));
      const sh = <u64>i << 4;
      c |= cont16(v) << sh;
      l |= lead4x16(v) << sh;
      f |= ff16(v) << sh;
    }
  } else {
    for (let i = 0; i < 8; i++) {
      const x = load<u64>(b + (<usize>i << 3));
      const sh = <u64>i << 3;
      c |= gather8(contBytes(x)) << sh;
      l |= gather8(lead4Bytes(x)) << sh;
      f |= gather8(ffBytes(x)) << sh;
    }
  }
  maskCont = c | f;
  maskLead4 = l & ~f;
  maskFF = f;
}

/** Copies the last `n` < 64 bytes at `p` into TAIL and pads it with spaces (separators). */
// @ts-ignore: decorator
@inline function fillTail(p: usize, n: usize): void {
  memory.fill(TAIL, 0x20, 64);
  memory.copy(TAIL, p, n);
}

/** Bit k set: byte k of the 64 at `b` is >= 0x80. */
// @ts-ignore: decorator
@inline function highBits(b: usize): u64 {
  if (ASC_FEATURE_SIMD) {
    return <u64><u32>i8x16.bitmask(v128.load(b)) | (<u64><u32>i8x16.bitmask(v128.load(b, 16)) << 16) |
      (<u64><u32>i8x16.bitmask(v128.load(b, 32)) << 32) | (<u64><u32>i8x16.bitmask(v128.load(b, 48)) << 48);
  } else {
    let m: u64 = 0;
    for (let i = 0; i < 8; i++) m |= gather8(load<u64>(b + (<usize>i << 3)) & H8) << (<u64>i << 3);
    return m;
  }
}

/**
 * Token-byte mask of the 64-byte block at `b`, 0xFF bytes cleared; leaves the block's continuation and 4-byte-lead
 * masks in maskCont / maskLead4 (both 0 for a pure-ASCII block). The last, partial block (`last`) is read where it
 * lies when the 64 bytes from `b` are below `readable`, its bytes from `end` on masked off (they count as
 * separators), else through TAIL, padded with separators: between the normaliser's regions most stretches are
 * shorter than a block, and TAIL's fill and copy (two calls out of the module) cost more than the stretch's tokens.
 */
// @ts-ignore: decorator
@inline function scanBlock(b: usize, end: usize, last: bool, readable: usize): u64 {
  let blk = b;
  let valid: u64 = -1; // the block's bytes that are the input's
  if (last) {
    if (readable - b >= 64) valid = (<u64>1 << <u64>(end - b)) - 1; // (end - b < 64)
    else {
      fillTail(b, end - b);
      blk = TAIL;
    }
  }
  const tok = tokMask(blk) & valid;
  if (valid == <u64>-1 ? !anyHigh(blk) : (highBits(blk) & valid) == 0) {
    maskCont = 0;
    maskLead4 = 0;
    return tok;
  }
  highMasks(blk);
  maskCont &= valid;
  maskLead4 &= valid;
  return tok & ~maskFF;
}

/** Number of tokens in `len` bytes at `p` (used to size outputs for very large inputs). */
export function countTokens(p: usize, len: usize): u32 {
  const end = p + len;
  let n: u32 = 0;
  let carry: u64 = 0;
  let b = p;
  while (true) {
    const last = end - b < 64; // (not b + 64 > end: no wrap at the top of memory)
    const tok = scanBlock(b, end, last, end);
    n += <u32>popcnt<u64>(tok & ~((tok << 1) | carry));
    carry = tok >> 63;
    if (last) break;
    b += 64;
  }
  return n;
}

/** XXH64 of one token of `tLen` bytes at `sPtr` (see walkBlock for `anyFast`, `fastEnd` and `asciiTokens`). */
// @ts-ignore: decorator
@inline function tokenHash(sPtr: usize, tLen: usize, seed: u64, fastEnd: usize, anyFast: bool, asciiTokens: bool): u64 {
  if (tLen < 16 && anyFast && sPtr <= fastEnd) {
    if (!asciiTokens) return xxh64FoldedShort(sPtr, tLen, seed);
    if (tLen < 8) return xxh64AsciiUnder8(sPtr, tLen, seed);
    return xxh64AsciiShort(sPtr, tLen, seed);
  }
  return xxh64Folded(sPtr, tLen, seed);
}

// Tokens of a stretch of ASCII letters and digits (tokenizeStretch) waiting for their hashes, by length. A token's XXH64 is
// one chain of dependent multiplies whose steps depend on its length; hashed as it is found, a short token takes the
// branch-free path through every step a length under 8 may need (and a branch on that length, mispredicted for the
// tokens of 8 bytes or more). Put in a class by length as they are found (no branch) and hashed a class at a time
// every few hundred tokens, each length's tokens take straight-line code of their own steps only, in a loop whose
// branch is predicted. Class 1..7 holds the tokens of that many bytes, class 0 the others (8 bytes or more, or too
// near the input's end to read 8 bytes from). An entry is the token's address and its index in the output (a u64);
// a class-0 token's length is its end less its start (a token of ASCII letters and digits: a byte a UTF-16 unit).
// @ts-ignore: decorator
@inline const PENDING_CAP: usize = 256; // entries a class holds
// @ts-ignore: decorator
@inline const PENDING_FLUSH: u32 = 192; // tokens pending after which they are hashed (a block adds at most 32)
const PENDING: usize = memory.data(8 * 256 * 8, 16);
const PENDING_COUNT: usize = memory.data(8 * 4, 16);

/** Puts the token of `tLen` bytes at `sPtr`, output `n`, in its class (see PENDING). */
// @ts-ignore: decorator
@inline function defer(sPtr: usize, tLen: usize, n: u32, fastEnd: usize, anyFast: bool): void {
  const c = select<usize>(tLen, 0, tLen < 8 && anyFast && sPtr <= fastEnd);
  const at = PENDING_COUNT + (c << 2);
  const k = <usize>load<u32>(at);
  const e = c * PENDING_CAP + k;
  store<u64>(PENDING + (e << 3), (<u64>sPtr << 32) | <u64>n);
  store<u32>(at, <u32>k + 1);
}

/** Hashes the pending tokens of the constant length `len` (1..7) into `hashesPtr`. */
// @ts-ignore: decorator
@inline function hashClass(len: usize, seed: u64, hashesPtr: usize): void {
  const at = PENDING_COUNT + (len << 2);
  let e = PENDING + ((len * PENDING_CAP) << 3);
  const last = e + (<usize>load<u32>(at) << 3);
  while (e < last) {
    const v = load<u64>(e);
    store<u64>(hashesPtr + (<usize><u32>v << 3), xxh64AsciiUnder8(<usize>(v >> 32), len, seed));
    e += 8;
  }
  store<u32>(at, 0);
}

/** Hashes every pending token into `hashesPtr` and empties the classes. */
function hashPending(
  seed: u64, startsPtr: usize, endsPtr: usize, hashesPtr: usize, fastEnd: usize, anyFast: bool,
): void {
  hashClass(1, seed, hashesPtr);
  hashClass(2, seed, hashesPtr);
  hashClass(3, seed, hashesPtr);
  hashClass(4, seed, hashesPtr);
  hashClass(5, seed, hashesPtr);
  hashClass(6, seed, hashesPtr);
  hashClass(7, seed, hashesPtr);
  const k = <usize>load<u32>(PENDING_COUNT);
  for (let i: usize = 0; i < k; i++) {
    const v = load<u64>(PENDING + (i << 3));
    const o = <usize><u32>v << 2;
    const sPtr = <usize>(v >> 32);
    const tLen = <usize>(load<u32>(endsPtr + o) - load<u32>(startsPtr + o));
    // 8..15 bytes, or any length too near the end to read 16 bytes from
    const h = tLen < 16 && anyFast && sPtr <= fastEnd ? xxh64AsciiShort(sPtr, tLen, seed) : xxh64Folded(sPtr, tLen, seed);
    store<u64>(hashesPtr + (o << 1), h);
  }
  store<u32>(PENDING_COUNT, 0);
}

/**
 * Emits the tokens that end in the block at `b` (token bytes `starts`..`ends` as bit masks);
 * `ascii` (a constant at each call site) drops the UTF-16 corrections; `asciiTokens` (likewise a constant: every
 * token is ASCII letters and digits) leaves the tokens' hashes to hashPending. Returns the new count.
 */
// @ts-ignore: decorator
@inline function walkBlock(
  b: usize, uB: u32, starts: u64, ends: u64, cs: u64, cont: u64, lead4: u64, openPtr: usize, openU: u32,
  n: u32, seed: u64, fastEnd: usize, anyFast: bool, startsPtr: usize, endsPtr: usize, hashesPtr: usize, ascii: bool,
  asciiTokens: bool,
): u32 {
  while (ends) {
    const k = ctz<u64>(ends);
    ends &= ends - 1;
    const sm = starts | cs;
    const s = ctz<u64>(sm);
    starts = sm & (sm - 1);
    const carried = cs != 0;
    cs = 0;
    let sU = uB + <u32>s;
    let eU = uB + <u32>k;
    if (!ascii) {
      const below = (<u64>1 << s) - 1;
      sU += <u32>popcnt<u64>(lead4 & below) - <u32>popcnt<u64>(cont & below);
      const belowE = (<u64>1 << k) - 1;
      eU += <u32>popcnt<u64>(lead4 & belowE) - <u32>popcnt<u64>(cont & belowE);
    }
    const sPtr = select<usize>(openPtr, b + <usize>s, carried);
    sU = select<u32>(openU, sU, carried);
    const tLen = b + <usize>k - sPtr;
    const o = <usize>n << 2;
    store<u32>(startsPtr + o, sU);
    store<u32>(endsPtr + o, eU);
    if (asciiTokens) defer(sPtr, tLen, n, fastEnd, anyFast);
    else store<u64>(hashesPtr + (o << 1), tokenHash(sPtr, tLen, seed, fastEnd, anyFast, false));
    n++;
  }
  return n;
}

/**
 * Tokenise `len` UTF-8 bytes at `p`. For token i writes its UTF-16 start and end
 * (`startsPtr`, `endsPtr`, u32) and its XXH64 (seeded, case-folded) to `hashesPtr` (u64).
 * Returns the number of tokens. The caller sizes the outputs (countTokens or len/2 + 1).
 */
export function tokenize(p: usize, len: usize, seed: u64, startsPtr: usize, endsPtr: usize, hashesPtr: usize): u32 {
  return tokenizeBody(p, len, p + len, seed, 0, startsPtr, endsPtr, hashesPtr, 0, false);
}

/** Tokens waiting in PENDING for their hashes between two tokenizeStretch calls. */
let waiting: u32 = 0;

/** Empties PENDING before the stretches of a text (see tokenizeStretch). */
export function startStretches(): void {
  memory.fill(PENDING_COUNT, 0, 32); // (empty unless a call before this one trapped)
  waiting = 0;
}

/**
 * Hashes the tokens tokenizeStretch left waiting (outputs at `startsPtr`, `endsPtr`, `hashesPtr`, the ones it was
 * given; `readable` the one it was given).
 */
export function finishStretches(seed: u64, startsPtr: usize, endsPtr: usize, hashesPtr: usize, readable: usize): void {
  hashPending(seed, startsPtr, endsPtr, hashesPtr, readable - 16, readable >= 16);
  waiting = 0;
}

/**
 * {@link tokenize} of a stretch of raw text between the normaliser's regions (regions.ts), which begins `u0` UTF-16
 * units into the text: the offsets written are the text's, so a caller tokenising the text stretch by stretch does not
 * pass over them again to add `u0`. Such a stretch holds ASCII and the 0xFF bytes of rewritten separators only, so
 * its tokens are ASCII letters and digits (see the file comment) and take the short hash's ASCII paths, hashed by
 * length a few hundred tokens at a time (see PENDING). Its tokens are outputs `n0`.. of `startsPtr`, `endsPtr` and
 * `hashesPtr`; returns the output count after them. Bytes up to `readable` may be read (bytes past the stretch never
 * reach a result). Tokens may still wait for their hashes when it returns, whatever stretch they came from (a stretch
 * between two regions holds a few dozen, and hashing the classes at the end of each, with a loop exit mispredicted a
 * class, cost about what its tokens did): startStretches before the first stretch, finishStretches after the last.
 */
export function tokenizeStretch(
  p: usize, len: usize, readable: usize, seed: u64, u0: u32, startsPtr: usize, endsPtr: usize, hashesPtr: usize,
  n0: u32,
): u32 {
  return tokenizeBody(p, len, readable, seed, u0, startsPtr, endsPtr, hashesPtr, n0, true);
}

// @ts-ignore: decorator
@inline function tokenizeBody(
  p: usize, len: usize, readable: usize, seed: u64, u0: u32, startsPtr: usize, endsPtr: usize, hashesPtr: usize,
  n0: u32, asciiTokens: bool,
): u32 {
  const end = p + len;
  const fastEnd = readable - 16; // a token starting at or before this can be hashed by xxh64FoldedShort
  const anyFast = readable - p >= 16;
  let n: u32 = n0;
  let carry: u64 = 0; // 1 when the previous block ended inside a token
  let openPtr: usize = 0; // start of that token
  let openU: u32 = 0; // and its UTF-16 offset
  let uB: u32 = u0; // UTF-16 offset of the block's first byte
  let b = p;
  // tokens before `hashed` have their hashes written (the others wait in PENDING: `waiting` came from stretches before)
  let hashed: u32 = n0 - waiting;
  while (true) {
    const last = end - b < 64; // (not b + 64 > end: no wrap at the top of memory)
    const tok = scanBlock(b, end, last, readable);
    const cont = maskCont;
    const lead4 = maskLead4;
    const prev = (tok << 1) | carry;
    let starts = tok & ~prev;
    let ends = ~tok & prev;
    // a token carried in from the previous block takes the first end; `carry` stands for its start
    if ((cont | lead4) == 0) {
      n = walkBlock(b, uB, starts, ends, carry, 0, 0, openPtr, openU, n, seed, fastEnd, anyFast, startsPtr, endsPtr, hashesPtr, true, asciiTokens);
    } else {
      n = walkBlock(b, uB, starts, ends, carry, cont, lead4, openPtr, openU, n, seed, fastEnd, anyFast, startsPtr, endsPtr, hashesPtr, false, asciiTokens);
    }
    carry = tok >> 63;
    if (carry != 0 && starts != 0) {
      // the last token to open in this block runs past its end
      const s = 63 - clz<u64>(starts);
      const below = (<u64>1 << s) - 1;
      openPtr = b + <usize>s;
      openU = uB + <u32>s - <u32>popcnt<u64>(cont & below) + <u32>popcnt<u64>(lead4 & below);
    }
    if (asciiTokens && n - hashed >= PENDING_FLUSH) {
      hashPending(seed, startsPtr, endsPtr, hashesPtr, fastEnd, anyFast);
      hashed = n;
    }
    if (last) break;
    uB += 64 - <u32>popcnt<u64>(cont) + <u32>popcnt<u64>(lead4);
    b += 64;
  }
  if (asciiTokens) waiting = n - hashed;
  return n;
}
