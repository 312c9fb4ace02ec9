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
    h = rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18);
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    h = mergeRound(h, v4);
  } else {
    h = seed + P5;
  }
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
  const lo = load64(p, true);
  const hi = load64(p + 8, true);
  const n = <u64>len;
  let h = seed + P5 + n;
  // one 8-byte lane (len >= 8)
  const has8 = (len & 8) != 0;
  const h8 = rotl<u64>(h ^ round(0, lo), 27) * P1 + P4;
  h = select<u64>(h8, h, has8);
  // one 4-byte word at offset len & 8 (len & 4)
  const w = select<u64>(hi, lo, has8);
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
