// MinHash signatures over u64 shingle hashes (Broder 1997, "On the resemblance and containment
// of documents"), in two modes. Both are exact integer arithmetic (no float `(a·x + b) % p`),
// so every runtime and both builds (scalar, SIMD128) give the same bits.
//
// Classic k-permutation MinHash. Each shingle hash x is folded to 32 bits,
//   x32 = (x XOR (x >> 32)) mod 2^32,
// and permutation i (0 <= i < k) is the multiply-add-shift hash (Dietzfelbinger 1996; Thorup,
// "High Speed Hashing for Integers and Strings", 2015, §3.3)
//   h_i(x) = ((a_i · x32 + b_i) mod 2^64) >> 32,   a_i = splitmix64(seed + 2i), b_i = splitmix64(seed + 2i + 1),
// which is strongly universal (2-independent) from 32-bit keys to 32-bit values because
// a_i, b_i are 64-bit (≥ 32 + 32 − 1 bits). signature[i] = min over the shingles of h_i(x),
// 0xFFFFFFFF for an empty input. The SIMD build computes 4 permutations per v128: the 64-bit
// product a·x32 is lo32(a)·x32 (i64x2.extmul) plus (hi32(a)·x32 mod 2^32) << 32 (i32x4.mul),
// so the high half is hi32(lo32(a)·x32 + b) + hi32(a)·x32 mod 2^32 — the same value as scalar.
//
// One-permutation hashing with optimal densification (Li, Owen, Zhang 2012; Shrivastava,
// "Optimal Densification for Fast and Accurate Minwise Hashing", ICML 2017). k is a power of
// two (1..1024), L = log2 k. One hash per shingle,
//   h(x) = (a · x + b) mod 2^64,   a = splitmix64(seed) | 1, b = splitmix64(seed + 1),
//   bin = h >> (64 − L)  (0 when k = 1),   value = (h >> (32 − L)) mod 2^32  (the 32 bits below the bin bits),
// and bin j keeps its minimum value. A bin whose minimum is 0xFFFFFFFF counts as empty (the
// value is then indistinguishable from "no shingle"; probability 2^-32 per shingle). Each empty
// bin i then copies the value of bin donor(i, t) for the first attempt t = 1, 2, … whose bin was
// non-empty before densification:
//   donor(i, t) = splitmix64(d + (i << 32 | t)) >> (64 − L),   d = splitmix64(seed + 2)
// (after 65536 attempts — probability < e^-64 — the next non-empty bin after i, circularly).
// All bins empty (no shingles) → all 0xFFFFFFFF.

import { splitmix64 } from './hash/rolling';

/** Largest signature length accepted by both modes. */
export const MINHASH_MAX_K: u32 = 1024;

// Per-permutation parameters, computed once per (seed, k) and cached across calls.
const TAB_A: usize = memory.data(1024 * 8);
const TAB_B: usize = memory.data(1024 * 8);
const TAB_ALO: usize = memory.data(1024 * 4, 16);
const TAB_AHI: usize = memory.data(1024 * 4, 16);
// Folded shingles of the current chunk (re-read once per 4 permutations; stays in L1).
// @ts-ignore: decorator
@inline const CHUNK: u32 = 2048;
const X32: usize = memory.data(2048 * 4, 16);
// OPH: 1 where a bin was empty before densification.
const EMPTY: usize = memory.data(1024);

let cachedSeed: u64 = 0;
let cachedK: u32 = 0;

function prepareTables(k: u32, seed: u64): void {
  if (cachedK >= k && cachedSeed == seed) return;
  for (let i: u32 = 0; i < k; i++) {
    const a = splitmix64(seed + (<u64>i << 1));
    const b = splitmix64(seed + (<u64>i << 1) + 1);
    store<u64>(TAB_A + (<usize>i << 3), a);
    store<u64>(TAB_B + (<usize>i << 3), b);
    store<u32>(TAB_ALO + (<usize>i << 2), <u32>a);
    store<u32>(TAB_AHI + (<usize>i << 2), <u32>(a >> 32));
  }
  cachedSeed = seed;
  cachedK = k;
}

// @ts-ignore: decorator
@inline function foldChunk(p: usize, n: u32): void {
  for (let j: u32 = 0; j < n; j++) {
    const x = load<u64>(p + (<usize>j << 3));
    store<u32>(X32 + (<usize>j << 2), <u32>(x ^ (x >> 32)));
  }
}

/** Scalar: 4 permutations at a time over one chunk, running minima kept in `outPtr`. */
function classicScalar(n: u32, k: u32, outPtr: usize): void {
  const xEnd = X32 + (<usize>n << 2);
  for (let g: u32 = 0; g < k; g += 4) {
    const ta = TAB_A + (<usize>g << 3);
    const tb = TAB_B + (<usize>g << 3);
    const a0 = load<u64>(ta), a1 = load<u64>(ta, 8), a2 = load<u64>(ta, 16), a3 = load<u64>(ta, 24);
    const b0 = load<u64>(tb), b1 = load<u64>(tb, 8), b2 = load<u64>(tb, 16), b3 = load<u64>(tb, 24);
    const o = outPtr + (<usize>g << 2);
    let m0 = load<u32>(o), m1 = load<u32>(o, 4), m2 = load<u32>(o, 8), m3 = load<u32>(o, 12);
    for (let q = X32; q < xEnd; q += 4) {
      const x = <u64>load<u32>(q);
      m0 = min<u32>(m0, <u32>((a0 * x + b0) >> 32));
      m1 = min<u32>(m1, <u32>((a1 * x + b1) >> 32));
      m2 = min<u32>(m2, <u32>((a2 * x + b2) >> 32));
      m3 = min<u32>(m3, <u32>((a3 * x + b3) >> 32));
    }
    store<u32>(o, m0);
    store<u32>(o, m1, 4);
    store<u32>(o, m2, 8);
    store<u32>(o, m3, 12);
  }
}

/** SIMD128: 8 permutations (two v128 of u32 minima) per pass over one chunk. */
function classicSimd(n: u32, k: u32, outPtr: usize): void {
  if (ASC_FEATURE_SIMD) {
    const xEnd = X32 + (<usize>n << 2);
    let g: u32 = 0;
    for (; g + 8 <= k; g += 8) {
      const alo0 = v128.load(TAB_ALO + (<usize>g << 2));
      const ahi0 = v128.load(TAB_AHI + (<usize>g << 2));
      const alo1 = v128.load(TAB_ALO + (<usize>g << 2), 16);
      const ahi1 = v128.load(TAB_AHI + (<usize>g << 2), 16);
      const tb = TAB_B + (<usize>g << 3);
      const b01 = v128.load(tb), b23 = v128.load(tb, 16), b45 = v128.load(tb, 32), b67 = v128.load(tb, 48);
      const o = outPtr + (<usize>g << 2);
      let m0 = v128.load(o), m1 = v128.load(o, 16);
      for (let q = X32; q < xEnd; q += 4) {
        const x = v128.load32_splat(q);
        const p01 = i64x2.add(i64x2.extmul_low_i32x4_u(x, alo0), b01);
        const p23 = i64x2.add(i64x2.extmul_high_i32x4_u(x, alo0), b23);
        const p45 = i64x2.add(i64x2.extmul_low_i32x4_u(x, alo1), b45);
        const p67 = i64x2.add(i64x2.extmul_high_i32x4_u(x, alo1), b67);
        const t0 = i32x4.add(i32x4.shuffle(p01, p23, 1, 3, 5, 7), i32x4.mul(x, ahi0));
        const t1 = i32x4.add(i32x4.shuffle(p45, p67, 1, 3, 5, 7), i32x4.mul(x, ahi1));
        m0 = i32x4.min_u(m0, t0);
        m1 = i32x4.min_u(m1, t1);
      }
      v128.store(o, m0);
      v128.store(o, m1, 16);
    }
    if (g < k) {
      const alo = v128.load(TAB_ALO + (<usize>g << 2));
      const ahi = v128.load(TAB_AHI + (<usize>g << 2));
      const tb = TAB_B + (<usize>g << 3);
      const b01 = v128.load(tb), b23 = v128.load(tb, 16);
      const o = outPtr + (<usize>g << 2);
      let m = v128.load(o);
      for (let q = X32; q < xEnd; q += 4) {
        const x = v128.load32_splat(q);
        const p01 = i64x2.add(i64x2.extmul_low_i32x4_u(x, alo), b01);
        const p23 = i64x2.add(i64x2.extmul_high_i32x4_u(x, alo), b23);
        m = i32x4.min_u(m, i32x4.add(i32x4.shuffle(p01, p23, 1, 3, 5, 7), i32x4.mul(x, ahi)));
      }
      v128.store(o, m);
    }
  }
}

/**
 * Classic k-permutation MinHash of `count` u64 hashes at `hashesPtr` (family in the file
 * header). Writes k u32 minima to `outPtr`. k must be a multiple of 4 in 4..1024.
 * Returns k, or 0 when k is invalid (nothing written).
 */
export function minhashSignature(hashesPtr: usize, count: u32, k: u32, seed: u64, outPtr: usize): u32 {
  if (k == 0 || k > MINHASH_MAX_K || (k & 3) != 0) return 0;
  memory.fill(outPtr, 0xFF, <usize>k << 2);
  if (count == 0) return k;
  prepareTables(k, seed);
  for (let start: u32 = 0; start < count; start += CHUNK) {
    const n = min<u32>(CHUNK, count - start);
    foldChunk(hashesPtr + (<usize>start << 3), n);
    if (ASC_FEATURE_SIMD) classicSimd(n, k, outPtr);
    else classicScalar(n, k, outPtr);
  }
  return k;
}

/**
 * The bins of OPH: for each u64 at [`p`, `end`), h = a·x + b, bin (h >> binShift) & mask keeps the least
 * h >> valShift. A value beats its bin's minimum about ln(n / k) times in n values, so the compare is a branch that
 * is nearly always predicted, and no store waits on the load before it.
 */
// @ts-ignore: decorator
@inline function ophBins(
  p: usize, end: usize, a: u64, b: u64, outPtr: usize, binShift: u64, mask: u32, valShift: u64,
): void {
  for (; p < end; p += 8) ophBin(load<u64>(p), a, b, outPtr, binShift, mask, valShift);
}

/** One value `x` into the bins of OPH (see {@link ophBins}). */
// @ts-ignore: decorator
@inline export function ophBin(x: u64, a: u64, b: u64, outPtr: usize, binShift: u64, mask: u32, valShift: u64): void {
  const h = a * x + b;
  const q = outPtr + (<usize>(<u32>(h >> binShift) & mask) << 2);
  const v = <u32>(h >> valShift);
  if (v < load<u32>(q)) store<u32>(q, v);
}

/** OPH's multiplier (odd) for `seed`: h = a·x + b. */
// @ts-ignore: decorator
@inline export function ophA(seed: u64): u64 {
  return splitmix64(seed) | 1;
}

/** OPH's addend for `seed`. */
// @ts-ignore: decorator
@inline export function ophB(seed: u64): u64 {
  return splitmix64(seed + 1);
}

/**
 * One-permutation MinHash with optimal densification (family and rule in the file header).
 * k must be a power of two in 1..1024. Writes k u32 values to `outPtr`; returns k, or 0 when
 * k is invalid. One multiply-add and one compare per shingle.
 */
export function minhashOph(hashesPtr: usize, count: u32, k: u32, seed: u64, outPtr: usize): u32 {
  if (k == 0 || k > MINHASH_MAX_K || (k & (k - 1)) != 0) return 0;
  memory.fill(outPtr, 0xFF, <usize>k << 2);
  if (count == 0) return k;
  const L = <u64>ctz<u32>(k);
  const binShift = 64 - L; // 64 (k = 1) shifts by 0 in wasm: `& mask` below makes the bin 0
  const mask = k - 1;
  const valShift = 32 - L;
  const a = ophA(seed);
  const b = ophB(seed);
  const end = hashesPtr + (<usize>count << 3);
  // the default k with its shifts as constants: the bin and the value straight off the product. Its loop is written
  // apart, without the mask (h >> 57 is below 128), so that it differs from the general one: written as the general
  // loop with constant arguments, the optimiser folded the two loops into one with variable shifts, at twice the
  // time a value (the ABI test's constant-shift case holds both to the reference)
  if (k == 128) {
    for (let p = hashesPtr; p < end; p += 8) {
      const h = a * load<u64>(p) + b;
      const q = outPtr + (<usize>(h >> 57) << 2);
      const v = <u32>(h >> 25);
      if (v < load<u32>(q)) store<u32>(q, v);
    }
  } else ophBins(hashesPtr, end, a, b, outPtr, binShift, mask, valShift);
  ophDensify(outPtr, k, seed);
  return k;
}

/** Fills the empty bins of the `k` (a power of two) OPH bins at `outPtr` from their donors (the file header). */
export function ophDensify(outPtr: usize, k: u32, seed: u64): void {
  const binShift = 64 - <u64>ctz<u32>(k);
  const mask = k - 1;
  let filled: u32 = 0;
  for (let i: u32 = 0; i < k; i++) {
    const e = load<u32>(outPtr + (<usize>i << 2)) == 0xFFFFFFFF;
    store<u8>(EMPTY + i, <u8>e);
    filled += <u32>!e;
  }
  if (filled == 0 || filled == k) return;
  const d = splitmix64(seed + 2);
  for (let i: u32 = 0; i < k; i++) {
    if (!load<u8>(EMPTY + i)) continue;
    let j: u32 = 0;
    let t: u32 = 1;
    for (; t <= 65536; t++) {
      j = <u32>(splitmix64(d + ((<u64>i << 32) | <u64>t)) >> binShift) & mask;
      if (!load<u8>(EMPTY + j)) break;
    }
    if (t > 65536) {
      j = (i + 1) & mask;
      while (load<u8>(EMPTY + j)) j = (j + 1) & mask;
    }
    store<u32>(outPtr + (<usize>i << 2), load<u32>(outPtr + (<usize>j << 2)));
  }
}
