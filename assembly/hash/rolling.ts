// Character k-gram hashes (for short texts and source code), rolling over code points.
//
// Rabin–Karp polynomial hash modulo 2^64 over Unicode scalar values of the UTF-8 input:
//   R(c_0 .. c_{k-1}) = Σ c_j · B^(k-1-j)  (mod 2^64),   B = (splitmix64(seed) | 1)
// and each k-gram's fingerprint is avalanche64(R ^ seed) (the XXH64 final mix), which spreads
// the weak low bits of a power-of-two-modulus polynomial over all 64 bits. One multiply-add
// per code point, whatever k is. A text with 1 <= t < k code points yields one k-gram.

import { avalanche64 } from './xxh64';

/** Largest k accepted (the ring of pending code points is a static buffer). */
export const MAX_CHAR_K: u32 = 256;
const RING_CP: usize = memory.data(256 * 4);
const RING_U16: usize = memory.data(256 * 4);

// @ts-ignore: decorator
@inline export function splitmix64(x: u64): u64 {
  x += 0x9E3779B97F4A7C15;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EB;
  return x ^ (x >> 31);
}

/**
 * Hash every k-gram of code points in `len` UTF-8 bytes at `p` (well-formed UTF-8 required —
 * the host encodes with TextEncoder). Writes u64 hashes and u32 UTF-16 start/end offsets.
 * Returns the number of k-grams (0 for empty input or k outside 1..MAX_CHAR_K).
 */
export function charShingles(p: usize, len: usize, k: u32, seed: u64, hashesPtr: usize, startsPtr: usize, endsPtr: usize): u32 {
  if (k == 0 || k > MAX_CHAR_K) return 0;
  const B = splitmix64(seed) | 1;
  let Bk1: u64 = 1; // B^(k-1)
  for (let j: u32 = 1; j < k; j++) Bk1 *= B;
  const end = p + len;
  let u: u32 = 0;
  let seen: u32 = 0;
  let r: u64 = 0;
  let n: u32 = 0;
  while (p < end) {
    // decode one scalar value
    let c = <u32>load<u8>(p);
    let units: u32 = 1;
    if (c < 0x80) {
      p += 1;
    } else if (c < 0xE0) {
      c = ((c & 0x1F) << 6) | (<u32>load<u8>(p, 1) & 0x3F);
      p += 2;
    } else if (c < 0xF0) {
      c = ((c & 0x0F) << 12) | ((<u32>load<u8>(p, 1) & 0x3F) << 6) | (<u32>load<u8>(p, 2) & 0x3F);
      p += 3;
    } else {
      c = ((c & 0x07) << 18) | ((<u32>load<u8>(p, 1) & 0x3F) << 12) | ((<u32>load<u8>(p, 2) & 0x3F) << 6) | (<u32>load<u8>(p, 3) & 0x3F);
      p += 4;
      units = 2;
    }
    const slot = <usize>(seen % k) << 2;
    if (seen >= k) r -= <u64>load<u32>(RING_CP + slot) * Bk1;
    r = r * B + <u64>c;
    store<u32>(RING_CP + slot, c);
    store<u32>(RING_U16 + slot, u);
    u += units;
    seen++;
    if (seen >= k) {
      const o = <usize>n << 2;
      store<u64>(hashesPtr + (o << 1), avalanche64(r ^ seed));
      store<u32>(startsPtr + o, load<u32>(RING_U16 + (<usize>(seen % k) << 2)));
      store<u32>(endsPtr + o, u);
      n++;
    }
  }
  if (n == 0 && seen > 0) {
    store<u64>(hashesPtr, avalanche64(r ^ seed));
    store<u32>(startsPtr, 0);
    store<u32>(endsPtr, u);
    n = 1;
  }
  return n;
}
