/**
 * `trainprint/starter` — the embedded default dataset: the full texts of the SPDX licence list
 * (npm `spdx-license-list`, CC0-1.0), one document per licence id, as an exact dataset
 * `'spdx-licenses'`. It is a separate entry so that the main bundle does not carry its ≈ 5 MB of
 * base64: import it only where it is wanted (a dynamic `import('trainprint/starter')` loads it
 * lazily). The snapshot is built at package build time (build/starter.mjs) from the built engine.
 *
 * The licences are reference texts, not a documented training corpus: the dataset declares no
 * `kb_dataset` and no `models`.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * const engine = await createEngine()
 * const { loadStarterDataset } = await import('trainprint/starter')
 * await loadStarterDataset(engine) // { id: 'spdx-licenses', documents: 727, … }
 * engine.search(readmeText).matches // e.g. [{ document_id: 'MIT', kind: 'exact', … }]
 */
import { TrainprintError, type DatasetStats } from '../library.js';
import { STARTER_SNAPSHOT } from '../../build/generated/starter-dataset.js';
import { decodeBase64 } from '../core/base64.js';

/** What the starter dataset holds (known without decoding it). */
export const STARTER_DATASET: {
  readonly id: 'spdx-licenses';
  /** Licences indexed (every SPDX id with a non-empty text). */
  readonly documents: number;
  /** Bytes of the snapshot (`engine.exportDataset` format) that {@link loadStarterDataset} imports. */
  readonly bytes: number;
  /** Where the texts come from, e.g. `'npm spdx-license-list@6.12.0'`. */
  readonly source: string;
  readonly licence: 'CC0-1.0';
} = Object.freeze({
  id: STARTER_SNAPSHOT.id,
  documents: STARTER_SNAPSHOT.documents,
  bytes: STARTER_SNAPSHOT.bytes,
  source: STARTER_SNAPSHOT.source,
  licence: 'CC0-1.0',
});

/**
 * What {@link loadStarterDataset} needs of an engine: any `Engine` from `createEngine()`. Typed by
 * shape, not as the `Engine` class: the declaration bundle of this entry gets its own copy of the
 * types it names, and a copy of a class with private fields would not accept the real one.
 */
export interface StarterEngine {
  importDataset(bytes: Uint8Array, options?: { readonly supplied_by?: 'shipped' }): Promise<DatasetStats>;
}

/** Options of {@link loadStarterDataset}. */
export interface LoadStarterOptions {
  /**
   * Dataset id. Only the built-in id is accepted: `engine.importDataset` keeps the id stored in
   * the snapshot and has no way to rename it.
   * @default 'spdx-licenses'
   */
  readonly id?: string;
}

/**
 * Adds the starter dataset to `engine` (id `'spdx-licenses'`) and returns its stats. Decodes the
 * embedded snapshot (≈ 4 MB) on each call; the caller's engine then holds its own copy of the
 * index, which `engine.removeDataset('spdx-licenses')` frees.
 *
 * @throws (rejects) INVALID_INPUT (not an engine), INVALID_OPTIONS (an `id` other than
 *   `'spdx-licenses'`), ALREADY_EXISTS (the engine already has a dataset with that id), ENGINE_DISPOSED
 * @example
 * const stats = await loadStarterDataset(engine) // { id: 'spdx-licenses', kind: 'exact', documents: 727, … }
 */
export async function loadStarterDataset(
  engine: StarterEngine,
  options: LoadStarterOptions = {},
): Promise<DatasetStats> {
  if (engine === null || typeof engine !== 'object' || typeof engine.importDataset !== 'function') {
    throw new TrainprintError('INVALID_INPUT', 'engine must be an Engine from createEngine()');
  }
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  if (options.id !== undefined && options.id !== STARTER_DATASET.id) {
    throw new TrainprintError(
      'INVALID_OPTIONS',
      `the starter dataset's id is '${STARTER_DATASET.id}' (a snapshot cannot be imported under another id)`,
    );
  }
  // embedded in the package: shared by every account, its texts' source documented (spdx-license-list)
  return engine.importDataset(decodeBase64(STARTER_SNAPSHOT.base64), { supplied_by: 'shipped' });
}
