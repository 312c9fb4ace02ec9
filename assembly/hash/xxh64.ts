// XXH64 (Yann Collet, xxHash specification v0.8, "XXH64 algorithm description":
// https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md). Bit-exact with the
// reference for every length and seed; known-answer vectors live in test/abi.
//
// Two entry points share one body: `xxh64` hashes bytes as they are; `xxh64Folded` hashes
// them as if every ASCII byte had bit 0x20 set. Inside a word token the only ASCII bytes are
// [A-Za-z0-9], and for those `| 0x20` is exactly lower-casing (digits already have the bit),
// so the tokenizer folds case while hashing, without a second pass over the text.

// @ts-ignore: decorator
@inline export const P1: u64 = 0x9E3779B185EBCA87;
// @ts-ignore: decorator
@inline export const P2: u64 = 0xC2B2AE3D27D4EB4F;
// @ts-ignore: decorator
@inline export const P3: u64 = 0x165667B19E3779F9;
// @ts-ignore: decorator
@inline export const P4: u64 = 0x85EBCA77C2B2AE63;
// @ts-ignore: decorator
@inline export const P5: u64 = 0x27D4EB2F165667C5;

// @ts-ignore: decorator
@inline const FOLD64: u64 = 0x2020202020202020;

// @ts-ignore: decorator
@inline export function round(acc: u64, lane: u64): u64 {
  return rotl<u64>(acc + lane * P2, 31) * P1;
}

// @ts-ignore: decorator
@inline export function mergeRound(acc: u64, val: u64): u64 {
  return (acc ^ round(0, val)) * P1 + P4;
}

/** Final mix of XXH64; also used by other kernels as a 64-bit finaliser. */
// @ts-ignore: decorator
@inline export function avalanche64(h: u64): u64 {
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

// Sets bit 0x20 in every byte whose top bit is clear (ASCII); leaves UTF-8 lead/continuation bytes alone.
// @ts-ignore: decorator
@inline function load64(p: usize, fold: bool): u64 {
  const v = load<u64>(p);
  return fold ? v | ((~v >> 2) & FOLD64) : v;
}
// @ts-ignore: decorator
@inline function load32(p: usize, fold: bool): u64 {
  const v = <u64>load<u32>(p);
  return fold ? v | ((~v >> 2) & 0x20202020) : v;
}
// @ts-ignore: decorator
@inline function load8(p: usize, fold: bool): u64 {
  const v = <u64>load<u8>(p);
  return fold ? v | ((~v >> 2) & 0x20) : v;
}

// @ts-ignore: decorator
@inline function xxh64Body(p: usize, len: usize, seed: u64, fold: bool): u64 {
  const end = p + len;
  let h: u64;
  if (len >= 32) {
    const limit = end - 32;
    let v1 = seed + P1 + P2;
    let v2 = seed + P2;
    let v3 = seed;
    let v4 = seed - P1;
    do {
      v1 = round(v1, load64(p, fold));
      v2 = round(v2, load64(p + 8, fold));
      v3 = round(v3, load64(p + 16, fold));
      v4 = round(v4, load64(p + 24, fold));
      p += 32;
    } while (p <= limit);
    h = mergeLanes(v1, v2, v3, v4);
  } else {
    h = seed + P5;
  }
  return xxh64Rest(p, end, len, h, fold);
}

/** XXH64's four lanes merged into one accumulator, after the stripes. */
// @ts-ignore: decorator
@inline export function mergeLanes(v1: u64, v2: u64, v3: u64, v4: u64): u64 {
  let h = rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18);
  h = mergeRound(h, v1);
  h = mergeRound(h, v2);
  h = mergeRound(h, v3);
  return mergeRound(h, v4);
}

/** The rest of XXH64 after the stripes: the length, the last < 32 bytes from `p` to `end`, the final mix. */
// @ts-ignore: decorator
@inline function xxh64Rest(p: usize, end: usize, len: usize, h: u64, fold: bool): u64 {
  h += <u64>len;
  while (p + 8 <= end) {
    h ^= round(0, load64(p, fold));
    h = rotl<u64>(h, 27) * P1 + P4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= load32(p, fold) * P1;
    h = rotl<u64>(h, 23) * P2 + P3;
    p += 4;
  }
  while (p < end) {
    h ^= load8(p, fold) * P5;
    h = rotl<u64>(h, 11) * P1;
    p++;
  }
  return avalanche64(h);
}

/** XXH64 of `len` bytes at `p` with `seed`. */
export function xxh64(p: usize, len: usize, seed: u64): u64 {
  return xxh64Body(p, len, seed, false);
}

/** XXH64 of the bytes at `p`, each ASCII byte read with bit 0x20 set (see the file comment). */
export function xxh64Folded(p: usize, len: usize, seed: u64): u64 {
  return xxh64Body(p, len, seed, true);
}

/**
 * `xxh64Folded(p, len, seed)` for a short token (len < 16), without data-dependent branches:
 * every step of the reference is computed and kept or dropped with `select`, so a run of tokens
 * of mixed lengths costs no branch mispredictions. Reads the 16 bytes at `p` whatever `len` is:
 * the caller guarantees they are in bounds (bytes past the token never reach the result).
 */
// @ts-ignore: decorator
@inline export function xxh64FoldedShort(p: usize, len: usize, seed: u64): u64 {
  return shortBody(p, len, seed, false, false);
}

/**
 * {@link xxh64FoldedShort} of a token of ASCII letters and digits only (len < 16). Folding is then `| 0x20` on every
 * byte read, one step where the general fold takes four before the first multiply; the bytes past the token that
 * the read takes in, whatever they are, still never reach the result.
 */
// @ts-ignore: decorator
@inline export function xxh64AsciiShort(p: usize, len: usize, seed: u64): u64 {
  return shortBody(p, len, seed, true, false);
}

/**
 * {@link xxh64AsciiShort} of a token shorter than 8 bytes (reads the 8 bytes at `p`): without the 8-byte lane, whose
 * two multiplies and step the branch-free path otherwise waits on for every token. Nine English words in ten are
 * this short, so the caller's branch to it is seldom mispredicted.
 */
// @ts-ignore: decorator
@inline export function xxh64AsciiUnder8(p: usize, len: usize, seed: u64): u64 {
  return shortBody(p, len, seed, true, true);
}

// A token's hash is one chain of dependent multiplies, and a run of tokens pays its latency more than the count of
// multiplies (a table for the byte steps' three, measured, gained nothing): `ascii` and `under8`, constants at each
// call site, take steps off the chain.
// @ts-ignore: decorator
@inline function shortBody(p: usize, len: usize, seed: u64, ascii: bool, under8: bool): u64 {
  const lo = ascii ? load<u64>(p) | FOLD64 : load64(p, true);
  let h = seed + P5 + <u64>len;
  let w = lo;
  if (!under8) {
    const hi = ascii ? load<u64>(p + 8) | FOLD64 : load64(p + 8, true);
    // one 8-byte lane (len >= 8)
    const has8 = (len & 8) != 0;
    const h8 = rotl<u64>(h ^ round(0, lo), 27) * P1 + P4;
    h = select<u64>(h8, h, has8);
    w = select<u64>(hi, lo, has8);
  }
  // one 4-byte word at offset len & 8 (len & 4)
  const has4 = (len & 4) != 0;
  const h4 = rotl<u64>(h ^ ((w & 0xFFFFFFFF) * P1), 23) * P2 + P3;
  h = select<u64>(h4, h, has4);
  // up to three single bytes at offset len & 12
  const t = select<u64>(w >> 32, w, has4);
  const r = len & 3;
  const h1 = rotl<u64>(h ^ ((t & 0xFF) * P5), 11) * P1;
  h = select<u64>(h1, h, r >= 1);
  const h2 = rotl<u64>(h ^ (((t >> 8) & 0xFF) * P5), 11) * P1;
  h = select<u64>(h2, h, r >= 2);
  const h3 = rotl<u64>(h ^ (((t >> 16) & 0xFF) * P5), 11) * P1;
  h = select<u64>(h3, h, r == 3);
  return avalanche64(h);
}

// The second result of xxh64Pair (a global: no multiple return values).
let pairSecond: u64 = 0;

/** The XXH64 under the second seed of the last {@link xxh64Pair}. */
export function xxh64PairSecond(): u64 {
  return pairSecond;
}

/**
 * `xxh64(p, len, seedA)`, and `xxh64(p, len, seedB)` for {@link xxh64PairSecond}, in one pass. Each of XXH64's four
 * lanes is a chain of two dependent multiplies per 32-byte stripe, so one pass waits on them; the two seeds' eight
 * lanes run side by side in about the time of one pass.
 */
export function xxh64Pair(p: usize, len: usize, seedA: u64, seedB: u64): u64 {
  if (len < 32) {
    pairSecond = xxh64(p, len, seedB);
    return xxh64(p, len, seedA);
  }
  return pairLanes(
    p, p + len, len, seedA + P1 + P2, seedA + P2, seedA, seedA - P1, seedB + P1 + P2, seedB + P2, seedB, seedB - P1,
  );
}

/**
 * The end of {@link xxh64Pair} of the `len` bytes that end at `end`, from lanes that have taken the stripes before `p`
 * (a1..a4 under the first seed, b1..b4 under the second): the whole 32-byte stripes from `p` on, then each seed's rest.
 * Returns the first seed's XXH64 and leaves the second's for {@link xxh64PairSecond}. xxh64Pair starts it from the
 * seeds' lanes; shingleTokensAndId from the lanes its pass over the token hashes has advanced.
 */
export function pairLanes(
  p: usize, end: usize, len: usize, a1: u64, a2: u64, a3: u64, a4: u64, b1: u64, b2: u64, b3: u64, b4: u64,
): u64 {
  for (; p + 32 <= end; p += 32) {
    const l1 = load<u64>(p), l2 = load<u64>(p, 8), l3 = load<u64>(p, 16), l4 = load<u64>(p, 24);
    a1 = round(a1, l1);
    b1 = round(b1, l1);
    a2 = round(a2, l2);
    b2 = round(b2, l2);
    a3 = round(a3, l3);
    b3 = round(b3, l3);
    a4 = round(a4, l4);
    b4 = round(b4, l4);
  }
  pairSecond = pairRest(p, end, len, mergeLanes(b1, b2, b3, b4));
  return pairRest(p, end, len, mergeLanes(a1, a2, a3, a4));
}

/** {@link xxh64Rest} of unfolded bytes, once in the binary for both of xxh64Pair's seeds. */
export function pairRest(p: usize, end: usize, len: usize, h: u64): u64 {
  return xxh64Rest(p, end, len, h, false);
}
