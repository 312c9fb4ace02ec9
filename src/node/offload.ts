/**
 * `createWorkerPool()`: a few `node:worker_threads` threads for the pure CPU work of analyze, score and
 * compare (an {@link Offload}) and for parsing large JSON bodies (a {@link JsonBodyOffload}), so that a
 * 10 MB analysis or a 500,000-character compare does not hold up the other requests of a `serve` process. Bounded (cores − 1 threads, at least 1; tasks beyond them
 * wait, each account's in order and the accounts in turn, as the document threads' do, a turn worth a measure of
 * text (./fair-queue.ts): one account's 90 requests just under the large-request line held another's 2 MB analyze 37×
 * longer when they waited in arrival order), started on the first task, ended after {@link WORKER_IDLE_MS} without one
 * (the next task starts a new one), and closed with the server that owns it. Each thread runs
 * the built `offload-worker.js` beside this file (`npm run build` makes it); where that file is absent (the
 * sources run directly) the pool does the work in this thread instead, with the same results.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  createEngine,
  MAX_THREADS,
  OFFLOAD_MIN_UNITS,
  resultReceived,
  TrainprintError,
  type DocumentOffload,
  type Engine,
  type ErrorCode,
  type Offload,
  type PureWork,
  type WorkResult,
} from '../library.js';
import type { JsonBodyOffload, JsonSchema } from '../http/index.js';
import { nextMacrotask } from '../util/steps.js';
import { createDocumentPool, type DocumentPool, type DocumentPoolOptions } from './extract-pool.js';
import { FairQueue } from './fair-queue.js';

/**
 * Options of {@link createWorkerPool}.
 * @example createWorkerPool({ threads: 2 })
 */
export interface WorkerPoolOptions {
  /** Threads, 1–256 (`MAX_THREADS`). @default the available parallelism − 1, at least 1 */
  readonly threads?: number;
  /**
   * How long a thread waits for a task before it is ended, in ms, 1–86,400,000: an ended thread gives back its heap and
   * its core's memory, grown to the largest piece of work it ran, and the next task starts a new one.
   * @default {@link WORKER_IDLE_MS} (30 s)
   */
  readonly idleMs?: number;
  /**
   * The threads that read document files (EPUB, PDF, DOCX), apart from the others: each file within a heap limit and
   * its time limit, the thread ended past either ({@link createDocumentPool}). @default its defaults
   */
  readonly documents?: DocumentPoolOptions;
}

/**
 * An {@link Offload} and a {@link JsonBodyOffload} on worker threads; `close()` ends them (tasks not
 * answered yet, and tasks given later, reject with SERVICE_UNAVAILABLE: the HTTP service answers 503).
 * @example
 * const pool = createWorkerPool()
 * const server = await serve(createHandler(engine, { offload: pool }), { workers: pool })
 * await server.close() // closes the pool too
 */
export interface WorkerPool extends Offload, JsonBodyOffload, DocumentOffload {
  /** How many threads it may run. */
  readonly threads: number;
  /** How long an idle thread is kept (ms). */
  readonly idleMs: number;
  /** Threads started so far: the first task starts one, and so does a task after a thread ended idle or failed. */
  readonly started: number;
  /** Threads running now, busy or idle (a thread counts until it has exited). */
  readonly live: number;
  /**
   * The pool as one account's requests use it: its tasks wait in the account's own line, which takes turns with the
   * other accounts' (the HTTP handler gives each request its account's).
   * Its files are read on the document threads as the pool's are (an owner given by the caller is kept).
   * @example createHandler(engine, { offload: pool }) // each request's work goes through pool.forOwner(account)
   */
  forOwner(owner: string): Offload & JsonBodyOffload & DocumentOffload;
  close(): Promise<void>;
}

/** What a thread is asked: one piece of pure work, or a JSON body to parse and check against a schema. */
type Task =
  | { readonly work: PureWork }
  | { readonly json: { readonly bytes: Uint8Array; readonly schema?: JsonSchema } };

interface Pending {
  readonly task: Task;
  /** Buffers moved to the thread rather than copied. */
  readonly transfer: ArrayBuffer[];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A thread's answer: the result, or a TrainprintError as its code, detail and plain-data cause. */
interface Answer {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { code: string; detail?: string; cause?: unknown };
}

/** The error a task gets when the pool closes before answering it (a request cut by shutdown: HTTP 503). */
const closedError = (): TrainprintError =>
  new TrainprintError('SERVICE_UNAVAILABLE', 'the server is shutting down (its worker pool is closed)');

const WORKER_URL = new URL('./offload-worker.js', import.meta.url);

/**
 * How long a thread waits for a task before it is ended (ms). A thread keeps its V8 heap and its core's WebAssembly
 * memory (which never shrinks) at their largest, tens of MB after a 2 MB analyze, for as long as it lives: ended, it
 * gives them back. Not sooner: a new thread loads the library and compiles the core again before its first task
 * (docs/performance.md measures it), and a service with steady traffic should not pay that every few seconds.
 */
export const WORKER_IDLE_MS = 30_000;

/**
 * Where the pool's threads come from: the script each runs and the timers of their idle end. The pool's own are the
 * built offload-worker.js and an unreferenced `setTimeout`; a test gives a script and timers of its own.
 */
export interface PoolThreads {
  readonly url: URL;
  /** Calls `fire` after `ms` unless the function it answers is called first. */
  readonly schedule: (fire: () => void, ms: number) => () => void;
}

const unrefTimeout = (fire: () => void, ms: number): (() => void) => {
  const timer = setTimeout(fire, ms);
  timer.unref(); // an idle pool never keeps the process alive
  return () => clearTimeout(timer);
};

/**
 * What one turn of an account gives it to spend in the pool's line, in units of text: the least an analysis offloads
 * (shorter work runs in the caller's thread), so an account's 1 MB piece waits for about thirty
 * turns and another's 80 KB piece for three.
 */
const TURN_UNITS = OFFLOAD_MIN_UNITS;

/**
 * UTF-16 units of a piece of a long text sent to a thread ahead of its work ({@link sendTask}): 2 MB of a two-byte
 * string, 1–2 ms of the sending thread's copy.
 */
const SENT_PIECE_UNITS = 1 << 20;

/**
 * Posts `task` to `worker` as task `id`. A work's texts longer than {@link SENT_PIECE_UNITS} go first, a piece a message
 * with a turn of the event loop between two, then the work without them, which the thread joins to their pieces
 * (src/node/offload-worker.ts). Why: a message's text is copied in the sending thread, and the 10 MB text of a work
 * registered through `serve` held the request's thread 16–26 ms in one `postMessage`. `sending()` says whether the
 * thread still waits for this task (the pool may close, or the thread stop, between two pieces: the rest is not sent).
 */
async function sendTask(worker: Worker, id: number, p: Pending, sending: () => boolean): Promise<void> {
  const work = 'work' in p.task ? p.task.work : undefined;
  const long = work
    ? Object.entries(work).filter(
        (e): e is [string, string] => typeof e[1] === 'string' && e[1].length > SENT_PIECE_UNITS,
      )
    : [];
  if (long.length === 0) return worker.postMessage({ id, ...p.task }, p.transfer);
  for (const [field, text] of long) {
    for (let at = 0; at < text.length; at += SENT_PIECE_UNITS) {
      if (!sending()) return;
      worker.postMessage({ id, piece: { field, text: text.slice(at, at + SENT_PIECE_UNITS) } });
      await nextMacrotask();
    }
  }
  if (!sending()) return;
  const joined = long.map(([field]) => field);
  worker.postMessage({ id, work: { ...work, ...Object.fromEntries(joined.map((f) => [f, ''])) }, joined }, p.transfer);
}

/** A task's cost in its line: the UTF-16 units of its texts, or the bytes of a JSON body. */
function unitsOf(task: Task): number {
  if ('json' in task) return task.json.bytes.byteLength;
  let units = 0;
  for (const value of Object.values(task.work)) {
    if (typeof value === 'string') units += value.length;
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') units += v.length;
  }
  return units;
}

/**
 * A pool of worker threads for the pure work of analyze and compare. `on` is for tests (see {@link PoolThreads}).
 * @throws INVALID_OPTIONS (`threads` not an integer in 1..256, `idleMs` not in 1..86400000)
 * @example
 * import { createWorkerPool, serve } from 'trainprint/node'
 * const pool = createWorkerPool()
 * await pool.run({ kind: 'compare', a: 'one text', b: 'another text' })
 * await pool.close()
 */
export function createWorkerPool(
  options: WorkerPoolOptions = {},
  on: PoolThreads = { url: WORKER_URL, schedule: unrefTimeout },
): WorkerPool {
  const threads = options.threads ?? Math.max(1, availableParallelism() - 1);
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new TrainprintError('INVALID_OPTIONS', `threads must be an integer in 1..${MAX_THREADS}`);
  }
  const idleMs = options.idleMs ?? WORKER_IDLE_MS;
  if (!Number.isInteger(idleMs) || idleMs < 1 || idleMs > 86_400_000) {
    throw new TrainprintError('INVALID_OPTIONS', 'idleMs must be an integer in 1..86400000');
  }
  // made now, so its options are checked now; its threads start with the first file
  const documents = createDocumentPool(options.documents);
  if (!existsSync(fileURLToPath(on.url))) return inThreadPool(threads, idleMs, documents);
  // the idle threads, the one that waited least last: it takes the next task, so that under light work the others
  // wait on and end, each with the function that cancels its end
  const idle: Worker[] = [];
  const idleEnds = new Map<Worker, () => void>();
  // threads ended idle, until they have exited: close() waits for them too
  const ending = new Set<Promise<number>>();
  const busy = new Map<Worker, { id: number; task: Pending }>();
  const queue = new FairQueue<Pending>(TURN_UNITS);
  // `started`: the threads in the pool, busy or idle (not those ended); `live`: those not exited yet; `spawned`: all
  let started = 0,
    live = 0,
    spawned = 0,
    nextId = 0,
    closed = false;

  const spawn = (): Worker => {
    const worker = new Worker(on.url);
    worker.unref(); // an idle pool never keeps the process alive
    started++;
    live++;
    spawned++;
    worker.on('message', (answer: Answer) => {
      const job = busy.get(worker);
      if (!job || job.id !== answer.id) return;
      busy.delete(worker);
      if (answer.error) job.task.reject(errorOf(answer.error));
      else job.task.resolve(answer.result);
      rest(worker);
      dispatch();
    });
    // a thread that dies (out of memory, a crash) fails its task; the next task starts a new one
    const lost = (why: string) => {
      if (!busy.has(worker) && !idle.includes(worker)) return; // ended idle, or lost already
      const job = busy.get(worker);
      busy.delete(worker);
      started--;
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      idleEnds.get(worker)?.();
      idleEnds.delete(worker);
      job?.task.reject(new TrainprintError('INTERNAL', `a worker thread stopped: ${why}`));
      dispatch();
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => {
      live--;
      if (busy.has(worker) || idle.includes(worker)) lost(`exit code ${code}`);
    });
    return worker;
  };

  /** `worker` waits for the next task, and is ended after `idleMs` without one. */
  const rest = (worker: Worker): void => {
    idle.push(worker);
    idleEnds.set(
      worker,
      on.schedule(() => retire(worker), idleMs),
    );
  };

  /** Ends `worker` if it is still idle: it leaves the pool now, so the next task goes to another or a new thread. */
  const retire = (worker: Worker): void => {
    const at = idle.indexOf(worker);
    if (at < 0) return; // it took a task (its end was cancelled) or was lost: nothing to end
    idle.splice(at, 1);
    idleEnds.delete(worker);
    started--;
    const exited = worker.terminate();
    ending.add(exited);
    void exited.finally(() => ending.delete(exited));
  };

  const dispatch = (): void => {
    while (queue.length > 0 && !closed) {
      const worker = idle.pop() ?? (started < threads ? spawn() : undefined);
      if (!worker) return;
      idleEnds.get(worker)?.();
      idleEnds.delete(worker);
      const task = queue.shift() as Pending;
      const id = nextId++;
      busy.set(worker, { id, task });
      worker.ref(); // a task under way keeps the process alive until it is answered
      // (a message that cannot be sent fails its task, as the send's throw did when it was not sliced)
      void sendTask(worker, id, task, () => busy.get(worker)?.id === id).catch(task.reject);
    }
    for (const w of idle) w.unref();
  };

  const submit = (owner: string, task: Task, transfer: ArrayBuffer[] = []): Promise<unknown> => {
    if (closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      queue.push(owner, { task, transfer, resolve, reject }, unitsOf(task));
      dispatch();
    });
  };
  const owned = (owner: string): Offload & JsonBodyOffload & DocumentOffload => ({
    // a fingerprint comes back with the per-shingle columns its work named (resultToSend on the thread)
    run: async <W extends PureWork>(work: W) => resultReceived(work, await submit(owner, { work })),
    // the handler puts this in place of the pool for a request's work: its files still go to the document threads
    extractDocument: (bytes, format, options, by) => documents.extractDocument(bytes, format, options, by ?? owner),
    parseJson(bytes: Uint8Array, schema?: JsonSchema): Promise<unknown> {
      // a body that fills its buffer (as the handler reads one of known length) moves instead of being copied;
      // a view into a larger buffer is copied, so the caller's other bytes stay where they are
      const whole =
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
      return submit(owner, { json: { bytes, schema } }, whole ? [bytes.buffer as ArrayBuffer] : []);
    },
  });
  // work given with no owner shares one line (an account's own line never has that name: accounts are non-empty)
  const shared = owned('');

  return {
    threads,
    idleMs,
    get started() {
      return spawned;
    },
    get live() {
      return live;
    },
    run: shared.run,
    parseJson: shared.parseJson,
    forOwner: owned,
    extractDocument: (bytes, format, options, owner) => documents.extractDocument(bytes, format, options, owner),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const closing = documents.close();
      for (const t of queue.drain()) t.reject(closedError());
      const all = [...idle, ...busy.keys()];
      for (const { task } of busy.values()) task.reject(closedError());
      busy.clear();
      for (const cancel of idleEnds.values()) cancel();
      idleEnds.clear();
      idle.length = 0;
      await Promise.all([closing, ...ending, ...all.map((w) => w.terminate())]);
    },
  };
}

/** A TrainprintError from a thread's answer, with its cause when it had one (a schema failure's field). */
function errorOf(e: NonNullable<Answer['error']>): TrainprintError {
  return new TrainprintError(e.code as ErrorCode, e.detail, e.cause === undefined ? undefined : { cause: e.cause });
}

/** The pool where no worker file is built: the work runs in this thread, on an engine of its own. */
function inThreadPool(threads: number, idleMs: number, documents: DocumentPool): WorkerPool {
  let engine: Promise<Engine> | null = null;
  let closed = false;
  const pool: WorkerPool = {
    threads,
    idleMs,
    started: 0,
    live: 0,
    async run<W extends PureWork>(work: W): Promise<WorkResult<W>> {
      if (closed) throw closedError();
      return (await (engine ??= createEngine())).runWork(work);
    },
    async parseJson(bytes: Uint8Array, schema?: JsonSchema): Promise<unknown> {
      if (closed) throw closedError();
      // the HTTP layer loaded when first asked for: a command that never parses a body (scan, fingerprint) does
      // not compile it at its start
      const { bodyChecker, parseJsonBody } = await import('../http/index.js');
      return parseJsonBody(bytes, schema === undefined ? undefined : bodyChecker(schema));
    },
    // in this thread the event loop's own turns are already shared between accounts: no line of its own
    forOwner: () => pool,
    extractDocument: (bytes, format, options, owner) => documents.extractDocument(bytes, format, options, owner),
    async close(): Promise<void> {
      closed = true;
      await documents.close();
      (await engine)?.dispose();
    },
  };
  return pool;
}
