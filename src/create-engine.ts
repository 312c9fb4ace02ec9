/**
 * The factories of the composition root: `createEngine` (the Engine of engine.ts, its options checked by
 * engine-options.ts) and `createDatasetFingerprinter` (a dataset's per-document fingerprints apart from any engine).
 */
import { pickVariant, type SimdChoice } from './core/load.js';
import { DatasetFingerprinter, type DatasetFingerprinterOptions } from './corpus/dataset-fingerprints.js';
import { Engine } from './engine.js';
import { checkEngineOptions, type EngineOptions } from './engine-options.js';
import { TrainprintError } from './errors.js';
import { instantiateCore } from './fingerprint-engine.js';
import { loadDefaultPacksFromUrl } from './packs/default.js';
import { migrateStore } from './services/migrations/index.js';

/**
 * A fingerprinter for dataset documents of one kind, with its own core: what `addDataset` computes
 * per document, made apart from any engine so that worker threads can fingerprint in parallel
 * (`trainprint index build --threads`) and the engine adds the batches with
 * `addFingerprintedDocuments`.
 *
 * @throws INVALID_OPTIONS (unknown kind, `window` out of 1..64 or given for an exact dataset, bad `simd`),
 *   WASM_UNSUPPORTED
 * @example
 * const fingerprinter = await createDatasetFingerprinter({ kind: 'portrait', window: 8 })
 * const batch = fingerprinter.fingerprint(['Call me Ishmael. Some years ago…'])
 */
export async function createDatasetFingerprinter(
  options: DatasetFingerprinterOptions & { readonly simd?: SimdChoice } = {},
): Promise<DatasetFingerprinter> {
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const simd = options.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false)
    throw new TrainprintError('INVALID_OPTIONS', `simd must be 'auto', true or false`);
  return DatasetFingerprinter.create(pickVariant(simd), options);
}

/**
 * Create an engine: compiles the core once per process (cached), instantiates it per engine; with
 * `packs: 'default'` it also loads the default reference packs (each verified by SHA-256) before resolving.
 * @throws (rejects) WASM_UNSUPPORTED when the runtime has no WebAssembly (or no SIMD with `simd: true`),
 *   INVALID_OPTIONS; with packs: INVALID_INPUT (a pack file cannot be read), SNAPSHOT_INCOMPATIBLE (checksum)
 * @example
 * import { createEngine } from 'trainprint'
 * const engine = await createEngine()
 * const fp = await engine.fingerprint('Call me Ishmael. Some years ago…')
 * const withPacks = await createEngine({ packs: 'default' }) // knows Project Gutenberg and Wikipedia text
 * const durable = await createEngine({ store: await openFileStore('./trainprint-data') }) // from 'trainprint/node'
 */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  checkEngineOptions(options); // INVALID_OPTIONS before the core is compiled
  const { core, variant } = await instantiateCore(options);
  const engine = new Engine(core, variant, options);
  try {
    // a store written by an earlier version is brought to this layout first (idempotent; cheap when done)
    await migrateStore(engine.store);
    for (const r of options.remoteCorpora ?? []) await engine.addRemoteDataset(r);
  } catch (e) {
    engine.dispose();
    throw e;
  }
  if (options.packs === 'default') {
    // the package's packs/ folder: one level above both src/create-engine.ts and dist/index.js
    const url = options.packsUrl ?? new URL('../packs/', import.meta.url);
    await loadDefaultPacksFromUrl(engine, url).catch((e: unknown) => {
      engine.dispose();
      throw e;
    });
  }
  return engine;
}
