/**
 * The PostgreSQL store's schema, as numbered migrations. `openPostgresStore` applies the ones a
 * schema lacks, in order, each in its own transaction, under a session advisory lock (so two
 * processes starting at once do not both apply one), and records each in `schema_migrations`.
 * A migration is never edited once released: a change is a new one with the next number. Stored
 * datasets (./dataset.ts) keep their catalog the same way, in `dataset_migrations`
 * ({@link DATASET_MIGRATIONS}).
 */
import type { Pool } from 'pg';
import { TrainprintError } from '../../errors.js';
import { lockId, quote } from './connection.js';

/** One step of the schema. `sql` receives the quoted schema name. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

/**
 * Every migration, oldest first; versions are 1, 2, 3, … without gaps.
 * @example MIGRATIONS.at(-1)!.version // the schema version this release writes
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'key-value table',
    // key: UTF-16BE bytes (see ./key-bytes.ts), value: msgpack bytes (see ../memory.ts encodeValue).
    sql: (s) => `CREATE TABLE ${s}.kv (key bytea PRIMARY KEY, value bytea NOT NULL)`,
  },
  {
    version: 2,
    name: 'counter decoding',
    // The non-negative integer a msgpack value holds (positive fixint, uint 8/16/32/64), NULL for
    // anything else: lets `increment` add to a counter in one statement while the value stays
    // ordinary msgpack that get and scan decode. Counters are written back as uint 64 (0xcf).
    sql: (s) => `CREATE FUNCTION ${s}.msgpack_uint(v bytea) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT AS $$
      SELECT CASE
        WHEN length(v) = 1 AND get_byte(v, 0) < 128 THEN get_byte(v, 0)::bigint
        WHEN length(v) = 2 AND get_byte(v, 0) = 204 THEN get_byte(v, 1)::bigint
        WHEN length(v) = 3 AND get_byte(v, 0) = 205 THEN (get_byte(v, 1)::bigint << 8) | get_byte(v, 2)
        WHEN length(v) = 5 AND get_byte(v, 0) = 206 THEN
          (get_byte(v, 1)::bigint << 24) | (get_byte(v, 2) << 16) | (get_byte(v, 3) << 8) | get_byte(v, 4)
        WHEN length(v) = 9 AND get_byte(v, 0) = 207 AND get_byte(v, 1) < 128 THEN
          ('x' || encode(substr(v, 2, 8), 'hex'))::bit(64)::bigint
      END $$`,
  },
  {
    version: 3,
    name: 'increments applied per statement',
    // How many of the increments coalesced into the row's last increment statement fitted under
    // their cap: set by that statement, read back by its RETURNING, meaningless otherwise.
    sql: (s) => `ALTER TABLE ${s}.kv ADD COLUMN applied bigint`,
  },
];

/**
 * The catalog of stored exact datasets (./dataset.ts): one row per dataset with its descriptor
 * (msgpack), params, partition count, the name prefix of its tables and its running counts; the
 * sequence numbers those prefixes. A dataset's own tables are made when it is created.
 * @example DATASET_MIGRATIONS[0].name // 'dataset catalog'
 */
export const DATASET_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'dataset catalog',
    sql: (s) => `CREATE TABLE ${s}.datasets (
        id text PRIMARY KEY,
        tables text NOT NULL UNIQUE,
        params text NOT NULL DEFAULT '',
        descriptor bytea NOT NULL,
        partitions integer NOT NULL,
        documents bigint NOT NULL DEFAULT 0,
        tokens bigint NOT NULL DEFAULT 0,
        bytes bigint NOT NULL DEFAULT 0,
        fingerprints bigint NOT NULL DEFAULT 0,
        text_bytes bigint NOT NULL DEFAULT 0,
        indexed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now());
      CREATE SEQUENCE ${s}.dataset_tables`,
  },
];

/** Which migrations, recorded in which table, under which advisory lock class. */
export interface MigrationSet {
  readonly migrations: readonly Migration[];
  /** The table recording the applied versions (in the schema). */
  readonly table: string;
  /** First half of the session advisory lock (the second is the schema's). */
  readonly lockClass: number;
}

const noop = (): void => {};

/**
 * Applies the migrations of `set` that `schema` lacks (creating the schema when missing), each in its
 * own transaction, under a session advisory lock, so processes starting at once apply each once.
 * @throws STORE_UNAVAILABLE when the schema was migrated by a newer release
 * @example await applyMigrations(pool, 'trainprint', { migrations: MIGRATIONS, table: 'schema_migrations', lockClass })
 */
export async function applyMigrations(pool: Pool, schema: string, set: MigrationSet): Promise<void> {
  const client = await pool.connect();
  const s = quote(schema);
  const table = `${s}.${quote(set.table)}`;
  let broken: Error | undefined;
  // as in inTransaction: a connection cut while checked out (the server stopping during start-up) says so with an
  // 'error' event, which would crash the process unheard; the statement in flight fails too, and the connection is
  // dropped
  const onError = (e: Error) => {
    broken ??= e;
  };
  client.on('error', onError);
  try {
    await client.query(`SELECT pg_advisory_lock(${set.lockClass}, ${lockId(schema)})`);
    // only when missing: CREATE SCHEMA needs CREATE on the database even with IF NOT EXISTS, which a role that was
    // given the store's schema (and no more) lacks
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table}
      (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const applied = await client.query(`SELECT version FROM ${table}`);
    const done = new Set(applied.rows.map((r) => r.version as number));
    const newest = Math.max(0, ...done);
    const known = set.migrations.length;
    if (newest > known) {
      const why = `schema ${schema} is at version ${newest}, newer than this release knows (${known}): upgrade`;
      throw new TrainprintError('STORE_UNAVAILABLE', why);
    }
    for (const m of set.migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql(s));
        await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [m.version, m.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(noop);
        throw error;
      }
    }
    await client.query(`SELECT pg_advisory_unlock(${set.lockClass}, ${lockId(schema)})`);
  } catch (error) {
    broken = error as Error; // drop the connection: it may still hold the session lock
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
