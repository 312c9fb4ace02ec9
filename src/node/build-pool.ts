/**
 * Parallel fingerprinting for `buildDatasetFile`: the input is cut into batches, worker threads
 * (./build-worker.ts, one core each) fingerprint the batches, and the batches come back out in the
 * order they went in, so the dataset the main thread assembles from them, and the file it writes,
 * is the same for any number of threads.
 *
 * A plain JSON Lines file is cut into byte ranges that the workers read and parse themselves
 * (./jsonl-ranges.ts): the main thread only hands out ranges and adds what comes back, so reading
 * and JSON parsing scale with the threads too. Other inputs (compressed, JSON arrays, Parquet,
 * text files) are read on the main thread and their texts sent to the workers in batches.
 *
 * The workers take ≈ 0.1 s to start (loading the library, compiling their code): until one is
 * ready, the main thread does the oldest batch itself whenever it would otherwise wait, so that a
 * small build is not slower with threads than without.
 *
 * Memory is bounded: at most `2 × threads` batches are in flight (each ≤ about 1 MB of input), and
 * the next batch is read or handed out only when a finished one has been taken, so a slow consumer
 * slows the reading instead of letting it run ahead through a large input.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  createDatasetFingerprinter,
  MAX_THREADS,
  MESSAGES,
  TrainprintError,
  type DatasetDocument,
  type DatasetFingerprinter,
  type ErrorCode,
  type FingerprintedDocuments,
} from '../library.js';
import { runBuildJob, type BuildJob, type BuildReply } from './build-job.js';
import { jsonlRanges } from './jsonl-ranges.js';
import { readDocuments, type InputFile, type ReadDocumentsOptions, type RecordFields } from './read-documents.js';

/** A batch is sent once it holds this many UTF-16 units of text (≈ 10–30 ms of work) … */
const BATCH_CHARS = 1 << 20;
/** … or this many documents (many tiny documents: keeps one message from growing unbounded). */
const BATCH_DOCS = 2048;
/** Bytes of JSON Lines per range a worker reads and parses (about a text batch's worth of work). */
const RANGE_BYTES = 1 << 20;
// the one bound of every `threads` (src/corpus/work.ts): the commands pass `--threads` as given
export { MAX_THREADS };

/** The default number of fingerprinting threads: the cores this process may use. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

type Reply = BuildReply;
type Message = BuildJob;

/** A batch sent to the pool: given to a worker when one is ready and has room, or done on the main thread. */
interface Job {
  readonly seq: number;
  readonly message: Message;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: TrainprintError) => void;
}

/**
 * Young generation of a worker's heap (MB). Each 1 MB range leaves a few MB of short-lived strings and
 * arrays; with the default, more of them live through a collection and are copied. 64 MB: a 192 MB build
 * with 2 threads 2.73–2.75 s → 2.66 s (bench/build-threads.mjs input, whole command), peak RSS unchanged.
 */
const WORKER_YOUNG_MB = 64;

/** Batches a worker holds at a time: the one it works on and the next, so it never waits for a message. */
const PER_WORKER = 2;

/** A batch's error code as a TrainprintError code (an unknown one is INTERNAL). */
const errorCode = (code: string): ErrorCode => (Object.hasOwn(MESSAGES, code) ? code : 'INTERNAL') as ErrorCode;

/**
 * Worker threads and the batches waiting for them. A worker is given batches once it says its core
 * is ready, at most {@link PER_WORKER} at a time, oldest first; until then (loading the library and
 * compiling take ≈ 0.1 s) the batches wait, and the main thread may take them ({@link steal}).
 * Replies are matched to batches by sequence number. A batch's error is its reply (the consumer,
 * who takes batches in order, words it: only it knows the line numbers of a range); a worker that
 * stops after such an error fails the batch it still held, which comes later in the order. A
 * worker that dies otherwise fails every batch: never a hang.
 */
class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly queues: Map<number, Job>[] = [];
  private readonly pending: Job[] = [];
  private readonly ready = new Set<number>();
  /** Workers that stopped after a batch's error: given no more jobs, their exit expected. */
  private readonly stopped = new Set<number>();
  /** Resolved when each worker has exited (worker.terminate() of an exited worker never settles). */
  private readonly exits: Promise<void>[] = [];
  private readonly exited = new Set<Worker>();
  private closed: Promise<void> | null = null;
  private failure: TrainprintError | null = null;
  private closing = false;

  constructor(url: URL, threads: number, workerData: { kind: 'exact' | 'portrait'; window?: number }) {
    for (let w = 0; w < threads; w++) {
      const worker = new Worker(url, { workerData, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
      const queue = new Map<number, Job>();
      worker.on('message', (message: Reply | { ready: true } | { failed: { detail: string } }) => {
        if ('ready' in message) {
          this.ready.add(w);
          return this.dispatch();
        }
        if ('failed' in message) {
          const detail = `fingerprinting thread could not start (${message.failed.detail})`;
          return this.fail(new TrainprintError('INTERNAL', detail));
        }
        const job = queue.get(message.seq);
        if (!job) return;
        queue.delete(message.seq);
        job.resolve(message);
        if (message.error?.fatal) this.stop(w);
        this.dispatch();
      });
      // A crash or an early exit fails every job the worker still had: never a hang.
      worker.on('error', (e) => {
        this.fail(new TrainprintError('INTERNAL', `fingerprinting thread failed (${e.message})`, { cause: e }));
      });
      this.exits.push(new Promise((resolve) => worker.once('exit', () => resolve())));
      worker.on('exit', (code) => {
        this.exited.add(worker);
        if (this.closing || this.stopped.has(w)) return;
        this.fail(new TrainprintError('INTERNAL', `fingerprinting thread exited (code ${code})`));
      });
      this.workers.push(worker);
      this.queues.push(queue);
    }
  }

  /** Queue `message` as job `seq`; resolves with its reply (an error reply too). */
  submit(seq: number, message: Message): Promise<Reply> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.pending.push({ seq, message, resolve, reject });
      this.dispatch();
    });
  }

  /** The oldest batch no worker has taken yet, for the main thread to do (the caller resolves it). */
  steal(): Job | undefined {
    return this.failure ? undefined : this.pending.shift();
  }

  /** Give waiting batches to ready workers with room, the least loaded first. */
  private dispatch(): void {
    while (this.pending.length > 0) {
      let w = -1;
      for (let i = 0; i < this.workers.length; i++) {
        if (!this.ready.has(i) || this.stopped.has(i) || this.queues[i].size >= PER_WORKER) continue;
        if (w < 0 || this.queues[i].size < this.queues[w].size) w = i;
      }
      if (w < 0) break;
      const job = this.pending.shift()!;
      this.queues[w].set(job.seq, job);
      this.workers[w].postMessage({ seq: job.seq, ...job.message });
    }
  }

  /**
   * Worker `w` stopped after a batch's error: the batch it still held, and with no worker left the
   * waiting ones, come later in the order than that error, which the consumer meets first.
   */
  private stop(w: number): void {
    this.stopped.add(w);
    const later = new TrainprintError('INTERNAL', "a fingerprinting thread stopped on an earlier batch's error");
    for (const job of this.queues[w].values()) job.reject(later);
    this.queues[w].clear();
    if (this.stopped.size === this.workers.length) {
      for (const job of this.pending.splice(0)) job.reject(later);
    }
  }

  /** Reject every queued job with the first error and stop the workers. */
  private fail(error: TrainprintError): void {
    if (this.closing && !this.failure) return; // exits caused by close()
    this.failure ??= error;
    for (const job of this.pending.splice(0)) job.reject(this.failure);
    for (const q of this.queues) {
      for (const job of q.values()) job.reject(this.failure);
      q.clear();
    }
    void this.close();
  }

  /** Stop every worker (idempotent). */
  close(): Promise<void> {
    this.closing = true;
    this.closed ??= Promise.all(this.workers.map((w) => (this.exited.has(w) ? undefined : w.terminate())))
      .then(() => Promise.all(this.exits))
      .then(() => {});
    return this.closed;
  }
}

/** Options of {@link fingerprintInThreads} and {@link fingerprintFilesInThreads}. */
export interface ThreadedFingerprintOptions {
  readonly threads: number;
  readonly kind: 'exact' | 'portrait';
  readonly window?: number;
  /** The worker script (the built ./build-worker.js beside this module). */
  readonly workerUrl: URL;
}

/** A batch of {@link fingerprintFilesInThreads}: its documents, their fingerprints, and the file they are from. */
export interface FileBatch extends FingerprintedDocuments {
  /** Index of the file in `files`. */
  readonly file: number;
}

/** What a batch in flight turns into once its reply is in (called in order: line numbers add up). */
type Settle = (reply: Reply) => FileBatch;

/**
 * Batches in flight, taken out in the order they were sent; at most `2 × threads` at a time
 * (`full`: take the oldest first). While the oldest is not done and a batch waits for a worker,
 * the main thread does that batch itself, with a core of its own.
 */
class InFlight {
  private readonly pool: WorkerPool;
  private readonly queue: { reply: Promise<Reply>; done: boolean; settle: Settle }[] = [];
  private readonly max: number;
  private seq = 0;
  /** The main thread's own fingerprinter (null: it failed, or its core did: not used again). */
  private helper: Promise<DatasetFingerprinter | null> | null;

  constructor(options: ThreadedFingerprintOptions) {
    const { threads, kind, window, workerUrl } = options;
    const what = { kind, ...(window === undefined ? {} : { window }) };
    this.pool = new WorkerPool(workerUrl, threads, what);
    this.helper = createDatasetFingerprinter(what).catch(() => null);
    this.max = 2 * threads;
  }

  get size(): number {
    return this.queue.length;
  }

  get full(): boolean {
    return this.queue.length >= this.max;
  }

  send(message: Message, settle: Settle): void {
    const entry = { reply: this.pool.submit(this.seq++, message), done: false, settle };
    // taken in order below; a later batch may fail while an earlier one is awaited
    entry.reply.then(
      () => {
        entry.done = true;
      },
      () => {
        entry.done = true;
      },
    );
    this.queue.push(entry);
  }

  /** The oldest batch, settled (a batch's error is thrown here, in document order). */
  async take(): Promise<FileBatch> {
    const head = this.queue.shift()!;
    while (!head.done && this.helper) {
      const fingerprinter = await this.helper;
      if (!fingerprinter) {
        this.helper = null; // the workers do it all
        break;
      }
      const job = head.done ? undefined : this.pool.steal();
      if (!job) break;
      const { reply } = runBuildJob(fingerprinter, job.seq, job.message);
      if (reply.error?.fatal) this.helper = null;
      job.resolve(reply);
      // a turn of the event loop: the workers' messages (ready, replies) come in between batches
      await new Promise((resolve) => setImmediate(resolve));
    }
    return head.settle(await head.reply);
  }

  close(): Promise<void> {
    void this.helper?.then((f) => f?.dispose());
    return this.pool.close();
  }
}

/** A batch of documents read on the main thread: its error names the document it was about. */
function textsSettle(documents: readonly DatasetDocument[], file: number): Settle {
  return (reply) => {
    if (reply.error) {
      const { code, detail, index } = reply.error;
      const where =
        index >= 0 && index < documents.length
          ? `document "${documents[index].id}"`
          : `documents "${documents[0]?.id}" to "${documents[documents.length - 1]?.id}"`;
      throw new TrainprintError(errorCode(code), `${where}: ${detail}`);
    }
    return { documents, fingerprints: reply.batch!, file };
  };
}

/** Checks each document of `source` has a string text: the workers are sent only the texts. */
function checkText(doc: DatasetDocument): void {
  if (doc === null || typeof doc !== 'object' || typeof doc.text !== 'string') {
    const id = JSON.stringify((doc as { id?: unknown })?.id ?? null);
    throw new TrainprintError('INVALID_INPUT', `document ${id}: text must be a string`);
  }
}

/**
 * Send the documents of `source` in batches (taking finished batches out whenever the window is
 * full), then leave the last ones in flight.
 */
async function* sendDocuments(
  flight: InFlight,
  source: AsyncIterable<DatasetDocument>,
  file: number,
): AsyncGenerator<FileBatch> {
  let batch: DatasetDocument[] = [];
  let chars = 0;
  const send = () => {
    flight.send({ texts: batch.map((d) => d.text) }, textsSettle(batch, file));
    batch = [];
    chars = 0;
  };
  for await (const doc of source) {
    checkText(doc);
    batch.push(doc);
    chars += doc.text.length;
    if (chars < BATCH_CHARS && batch.length < BATCH_DOCS) continue;
    send();
    while (flight.full) yield await flight.take();
  }
  if (batch.length > 0) send();
}

/**
 * The documents of `source`, in order, in batches with their fingerprints made in `threads`
 * worker threads: the input of `engine.addFingerprintedDocuments`. Stopping the iteration (or an
 * error) stops the workers and the reading of `source`.
 */
export async function* fingerprintInThreads(
  source: AsyncIterable<DatasetDocument>,
  options: ThreadedFingerprintOptions,
): AsyncGenerator<FingerprintedDocuments> {
  const flight = new InFlight(options);
  try {
    const plain = ({ documents, fingerprints }: FileBatch): FingerprintedDocuments => ({ documents, fingerprints });
    for await (const b of sendDocuments(flight, source, 0)) yield plain(b);
    while (flight.size > 0) yield plain(await flight.take());
  } finally {
    await flight.close();
  }
}

/** Options of {@link fingerprintFilesInThreads}: the threads, and how the files are read. */
export interface ThreadedFilesOptions extends ThreadedFingerprintOptions {
  /** The files as `checkInputs` found them (same order as `files`). */
  readonly inputs: readonly InputFile[];
  readonly fields: RecordFields;
  /** What `readDocuments` is given for the files read on the main thread. */
  readonly read: Pick<ReadDocumentsOptions, 'textField' | 'idField' | 'format'>;
}

/**
 * The documents of `files`, in order, in batches with their fingerprints made in `threads` worker
 * threads. Plain JSON Lines files are read and parsed by the workers, a range at a time; the rest
 * is read here ({@link readDocuments}) and the texts sent in batches. The documents, their ids and
 * the errors (file and line) are those of `readDocuments`. Stopping the iteration (or an error)
 * stops the workers and the reading.
 * @throws (rejects) what `readDocuments` throws; INVALID_INPUT (a document that cannot be
 *   fingerprinted, named); INTERNAL (a thread died)
 */
export async function* fingerprintFilesInThreads(
  files: readonly string[],
  options: ThreadedFilesOptions,
): AsyncGenerator<FileBatch> {
  const { inputs, fields, read } = options;
  const flight = new InFlight(options);
  try {
    for (let f = 0; f < files.length; f++) {
      const path = files[f];
      const { format, compression, size } = inputs[f];
      if (format !== 'jsonl' || compression !== 'none') {
        yield* sendDocuments(flight, readDocuments([path], read), f);
        continue;
      }
      // Lines before each range: known once the ranges before it are taken, which is also
      // when its documents get their ids and its errors their line numbers.
      let linesBefore = 0;
      const settle: Settle = (reply) => {
        const base = linesBefore;
        if (reply.error) {
          const { code, detail, index, line } = reply.error;
          const docs = reply.documents;
          if (line >= 0) throw new TrainprintError(errorCode(code), `${path}:${base + line}: ${detail}`);
          if (docs && index >= 0 && index < docs.lines.length) {
            const id = docs.ids?.[index] ?? `${path}:${base + docs.lines[index]}`;
            throw new TrainprintError(errorCode(code), `document "${id}": ${detail}`);
          }
          throw new TrainprintError(errorCode(code), `${path}: ${detail}`);
        }
        const { texts, ids, lines, lineCount } = reply.documents!;
        linesBefore += lineCount;
        const documents: DatasetDocument[] = new Array(texts.length);
        for (let i = 0; i < texts.length; i++) {
          documents[i] = { id: ids ? ids[i] : `${path}:${base + lines[i]}`, text: texts[i] };
        }
        return { documents, fingerprints: reply.batch!, file: f };
      };
      for (const range of jsonlRanges(path, size, RANGE_BYTES)) {
        while (flight.full) yield await flight.take();
        flight.send({ range, fields }, settle);
      }
    }
    while (flight.size > 0) yield await flight.take();
  } finally {
    await flight.close();
  }
}
