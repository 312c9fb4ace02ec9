/** A fingerprint as the command line prints it (`demo`, `fingerprint`), from the fingerprint entry alone. */
import { type Fingerprint, shingleCount } from '../fingerprint-entry.js';

/**
 * A fingerprint as `demo` and `fingerprint` print it: counts and heads instead of the hash arrays.
 * @example console.log(JSON.stringify(summary(await engine.fingerprint(text)), null, 2))
 */
export function summary(fp: Fingerprint) {
  return {
    fingerprint: fp.fingerprint,
    work_hash: fp.work_hash,
    params: fp.params,
    byte_length: fp.byte_length,
    token_count: fp.token_count,
    shingles: shingleCount(fp.shingles),
    winnowed: fp.winnow?.hashes.length ?? 0,
    simhash: fp.simhash === undefined ? undefined : fp.simhash.toString(16).padStart(16, '0'),
    minhash_head: fp.minhash ? Array.from(fp.minhash.subarray(0, 4)) : undefined,
  };
}
