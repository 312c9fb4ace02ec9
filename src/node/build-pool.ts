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
 * Memory is bounded: at most `2 × threads` batches are in flight (each ≤ about 1 MB of input), and
 * the next batch is read or handed out only when a finished one has been taken, so a slow consumer
 * slows the reading instead of letting it run ahead through a large input.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  MESSAGES, TrainprintError, type DatasetDocument, type ErrorCode, type FingerprintBatch, type FingerprintedDocuments,
} from '../index.js';
import { jsonlRanges, type JsonlRange, type RangeDocuments } from './jsonl-ranges.js';
import { readDocuments, type InputFile, type ReadDocumentsOptions, type RecordFields } from './read-documents.js';

/** A batch is sent once it holds this many UTF-16 units of text (≈ 10–30 ms of work) … */
const BATCH_CHARS = 1 << 20;
/** … or this many documents (many tiny documents: keeps one message from growing unbounded). */
const BATCH_DOCS = 2048;
/** Bytes of JSON Lines per range a worker reads and parses (about a text batch's worth of work). */
const RANGE_BYTES = 1 << 20;
/** The most threads a build may ask for. */
export const MAX_THREADS = 256;

/** The default number of fingerprinting threads: the cores this process may use. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

/** What a worker says went wrong with a batch (see ./build-worker.ts). */
interface ReplyError {
  readonly code: string;
  readonly detail: string;
  /** The failing document in the batch, or −1. */
  readonly index: number;
  /** The failing line of a range, counted from its first line, or −1. */
  readonly line: number;
  /** The worker stops (its core failed); otherwise it goes on with its next batch. */
  readonly fatal: boolean;
}

interface Reply {
  readonly seq: number;
  readonly batch?: FingerprintBatch;
  readonly documents?: RangeDocuments;
  readonly error?: ReplyError;
}

interface Job {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: TrainprintError) => void;
}

type Message = { readonly texts: readonly string[] } | { readonly range: JsonlRange; readonly fields: RecordFields };

/** A batch's error code as a TrainprintError code (an unknown one is INTERNAL). */
const errorCode = (code: string): ErrorCode => (Object.hasOwn(MESSAGES, code) ? code : 'INTERNAL') as ErrorCode;

/**
 * Worker threads, each with a queue of jobs; replies are matched to jobs by sequence number. A
 * batch's error is its job's reply (the consumer, who takes batches in order, words it: only it
 * knows the line numbers of a range); a worker that stops after such an error fails the jobs queued
 * behind it, which come later in the order. A worker that dies otherwise fails every job: never a hang.
 */
class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly queues: Map<number, Job>[] = [];
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
      const worker = new Worker(url, { workerData });
      const queue = new Map<number, Job>();
      worker.on('message', (reply: Reply) => {
        const job = queue.get(reply.seq);
        if (!job) return;
        queue.delete(reply.seq);
        job.resolve(reply);
        if (reply.error?.fatal) {
          this.stopped.add(w);
          const later = new TrainprintError('INTERNAL', 'a fingerprinting thread stopped on an earlier batch\'s error');
          for (const j of queue.values()) j.reject(later);
          queue.clear();
        }
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

  /** Send `message` as job `seq` to the least busy worker; resolves with its reply (an error reply too). */
  submit(seq: number, message: Message): Promise<Reply> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      let w = -1;
      for (let i = 0; i < this.queues.length; i++) {
        if (!this.stopped.has(i) && (w < 0 || this.queues[i].size < this.queues[w].size)) w = i;
      }
      if (w < 0) {
        return reject(new TrainprintError('INTERNAL', 'every fingerprinting thread stopped on an earlier error'));
      }
      this.queues[w].set(seq, { resolve, reject });
      this.workers[w].postMessage({ seq, ...message });
    });
  }

  /** Reject every queued job with the first error and stop the workers. */
  private fail(error: TrainprintError): void {
    if (this.closing && !this.failure) return; // exits caused by close()
    this.failure ??= error;
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
 * Batches in flight, taken out in the order they were sent; at most `2 × threads` at a time.
 * `send` returns false when the caller should first take the oldest (`take`).
 */
class InFlight {
  private readonly pool: WorkerPool;
  private readonly queue: { reply: Promise<Reply>; settle: Settle }[] = [];
  private readonly max: number;
  private seq = 0;

  constructor(options: ThreadedFingerprintOptions) {
    const { threads, kind, window, workerUrl } = options;
    this.pool = new WorkerPool(workerUrl, threads, { kind, ...(window === undefined ? {} : { window }) });
    this.max = 2 * threads;
  }

  get size(): number {
    return this.queue.length;
  }

  get full(): boolean {
    return this.queue.length >= this.max;
  }

  send(message: Message, settle: Settle): void {
    const reply = this.pool.submit(this.seq++, message);
    reply.catch(() => {}); // taken in order below; a later batch may fail while an earlier one is awaited
    this.queue.push({ reply, settle });
  }

  /** The oldest batch, settled (a batch's error is thrown here, in document order). */
  async take(): Promise<FileBatch> {
    const head = this.queue.shift()!;
    return head.settle(await head.reply);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** A batch of documents read on the main thread: its error names the document it was about. */
function textsSettle(documents: readonly DatasetDocument[], file: number): Settle {
  return (reply) => {
    if (reply.error) {
      const { code, detail, index } = reply.error;
      const where = index >= 0 && index < documents.length
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
  flight: InFlight, source: AsyncIterable<DatasetDocument>, file: number,
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
  files: readonly string[], options: ThreadedFilesOptions,
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
