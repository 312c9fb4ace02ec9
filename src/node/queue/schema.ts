/**
 * The scan queue's own tables, as numbered migrations (applied like the store's: src/store/postgres/migrations.ts,
 * each once, under a session advisory lock). pg-boss keeps its tables in a second schema (`<schema>_boss`) and only
 * dispatches chunk numbers; everything a scan needs or produces is here:
 *
 *   jobs    one row per scan: the datasets it scans against (id and SHA-256), its options, its size once sealed
 *   chunks  the job's input in chunks: the items (msgpack {id, text}[]) until the chunk is done, then only counts
 *   hits    the hits, keyed by (job, chunk, item, hit): a chunk redone after a crash writes nothing twice
 *   (2)     chunks.ids: the items' ids, kept after their texts, so a job's results name every item (hits or none)
 *
 * A migration is never edited once released: a change is a new one with the next number.
 */
import type { Migration } from '../../store/node-kit.js';

/** Every migration of the queue's schema, oldest first. */
export const QUEUE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'scan jobs, chunks and hits',
    sql: (s) => `
      CREATE TABLE ${s}.jobs (
        id text PRIMARY KEY,
        created timestamptz NOT NULL DEFAULT now(),
        datasets jsonb NOT NULL,
        options jsonb NOT NULL,
        sealed boolean NOT NULL DEFAULT false,
        items_total bigint,
        chunks_total integer,
        exported_at timestamptz,
        cancelled_at timestamptz,
        texts_deleted_at timestamptz);
      CREATE INDEX jobs_created ON ${s}.jobs (created);
      CREATE TABLE ${s}.chunks (
        job_id text NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        items integer NOT NULL,
        bytes bigint NOT NULL,
        texts bytea,
        started_at timestamptz,
        done_at timestamptz,
        hits integer,
        failed text,
        PRIMARY KEY (job_id, seq));
      CREATE TABLE ${s}.hits (
        job_id text NOT NULL,
        chunk_seq integer NOT NULL,
        item_index integer NOT NULL,
        hit_index integer NOT NULL,
        id text NOT NULL,
        dataset_id text NOT NULL,
        document_id text NOT NULL,
        query_start integer NOT NULL,
        query_end integer NOT NULL,
        source_start integer NOT NULL,
        source_end integer NOT NULL,
        words integer NOT NULL,
        kind text NOT NULL,
        PRIMARY KEY (job_id, chunk_seq, item_index, hit_index),
        FOREIGN KEY (job_id, chunk_seq) REFERENCES ${s}.chunks (job_id, seq) ON DELETE CASCADE)`,
  },
  {
    version: 2,
    name: 'the item ids of each chunk',
    sql: (s) => `ALTER TABLE ${s}.chunks ADD COLUMN ids jsonb`,
  },
];

/** The first half of the advisory lock under which the queue's migrations run ('tpsq'). */
export const QUEUE_LOCK_CLASS = 0x7470_7371;
