/**
 * `createWorkerPool()`: a few `node:worker_threads` threads for the pure CPU work of analyze and
 * compare (an {@link Offload}), so that a 10 MB analysis or a 500,000-character compare does not hold
 * up the other requests of a `serve` process. Bounded (cores − 1 threads, at least 1; tasks beyond them
 * wait in order), started on the first task, and closed with the server that owns it. Each thread runs
 * the built `offload-worker.js` beside this file (`npm run build` makes it); where that file is absent (the
 * sources run directly) the pool does the work in this thread instead, with the same results.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  createEngine, TrainprintError, type Engine, type ErrorCode, type Offload, type PureWork, type WorkResult,
} from '../index.js';

/**
 * Options of {@link createWorkerPool}.
 * @example createWorkerPool({ threads: 2 })
 */
export interface WorkerPoolOptions {
  /** Threads, 1–64. @default the available parallelism − 1, at least 1 */
  readonly threads?: number;
}

/**
 * An {@link Offload} on worker threads; `close()` ends them (tasks not answered yet reject with ENGINE_DISPOSED).
 * @example
 * const pool = createWorkerPool()
 * const server = await serve(createHandler(engine, { offload: pool }), { workers: pool })
 * await server.close() // closes the pool too
 */
export interface WorkerPool extends Offload {
  /** How many threads it may run. */
  readonly threads: number;
  close(): Promise<void>;
}

interface Pending {
  readonly work: PureWork;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Answer { readonly id: number; readonly result?: unknown; readonly error?: { code: string; detail?: string } }

const WORKER_URL = new URL('./offload-worker.js', import.meta.url);

/**
 * A pool of worker threads for the pure work of analyze and compare.
 * @throws INVALID_OPTIONS (`threads` not an integer in 1..64)
 * @example
 * import { createWorkerPool, serve } from 'trainprint/node'
 * const pool = createWorkerPool()
 * await pool.run({ kind: 'compare', a: 'one text', b: 'another text' })
 * await pool.close()
 */
export function createWorkerPool(options: WorkerPoolOptions = {}): WorkerPool {
  const threads = options.threads ?? Math.max(1, availableParallelism() - 1);
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) {
    throw new TrainprintError('INVALID_OPTIONS', 'threads must be an integer in 1..64');
  }
  if (!existsSync(fileURLToPath(WORKER_URL))) return inThreadPool(threads);
  const idle: Worker[] = [];
  const busy = new Map<Worker, { id: number; task: Pending }>();
  const queue: Pending[] = [];
  let started = 0, nextId = 0, closed = false;

  const spawn = (): Worker => {
    const worker = new Worker(WORKER_URL);
    worker.unref(); // an idle pool never keeps the process alive
    started++;
    worker.on('message', (answer: Answer) => {
      const job = busy.get(worker);
      if (!job || job.id !== answer.id) return;
      busy.delete(worker);
      if (answer.error) job.task.reject(new TrainprintError(answer.error.code as ErrorCode, answer.error.detail));
      else job.task.resolve(answer.result);
      idle.push(worker);
      dispatch();
    });
    // a thread that dies (out of memory, a crash) fails its task; the next task starts a new one
    const lost = (why: string) => {
      const job = busy.get(worker);
      busy.delete(worker);
      started--;
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      job?.task.reject(new TrainprintError('INTERNAL', `a worker thread stopped: ${why}`));
      dispatch();
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => { if (busy.has(worker) || idle.includes(worker)) lost(`exit code ${code}`); });
    return worker;
  };

  const dispatch = (): void => {
    while (queue.length > 0 && !closed) {
      const worker = idle.pop() ?? (started < threads ? spawn() : undefined);
      if (!worker) return;
      const task = queue.shift()!;
      const id = nextId++;
      busy.set(worker, { id, task });
      worker.ref(); // a task under way keeps the process alive until it is answered
      worker.postMessage({ id, work: task.work });
    }
    for (const w of idle) w.unref();
  };

  return {
    threads,
    run<W extends PureWork>(work: W): Promise<WorkResult<W>> {
      if (closed) return Promise.reject(new TrainprintError('ENGINE_DISPOSED', 'the worker pool is closed'));
      return new Promise<WorkResult<W>>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
        dispatch();
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const refused = () => new TrainprintError('ENGINE_DISPOSED', 'the worker pool is closed');
      for (const t of queue.splice(0)) t.reject(refused());
      const all = [...idle, ...busy.keys()];
      for (const { task } of busy.values()) task.reject(refused());
      busy.clear();
      idle.length = 0;
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}

/** The pool where no worker file is built: the work runs in this thread, on an engine of its own. */
function inThreadPool(threads: number): WorkerPool {
  let engine: Promise<Engine> | null = null;
  let closed = false;
  return {
    threads,
    async run<W extends PureWork>(work: W): Promise<WorkResult<W>> {
      if (closed) throw new TrainprintError('ENGINE_DISPOSED', 'the worker pool is closed');
      return (await (engine ??= createEngine())).runWork(work);
    },
    async close(): Promise<void> {
      closed = true;
      (await engine)?.dispose();
    },
  };
}
