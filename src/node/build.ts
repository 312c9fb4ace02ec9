/**
 * Build a dataset file from corpus files (`trainprint index build`), and describe one (`index info`);
 * build an exact dataset straight into PostgreSQL (`index build --into`), or push a dataset file into
 * PostgreSQL (`index push`).
 */
import { existsSync } from 'node:fs';
import { open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { decode } from '@msgpack/msgpack';
import {
  createEngine,
  positiveInt,
  readThrough,
  REQUESTS,
  TrainprintError,
  type DatasetDescriptor,
  type DatasetDocument,
  type DatasetStats,
  type Engine,
  type FingerprintedDocuments,
  type SnapshotStream,
} from '../library.js';
import { createPostgresDataset, type PostgresDataset, type PostgresDatasetConnection } from '../store/node.js';
import { defaultThreads, fingerprintFilesInThreads, MAX_THREADS } from './build-pool.js';
import { checkInputs, readDocuments, type DocumentFormat } from './read-documents.js';

/**
 * The worker script of threaded builds, built beside this module (dist/build-worker.js). The
 * TypeScript sources run unbundled (a test runner) have none: there the default is 1 thread.
 */
const WORKER_URL = new URL('./build-worker.js', import.meta.url);

/** Progress of {@link buildDatasetFile}. */
export interface BuildProgress {
  /** `'read'` while documents stream in; `'write'` while the index is sealed, encoded and written; `'done'` at the end. */
  readonly phase: 'read' | 'write' | 'done';
  /** Documents indexed so far. */
  readonly documents: number;
  /** UTF-8 bytes of document text indexed so far. */
  readonly bytes: number;
  /** Milliseconds since the build started. */
  readonly elapsed_ms: number;
  /** The file being read and its position in `files` (0-based). */
  readonly file: string | undefined;
  readonly file_index: number;
  readonly files: number;
}

/** Options of {@link buildDatasetFile}: `dataset` … `models` are the descriptor's (`id` … `models`), refused as its. */
export interface BuildDatasetFileOptions {
  /** Dataset id (1–200 characters). */
  readonly dataset: string;
  /** @default 'exact' */
  readonly kind?: 'exact' | 'portrait';
  /** Portrait only: winnowing window (1..64). @default 8 */
  readonly window?: number;
  readonly name?: string;
  /**
   * Declares that the corpus samples this knowledge-base dataset (e.g. `'the-pile'`): stored as
   * the descriptor's `kb_dataset`. The declaration is the caller's; results derived from it are
   * labelled as declared.
   */
  readonly kbDataset?: string;
  /** Declares the models trained on the corpus (`provider/model`): stored as the descriptor's `models`. */
  readonly models?: readonly string[];
  /** Input files, read with {@link readDocuments}. */
  readonly files: readonly string[];
  /** Where to write the dataset (written to a temporary file beside it, then renamed). */
  readonly out: string;
  /** @default 'text' */
  readonly textField?: string;
  readonly idField?: string;
  readonly format?: DocumentFormat;
  /**
   * Threads that fingerprint documents (worker threads, each with its own core). Plain JSON Lines
   * files are read and parsed by the workers too, a 1 MB range each at a time; other files are
   * read on the main thread. The main thread adds the fingerprints in document order, so the file
   * is byte-identical for any number. 1 reads and fingerprints on the main thread (no workers).
   * @default the available cores
   */
  readonly threads?: number;
  /**
   * Called after every document (with threads: after every batch of documents; cheap: throttle any
   * drawing yourself) and at each phase change.
   */
  readonly onProgress?: (progress: BuildProgress) => void;
}

/** Result of {@link buildDatasetFile}. */
export interface BuildDatasetFileResult {
  readonly out: string;
  /** Bytes of the written file. */
  readonly file_bytes: number;
  readonly elapsed_ms: number;
  readonly stats: DatasetStats;
}

/**
 * Index corpus files into a dataset and write its `exportDataset` bytes to `out` atomically (a
 * temporary file in the same directory, fsynced, then renamed over `out`; removed on failure, so
 * `out` is either the old file or the complete new one). Portrait datasets are finalized first.
 * Documents are fingerprinted in `threads` worker threads and added in input order, so the file is
 * the same for any number of threads; the file is written in pieces (`exportDatasetStream`), so
 * writing needs no second copy of the index in memory.
 *
 * @throws (rejects) INVALID_INPUT (the descriptor, naming its field; see {@link readDocuments}; a file that
 *   cannot be written; a document that cannot be fingerprinted, named), INVALID_OPTIONS (`files`, `out`,
 *   `threads`, `onProgress`), NOT_FOUND (a declared KB id), ALREADY_EXISTS (a document id twice), INTERNAL (a
 *   fingerprinting thread died)
 * @example
 * import { buildDatasetFile } from 'trainprint/node'
 * const { stats } = await buildDatasetFile({ dataset: 'c4-sample', files: ['c4-00000.json.gz'], out: 'c4-sample.tpds' })
 */
export async function buildDatasetFile(options: BuildDatasetFileOptions): Promise<BuildDatasetFileResult> {
  const { out } = options ?? {};
  if (typeof out !== 'string' || out.length === 0) {
    throw new TrainprintError('INVALID_OPTIONS', 'out must be a file path');
  }
  const build = checkBuild(options);
  const engine = await createEngine();
  try {
    await indexDocuments(engine, build, build.descriptor);
    build.report('write');
    const stats = engine.finalizeDataset(build.descriptor.id);
    const crc32 = nativeCrc32 ? { crc32: nativeCrc32 } : {};
    const fileBytes = await writeAtomic(out, engine.exportDatasetStream(build.descriptor.id, crc32));
    build.report('done');
    return { out, file_bytes: fileBytes, elapsed_ms: performance.now() - build.t0, stats };
  } finally {
    engine.dispose();
  }
}

/** The options every build takes, checked, with its descriptor and progress reporting. */
interface CheckedBuild {
  readonly options: Omit<BuildDatasetFileOptions, 'out'>;
  readonly threads: number;
  readonly descriptor: DatasetDescriptor;
  readonly t0: number;
  report(phase: BuildProgress['phase']): void;
  counted(source: AsyncIterable<DatasetDocument>): AsyncGenerator<DatasetDocument>;
  countedBatches(
    batches: AsyncIterable<FingerprintedDocuments & { readonly file: number }>,
  ): AsyncGenerator<FingerprintedDocuments>;
  onFile(file: string, index: number): void;
}

function checkBuild(options: Omit<BuildDatasetFileOptions, 'out'>): CheckedBuild {
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const { dataset, kind, window, name, kbDataset, models, files, onProgress } = options;
  const fallback = existsSync(fileURLToPath(WORKER_URL)) ? defaultThreads() : 1;
  const threads = positiveInt('threads', options.threads, fallback, MAX_THREADS);
  if (!Array.isArray(files) || files.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'files must be a non-empty array of paths');
  if (onProgress !== undefined && typeof onProgress !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'onProgress must be a function');
  // the descriptor's fields refused as every door that takes one refuses them (a field not given is left out)
  const given = Object.entries({ id: dataset, kind, window, name, kb_dataset: kbDataset, models }).filter(
    ([, v]) => v !== undefined,
  );
  const read = readThrough(REQUESTS.createDataset, Object.fromEntries(given), undefined);
  const descriptor: DatasetDescriptor = { ...read, kind: read.kind ?? 'exact' };
  const t0 = performance.now();
  let documents = 0,
    bytes = 0,
    file: string | undefined,
    fileIndex = 0;
  const report = (phase: BuildProgress['phase']) =>
    onProgress?.({
      phase,
      documents,
      bytes,
      elapsed_ms: performance.now() - t0,
      file,
      file_index: fileIndex,
      files: files.length,
    });
  return {
    options,
    threads,
    descriptor,
    t0,
    report,
    onFile: (f, i) => {
      file = f;
      fileIndex = i;
    },
    async *counted(source) {
      for await (const doc of source) {
        yield doc;
        documents++;
        bytes += Buffer.byteLength(doc.text, 'utf8');
        report('read');
      }
    },
    // Counted as each batch is taken, i.e. once the one before it is added.
    async *countedBatches(batches) {
      for await (const batch of batches) {
        if (batch.file !== fileIndex || file === undefined) {
          fileIndex = batch.file;
          file = files[fileIndex];
        }
        yield batch;
        documents += batch.documents.length;
        for (const b of batch.fingerprints.bytes) bytes += b;
        report('read');
      }
    },
  };
}

/** Reads the build's files into the dataset `descriptor` names (fingerprinting in threads when asked). */
async function indexDocuments(engine: Engine, build: CheckedBuild, descriptor: DatasetDescriptor): Promise<void> {
  const { files, textField, idField, format } = build.options;
  const { kind = 'exact', window } = descriptor;
  const read = { textField, idField, format };
  if (build.threads === 1) {
    const source = readDocuments(files, { ...read, onFile: build.onFile });
    await engine.addDataset(descriptor, build.counted(source));
  } else {
    const { kinds: inputs, ctx: fields } = await checkInputs(files, read);
    const pool = { threads: build.threads, kind, window, workerUrl: WORKER_URL } as const;
    const batches = fingerprintFilesInThreads(files, { ...pool, inputs, fields, read });
    await engine.addFingerprintedDocuments(descriptor, build.countedBatches(batches));
  }
}

/**
 * Where a dataset goes in PostgreSQL, and how it is laid out.
 * @example const target: PostgresTargetOptions = { into: 'postgres://app@db/trainprint', partitions: 32 }
 */
export interface PostgresTargetOptions {
  /** `postgres://…` (a `schema` parameter names the schema). */
  readonly into: string;
  /** The schema of the datasets. @default 'trainprint_datasets' */
  readonly schema?: string;
  /** Hash partitions of the posting tables (1..1024). @default 16 */
  readonly partitions?: number;
  /** Drop a dataset with the same id first. @default false */
  readonly replace?: boolean;
}

/**
 * Options of {@link buildPostgresDataset}: those of {@link buildDatasetFile} but `out` (exact datasets only).
 * @example const o: BuildPostgresDatasetOptions = { dataset: 'c4', files: ['c4.jsonl.zst'], into: url }
 */
export type BuildPostgresDatasetOptions = Omit<BuildDatasetFileOptions, 'out'> & PostgresTargetOptions;

/**
 * Result of {@link buildPostgresDataset} and {@link pushDatasetFile}.
 * @example const { stats, partitions } = await pushDatasetFile({ file: 'books.tpds', into: url })
 */
export interface PostgresDatasetResult {
  /** Where the dataset is (no password), with its table prefix and partitions. */
  readonly into: string;
  readonly tables: string;
  readonly partitions: number;
  readonly elapsed_ms: number;
  readonly stats: DatasetStats;
}

/**
 * Index corpus files into an exact dataset kept in PostgreSQL (`trainprint index build --into`): the
 * dataset is created (hash-partitioned posting tables), documents are fingerprinted as for a file
 * (`threads` worker threads) and appended in batches, and the posting indexes are built at the end.
 * Nothing of the index is held in memory beyond a batch. A failed build leaves what was appended: build
 * again with `replace`.
 * @throws (rejects) what {@link buildDatasetFile} rejects with (but `out`); INVALID_OPTIONS (`kind`
 *   portrait, a bad URL or partition count), ALREADY_EXISTS (the id exists and `replace` is not set),
 *   NOT_FOUND (a declared KB id), STORE_UNAVAILABLE
 * @example
 * import { buildPostgresDataset } from 'trainprint/node'
 * await buildPostgresDataset({ dataset: 'c4', files: ['c4-00000.json.gz'], into: 'postgres://app@db/trainprint' })
 */
export async function buildPostgresDataset(options: BuildPostgresDatasetOptions): Promise<PostgresDatasetResult> {
  const build = checkBuild(options);
  if (build.descriptor.kind !== 'exact') {
    throw new TrainprintError('INVALID_OPTIONS', 'only exact datasets are kept in PostgreSQL (a portrait fits a file)');
  }
  const { id, kind: _kind, ...fields } = build.descriptor;
  return intoPostgres(options, { id, ...fields }, build.t0, async (engine) => {
    await indexDocuments(engine, build, { id, kind: 'exact' });
    build.report('done');
  });
}

/**
 * Options of {@link pushDatasetFile}.
 * @example await pushDatasetFile({ file: 'books.tpds', into: url, dataset: 'books-2024', replace: true })
 */
export interface PushDatasetFileOptions extends PostgresTargetOptions {
  /** A dataset file of an exact dataset (`index build`, `exportDataset`). */
  readonly file: string;
  /** The id in PostgreSQL. @default the file's dataset id */
  readonly dataset?: string;
}

/**
 * Copy an exact dataset file into PostgreSQL (`trainprint index push`): a dataset is created with the
 * file's descriptor (its id, or `dataset`), and the file's documents and fingerprints are appended with
 * their numbers, so the stored dataset searches like the file loaded in memory. The file is read whole.
 * @throws (rejects) INVALID_INPUT (cannot read the file), SNAPSHOT_INCOMPATIBLE (not a valid dataset file),
 *   INVALID_OPTIONS (a portrait, a bad URL or partition count), ALREADY_EXISTS, STORE_UNAVAILABLE
 * @example
 * import { pushDatasetFile } from 'trainprint/node'
 * await pushDatasetFile({ file: 'books.tpds', into: 'postgres://app@db/trainprint', partitions: 32 })
 */
export async function pushDatasetFile(options: PushDatasetFileOptions): Promise<PostgresDatasetResult> {
  if (options === null || typeof options !== 'object') {
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  }
  const t0 = performance.now();
  const bytes = await readWhole(options.file);
  const descriptor = datasetFileDescriptor(bytes);
  if (descriptor.kind !== 'exact') {
    const why = 'only exact datasets are kept in PostgreSQL';
    throw new TrainprintError('INVALID_OPTIONS', `${options.file} holds a portrait: ${why}`);
  }
  const { id, kind: _kind, window: _window, ...fields } = descriptor;
  const target = options.dataset ?? (id as string);
  return intoPostgres(options, { ...fields, id: target }, t0, async (engine) => {
    await engine.importDataset(bytes, { into: target });
  });
}

/**
 * Create the stored dataset, attach it to a fresh engine, load it with `load`, close. A dataset that
 * `load` left empty (the input was refused before anything was appended) is dropped again.
 */
async function intoPostgres(
  target: PostgresTargetOptions,
  fields: Record<string, unknown> & { id: string },
  t0: number,
  load: (engine: Engine) => Promise<void>,
): Promise<PostgresDatasetResult> {
  if (typeof target.into !== 'string') throw new TrainprintError('INVALID_OPTIONS', 'into must be a postgres:// URL');
  const connection: PostgresDatasetConnection = {
    url: target.into,
    ...(target.schema ? { schema: target.schema } : {}),
  };
  const ds = await createPostgresDataset({
    ...connection,
    ...fields,
    id: fields.id,
    partitions: target.partitions,
    replace: target.replace,
  });
  const engine = await createEngine();
  try {
    await engine.attachDataset(ds);
    await load(engine);
    const stats = engine.datasets().find((d) => d.id === ds.id)!;
    return { into: ds.label, tables: ds.tables, partitions: ds.partitions, elapsed_ms: performance.now() - t0, stats };
  } catch (e) {
    await dropIfEmpty(ds);
    throw e;
  } finally {
    engine.dispose();
    await ds.close();
  }
}

async function dropIfEmpty(ds: PostgresDataset): Promise<void> {
  try {
    if ((await ds.info()).documents === 0) await ds.drop();
  } catch {
    /* the database may be what failed: the first error is the one to report */
  }
}

/** A file's bytes (INVALID_INPUT naming the file when it cannot be read). */
async function readWhole(path: string): Promise<Uint8Array> {
  if (typeof path !== 'string' || path.length === 0) {
    throw new TrainprintError('INVALID_OPTIONS', 'file must be a file path');
  }
  try {
    if (!(await stat(path)).isFile()) {
      throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' });
    }
    return new Uint8Array(await readFile(path));
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    const why = code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : String(e);
    throw new TrainprintError('INVALID_INPUT', `${path}: ${why}`, { cause: e });
  }
}

/** The descriptor inside a dataset file (SNAPSHOT_INCOMPATIBLE when it is not one; the rest is checked on import). */
function datasetFileDescriptor(bytes: Uint8Array): Record<string, unknown> {
  try {
    const [, payload] = decode(bytes) as [Record<string, unknown>, Uint8Array];
    const d = (decode(payload) as { descriptor?: Record<string, unknown> }).descriptor;
    if (d && typeof d === 'object' && typeof d.id === 'string') return d;
  } catch {
    /* reported below */
  }
  throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', 'not a dataset file');
}

/** Pieces are gathered into writes of this size (fewer system calls than one per small piece) … */
const WRITE_BUFFER = 2 << 20;
/** … and this many writes are in flight while the next pieces are made. */
const WRITES_IN_FLIGHT = 4;
/** After this many bytes are written, their flush to disk is started (fdatasync, not awaited). */
const SYNC_EVERY = 64 << 20;

/** Node's native CRC-32 (Node ≥ 20.15, 22.2): the same values as the portable one, many times faster. */
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/**
 * Write a snapshot stream to `path` through a temporary file in the same directory and a rename,
 * a piece at a time (the file is never whole in memory). Returns the file's size.
 */
async function writeAtomic(path: string, stream: SnapshotStream): Promise<number> {
  const { randomBytes } = await import('node:crypto'); // here, not at the top: a scan loads this module and no crypto
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'wx');
    try {
      await writeStream(fh, stream);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    return stream.length;
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    if (e instanceof TrainprintError) throw e;
    const code = (e as { code?: unknown })?.code;
    throw new TrainprintError(
      'INVALID_INPUT',
      `${path}: cannot write the dataset file (${typeof code === 'string' ? code : e instanceof Error ? e.message : String(e)})`,
      { cause: e },
    );
  }
}

/**
 * Write the pieces in order, then the patch. The pieces are copied into a few buffers whose writes
 * run in the background (the thread pool) while the next pieces are made, and the written part is
 * flushed to disk as it grows, so the final fsync finds little left to do: making the pieces (the
 * gather of the sorted columns, the texts), writing them and flushing them overlap instead of
 * taking turns.
 */
async function writeStream(fh: FileHandle, stream: SnapshotStream): Promise<void> {
  const buffers = Array.from({ length: WRITES_IN_FLIGHT }, () => new Uint8Array(WRITE_BUFFER));
  const writes: Array<Promise<void> | null> = buffers.map(() => null);
  let failed: unknown = null;
  let current = 0,
    fill = 0,
    position = 0,
    synced = 0;
  let syncing: Promise<void> | null = null;
  const writeAt = async (bytes: Uint8Array, at: number) => {
    for (let done = 0; done < bytes.length; )
      done += (await fh.write(bytes, done, bytes.length - done, at + done)).bytesWritten;
  };
  const flush = async () => {
    if (fill > 0) {
      writes[current] = writeAt(buffers[current].subarray(0, fill), position).catch((e: unknown) => {
        failed ??= e;
      });
      position += fill;
      fill = 0;
      current = (current + 1) % buffers.length;
    }
    await writes[current]; // the next buffer is free once its last write is done
    writes[current] = null;
    if (failed) throw failed;
    if (position - synced >= SYNC_EVERY && !syncing) {
      synced = position;
      syncing = fh
        .datasync()
        .catch((e: unknown) => {
          failed ??= e;
        })
        .then(() => {
          syncing = null;
        });
    }
  };
  // A piece may be a view the stream reuses for the next one: it is copied before the next is taken.
  for (const piece of stream.pieces()) {
    for (let from = 0; from < piece.length; ) {
      const n = Math.min(piece.length - from, WRITE_BUFFER - fill);
      buffers[current].set(n === piece.length ? piece : piece.subarray(from, from + n), fill);
      fill += n;
      from += n;
      if (fill === WRITE_BUFFER) await flush();
    }
  }
  await flush();
  await Promise.all([...writes, syncing]);
  if (failed) throw failed;
  const { offset, bytes } = stream.patch();
  await writeAt(bytes, offset);
}

/** What {@link readDatasetInfo} reports. */
export interface DatasetFileInfo {
  readonly file: string;
  readonly file_bytes: number;
  /** The snapshot header: format, version, params, kind, counts { docs, keys }, checksum. */
  readonly header: Record<string, unknown>;
  /** The dataset's descriptor (id, name, kind, window, models, kb_dataset, meta). */
  readonly descriptor: Record<string, unknown>;
  /** Stats of the dataset as loaded (the file is fully validated: checksum, layout, params). */
  readonly stats: DatasetStats;
}

/**
 * Read and validate a dataset file: its header, descriptor and stats (`trainprint index info`).
 * @throws (rejects) INVALID_INPUT (cannot read the file), SNAPSHOT_INCOMPATIBLE (not a valid dataset file)
 * @example (await readDatasetInfo('c4-sample.tpds')).stats.documents
 */
export async function readDatasetInfo(path: string): Promise<DatasetFileInfo> {
  if (typeof path !== 'string' || path.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'path must be a file path');
  const bytes = await readWhole(path);
  const engine = await createEngine();
  try {
    const stats = await engine.importDataset(bytes); // validates everything
    const [header, payload] = decode(bytes) as [Record<string, unknown>, Uint8Array];
    const body = decode(payload) as { descriptor: Record<string, unknown> };
    return { file: path, file_bytes: bytes.length, header, descriptor: body.descriptor, stats };
  } finally {
    engine.dispose();
  }
}
