/**
 * Similarity of two fingerprints: exact Jaccard and containment over distinct shingle hashes,
 * plus the sketch estimates (MinHash Jaccard, SimHash Hamming distance) when both carry them.
 */
import { TrainprintError } from '../errors.js';
import { paramValue, shingleParams } from './options.js';
import { jaccardEstimate } from '../sketch/minhash.js';
import { hammingDistance } from '../sketch/simhash.js';
import type { Fingerprint, Similarity } from '../types.js';

/** Sorted distinct copy of 64-bit hashes. */
export function distinctSorted(hashes: BigUint64Array): BigUint64Array {
  const s = hashes.slice().sort();
  let n = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[n - 1]) s[n++] = s[i];
  return s.subarray(0, n);
}

/** |A ∩ B| of two sorted distinct arrays (linear merge). */
export function intersectionSize(a: BigUint64Array, b: BigUint64Array): number {
  let i = 0,
    j = 0,
    n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      n++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return n;
}

function checkFingerprint(fp: unknown, name: string): asserts fp is Fingerprint {
  const f = fp as Fingerprint | null;
  if (
    !f ||
    typeof f !== 'object' ||
    f.version !== 1 ||
    typeof f.params !== 'string' ||
    !(f.shingles?.hashes instanceof BigUint64Array)
  ) {
    throw new TrainprintError('INVALID_INPUT', `${name} is not a Fingerprint (version 1)`);
  }
}

/**
 * Compare two fingerprints made with the same shingle parameters (else PARAMS_MISMATCH).
 * Where neither has a shingle the Jaccard is 0, as the containments are: nothing is shared (a 1 would read as two
 * identical texts).
 */
export function similarity(a: Fingerprint, b: Fingerprint): Similarity {
  checkFingerprint(a, 'a');
  checkFingerprint(b, 'b');
  if (shingleParams(a.params) !== shingleParams(b.params)) {
    throw new TrainprintError('PARAMS_MISMATCH', `"${shingleParams(a.params)}" vs "${shingleParams(b.params)}"`);
  }
  const A = distinctSorted(a.shingles.hashes);
  const B = distinctSorted(b.shingles.hashes);
  const inter = intersectionSize(A, B);
  const union = A.length + B.length - inter;
  let minhash: number | null = null;
  if (a.minhash && b.minhash && paramValue(a.params, 'mh') === paramValue(b.params, 'mh')) {
    minhash = jaccardEstimate(a.minhash, b.minhash);
  }
  return {
    jaccard: union === 0 ? 0 : inter / union, // no shingle on either side: nothing shared, as the containments say
    containment_a: A.length === 0 ? 0 : inter / A.length,
    containment_b: B.length === 0 ? 0 : inter / B.length,
    minhash_jaccard: minhash,
    simhash_distance: a.simhash !== undefined && b.simhash !== undefined ? hammingDistance(a.simhash, b.simhash) : null,
  };
}
