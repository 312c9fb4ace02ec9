/**
 * The file scan (`scanFiles` of trainprint/node, ./files.ts; `trainprint scan` without `--queue`, ./alone.ts): the
 * items of input files (readDocuments: JSON Lines, text, JSON arrays, Parquet, optionally .gz / .zst) scanned against
 * datasets (files or PostgreSQL), their hits written as JSON lines in input order, with checkpoints beside the output so that a scan stopped by a crash,
 * `kill -9` or Ctrl-C resumes where it was (`resume: true`) without repeating or losing an item. On one thread the
 * scan runs in this one; with `threads` > 1 on worker threads (./pool.ts), each loading the datasets once, while
 * this one reads the inputs and writes the hits in order.
 */
import { stat } from 'node:fs/promises';
import {
  positiveInt,
  DEFAULT_MIN_WORDS,
  MAX_THREADS,
  readThrough,
  SCAN_OPTIONS_REQUEST,
  TrainprintError,
  type Engine,
  type ScanItem,
} from '../../library.js';
import { readDocumentBatches } from '../read-documents.js';
import { checkpointPath, readCheckpoint, sameScan, writeCheckpoint, type ScanIdentity } from './checkpoint.js';
import { loadDatasetSpecs } from '../load-datasets.js';
import { HitOutput, hitLine } from './output.js';
import { ScanPool } from './pool.js';

/** Options of {@link scanFiles}. */
export interface ScanFilesOptions {
  /** Dataset files and/or `postgres://` URLs (as `trainprint analyze --dataset`): every exact dataset is searched. */
  readonly datasets: readonly string[];
  /** Input files (.jsonl, .ndjson, .txt, .json, .parquet; .gz / .zst). */
  readonly inputs: readonly string[];
  /** The output file of hit lines; `-` for stdout (no checkpoints then). */
  readonly out: string;
  /** @default 50 */
  readonly minWords?: number;
  /** @default false */
  readonly paraphrase?: boolean;
  /** @default 'text' */
  readonly textField?: string;
  /** The id field; a record without it gets `PATH:LINE` (`PATH:ROW`, `PATH[INDEX]`). @default 'id' */
  readonly idField?: string;
  /** Threads that scan (1: this one). @default 1 */
  readonly threads?: number;
  /** Continue from the output's checkpoint (none: from the start). @default false */
  readonly resume?: boolean;
  /** Stops the scan after the items in hand: the output and checkpoint are written, `interrupted` is true. */
  readonly signal?: AbortSignal;
  /** Called after each item (one thread) or batch (threads), and when the datasets are loaded. */
  readonly onProgress?: (p: ScanFilesProgress) => void;
  /** Milliseconds between checkpoints. @default 2000 */
  readonly checkpointMs?: number;
}

/** How far a file scan is. */
export interface ScanFilesProgress {
  /** Items done (with those a resume skipped). */
  readonly items: number;
  /** UTF-8 bytes of the texts scanned in this run (what its MB/s counts). */
  readonly bytes: number;
  /**
   * UTF-8 bytes of the texts of the items done, with those a resume skipped: the part of the input behind (the
   * share of `input_bytes` a progress bar shows; `bytes` alone would start a resumed scan's bar at 0).
   */
  readonly done_bytes: number;
  /** Hits written (with those before a resume). */
  readonly hits: number;
  /** Milliseconds since the scan began (after loading the datasets). */
  readonly ms: number;
  /** Bytes of the input files, when none is compressed (an ETA's base), else null. */
  readonly input_bytes: number | null;
}

/** What {@link scanFiles} did. */
export interface ScanFilesResult extends ScanFilesProgress {
  /** Items not searched: fewer words than minWords (with those before a resume). */
  readonly skipped: number;
  /** Items a resume skipped (done before). */
  readonly resumed: number;
  /** True when `signal` stopped it (the checkpoint says where). */
  readonly interrupted: boolean;
}

/** A batch for the threads: this many items, or this many UTF-16 units of text. */
const BATCH_ITEMS = 256;
const BATCH_CHARS = 1 << 18;
/** The scan worker's file, beside the built trainprint/node (dist/scan-worker.js). */
const WORKER_URL = new URL('./scan-worker.js', import.meta.url);

/** The options of a file scan, checked, with their defaults. */
interface Plan {
  readonly minWords: number;
  readonly paraphrase: boolean;
  readonly textField: string;
  readonly idField: string;
  readonly threads: number;
  readonly toStdout: boolean;
  readonly checkpointMs: number;
}

function planOf(options: ScanFilesOptions): Plan {
  const threads = positiveInt('threads', options.threads, 1, MAX_THREADS);
  if (!Array.isArray(options.datasets) || options.datasets.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'datasets: at least one dataset file or postgres:// URL');
  if (!Array.isArray(options.inputs) || options.inputs.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'inputs: at least one input file');
  const toStdout = options.out === '-';
  if (toStdout && options.resume) throw new TrainprintError('INVALID_OPTIONS', 'resume needs an output file (not -)');
  // the scan's options as every door reads them (the datasets, loaded later, by the engine's scan)
  const given = { min_words: options.minWords, paraphrase: options.paraphrase };
  const o = readThrough(SCAN_OPTIONS_REQUEST, given, undefined);
  return {
    minWords: o.min_words ?? DEFAULT_MIN_WORDS,
    paraphrase: o.paraphrase ?? false,
    textField: options.textField ?? 'text',
    idField: options.idField ?? 'id',
    threads,
    toStdout,
    checkpointMs: options.checkpointMs ?? 2000,
  };
}

/**
 * The input files with their sizes (checked before anything is loaded: a typo fails at once), and their total
 * when none is compressed (an ETA's base), else null.
 */
async function sizeInputs(paths: readonly string[]): Promise<{ inputs: ScanIdentity['inputs']; total: number | null }> {
  const inputs: Array<{ path: string; size: number }> = [];
  for (const path of paths) {
    try {
      inputs.push({ path, size: (await stat(path)).size });
    } catch {
      throw new TrainprintError('INVALID_INPUT', `${path}: no such file`);
    }
  }
  const plain = paths.every((p) => !/\.(gz|gzip|zst|zstd|parquet)$/i.test(p));
  return { inputs, total: plain ? inputs.reduce((n, i) => n + i.size, 0) : null };
}

/** The counts of a file scan as it goes (items and hits with those before a resume). */
interface Tally {
  items: number;
  hits: number;
  bytes: number;
  /** UTF-8 bytes of the texts of the items a resume skipped. */
  resumedBytes: number;
  skipped: number;
}

/**
 * What a file scan on one thread needs of an engine: the datasets loaded into it and the scan — the Engine's
 * (`scanFiles`, ./files.ts) or the scan engine's (`trainprint scan`, ./alone.ts), the same service either way.
 */
export type FileScanEngine = Pick<Engine, 'scan' | 'scanItem' | 'importDataset' | 'attachDataset'>;

/** Makes the engine of a file scan on one thread (`synonyms` only for a scan for paraphrases). */
export type OpenFileScanEngine = (options: { readonly synonyms: boolean }) => Promise<FileScanEngine>;

/**
 * Scan input files against datasets into a file of hit lines (see the module comment), on one thread with the
 * engine that `open` makes, on several with the pool's threads.
 * @throws (rejects) INVALID_OPTIONS, INVALID_INPUT (an unreadable input or dataset, a checkpoint of another scan),
 *   NOT_FOUND, as the scan does
 * @example
 * const r = await scanFilesWith(createEngine, { datasets: ['books.tpds'], inputs: ['outputs.jsonl'], out: 'hits.jsonl' })
 */
export async function scanFilesWith(open: OpenFileScanEngine, options: ScanFilesOptions): Promise<ScanFilesResult> {
  const plan = planOf(options);
  const { minWords, paraphrase, textField, idField, threads, toStdout } = plan;
  const { inputs, total } = await sizeInputs(options.inputs);
  const identity: ScanIdentity = { inputs, datasets: [...options.datasets], minWords, paraphrase, textField, idField };
  const cpPath = checkpointPath(options.out);
  const checkpoint = options.resume ? readCheckpoint(cpPath) : null;
  if (checkpoint && !sameScan(checkpoint.scan, identity))
    throw new TrainprintError(
      'INVALID_INPUT',
      `${cpPath}: the checkpoint is of another scan (inputs, their sizes, datasets or options differ)`,
    );
  const done0 = checkpoint?.items ?? 0;
  const batches = readDocumentBatches(options.inputs, { textField, idField, missingId: 'position' });

  // the engine (one thread) or the workers, with the datasets loaded, before the output is touched
  // the WordNet table (a 580 KB module) only where the search reads it: a scan for copies aligns without synonyms
  // (src/services/scan/scan.ts), so it is left unloaded unless `paraphrase`
  const engine = threads === 1 ? await open({ synonyms: paraphrase }) : null;
  const closeDatasets = engine ? await loadDatasetSpecs(engine, options.datasets) : async () => {};
  const pool = engine ? null : new ScanPool(WORKER_URL, threads, { datasets: options.datasets, minWords, paraphrase });
  let out: HitOutput | null = null;
  try {
    if (engine)
      await engine.scanItem({ id: 'check', text: '' }, { minWords, paraphrase }); // checks the datasets
    else if (pool) await pool.ready; // every thread has loaded the datasets (or the first failure is thrown)
    const output = HitOutput.open(options.out, checkpoint ? checkpoint.bytes : null);
    out = output;
    const started = performance.now();
    const skipped0 = checkpoint?.skipped ?? 0;
    const tally: Tally = { items: done0, hits: checkpoint?.hits ?? 0, bytes: 0, resumedBytes: 0, skipped: skipped0 };
    let lastCheckpoint = started;
    const progress = (): ScanFilesProgress => ({
      items: tally.items,
      bytes: tally.bytes,
      done_bytes: tally.resumedBytes + tally.bytes,
      hits: tally.hits,
      ms: performance.now() - started,
      input_bytes: total,
    });
    const save = (force: boolean) => {
      if (toStdout) return;
      const now = performance.now();
      if (!force && now - lastCheckpoint < plan.checkpointMs) return;
      lastCheckpoint = now;
      const { items, hits, skipped } = tally;
      writeCheckpoint(cpPath, { items, hits, skipped, bytes: output.sync(), scan: identity });
    };
    const signal = options.signal;
    // no progress object (nor its clock read) for each item when no one reads it (`trainprint scan --quiet`)
    const onProgress = options.onProgress;
    const step = onProgress
      ? () => {
          save(false);
          onProgress(progress());
        }
      : () => save(false);
    if (!toStdout && !checkpoint) save(true); // a checkpoint from the start: a resume of a scan killed at once works
    const todo = itemsAfter(batches, done0, tally, signal);
    if (engine) await scanHere(engine, todo, { minWords, paraphrase, stop: signal }, output, tally, step);
    else if (pool) await scanOnThreads(pool, threads, todo, output, tally, step);
    save(true);
    output.close();
    out = null;
    return { ...progress(), skipped: tally.skipped, resumed: done0, interrupted: signal?.aborted === true };
  } finally {
    out?.close();
    await pool?.close();
    await closeDatasets();
  }
}

/**
 * The items of `batches` one at a time, past the first `skip` (done before a resume: their bytes are counted into the
 * share done), until `signal` aborts. An iterator over the arrays rather than a generator per item: most items are
 * settled in microseconds, and a turn of an async generator for each was a tenth of a scan of short outputs.
 */
function itemsAfter(
  batches: AsyncGenerator<ScanItem[], void, undefined>,
  skip: number,
  tally: Tally,
  signal: AbortSignal | undefined,
): AsyncIterableIterator<ScanItem> {
  let batch: readonly ScanItem[] = [];
  let at = 0;
  let seen = 0;
  const done = { done: true, value: undefined } as const;
  const close = async () => {
    await batches.return(undefined);
    return done;
  };
  const items: AsyncIterableIterator<ScanItem> = {
    [Symbol.asyncIterator]: () => items,
    async next() {
      for (;;) {
        if (signal?.aborted) return close();
        if (at === batch.length) {
          const r = await batches.next();
          if (r.done) return done;
          batch = r.value;
          at = 0;
          continue;
        }
        const d = batch[at++];
        if (seen++ >= skip) return { done: false, value: d };
        tally.resumedBytes += Buffer.byteLength(d.text, 'utf8');
      }
    },
    return: () => close(), // a consumer that stops early closes the files
  };
  return items;
}

/**
 * The scan on this thread: the items' hits written in order, `step` after each item. The scan reads the items ahead
 * to look them up in batches, and `stop` (the file scan's signal) ends it right after the item at which it is
 * aborted, as the reader's own check (itemsAfter) did when the items went one at a time.
 */
async function scanHere(
  engine: FileScanEngine,
  items: AsyncIterable<ScanItem>,
  options: { readonly minWords: number; readonly paraphrase: boolean; readonly stop: AbortSignal | undefined },
  out: HitOutput,
  tally: Tally,
  step: () => void,
): Promise<void> {
  const [before, skippedBefore] = [tally.items, tally.skipped];
  const scan = engine.scan(items, {
    ...options,
    readAhead: true,
    onProgress: (p) => {
      tally.items = before + p.items;
      tally.bytes = p.bytes;
      tally.skipped = skippedBefore + p.skipped;
      step();
    },
  });
  for (;;) {
    const r = await scan.next();
    if (r.done) {
      tally.skipped = skippedBefore + r.value.skipped;
      return;
    }
    out.write(hitLine(r.value));
    tally.hits++;
  }
}

/**
 * The scan on the pool's threads: batches of items sent as they are read, at most two a thread ahead, their
 * replies taken in the order sent (so the output is in input order), `step` after each batch.
 */
async function scanOnThreads(
  pool: ScanPool,
  threads: number,
  items: AsyncIterable<ScanItem>,
  out: HitOutput,
  tally: Tally,
  step: () => void,
): Promise<void> {
  const pending: Array<{ reply: ReturnType<ScanPool['run']>; count: number }> = [];
  const take = async () => {
    const next = pending.shift();
    if (!next) return;
    const r = await next.reply;
    out.write(r.lines);
    tally.items += next.count;
    tally.hits += r.hits;
    tally.bytes += r.bytes;
    tally.skipped += r.skipped;
    step();
  };
  let batch: ScanItem[] = [];
  let chars = 0;
  const send = () => {
    const reply = pool.run(batch);
    reply.catch(() => undefined); // taken in order below
    pending.push({ reply, count: batch.length });
    batch = [];
    chars = 0;
  };
  for await (const d of items) {
    batch.push(d);
    chars += d.text.length;
    if (batch.length >= BATCH_ITEMS || chars >= BATCH_CHARS) {
      send();
      while (pending.length > 2 * threads) await take();
    }
  }
  if (batch.length > 0) send();
  while (pending.length > 0) await take();
}
