/**
 * A fingerprint as plain data for `toEqual`: its typed-array columns as arrays. The per-shingle columns of a word
 * fingerprint are computed when first read, so the column named `first` is read before the others: property tests
 * rotate it to check that the order of reading changes nothing.
 */
import type { Fingerprint } from '../../../src/library.js';

type ShingleColumn = 'hashes' | 'starts' | 'ends';

/**
 * Every field of `fp` as plain data, its shingle columns read `first` first.
 * @example expect(plainFingerprint(lazy, 'ends')).toEqual(plainFingerprint(eager))
 */
export function plainFingerprint<F extends Omit<Fingerprint, 'work_hash'>>(fp: F, first: ShingleColumn = 'hashes') {
  const column = (key: ShingleColumn) => Array.from<bigint | number>(fp.shingles[key]);
  const read: Partial<Record<ShingleColumn, Array<bigint | number>>> = { [first]: column(first) };
  return {
    ...fp,
    shingles: {
      hashes: read.hashes ?? column('hashes'),
      starts: read.starts ?? column('starts'),
      ends: read.ends ?? column('ends'),
    },
    winnow: fp.winnow && {
      hashes: Array.from(fp.winnow.hashes),
      starts: Array.from(fp.winnow.starts),
      ends: Array.from(fp.winnow.ends),
      positions: Array.from(fp.winnow.positions),
    },
    minhash: fp.minhash && Array.from(fp.minhash),
  };
}
