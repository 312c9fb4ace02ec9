// Word n-gram shingles from token hashes.
//
// Shingle i is XXH64(seed) over the little-endian bytes of token hashes i .. i+n-1, i.e. over
// 8·n contiguous bytes of the token-hash array: no copy, and the definition is easy to
// reproduce anywhere that has XXH64. A text with 1 <= t < n tokens has one shingle over all t.

import { xxh64 } from './hash/xxh64';

/** Writes the shingle hashes (u64) for `count` token hashes; returns how many were written. */
export function shingleTokens(tokHashesPtr: usize, count: u32, n: u32, seed: u64, outPtr: usize): u32 {
  if (count == 0) return 0;
  if (count < n) {
    store<u64>(outPtr, xxh64(tokHashesPtr, <usize>count << 3, seed));
    return 1;
  }
  const m = count - n + 1;
  const width = <usize>n << 3;
  for (let i: u32 = 0; i < m; i++) {
    const o = <usize>i << 3;
    store<u64>(outPtr + o, xxh64(tokHashesPtr + o, width, seed));
  }
  return m;
}
