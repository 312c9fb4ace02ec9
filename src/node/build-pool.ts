/**
 * Parallel fingerprinting for `buildDatasetFile`: documents are cut into batches, worker threads
 * (./build-worker.ts, one core each) fingerprint the batches, and the batches come back out in the
 * order they went in, so the dataset the main thread assembles from them, and the file it writes,
 * is the same for any number of threads.
 *
 * Memory is bounded: at most `2 × threads` batches are in flight (each ≤ BATCH_CHARS of text), and
 * the next documents are read only when a finished batch has been taken, so a slow consumer slows
 * the reading instead of letting it run ahead through a large input.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  MESSAGES, TrainprintError, type DatasetDocument, type ErrorCode, type FingerprintBatch, type FingerprintedDocuments,
} from '../index.js';

/** A batch is sent once it holds this many UTF-16 units of text (≈ 10–30 ms of work) … */
const BATCH_CHARS = 1 << 20;
/** … or this many documents (many tiny documents: keeps one message from growing unbounded). */
const BATCH_DOCS = 2048;
/** The most threads a build may ask for. */
export const MAX_THREADS = 256;

/** The default number of fingerprinting threads: the cores this process may use. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

interface Job {
  readonly seq: number;
  readonly documents: readonly DatasetDocument[];
  readonly resolve: (batch: FingerprintBatch) => void;
  readonly reject: (error: TrainprintError) => void;
}

interface Reply {
  readonly seq: number;
  readonly batch?: FingerprintBatch;
  readonly error?: { readonly code: string; readonly detail: string; readonly index: number };
}

/** The error of a batch, naming the document it was about (or the batch's first and last). */
function batchError(
  documents: readonly DatasetDocument[], code: string, detail: string, index: number,
): TrainprintError {
  const known = (Object.hasOwn(MESSAGES, code) ? code : 'INTERNAL') as ErrorCode;
  const where = index >= 0 && index < documents.length
    ? `document "${documents[index].id}"`
    : `documents "${documents[0]?.id}" to "${documents[documents.length - 1]?.id}"`;
  return new TrainprintError(known, `${where}: ${detail}`);
}

/** Worker threads, each with a queue of jobs; results are matched to jobs by sequence number. */
class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly queues: Map<number, Job>[] = [];
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
        if (reply.batch) return job.resolve(reply.batch);
        const { code = 'INTERNAL', detail = 'failed', index = -1 } = reply.error ?? {};
        const error = batchError(job.documents, code, detail, index);
        job.reject(error);
        this.fail(error);
      });
      // A crash or an early exit fails every job the worker still had: never a hang.
      worker.on('error', (e) => {
        this.fail(new TrainprintError('INTERNAL', `fingerprinting thread failed (${e.message})`, { cause: e }));
      });
      this.exits.push(new Promise((resolve) => worker.once('exit', () => resolve())));
      worker.on('exit', (code) => {
        this.exited.add(worker);
        if (!this.closing) this.fail(new TrainprintError('INTERNAL', `fingerprinting thread exited (code ${code})`));
      });
      this.workers.push(worker);
      this.queues.push(queue);
    }
  }

  /** Fingerprint `documents` on the least busy worker. */
  submit(seq: number, documents: readonly DatasetDocument[]): Promise<FingerprintBatch> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      let w = 0;
      for (let i = 1; i < this.queues.length; i++) if (this.queues[i].size < this.queues[w].size) w = i;
      this.queues[w].set(seq, { seq, documents, resolve, reject });
      this.workers[w].postMessage({ seq, texts: documents.map((d) => d.text) });
    });
  }

  /**
   * Reject every queued job with the first error (it names its document; later errors are
   * consequences of stopping) and stop the workers.
   */
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

/** Options of {@link fingerprintInThreads}. */
export interface ThreadedFingerprintOptions {
  readonly threads: number;
  readonly kind: 'exact' | 'portrait';
  readonly window?: number;
  /** The worker script (the built ./build-worker.js beside this module). */
  readonly workerUrl: URL;
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
  const { threads, kind, window, workerUrl } = options;
  const pool = new WorkerPool(workerUrl, threads, { kind, ...(window === undefined ? {} : { window }) });
  const inFlight: { documents: DatasetDocument[]; fingerprints: Promise<FingerprintBatch> }[] = [];
  const maxInFlight = 2 * threads;
  let seq = 0;
  const send = (documents: DatasetDocument[]) => {
    const fingerprints = pool.submit(seq++, documents);
    fingerprints.catch(() => {}); // awaited in order below; a later batch may fail while an earlier one is awaited
    inFlight.push({ documents, fingerprints });
  };
  try {
    let batch: DatasetDocument[] = [];
    let chars = 0;
    for await (const doc of source) {
      if (doc === null || typeof doc !== 'object' || typeof doc.text !== 'string') {
        const id = JSON.stringify((doc as { id?: unknown })?.id ?? null);
        throw new TrainprintError('INVALID_INPUT', `document ${id}: text must be a string`);
      }
      batch.push(doc);
      chars += doc.text.length;
      if (chars < BATCH_CHARS && batch.length < BATCH_DOCS) continue;
      send(batch);
      batch = [];
      chars = 0;
      while (inFlight.length >= maxInFlight) {
        const head = inFlight.shift()!;
        yield { documents: head.documents, fingerprints: await head.fingerprints };
      }
    }
    if (batch.length > 0) send(batch);
    while (inFlight.length > 0) {
      const head = inFlight.shift()!;
      yield { documents: head.documents, fingerprints: await head.fingerprints };
    }
  } finally {
    await pool.close();
  }
}
