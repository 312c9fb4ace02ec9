/**
 * Dataset fingerprints made apart from the dataset: a {@link DatasetFingerprinter} owns its own
 * core and turns a batch of document texts into one {@link FingerprintBatch} of flat typed arrays,
 * exactly what `addDataset` would compute for them. The arrays are few and flat so that a batch
 * crosses a thread boundary as a handful of transferred buffers (no per-document objects), which
 * is what lets `trainprint index build` fingerprint in worker threads and merge in document order.
 */
import { Core } from '../core/abi.js';
import { compileCore, type CoreVariant } from '../core/load.js';
import { NEAR_K } from '../datasets/exact.js';
import { checkPortraitWindow, portraitOptions, portraitParams } from '../datasets/portrait.js';
import { TrainprintError } from '../errors.js';
import { withRoom } from '../util/grow.js';
import { toText, withWinnowed, type DocumentFingerprint } from '../fingerprint/fingerprint.js';
import type { ResolvedOptions } from '../fingerprint/options.js';
import { DATASET_OPTIONS, DATASET_PARAMS } from '../datasets/params.js';

export { DATASET_OPTIONS, DATASET_PARAMS, NEAR_MINHASH } from '../datasets/params.js';

/**
 * The fingerprints of a batch of documents, flat: document i's winnowed fingerprints are
 * `hashes`/`starts`/`ends` from `offsets[i]` to `offsets[i + 1]`; its MinHash signature (exact
 * datasets) is `minhash` from `i · 128`.
 */
export interface FingerprintBatch {
  /** The params id of the dataset kind these fingerprints were made for. */
  readonly params: string;
  /** Documents in the batch. */
  readonly count: number;
  /** count + 1 offsets into `hashes`, `starts`, `ends`. */
  readonly offsets: Uint32Array;
  /** Words (tokens) per document. */
  readonly tokens: Uint32Array;
  /** UTF-8 bytes per document. */
  readonly bytes: Uint32Array;
  readonly hashes: BigUint64Array;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** count × 128 u32 (exact datasets), or null (portraits). */
  readonly minhash: Uint32Array | null;
}

/** What a {@link DatasetFingerprinter} fingerprints for. */
export interface DatasetFingerprinterOptions {
  /** @default 'exact' */
  readonly kind?: 'exact' | 'portrait';
  /** Portrait only: winnowing window (1..64). @default 8 */
  readonly window?: number;
}

/**
 * Fingerprints document texts for a dataset of one kind, with its own core (so several can run
 * in parallel, one per worker thread). Make one with `createDatasetFingerprinter`.
 */
export class DatasetFingerprinter {
  private disposed = false;
  /** The batch's postings as they are made (kept between batches, so they grow only at first). */
  private readonly rows = new GrowingPostings();

  private constructor(
    private readonly core: Core,
    private readonly options: ResolvedOptions,
    /** The params id every batch carries (what `addFingerprintedDocuments` checks). */
    readonly params: string,
  ) {}

  /** @internal use `createDatasetFingerprinter` (it picks the core variant). */
  static async create(variant: CoreVariant, options: DatasetFingerprinterOptions = {}): Promise<DatasetFingerprinter> {
    if (options === null || typeof options !== 'object') {
      throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
    }
    const kind = options.kind ?? 'exact';
    if (kind !== 'exact' && kind !== 'portrait') {
      throw new TrainprintError('INVALID_OPTIONS', `kind must be 'exact' or 'portrait'`);
    }
    if (kind === 'exact' && options.window !== undefined) {
      throw new TrainprintError('INVALID_OPTIONS', 'window applies only to portrait datasets');
    }
    const core = await Core.create(await compileCore(variant));
    if (kind === 'exact') return new DatasetFingerprinter(core, DATASET_OPTIONS, DATASET_PARAMS);
    const window = checkPortraitWindow(options.window);
    return new DatasetFingerprinter(core, portraitOptions(window), portraitParams(window));
  }

  /**
   * Fingerprint `texts` (sync). On a text that cannot be fingerprinted (not a well-formed string,
   * a trap in the core) it throws that TrainprintError with `index` set to the text's position in
   * `texts`, so the caller can name the document.
   * @example const batch = fingerprinter.fingerprint(['Call me Ishmael.', 'It was the best of times'])
   */
  fingerprint(texts: readonly string[]): FingerprintBatch {
    if (this.disposed) throw new TrainprintError('INVALID_OPTIONS', 'the fingerprinter was disposed');
    if (!Array.isArray(texts)) throw new TrainprintError('INVALID_INPUT', 'texts must be an array of strings');
    const count = texts.length;
    const offsets = new Uint32Array(count + 1);
    const tokens = new Uint32Array(count);
    const bytes = new Uint32Array(count);
    const minhash = this.options.minhashMode === 'off' ? null : new Uint32Array(count * NEAR_K);
    const rows = this.rows;
    rows.length = 0;
    for (let i = 0; i < count; i++) {
      try {
        // copied from the core's memory into the reused columns (no arrays per document)
        withWinnowed(this.core, toText(texts[i]), this.options, (fp: DocumentFingerprint) => {
          rows.append(fp.winnow);
          tokens[i] = fp.token_count;
          bytes[i] = fp.byte_length;
          if (minhash && fp.minhash) minhash.set(fp.minhash, i * NEAR_K);
        });
      } catch (e) {
        const error = e instanceof TrainprintError ? e : new TrainprintError('INVALID_INPUT', String(e), { cause: e });
        throw Object.assign(error, { index: i });
      }
      offsets[i + 1] = rows.length;
    }
    const n = rows.length;
    return {
      params: this.params,
      count,
      offsets,
      tokens,
      bytes,
      hashes: rows.hashes.slice(0, n),
      starts: rows.starts.slice(0, n),
      ends: rows.ends.slice(0, n),
      minhash,
    };
  }

  /** Free the core (sync; idempotent). @example fingerprinter.dispose() */
  dispose(): void {
    this.disposed = true;
  }
}

/**
 * Document `i` of a batch as the fingerprint `addDataset` would have made (views, no copies).
 * Only the fields datasets read are filled (`positions` is not: datasets never read it).
 */
export function batchDocument(batch: FingerprintBatch, i: number): DocumentFingerprint {
  const from = batch.offsets[i];
  const to = batch.offsets[i + 1];
  const winnow = {
    hashes: batch.hashes.subarray(from, to),
    starts: batch.starts.subarray(from, to),
    ends: batch.ends.subarray(from, to),
    positions: new Uint32Array(0),
  };
  const minhash = batch.minhash?.subarray(i * NEAR_K, (i + 1) * NEAR_K);
  return { token_count: batch.tokens[i], byte_length: batch.bytes[i], winnow, ...(minhash ? { minhash } : {}) };
}

/** Structural check of a batch received from elsewhere (another thread): INVALID_INPUT if malformed. */
export function checkBatch(batch: FingerprintBatch, documents: number): void {
  const fail = (detail: string): never => {
    throw new TrainprintError('INVALID_INPUT', `fingerprint batch: ${detail}`);
  };
  if (batch === null || typeof batch !== 'object') fail('not an object');
  if (batch.count !== documents) fail(`has ${batch.count} documents, expected ${documents}`);
  const offsetsOk = batch.offsets instanceof Uint32Array && batch.offsets.length === documents + 1;
  if (!offsetsOk) fail('offsets must be count + 1 u32');
  if (!(batch.tokens instanceof Uint32Array) || batch.tokens.length !== documents) fail('tokens must be count u32');
  if (!(batch.bytes instanceof Uint32Array) || batch.bytes.length !== documents) fail('bytes must be count u32');
  const n = batch.offsets[documents];
  if (!(batch.hashes instanceof BigUint64Array) || batch.hashes.length !== n)
    fail('hashes must hold offsets[count] u64');
  if (!(batch.starts instanceof Uint32Array) || batch.starts.length !== n) fail('starts must hold offsets[count] u32');
  if (!(batch.ends instanceof Uint32Array) || batch.ends.length !== n) fail('ends must hold offsets[count] u32');
  for (let i = 0; i < documents; i++) if (batch.offsets[i] > batch.offsets[i + 1]) fail('offsets must not decrease');
  const minhashOk = batch.minhash instanceof Uint32Array && batch.minhash.length === documents * NEAR_K;
  if (batch.minhash !== null && !minhashOk) {
    fail(`minhash must be null or count × ${NEAR_K} u32`);
  }
}

/** Winnowed postings appended in turn, in columns grown by doubling. */
class GrowingPostings {
  hashes = new BigUint64Array(1024);
  starts = new Uint32Array(1024);
  ends = new Uint32Array(1024);
  length = 0;

  append(w: { readonly hashes: BigUint64Array; readonly starts: Uint32Array; readonly ends: Uint32Array }): void {
    const need = this.length + w.hashes.length;
    this.hashes = withRoom(this.hashes, need, this.length);
    this.starts = withRoom(this.starts, need, this.length);
    this.ends = withRoom(this.ends, need, this.length);
    this.hashes.set(w.hashes, this.length);
    this.starts.set(w.starts, this.length);
    this.ends.set(w.ends, this.length);
    this.length = need;
  }
}
