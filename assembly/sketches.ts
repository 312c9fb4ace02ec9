// The default fingerprint's two sketches of one set of shingle hashes, OPH MinHash (assembly/minhash.ts) and SimHash
// (assembly/simhash.ts), in one pass: each hash is read once, and the OPH step (a multiply, a shift and a compare that
// is nearly always predicted) runs beside SimHash's SIMD adds instead of in a loop of its own. The results are those
// of minhashOph and simhash64, bit for bit.

import { minhashOph, ophA, ophB, ophDensify } from './minhash';
import { clearCounts, countScalar, countSimd, simhash64, simhashOfCounts } from './simhash';
import { winnow, winnow8Range, winnowRange, winnowStart } from './winnow';

// Hashes a piece of winnowOphSimhash: 64 KiB, so that the sketches read what winnowing has just read from L1 or L2.
// Even, so that only the last piece has SimHash's odd last hash.
// @ts-ignore: decorator
@inline const PIECE: u32 = 8192;

// The SimHash of the last ophSimhash or winnowOphSimhash (a global: no multiple return values).
let simhashSecond: u64 = 0;

/**
 * {@link minhashOph} of `count` u64 hashes at `hashesPtr` (k values to `outPtr`; returns k, or 0 when k is invalid)
 * and their {@link simhash64}, which {@link ophSimhashSecond} returns after. k = 128, the default, takes the one pass;
 * another k the two kernels in turn.
 */
export function ophSimhash(hashesPtr: usize, count: u32, k: u32, seed: u64, outPtr: usize): u32 {
  if (k != 128 || count == 0) {
    simhashSecond = simhash64(hashesPtr, count);
    return minhashOph(hashesPtr, count, k, seed, outPtr);
  }
  sketchesStart(outPtr);
  countWithOph(hashesPtr, count, ophA(seed), ophB(seed), outPtr);
  sketchesEnd(outPtr, count, seed);
  return k;
}

/** Empty OPH bins (k = 128, at `sigPtr`) and SimHash counters, before a count. */
// @ts-ignore: decorator
@inline function sketchesStart(sigPtr: usize): void {
  memory.fill(sigPtr, 0xFF, 128 << 2);
  clearCounts();
}

/** The SimHash of `count` counted hashes (for {@link ophSimhashSecond}) and the OPH bins at `sigPtr` densified. */
// @ts-ignore: decorator
@inline function sketchesEnd(sigPtr: usize, count: u32, seed: u64): void {
  simhashSecond = simhashOfCounts(count);
  ophDensify(sigPtr, 128, seed);
}

/** SimHash's bit counts of `count` hashes at `p`, each also into the k = 128 OPH bins at `binsPtr` (h = a·x + b). */
function countWithOph(p: usize, count: u32, a: u64, b: u64, binsPtr: usize): void {
  if (ASC_FEATURE_SIMD) countSimd(p, count, true, a, b, binsPtr);
  else countScalar(p, count, true, a, b, binsPtr);
}

/** The SimHash of the hashes of the last {@link ophSimhash}. */
export function ophSimhashSecond(): u64 {
  return simhashSecond;
}

/**
 * {@link winnow} of `count` u64 hashes at `hashesPtr` with window `w` (indices to `winPtr`; returns how many) and
 * {@link ophSimhash} of the same hashes at k = 128 (the signature to `sigPtr`, the SimHash from
 * {@link ophSimhashSecond}), the two over each piece of {@link PIECE} hashes in turn. Why: apart, each pass reads
 * every hash back from memory, and on some guests the sketches' pass over a column winnowing had read before cost as
 * much as their work (10 MB of Chinese: 9.1 ms, against 3.9 with the column in cache); here they read the hashes
 * winnowing has just brought in. The
 * selections, signature and SimHash are those of the two kernels, bit for bit: winnowing carries its selection from
 * piece to piece, the OPH bins keep their minima and SimHash's counters their sums whatever the order.
 */
export function winnowOphSimhash(
  hashesPtr: usize, count: u32, w: u32, winPtr: usize, seed: u64, sigPtr: usize,
): u32 {
  if (count == 0 || w == 0) {
    ophSimhash(hashesPtr, count, 128, seed, sigPtr);
    return winnow(hashesPtr, count, w, winPtr);
  }
  if (w > count) w = count;
  sketchesStart(sigPtr);
  const a = ophA(seed);
  const b = ophB(seed);
  winnowStart();
  let out = winPtr;
  for (let start: u32 = 0; start < count; start += PIECE) {
    const end = min<u32>(count, start + PIECE);
    const from = max<u32>(start, w - 1);
    if (from < end) out = w == 8 ? winnow8Range(hashesPtr, from, end, out) : winnowRange(hashesPtr, from, end, w, out);
    countWithOph(hashesPtr + (<usize>start << 3), end - start, a, b, sigPtr);
  }
  sketchesEnd(sigPtr, count, seed);
  return <u32>((out - winPtr) >> 2);
}
