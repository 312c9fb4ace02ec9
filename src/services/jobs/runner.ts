/**
 * The runner of one serving process: claims chunks of the store's jobs ({@link JobService.claim}), runs their items
 * one after another with the host's `execute`, renews the chunk's lease while it runs, and writes the chunk's results
 * with its completion. An item that throws gets a failed result with its typed error; a fault of the process itself
 * (the engine disposed, the store closed or unreachable, the worker pool gone) leaves the chunk to be claimed again —
 * released at once when the runner is stopped, else when its lease expires.
 *
 * Timers are unreferenced where the runtime allows it (Node, Bun, Deno): an idle runner never keeps a process alive.
 */
import { HTTP_STATUS, MESSAGES, TrainprintError, type ErrorCode } from '../../errors.js';
import type { JobService } from './service.js';
import type { JobClaim, JobError, JobResult, JobType } from './types.js';
import { unrefTimer } from '../../util/timers.js';

/**
 * Runs one item of a job: the result (plain JSON) or a thrown error, which becomes the item's failed result.
 * @example const execute: JobExecutor = (type, item, claim) => engine.analyze(item as AnalyzeRequest, { owner: claim.job.account })
 */
export type JobExecutor = (type: JobType, item: unknown, claim: JobClaim) => Promise<unknown>;

/**
 * Options of {@link JobRunner}.
 * @example new JobRunner({ jobs, execute, pollMs: 1000, leaseMs: 60_000 })
 */
export interface JobRunnerOptions {
  readonly jobs: JobService;
  readonly execute: JobExecutor;
  /** Why this process cannot run a type at all (then the job fails with NOT_SUPPORTED), or null. */
  readonly unsupported?: (type: JobType) => string | null;
  /** How often an idle runner looks for work (ms). @default 1000 */
  readonly pollMs?: number;
  /** How long a claimed chunk is the runner's without renewal (ms); renewed every third of it. @default 60_000 */
  readonly leaseMs?: number;
  /** Chunks run at once in this process. @default 1 */
  readonly concurrency?: number;
  /** Told of the runner's own failures (the store refusing a claim …); items' errors are their results. */
  readonly onError?: (error: unknown) => void;
}

/** Errors that are the process's, not the item's: the chunk is given back, never failed. */
const PROCESS_FAULTS: ReadonlySet<string> = new Set([
  'ENGINE_DISPOSED',
  'STORE_CLOSED',
  'STORE_UNAVAILABLE',
  'STORE_LOCKED',
  'SERVICE_UNAVAILABLE',
]);
/** Process faults after which the runner stops for good. */
const FINAL_FAULTS: ReadonlySet<string> = new Set(['ENGINE_DISPOSED', 'STORE_CLOSED']);

const codeOf = (err: unknown): string | null => (err instanceof TrainprintError ? err.code : null);

/**
 * An item's error as its result carries it: the error's code and message, a 5xx code with its generic sentence only
 * (as the HTTP API answers it), anything unexpected as `INTERNAL`.
 * @example jobError(new TrainprintError('INVALID_INPUT', 'content: is empty')).code // 'INVALID_INPUT'
 */
export function jobError(err: unknown): JobError {
  if (err instanceof TrainprintError) {
    const code = err.code as ErrorCode;
    return { code, message: (HTTP_STATUS[code] ?? 500) >= 500 ? MESSAGES[code] : err.message };
  }
  return { code: 'INTERNAL', message: MESSAGES.INTERNAL };
}

/** Sweeps of the retention, at most this often (ms). */
const SWEEP_EVERY_MS = 10 * 60_000;

/** See the module's documentation. */
export class JobRunner {
  readonly #o: Required<Omit<JobRunnerOptions, 'onError' | 'unsupported'>> & JobRunnerOptions;
  #running = false;
  #stopped = false;
  #wake: (() => void) | null = null;
  #loops: Promise<void>[] = [];
  #lastSweep = 0;
  readonly #held = new Set<JobClaim>();

  constructor(options: JobRunnerOptions) {
    const pollMs = options.pollMs ?? 1000;
    const leaseMs = options.leaseMs ?? 60_000;
    const concurrency = options.concurrency ?? 1;
    if (!(pollMs > 0) || !(leaseMs >= 50) || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
      throw new TrainprintError(
        'INVALID_OPTIONS',
        'jobs: pollMs must be > 0, leaseMs ≥ 50 and concurrency an integer from 1 to 64',
      );
    this.#o = { ...options, pollMs, leaseMs, concurrency };
  }

  /** Starts the loops (once). */
  start(): void {
    if (this.#running || this.#stopped) return;
    this.#running = true;
    for (let i = 0; i < this.#o.concurrency; i++) this.#loops.push(this.#loop());
  }

  /** Looks for work now rather than at the next poll (a job was just submitted here). */
  wake(): void {
    this.#wake?.();
  }

  /** Stops after the items running now; the chunks held are given back to be claimed at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.wake();
    await Promise.all(this.#loops);
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      let claim: JobClaim | null = null;
      try {
        await this.#maybeSweep();
        claim = await this.#o.jobs.claim(this.#o.leaseMs);
      } catch (err) {
        if (FINAL_FAULTS.has(codeOf(err) ?? '')) break;
        this.#o.onError?.(err);
      }
      if (!claim) {
        await this.#idle();
        continue;
      }
      try {
        await this.#run(claim);
      } catch (err) {
        if (FINAL_FAULTS.has(codeOf(err) ?? '')) break;
        this.#o.onError?.(err);
        await this.#idle(); // a fault of this process (the store unreachable …): not at once again
      }
    }
    this.#stopped = true;
  }

  async #maybeSweep(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    await this.#o.jobs.sweep();
  }

  #idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = unrefTimer(
        setTimeout(() => {
          this.#wake = null;
          resolve();
        }, this.#o.pollMs),
      );
      this.#wake = () => {
        clearTimeout(t);
        this.#wake = null;
        resolve();
      };
    });
  }

  async #run(claim: JobClaim): Promise<void> {
    const { jobs, execute, leaseMs } = this.#o;
    const why = this.#o.unsupported?.(claim.job.type) ?? null;
    if (why !== null) {
      await jobs.fail(claim, { code: 'NOT_SUPPORTED', message: `${MESSAGES.NOT_SUPPORTED}: ${why}` });
      return;
    }
    this.#held.add(claim);
    let lost = false;
    const renew = setInterval(
      () => {
        jobs.renew(claim, leaseMs).then(
          (ok) => {
            if (!ok) lost = true;
          },
          () => undefined, // the next renewal or the completion finds out
        );
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    unrefTimer(renew);
    const results: JobResult[] = [];
    let fault: unknown = null;
    try {
      for (let i = 0; i < claim.items.length; i++) {
        if (lost || this.#stopped) break;
        const index = claim.first + i;
        try {
          results.push({ index, success: true, result: await execute(claim.job.type, claim.items[i], claim) });
        } catch (err) {
          if (PROCESS_FAULTS.has(codeOf(err) ?? '')) {
            fault = err;
            break;
          }
          results.push({ index, success: false, error: jobError(err) });
        }
      }
    } finally {
      clearInterval(renew);
      this.#held.delete(claim);
    }
    if (lost) return; // another runner has the chunk: its results are the ones kept
    if (results.length < claim.items.length) {
      // stopped, or a fault of this process: the chunk goes back, to be claimed again at once
      await jobs.release(claim).catch(() => undefined);
      if (fault !== null) throw fault;
      return;
    }
    await jobs.complete(claim, results);
  }
}
