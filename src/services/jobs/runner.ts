/**
 * The one runner of the job model: claims chunks of a {@link JobStore}, runs their items one after another with their
 * type's executor, renews the chunk's lease while it runs, and writes the chunk's results with its completion
 * (`serve`, `trainprint worker` and `scan --queue` each run one). An item that throws gets a failed result with its
 * typed error; a fault of the process itself (the engine disposed, the store away) leaves the chunk to be claimed
 * again. No job holds it for long, nor one account all of it ({@link JobRunnerOptions}: `itemTimeoutMs`,
 * `concurrency`, `watchMs`); an item may give itself back (`ItemHandedBack`, ./hand-back.ts). Its timers never keep
 * a process alive.
 */
import { HTTP_STATUS, MESSAGES, TrainprintError, type ErrorCode } from '../../errors.js';
import type { JobExecutors } from './executors.js';
import type { JobExecutor } from './job-type.js';
import { ItemHandedBack } from './hand-back.js';
import type { JobClaim, JobError, JobResult, JobStore } from './types.js';
import { anySignal } from '../../util/signals.js';
import { unrefTimer } from '../../util/timers.js';
import { positiveInt, randomHex } from '../../util/validate.js';

/**
 * How long one item of a job may run by default: 5 minutes, far beyond an analysis of the largest text or file a
 * plan accepts, and short enough that a hostile item gives its loop back.
 * @example new JobRunner({ jobs, execute, itemTimeoutMs: DEFAULT_JOB_ITEM_TIMEOUT_MS / 5 })
 */
export const DEFAULT_JOB_ITEM_TIMEOUT_MS = 300_000;

/**
 * Options of {@link JobRunner}: the store of jobs, the executor table ({@link jobExecutors}) and the loop's timing.
 * @example new JobRunner({ jobs, ...jobExecutors(engine), pollMs: 1000, leaseMs: 60_000 })
 */
export interface JobRunnerOptions extends JobExecutors {
  readonly jobs: JobStore;
  /** How often an idle runner looks for work (ms). @default 1000 */
  readonly pollMs?: number;
  /** How long a claimed chunk is the runner's without renewal (ms); renewed every third of it. @default 60_000 */
  readonly leaseMs?: number;
  /**
   * Chunks run at once in this process. One account's chunks take at most `concurrency − 1` of them (all of them at
   * 1), so another account's job never waits behind a whole runner of theirs. @default 2
   */
  readonly concurrency?: number;
  /** How long one item may run (ms): then it is aborted and its result is a failed one. @default 300_000 */
  readonly itemTimeoutMs?: number;
  /**
   * Starts an item's time limit: `fire` after `ms` unless the function it answers (the item ended) is called first.
   * A test gives one it fires itself, so that what reaches the limit never depends on the machine's speed.
   * @default a timer of `ms` that keeps no process alive
   */
  readonly itemTimer?: (fire: () => void, ms: number) => () => void;
  /** How often a running chunk looks whether its job was cancelled (ms). @default 1000 */
  readonly watchMs?: number;
  /** Told of the runner's own failures (the store refusing a claim …); items' errors are their results. */
  readonly onError?: (error: unknown) => void;
  /** Errors of the store that end the runner ({@link JobRunner.settled} rejects with the first). @default none */
  readonly fatal?: (error: unknown) => boolean;
  /**
   * On {@link JobRunner.stop}, finish the items of the chunks held (within `graceMs`) rather than only the item
   * running: for large chunks that are costly to redo (the scan queue's). @default false
   */
  readonly finishChunks?: boolean;
  /** An item's error as its result carries it. @default {@link jobError} (what an API's caller may read) */
  readonly errorOf?: (error: unknown, where?: { readonly job: string; readonly index: number }) => JobError;
  /** Jobs this runner leaves to others, by account, id and type (a scan worker runs scan jobs only). @default none */
  readonly skip?: (account: string, job: string | undefined, type: string | undefined) => boolean;
  /** Told after each chunk this runner completed (the items' results written). */
  readonly onChunk?: (claim: JobClaim, results: readonly JobResult[]) => void;
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

/**
 * An item's error as its result carries it: the error's code and message, a 5xx code with its generic sentence only
 * (as the HTTP API answers it) — but for the caller's own model service (`UPSTREAM_*`), whose answer is the caller's
 * to read (the HTTP API's `details.upstream`) — anything unexpected as `INTERNAL`.
 * @example jobError(new TrainprintError('INVALID_INPUT', 'content: is empty')).code // 'INVALID_INPUT'
 */
export function jobError(err: unknown, where?: { readonly job: string; readonly index: number }): JobError {
  if (err instanceof TrainprintError && err.code !== 'INTERNAL') {
    const code = err.code as ErrorCode;
    const generic = (HTTP_STATUS[code] ?? 500) >= 500 && !code.startsWith('UPSTREAM_');
    return { code, message: generic ? MESSAGES[code] : err.message };
  }
  // unexpected: the result names a request id, and one JSON line on stderr under that id says what happened (as a
  // synchronous request's 500 does), so an operator can find what the caller was told only by the id
  const id = `req_${randomHex(12)}`;
  const e = err instanceof Error ? err : null;
  const line = {
    time: new Date().toISOString(),
    level: 'error',
    msg: 'job item failed: INTERNAL',
    request_id: id,
    job: where?.job ?? null,
    item: where?.index ?? null,
    error: { class: e?.constructor?.name ?? typeof err, message: e?.message ?? String(err), stack: e?.stack ?? null },
  };
  console.error(JSON.stringify(line));
  return { code: 'INTERNAL', message: `${MESSAGES.INTERNAL} (request id ${id})` };
}

/**
 * `work`, or the signal's reason as soon as it aborts, whichever comes first: an item that does not heed its signal
 * (a third-party parser between two checks) cannot hold the runner past its limit. Its late outcome is dropped.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** Why a chunk's items were aborted: the runner stopping, the job finished meanwhile, or the chunk lost. */
type Interruption = 'stopped' | 'finished' | 'lost';

/** Sweeps of the retention, at most this often (ms). */
const SWEEP_EVERY_MS = 10 * 60_000;

/** See the module's documentation. */
export class JobRunner {
  readonly #o: Required<Omit<JobRunnerOptions, 'onError' | 'fatal' | 'onChunk' | 'finishChunks' | 'skip'>> &
    JobRunnerOptions;
  #stopped = false;
  readonly #wakers = new Set<() => void>();
  readonly #loops: Promise<void>[] = [];
  #lastSweep = 0;
  #failure: unknown = undefined;
  /** The chunks running now, each with what aborts its item. */
  readonly #held = new Map<JobClaim, AbortController>();
  /** Chunks running now per account: the fairness of {@link JobService.claim}'s `skip`. */
  readonly #perAccount = new Map<string, number>();
  /** Jobs this runner gave an item of back to the others (another process holds what it needs), until when (ms). */
  readonly #leftToOthers = new Map<string, number>();
  #claiming: Promise<unknown> = Promise.resolve();

  constructor(options: JobRunnerOptions) {
    const pollMs = options.pollMs ?? 1000;
    const leaseMs = options.leaseMs ?? 60_000;
    const watchMs = options.watchMs ?? 1000;
    if (!(pollMs > 0) || !(leaseMs >= 50) || !(watchMs > 0))
      throw new TrainprintError('INVALID_OPTIONS', 'jobs: pollMs and watchMs must be > 0, leaseMs ≥ 50');
    const concurrency = positiveInt('jobs: concurrency', options.concurrency, 2, 64);
    const itemTimeoutMs = positiveInt(
      'jobs: itemTimeoutMs',
      options.itemTimeoutMs,
      DEFAULT_JOB_ITEM_TIMEOUT_MS,
      86_400_000,
    );
    const errorOf = options.errorOf ?? jobError;
    const itemTimer = options.itemTimer ?? realTimer;
    this.#o = { ...options, pollMs, leaseMs, concurrency, itemTimeoutMs, watchMs, errorOf, itemTimer };
  }

  /** Starts the loops (once). */
  start(): void {
    if (this.#loops.length > 0 || this.#stopped) return;
    for (let i = 0; i < this.#o.concurrency; i++) this.#loops.push(this.#loop());
  }

  /**
   * Resolves once every loop has ended (after {@link stop}, or a store closed under it); rejects with the first
   * {@link JobRunnerOptions.fatal} error, which stops the other loops too.
   * @example runner.start(); await runner.settled
   */
  get settled(): Promise<void> {
    return Promise.all(this.#loops).then(() => {
      if (this.#failure !== undefined) throw this.#failure;
    });
  }

  /** Looks for work now rather than at the next poll (a job was just submitted here). */
  wake(): void {
    for (const w of [...this.#wakers]) w();
  }

  /**
   * Stops: no chunk is claimed from now on; the items running get `graceMs` to finish, then they are aborted, and
   * the chunks held are given back to be claimed at once (by another process, or this one's next start). Resolves
   * once every loop has ended, which an item that ignores its signal does not delay.
   * @example await runner.stop({ graceMs: 5000 })
   */
  async stop(options: { readonly graceMs?: number } = {}): Promise<void> {
    this.#stopped = true;
    this.wake();
    const graceMs = Math.max(0, options.graceMs ?? 0);
    const t = graceMs > 0 ? unrefTimer(setTimeout(() => this.#abortHeld(), graceMs)) : null;
    if (!t) this.#abortHeld();
    try {
      await Promise.all(this.#loops);
    } finally {
      if (t) clearTimeout(t);
    }
  }

  /** The accounts that hold as many loops as one account may (fairness); none while the runner has one loop. */
  #atCap = (account: string): boolean =>
    this.#o.concurrency > 1 && (this.#perAccount.get(account) ?? 0) >= this.#o.concurrency - 1;

  async #loop(): Promise<void> {
    // faults in a row (the store away: a restart): the wait before the next try doubles, up to 10 s
    for (let faults = 0; !this.#stopped; ) {
      try {
        await this.#maybeSweep();
        const claim = await this.#claim();
        if (claim) await this.#run(claim).finally(() => this.#uncount(claim));
        else await this.#idle();
        faults = 0;
      } catch (err) {
        if (this.#final(err)) break;
        this.#o.onError?.(err);
        await this.#idle(Math.min(10_000, this.#o.pollMs * 2 ** Math.min(faults++, 10)));
      }
    }
    this.#stopped = true;
    this.wake(); // the other loops, idle, end now too
  }

  /** Whether `err` ends the runner: the engine or store closed, or what the host calls fatal (kept for settled). */
  #final(err: unknown): boolean {
    if (err instanceof TrainprintError && FINAL_FAULTS.has(err.code)) return true;
    if (!this.#o.fatal?.(err)) return false;
    this.#failure ??= err;
    this.#stopped = true;
    this.#abortHeld();
    return true;
  }

  /** Aborts the items of every chunk held (they are given back): the runner stops. */
  #abortHeld(): void {
    for (const c of this.#held.values()) c.abort('stopped' satisfies Interruption);
  }

  /** One claim at a time, counted for its account before the next (two at once would both see it under its cap). */
  #claim(): Promise<JobClaim | null> {
    const next = this.#claiming.then(async () => {
      if (this.#stopped) return null;
      const now = Date.now();
      for (const [id, until] of this.#leftToOthers) if (until <= now) this.#leftToOthers.delete(id);
      const skip = (account: string, job?: string, type?: string) =>
        this.#atCap(account) ||
        (job !== undefined && this.#leftToOthers.has(job)) ||
        this.#o.skip?.(account, job, type) === true;
      const claim = await this.#o.jobs.claim(this.#o.leaseMs, { skip });
      if (claim) this.#perAccount.set(claim.job.account, (this.#perAccount.get(claim.job.account) ?? 0) + 1);
      return claim;
    });
    this.#claiming = next.catch(() => undefined);
    return next;
  }

  /** The chunk of `claim` no longer runs here: its account's count goes down. */
  #uncount(claim: JobClaim): void {
    const account = claim.job.account;
    const n = (this.#perAccount.get(account) ?? 1) - 1;
    if (n > 0) this.#perAccount.set(account, n);
    else this.#perAccount.delete(account);
  }

  async #maybeSweep(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    await this.#o.jobs.expire();
  }

  /** Waits `ms` (`pollMs`), or until {@link wake} (every idle loop wakes). */
  #idle(ms = this.#o.pollMs): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.#wakers.delete(done);
        resolve();
      };
      const t = unrefTimer(setTimeout(done, ms));
      this.#wakers.add(done);
    });
  }

  async #run(claim: JobClaim): Promise<void> {
    const { jobs, leaseMs } = this.#o;
    const execute = this.#o.executors[claim.job.type];
    if (!execute) {
      const why = this.#o.unsupported[claim.job.type] ?? 'no executor';
      await jobs.fail(claim, { code: 'NOT_SUPPORTED', message: `${MESSAGES.NOT_SUPPORTED}: ${why}` });
      return;
    }
    const interrupt = new AbortController();
    this.#held.set(claim, interrupt);
    if (this.#stopped) interrupt.abort('stopped' satisfies Interruption);
    // every `ms` while the chunk runs, an interruption that `ask` answers aborts its items (a failed ask: the next
    // one or the completion finds out)
    const every = (ms: number, ask: () => Promise<Interruption | null>) => {
      const check = () =>
        ask().then(
          (why) => why && interrupt.abort(why),
          () => undefined,
        );
      return unrefTimer(setInterval(check, ms));
    };
    const timers = [
      every(Math.max(10, Math.floor(leaseMs / 3)), async () => ((await jobs.renew(claim, leaseMs)) ? null : 'lost')),
      // a cancel (in any process on the store) is seen here within watchMs, not at the next renewal
      every(this.#o.watchMs, async () => {
        const w = await jobs.watch(claim);
        return w === 'held' ? null : w;
      }),
    ];
    const { results, fault, handedBack } = await this.#items(claim, execute, interrupt.signal).finally(() => {
      for (const t of timers) clearInterval(t);
      this.#held.delete(claim);
    });
    const why = interrupt.signal.aborted ? (interrupt.signal.reason as Interruption) : null;
    if (why === 'lost') return; // another runner has the chunk: its results are the ones kept
    if (why === 'finished') {
      // cancelled meanwhile: the job stays as the cancel answered it (the completion keeps none of these results and
      // only lets the lease go; it does nothing for a deleted job)
      await jobs.complete(claim, results).catch(() => undefined);
      return;
    }
    if (results.length < claim.items.length) {
      // stopped, a fault of this process, or an item to be run on (a slice of a long item ended) or by another
      // process: the chunk goes back unfailed, to be claimed again at once
      if (handedBack?.kind === 'elsewhere') this.#leftToOthers.set(claim.job.id, Date.now() + handedBack.retryMs);
      await jobs.release(claim).catch(() => undefined);
      if (handedBack?.kind === 'continues') this.wake();
      if (fault !== null) throw fault;
      return;
    }
    if (await jobs.complete(claim, results)) this.#o.onChunk?.(claim, results);
  }

  /** The chunk's items, one after another, each under its time limit, until all are done or `interrupt` aborts. */
  async #items(
    claim: JobClaim,
    execute: JobExecutor,
    interrupt: AbortSignal,
  ): Promise<{ results: JobResult[]; fault: unknown; handedBack: ItemHandedBack | null }> {
    const { itemTimeoutMs } = this.#o;
    const results: JobResult[] = [];
    for (let i = 0; i < claim.items.length; i++) {
      // stopping: the item running may finish, no new one starts (unless the chunk is to be finished)
      if (interrupt.aborted || (this.#stopped && !this.#o.finishChunks)) break;
      const index = claim.first + i;
      const limit = new AbortController();
      const timeUp = new TrainprintError(
        'PAYLOAD_TOO_LARGE',
        `the item ran past the time limit of a job item (${formatMs(itemTimeoutMs)}); it was stopped`,
      );
      const endTimer = this.#o.itemTimer(() => limit.abort(timeUp), itemTimeoutMs);
      const signal = anySignal([interrupt, limit.signal]);
      try {
        const slice = { deadline: Date.now() + itemTimeoutMs, limitMs: itemTimeoutMs, index };
        const work = Promise.resolve().then(() => execute(claim.items[i], claim, signal, slice));
        work.catch(() => undefined); // an outcome after the limit is dropped, never left unhandled
        results.push({ index, success: true, result: await untilAborted(work, signal) });
      } catch (err) {
        if (interrupt.aborted) break; // stopped, cancelled or lost: this item has no result here
        if (err instanceof TrainprintError && PROCESS_FAULTS.has(err.code))
          return { results, fault: err, handedBack: null };
        if (err instanceof ItemHandedBack && !signal.aborted) return { results, fault: null, handedBack: err };
        results.push({
          index,
          success: false,
          error: this.#o.errorOf(signal.aborted ? timeUp : err, { job: claim.job.id, index }),
        });
      } finally {
        endTimer();
      }
    }
    return { results, fault: null, handedBack: null };
  }
}

/** An item's time limit on the process's clock (a timer that keeps no process alive). */
function realTimer(fire: () => void, ms: number): () => void {
  const timer = unrefTimer(setTimeout(fire, ms));
  return () => clearTimeout(timer);
}

/** A time limit in words: `300 s`, `1.5 s`, `250 ms`. */
function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
