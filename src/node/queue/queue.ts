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
import { randomUUID } from 'node:crypto';
import { decode, encode } from '@msgpack/msgpack';
import type { Pool, PoolClient } from 'pg';
import type PgBoss from 'pg-boss';
import {
  JobRunner,
  scanExecutor,
  TrainprintError,
  type JobClaim,
  type JobInfo,
  type JobResult,
  type JobResultPage,
  type JobState,
  type JobStore,
  type JobSubmission,
} from '../../library.js';
import {
  applyMigrations,
  checkSchema,
  inTransaction,
  openPool,
  parseTarget,
  quote,
  unavailable,
  type PostgresTarget,
} from '../../store/node.js';
import { startBoss } from './boss.js';
import { QUEUE_LOCK_CLASS, QUEUE_MIGRATIONS } from './schema.js';
import type {
  JobDataset,
  JobScanOptions,
  QueueHit,
  QueueItem,
  QueueScanner,
  ScanJobState,
  ScanJobStatus,
} from './types.js';

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
}

/** Options of {@link ScanQueue.enqueue}. */
export interface EnqueueOptions {
  /** The datasets the job scans against, by id and SHA-256 ({@link jobDatasets}). */
  readonly datasets: readonly JobDataset[];
  /** @default 50 */
  readonly minWords?: number;
  /** @default false */
  readonly paraphrase?: boolean;
  /** Items per chunk at most. @default 500 */
  readonly chunkItems?: number;
  /** UTF-8 bytes of text per chunk at most (a single larger item is a chunk of its own). @default 4 MiB */
  readonly chunkBytes?: number;
  /** Stop reading the input: the job is deleted and the call rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
  /** Called with the job's id as soon as its row exists (before the first chunk). */
  readonly onJob?: (job: string) => void;
  /** Called after each chunk is stored. */
  readonly onChunk?: (progress: { readonly chunks: number; readonly items: number; readonly bytes: number }) => void;
}

/** What {@link ScanQueue.enqueue} stored. */
export interface EnqueueResult {
  readonly job: string;
  readonly items: number;
  readonly chunks: number;
  readonly bytes: number;
}

/** Options of {@link ScanQueue.work}. */
export interface WorkOptions {
  /** Chunks this process scans at once (each its own database round trips; the scan itself is one thread). @default 1 */
  readonly concurrency?: number;
  /** Work on this job only, and return when it is done or failed. Without it: every job, until `signal` aborts. */
  readonly job?: string;
  /** Stop: no new chunk is taken; the chunks being scanned are finished, or given back when `abortChunks` aborts. */
  readonly signal?: AbortSignal;
  /** Give back the chunks being scanned now (they go back to the queue at once; their retry count grows by one). */
  readonly abortChunks?: AbortSignal;
  /** A chunk's scan failed (it goes back to the queue as a retry; the worker goes on). @default ignored */
  readonly onChunkError?: (error: unknown, chunk: { readonly job: string; readonly seq: number }) => void;
  /** The database could not be reached for a moment (the worker waits and goes on). @default ignored */
  readonly onError?: (error: Error) => void;
  /** Called after each chunk this worker wrote. */
  readonly onChunk?: (done: {
    readonly job: string;
    readonly seq: number;
    readonly items: number;
    readonly hits: number;
  }) => void;
}

/** What a worker did. */
export interface WorkSummary {
  readonly chunks: number;
  readonly items: number;
  readonly hits: number;
  /** Chunks given back unfinished (stopped, or past 90 % of the lease). */
  readonly abandoned: number;
}

const DEFAULT_SCHEMA = 'trainprint_scan';
/** pg-boss's queue of chunks out of retries: its jobs carry the chunk ({ job, seq }) and the last error. */
const DEAD_LETTERS = 'scan-failed';
const RETENTION_CHECK_MS = 3_600_000;
/** The first half of the advisory lock an enqueue holds on its job ('tpqe'); the second is hashtext(job id). */
const ENQUEUE_LOCK_CLASS = 0x7470_7165;
/** The longest wait between two tries while the database cannot be reached (ms). */
const MAX_BACKOFF_MS = 10_000;
const EXPORT_PAGE = 5_000;

interface ChunkRef {
  readonly job: string;
  readonly seq: number;
}

interface OpenJob {
  readonly id: string;
  readonly datasets: JobDataset[];
  readonly options: JobScanOptions;
}

const queueName = (job: string) => `scan-${job}`;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** A row of the hits table as the hit it stores, its fields in the hit line's order. */
const hitOf = (r: Record<string, unknown>): QueueHit => ({
  id: r.id as string,
  dataset_id: r.dataset_id as string,
  document_id: r.document_id as string,
  query_start: r.query_start as number,
  query_end: r.query_end as number,
  source_start: r.source_start as number,
  source_end: r.source_end as number,
  words: r.words as number,
  kind: r.kind as QueueHit['kind'],
});

/** The wait before try `failures + 1` while the database is away: the poll interval, doubled each time, at most 10 s. */
const backoff = (pollMs: number, failures: number): number =>
  Math.min(MAX_BACKOFF_MS, Math.max(pollMs, 250) * 2 ** Math.min(failures, 16));

function positiveInt(name: string, value: number | undefined, fallback: number, max = 2 ** 31 - 1): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1 || v > max) {
    throw new TrainprintError('INVALID_OPTIONS', `${name} must be an integer in 1..${max}, got ${String(value)}`);
  }
  return v;
}

/**
 * What a worker checks before it takes a chunk of a job: that it holds each of the job's datasets with the same
 * SHA-256 (each digest computed once, each job checked once).
 * @throws CONFLICT naming the dataset a worker lacks or holds in another version
 */
function datasetCheck(scanner: QueueScanner): (job: OpenJob) => Promise<void> {
  const digests = new Map<string, Promise<string | undefined>>();
  const held = new Set(scanner.datasets().map((d) => d.id));
  const digest = (id: string) => {
    let d = digests.get(id);
    if (!d) {
      d = held.has(id) ? scanner.datasetDigest(id) : Promise.resolve(undefined);
      digests.set(id, d);
    }
    return d;
  };
  const checked = new Set<string>();
  return async (job) => {
    if (checked.has(job.id)) return;
    for (const want of job.datasets) {
      const have = await digest(want.id);
      if (have !== want.sha256) {
        throw new TrainprintError(
          'CONFLICT',
          have === undefined
            ? `refusing scan job ${job.id}: it scans against dataset "${want.id}" (SHA-256 ${want.sha256}), which this worker has not loaded`
            : `refusing scan job ${job.id}: its dataset "${want.id}" has SHA-256 ${want.sha256}, this worker's has ${have}`,
        );
      }
    }
    checked.add(job.id);
  };
}

/**
 * The datasets a job scans against, as workers check them: `ids` (default: every exact dataset the scanner holds)
 * with their SHA-256.
 * @throws NOT_FOUND for an id the scanner does not hold
 * @example await queue.enqueue(items, { datasets: await jobDatasets(engine) })
 */
export async function jobDatasets(scanner: QueueScanner, ids?: readonly string[]): Promise<JobDataset[]> {
  const held = scanner.datasets();
  const wanted = ids ?? held.filter((d) => d.kind === 'exact').map((d) => d.id);
  const out: JobDataset[] = [];
  for (const id of wanted) {
    if (!held.some((d) => d.id === id)) throw new TrainprintError('NOT_FOUND', `dataset "${id}" is not loaded`);
    out.push({ id, sha256: await scanner.datasetDigest(id) });
  }
  if (out.length === 0) throw new TrainprintError('INVALID_INPUT', 'a scan needs at least one exact dataset');
  return out;
}

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
  const pool = await openPool(target, { maxConnections: options.maxConnections ?? 10 });
  try {
    await applyMigrations(pool, schema, {
      migrations: QUEUE_MIGRATIONS,
      table: 'queue_migrations',
      lockClass: QUEUE_LOCK_CLASS,
    });
    const boss = await startBoss(url, {
      schema: `${schema}_boss`,
      pool,
      maintenanceIntervalSeconds: maintenance,
      expireInSeconds: lease,
      retryLimit,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    await boss.createQueue(DEAD_LETTERS);
    return new ScanQueue(pool, boss, target, schema, { lease, retryLimit, poll, retentionDays });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw unavailable(error, target) ?? error;
  }
}

/** The scan queue of one database schema: enqueue, work, status, export, delete. Made by {@link openScanQueue}. */
export class ScanQueue {
  readonly #pool: Pool;
  readonly #boss: PgBoss;
  readonly #target: PostgresTarget;
  readonly #s: string;
  readonly #bossSchema: string;
  readonly #lease: number;
  readonly #retryLimit: number;
  readonly #poll: number;
  /** Days after which a job's input texts are deleted. */
  readonly retentionDays: number;
  #lastRetention = 0;
  #closed = false;

  /** @internal use {@link openScanQueue} */
  constructor(
    pool: Pool,
    boss: PgBoss,
    target: PostgresTarget,
    schema: string,
    settings: { lease: number; retryLimit: number; poll: number; retentionDays: number },
  ) {
    this.#pool = pool;
    this.#boss = boss;
    this.#target = target;
    this.#s = quote(schema);
    this.#bossSchema = quote(`${schema}_boss`);
    this.#lease = settings.lease;
    this.#retryLimit = settings.retryLimit;
    this.#poll = settings.poll;
    this.retentionDays = settings.retentionDays;
  }

  /** The lease of a chunk, in seconds. */
  get leaseSeconds(): number {
    return this.#lease;
  }

  async #query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query(text, values)).rows as R[];
    } catch (error) {
      throw unavailable(error, this.#target) ?? error;
    }
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
    const chunkItems = positiveInt('chunkItems', options.chunkItems, 500, 1_000_000);
    const chunkBytes = positiveInt('chunkBytes', options.chunkBytes, 4 * 1024 * 1024, 1024 * 1024 * 1024);
    const minWords = positiveInt('minWords', options.minWords, 50, 1_000_000);
    if (options.datasets.length === 0) throw new TrainprintError('INVALID_INPUT', 'a job needs at least one dataset');
    const job = randomUUID();
    const scanOptions: JobScanOptions = { min_words: minWords, paraphrase: options.paraphrase === true };
    // the lock first: no one ever sees the job's row without it while the enqueue is alive
    const holder = await this.#holdEnqueueLock(job);
    try {
      await this.#query(`INSERT INTO ${this.#s}.jobs (id, datasets, options) VALUES ($1, $2, $3)`, [
        job,
        JSON.stringify(options.datasets.map((d) => ({ id: d.id, sha256: d.sha256 }))),
        JSON.stringify(scanOptions),
      ]);
      await this.#boss.createQueue(queueName(job), {
        name: queueName(job),
        expireInSeconds: this.#lease,
        retryLimit: this.#retryLimit,
        deadLetter: DEAD_LETTERS,
        // pg-boss archives a job still waiting after its retention (14 days by default): keep chunks past ours
        retentionMinutes: Math.ceil(this.retentionDays * 1440) + 1440,
      });
      options.onJob?.(job);
      try {
        return await this.#fill(job, items, options, chunkItems, chunkBytes, holder.check);
      } catch (error) {
        // a job cut short (bad input, a signal, the database gone) would never be done: it goes, chunks and all
        await this.delete(job).catch(() => undefined);
        throw error;
      }
    } finally {
      await holder.release();
    }
  }

  /**
   * A connection of its own that holds the enqueue's lock on `job` until `release`; `check` throws once that
   * connection broke (the lock is gone with it, so workers would take the job for abandoned: the enqueue stops).
   */
  async #holdEnqueueLock(job: string): Promise<{ check: () => void; release: () => Promise<void> }> {
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw unavailable(error, this.#target) ?? error;
    }
    let broken: Error | undefined;
    // a checked-out connection reports its end as an 'error' event: heard here, never a crash
    const onError = (e: Error) => {
      broken ??= e;
    };
    client.on('error', onError);
    const release = async () => {
      if (!broken)
        await client
          .query('SELECT pg_advisory_unlock($1, hashtext($2))', [ENQUEUE_LOCK_CLASS, job])
          .catch((e: Error) => {
            broken = e;
          });
      client.off('error', onError);
      client.release(broken);
    };
    try {
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [ENQUEUE_LOCK_CLASS, job]);
    } catch (error) {
      broken ??= error as Error;
      await release();
      throw unavailable(error, this.#target) ?? error;
    }
    const check = () => {
      if (broken)
        throw (
          unavailable(broken, this.#target) ??
          new TrainprintError('STORE_UNAVAILABLE', `the enqueue's connection broke: ${broken.message}`)
        );
    };
    return { check, release };
  }

  async #fill(
    job: string,
    items: Iterable<QueueItem> | AsyncIterable<QueueItem>,
    options: EnqueueOptions,
    chunkItems: number,
    chunkBytes: number,
    alive: () => void,
  ): Promise<EnqueueResult> {
    let seq = 0;
    let total = 0;
    let totalBytes = 0;
    let chunk: QueueItem[] = [];
    let bytes = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      alive();
      const payload = Buffer.from(encode(chunk.map((i) => ({ id: i.id, text: i.text }))));
      const ids = chunk.map((i) => i.id);
      const n = chunk.length;
      const b = bytes;
      const s = seq++;
      chunk = [];
      bytes = 0;
      await this.#transaction(async (db) => {
        await db.query(
          `INSERT INTO ${this.#s}.chunks (job_id, seq, items, bytes, texts, ids) VALUES ($1, $2, $3, $4, $5, $6)`,
          [job, s, n, b, payload, JSON.stringify(ids)],
        );
        const wrapper = { executeSql: (text: string, values: unknown[]) => db.query(text, values) };
        await this.#boss.insert([{ name: queueName(job), data: { job, seq: s } }], { db: wrapper });
      });
      total += n;
      totalBytes += b;
      options.onChunk?.({ chunks: seq, items: total, bytes: totalBytes });
    };
    for await (const item of items) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (typeof item?.id !== 'string' || typeof item.text !== 'string') {
        throw new TrainprintError('INVALID_INPUT', `item ${total + chunk.length}: needs string id and text`);
      }
      const size = Buffer.byteLength(item.text);
      if (chunk.length > 0 && (chunk.length >= chunkItems || bytes + size > chunkBytes)) await flush();
      chunk.push(item);
      bytes += size;
    }
    await flush();
    alive();
    await this.#query(`UPDATE ${this.#s}.jobs SET sealed = true, items_total = $2, chunks_total = $3 WHERE id = $1`, [
      job,
      total,
      seq,
    ]);
    return { job, items: total, chunks: seq, bytes: totalBytes };
  }

  async #transaction<T>(body: (db: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.#pool, 'BEGIN', body);
    } catch (error) {
      throw unavailable(error, this.#target) ?? error;
    }
  }

  /**
   * A scan job of the job model: `context.datasets` the datasets by id and SHA-256 ({@link jobDatasets}),
   * `context.min_words` and `context.paraphrase` its options. The queue's jobs are the operator's (account `''`).
   * @throws INVALID_INPUT for another type or account, no items, or no datasets
   */
  async submit(s: JobSubmission): Promise<JobInfo> {
    if (s.type !== 'scan' || s.account !== '')
      throw new TrainprintError('INVALID_INPUT', "the scan queue takes scan jobs of the operator (account '')");
    const c = s.context ?? {};
    const { job } = await this.enqueue(s.items as QueueItem[], {
      datasets: Array.isArray(c.datasets) ? (c.datasets as JobDataset[]) : [],
      ...(typeof c.min_words === 'number' ? { minWords: c.min_words } : {}),
      paraphrase: c.paraphrase === true,
    });
    return this.jobInfo(job, { owner: '' });
  }

  /** A job as the job model shows it ({@link status} has the queue's own counts). @throws NOT_FOUND */
  async jobInfo(id: string, options: { readonly owner: string }): Promise<JobInfo> {
    if (options.owner !== '') throw new TrainprintError('NOT_FOUND', `no scan job ${id}`);
    const st = await this.status(id);
    const state: JobState = st.error === 'cancelled' ? 'cancelled' : st.state;
    return {
      id: st.job,
      account: '',
      type: 'scan',
      state,
      total: st.items_total,
      done: st.items_done,
      failed: 0,
      created: Date.parse(st.created),
      started: null,
      finished: null,
      eta_ms: null,
      ...(st.error && state === 'failed' ? { error: { code: 'INTERNAL', message: st.error } } : {}),
    };
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
    const info = await this.jobInfo(id, options);
    const finished = info.state !== 'queued' && info.state !== 'running';
    const after = options.after ?? -1;
    const limit = Math.max(1, Math.min(options.limit ?? 100, 10_000));
    const chunks = await this.#query<{ seq: number; items: number; done: boolean }>(
      `SELECT seq, items, done_at IS NOT NULL AS done FROM ${this.#s}.chunks WHERE job_id = $1 ORDER BY seq`,
      [id],
    );
    const wanted: { seq: number; first: number; items: number }[] = [];
    let first = 0;
    let room = limit;
    let blocked = false;
    for (const c of chunks) {
      const end = first + c.items;
      if (end > after + 1 && room > 0) {
        if (!c.done && !finished) {
          blocked = true;
          break;
        }
        if (c.done) {
          wanted.push({ seq: c.seq, first, items: c.items });
          room -= Math.min(c.items, end - (after + 1));
        }
      }
      first = end;
    }
    const seqs = wanted.map((w) => w.seq);
    const idRows = await this.#query<{ seq: number; ids: string[] | null }>(
      `SELECT seq, ids FROM ${this.#s}.chunks WHERE job_id = $1 AND seq = ANY($2::int[])`,
      [id, seqs],
    );
    const hitRows = await this.#query<Record<string, unknown>>(
      `SELECT chunk_seq, item_index, id, dataset_id, document_id, query_start, query_end, source_start, source_end,
          words, kind FROM ${this.#s}.hits WHERE job_id = $1 AND chunk_seq = ANY($2::int[])
        ORDER BY chunk_seq, item_index, hit_index`,
      [id, seqs],
    );
    const ids = new Map(idRows.map((r) => [r.seq, r.ids]));
    const hits = new Map<string, QueueHit[]>();
    for (const r of hitRows) {
      const key = `${r.chunk_seq}/${r.item_index}`;
      const list = hits.get(key) ?? [];
      list.push(hitOf(r));
      hits.set(key, list);
    }
    const results: JobResult[] = [];
    for (const w of wanted) {
      for (let i = Math.max(0, after + 1 - w.first); i < w.items && results.length < limit; i++) {
        const found = hits.get(`${w.seq}/${i}`) ?? [];
        const itemId = ids.get(w.seq)?.[i] ?? found[0]?.id ?? '';
        results.push({ index: w.first + i, success: true, result: { id: itemId, hits: found } });
      }
    }
    const last = results.length ? results[results.length - 1].index : after;
    const more = blocked || !finished || results.length === limit;
    return { results, next: more ? last : null };
  }

  /** Cancels the job (as {@link cancel}) unless it has finished. @throws NOT_FOUND */
  async cancelJob(id: string, options: { readonly owner: string }): Promise<{ job: JobInfo; cancelled: boolean }> {
    const job = await this.jobInfo(id, options);
    if (job.state !== 'queued' && job.state !== 'running') return { job, cancelled: false };
    await this.cancel(id);
    return { job: await this.jobInfo(id, options), cancelled: true };
  }

  /** Deletes the job (as {@link delete}); false when the owner has none by this id. */
  async deleteJob(id: string, options: { readonly owner: string }): Promise<boolean> {
    return options.owner === '' && this.delete(id);
  }

  /** The newest job's id, or undefined when there is none. */
  async latestJob(): Promise<string | undefined> {
    const rows = await this.#query<{ id: string }>(`SELECT id FROM ${this.#s}.jobs ORDER BY created DESC, id LIMIT 1`);
    return rows[0]?.id;
  }

  /** `job`, or the newest job when undefined. @throws NOT_FOUND when there is no such job (or none at all) */
  async resolveJob(job?: string): Promise<string> {
    const id = job ?? (await this.latestJob());
    if (id === undefined) throw new TrainprintError('NOT_FOUND', 'no scan job in this queue');
    const rows = await this.#query(`SELECT 1 FROM ${this.#s}.jobs WHERE id = $1`, [id]);
    if (rows.length === 0) throw new TrainprintError('NOT_FOUND', `no scan job ${id}`);
    return id;
  }

  /**
   * Chunks out of retries (pg-boss moved them to the dead-letter queue) are marked failed in the job's table, so
   * the job's status says so for as long as the job exists.
   */
  async #reapFailures(): Promise<void> {
    for (;;) {
      const jobs = await this.#boss.fetch<ChunkRef>(DEAD_LETTERS, { batchSize: 100, includeMetadata: true });
      if (jobs.length === 0) return;
      for (const j of jobs) {
        const output = (j as { output?: { message?: unknown; value?: { message?: unknown } } }).output;
        const why = String(output?.message ?? output?.value?.message ?? 'out of retries');
        await this.#query(
          `UPDATE ${this.#s}.chunks SET failed = $3 WHERE job_id = $1 AND seq = $2 AND done_at IS NULL`,
          [j.data.job, j.data.seq, why.slice(0, 1000)],
        );
      }
      await this.#boss.complete(
        DEAD_LETTERS,
        jobs.map((j) => j.id),
      );
    }
  }

  /**
   * Where `job` (default: the newest) stands.
   * @throws NOT_FOUND when there is no such job
   */
  async status(job?: string): Promise<ScanJobStatus> {
    const id = await this.resolveJob(job);
    await this.#reapFailures();
    const [row] = await this.#query<Record<string, unknown>>(
      `SELECT j.created, j.sealed, j.items_total, j.exported_at, j.cancelled_at, j.texts_deleted_at,
          (NOT j.sealed AND ${this.#enqueuerGone('j.id')}) AS abandoned,
          count(c.seq)::int AS chunks, count(c.done_at)::int AS chunks_done, count(c.failed)::int AS chunks_failed,
          count(c.started_at)::int AS chunks_started,
          coalesce(sum(c.items), 0)::bigint AS items, coalesce(sum(c.items) FILTER (WHERE c.done_at IS NOT NULL), 0)::bigint AS items_done,
          coalesce(sum(c.hits), 0)::bigint AS hits, min(c.failed) AS failed
        FROM ${this.#s}.jobs j LEFT JOIN ${this.#s}.chunks c ON c.job_id = j.id
        WHERE j.id = $1 GROUP BY j.id`,
      [id],
    );
    if (!row) throw new TrainprintError('NOT_FOUND', `no scan job ${id}`);
    const chunks = row.chunks as number;
    const chunksDone = row.chunks_done as number;
    const chunksFailed = row.chunks_failed as number;
    const sealed = row.sealed as boolean;
    let state: ScanJobState;
    let error: string | undefined;
    if (sealed && chunksDone === chunks) state = 'done';
    else if (chunksFailed > 0) {
      state = 'failed';
      error = `${chunksFailed} chunk(s) failed ${this.#retryLimit + 1} times: ${String(row.failed)}`;
    } else if (row.cancelled_at !== null) {
      state = 'failed';
      error = 'cancelled';
    } else if (row.texts_deleted_at !== null) {
      state = 'failed';
      error = `input texts deleted (retention ${this.retentionDays} days) before every chunk was scanned`;
    } else if (row.abandoned === true) {
      state = 'failed';
      error =
        `its enqueue stopped before the input ended (the process is gone): ${Number(row.items)} items in ` +
        `${chunks} chunks were stored and the job is incomplete; workers do not take it — delete it and enqueue again`;
    } else state = (row.chunks_started as number) > 0 ? 'running' : 'queued';
    return {
      job: id,
      state,
      items_done: Number(row.items_done),
      items_total: sealed ? Number(row.items_total) : Number(row.items),
      hits: Number(row.hits),
      chunks_done: chunksDone,
      chunks_total: chunks,
      chunks_failed: chunksFailed,
      sealed,
      created: new Date(row.created as string).toISOString(),
      exported: row.exported_at !== null,
      ...(error === undefined ? {} : { error }),
    };
  }

  /**
   * The hits of a done (or failed) job in job order — chunk, item, hit — then, once every hit was read, its input
   * texts are deleted (and its pending chunks with them). Stop iterating early and nothing is deleted.
   * @throws NOT_FOUND for no such job; CONFLICT while the job is queued or running
   */
  async *exportHits(job?: string): AsyncGenerator<QueueHit, { hits: number }, undefined> {
    const st = await this.status(job);
    if (st.state === 'queued' || st.state === 'running') {
      throw new TrainprintError(
        'CONFLICT',
        `scan job ${st.job} is ${st.state} (${st.items_done} of ${st.items_total} items): export it when it is done`,
      );
    }
    let after = [-1, -1, -1];
    let n = 0;
    for (;;) {
      const rows = await this.#query<Record<string, unknown>>(
        `SELECT chunk_seq, item_index, hit_index, id, dataset_id, document_id, query_start, query_end,
            source_start, source_end, words, kind
          FROM ${this.#s}.hits WHERE job_id = $1 AND (chunk_seq, item_index, hit_index) > ($2, $3, $4)
          ORDER BY chunk_seq, item_index, hit_index LIMIT ${EXPORT_PAGE}`,
        [st.job, ...after],
      );
      for (const r of rows) {
        n++;
        yield hitOf(r);
      }
      if (rows.length < EXPORT_PAGE) break;
      const last = rows[rows.length - 1];
      after = [last.chunk_seq as number, last.item_index as number, last.hit_index as number];
    }
    await this.#dropTexts(st.job, 'exported_at = now(), ');
    return { hits: n };
  }

  /**
   * Removes the job's pg-boss queue with every job in it. pg-boss 10's `deleteQueue` drops the queue's partition
   * but fails on its foreign key while the partition still holds jobs, so they are deleted first, in the same
   * transaction (pg-boss's documented `job` table).
   */
  async #deleteBossQueue(job: string): Promise<void> {
    await this.#transaction(async (db) => {
      await db.query(`DELETE FROM ${this.#bossSchema}.job WHERE name = $1`, [queueName(job)]);
      // (delete_queue of a queue that is gone already fails: only the one there is)
      await db.query(`SELECT ${this.#bossSchema}.delete_queue(name) FROM ${this.#bossSchema}.queue WHERE name = $1`, [
        queueName(job),
      ]);
    });
  }

  /** Deletes a job's input texts and its pending chunks (pg-boss's queue of the job). */
  async #dropTexts(job: string, also = ''): Promise<void> {
    await this.#deleteBossQueue(job);
    await this.#query(
      `UPDATE ${this.#s}.jobs SET ${also}texts_deleted_at = coalesce(texts_deleted_at, now()) WHERE id = $1`,
      [job],
    );
    await this.#query(`UPDATE ${this.#s}.chunks SET texts = NULL WHERE job_id = $1 AND texts IS NOT NULL`, [job]);
  }

  /**
   * Cancels a job: its pending chunks leave the queue and its input texts are deleted; its hits stay (status
   * `failed`, "cancelled") until it is deleted. Resolves to false when there is no such job.
   */
  async cancel(job: string): Promise<boolean> {
    const rows = await this.#query(`UPDATE ${this.#s}.jobs SET cancelled_at = now() WHERE id = $1 RETURNING 1`, [job]);
    if (rows.length === 0) return false;
    await this.#dropTexts(job);
    return true;
  }

  /** Deletes a job: its pending chunks, input texts and hits. Resolves to false when there is no such job. */
  async delete(job: string): Promise<boolean> {
    await this.#deleteBossQueue(job);
    const rows = await this.#query(`DELETE FROM ${this.#s}.jobs WHERE id = $1 RETURNING 1`, [job]);
    return rows.length > 0;
  }

  /**
   * Retention: deletes the input texts (and pending chunks) of jobs created more than `retentionDays` ago. Workers
   * run it when they start and every hour. Resolves to the jobs whose texts it deleted.
   */
  async deleteExpiredTexts(): Promise<string[]> {
    this.#lastRetention = Date.now();
    const rows = await this.#query<{ id: string }>(
      `SELECT id FROM ${this.#s}.jobs WHERE texts_deleted_at IS NULL AND created < now() - $1 * interval '1 day'`,
      [this.retentionDays],
    );
    for (const { id } of rows) await this.#dropTexts(id);
    return rows.map((r) => r.id);
  }

  /**
   * SQL that is true when no enqueue holds its lock on the job `idSql` (a shared try-lock, released at the end of the
   * statement: checks never block each other, and fail only while the enqueuer holds it).
   */
  #enqueuerGone(idSql: string): string {
    return `pg_try_advisory_xact_lock_shared(${ENQUEUE_LOCK_CLASS}, hashtext(${idSql}))`;
  }

  /** The jobs with chunks to scan (or still being enqueued by a live enqueuer), oldest first; `only`: that one. */
  async #openJobs(only?: string): Promise<OpenJob[]> {
    const rows = await this.#query<{ id: string; datasets: JobDataset[]; options: JobScanOptions }>(
      `SELECT j.id, j.datasets, j.options FROM ${this.#s}.jobs j
        WHERE j.texts_deleted_at IS NULL AND j.cancelled_at IS NULL ${only ? 'AND j.id = $1' : ''}
          AND (CASE WHEN j.sealed THEN EXISTS (SELECT 1 FROM ${this.#s}.chunks c
                WHERE c.job_id = j.id AND c.done_at IS NULL AND c.failed IS NULL)
               ELSE NOT ${this.#enqueuerGone('j.id')} END)
        ORDER BY j.created, j.id LIMIT 50`,
      only ? [only] : [],
    );
    return rows;
  }

  /**
   * Works as one worker: the one job runner (`JobRunner`) over {@link jobStore} with the scan executor — it takes
   * chunks of the open jobs (oldest job first), scans their items with `scanner` and writes their hits, until
   * `signal` aborts — or, with `options.job`, until that job is done or failed.
   * @throws CONFLICT (before anything is written) when a job's datasets differ from the scanner's by
   *   id or SHA-256; NOT_FOUND for `options.job` unknown
   */
  async work(scanner: QueueScanner, options: WorkOptions = {}): Promise<WorkSummary> {
    const concurrency = positiveInt('concurrency', options.concurrency, 1, 256);
    if (options.job !== undefined) await this.resolveJob(options.job);
    const jobs = this.jobStore(scanner, options);
    const totals = { chunks: 0, items: 0, hits: 0 };
    const runner = new JobRunner({
      jobs,
      executors: { scan: scanExecutor((item, o) => scanner.scanItem(item, o)) },
      unsupported: {},
      concurrency,
      pollMs: this.#poll,
      leaseMs: this.#lease * 1000,
      itemTimeoutMs: this.#lease * 1000,
      finishChunks: true,
      // a worker's log names the scanner's own error (an HTTP job's result would not)
      errorOf: (e) => ({
        code: e instanceof TrainprintError ? e.code : 'INTERNAL',
        message: String((e as Error)?.message ?? e),
      }),
      // the database away is waited for; a refusal (another dataset), or a bug, ends the worker
      fatal: (e) => unavailable(e, this.#target)?.code !== 'STORE_UNAVAILABLE',
      onError: (e) => {
        const down = unavailable(e, this.#target);
        if (down) options.onError?.(down);
      },
      onChunk: (claim, results) => {
        const hits = results.reduce((n, r) => n + (r.success ? (r.result as { hits: unknown[] }).hits.length : 0), 0);
        totals.chunks++;
        totals.items += results.length;
        totals.hits += hits;
        options.onChunk?.({ job: claim.job.id, seq: claim.chunk, items: results.length, hits });
      },
    });
    const stopped = new AbortController();
    const stop = () => stopped.abort();
    const giveBack = () => void runner.stop({ graceMs: 0 });
    options.signal?.addEventListener('abort', stop, { once: true });
    options.abortChunks?.addEventListener('abort', giveBack, { once: true });
    if (options.signal?.aborted) stop();
    try {
      if (!stopped.signal.aborted) {
        runner.start();
        if (options.abortChunks?.aborted) giveBack();
        const ended = runner.settled.then(stop, stop);
        // with a job: until it has no chunk left to scan and is done or failed
        while (!stopped.signal.aborted) {
          await sleep(this.#poll, stopped.signal);
          if (options.job === undefined || stopped.signal.aborted) continue;
          if (await this.#jobOver(options.job)) stop();
        }
        // the chunks being scanned are finished (up to their lease), or given back by abortChunks
        await runner.stop({ graceMs: this.#lease * 1000 });
        await ended;
      }
      await runner.settled; // a refusal (CONFLICT) or another fatal error is the worker's
    } finally {
      options.signal?.removeEventListener('abort', stop);
      options.abortChunks?.removeEventListener('abort', giveBack);
    }
    return { ...totals, abandoned: jobs.abandoned };
  }

  /** Whether `job` has no chunk left to scan and is done or failed (false while the database is away). */
  async #jobOver(job: string): Promise<boolean> {
    try {
      if ((await this.#openJobs(job)).length > 0) return false;
      const st = await this.status(job);
      return st.state === 'done' || st.state === 'failed';
    } catch (e) {
      if (unavailable(e, this.#target)?.code === 'STORE_UNAVAILABLE') return false;
      throw e;
    }
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
    const queue = this;
    const check = datasetCheck(scanner);
    /** The chunks claimed here, by token (pg-boss's job id): when their lease is at 90 %. */
    const leases = new Map<string, { until: number; chunk: PgBoss.Job<ChunkRef> }>();
    let abandoned = 0;
    const giveBack = async (claim: JobClaim, message: string) => {
      if (!leases.delete(claim.token)) return;
      abandoned++;
      await this.#boss.fail(queueName(claim.job.id), claim.token, { message }).catch(() => undefined);
    };
    const pastLease = async (claim: JobClaim): Promise<boolean> => {
      const lease = leases.get(claim.token);
      if (!lease) return true;
      if (Date.now() < lease.until) return false;
      await giveBack(claim, 'chunk past 90 % of its lease');
      return true;
    };
    return {
      get abandoned() {
        return abandoned;
      },
      submit: (s) => this.submit(s),
      status: (id, o) => this.jobInfo(id, o),
      results: (id, o) => this.results(id, o),
      cancel: (id, o) => this.cancelJob(id, o),
      delete: (id, o) => this.deleteJob(id, o),
      expire: async () => (await this.deleteExpiredTexts()).length,
      async claim() {
        if (Date.now() - queue.#lastRetention > RETENTION_CHECK_MS) await queue.deleteExpiredTexts();
        for (const job of await queue.#openJobs(options.job)) {
          await check(job);
          const [chunk] = await queue.#boss.fetch<ChunkRef>(queueName(job.id));
          if (!chunk) continue;
          const claim = await queue.#claimChunk(job, chunk);
          if (!claim) continue;
          const leaseMs = (Number(chunk.expireInSeconds) || queue.#lease) * 900; // the job's own, as pg-boss keeps it
          leases.set(claim.token, { until: Date.now() + leaseMs, chunk });
          return claim;
        }
        await queue.#reapFailures();
        return null;
      },
      renew: async (claim) => !(await pastLease(claim)),
      async watch(claim) {
        const [row] = await queue.#query<{ gone: boolean }>(
          `SELECT (cancelled_at IS NOT NULL OR texts_deleted_at IS NOT NULL) AS gone FROM ${queue.#s}.jobs WHERE id = $1`,
          [claim.job.id],
        );
        if (!row || row.gone) return 'finished';
        return (await pastLease(claim)) ? 'lost' : 'held';
      },
      release: (claim) => giveBack(claim, 'worker stopped'),
      async complete(claim, results) {
        const lease = leases.get(claim.token);
        if (!lease) return false;
        const failed = results.find((r) => !r.success);
        if (failed && !failed.success) {
          // as before the job model: a chunk whose scan failed goes back to the queue (a retry), not a result
          options.onChunkError?.(new TrainprintError('INTERNAL', failed.error.message), {
            job: claim.job.id,
            seq: claim.chunk,
          });
          await giveBack(claim, failed.error.message);
          abandoned--; // a retry, not a chunk given up
          return false;
        }
        const hits: { item: number; hit: number; h: QueueHit }[] = [];
        for (const r of results) {
          const found = (r as { result: { hits: readonly QueueHit[] } }).result.hits;
          for (let k = 0; k < found.length; k++) hits.push({ item: r.index - claim.first, hit: k, h: found[k] });
        }
        const until = AbortSignal.timeout(Math.max(0, lease.until - Date.now()));
        const onError = options.onError ?? (() => undefined);
        // the hits are this worker's until written: a database that went away meanwhile is waited for (within the
        // lease), else the chunk is given back for another worker to redo
        const wrote = await queue.#whileLeased(until, onError, () =>
          queue.#writeChunk(claim.job.id, claim.chunk, hits),
        );
        if (wrote === undefined) {
          await giveBack(claim, 'the database was away past 90 % of the lease');
          return false;
        }
        leases.delete(claim.token);
        // (not acknowledged: pg-boss hands the chunk out again after its lease, and the next worker finds it done)
        await queue.#whileLeased(until, onError, () => queue.#boss.complete(queueName(claim.job.id), claim.token));
        return wrote;
      },
      async fail(claim, error) {
        leases.delete(claim.token);
        await queue.#query(`UPDATE ${queue.#s}.chunks SET failed = $3 WHERE job_id = $1 AND seq = $2`, [
          claim.job.id,
          claim.chunk,
          `${error.code}: ${error.message}`.slice(0, 1000),
        ]);
        await queue.#boss.complete(queueName(claim.job.id), claim.token);
      },
    };
  }

  /**
   * A fetched chunk as the runner's claim, its items read; null (and acknowledged) when there is nothing to scan:
   * done by a worker that died before acknowledging it, or its job's texts are gone.
   */
  async #claimChunk(job: OpenJob, chunk: PgBoss.Job<ChunkRef>): Promise<JobClaim | null> {
    const { seq } = chunk.data;
    const [row] = await this.#query<{ texts: Buffer | null; done: boolean; first: string }>(
      `UPDATE ${this.#s}.chunks SET started_at = coalesce(started_at, now()) WHERE job_id = $1 AND seq = $2
        RETURNING texts, done_at IS NOT NULL AS done,
          (SELECT coalesce(sum(items), 0) FROM ${this.#s}.chunks WHERE job_id = $1 AND seq < $2)::bigint AS first`,
      [job.id, seq],
    );
    if (!row || row.done || row.texts === null) {
      await this.#boss.complete(queueName(job.id), chunk.id);
      return null;
    }
    return {
      job: await this.jobInfo(job.id, { owner: '' }),
      context: { datasets: job.datasets.map((d) => d.id), ...job.options },
      chunk: seq,
      first: Number(row.first),
      items: decode(row.texts) as QueueItem[],
      token: chunk.id,
    };
  }

  /**
   * `attempt`, tried again with a growing back-off while the database cannot be reached, until `lease` aborts
   * (undefined then). Other errors are thrown.
   */
  async #whileLeased<T>(
    lease: AbortSignal,
    onError: (error: Error) => void,
    attempt: () => Promise<T>,
  ): Promise<T | undefined> {
    for (let failures = 0; ; failures++) {
      try {
        return await attempt();
      } catch (error) {
        const down = unavailable(error, this.#target);
        if (down?.code !== 'STORE_UNAVAILABLE') throw down ?? error;
        onError(down);
        if (lease.aborted) return undefined;
        await sleep(backoff(this.#poll, failures), lease);
        if (lease.aborted) return undefined;
      }
    }
  }

  /** Writes a chunk's hits and marks it done, in one transaction; false when it was done already. */
  async #writeChunk(job: string, seq: number, hits: { item: number; hit: number; h: QueueHit }[]): Promise<boolean> {
    return this.#transaction(async (db) => {
      const locked = await db.query(
        `SELECT done_at IS NOT NULL AS done FROM ${this.#s}.chunks WHERE job_id = $1 AND seq = $2 FOR UPDATE`,
        [job, seq],
      );
      if (locked.rows.length === 0 || locked.rows[0].done) return false;
      if (hits.length > 0) {
        await db.query(
          `INSERT INTO ${this.#s}.hits (job_id, chunk_seq, item_index, hit_index, id, dataset_id, document_id,
              query_start, query_end, source_start, source_end, words, kind)
            SELECT $1, $2, * FROM unnest($3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[],
              $9::int[], $10::int[], $11::int[], $12::int[], $13::text[])
            ON CONFLICT DO NOTHING`,
          [
            job,
            seq,
            hits.map((x) => x.item),
            hits.map((x) => x.hit),
            hits.map((x) => x.h.id),
            hits.map((x) => x.h.dataset_id),
            hits.map((x) => x.h.document_id),
            hits.map((x) => x.h.query_start),
            hits.map((x) => x.h.query_end),
            hits.map((x) => x.h.source_start),
            hits.map((x) => x.h.source_end),
            hits.map((x) => x.h.words),
            hits.map((x) => x.h.kind),
          ],
        );
      }
      await db.query(
        `UPDATE ${this.#s}.chunks SET done_at = now(), hits = $3, texts = NULL WHERE job_id = $1 AND seq = $2`,
        [job, seq, hits.length],
      );
      return true;
    });
  }

  /** Stops pg-boss (its maintenance) and closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    await this.#pool.end();
  }
}
