/**
 * The fingerprint engine: one instance of the WebAssembly core and the text operations that run
 * on it — fingerprints, similarity, compare, hashes, sketches and filters. It holds no datasets,
 * knowledge base or store, so a program that only fingerprints bundles only this
 * (`trainprint/fingerprint`); the full {@link Engine} of the main entry extends it.
 */
import { compareTexts, type CompareOptions, type Comparison } from './align/compare.js';
import { loadSynonyms } from './align/synonyms.js';
import { Core } from './core/abi.js';
import { compileCore, pickVariant, type CoreVariant, type SimdChoice } from './core/load.js';
import { TrainprintError } from './errors.js';
import { fingerprintText, shingleHashesCore, toText } from './fingerprint/fingerprint.js';
import { resolveOptions, type FingerprintOptions } from './fingerprint/options.js';
import { similarity } from './fingerprint/similarity.js';
import { MembershipFilter, type MembershipFilterOptions } from './sketch/filter.js';
import { minhashSignature, type MinhashOptions } from './sketch/minhash.js';
import { simhash64 } from './sketch/simhash.js';
import type { Fingerprint, Similarity } from './types.js';
import { knownOptions } from './util/known-options.js';

/**
 * A fingerprinting engine bound to one WebAssembly instance (its own memory). Create with
 * {@link createFingerprintEngine} (or `createEngine` of `trainprint/fingerprint`); engines are
 * cheap once the module is compiled.
 */
export class FingerprintEngine {
  /** Which build of the core this engine runs. */
  readonly variant: CoreVariant;
  private core: Core | null;

  /** @internal use {@link createFingerprintEngine} or `createEngine` */
  constructor(core: Core, variant: CoreVariant) {
    this.core = core;
    this.variant = variant;
  }

  /** The live core; throws ENGINE_DISPOSED after {@link dispose}. */
  protected assertLive(): Core {
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
    const core = this.assertLive();
    const o = resolveOptions(options);
    // UTF-8 bytes with word shingles: tokenised as they are from a copy of the engine's own, which the columns
    // computed when first read tokenise again (the caller may change theirs after the call); a copy costs about two
    // thirds of the CPU of decoding them into a string (bench/results/fingerprint-bytes-*.json)
    if (text instanceof Uint8Array && o.unit === 'word') return fingerprintText(core, new Uint8Array(text), o);
    return fingerprintText(core, toText(text, true), o); // a lone surrogate: found by the tokenizer
  }

  /**
   * {@link fingerprint} of UTF-8 bytes handed over to the engine for good: the same fingerprint as that of the string
   * they decode to (`INVALID_INPUT` for bytes that are not UTF-8; a byte order mark is text, U+FEFF), made without
   * decoding them or copying them. The engine keeps these very bytes for the per-shingle columns computed when first
   * read, so **the caller must never change them after the call** — `trainprint fingerprint` hands over the file it
   * has read. Bytes you may change or reuse: {@link fingerprint}, which tokenises a copy of them.
   *
   * @throws INVALID_INPUT (not a Uint8Array, bad UTF-8), INVALID_OPTIONS, OUT_OF_MEMORY
   * @example
   * const fp = await engine.fingerprintHandedOver(await readFile('chapter.txt')) // the Buffer is not used again
   */
  async fingerprintHandedOver(bytes: Uint8Array, options?: FingerprintOptions): Promise<Fingerprint> {
    const core = this.assertLive();
    const o = resolveOptions(options);
    if (!(bytes instanceof Uint8Array))
      throw new TrainprintError('INVALID_INPUT', 'fingerprintHandedOver takes UTF-8 bytes (a Uint8Array)');
    // with word shingles tokenised as they are (validated in the core); character shingles need the string
    return fingerprintText(core, o.unit === 'word' ? bytes : toText(bytes), o);
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
    const core = this.assertLive();
    const o = resolveOptions(options);
    if (o.unit !== 'word')
      throw new TrainprintError('INVALID_OPTIONS', `shingleHashes supports shingle.unit 'word' only`);
    if (into !== undefined && !(into instanceof BigUint64Array))
      throw new TrainprintError('INVALID_INPUT', 'into must be a BigUint64Array');
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
    this.assertLive();
    return similarity(a, b);
  }

  /**
   * Align two texts (sync): the reused passages with spans in both ORIGINAL strings, found by
   * sentence-level tf-idf seeds (cosine and Dice), grouped across gaps, merged to one detection
   * per passage, with word-exact edges for verbatim copies. `similarity` is the share of the
   * shorter text's word characters inside aligned spans; `jaccard` and containment are over
   * distinct word 5-grams. Evaluated with the PAN measures in bench/eval-pan.mjs.
   *
   * @throws INVALID_INPUT (non-strings, lone surrogates), INVALID_OPTIONS
   * @example
   * const { similarity, spans } = engine.compare(suspect, source)
   * spans[0] // { a_start, a_end, b_start, b_end, score }
   */
  compare(a: string, b: string, options?: CompareOptions): Comparison {
    return compareTexts(this.assertLive(), a, b, options);
  }

  /**
   * XXH64 of a string's UTF-8 bytes or of bytes (sync) — the hash family of every fingerprint.
   * @example engine.xxh64('abc') // 0x44bc2cf5ad770999n
   */
  xxh64(input: string | Uint8Array, seed: bigint | number = 0): bigint {
    const core = this.assertLive();
    if (!(input instanceof Uint8Array)) input = toText(input); // INVALID_INPUT for anything else
    if ((typeof seed !== 'number' || !Number.isSafeInteger(seed)) && typeof seed !== 'bigint') {
      throw new TrainprintError('INVALID_INPUT', 'seed must be an integer or a bigint');
    }
    const data = input;
    const s = BigInt.asUintN(64, BigInt(seed));
    return core.guard(() => {
      const L = core.layout();
      const cap = typeof data === 'string' ? data.length * 3 : data.length;
      const ptr = L.take(cap);
      L.commit();
      let len: number;
      if (typeof data === 'string') len = core.writeUtf8(data, ptr, cap);
      else {
        core.writeBytes(ptr, data);
        len = data.length;
      }
      return BigInt.asUintN(64, core.raw.xxh64(ptr, len, s));
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
    return minhashSignature(this.assertLive(), hashes, options);
  }

  /**
   * 64-bit SimHash (Charikar) of 64-bit hashes (sync); duplicates count.
   * @throws INVALID_INPUT (not a BigUint64Array)
   * @example engine.simhash(fp.shingles.hashes) === fp.simhash
   */
  simhash(hashes: BigUint64Array): bigint {
    return simhash64(this.assertLive(), hashes);
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
    this.assertLive();
    return MembershipFilter.create(await compileCore(this.variant), options);
  }

  /** Bytes of WebAssembly memory this engine holds (grows to the largest input seen, then stays). */
  get memoryBytes(): number {
    return this.assertLive().memoryBytes;
  }

  /** Release the instance; later calls throw ENGINE_DISPOSED. */
  dispose(): void {
    this.core = null;
  }
}

/** Options of {@link createFingerprintEngine}; `createEngine` takes them too. */
export interface FingerprintEngineOptions {
  /** Use the SIMD build: `'auto'` (when the runtime validates it), `true` (required) or `false`. @default 'auto' */
  readonly simd?: SimdChoice;
  /**
   * Load the WordNet synonym table that `compare` reads (a module of its own, about 580 KB, loaded with a dynamic
   * `import()` before the engine is handed over, so a page that only fingerprints and never creates an engine with it
   * does not download it). `false` skips it: `compare` then reads words as written and says so in its result
   * (`limitations: ['synonyms_not_loaded']`), unless another engine of the process loaded it. @default true
   */
  readonly synonyms?: boolean;
}

/**
 * Check the `simd` and `synonyms` options, instantiate the core `simd` picks and load the synonym table unless
 * `synonyms` is false (shared by both engines' factories).
 */
export async function instantiateCore(
  options: FingerprintEngineOptions,
): Promise<{ core: Core; variant: CoreVariant }> {
  const simd = options.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false)
    throw new TrainprintError('INVALID_OPTIONS', `simd must be 'auto', true or false`);
  const synonyms = options.synonyms ?? true;
  if (typeof synonyms !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'synonyms must be a boolean');
  const variant = pickVariant(simd as SimdChoice);
  const [core] = await Promise.all([Core.create(await compileCore(variant)), synonyms ? loadSynonyms() : undefined]);
  return { core, variant };
}

/**
 * Create a fingerprint engine: compiles the core once per process (cached), instantiates it per engine.
 *
 * @throws WASM_UNSUPPORTED when the runtime has no WebAssembly (or no SIMD with `simd: true`), INVALID_OPTIONS
 * @example
 * import { createEngine } from 'trainprint/fingerprint'
 * const engine = await createEngine()
 * const fp = await engine.fingerprint('Call me Ishmael. Some years ago…')
 */
export async function createFingerprintEngine(options: FingerprintEngineOptions = {}): Promise<FingerprintEngine> {
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  knownOptions(options, ['simd', 'synonyms'] satisfies (keyof FingerprintEngineOptions)[]);
  const { core, variant } = await instantiateCore(options);
  return new FingerprintEngine(core, variant);
}
