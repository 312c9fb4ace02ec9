// A sorted u64 key index: a stable radix sort of (key, payload) pairs, a prefix table over the top
// bits of the keys, and batched lookups. Used by exact datasets (src/datasets/exact.ts): keys are
// 64-bit winnowed fingerprints, payloads are the rows of their postings.

// Radix sort in two stages, so that most passes run in cache and no scratch of the index's size is
// needed: one MSD pass scatters the pairs by their top 11 bits into 2048 buckets of the output
// (≈ n / 2048 pairs each: 25 k pairs, 300 KB, for 51 M keys), then each bucket is LSD-sorted on the
// remaining 53 bits with five 11-bit passes through a bucket-sized scratch while it sits in L2. The
// MSD pass reads its input a chunk at a time (`radixCount` over every chunk, then `radixScatter`), so
// the input can live outside this memory (the dataset keeps it in JavaScript while documents are
// added): the memory ends up holding the sorted keys with their payloads (three u32 columns, carried
// along) and one bucket of scratch, nothing more. A
// plain six-pass LSD sort moves every pair through DRAM six times and needs a second copy of the
// index (WebAssembly memory never shrinks, so that copy would stay); this moves it through DRAM about
// twice. Stable throughout.
// @ts-ignore: decorator
@inline const DIGIT_BITS: u64 = 11;
// @ts-ignore: decorator
@inline const BUCKETS: usize = 2048;
// @ts-ignore: decorator
@inline const LOW_PASSES: usize = 5;
const HIST: usize = memory.data(<i32>(LOW_PASSES * BUCKETS * 4), 16);
/** Buckets this small are insertion-sorted instead. */
// @ts-ignore: decorator
@inline const SMALL: usize = 48;

// @ts-ignore: decorator
@inline function topBits(k: u64): usize {
  return <usize>(k >> 53);
}

/** Count `n` keys at `keysPtr` by their top 11 bits into the 2048 u32 at `countsPtr` (added to what is there). */
export function radixCount(keysPtr: usize, n: u32, countsPtr: usize): void {
  const nn = <usize>n;
  for (let i: usize = 0; i < nn; i++) {
    const h = countsPtr + (topBits(load<u64>(keysPtr + (i << 3))) << 2);
    store<u32>(h, load<u32>(h) + 1);
  }
}

/**
 * MSD pass of the sort over one chunk: key i of the `n` at `keysPtr` goes to position p =
 * cursors[top 11 bits]++ of `dstKeysPtr`, and the i-th u32 of each payload column (`aPtr`, `bPtr`,
 * and `cPtr` when `cols` is 3; 2 payload columns otherwise) to position p of its destination. Start
 * the cursors at the exclusive prefix sums of the counts of all chunks; after the last chunk, cursor b
 * is the end of bucket b. The payloads travel with their keys here and within each bucket afterwards,
 * so nothing is ever gathered from random places of a DRAM-sized array.
 */
export function radixScatter(
  keysPtr: usize, aPtr: usize, bPtr: usize, cPtr: usize, cols: u32, n: u32, cursorsPtr: usize,
  dstKeysPtr: usize, dstAPtr: usize, dstBPtr: usize, dstCPtr: usize,
): void {
  const nn = <usize>n;
  for (let i: usize = 0; i < nn; i++) {
    const k = load<u64>(keysPtr + (i << 3));
    const h = cursorsPtr + (topBits(k) << 2);
    const pos = <usize>load<u32>(h);
    store<u32>(h, <u32>pos + 1);
    store<u64>(dstKeysPtr + (pos << 3), k);
    store<u32>(dstAPtr + (pos << 2), load<u32>(aPtr + (i << 2)));
    store<u32>(dstBPtr + (pos << 2), load<u32>(bPtr + (i << 2)));
    if (cols > 2) store<u32>(dstCPtr + (pos << 2), load<u32>(cPtr + (i << 2)));
  }
}

/**
 * Second stage of the sort: bucket b = [ends[b − 1], ends[b]) (ends: 2048 u32 at `endsPtr`, as
 * `radixScatter` leaves its cursors) of the keys at `keysPtr` is sorted in place by the low 53 bits
 * of its keys, stably, and the payload columns (`cols`: 2 or 3, as for `radixScatter`) are permuted
 * with it. `scratchPtr`: 20 bytes for each pair of the largest bucket (16-byte aligned).
 */
export function sortBuckets(
  keysPtr: usize, aPtr: usize, bPtr: usize, cPtr: usize, cols: u32, endsPtr: usize, scratchPtr: usize,
): void {
  let from: usize = 0;
  for (let b: usize = 0; b < BUCKETS; b++) {
    const to = <usize>load<u32>(endsPtr + (b << 2));
    const len = to - from;
    if (len > 1) {
      // scratch: keys (8 B), positions in the bucket (4 B), their sorted order (4 B), one column (4 B)
      const tmpK = scratchPtr;
      const tmpV = tmpK + (len << 3);
      const order = tmpV + (len << 2);
      const column = order + (len << 2);
      memory.copy(tmpK, keysPtr + (from << 3), len << 3);
      for (let i: usize = 0; i < len; i++) store<u32>(tmpV + (i << 2), <u32>i);
      sortBucket(tmpK, tmpV, keysPtr + (from << 3), order, len);
      permute(aPtr + (from << 2), order, column, len);
      permute(bPtr + (from << 2), order, column, len);
      if (cols > 2) permute(cPtr + (from << 2), order, column, len);
    }
    from = to;
  }
}

/** col[j] = old col[order[j]] for j < len, through `tmp` (len u32). */
function permute(col: usize, order: usize, tmp: usize, len: usize): void {
  memory.copy(tmp, col, len << 2);
  for (let j: usize = 0; j < len; j++) {
    store<u32>(col + (j << 2), load<u32>(tmp + (<usize>load<u32>(order + (j << 2)) << 2)));
  }
}

/**
 * Sort `len` pairs of (srcK, srcV) by their low 53 bits into (dstK, dstV), using srcK/srcV as
 * scratch (five passes: src → dst → src → dst → src → dst).
 */
function sortBucket(srcK: usize, srcV: usize, dstK: usize, dstV: usize, len: usize): void {
  if (len <= SMALL) {
    // insertion sort into dst (stable: shift only strictly greater keys)
    for (let i: usize = 0; i < len; i++) {
      const k = load<u64>(srcK + (i << 3));
      const v = load<u32>(srcV + (i << 2));
      let j = i;
      while (j > 0) {
        const pk = load<u64>(dstK + ((j - 1) << 3));
        if (pk <= k) break;
        store<u64>(dstK + (j << 3), pk);
        store<u32>(dstV + (j << 2), load<u32>(dstV + ((j - 1) << 2)));
        j--;
      }
      store<u64>(dstK + (j << 3), k);
      store<u32>(dstV + (j << 2), v);
    }
    return;
  }
  memory.fill(HIST, 0, LOW_PASSES * BUCKETS * 4);
  for (let i: usize = 0; i < len; i++) {
    const k = load<u64>(srcK + (i << 3));
    for (let d: usize = 0; d < LOW_PASSES; d++) {
      const h = HIST + ((d * BUCKETS + <usize>((k >> (DIGIT_BITS * <u64>d)) & 2047)) << 2);
      store<u32>(h, load<u32>(h) + 1);
    }
  }
  for (let d: usize = 0; d < LOW_PASSES; d++) {
    let acc: u32 = 0;
    const base = HIST + ((d * BUCKETS) << 2);
    for (let b: usize = 0; b < BUCKETS; b++) {
      const c = load<u32>(base + (b << 2));
      store<u32>(base + (b << 2), acc);
      acc += c;
    }
  }
  let sk = srcK, sv = srcV, dk = dstK, dv = dstV;
  for (let d: usize = 0; d < LOW_PASSES; d++) {
    const base = HIST + ((d * BUCKETS) << 2);
    const shift = DIGIT_BITS * <u64>d;
    for (let i: usize = 0; i < len; i++) {
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

// A presence filter beside the prefix table: one u64 word per 8 keys (8 bits a key), each key setting
// three bits of one word (a word-blocked Bloom filter). A query whose bits are not all set is absent,
// found with one cache miss instead of two dependent ones (the prefix-table entry, then the keys it
// points to); a query of no reuse is mostly such queries. The word is chosen by the key's top 32 bits
// (uniform: keys are stored with their halves swapped), so that the filter of a sorted index is written
// in order; the bits come from the key multiplied by the 64-bit golden-ratio constant (Knuth's
// multiplicative hashing), whose top bits depend on every bit of the key.

// @ts-ignore: decorator
@inline function filterMask(key: u64): u64 {
  const h = key * 0x9e3779b97f4a7c15;
  return (<u64>1 << (h >> 58)) | (<u64>1 << ((h >> 52) & 63)) | (<u64>1 << ((h >> 46) & 63));
}

// @ts-ignore: decorator
@inline function filterWord(key: u64, words: u32): usize {
  return <usize>(((key >> 32) * <u64>words) >> 32);
}

/** The presence filter of `n` keys at `keysPtr`: `words` u64 at `outPtr` (words > 0). */
export function buildFilter(keysPtr: usize, n: u32, outPtr: usize, words: u32): void {
  memory.fill(outPtr, 0, <usize>words << 3);
  for (let i: u32 = 0; i < n; i++) {
    const key = load<u64>(keysPtr + (<usize>i << 3));
    const p = outPtr + (filterWord(key, words) << 3);
    store<u64>(p, load<u64>(p) | filterMask(key));
  }
}

// Lookups run in groups of GROUP queries, phase by phase, so that the cache misses of a group
// (filter words, then prefix-table entries, then the first and last key of each range) are in flight
// together instead of one after another: a 50 M-key index is far bigger than the caches (and the TLB), so
// each query costs two misses whatever the layout, and what decides the time is how many are in
// flight at once. Measured at 51 M keys (bench/lookup.mjs): groups of 32 take about 0.7× the time
// of groups of 8; 64 gained nothing more, and a software pipeline (prefix loads running ahead of
// key loads by a fixed distance) was slower than either. With the filter, a group's absent queries stop
// after the first phase (bench/lookup.mjs, 10k absent queries at 51 M keys: 0.81 against 1.28 ms p50, 1.54×
// faster by pairs; half present: 1.44 against 1.30 ms, the present ones paying the filter's miss too).
// @ts-ignore: decorator
@inline const GROUP: u32 = 32;
const G_IN: usize = memory.data(<i32>(GROUP * 4), 16);
const G_LO: usize = memory.data(<i32>(GROUP * 4), 16);
const G_HI: usize = memory.data(<i32>(GROUP * 4), 16);
let touched: u64 = 0;

/**
 * For each of `m` u64 queries at `queriesPtr` (hashes as fingerprints give them: each is rotated by 32
 * bits here, into the form the keys are stored in), find its run of equal keys in the sorted keys
 * (using the prefix table built with the same `bits`, and the presence filter of `words` words at
 * `filterPtr` built by buildFilter, or none when `words` is 0): writes (first index, count) as two u32
 * at `outPtr` + 8·i, (0, 0) when absent. Returns the number of queries found.
 */
export function lookupSorted(
  keysPtr: usize,
  prefixPtr: usize,
  bits: u32,
  filterPtr: usize,
  words: u32,
  queriesPtr: usize,
  m: u32,
  outPtr: usize,
): u32 {
  const shift = 64 - <u64>bits;
  let found: u32 = 0;
  for (let base: u32 = 0; base < m; base += GROUP) {
    const g = m - base < GROUP ? m - base : GROUP;
    // phase 0: the filter words (independent loads); the queries that may be present go on
    let s: u32 = 0;
    for (let k: u32 = 0; k < g; k++) {
      const q = rotr<u64>(load<u64>(queriesPtr + (<usize>(base + k) << 3)), 32);
      const mask = filterMask(q);
      if (words == 0 || (load<u64>(filterPtr + (filterWord(q, words) << 3)) & mask) == mask) {
        store<u32>(G_IN + (<usize>s << 2), k);
        s++;
      } else {
        store<u64>(outPtr + (<usize>(base + k) << 3), 0);
      }
    }
    // phase 1: the ranges (independent prefix-table loads)
    for (let x: u32 = 0; x < s; x++) {
      const k = load<u32>(G_IN + (<usize>x << 2));
      const top = <usize>(rotr<u64>(load<u64>(queriesPtr + (<usize>(base + k) << 3)), 32) >> shift);
      store<u32>(G_LO + (<usize>x << 2), load<u32>(prefixPtr + (top << 2)));
      store<u32>(G_HI + (<usize>x << 2), load<u32>(prefixPtr + ((top + 1) << 2)));
    }
    // phase 2: touch both ends of every range (independent key loads)
    let t: u64 = 0;
    for (let x: u32 = 0; x < s; x++) {
      const lo = load<u32>(G_LO + (<usize>x << 2));
      const hi = load<u32>(G_HI + (<usize>x << 2));
      if (hi > lo) t ^= load<u64>(keysPtr + (<usize>lo << 3)) ^ load<u64>(keysPtr + (<usize>(hi - 1) << 3));
    }
    touched ^= t;
    // phase 3: lower bound and run length, mostly in cache now
    for (let x: u32 = 0; x < s; x++) {
      const i = base + load<u32>(G_IN + (<usize>x << 2));
      const q = rotr<u64>(load<u64>(queriesPtr + (<usize>i << 3)), 32);
      let lo = load<u32>(G_LO + (<usize>x << 2));
      let hi = load<u32>(G_HI + (<usize>x << 2));
      const end = hi;
      while (hi - lo > 16) {
        const mid = lo + ((hi - lo) >> 1);
        if (load<u64>(keysPtr + (<usize>mid << 3)) < q) lo = mid + 1;
        else hi = mid;
      }
      while (lo < hi && load<u64>(keysPtr + (<usize>lo << 3)) < q) lo++;
      let j = lo;
      while (j < end && load<u64>(keysPtr + (<usize>j << 3)) == q) j++;
      store<u32>(outPtr + (<usize>i << 3), j > lo ? lo : 0);
      store<u32>(outPtr + (<usize>i << 3), j - lo, 4);
      if (j > lo) found++;
    }
  }
  return found;
}

/**
 * The queries that lookupSorted found, listed: of the `m` (first, count) pairs it wrote at `outPtr`, the indices i
 * whose count is not 0, in order, as u32 at `listPtr` (room for m of them, which may be where the queries lay);
 * returns how many (lookupSorted's count of found queries). For a caller that marks the found ones of a large batch
 * of mostly absent queries: a loop over every pair in JavaScript runs as baseline code in a one-shot command (≈ 35 M
 * instructions of the bench's 10 MB scan, by callgrind). Runs of absent queries (pairs (0, 0)) are skipped four pairs
 * at a time.
 */
export function foundQueries(outPtr: usize, m: u32, listPtr: usize): u32 {
  let n: u32 = 0;
  let i: u32 = 0;
  while (i < m) {
    const p = outPtr + (<usize>i << 3);
    if (i + 4 <= m && (load<u64>(p) | load<u64>(p, 8) | load<u64>(p, 16) | load<u64>(p, 24)) == 0) {
      i += 4;
      continue;
    }
    if (load<u32>(p, 4) != 0) {
      store<u32>(listPtr + (<usize>n << 2), i);
      n++;
    }
    i++;
  }
  return n;
}
