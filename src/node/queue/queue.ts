/**
 * The scan queue on PostgreSQL: a scan of many items spread over workers on any number of machines that share one
 * database. The input is stored in chunks (./schema.ts), and each chunk is one pg-boss job in the scan's own pg-boss
 * queue (`scan-<job id>`), so pg-boss hands each chunk to one worker at a time for a lease (`leaseSeconds`) and
 * gives a chunk whose worker died back to the queue when the lease runs out. The queue is the PostgreSQL backend of the
 * job model ({@link ScanQueue.jobStore}: a `JobStore`), and a worker ({@link ScanQueue.work}) is the one `JobRunner`
 * over it with the scan executor — the runner and the executor `serve` runs for the jobs of the store.
 *
 * Exactly once: a worker scans a chunk's items, then writes the hits and marks the chunk done in ONE transaction that
 * first locks the chunk's row and does nothing if it is done already (and the hits' key — job, chunk, item, hit —
 * takes each hit once anyway: ON CONFLICT DO NOTHING). A worker killed before that commit wrote nothing; one killed
 * after it left a done chunk that the next worker only acknowledges. Scans are deterministic, so a redone chunk has
 * the same hits.
 *
 * A worker refuses (CONFLICT) a job whose datasets it does not hold with the same SHA-256, before it takes a
 * chunk: hits of another version of a dataset would be wrong, not merely different.
 *
 * An enqueue holds a session advisory lock on its job until the job is sealed: the database releases it when the
 * enqueuer's connection ends, however the process ended (kill -9 included). A job not sealed whose lock nobody
 * holds was abandoned half-way: it reads as `failed` and workers never take its chunks.
 *
 * A worker outlives its database: a connection that breaks (a restart, a failover) is an error of the statement
 * that used it, never an unheard `'error'` event; the worker waits with a growing back-off and carries on, and a
 * chunk scanned while the database was away is written once it is back (or given back, past 90 % of its lease).
 */
import type { Pool } from 'pg';
import type PgBoss from 'pg-boss';
import {
  positiveInt,
  TrainprintError,
  type JobInfo,
  type JobList,
  type JobResultPage,
  type JobStore,
  type JobSubmission,
} from '../../library.js';
import {
  applyMigrations,
  checkSchema,
  openPool,
  parseTarget,
  unavailable,
  type PostgresTarget,
} from '../../store/node-kit.js';
import { startBoss } from './boss.js';
import { DEAD_LETTERS, QueueDb, type QueueSettings } from './db.js';
import { enqueue, type EnqueueOptions, type EnqueueResult, submit } from './enqueue.js';
import { QUEUE_LOCK_CLASS, QUEUE_MIGRATIONS } from './schema.js';
import { waitOut } from './wait.js';
import {
  cancelJob,
  deleteJob,
  exportHits,
  jobInfo,
  latestJob,
  listJobs,
  resolveJob,
  results,
  status,
} from './status.js';
import type { QueueHit, QueueItem, QueueScanner, ScanJobStatus } from './types.js';
import { jobStore, work, type WorkOptions, type WorkSummary } from './worker.js';

/** Options of {@link openScanQueue}. */
export interface ScanQueueOptions {
  /** The schema of the queue's tables; pg-boss's are in `<schema>_boss`. The URL's `schema` parameter too. @default 'trainprint_scan' */
  readonly schema?: string;
  /**
   * Seconds a worker holds a chunk (pg-boss's `expireInSeconds`): a chunk whose worker died goes back to the queue
   * at most this long plus `maintenanceIntervalSeconds` later. A chunk must be scanned well within it (a worker
   * gives up a chunk at 90 % of the lease). Applies to jobs enqueued with these options.
   * @default 120
   */
  readonly leaseSeconds?: number;
  /** How often a chunk is retried (worker error, expired lease) before the job fails. @default 10 */
  readonly retryLimit?: number;
  /** Seconds between pg-boss maintenance runs (expired leases back to the queue). @default 30 */
  readonly maintenanceIntervalSeconds?: number;
  /** How long an idle worker waits before it asks for a chunk again, in ms. @default 1000 */
  readonly pollIntervalMs?: number;
  /** Input texts of jobs older than this many days are deleted (workers check every hour). @default 7 */
  readonly retentionDays?: number;
  /** Connections of the pool (the queue's tables and pg-boss's share it). @default 10 */
  readonly maxConnections?: number;
  /** Background errors (pg-boss maintenance, a lost connection): they do not stop the queue. @default ignored */
  readonly onError?: (error: Error) => void;
  /**
   * How long opening the queue waits for a database that is away — refused or broken connections, a server shutting
   * down or starting up: a restart, a failover — trying again with a back-off (doubled after each try, at most
   * 10 s), before STORE_UNAVAILABLE. A refused login or a missing database fails at once. `trainprint worker` waits
   * 300 s. @default 0 (one try)
   */
  readonly waitForDatabaseMs?: number;
  /** Ends the wait of `waitForDatabaseMs` early (the last failure is thrown). */
  readonly signal?: AbortSignal;
}

const DEFAULT_SCHEMA = 'trainprint_scan';

/**
 * Opens (creating or upgrading its tables and pg-boss's) the scan queue on the database at `url`.
 * @throws INVALID_OPTIONS for a bad URL, schema or option; STORE_UNAVAILABLE when the database cannot be reached
 * @example
 * const queue = await openScanQueue('postgres://localhost/db')
 * const { job } = await queue.enqueue(readDocuments(['outputs.jsonl']), { datasets: await jobDatasets(engine) })
 * await queue.work(engine, { job })
 * for await (const hit of queue.exportHits(job)) console.log(JSON.stringify(hit))
 */
export async function openScanQueue(url: string, options: ScanQueueOptions = {}): Promise<ScanQueue> {
  const target = parseTarget(url);
  const schema = options.schema ?? target.schema ?? DEFAULT_SCHEMA;
  checkSchema(schema);
  if (schema.length > 45)
    throw new TrainprintError('INVALID_OPTIONS', `schema name too long for the queue (45): ${schema}`);
  const lease = positiveInt('leaseSeconds', options.leaseSeconds, 120, 86_000);
  const retryLimit = options.retryLimit ?? 10;
  if (!Number.isInteger(retryLimit) || retryLimit < 0 || retryLimit > 1000) {
    throw new TrainprintError('INVALID_OPTIONS', `retryLimit must be an integer in 0..1000, got ${String(retryLimit)}`);
  }
  const maintenance = positiveInt('maintenanceIntervalSeconds', options.maintenanceIntervalSeconds, 30, 3600);
  const poll = positiveInt('pollIntervalMs', options.pollIntervalMs, 1000, 3_600_000);
  const retentionDays = options.retentionDays ?? 7;
  if (!(retentionDays > 0) || !Number.isFinite(retentionDays)) {
    throw new TrainprintError(
      'INVALID_OPTIONS',
      `retentionDays must be a positive number, got ${String(retentionDays)}`,
    );
  }
  const waitMs = options.waitForDatabaseMs ?? 0;
  if (!(waitMs >= 0)) {
    throw new TrainprintError('INVALID_OPTIONS', `waitForDatabaseMs must be ≥ 0, got ${String(waitMs)}`);
  }
  const open = () => connect(target, url, schema, { ...options, maintenance, lease, retryLimit });
  const { pool, boss } = await waitOut(target, open, {
    waitMs,
    pollMs: poll,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  return new ScanQueue(pool, boss, target, schema, { lease, retryLimit, poll, retentionDays });
}

/**
 * One try at the queue's hold on its database: the pool, the queue's tables and pg-boss's (created or upgraded),
 * pg-boss started. A failure closes what was opened.
 */
async function connect(
  target: PostgresTarget,
  url: string,
  schema: string,
  options: ScanQueueOptions & { readonly maintenance: number; readonly lease: number; readonly retryLimit: number },
): Promise<{ pool: Pool; boss: PgBoss }> {
  const pool = await openPool(target, { maxConnections: options.maxConnections ?? 10 });
  let boss: PgBoss | undefined;
  try {
    await applyMigrations(pool, schema, {
      migrations: QUEUE_MIGRATIONS,
      table: 'queue_migrations',
      lockClass: QUEUE_LOCK_CLASS,
    });
    boss = await startBoss(url, {
      schema: `${schema}_boss`,
      pool,
      maintenanceIntervalSeconds: options.maintenance,
      expireInSeconds: options.lease,
      retryLimit: options.retryLimit,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    await boss.createQueue(DEAD_LETTERS);
    return { pool, boss };
  } catch (error) {
    await boss?.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw unavailable(error, target) ?? error;
  }
}

/**
 * The scan queue of one database schema: enqueue (./enqueue.ts), status, results and export (./status.ts), work
 * (./worker.ts), cancel and delete (./db.ts). Made by {@link openScanQueue}.
 */
export class ScanQueue {
  readonly #db: QueueDb;
  #closed = false;

  /** @internal use {@link openScanQueue} */
  constructor(pool: Pool, boss: PgBoss, target: PostgresTarget, schema: string, settings: QueueSettings) {
    this.#db = new QueueDb(pool, boss, target, schema, settings);
  }

  /** Days after which a job's input texts are deleted. */
  get retentionDays(): number {
    return this.#db.retentionDays;
  }

  /** The lease of a chunk, in seconds. */
  get leaseSeconds(): number {
    return this.#db.lease;
  }

  /**
   * Stores `items` as a new job, in chunks (each chunk one pg-boss job, committed with it), and seals it when the
   * input ends: workers may start on the first chunks while the rest is read. Resolves to the job's id and size.
   * @throws INVALID_OPTIONS for a bad chunk size; INVALID_INPUT for an item that is not `{ id, text }` strings
   */
  async enqueue(
    items: Iterable<QueueItem> | AsyncIterable<QueueItem>,
    options: EnqueueOptions,
  ): Promise<EnqueueResult> {
    return enqueue(this.#db, items, options);
  }

  /**
   * A scan job of the job model: `context.datasets` the datasets by id and SHA-256 ({@link jobDatasets}),
   * `context.min_words` and `context.paraphrase` its options. The queue's jobs are the operator's (account `''`).
   * @throws INVALID_INPUT for another type or account, no items, or no datasets
   */
  async submit(s: JobSubmission): Promise<JobInfo> {
    return submit(this.#db, s);
  }

  /**
   * The jobs as the job model lists them: the operator's (account `''`; another account has none), newest first,
   * from the job after `after`. @throws INVALID_INPUT for an `after` that is no job
   */
  async listJobs(options: {
    readonly owner: string;
    readonly after?: string;
    readonly limit?: number;
  }): Promise<JobList> {
    return listJobs(this.#db, options);
  }

  /** A job as the job model shows it ({@link status} has the queue's own counts). @throws NOT_FOUND */
  async jobInfo(id: string, options: { readonly owner: string }): Promise<JobInfo> {
    return jobInfo(this.#db, id, options);
  }

  /**
   * A job's results as the job model gives them: one `{ id, hits }` per item scanned, in item order from the item
   * after `after` (the same shape as a scan item's result over HTTP). While the job runs a page ends before the
   * first item not yet scanned. @throws NOT_FOUND
   */
  async results(
    id: string,
    options: { readonly owner: string; readonly after?: number; readonly limit?: number },
  ): Promise<JobResultPage> {
    return results(this.#db, id, options);
  }

  /** Cancels the job (as {@link cancel}) unless it has finished. @throws NOT_FOUND */
  async cancelJob(id: string, options: { readonly owner: string }): Promise<{ job: JobInfo; cancelled: boolean }> {
    return cancelJob(this.#db, id, options);
  }

  /** Deletes the job (as {@link delete}); false when the owner has none by this id. */
  async deleteJob(id: string, options: { readonly owner: string }): Promise<boolean> {
    return deleteJob(this.#db, id, options);
  }

  /** The newest job's id, or undefined when there is none. */
  async latestJob(): Promise<string | undefined> {
    return latestJob(this.#db);
  }

  /** `job`, or the newest job when undefined. @throws NOT_FOUND when there is no such job (or none at all) */
  async resolveJob(job?: string): Promise<string> {
    return resolveJob(this.#db, job);
  }

  /**
   * Where `job` (default: the newest) stands.
   * @throws NOT_FOUND when there is no such job
   */
  async status(job?: string): Promise<ScanJobStatus> {
    return status(this.#db, job);
  }

  /**
   * The hits of a done (or failed) job in job order — chunk, item, hit — then, once every hit was read, its input
   * texts are deleted (and its pending chunks with them). Stop iterating early and nothing is deleted.
   * @throws NOT_FOUND for no such job; CONFLICT while the job is queued or running
   */
  exportHits(job?: string): AsyncGenerator<QueueHit, { hits: number }, undefined> {
    return exportHits(this.#db, job);
  }

  /**
   * Cancels a job: its pending chunks leave the queue and its input texts are deleted; its hits stay (status
   * `failed`, "cancelled") until it is deleted. Resolves to false when there is no such job.
   */
  async cancel(job: string): Promise<boolean> {
    return this.#db.cancel(job);
  }

  /** Deletes a job: its pending chunks, input texts and hits. Resolves to false when there is no such job. */
  async delete(job: string): Promise<boolean> {
    return this.#db.delete(job);
  }

  /**
   * Retention: deletes the input texts (and pending chunks) of jobs created more than `retentionDays` ago. Workers
   * run it when they start and every hour. Resolves to the jobs whose texts it deleted.
   */
  async deleteExpiredTexts(): Promise<string[]> {
    return this.#db.deleteExpiredTexts();
  }

  /**
   * Works as one worker: the one job runner (`JobRunner`) over {@link jobStore} with the scan executor — it takes
   * chunks of the open jobs (oldest job first), scans their items with `scanner` and writes their hits, until
   * `signal` aborts — or, with `options.job`, until that job is done or failed.
   * @throws CONFLICT (before anything is written) when a job's datasets differ from the scanner's by
   *   id or SHA-256; NOT_FOUND for `options.job` unknown
   */
  async work(scanner: QueueScanner, options: WorkOptions = {}): Promise<WorkSummary> {
    return work(this.#db, scanner, options);
  }

  /**
   * The PostgreSQL backend of the job model for one worker: a {@link JobStore} whose jobs are this queue's scans
   * (of no account: the operator's, `''`), claimed through pg-boss. A claim checks the job's datasets against
   * `scanner`'s by SHA-256 first (CONFLICT otherwise); a lease is pg-boss's `expireInSeconds`, which cannot be
   * extended, so a chunk is given back at 90 % of it (`renew` and `watch` say `lost`); a completion writes the
   * chunk's hits and its done mark in one transaction that does nothing for a chunk done already — exactly once.
   * A chunk with a failed item goes back to pg-boss as a retry (after `retryLimit`, the job fails).
   * @example const runner = new JobRunner({ jobs: queue.jobStore(engine), executors: { scan: scanExecutor((i, o) => engine.scanItem(i, o)) }, unsupported: {} })
   */
  jobStore(
    scanner: QueueScanner,
    options: Pick<WorkOptions, 'job' | 'onChunkError' | 'onError'> = {},
  ): JobStore & { readonly abandoned: number } {
    return jobStore(this.#db, scanner, options);
  }

  /** Stops pg-boss (its maintenance) and closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    await this.#db.pool.end();
  }
}
