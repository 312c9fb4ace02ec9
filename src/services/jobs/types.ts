/**
 * The one job model (docs/architecture.md, "Jobs"): a job of many items of one type, kept by a {@link JobStore} (on
 * any store, as it says), claimed in chunks with a lease by the one runner (./runner.ts), each item run by its type's
 * executor (a type is one module: ./job-type.ts, ./registry.ts), its results one per item in item order. The store
 * and the runner know a type by its name only.
 */

/**
 * Where a job is: `queued` (no chunk claimed yet), `running`, `done` (every item has its result, failed items
 * included), `failed` (the server cannot run its type, or its streamed submission stopped before its input ended),
 * `cancelled` (by its account: chunks not yet claimed never run; the results so far stay).
 * @example if (job.state === 'done') read(job.id)
 */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/**
 * A job as its account reads it. Counts are items; times are ms since the epoch (null until they happen).
 * @example const j: JobInfo = await jobs.status(id, { owner: 'acme' })
 */
export interface JobInfo {
  readonly id: string;
  readonly account: string;
  /** The job type's name (./registry.ts: a built-in `JobType`, or a host's own). */
  readonly type: string;
  readonly state: JobState;
  /** Items submitted. */
  readonly total: number;
  /** Items with a result (failed ones included): never decreases. */
  readonly done: number;
  /** Items whose result is an error. */
  readonly failed: number;
  readonly created: number;
  readonly started: number | null;
  readonly finished: number | null;
  /** Milliseconds the rest of the items take at the rate so far; null before the first result or once finished. */
  readonly eta_ms: number | null;
  /** Why the job failed (`failed` only). */
  readonly error?: JobError;
}

/**
 * The typed error of an item (or of a failed job): a code of the error table and its sentence.
 * @example const e: JobError = { code: 'INVALID_INPUT', message: 'The input is not valid: content: is empty' }
 */
export interface JobError {
  readonly code: string;
  readonly message: string;
}

/**
 * One item's result, as stored and as `GET /api/v1/jobs/{id}/results` gives it (one JSON line): the item's index
 * in the submission and either its result or its error.
 * @example { index: 0, success: true, result: { analysis_id: 'an_…', … } }
 */
export type JobResult =
  | { readonly index: number; readonly success: true; readonly result: unknown }
  | { readonly index: number; readonly success: false; readonly error: JobError };

/**
 * A page of results: in item order, from the item after `after`. While the job runs a page ends before the first
 * item without a result, so reading on from `next` never skips one; `next` is null once nothing more will come.
 * @example for (let p = await jobs.results(id, { owner }); p.next !== null; p = await jobs.results(id, { owner, after: p.next })) …
 */
export interface JobResultPage {
  readonly results: readonly JobResult[];
  /** The cursor to read on from (the index of the last result given, or `after` when none): null at the end. */
  readonly next: number | null;
}

/**
 * A page of an account's jobs, newest first; `next` is the cursor of the next page (the last job's id), null at the end.
 * @example const { jobs: page, next } = await jobs.list({ owner: 'acme', limit: 20 })
 */
export interface JobList {
  readonly jobs: readonly JobInfo[];
  readonly next: string | null;
}

/**
 * A submission.
 * @example await jobs.submit({ account: 'acme', type: ANALYZE_JOB.name, items: [{ content: 'text', content_type: 'text' }] })
 */
export interface JobSubmission {
  readonly account: string;
  /** The job type's name (the submitter checked the items against it). */
  readonly type: string;
  readonly items: readonly unknown[];
  /** Items a chunk holds: the type's `chunkItems`. @default the store's */
  readonly chunkItems?: number;
  /** What the runner needs besides the items (the plan's file limit …): plain JSON, stored with the job. */
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * A chunk a runner holds: the job, the items and their indexes, and the lease that makes it this runner's.
 * @example const claim = await jobs.claim(30_000)
 */
export interface JobClaim {
  readonly job: JobInfo;
  readonly context: Readonly<Record<string, unknown>>;
  readonly chunk: number;
  /** Index of the chunk's first item in the job. */
  readonly first: number;
  readonly items: readonly unknown[];
  /** The lease's token: a completion with another token (the lease expired and was claimed again) is dropped. */
  readonly token: string;
}

/**
 * Whether a runner should go on with a claimed chunk: `held` (the job is open and the lease is the claim's), `lost`
 * (another runner has the chunk: its results are the ones kept) or `finished` (cancelled, failed or deleted: stop).
 */
export type ClaimWatch = 'held' | 'lost' | 'finished';

/**
 * Where jobs are kept: the one job model's storage — `createJobService` on any store (memory, file, PostgreSQL: the
 * scan queue's `openScanQueue` in `trainprint/node` is it). The one runner ({@link JobRunner}) claims chunks of it with a lease, renews the lease while the chunk runs, and completes the chunk with its results — exactly once:
 * a completion whose lease is no longer the claim's writes nothing, and a chunk whose runner died is claimed again
 * after its lease. Jobs are read, cancelled and deleted by their account (`owner`); a job of another account is
 * NOT_FOUND.
 * @example
 * const claim = await jobs.claim(60_000)
 * if (claim) await jobs.complete(claim, claim.items.map((item, i) => ({ index: claim.first + i, success: true, result: run(item) })))
 */
export interface JobStore {
  /** Stores a job and its items (the caller has checked the items and charged them). @throws INVALID_INPUT */
  submit(submission: JobSubmission): Promise<JobInfo>;
  /**
   * A chunk of an open job leased for `leaseMs`, or null when there is none to take. `skip` passes over the jobs of
   * the accounts it names (the runner's fairness between accounts), and over the jobs it names by id or type where
   * the backend gives them (a job left to another process; a type this runner does not run).
   */
  claim(
    leaseMs: number,
    options?: { readonly skip?: (account: string, job?: string, type?: string) => boolean },
  ): Promise<JobClaim | null>;
  /** Extends a held lease; false when it is no longer the claim's (stop: another runner has the chunk). */
  renew(claim: JobClaim, leaseMs: number): Promise<boolean>;
  /** Whether to go on with a claimed chunk: cheap enough to ask every second. */
  watch(claim: JobClaim): Promise<ClaimWatch>;
  /** Gives a held chunk back, to be claimed again at once. */
  release(claim: JobClaim): Promise<void>;
  /**
   * Writes the chunk's results (one per item, in item order) with its completion, atomically and exactly once: false
   * (nothing written) when the lease is no longer the claim's, the chunk was completed already, or the job finished
   * meanwhile (cancelled or failed: it stays as it was then, and only the lease is let go).
   */
  complete(claim: JobClaim, results: readonly JobResult[]): Promise<boolean>;
  /** Fails the claim's job as a whole (this process cannot run its type), keeping the results it has. */
  fail(claim: JobClaim, error: JobError): Promise<void>;
  /**
   * The owner's jobs, newest first, from the job after `after` (the `next` of the page before), at most `limit`
   * (default 20, at most 100). @throws INVALID_INPUT for an `after` that is no job of the owner
   */
  list(options: { readonly owner: string; readonly after?: string; readonly limit?: number }): Promise<JobList>;
  /** The owner's job. @throws NOT_FOUND */
  status(id: string, options: { readonly owner: string }): Promise<JobInfo>;
  /** The owner's job's results in item order, from the item after `after`. @throws NOT_FOUND */
  results(
    id: string,
    options: { readonly owner: string; readonly after?: number; readonly limit?: number },
  ): Promise<JobResultPage>;
  /**
   * Cancels the owner's unfinished job: chunks not claimed never run, running ones stop at their next watch, the
   * results so far stay. `cancelled: false` when the job had finished already (it is unchanged).
   * @throws NOT_FOUND
   */
  cancel(id: string, options: { readonly owner: string }): Promise<{ job: JobInfo; cancelled: boolean }>;
  /** Deletes the owner's job with everything it stored; false when there was none. */
  delete(id: string, options: { readonly owner: string }): Promise<boolean>;
  /** The retention: deletes what jobs finished (or created) longer ago than it keep; resolves to how many. */
  expire(limit?: number): Promise<number>;
}
