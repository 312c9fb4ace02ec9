// Word n-gram shingles from token hashes.
//
// Shingle i is XXH64(seed) over the little-endian bytes of token hashes i .. i+n-1, i.e. over
// 8·n contiguous bytes of the token-hash array: no copy, and the definition is easy to
// reproduce anywhere that has XXH64. A text with 1 <= t < n tokens has one shingle over all t.
//
// The default n = 5 (40 bytes: one 32-byte stripe and one 8-byte lane) has its own loop with
// XXH64 unrolled for that length; it slides a window of x·P2 over the token hashes, since every
// lane of XXH64 starts with lane·P2 and each token is a lane of five consecutive shingles.

import { xxh64, avalanche64, P1, P2, P4 } from './hash/xxh64';

/** Writes the shingle hashes (u64) for `count` token hashes; returns how many were written. */
export function shingleTokens(tokHashesPtr: usize, count: u32, n: u32, seed: u64, outPtr: usize): u32 {
  if (count == 0) return 0;
  if (count < n) {
    store<u64>(outPtr, xxh64(tokHashesPtr, <usize>count << 3, seed));
    return 1;
  }
  const m = count - n + 1;
  if (n == 5) {
    shingle5(tokHashesPtr, m, seed, outPtr);
    return m;
  }
  const width = <usize>n << 3;
  for (let i: u32 = 0; i < m; i++) {
    const o = <usize>i << 3;
    store<u64>(outPtr + o, xxh64(tokHashesPtr + o, width, seed));
  }
  return m;
}

/** XXH64 of 40 bytes for `m` windows of five u64 starting at `p`, stepping 8 bytes. */
function shingle5(p: usize, m: u32, seed: u64, outPtr: usize): void {
  const s1 = seed + P1 + P2;
  const s2 = seed + P2;
  const s3 = seed;
  const s4 = seed - P1;
  // x·P2 of the four tokens ahead of the window's last lane
  let a0 = load<u64>(p) * P2;
  let a1 = load<u64>(p, 8) * P2;
  let a2 = load<u64>(p, 16) * P2;
  let a3 = load<u64>(p, 24) * P2;
  const end = outPtr + (<usize>m << 3);
  let q = p + 32;
  while (outPtr < end) {
    const a4 = load<u64>(q) * P2;
    const v1 = rotl<u64>(s1 + a0, 31) * P1;
    const v2 = rotl<u64>(s2 + a1, 31) * P1;
    const v3 = rotl<u64>(s3 + a2, 31) * P1;
    const v4 = rotl<u64>(s4 + a3, 31) * P1;
    let h = rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18);
    h = (h ^ (rotl<u64>(v1 * P2, 31) * P1)) * P1 + P4;
    h = (h ^ (rotl<u64>(v2 * P2, 31) * P1)) * P1 + P4;
    h = (h ^ (rotl<u64>(v3 * P2, 31) * P1)) * P1 + P4;
    h = (h ^ (rotl<u64>(v4 * P2, 31) * P1)) * P1 + P4;
    h += 40;
    h ^= rotl<u64>(a4, 31) * P1;
    h = rotl<u64>(h, 27) * P1 + P4;
    store<u64>(outPtr, avalanche64(h));
    a0 = a1;
    a1 = a2;
    a2 = a3;
    a3 = a4;
    q += 8;
    outPtr += 8;
  }
}
