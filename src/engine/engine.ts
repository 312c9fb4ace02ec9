/**
 * The Engine: one instance of the WebAssembly core and the operations that run on it.
 */
import { TrainprintError } from '../errors.js';
import { fingerprintText, toText } from '../fingerprint/fingerprint.js';
import { resolveOptions, type FingerprintOptions } from '../fingerprint/options.js';
import { similarity } from '../similarity/score.js';
import type { Fingerprint, Similarity } from '../types.js';
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
