/**
 * 64-bit SimHash computed by the core (assembly/simhash.ts) and the Hamming distance.
 *
 * Definition (Charikar 2002, unweighted): counter_j = Σ over the shingle hashes (duplicates
 * included) of +1 if bit j is set, else −1; bit j of the SimHash is counter_j > 0 (ties → 0).
 */
import { TrainprintError } from '../errors.js';
import type { Core } from '../core/abi.js';

/**
 * SimHash of `count` u64 hashes already in the core's memory at `hashesPtr` (no copy).
 * @throws WASM_ABORT
 * @example simhashAt(core, shinglesPtr, n) // 0x1f3a…n
 */
export function simhashAt(core: Core, hashesPtr: number, count: number): bigint {
  return core.guard(() => BigInt.asUintN(64, core.raw.simhash64(hashesPtr, count)));
}

/**
 * 64-bit SimHash of u64 shingle hashes (each one counts, duplicates too). Empty input → 0n.
 * @throws INVALID_INPUT (not a BigUint64Array), OUT_OF_MEMORY
 * @example hammingDistance(simhash64(core, a), simhash64(core, b)) // small for near-duplicates
 */
export function simhash64(core: Core, hashes: BigUint64Array): bigint {
  if (!(hashes instanceof BigUint64Array))
    throw new TrainprintError('INVALID_INPUT', 'hashes must be a BigUint64Array');
  return core.guard(() => {
    const L = core.layout();
    const p = L.take(hashes.length * 8);
    L.commit();
    core.u64(p, hashes.length).set(hashes);
    return simhashAt(core, p, hashes.length);
  });
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Number of differing bits of two 64-bit fingerprints (0..64).
 * @throws INVALID_INPUT when either is not a bigint in [0, 2^64)
 * @example hammingDistance(0b1011n, 0b0001n) // 2
 */
export function hammingDistance(a: bigint, b: bigint): number {
  if (typeof a !== 'bigint' || typeof b !== 'bigint' || a < 0n || b < 0n || a >> 64n !== 0n || b >> 64n !== 0n) {
    throw new TrainprintError('INVALID_INPUT', 'simhash values must be bigints in [0, 2^64)');
  }
  const x = a ^ b;
  return popcount32(Number(x & 0xffffffffn)) + popcount32(Number(x >> 32n));
}
