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

import { avalanche64 } from './hash/xxh64';
import { splitmix64 } from './hash/rolling';

/** Writes the shingle hashes (u64) for `count` token hashes; returns how many were written. */
export function shingleTokens(tokHashesPtr: usize, count: u32, n: u32, seed: u64, outPtr: usize): u32 {
  if (count == 0 || n == 0) return 0;
  const B = splitmix64(seed) | 3;
  const w = count < n ? count : n;
  let r: u64 = 0;
  for (let j: u32 = 0; j < w; j++) r = r * B + load<u64>(tokHashesPtr + (<usize>j << 3));
  store<u64>(outPtr, avalanche64(r ^ seed));
  if (count < n) return 1;
  let Bn1: u64 = 1; // B^(n-1)
  for (let j: u32 = 1; j < n; j++) Bn1 *= B;
  const m = count - n + 1;
  let out = outPtr + 8;
  let drop = tokHashesPtr;
  let add = tokHashesPtr + (<usize>n << 3);
  const stop = outPtr + (<usize>m << 3);
  while (out < stop) {
    r = (r - load<u64>(drop) * Bn1) * B + load<u64>(add);
    store<u64>(out, avalanche64(r ^ seed));
    drop += 8;
    add += 8;
    out += 8;
  }
  return m;
}
