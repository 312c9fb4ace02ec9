// The default fingerprint's two sketches of one set of shingle hashes, OPH MinHash (assembly/minhash.ts) and SimHash
// (assembly/simhash.ts), in one pass: each hash is read once, and the OPH step (a multiply, a shift and a compare that
// is nearly always predicted) runs beside SimHash's SIMD adds instead of in a loop of its own. The results are those
// of minhashOph and simhash64, bit for bit.

import { minhashOph, ophA, ophB, ophDensify } from './minhash';
import { clearCounts, countScalar, countSimd, simhash64, simhashOfCounts } from './simhash';

// The SimHash of the last ophSimhash (a global: no multiple return values).
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
  memory.fill(outPtr, 0xFF, <usize>k << 2);
  clearCounts();
  const a = ophA(seed);
  const b = ophB(seed);
  if (ASC_FEATURE_SIMD) countSimd(hashesPtr, count, true, a, b, outPtr);
  else countScalar(hashesPtr, count, true, a, b, outPtr);
  simhashSecond = simhashOfCounts(count);
  ophDensify(outPtr, k, seed);
  return k;
}

/** The SimHash of the hashes of the last {@link ophSimhash}. */
export function ophSimhashSecond(): u64 {
  return simhashSecond;
}
