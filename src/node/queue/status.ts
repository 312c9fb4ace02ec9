/**
 * What the scan queue says of a job (./queue.ts): its status from its chunks (failed chunks reaped from pg-boss's
 * dead letters first), its results as the job model pages them, and the export of its hits in job order.
 */
import {
  SCAN_JOB,
  TrainprintError,
  type JobInfo,
  type JobList,
  type JobResult,
  type JobResultPage,
  type JobState,
} from '../../library.js';
import { type ChunkRef, DEAD_LETTERS, HIT_FIELDS, hitOf, type QueueDb } from './db.js';
import type { QueueHit, ScanJobState, ScanJobStatus } from './types.js';

const EXPORT_PAGE = 5_000;

/** See `ScanQueue.jobInfo`. */
export async function jobInfo(db: QueueDb, id: string, options: { readonly owner: string }): Promise<JobInfo> {
  if (options.owner !== '') throw new TrainprintError('NOT_FOUND', `no scan job ${id}`);
  const st = await status(db, id);
  const state: JobState = st.error === 'cancelled' ? 'cancelled' : st.state;
  return {
    id: st.job,
    account: '',
    type: SCAN_JOB.name,
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

/** See `ScanQueue.listJobs`. */
export async function listJobs(
  db: QueueDb,
  options: { readonly owner: string; readonly after?: string; readonly limit?: number },
): Promise<JobList> {
  if (options.owner !== '') return { jobs: [], next: null }; // the queue's jobs are the operator's
  const limit = Math.max(1, Math.min(options.limit ?? 20, 100));
  const after = options.after;
  if (after !== undefined && (await db.query(`SELECT 1 FROM ${db.s}.jobs WHERE id = $1`, [after])).length === 0)
    throw new TrainprintError('INVALID_INPUT', `after: no scan job ${after}`, {
      cause: { location: 'query', field: 'after', reason: 'is no job of the account' },
    });
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM ${db.s}.jobs
      ${after === undefined ? '' : `WHERE (created, id) < (SELECT created, id FROM ${db.s}.jobs WHERE id = $2)`}
      ORDER BY created DESC, id DESC LIMIT $1`,
    after === undefined ? [limit + 1] : [limit + 1, after],
  );
  const jobs: JobInfo[] = [];
  for (const { id } of rows.slice(0, limit)) jobs.push(await jobInfo(db, id, options));
  return { jobs, next: rows.length > limit ? rows[limit - 1].id : null };
}

/** See `ScanQueue.results`. */
export async function results(
  db: QueueDb,
  id: string,
  options: { readonly owner: string; readonly after?: number; readonly limit?: number },
): Promise<JobResultPage> {
  const info = await jobInfo(db, id, options);
  const finished = info.state !== 'queued' && info.state !== 'running';
  const after = options.after ?? -1;
  const limit = Math.max(1, Math.min(options.limit ?? 100, 10_000));
  const chunks = await db.query<{ seq: number; items: number; done: boolean }>(
    `SELECT seq, items, done_at IS NOT NULL AS done FROM ${db.s}.chunks WHERE job_id = $1 ORDER BY seq`,
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
  const idRows = await db.query<{ seq: number; ids: string[] | null }>(
    `SELECT seq, ids FROM ${db.s}.chunks WHERE job_id = $1 AND seq = ANY($2::int[])`,
    [id, seqs],
  );
  const hitRows = await db.query<Record<string, unknown>>(
    `SELECT chunk_seq, item_index, ${HIT_FIELDS.join(', ')}
      FROM ${db.s}.hits WHERE job_id = $1 AND chunk_seq = ANY($2::int[])
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

/** See `ScanQueue.cancelJob`. */
export async function cancelJob(
  db: QueueDb,
  id: string,
  options: { readonly owner: string },
): Promise<{ job: JobInfo; cancelled: boolean }> {
  const job = await jobInfo(db, id, options);
  if (job.state !== 'queued' && job.state !== 'running') return { job, cancelled: false };
  await db.cancel(id);
  return { job: await jobInfo(db, id, options), cancelled: true };
}

/** See `ScanQueue.deleteJob`. */
export async function deleteJob(db: QueueDb, id: string, options: { readonly owner: string }): Promise<boolean> {
  return options.owner === '' && db.delete(id);
}

/** See `ScanQueue.latestJob`. */
export async function latestJob(db: QueueDb): Promise<string | undefined> {
  const rows = await db.query<{ id: string }>(`SELECT id FROM ${db.s}.jobs ORDER BY created DESC, id LIMIT 1`);
  return rows[0]?.id;
}

/** See `ScanQueue.resolveJob`. */
export async function resolveJob(db: QueueDb, job?: string): Promise<string> {
  const id = job ?? (await latestJob(db));
  if (id === undefined) throw new TrainprintError('NOT_FOUND', 'no scan job in this queue');
  const rows = await db.query(`SELECT 1 FROM ${db.s}.jobs WHERE id = $1`, [id]);
  if (rows.length === 0) throw new TrainprintError('NOT_FOUND', `no scan job ${id}`);
  return id;
}

/**
 * Chunks out of retries (pg-boss moved them to the dead-letter queue) are marked failed in the job's table, so
 * the job's status says so for as long as the job exists.
 */
export async function reapFailures(db: QueueDb): Promise<void> {
  for (;;) {
    const jobs = await db.boss.fetch<ChunkRef>(DEAD_LETTERS, { batchSize: 100, includeMetadata: true });
    if (jobs.length === 0) return;
    for (const j of jobs) {
      const output = (j as { output?: { message?: unknown; value?: { message?: unknown } } }).output;
      const why = String(output?.message ?? output?.value?.message ?? 'out of retries');
      await db.query(`UPDATE ${db.s}.chunks SET failed = $3 WHERE job_id = $1 AND seq = $2 AND done_at IS NULL`, [
        j.data.job,
        j.data.seq,
        why.slice(0, 1000),
      ]);
    }
    await db.boss.complete(
      DEAD_LETTERS,
      jobs.map((j) => j.id),
    );
  }
}

/** See `ScanQueue.status`. */
export async function status(db: QueueDb, job?: string): Promise<ScanJobStatus> {
  const id = await resolveJob(db, job);
  await reapFailures(db);
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT j.created, j.sealed, j.items_total, j.exported_at, j.cancelled_at, j.texts_deleted_at,
        (NOT j.sealed AND ${db.enqueuerGone('j.id')}) AS abandoned,
        count(c.seq)::int AS chunks, count(c.done_at)::int AS chunks_done, count(c.failed)::int AS chunks_failed,
        count(c.started_at)::int AS chunks_started,
        coalesce(sum(c.items), 0)::bigint AS items, coalesce(sum(c.items) FILTER (WHERE c.done_at IS NOT NULL), 0)::bigint AS items_done,
        coalesce(sum(c.hits), 0)::bigint AS hits, min(c.failed) AS failed
      FROM ${db.s}.jobs j LEFT JOIN ${db.s}.chunks c ON c.job_id = j.id
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
    error = `${chunksFailed} chunk(s) failed ${db.retryLimit + 1} times: ${String(row.failed)}`;
  } else if (row.cancelled_at !== null) {
    state = 'failed';
    error = 'cancelled';
  } else if (row.texts_deleted_at !== null) {
    state = 'failed';
    error = `input texts deleted (retention ${db.retentionDays} days) before every chunk was scanned`;
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

/** See `ScanQueue.exportHits`. */
export async function* exportHits(db: QueueDb, job?: string): AsyncGenerator<QueueHit, { hits: number }, undefined> {
  const st = await status(db, job);
  if (st.state === 'queued' || st.state === 'running') {
    throw new TrainprintError(
      'CONFLICT',
      `scan job ${st.job} is ${st.state} (${st.items_done} of ${st.items_total} items): export it when it is done`,
    );
  }
  let after = [-1, -1, -1];
  let n = 0;
  for (;;) {
    const rows = await db.query<Record<string, unknown>>(
      `SELECT chunk_seq, item_index, hit_index, ${HIT_FIELDS.join(', ')}
        FROM ${db.s}.hits WHERE job_id = $1 AND (chunk_seq, item_index, hit_index) > ($2, $3, $4)
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
  await db.dropTexts(st.job, 'exported_at = now(), ');
  return { hits: n };
}
