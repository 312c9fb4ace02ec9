/**
 * `scanFiles` (trainprint/node; `trainprint scan` without `--queue`): the items of input files (readDocuments: JSON
 * Lines, text, JSON arrays, Parquet, optionally .gz / .zst) scanned against datasets (files or PostgreSQL), their hits
 * written as JSON lines in input order, with checkpoints beside the output so that a scan stopped by a crash,
 * `kill -9` or Ctrl-C resumes where it was (`resume: true`) without repeating or losing an item. On one thread the
 * scan runs in this one; with `threads` > 1 on worker threads (./pool.ts), each loading the datasets once, while
 * this one reads the inputs and writes the hits in order.
 */
import { stat } from 'node:fs/promises';
import { createEngine, TrainprintError, type ScanItem } from '../../library.js';
import { readDocuments } from '../read-documents.js';
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
  /** UTF-8 bytes of the texts scanned in this run. */
  readonly bytes: number;
  /** Hits written (with those before a resume). */
  readonly hits: number;
  /** Milliseconds since the scan began (after loading the datasets). */
  readonly ms: number;
  /** Bytes of the input files, when none is compressed (an ETA's base), else null. */
  readonly input_bytes: number | null;
}

/** What {@link scanFiles} did. */
export interface ScanFilesResult extends ScanFilesProgress {
  /** Items not searched: fewer words than minWords. */
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

/**
 * Scan input files against datasets into a file of hit lines (see the module comment).
 * @throws (rejects) INVALID_OPTIONS, INVALID_INPUT (an unreadable input or dataset, a checkpoint of another scan),
 *   NOT_FOUND, as the scan does
 * @example
 * import { scanFiles } from 'trainprint/node'
 * const r = await scanFiles({ datasets: ['books.tpds'], inputs: ['outputs.jsonl'], out: 'hits.jsonl', threads: 2 })
 */
export async function scanFiles(options: ScanFilesOptions): Promise<ScanFilesResult> {
  const minWords = options.minWords ?? 50;
  const paraphrase = options.paraphrase ?? false;
  const textField = options.textField ?? 'text';
  const idField = options.idField ?? 'id';
  const threads = options.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256)
    throw new TrainprintError('INVALID_OPTIONS', 'threads must be an integer in 1..256');
  if (!Array.isArray(options.datasets) || options.datasets.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'datasets: at least one dataset file or postgres:// URL');
  if (!Array.isArray(options.inputs) || options.inputs.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'inputs: at least one input file');
  const toStdout = options.out === '-';
  if (toStdout && options.resume) throw new TrainprintError('INVALID_OPTIONS', 'resume needs an output file (not -)');
  const checkpointMs = options.checkpointMs ?? 2000;

  // the inputs are checked (and sized) before anything is loaded: a typo fails at once
  const inputs: Array<{ path: string; size: number }> = [];
  for (const path of options.inputs) {
    try {
      inputs.push({ path, size: (await stat(path)).size });
    } catch {
      throw new TrainprintError('INVALID_INPUT', `${path}: no such file`);
    }
  }
  const inputBytes = options.inputs.every((p) => !/\.(gz|gzip|zst|zstd|parquet)$/i.test(p))
    ? inputs.reduce((n, i) => n + i.size, 0)
    : null;
  const identity: ScanIdentity = { inputs, datasets: [...options.datasets], minWords, paraphrase, textField, idField };
  const cpPath = checkpointPath(options.out);
  const checkpoint = options.resume ? readCheckpoint(cpPath) : null;
  if (checkpoint && !sameScan(checkpoint.scan, identity))
    throw new TrainprintError(
      'INVALID_INPUT',
      `${cpPath}: the checkpoint is of another scan (inputs, their sizes, datasets or options differ)`,
    );
  const done0 = checkpoint?.items ?? 0;
  const hits0 = checkpoint?.hits ?? 0;
  const docs = readDocuments(options.inputs, { textField, idField, missingId: 'position' });

  // the engine (one thread) or the workers, with the datasets loaded, before the output is touched
  const engine = threads === 1 ? await createEngine() : null;
  const closeDatasets = engine ? await loadDatasetSpecs(engine, options.datasets) : async () => {};
  const pool = engine ? null : new ScanPool(WORKER_URL, threads, { datasets: options.datasets, minWords, paraphrase });
  let out: HitOutput | null = null;
  try {
    if (engine)
      await engine.scanItem({ id: 'check', text: '' }, { minWords, paraphrase }); // checks the datasets
    else await pool!.ready; // every thread has loaded the datasets (or the first failure is thrown)
    out = HitOutput.open(options.out, checkpoint ? checkpoint.bytes : null);
    const started = performance.now();
    let items = done0,
      hits = hits0,
      bytes = 0,
      skipped = 0,
      lastCheckpoint = started;
    const progress = (): ScanFilesProgress => ({
      items,
      bytes,
      hits,
      ms: performance.now() - started,
      input_bytes: inputBytes,
    });
    const save = (force: boolean) => {
      if (toStdout || !out) return;
      const now = performance.now();
      if (!force && now - lastCheckpoint < checkpointMs) return;
      lastCheckpoint = now;
      writeCheckpoint(cpPath, { items, hits, bytes: out.sync(), scan: identity });
    };
    const signal = options.signal;
    let seen = 0;
    async function* todo(): AsyncGenerator<ScanItem> {
      for await (const d of docs) {
        if (signal?.aborted) return;
        if (seen++ < done0) continue;
        yield d;
      }
    }
    if (!toStdout && !checkpoint) save(true); // a checkpoint from the start: a resume of a scan killed at once works
    if (engine) {
      const scan = engine.scan(todo(), {
        minWords,
        paraphrase,
        onProgress: (p) => {
          items = done0 + p.items;
          bytes = p.bytes;
          save(false);
          options.onProgress?.(progress());
        },
      });
      for (;;) {
        const r = await scan.next();
        if (r.done) {
          skipped = r.value.skipped;
          break;
        }
        out.write(hitLine(r.value));
        hits++;
      }
    } else {
      const p = pool!;
      const pending: Array<{ reply: Promise<Awaited<ReturnType<ScanPool['run']>>>; count: number }> = [];
      const take = async () => {
        const { reply, count } = pending.shift()!;
        const r = await reply;
        out!.write(r.lines);
        items += count;
        hits += r.hits;
        bytes += r.bytes;
        skipped += r.skipped;
        save(false);
        options.onProgress?.(progress());
      };
      let batch: ScanItem[] = [];
      let chars = 0;
      const send = () => {
        pending.push({ reply: p.run(batch), count: batch.length });
        pending[pending.length - 1].reply.catch(() => undefined); // taken in order below
        batch = [];
        chars = 0;
      };
      for await (const d of todo()) {
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
    save(true);
    out.close();
    out = null;
    return { ...progress(), skipped, resumed: done0, interrupted: signal?.aborted === true };
  } finally {
    out?.close();
    await pool?.close();
    await closeDatasets();
  }
}
