/**
 * `createDocumentPool()`: EPUB, PDF and DOCX files read on worker threads that can be ended. A reader keeps to the
 * document's budget inside its own loops, but pdf.js also works in long synchronous stretches of its own (one object
 * of a million references, a font to parse) that no check inside a loop reaches, and a thread's heap fills before any
 * byte count says so. Here each file runs on a thread of its own, with a heap limit (`resourceLimits`) and a wall
 * clock: past either the thread is terminated — whatever it was doing — and the caller gets the PAYLOAD_TOO_LARGE the
 * budget gives, naming the limit; an aborted signal ends it the same way with the signal's reason. A file the reader's
 * own budget refuses (it stops inside its loop) ends its thread too, once answered, when the thread then holds more
 * than {@link HELD_KEPT}, so that what the reader built before it stopped goes with the thread's heap; any other
 * refusal leaves the thread to read the next file. Files beyond the threads wait, one line per owner (an account)
 * taken in turn and each line in the order it came, so twenty hostile files at once queue instead of taking the
 * thread that answers the other requests, and another account's file waits for one of them at most, not all twenty.
 * A file that has read for {@link HELD_MS} on every thread lets a spare thread start for the next one waiting
 * (`spareThreads`), so that the one it waits for at most is not one that reads for seconds.
 * Each thread runs the built `extract-worker.js` beside this file (`npm run build` makes it); where that file is
 * absent (the sources run directly) the files are read in this thread, with the same results.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  extractDocument,
  MAX_THREADS,
  TrainprintError,
  type DocumentExtraction,
  type DocumentFormat,
  type DocumentOffload,
  type ErrorCode,
  type ExtractDocumentOptions,
} from '../library.js';
import type { ExtractTask, ExtractWorkerData } from './extract-worker.js';
import { FairQueue } from './fair-queue.js';

/**
 * Options of {@link createDocumentPool}.
 * @example createDocumentPool({ threads: 2, memoryMb: 512 })
 */
export interface DocumentPoolOptions {
  /** Threads, 1–256 (`MAX_THREADS`). @default the available parallelism − 1, at least 1 */
  readonly threads?: number;
  /**
   * The heap a thread may use, in MiB (its `resourceLimits.maxOldGenerationSizeMb`), 64–16,384: a file whose reading
   * needs more is refused with PAYLOAD_TOO_LARGE naming it. @default 512
   */
  readonly memoryMb?: number;
  /**
   * The nice value (−20…19, higher runs less) each thread takes on Linux, so that the thread answering requests gets a
   * core before file reading does when the cores are all busy; a thread never takes a value below the process's. 0
   * keeps the process's priority. @default 10 (`os.constants.priority.PRIORITY_BELOW_NORMAL`)
   */
  readonly priority?: number;
  /**
   * How long a file waits for a thread, in ms, 1–3,600,000: one that waited that long is refused with
   * SERVICE_UNAVAILABLE (the HTTP service answers 503 with `Retry-After`), so that no request waits without a bound
   * behind files that take their threads to their time limit. @default 60000
   */
  readonly waitMs?: number;
  /**
   * Threads beyond `threads`, 0–64, each started for a waiting file while a file has run past {@link HELD_MS} on
   * every thread: one file that reads for seconds (a large book, a file inflating to its limit) then holds one thread
   * and no one else's files. Each may use `memoryMb` too. @default 1
   */
  readonly spareThreads?: number;
}

/** How long a file waits for a thread by default (ms). */
export const DOCUMENT_WAIT_MS = 60_000;

/**
 * A file running this long (ms) holds its thread: while every thread is so held, a file waiting starts a spare one
 * (`spareThreads`). An ordinary paper or chapter is read in tens of milliseconds; a flate bomb counted to its 256 MiB
 * limit held the one thread of a 2-core server for 1–3 s, and every other account's file waited behind it (the hostile
 * soak's slowest honest calls, docs/performance.md).
 */
const HELD_MS = 250;

/**
 * A {@link DocumentOffload} on worker threads; `close()` ends them (files not read yet, and files given later, reject
 * with SERVICE_UNAVAILABLE: the HTTP service answers 503).
 * @example
 * const documents = createDocumentPool()
 * const book = await documents.extractDocument(bytes, 'pdf', { timeoutMs: 30_000 })
 * await documents.close()
 */
export interface DocumentPool extends DocumentOffload {
  /** How many threads it may run. */
  readonly threads: number;
  /** The heap limit of a thread, in MiB. */
  readonly memoryMb: number;
  /** The nice value its threads take (Linux). */
  readonly priority: number;
  /** Threads it may start beyond `threads` while files hold them ({@link HELD_MS}). */
  readonly spareThreads: number;
  /**
   * Threads started so far. A thread reads file after file, refused ones included; it is ended after a file refused
   * for a limit (size, inflated bytes, pages, text items, characters, time, memory) that left it holding more than
   * 64 MiB, after a file past its heap or time limit or aborted, or after 30 s idle, and the next file starts a new one.
   */
  readonly started: number;
  close(): Promise<void>;
}

/**
 * The nice value of a thread by default: below normal, as background work is. Reading files is the service's bulk CPU
 * work and a file's reading takes seconds anyway; the request thread's turns are milliseconds that another account's
 * answer waits for (bench/hostile-files.mjs: 20 page-reference PDFs at once, docs/performance.md).
 */
export const DOCUMENT_PRIORITY = 10;

/** The heap limit of a thread by default (MiB): a 64 MiB PDF of text reads in well under half of it. */
export const DOCUMENT_MEMORY_MB = 512;
/**
 * An idle thread ends after this long (ms), giving its heap and the readers' caches back. Not sooner: a new thread
 * loads the library and the readers' libraries again, 0.4–1.2 s on a busy 2-core machine (measured with
 * bench/hostile-files.mjs: a 672-byte EPUB answered in 1.16 s on a fresh thread, 0.08 s on a warm one).
 */
const IDLE_MS = 30_000;
/** The wall clock of a file when its options give none (ms): the extraction's own default. */
const DEFAULT_TIMEOUT_MS = 120_000;
/** The options a thread is given (the signal stays here: the pool ends the thread for it). */
const LIMIT_KEYS = ['maxBytes', 'maxUncompressedBytes', 'maxCharacters', 'timeoutMs'] as const;

/**
 * The refusals of a budget a thread keeps itself, after which it is ended if it is left large ({@link HELD_KEPT}):
 * PAYLOAD_TOO_LARGE (inflated bytes, pages, text items, characters, the time limit) and OUT_OF_MEMORY. Every other
 * refusal (INVALID_INPUT: a broken, encrypted or unknown file) keeps the thread.
 */
const RESOURCE_LIMITS: ReadonlySet<string> = new Set<ErrorCode>(['PAYLOAD_TOO_LARGE', 'OUT_OF_MEMORY']);

/**
 * A thread that holds no more than this after a refusal (its committed heap and the buffers outside it) keeps
 * reading: pdf.js loaded and a page-tree or first-stream refusal come to 35–55 MiB; a page of a million text items
 * leaves 78–88 MiB (measured on Node 20, x64).
 */
const HELD_KEPT = 64 * 1024 * 1024;

/** Whether a refusal was for a resource limit and left its thread holding more than {@link HELD_KEPT}. */
const leftLarge = (answer: Answer): boolean =>
  RESOURCE_LIMITS.has(answer.error?.code ?? '') && !((answer.held ?? Number.POSITIVE_INFINITY) <= HELD_KEPT);

const WORKER_URL = new URL('./extract-worker.js', import.meta.url);

interface Job {
  /** Whose file it is ('' for no one in particular): the line it waits in. */
  readonly owner: string;
  readonly bytes: Uint8Array;
  readonly format: DocumentFormat;
  readonly limits: ExtractTask['limits'];
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  resolve(value: DocumentExtraction): void;
  reject(error: unknown): void;
}

/** A thread's answer: the extraction, or a TrainprintError as its code and detail. */
interface Answer {
  readonly id: number;
  readonly result?: DocumentExtraction;
  readonly error?: { readonly code: string; readonly detail?: string };
  /** With an error: the bytes of the thread's committed heap and buffers after it (src/node/extract-worker.ts). */
  readonly held?: number;
}

interface Running {
  readonly id: number;
  readonly job: Job;
  /** When the file began on its thread (`performance.now()`). */
  readonly since: number;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly abort: () => void;
}

const FORMAT_NAME: Readonly<Record<DocumentFormat, string>> = { epub: 'EPUB', pdf: 'PDF', docx: 'DOCX' };

const tooLarge = (format: DocumentFormat, cause: string): TrainprintError =>
  new TrainprintError('PAYLOAD_TOO_LARGE', `the ${FORMAT_NAME[format] ?? format} file is too large: ${cause}`);

const closedError = (): TrainprintError =>
  new TrainprintError('SERVICE_UNAVAILABLE', 'the server is shutting down (its document pool is closed)');

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new Error('aborted');

/**
 * The pool's options with their defaults, each checked.
 * @throws INVALID_OPTIONS naming the first option out of its range
 */
function checkedOptions(options: DocumentPoolOptions): Required<DocumentPoolOptions> {
  const value = (name: keyof DocumentPoolOptions, fallback: number, min: number, max: number): number => {
    const v = options[name] ?? fallback;
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new TrainprintError('INVALID_OPTIONS', `${name} must be an integer in ${min}..${max}`);
    }
    return v;
  };
  return {
    threads: value('threads', Math.max(1, availableParallelism() - 1), 1, MAX_THREADS),
    memoryMb: value('memoryMb', DOCUMENT_MEMORY_MB, 64, 16_384),
    priority: value('priority', DOCUMENT_PRIORITY, -20, 19),
    waitMs: value('waitMs', DOCUMENT_WAIT_MS, 1, 3_600_000),
    spareThreads: value('spareThreads', 1, 0, 64),
  };
}

/**
 * A pool of worker threads that read document files, each within a heap limit and the file's time limit.
 * @throws INVALID_OPTIONS (`threads` not an integer in 1..256, `memoryMb` not in 64..16384)
 * @example
 * import { createDocumentPool } from 'trainprint/node'
 * const documents = createDocumentPool({ threads: 1 })
 * const x = await documents.extractDocument(await readFile('paper.pdf'), 'pdf')
 * x.pages?.length // the page count
 * await documents.close()
 */
export function createDocumentPool(options: DocumentPoolOptions = {}): DocumentPool {
  const { threads, memoryMb, priority, waitMs, spareThreads } = checkedOptions(options);
  if (!existsSync(fileURLToPath(WORKER_URL))) return inThreadDocuments(threads, memoryMb, priority, spareThreads);
  const idle = new Map<Worker, ReturnType<typeof setTimeout>>();
  const running = new Map<Worker, Running>();
  const queue = new FairQueue<Job>();
  let started = 0,
    nextId = 0,
    closed = false;
  /** The wake-up of {@link dispatch} for when the next running file will hold its thread. */
  let heldTimer: ReturnType<typeof setTimeout> | undefined;

  /** Ends `worker` for good (whatever it is doing) and forgets it. */
  const retire = (worker: Worker): void => {
    const timer = idle.get(worker);
    if (timer !== undefined) clearTimeout(timer);
    idle.delete(worker);
    const run = running.get(worker);
    if (run) settle(worker, run);
    void worker.terminate();
  };

  /** The running file of `worker` is answered: its timer and listener go. */
  const settle = (worker: Worker, run: Running): void => {
    clearTimeout(run.timer);
    run.job.signal?.removeEventListener('abort', run.abort);
    running.delete(worker);
  };

  /** Ends the file `worker` is reading with `error`, and the thread with it (a new one takes the next file). */
  const end = (worker: Worker, error: unknown): void => {
    const run = running.get(worker);
    if (!run) return;
    retire(worker);
    run.job.reject(error);
    dispatch();
  };

  const spawn = (): Worker => {
    const workerData: ExtractWorkerData = { priority };
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: memoryMb }, workerData });
    started++;
    worker.on('message', (answer: Answer) => {
      const run = running.get(worker);
      if (!run || run.id !== answer.id) return;
      // a refusal for a limit (inflated bytes, pages, text items, characters, time) that left the thread large — what
      // pdf.js decoded and built before the budget stopped it, a million text items, stays in the heap V8 grew for it
      // and V8 gives little of a grown heap back — ends the thread, and the next file starts a new one (0.4–1.2 s to
      // load the readers). Any other answer leaves the thread to read the next file: an unreadable file built little,
      // and a new thread for each refusal from a page tree would cost the flooding account 17× its time
      const large = answer.error !== undefined && leftLarge(answer);
      if (large) retire(worker);
      else settle(worker, run);
      if (answer.error) run.job.reject(errorOf(answer.error));
      else run.job.resolve(answer.result!);
      if (!large) rest(worker);
      dispatch();
    });
    // a thread that dies — its heap limit reached, or a crash — fails its file; the next file starts a new one
    worker.on('error', (e: Error & { code?: string }) =>
      end(
        worker,
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? tooLarge(
              running.get(worker)?.job.format ?? 'pdf',
              `reading it needs more than ${memoryMb} MiB of memory, the limit`,
            )
          : new TrainprintError('INTERNAL', `a document thread stopped: ${e.message}`),
      ),
    );
    worker.on('exit', (code) => {
      if (running.has(worker)) end(worker, new TrainprintError('INTERNAL', `a document thread exited (code ${code})`));
      else if (idle.has(worker)) retire(worker);
    });
    return worker;
  };

  /** `worker` waits for the next file, unreferenced, and ends after {@link IDLE_MS} without one. */
  const rest = (worker: Worker): void => {
    worker.unref();
    const timer = setTimeout(() => retire(worker), IDLE_MS);
    timer.unref();
    idle.set(worker, timer);
  };

  const start = (worker: Worker, job: Job): void => {
    const id = nextId++;
    const { format, timeoutMs } = job;
    const timer = setTimeout(
      () => end(worker, tooLarge(format, `reading it takes longer than ${timeoutMs} ms, the limit (timeoutMs)`)),
      timeoutMs,
    );
    const abort = () => end(worker, abortReason(job.signal!));
    job.signal?.addEventListener('abort', abort, { once: true });
    running.set(worker, { id, job, timer, abort, since: performance.now() });
    worker.ref(); // a file under way keeps the process alive until it is answered
    // a copy with a buffer of its own moves to the thread: the caller keeps theirs (`slice()` of a Node Buffer would
    // be a view of the same memory, perhaps Node's shared pool)
    const bytes = new Uint8Array(job.bytes);
    const task: ExtractTask = { id, bytes, format, limits: job.limits };
    worker.postMessage(task, [bytes.buffer]);
  };

  /**
   * How many files may run now: `threads`, and a spare thread for each file that holds its thread ({@link HELD_MS}),
   * `spareThreads` at most. When that is all running and a file waits, the pool looks again once the next running
   * file would hold its thread.
   */
  const runnable = (): number => {
    const now = performance.now();
    const ages = [...running.values()].map((run) => now - run.since);
    const held = ages.filter((age) => age >= HELD_MS).length;
    const allowed = threads + Math.min(held, spareThreads);
    // all running and a spare thread still to give: look again when the longest-running file not yet held will be
    if (running.size >= allowed && held < spareThreads && !heldTimer) {
      const next = HELD_MS - Math.max(...ages.filter((age) => age < HELD_MS));
      heldTimer = setTimeout(() => ((heldTimer = undefined), dispatch()), next + 1);
      heldTimer.unref();
    }
    return allowed;
  };

  const dispatch = (): void => {
    while (queue.length > 0 && !closed && running.size < runnable()) {
      let worker: Worker | undefined = idle.keys().next().value;
      if (worker !== undefined) {
        clearTimeout(idle.get(worker));
        idle.delete(worker);
      } else worker = spawn(); // running.size < runnable() ≤ threads + spareThreads, and every live thread is running
      start(worker, queue.shift()!);
    }
  };

  return {
    threads,
    memoryMb,
    priority,
    spareThreads,
    get started() {
      return started;
    },
    extractDocument(bytes, format, options, owner) {
      const limits = limitsOf(options);
      // what the thread could not be sent, or would refuse at once, is refused here by the same function
      if (limits === undefined || !(bytes instanceof Uint8Array)) return extractDocument(bytes, format, options);
      if (closed) return Promise.reject(closedError());
      const signal = options?.signal;
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      return new Promise<DocumentExtraction>((resolve, reject) => {
        const job: Job = {
          owner: typeof owner === 'string' ? owner : '',
          bytes,
          format,
          limits,
          timeoutMs:
            typeof limits.timeoutMs === 'number' && limits.timeoutMs > 0 ? limits.timeoutMs : DEFAULT_TIMEOUT_MS,
          signal,
          resolve,
          reject,
        };
        // a file that leaves while it waits leaves the queue, and so does one that waited waitMs for a thread
        const leave = () => {
          if (queue.remove(job.owner, job)) reject(abortReason(signal!));
        };
        const late = setTimeout(() => {
          if (queue.remove(job.owner, job))
            reject(
              new TrainprintError(
                'SERVICE_UNAVAILABLE',
                `the document threads are busy: this file waited ${waitMs / 1000} s for one (${queue.length} more wait)`,
              ),
            );
        }, waitMs);
        signal?.addEventListener('abort', leave, { once: true });
        const done = () => {
          clearTimeout(late);
          signal?.removeEventListener('abort', leave);
        };
        job.resolve = (v) => (done(), resolve(v));
        job.reject = (e) => (done(), reject(e));
        queue.push(job.owner, job);
        dispatch();
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearTimeout(heldTimer);
      for (const job of queue.drain()) job.reject(closedError());
      const all = [...idle.keys(), ...running.keys()];
      for (const [worker, run] of [...running]) {
        settle(worker, run);
        run.job.reject(closedError());
      }
      for (const timer of idle.values()) clearTimeout(timer);
      idle.clear();
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}

/**
 * The limits a thread is sent (plain numbers), or undefined where the options hold something else — an unknown option,
 * a value that is not a number — for the extraction in this thread to refuse with its own INVALID_OPTIONS.
 */
function limitsOf(options: ExtractDocumentOptions | undefined): ExtractTask['limits'] | undefined {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') return undefined;
  const limits: Record<string, number> = {};
  for (const [k, v] of Object.entries(options)) {
    if (k === 'signal') continue;
    if (!(LIMIT_KEYS as readonly string[]).includes(k) || (v !== undefined && typeof v !== 'number')) return undefined;
    if (v !== undefined) limits[k] = v;
  }
  return limits;
}

/** A TrainprintError from a thread's answer. */
function errorOf(e: NonNullable<Answer['error']>): TrainprintError {
  return new TrainprintError(e.code as ErrorCode, e.detail);
}

/** The pool where no worker file is built: the files are read in this thread. */
function inThreadDocuments(threads: number, memoryMb: number, priority: number, spareThreads: number): DocumentPool {
  let closed = false;
  return {
    threads,
    memoryMb,
    priority,
    spareThreads,
    started: 0,
    extractDocument: (bytes, format, options) =>
      closed ? Promise.reject(closedError()) : extractDocument(bytes, format, options),
    async close(): Promise<void> {
      closed = true;
    },
  };
}
