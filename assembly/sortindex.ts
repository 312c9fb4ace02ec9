// A sorted u64 key index: LSD radix sort of (key, payload) pairs, a prefix table over the top
// bits of the keys, and batched lookups. Used by exact datasets (src/index/exact.ts): keys are
// 64-bit winnowed fingerprints, payloads are row numbers of their postings.

// 11-bit digits: six passes cover 64 bits with 2048-entry histograms (8 KiB each, L1-resident).
// @ts-ignore: decorator
@inline const DIGIT_BITS: u64 = 11;
// @ts-ignore: decorator
@inline const BUCKETS: usize = 2048;
// @ts-ignore: decorator
@inline const PASSES: usize = 6;
const HIST: usize = memory.data(<i32>(PASSES * BUCKETS * 4), 16);

/**
 * Sort `n` u64 keys at `keysPtr` ascending, carrying the u32 payloads at `valsPtr` along
 * (stable). `tmpKeysPtr` / `tmpValsPtr` are scratch of the same sizes. The result ends in the
 * original buffers (an even number of passes).
 */
export function sortPairs(keysPtr: usize, valsPtr: usize, n: u32, tmpKeysPtr: usize, tmpValsPtr: usize): void {
  memory.fill(HIST, 0, PASSES * BUCKETS * 4);
  const end = keysPtr + (<usize>n << 3);
  for (let p = keysPtr; p < end; p += 8) {
    const k = load<u64>(p);
    for (let d: usize = 0; d < PASSES; d++) {
      const h = HIST + ((d * BUCKETS + <usize>((k >> (DIGIT_BITS * <u64>d)) & 2047)) << 2);
      store<u32>(h, load<u32>(h) + 1);
    }
  }
  for (let d: usize = 0; d < PASSES; d++) {
    let sum: u32 = 0;
    const base = HIST + ((d * BUCKETS) << 2);
    for (let b: usize = 0; b < BUCKETS; b++) {
      const c = load<u32>(base + (b << 2));
      store<u32>(base + (b << 2), sum);
      sum += c;
    }
  }
  let sk = keysPtr, sv = valsPtr, dk = tmpKeysPtr, dv = tmpValsPtr;
  for (let d: usize = 0; d < PASSES; d++) {
    const base = HIST + ((d * BUCKETS) << 2);
    const shift = DIGIT_BITS * <u64>d;
    for (let i: usize = 0; i < <usize>n; i++) {
      const k = load<u64>(sk + (i << 3));
      const h = base + (<usize>((k >> shift) & 2047) << 2);
      const pos = <usize>load<u32>(h);
      store<u32>(h, <u32>pos + 1);
      store<u64>(dk + (pos << 3), k);
      store<u32>(dv + (pos << 2), load<u32>(sv + (i << 2)));
    }
    const tk = sk; sk = dk; dk = tk;
    const tv = sv; sv = dv; dv = tv;
  }
}

/**
 * Prefix table over sorted keys: entry t (0 <= t <= 2^bits) = index of the first key whose top
 * `bits` bits are >= t. Writes 2^bits + 1 u32 at `outPtr`.
 */
export function buildPrefix(keysPtr: usize, n: u32, bits: u32, outPtr: usize): void {
  const shift = 64 - <u64>bits;
  const slots: u32 = 1 << bits;
  let t: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const top = <u32>(load<u64>(keysPtr + (<usize>i << 3)) >> shift);
    while (t <= top) { store<u32>(outPtr + (<usize>t << 2), i); t++; }
  }
  while (t <= slots) { store<u32>(outPtr + (<usize>t << 2), n); t++; }
}

/**
 * For each of `m` u64 queries at `queriesPtr`, find its run of equal keys in the sorted keys
 * (using the prefix table built with the same `bits`): writes (first index, count) as two u32
 * at `outPtr` + 8·i, count 0 when absent. Returns the number of queries found.
 */
export function lookupSorted(keysPtr: usize, prefixPtr: usize, bits: u32, queriesPtr: usize, m: u32, outPtr: usize): u32 {
  const shift = 64 - <u64>bits;
  let found: u32 = 0;
  for (let i: u32 = 0; i < m; i++) {
    const q = load<u64>(queriesPtr + (<usize>i << 3));
    const top = <usize>(q >> shift);
    let lo = load<u32>(prefixPtr + (top << 2));
    let hi = load<u32>(prefixPtr + ((top + 1) << 2));
    // lower bound in [lo, hi)
    while (lo < hi) {
      const mid = lo + ((hi - lo) >> 1);
      if (load<u64>(keysPtr + (<usize>mid << 3)) < q) lo = mid + 1;
      else hi = mid;
    }
    const end = load<u32>(prefixPtr + ((top + 1) << 2));
    let j = lo;
    while (j < end && load<u64>(keysPtr + (<usize>j << 3)) == q) j++;
    store<u32>(outPtr + (<usize>i << 3), lo);
    store<u32>(outPtr + (<usize>i << 3), j - lo, 4);
    if (j > lo) found++;
  }
  return found;
}
