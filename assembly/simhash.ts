// SimHash (Charikar, "Similarity estimation techniques from rounding algorithms", STOC 2002;
// Manku, Jain, Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007), unweighted:
// every shingle hash h has weight 1 (duplicates count again), and for each bit position j
//   counter_j = Σ_h (+1 if bit j of h is 1 else −1),   bit j of the result = counter_j > 0,
// i.e. bit j is set iff more than half of the hashes have it set (ties → 0; empty input → 0).
//
// Counting is SWAR, not a per-bit loop: accumulator t (0..7) holds eight byte lanes, and lane i
// counts bit 8i + t, fed by `(h >> t) & 0x0101010101010101`. Byte lanes are flushed into u32
// counters before they can overflow (every 255 additions). The SIMD build does the same on two
// hashes per v128 (i8x16 lanes), each pair first into four nibble-lane accumulators (bits t and
// t + 4 of a byte in its two nibbles), which go into the byte lanes every 15 pairs.
//
// The counting loops can also put each hash into the bins of OPH MinHash at k = 128 (`oph`, a constant at each call
// site; assembly/sketches.ts): the two sketches of one set of hashes in one pass, the OPH steps' multiply and compare
// beside the SIMD lanes' adds.

import { ophBin } from './minhash';

// @ts-ignore: decorator
@inline const LANES: u64 = 0x0101010101010101;
const COUNTS: usize = memory.data(64 * 4, 16);
const SPILL: usize = memory.data(8 * 16, 16);

/** Adds the eight byte lanes of `acc` (bits 8i + t) to their counters. */
function flushScalar(acc: u64, t: u32): void {
  for (let i: u32 = 0; i < 8; i++) {
    const c = COUNTS + (<usize>((i << 3) + t) << 2);
    store<u32>(c, load<u32>(c) + <u32>((acc >> (<u64>i << 3)) & 0xFF));
  }
}

/**
 * Counts the bits of `count` hashes at `p`; with `oph`, each also goes into the k = 128 OPH bins at `binsPtr`. One
 * copy serves both callers of the scalar build: `oph` is the same for every hash, a branch always predicted.
 */
export function countScalar(p: usize, count: u32, oph: bool, a: u64, b: u64, binsPtr: usize): void {
  let left = count;
  while (left > 0) {
    const n = min<u32>(left, 255);
    left -= n;
    let c0: u64 = 0, c1: u64 = 0, c2: u64 = 0, c3: u64 = 0, c4: u64 = 0, c5: u64 = 0, c6: u64 = 0, c7: u64 = 0;
    const end = p + (<usize>n << 3);
    for (; p < end; p += 8) {
      const h = load<u64>(p);
      if (oph) ophBin(h, a, b, binsPtr, 57, 127, 25);
      c0 += h & LANES;
      c1 += (h >> 1) & LANES;
      c2 += (h >> 2) & LANES;
      c3 += (h >> 3) & LANES;
      c4 += (h >> 4) & LANES;
      c5 += (h >> 5) & LANES;
      c6 += (h >> 6) & LANES;
      c7 += (h >> 7) & LANES;
    }
    flushScalar(c0, 0);
    flushScalar(c1, 1);
    flushScalar(c2, 2);
    flushScalar(c3, 3);
    flushScalar(c4, 4);
    flushScalar(c5, 5);
    flushScalar(c6, 6);
    flushScalar(c7, 7);
  }
}

/** Adds the byte lanes spilled to SPILL (two hashes' lanes of bit t in its vector t) to their counters. */
function addSpill(): void {
  for (let t: u32 = 0; t < 8; t++) {
    const s = SPILL + (<usize>t << 4);
    for (let i: u32 = 0; i < 8; i++) {
      const c = COUNTS + (<usize>((i << 3) + t) << 2);
      store<u32>(c, load<u32>(c) + <u32>load<u8>(s + i) + <u32>load<u8>(s + 8 + i));
    }
  }
}

/** Counts the bits of one hash `h` (the SIMD count's odd last hash). */
function countOne(h: u64): void {
  for (let j: u32 = 0; j < 64; j++) {
    const c = COUNTS + (<usize>j << 2);
    store<u32>(c, load<u32>(c) + <u32>((h >> j) & 1));
  }
}

/** SIMD128: pairs of hashes, byte lanes flushed every 255 pairs; an odd last hash bit by bit. */
// @ts-ignore: decorator
@inline export function countSimd(p: usize, count: u32, oph: bool, a: u64, b: u64, binsPtr: usize): void {
  if (ASC_FEATURE_SIMD) {
    let pairs = count >> 1;
    const nibbles = i8x16.splat(0x11);
    const low = i8x16.splat(0x0F);
    while (pairs > 0) {
      const n = min<u32>(pairs, 255);
      pairs -= n;
      let c0 = i8x16.splat(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
      const end = p + (<usize>n << 4);
      while (p < end) {
        // nibble lanes first: d_t counts bit t of each byte in its low nibble and bit t + 4 in its high one, four
        // shifts a pair instead of eight; up to 15 pairs fit a nibble
        const stop = min<usize>(end, p + (15 << 4));
        let d0 = i8x16.splat(0), d1 = d0, d2 = d0, d3 = d0;
        for (; p < stop; p += 16) {
          const h = v128.load(p);
          if (oph) {
            ophBin(load<u64>(p), a, b, binsPtr, 57, 127, 25);
            ophBin(load<u64>(p, 8), a, b, binsPtr, 57, 127, 25);
          }
          d0 = i8x16.add(d0, v128.and(h, nibbles));
          d1 = i8x16.add(d1, v128.and(i64x2.shr_u(h, 1), nibbles));
          d2 = i8x16.add(d2, v128.and(i64x2.shr_u(h, 2), nibbles));
          d3 = i8x16.add(d3, v128.and(i64x2.shr_u(h, 3), nibbles));
        }
        c0 = i8x16.add(c0, v128.and(d0, low));
        c1 = i8x16.add(c1, v128.and(d1, low));
        c2 = i8x16.add(c2, v128.and(d2, low));
        c3 = i8x16.add(c3, v128.and(d3, low));
        c4 = i8x16.add(c4, v128.and(i64x2.shr_u(d0, 4), low));
        c5 = i8x16.add(c5, v128.and(i64x2.shr_u(d1, 4), low));
        c6 = i8x16.add(c6, v128.and(i64x2.shr_u(d2, 4), low));
        c7 = i8x16.add(c7, v128.and(i64x2.shr_u(d3, 4), low));
      }
      v128.store(SPILL, c0, 0);
      v128.store(SPILL, c1, 16);
      v128.store(SPILL, c2, 32);
      v128.store(SPILL, c3, 48);
      v128.store(SPILL, c4, 64);
      v128.store(SPILL, c5, 80);
      v128.store(SPILL, c6, 96);
      v128.store(SPILL, c7, 112);
      addSpill();
    }
    if (count & 1) {
      const h = load<u64>(p);
      if (oph) ophBin(h, a, b, binsPtr, 57, 127, 25);
      countOne(h);
    }
  }
}

/** Unweighted 64-bit SimHash of `count` u64 hashes at `hashesPtr` (definition in the file header). */
export function simhash64(hashesPtr: usize, count: u32): u64 {
  clearCounts();
  if (ASC_FEATURE_SIMD) countSimd(hashesPtr, count, false, 0, 0, 0);
  else countScalar(hashesPtr, count, false, 0, 0, 0);
  return simhashOfCounts(count);
}

/** Zeroes the bit counters before a count. */
// @ts-ignore: decorator
@inline export function clearCounts(): void {
  memory.fill(COUNTS, 0, 64 * 4);
}

/** The SimHash of the bit counters of `count` hashes: bit j set iff more than half have it. */
export function simhashOfCounts(count: u32): u64 {
  let r: u64 = 0;
  for (let j: u32 = 0; j < 64; j++) {
    const c = <u64>load<u32>(COUNTS + (<usize>j << 2));
    r |= <u64>((c << 1) > <u64>count) << j;
  }
  return r;
}
