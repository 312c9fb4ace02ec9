/**
 * MinHash signatures computed by the core (assembly/minhash.ts), and the Jaccard estimate.
 *
 * Hash families (exact integer arithmetic, identical in every runtime and in both builds):
 * - `classic` — k permutations, x32 = lo32(x ^ x >> 32),
 *   h_i(x) = ((a_i·x32 + b_i) mod 2^64) >> 32 with a_i = splitmix64(seed + 2i),
 *   b_i = splitmix64(seed + 2i + 1): the strongly universal multiply-add-shift family.
 * - `oph` — one permutation, h(x) = (a·x + b) mod 2^64 with a = splitmix64(seed) | 1,
 *   b = splitmix64(seed + 1); the top log2 k bits pick the bin, the next 32 bits are the value;
 *   empty bins are filled by optimal densification (Shrivastava 2017), donor(i, t) =
 *   splitmix64(splitmix64(seed + 2) + (i << 32 | t)) >> (64 − log2 k).
 */
import { TrainprintError } from '../errors.js';
import type { Core } from '../core/abi.js';

/** `classic`: k independent permutations (≈ 20–40 M shingles/s); `oph`: one permutation, densified (≈ 10× faster). */
export type MinhashMode = 'classic' | 'oph';

/** Options of {@link minhashSignature}. */
export interface MinhashOptions {
  /** Signature length: a multiple of 4 in 4..1024 (`classic`) or a power of two in 1..1024 (`oph`). @default 128 */
  readonly k: number;
  /** Seed of the hash family (non-negative integer below 2^64). @default 0 */
  readonly seed: number | bigint;
  /** @default 'classic' */
  readonly mode: MinhashMode;
}

/** Options after validation, ready for the raw call. */
export interface ResolvedMinhashOptions {
  readonly k: number;
  readonly seed: bigint;
  readonly mode: MinhashMode;
}

/** Largest signature length the core accepts. */
export const MINHASH_MAX_K = 1024;

/**
 * Validate MinHash options and fill in defaults.
 * @throws INVALID_OPTIONS for an unknown mode, a k the mode does not accept, or a bad seed
 * @example resolveMinhashOptions({ mode: 'oph' }) // { k: 128, seed: 0n, mode: 'oph' }
 */
export function resolveMinhashOptions(options: Readonly<Partial<MinhashOptions>> = {}): ResolvedMinhashOptions {
  if (typeof options !== 'object' || options === null)
    throw new TrainprintError('INVALID_OPTIONS', 'minhash options must be an object');
  const mode = options.mode ?? 'classic';
  if (mode !== 'classic' && mode !== 'oph')
    throw new TrainprintError('INVALID_OPTIONS', `minhash mode must be 'classic' or 'oph'`);
  const k = options.k ?? 128;
  if (!Number.isInteger(k) || k < 1 || k > MINHASH_MAX_K)
    throw new TrainprintError('INVALID_OPTIONS', `minhash k must be an integer in 1..${MINHASH_MAX_K}`);
  if (mode === 'classic' && k % 4 !== 0)
    throw new TrainprintError('INVALID_OPTIONS', 'classic minhash k must be a multiple of 4');
  if (mode === 'oph' && (k & (k - 1)) !== 0)
    throw new TrainprintError('INVALID_OPTIONS', 'oph minhash k must be a power of two');
  return { k, seed: toSeed(options.seed ?? 0), mode };
}

/** A seed as a u64 BigInt. @throws INVALID_OPTIONS */
export function toSeed(seed: number | bigint): bigint {
  if (typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0) return BigInt(seed);
  if (typeof seed === 'bigint' && seed >= 0n && seed < 1n << 64n) return seed;
  throw new TrainprintError('INVALID_OPTIONS', 'seed must be a non-negative safe integer or a bigint below 2^64');
}

/**
 * MinHash signature of `count` u64 hashes that are already in the core's memory at `hashesPtr`
 * (the fingerprint pipeline's shingles), written to `outPtr` (room for k u32, inside the
 * caller's committed layout) and returned as a copy. No input copy.
 *
 * @throws INVALID_OPTIONS, WASM_ABORT
 * @example
 * const L = core.layout(); const h = L.take(n * 8); const out = L.take(128 * 4); L.commit()
 * // … shingles written at h …
 * const sig = minhashAt(core, h, n, out, resolveMinhashOptions({ mode: 'oph' }))
 */
export function minhashAt(
  core: Core,
  hashesPtr: number,
  count: number,
  outPtr: number,
  options: ResolvedMinhashOptions,
): Uint32Array {
  return core.guard(() => {
    const { k, seed, mode } = options;
    const r =
      mode === 'oph'
        ? core.raw.minhashOph(hashesPtr, count, k, seed, outPtr)
        : core.raw.minhashSignature(hashesPtr, count, k, seed, outPtr);
    if (r !== k) throw new TrainprintError('INVALID_OPTIONS', `the core rejected minhash k = ${k} for mode ${mode}`);
    return core.u32(outPtr, k).slice();
  });
}

/**
 * {@link minhashAt} in `oph` mode and the 64-bit SimHash of the same `count` hashes at `hashesPtr`, in one pass of the
 * core over them (k = 128; another k takes the two kernels in turn): the values `minhashAt` and `simhashAt` return.
 *
 * @throws INVALID_OPTIONS, WASM_ABORT
 * @example
 * const { minhash, simhash } = ophAndSimhashAt(core, h, n, out, { k: 128, seed: 0n })
 */
export function ophAndSimhashAt(
  core: Core,
  hashesPtr: number,
  count: number,
  outPtr: number,
  options: { readonly k: number; readonly seed: bigint },
): { minhash: Uint32Array; simhash: bigint } {
  return core.guard(() => {
    const { k, seed } = options;
    if (core.raw.ophSimhash(hashesPtr, count, k, seed, outPtr) !== k)
      throw new TrainprintError('INVALID_OPTIONS', `the core rejected minhash k = ${k} for mode oph`);
    return { minhash: core.u32(outPtr, k).slice(), simhash: BigInt.asUintN(64, core.raw.ophSimhashSecond()) };
  });
}

/**
 * MinHash signature (k u32 minima) of a set of u64 shingle hashes. An empty input gives all
 * 0xFFFFFFFF. Duplicates do not change the signature (it is a function of the set).
 *
 * @throws INVALID_INPUT (not a BigUint64Array), INVALID_OPTIONS, OUT_OF_MEMORY
 * @example
 * const sig = minhashSignature(core, hashes, { k: 128, mode: 'oph', seed: 7 })
 * jaccardEstimate(sig, minhashSignature(core, other, { k: 128, mode: 'oph', seed: 7 }))
 */
export function minhashSignature(
  core: Core,
  hashes: BigUint64Array,
  options?: Readonly<Partial<MinhashOptions>>,
): Uint32Array {
  if (!(hashes instanceof BigUint64Array))
    throw new TrainprintError('INVALID_INPUT', 'hashes must be a BigUint64Array');
  const o = resolveMinhashOptions(options);
  return core.guard(() => {
    const L = core.layout();
    const p = L.take(hashes.length * 8);
    const out = L.take(o.k * 4);
    L.commit();
    core.u64(p, hashes.length).set(hashes);
    return minhashAt(core, p, hashes.length, out, o);
  });
}

/**
 * Estimated Jaccard similarity of the two sets behind two signatures made with the same
 * options: the fraction of positions where they agree (standard error ≈ sqrt(J(1−J)/k)).
 *
 * @throws PARAMS_MISMATCH when the lengths differ; INVALID_INPUT when empty or not Uint32Arrays
 * @example jaccardEstimate(sigA, sigB) // 0.42
 */
export function jaccardEstimate(a: Uint32Array, b: Uint32Array): number {
  if (!(a instanceof Uint32Array) || !(b instanceof Uint32Array))
    throw new TrainprintError('INVALID_INPUT', 'signatures must be Uint32Arrays');
  if (a.length !== b.length)
    throw new TrainprintError('PARAMS_MISMATCH', `signature lengths differ (${a.length} vs ${b.length})`);
  if (a.length === 0) throw new TrainprintError('INVALID_INPUT', 'empty signatures');
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}
