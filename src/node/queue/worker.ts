/**
 * The workers of the scan queue (./queue.ts): the queue as a {@link JobStore} — a claim checks the job's datasets,
 * fetches a chunk from pg-boss and reads its items; a completion writes the chunk's hits and its done mark in one
 * transaction — and {@link work}, the one job runner over it with the scan executor.
 */
import { decode } from '@msgpack/msgpack';
import type PgBoss from 'pg-boss';
import {
  JobRunner,
  positiveInt,
  SCAN_JOB,
  scanExecutor,
  sleep,
  TrainprintError,
  type JobClaim,
  type JobStore,
} from '../../library.js';
import { isOutage, unavailable } from '../../store/node-kit.js';
import { type ChunkRef, HIT_FIELDS, type OpenJob, type QueueDb, queueName, TEXT_HIT_FIELDS } from './db.js';
import { submit } from './enqueue.js';
import { cancelJob, deleteJob, jobInfo, listJobs, reapFailures, resolveJob, results, status } from './status.js';
import type { JobDataset, JobScanOptions, QueueHit, QueueItem, QueueScanner } from './types.js';
import { backoff, waitOut } from './wait.js';

const RETENTION_CHECK_MS = 3_600_000;

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

/** The jobs with chunks to scan (or still being enqueued by a live enqueuer), oldest first; `only`: that one. */
async function openJobs(db: QueueDb, only?: string): Promise<OpenJob[]> {
  const rows = await db.query<{ id: string; datasets: JobDataset[]; options: JobScanOptions }>(
    `SELECT j.id, j.datasets, j.options FROM ${db.s}.jobs j
      WHERE j.texts_deleted_at IS NULL AND j.cancelled_at IS NULL ${only ? 'AND j.id = $1' : ''}
        AND (CASE WHEN j.sealed THEN EXISTS (SELECT 1 FROM ${db.s}.chunks c
              WHERE c.job_id = j.id AND c.done_at IS NULL AND c.failed IS NULL)
             ELSE NOT ${db.enqueuerGone('j.id')} END)
      ORDER BY j.created, j.id LIMIT 50`,
    only ? [only] : [],
  );
  return rows;
}

/** See `ScanQueue.work`. */
export async function work(db: QueueDb, scanner: QueueScanner, options: WorkOptions = {}): Promise<WorkSummary> {
  const concurrency = positiveInt('concurrency', options.concurrency, 1, 256);
  if (options.job !== undefined) {
    const job = options.job;
    // as the runner below: a database that is away is waited for (until it answers, or `signal` stops the worker)
    try {
      await waitOut(db.target, () => resolveJob(db, job), {
        waitMs: Number.POSITIVE_INFINITY,
        pollMs: db.poll,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted && isOutage(error)) return { chunks: 0, items: 0, hits: 0, abandoned: 0 };
      throw error;
    }
  }
  const jobs = jobStore(db, scanner, options);
  const totals = { chunks: 0, items: 0, hits: 0 };
  const runner = new JobRunner({
    jobs,
    executors: { [SCAN_JOB.name]: scanExecutor((item, o) => scanner.scanItem(item, o)) },
    unsupported: {},
    concurrency,
    pollMs: db.poll,
    leaseMs: db.lease * 1000,
    itemTimeoutMs: db.lease * 1000,
    finishChunks: true,
    // a worker's log names the scanner's own error (an HTTP job's result would not)
    errorOf: (e) => ({
      code: e instanceof TrainprintError ? e.code : 'INTERNAL',
      message: String((e as Error)?.message ?? e),
    }),
    // the database away is waited for; a refusal (another dataset), or a bug, ends the worker
    fatal: (e) => unavailable(e, db.target)?.code !== 'STORE_UNAVAILABLE',
    onError: (e) => {
      const down = unavailable(e, db.target);
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
        await sleep(db.poll, stopped.signal).catch(() => undefined); // an abort ends the wait
        if (options.job === undefined || stopped.signal.aborted) continue;
        if (await jobOver(db, options.job)) stop();
      }
      // the chunks being scanned are finished (up to their lease), or given back by abortChunks
      await runner.stop({ graceMs: db.lease * 1000 });
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
async function jobOver(db: QueueDb, job: string): Promise<boolean> {
  try {
    if ((await openJobs(db, job)).length > 0) return false;
    const st = await status(db, job);
    return st.state === 'done' || st.state === 'failed';
  } catch (e) {
    if (unavailable(e, db.target)?.code === 'STORE_UNAVAILABLE') return false;
    throw e;
  }
}

/** See `ScanQueue.jobStore`. */
export function jobStore(
  db: QueueDb,
  scanner: QueueScanner,
  options: Pick<WorkOptions, 'job' | 'onChunkError' | 'onError'> = {},
): JobStore & { readonly abandoned: number } {
  const check = datasetCheck(scanner);
  /** The chunks claimed here, by token (pg-boss's job id): when their lease is at 90 %. */
  const leases = new Map<string, { until: number; chunk: PgBoss.Job<ChunkRef> }>();
  let abandoned = 0;
  const giveBack = async (claim: JobClaim, message: string) => {
    if (!leases.delete(claim.token)) return;
    abandoned++;
    await db.boss.fail(queueName(claim.job.id), claim.token, { message }).catch(() => undefined);
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
    submit: (s) => submit(db, s),
    list: (o) => listJobs(db, o),
    status: (id, o) => jobInfo(db, id, o),
    results: (id, o) => results(db, id, o),
    cancel: (id, o) => cancelJob(db, id, o),
    delete: (id, o) => deleteJob(db, id, o),
    expire: async () => (await db.deleteExpiredTexts()).length,
    async claim() {
      if (Date.now() - db.lastRetention > RETENTION_CHECK_MS) await db.deleteExpiredTexts();
      for (const job of await openJobs(db, options.job)) {
        await check(job);
        const [chunk] = await db.boss.fetch<ChunkRef>(queueName(job.id));
        if (!chunk) continue;
        const claim = await claimChunk(db, job, chunk);
        if (!claim) continue;
        const leaseMs = (Number(chunk.expireInSeconds) || db.lease) * 900; // the job's own, as pg-boss keeps it
        leases.set(claim.token, { until: Date.now() + leaseMs, chunk });
        return claim;
      }
      await reapFailures(db);
      return null;
    },
    renew: async (claim) => !(await pastLease(claim)),
    async watch(claim) {
      const [row] = await db.query<{ gone: boolean }>(
        `SELECT (cancelled_at IS NOT NULL OR texts_deleted_at IS NOT NULL) AS gone FROM ${db.s}.jobs WHERE id = $1`,
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
      const wrote = await whileLeased(db, until, onError, () => writeChunk(db, claim.job.id, claim.chunk, hits));
      if (wrote === undefined) {
        await giveBack(claim, 'the database was away past 90 % of the lease');
        return false;
      }
      leases.delete(claim.token);
      // (not acknowledged: pg-boss hands the chunk out again after its lease, and the next worker finds it done)
      await whileLeased(db, until, onError, () => db.boss.complete(queueName(claim.job.id), claim.token));
      return wrote;
    },
    async fail(claim, error) {
      leases.delete(claim.token);
      await db.query(`UPDATE ${db.s}.chunks SET failed = $3 WHERE job_id = $1 AND seq = $2`, [
        claim.job.id,
        claim.chunk,
        `${error.code}: ${error.message}`.slice(0, 1000),
      ]);
      await db.boss.complete(queueName(claim.job.id), claim.token);
    },
  };
}

/**
 * A fetched chunk as the runner's claim, its items read; null (and acknowledged) when there is nothing to scan:
 * done by a worker that died before acknowledging it, or its job's texts are gone.
 */
async function claimChunk(db: QueueDb, job: OpenJob, chunk: PgBoss.Job<ChunkRef>): Promise<JobClaim | null> {
  const { seq } = chunk.data;
  const [row] = await db.query<{ texts: Buffer | null; done: boolean; first: string }>(
    `UPDATE ${db.s}.chunks SET started_at = coalesce(started_at, now()) WHERE job_id = $1 AND seq = $2
      RETURNING texts, done_at IS NOT NULL AS done,
        (SELECT coalesce(sum(items), 0) FROM ${db.s}.chunks WHERE job_id = $1 AND seq < $2)::bigint AS first`,
    [job.id, seq],
  );
  if (!row || row.done || row.texts === null) {
    await db.boss.complete(queueName(job.id), chunk.id);
    return null;
  }
  return {
    job: await jobInfo(db, job.id, { owner: '' }),
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
async function whileLeased<T>(
  db: QueueDb,
  lease: AbortSignal,
  onError: (error: Error) => void,
  attempt: () => Promise<T>,
): Promise<T | undefined> {
  for (let failures = 0; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      const down = unavailable(error, db.target);
      if (down?.code !== 'STORE_UNAVAILABLE') throw down ?? error;
      onError(down);
      if (lease.aborted) return undefined;
      await sleep(backoff(db.poll, failures), lease).catch(() => undefined);
      if (lease.aborted) return undefined;
    }
  }
}

/** Writes a chunk's hits and marks it done, in one transaction; false when it was done already. */
async function writeChunk(
  db: QueueDb,
  job: string,
  seq: number,
  hits: { item: number; hit: number; h: QueueHit }[],
): Promise<boolean> {
  return db.transaction(async (client) => {
    const locked = await client.query(
      `SELECT done_at IS NOT NULL AS done FROM ${db.s}.chunks WHERE job_id = $1 AND seq = $2 FOR UPDATE`,
      [job, seq],
    );
    if (locked.rows.length === 0 || locked.rows[0].done) return false;
    if (hits.length > 0) {
      const types = HIT_FIELDS.map((f, i) => `$${i + 5}::${TEXT_HIT_FIELDS.has(f) ? 'text' : 'int'}[]`);
      await client.query(
        `INSERT INTO ${db.s}.hits (job_id, chunk_seq, item_index, hit_index, ${HIT_FIELDS.join(', ')})
          SELECT $1, $2, * FROM unnest($3::int[], $4::int[], ${types.join(', ')})
          ON CONFLICT DO NOTHING`,
        [job, seq, hits.map((x) => x.item), hits.map((x) => x.hit), ...HIT_FIELDS.map((f) => hits.map((x) => x.h[f]))],
      );
    }
    await client.query(
      `UPDATE ${db.s}.chunks SET done_at = now(), hits = $3, texts = NULL WHERE job_id = $1 AND seq = $2`,
      [job, seq, hits.length],
    );
    return true;
  });
}
