/**
 * The scan queue's hold on its database (./queue.ts): the pool and pg-boss, the queue's settings, the statements
 * every part of the queue runs (a database out of reach is STORE_UNAVAILABLE), and what ends a job's texts or the job
 * itself — cancel, delete, the retention. The enqueue (./enqueue.ts), the reading of a job (./status.ts) and the
 * workers (./worker.ts) take one; {@link ScanQueue} is their face.
 */
import type { Pool, PoolClient } from 'pg';
import type PgBoss from 'pg-boss';
import { inTransaction, quote, unavailable, type PostgresTarget } from '../../store/node-kit.js';
import { SCAN_HIT_FIELDS } from '../../library.js';
import type { JobDataset, JobScanOptions, QueueHit } from './types.js';

/** pg-boss's queue of chunks out of retries: its jobs carry the chunk ({ job, seq }) and the last error. */
export const DEAD_LETTERS = 'scan-failed';
/** The first half of the advisory lock an enqueue holds on its job ('tpqe'); the second is hashtext(job id). */
export const ENQUEUE_LOCK_CLASS = 0x7470_7165;

/** A chunk as pg-boss carries it. */
export interface ChunkRef {
  readonly job: string;
  readonly seq: number;
}

/** A job with chunks to scan, as a worker checks and scans it. */
export interface OpenJob {
  readonly id: string;
  readonly datasets: JobDataset[];
  readonly options: JobScanOptions;
}

/** The settings {@link openScanQueue} checked. */
export interface QueueSettings {
  /** A chunk's lease, in seconds. */
  readonly lease: number;
  readonly retryLimit: number;
  /** An idle worker's wait between two asks, in ms. */
  readonly poll: number;
  readonly retentionDays: number;
}

/** The pg-boss queue of a job's chunks. */
export const queueName = (job: string) => `scan-${job}`;

/** The fields of a hit in the hit line's order: the columns of the hits table that hold it. */
export const HIT_FIELDS = SCAN_HIT_FIELDS satisfies readonly (keyof QueueHit)[];
/** Those of {@link HIT_FIELDS} held as text (the others are integers). */
export const TEXT_HIT_FIELDS: ReadonlySet<string> = new Set(['id', 'dataset_id', 'document_id', 'kind']);

/** A row of the hits table as the hit it stores, its fields in the hit line's order. */
export const hitOf = (r: Record<string, unknown>): QueueHit =>
  Object.fromEntries(HIT_FIELDS.map((f) => [f, r[f]])) as unknown as QueueHit;

/** One database schema's queue: its pool, its pg-boss, its settings. */
export class QueueDb {
  /** The queue's schema, quoted for SQL. */
  readonly s: string;
  /** pg-boss's schema, quoted for SQL. */
  readonly bossSchema: string;
  readonly lease: number;
  readonly retryLimit: number;
  readonly poll: number;
  readonly retentionDays: number;
  /** When {@link deleteExpiredTexts} last ran (ms since the epoch). */
  lastRetention = 0;

  constructor(
    readonly pool: Pool,
    readonly boss: PgBoss,
    readonly target: PostgresTarget,
    schema: string,
    settings: QueueSettings,
  ) {
    this.s = quote(schema);
    this.bossSchema = quote(`${schema}_boss`);
    this.lease = settings.lease;
    this.retryLimit = settings.retryLimit;
    this.poll = settings.poll;
    this.retentionDays = settings.retentionDays;
  }

  /** A statement on the pool; a database out of reach is STORE_UNAVAILABLE. */
  async query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query(text, values)).rows as R[];
    } catch (error) {
      throw unavailable(error, this.target) ?? error;
    }
  }

  /** `body` in one transaction; a database out of reach is STORE_UNAVAILABLE. */
  async transaction<T>(body: (db: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.pool, 'BEGIN', body);
    } catch (error) {
      throw unavailable(error, this.target) ?? error;
    }
  }

  /**
   * SQL that is true when no enqueue holds its lock on the job `idSql` (a shared try-lock, released at the end of the
   * statement: checks never block each other, and fail only while the enqueuer holds it).
   */
  enqueuerGone(idSql: string): string {
    return `pg_try_advisory_xact_lock_shared(${ENQUEUE_LOCK_CLASS}, hashtext(${idSql}))`;
  }

  /**
   * Removes the job's pg-boss queue with every job in it. pg-boss 10's `deleteQueue` drops the queue's partition
   * but fails on its foreign key while the partition still holds jobs, so they are deleted first, in the same
   * transaction (pg-boss's documented `job` table).
   */
  async deleteBossQueue(job: string): Promise<void> {
    await this.transaction(async (db) => {
      await db.query(`DELETE FROM ${this.bossSchema}.job WHERE name = $1`, [queueName(job)]);
      // (delete_queue of a queue that is gone already fails: only the one there is)
      await db.query(`SELECT ${this.bossSchema}.delete_queue(name) FROM ${this.bossSchema}.queue WHERE name = $1`, [
        queueName(job),
      ]);
    });
  }

  /** Deletes a job's input texts and its pending chunks (pg-boss's queue of the job). */
  async dropTexts(job: string, also = ''): Promise<void> {
    await this.deleteBossQueue(job);
    await this.query(
      `UPDATE ${this.s}.jobs SET ${also}texts_deleted_at = coalesce(texts_deleted_at, now()) WHERE id = $1`,
      [job],
    );
    await this.query(`UPDATE ${this.s}.chunks SET texts = NULL WHERE job_id = $1 AND texts IS NOT NULL`, [job]);
  }

  /** See `ScanQueue.cancel`. */
  async cancel(job: string): Promise<boolean> {
    const rows = await this.query(`UPDATE ${this.s}.jobs SET cancelled_at = now() WHERE id = $1 RETURNING 1`, [job]);
    if (rows.length === 0) return false;
    await this.dropTexts(job);
    return true;
  }

  /** See `ScanQueue.delete`. */
  async delete(job: string): Promise<boolean> {
    await this.deleteBossQueue(job);
    const rows = await this.query(`DELETE FROM ${this.s}.jobs WHERE id = $1 RETURNING 1`, [job]);
    return rows.length > 0;
  }

  /** See `ScanQueue.deleteExpiredTexts`. */
  async deleteExpiredTexts(): Promise<string[]> {
    this.lastRetention = Date.now();
    const rows = await this.query<{ id: string }>(
      `SELECT id FROM ${this.s}.jobs WHERE texts_deleted_at IS NULL AND created < now() - $1 * interval '1 day'`,
      [this.retentionDays],
    );
    for (const { id } of rows) await this.dropTexts(id);
    return rows.map((r) => r.id);
  }
}
