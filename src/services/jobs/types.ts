/**
 * The shapes of durable catalogue jobs (src/services/jobs/service.ts): a job of many items of one type, run in chunks
 * by the runners of every process on the store, and its results, one per item in item order.
 */

/**
 * What a job runs on each item: `analyze` (an `AnalyzeRequest`), `score` (a `ScoreRequest`) or `scan` (`{ id, text }`).
 * @example const t: JobType = 'analyze'
 */
export type JobType = 'analyze' | 'score' | 'scan';

/**
 * The job types, in the order the documentation lists them.
 * @example JOB_TYPES.includes('scan') // true
 */
export const JOB_TYPES: readonly JobType[] = Object.freeze(['analyze', 'score', 'scan'] as const);

/**
 * Where a job is: `queued` (no chunk claimed yet), `running`, `done` (every item has its result), `failed` (the
 * server cannot run its type, e.g. a scan on an engine without exact datasets' scan), `cancelled` (by its account:
 * chunks not yet claimed never run).
 * @example if (job.state === 'done') read(job.id)
 */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/**
 * A job as its account reads it. Counts are items; times are ms since the epoch (null until they happen).
 * @example const j: JobInfo = await jobs.get(id, { owner: 'acme' })
 */
export interface JobInfo {
  readonly id: string;
  readonly account: string;
  readonly type: JobType;
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
 * A submission.
 * @example await jobs.submit({ account: 'acme', type: 'analyze', items: [{ content: 'text', content_type: 'text' }] })
 */
export interface JobSubmission {
  readonly account: string;
  readonly type: JobType;
  readonly items: readonly unknown[];
  /** What the runner needs besides the items (the plan's file limit …): plain JSON, stored with the job. */
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * A chunk a runner holds: the job, the items and their indexes, and the lease that makes it this runner's.
 * @example const claim = await jobs.claim('runner-1', 30_000)
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
