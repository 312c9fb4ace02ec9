/**
 * The Engine: one instance of the WebAssembly core and the operations that run on it.
 */
import { TrainprintError } from '../errors.js';
import { fingerprintText, shingleHashesCore, toText } from '../fingerprint/fingerprint.js';
import { resolveOptions, type FingerprintOptions } from '../fingerprint/options.js';
import { similarity } from '../similarity/score.js';
import type { Fingerprint, Similarity } from '../types.js';
import { MembershipFilter, type MembershipFilterOptions } from '../sketch/filter.js';
import { minhashSignature, type MinhashOptions } from '../sketch/minhash.js';
import { simhash64 } from '../sketch/simhash.js';
import { Core } from './abi.js';
import { compileCore, pickVariant, type CoreVariant, type SimdChoice } from './load.js';

/** Options of {@link createEngine}. */
export interface EngineOptions {
  /** Use the SIMD build: `'auto'` (when the runtime validates it), `true` (required) or `false`. @default 'auto' */
  readonly simd?: SimdChoice;
}

/**
 * A fingerprinting engine bound to one WebAssembly instance (its own memory).
 * Create with {@link createEngine}; engines are cheap once the module is compiled.
 */
export class Engine {
  /** Which build of the core this engine runs. */
  readonly variant: CoreVariant;
  private core: Core | null;

  /** @internal use {@link createEngine} */
  constructor(core: Core, variant: CoreVariant) {
    this.core = core;
    this.variant = variant;
  }

  /** @internal the live core (throws ENGINE_DISPOSED after dispose). */
  get _core(): Core {
    if (!this.core) throw new TrainprintError('ENGINE_DISPOSED');
    return this.core;
  }

  /**
   * Fingerprint a text: normalisation, word or character shingles with spans in the original
   * string, winnowing, MinHash, SimHash, `work_hash` and the content id. Async because
   * `work_hash` uses WebCrypto; everything else runs synchronously in the core.
   *
   * @throws INVALID_INPUT (not a string / lone surrogate / bad UTF-8), INVALID_OPTIONS, OUT_OF_MEMORY
   * @example
   * const engine = await createEngine()
   * const fp = await engine.fingerprint('It was the best of times, it was the worst of times.')
   * fp.shingles.hashes.length // 8 word 5-grams
   */
  async fingerprint(text: string | Uint8Array, options?: FingerprintOptions): Promise<Fingerprint> {
    const core = this._core;
    const o = resolveOptions(options);
    return fingerprintText(core, toText(text), o);
  }

  /**
   * Word n-gram shingle hashes of a text or of UTF-8 bytes (sync): the same hashes as
   * `fingerprint(text).shingles.hashes`, without spans or sketches — the fast path for building
   * indexes from large corpora. Options other than `shingle.size` and `seed` are ignored.
   * Pass `into` (a buffer you reuse across calls) to receive the hashes without allocating: the
   * result is then `into.subarray(0, count)`.
   *
   * @throws INVALID_INPUT (not a string/bytes, lone surrogate, malformed UTF-8, `into` too small), INVALID_OPTIONS
   * @example engine.shingleHashes(new TextEncoder().encode(text)) // BigUint64Array
   */
  shingleHashes(input: string | Uint8Array, options?: FingerprintOptions, into?: BigUint64Array): BigUint64Array {
    const core = this._core;
    const o = resolveOptions(options);
    if (o.unit !== 'word') throw new TrainprintError('INVALID_OPTIONS', `shingleHashes supports shingle.unit 'word' only`);
    if (into !== undefined && !(into instanceof BigUint64Array)) throw new TrainprintError('INVALID_INPUT', 'into must be a BigUint64Array');
    if (!(input instanceof Uint8Array)) input = toText(input);
    return shingleHashesCore(core, input, o, into);
  }

  /**
   * Similarity of two fingerprints (sync): exact Jaccard and containment over distinct shingles,
   * MinHash estimate and SimHash distance.
   *
   * @throws PARAMS_MISMATCH when the fingerprints were made with different shingle parameters
   * @example
   * const s = engine.similarity(await engine.fingerprint(a), await engine.fingerprint(b))
   * s.jaccard // 0..1
   */
  similarity(a: Fingerprint, b: Fingerprint): Similarity {
    this._core;
    return similarity(a, b);
  }

  /**
   * XXH64 of a string's UTF-8 bytes or of bytes (sync) — the hash family of every fingerprint.
   * @example engine.xxh64('abc') // 0x44bc2cf5ad770999n
   */
  xxh64(input: string | Uint8Array, seed: bigint | number = 0): bigint {
    const core = this._core;
    return core.guard(() => {
      const L = core.layout();
      const bytes = typeof input === 'string' ? null : input;
      if (bytes === null && typeof input !== 'string') throw new TrainprintError('INVALID_INPUT', 'input must be a string or Uint8Array');
      const cap = bytes ? bytes.length : (input as string).length * 3;
      const ptr = L.take(cap);
      L.commit();
      let len: number;
      if (bytes) { core.writeBytes(ptr, bytes); len = bytes.length; } else len = core.writeUtf8(toText(input), ptr, cap);
      return BigInt.asUintN(64, core.raw.xxh64(ptr, len, BigInt.asUintN(64, BigInt(seed))));
    });
  }

  /**
   * MinHash signature of a set of 64-bit hashes (sync). `mode: 'classic'` uses k independent
   * multiply-add-shift hash functions; `'oph'` one-permutation hashing with optimal densification.
   *
   * @throws INVALID_INPUT (not a BigUint64Array), INVALID_OPTIONS
   * @example engine.minhash(fp.shingles.hashes, { k: 128, mode: 'classic' }) // Uint32Array(128)
   */
  minhash(hashes: BigUint64Array, options?: Readonly<Partial<MinhashOptions>>): Uint32Array {
    return minhashSignature(this._core, hashes, options);
  }

  /**
   * 64-bit SimHash (Charikar) of 64-bit hashes (sync); duplicates count.
   * @throws INVALID_INPUT (not a BigUint64Array)
   * @example engine.simhash(fp.shingles.hashes) === fp.simhash
   */
  simhash(hashes: BigUint64Array): bigint {
    return simhash64(this._core, hashes);
  }

  /**
   * A blocked Bloom membership filter in its own WebAssembly instance (dropping it frees its
   * memory). ≈ 1.2 bytes per key and ≈ 1.16 % false positives at the default 9.6 bits/key.
   *
   * @throws INVALID_OPTIONS, OUT_OF_MEMORY
   * @example
   * const filter = await engine.createFilter({ capacity: 1_000_000 })
   * filter.add(fp.winnow!.hashes); filter.has(other.winnow!.hashes)
   */
  async createFilter(options: MembershipFilterOptions): Promise<MembershipFilter> {
    this._core;
    return MembershipFilter.create(await compileCore(this.variant), options);
  }

  /** Bytes of WebAssembly memory this engine holds (grows to the largest input seen, then stays). */
  get memoryBytes(): number {
    return this._core.memoryBytes;
  }

  /** Release the instance; later calls throw ENGINE_DISPOSED. */
  dispose(): void {
    this.core = null;
  }
}

/**
 * Create an engine: compiles the core once per process (cached), instantiates it per engine.
 *
 * @throws WASM_UNSUPPORTED when the runtime has no WebAssembly (or no SIMD with `simd: true`)
 * @example
 * import { createEngine } from 'trainprint'
 * const engine = await createEngine()
 * const fp = await engine.fingerprint('Call me Ishmael. Some years ago…')
 */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  if (options === null || typeof options !== 'object') throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const simd = options.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false) throw new TrainprintError('INVALID_OPTIONS', `simd must be 'auto', true or false`);
  const variant = pickVariant(simd);
  const core = await Core.create(await compileCore(variant));
  return new Engine(core, variant);
}
