/**
 * The enqueue of a scan job (./queue.ts): its row under the enqueue's session advisory lock, its input stored in
 * chunks — each chunk and its pg-boss job in one transaction — and the job sealed when the input ends.
 */
import { randomUUID } from 'node:crypto';
import { encode } from '@msgpack/msgpack';
import type { PoolClient } from 'pg';
import { positiveInt, SCAN_JOB, TrainprintError, type JobInfo, type JobSubmission } from '../../library.js';
import { unavailable } from '../../store/node-kit.js';
import { DEAD_LETTERS, ENQUEUE_LOCK_CLASS, type QueueDb, queueName } from './db.js';
import { jobInfo } from './status.js';
import type { JobDataset, JobScanOptions, QueueItem } from './types.js';

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

/** See `ScanQueue.enqueue`. */
export async function enqueue(
  db: QueueDb,
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
  const holder = await holdEnqueueLock(db, job);
  try {
    await db.query(`INSERT INTO ${db.s}.jobs (id, datasets, options) VALUES ($1, $2, $3)`, [
      job,
      JSON.stringify(options.datasets.map((d) => ({ id: d.id, sha256: d.sha256 }))),
      JSON.stringify(scanOptions),
    ]);
    await db.boss.createQueue(queueName(job), {
      name: queueName(job),
      expireInSeconds: db.lease,
      retryLimit: db.retryLimit,
      deadLetter: DEAD_LETTERS,
      // pg-boss archives a job still waiting after its retention (14 days by default): keep chunks past ours
      retentionMinutes: Math.ceil(db.retentionDays * 1440) + 1440,
    });
    options.onJob?.(job);
    try {
      return await fill(db, job, items, options, chunkItems, chunkBytes, holder.check);
    } catch (error) {
      // a job cut short (bad input, a signal, the database gone) would never be done: it goes, chunks and all
      await db.delete(job).catch(() => undefined);
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
async function holdEnqueueLock(db: QueueDb, job: string): Promise<{ check: () => void; release: () => Promise<void> }> {
  let client: PoolClient;
  try {
    client = await db.pool.connect();
  } catch (error) {
    throw unavailable(error, db.target) ?? error;
  }
  let broken: Error | undefined;
  // a checked-out connection reports its end as an 'error' event: heard here, never a crash
  const onError = (e: Error) => {
    broken ??= e;
  };
  client.on('error', onError);
  const release = async () => {
    if (!broken)
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [ENQUEUE_LOCK_CLASS, job]).catch((e: Error) => {
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
    throw unavailable(error, db.target) ?? error;
  }
  const check = () => {
    if (broken)
      throw (
        unavailable(broken, db.target) ??
        new TrainprintError('STORE_UNAVAILABLE', `the enqueue's connection broke: ${broken.message}`)
      );
  };
  return { check, release };
}

async function fill(
  db: QueueDb,
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
    await db.transaction(async (client) => {
      await client.query(
        `INSERT INTO ${db.s}.chunks (job_id, seq, items, bytes, texts, ids) VALUES ($1, $2, $3, $4, $5, $6)`,
        [job, s, n, b, payload, JSON.stringify(ids)],
      );
      const wrapper = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
      await db.boss.insert([{ name: queueName(job), data: { job, seq: s } }], { db: wrapper });
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
  await db.query(`UPDATE ${db.s}.jobs SET sealed = true, items_total = $2, chunks_total = $3 WHERE id = $1`, [
    job,
    total,
    seq,
  ]);
  return { job, items: total, chunks: seq, bytes: totalBytes };
}

/** See `ScanQueue.submit`. */
export async function submit(db: QueueDb, s: JobSubmission): Promise<JobInfo> {
  if (s.type !== SCAN_JOB.name || s.account !== '')
    throw new TrainprintError('INVALID_INPUT', "the scan queue takes scan jobs of the operator (account '')");
  const c = s.context ?? {};
  const { job } = await enqueue(db, s.items as QueueItem[], {
    datasets: Array.isArray(c.datasets) ? (c.datasets as JobDataset[]) : [],
    ...(typeof c.min_words === 'number' ? { minWords: c.min_words } : {}),
    paraphrase: c.paraphrase === true,
  });
  return jobInfo(db, job, { owner: '' });
}
