// Word n-gram shingles from token hashes, rolling in O(1) per shingle.
//
// The token hashes (XXH64 of each normalised token) are already uniform 64-bit values, so a
// shingle only has to combine n of them position-sensitively. Shingle i is
//   R_i = Σ_{j<n} t_{i+j} · B^(n-1-j)  (mod 2^64),   B = splitmix64(seed) | 3,
//   shingle_i = avalanche64(R_i ^ seed)           (the XXH64 final mix, a bijection)
// — the Rabin–Karp construction the character k-grams use, over token hashes instead of code
// points: two multiplies to roll, two to finalise, whatever n is (XXH64 over the 8·n bytes cost
// about 25 multiplies at n = 5). Distinct n-grams collide only if Σ d_j·B^(n-1-j) ≡ 0 (mod 2^64)
// for the differences d_j of independent uniform hashes: about 2^-60 even for the structured
// cases (repeated or swapped tokens), because B ≡ 3 (mod 4) keeps B^k − 1 of small 2-adic valuation.
// A text with 1 <= t < n tokens has one shingle, R over its t tokens.

import { avalanche64, P1, P2, pairLanes, round, xxh64Pair, xxh64PairSecond } from './hash/xxh64';
import { splitmix64 } from './hash/rolling';

/** Writes the shingle hashes (u64) for `count` token hashes; returns how many were written. */
export function shingleTokens(tokHashesPtr: usize, count: u32, n: u32, seed: u64, outPtr: usize): u32 {
  if (count == 0 || n == 0) return 0;
  const B = splitmix64(seed) | 3;
  const r = firstShingle(tokHashesPtr, count < n ? count : n, B, seed, outPtr);
  if (count < n) return 1;
  const m = count - n + 1;
  rollShingles(r, tokHashesPtr, <usize>n << 3, outPtr + 8, outPtr + (<usize>m << 3), B, powerOf(B, n - 1), seed);
  return m;
}

/**
 * {@link shingleTokens} of several texts' tokens in one call: text i's token hashes are those from index first[i] to
 * first[i + 1] at `tokHashesPtr` (`texts` + 1 u32 at `firstPtr`, ascending); its shingles are written after text
 * i − 1's at `outPtr`, and where each text's begin at `fromPtr` (`texts` + 1 u32: from[0] = 0, from[texts] = all of
 * them). Returns how many were written. For a batch of short texts tokenised at once, whose calls one a text cost
 * more across the boundary than their hashing.
 */
export function shingleTexts(
  tokHashesPtr: usize, firstPtr: usize, texts: u32, n: u32, seed: u64, outPtr: usize, fromPtr: usize,
): u32 {
  let m: u32 = 0;
  store<u32>(fromPtr, 0);
  for (let i: u32 = 0; i < texts; i++) {
    const first = load<u32>(firstPtr + (<usize>i << 2));
    const end = load<u32>(firstPtr + (<usize>i << 2), 4);
    m += shingleTokens(tokHashesPtr + (<usize>first << 3), end - first, n, seed, outPtr + (<usize>m << 3));
    store<u32>(fromPtr + (<usize>i << 2), m, 4);
  }
  return m;
}

/** The rolling sum R of the first `w` token hashes at `p`; stores its shingle (finalised) at `outPtr`. */
// @ts-ignore: decorator
@inline function firstShingle(p: usize, w: u32, B: u64, seed: u64, outPtr: usize): u64 {
  let r: u64 = 0;
  for (let j: u32 = 0; j < w; j++) r = r * B + load<u64>(p + (<usize>j << 3));
  store<u64>(outPtr, avalanche64(r ^ seed));
  return r;
}

/** B^k (mod 2^64). */
// @ts-ignore: decorator
@inline function powerOf(B: u64, k: u32): u64 {
  let x: u64 = 1;
  for (let j: u32 = 0; j < k; j++) x *= B;
  return x;
}

/**
 * Rolls the window on from its sum `r`: for each shingle slot from `out` up to `stop`, the token hash at `drop` leaves
 * (times `Bn1` = B^(n-1)) and the one `addOffset` bytes after it enters; each shingle is stored finalised.
 */
// @ts-ignore: decorator
@inline function rollShingles(
  r: u64, drop: usize, addOffset: usize, out: usize, stop: usize, B: u64, Bn1: u64, seed: u64,
): void {
  let add = drop + addOffset;
  while (out < stop) {
    r = (r - load<u64>(drop) * Bn1) * B + load<u64>(add);
    store<u64>(out, avalanche64(r ^ seed));
    drop += 8;
    add += 8;
    out += 8;
  }
}

/**
 * {@link shingleTokens}, and the XXH64 of the `8 · count` bytes at `tokHashesPtr` under `idSeedA` and `idSeedB` (what
 * `xxh64Pair` gives: the word fingerprint's content id), stored as two u64 at `idPtr`, in one pass over the token
 * hashes. Returns the shingle count. Both read every token hash, and each is a chain of multiplies the CPU's one
 * 64-bit multiplier takes in turn; apart, the shingles' loop and the id's each wait on their own loads, stores and
 * loop overhead besides. Here the four tokens that leave the rolling window in a step of four shingles are XXH64's
 * 32-byte stripe, one token a lane, so the id's eight lanes advance beside the shingles from values already loaded.
 * A text of fewer than four tokens, or of fewer than `n`, takes the two kernels in turn.
 */
export function shingleTokensAndId(
  tokHashesPtr: usize, count: u32, n: u32, seed: u64, outPtr: usize, idSeedA: u64, idSeedB: u64, idPtr: usize,
): u32 {
  const len = <usize>count << 3;
  if (n == 0 || count < n || count < 4) {
    const few = shingleTokens(tokHashesPtr, count, n, seed, outPtr);
    store<u64>(idPtr, xxh64Pair(tokHashesPtr, len, idSeedA, idSeedB));
    store<u64>(idPtr, xxh64PairSecond(), 8);
    return few;
  }
  const B = splitmix64(seed) | 3;
  let r = firstShingle(tokHashesPtr, n, B, seed, outPtr);
  const Bn1 = powerOf(B, n - 1);
  let a1 = idSeedA + P1 + P2, a2 = idSeedA + P2, a3 = idSeedA, a4 = idSeedA - P1;
  let b1 = idSeedB + P1 + P2, b2 = idSeedB + P2, b3 = idSeedB, b4 = idSeedB - P1;
  const m = count - n + 1;
  const addOffset = <usize>n << 3; // the token entering the window, from the one leaving it
  let drop = tokHashesPtr;
  let out = outPtr + 8;
  // four shingles a step while four more are left; the four tokens leaving the window are the step's stripe
  const quads = tokHashesPtr + ((<usize>(m - 1) >> 2) << 5);
  if (ASC_FEATURE_SIMD) {
    // the id's lanes in pairs (seed A's and seed B's lane i in one vector): their multiplies on the vector unit, beside
    // the shingles' on the scalar multiplier
    let v1 = i64x2.replace_lane(i64x2.splat(a1), 1, b1), v2 = i64x2.replace_lane(i64x2.splat(a2), 1, b2);
    let v3 = i64x2.replace_lane(i64x2.splat(a3), 1, b3), v4 = i64x2.replace_lane(i64x2.splat(a4), 1, b4);
    while (drop < quads) {
      const d1 = load<u64>(drop), d2 = load<u64>(drop, 8), d3 = load<u64>(drop, 16), d4 = load<u64>(drop, 24);
      const add = drop + addOffset;
      r = (r - d1 * Bn1) * B + load<u64>(add);
      store<u64>(out, avalanche64(r ^ seed));
      v1 = roundPair(v1, d1);
      r = (r - d2 * Bn1) * B + load<u64>(add, 8);
      store<u64>(out, avalanche64(r ^ seed), 8);
      v2 = roundPair(v2, d2);
      r = (r - d3 * Bn1) * B + load<u64>(add, 16);
      store<u64>(out, avalanche64(r ^ seed), 16);
      v3 = roundPair(v3, d3);
      r = (r - d4 * Bn1) * B + load<u64>(add, 24);
      store<u64>(out, avalanche64(r ^ seed), 24);
      v4 = roundPair(v4, d4);
      drop += 32;
      out += 32;
    }
    a1 = i64x2.extract_lane(v1, 0);
    b1 = i64x2.extract_lane(v1, 1);
    a2 = i64x2.extract_lane(v2, 0);
    b2 = i64x2.extract_lane(v2, 1);
    a3 = i64x2.extract_lane(v3, 0);
    b3 = i64x2.extract_lane(v3, 1);
    a4 = i64x2.extract_lane(v4, 0);
    b4 = i64x2.extract_lane(v4, 1);
  } else {
    while (drop < quads) {
      const d1 = load<u64>(drop), d2 = load<u64>(drop, 8), d3 = load<u64>(drop, 16), d4 = load<u64>(drop, 24);
      const add = drop + addOffset;
      r = (r - d1 * Bn1) * B + load<u64>(add);
      store<u64>(out, avalanche64(r ^ seed));
      a1 = round(a1, d1);
      b1 = round(b1, d1);
      r = (r - d2 * Bn1) * B + load<u64>(add, 8);
      store<u64>(out, avalanche64(r ^ seed), 8);
      a2 = round(a2, d2);
      b2 = round(b2, d2);
      r = (r - d3 * Bn1) * B + load<u64>(add, 16);
      store<u64>(out, avalanche64(r ^ seed), 16);
      a3 = round(a3, d3);
      b3 = round(b3, d3);
      r = (r - d4 * Bn1) * B + load<u64>(add, 24);
      store<u64>(out, avalanche64(r ^ seed), 24);
      a4 = round(a4, d4);
      b4 = round(b4, d4);
      drop += 32;
      out += 32;
    }
  }
  // the last shingles (fewer than four), then the stripes left from where the step stopped, and each seed's rest
  rollShingles(r, drop, addOffset, out, outPtr + (<usize>m << 3), B, Bn1, seed);
  store<u64>(idPtr, pairLanes(drop, tokHashesPtr + len, len, a1, a2, a3, a4, b1, b2, b3, b4));
  store<u64>(idPtr, xxh64PairSecond(), 8);
  return m;
}

/** XXH64's round on a pair of lanes (one of each seed) with the same 8-byte input. */
// @ts-ignore: decorator
@inline function roundPair(acc: v128, lane: u64): v128 {
  const x = i64x2.add(acc, i64x2.splat(lane * P2));
  return i64x2.mul(v128.or(i64x2.shl(x, 31), i64x2.shr_u(x, 33)), i64x2.splat(P1));
}
