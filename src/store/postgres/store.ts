/**
 * The {@link Store} contract on PostgreSQL, so several server processes — on one machine or
 * several — share one durable state: one table of UTF-16BE `bytea` keys (./key-bytes.ts) and
 * msgpack values (the same encoding and checks as the other stores), in a schema of its own.
 *
 * Serialisation: every write (put, delete, batch, transaction) runs in a database transaction
 * that first takes one transaction-scoped advisory lock per schema, so writes from every process
 * are serialised exactly and a transaction's read-modify-write sees no concurrent change. The
 * alternative, SERIALIZABLE isolation with retries on 40001, would run a transaction callback more
 * than once — which the other stores never do, and which callbacks with side effects (signing,
 * ids, clocks) are not written for. Within one process writes also keep their arrival order
 * (one promise chain, as in the memory and file stores), and puts and batches queued behind a running
 * write go out together in one database transaction (group commit). Reads go through the pool concurrently
 * and see committed state. {@link PostgresStore.increment} — the usage counters, the one hot
 * write — takes no advisory lock: one `INSERT … ON CONFLICT DO UPDATE … RETURNING` statement,
 * serialised by the row lock; a transaction reads rows `FOR UPDATE`, so a count it reads and writes back
 * (a decrement) is never raced by such an increment.
 *
 * Imports `pg` lazily (Node only): reachable only from the `trainprint/node` entry.
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { TrainprintError } from '../../errors.js';
import { positiveInt } from '../../util/validate.js';
import {
  BufferedTransaction,
  checkKey,
  checkScan,
  decodeValue,
  decodeValueSliced,
  encodeBatchSliced,
  encodeValue,
  type EncodedOp,
  type PreparedValue,
  prepareValue,
} from '../memory.js';
import { checkIncrement, counterValue } from '../counter.js';
import type { BatchOp, Increment, ScanOptions, Store, Transaction } from '../types.js';
import { bytesKey, keyBytes, prefixEnd } from './key-bytes.js';
import {
  checkSchema,
  inTransaction,
  lockId,
  openPool,
  parseTarget,
  quote,
  unavailable,
  type PostgresTarget,
} from './connection.js';
import { applyMigrations, MIGRATIONS } from './migrations.js';

/**
 * Options of {@link openPostgresStore}.
 * @example await openPostgresStore(url, { schema: 'tenant_a', maxConnections: 20 })
 */
export interface PostgresStoreOptions {
  /**
   * The schema holding the store's tables (created when missing): one store per schema, so tests
   * and tenants can share a database. A `schema` parameter in the URL sets it too; this option
   * wins. @default 'trainprint'
   */
  readonly schema?: string;
  /** Connections in the pool. @default 10 */
  readonly maxConnections?: number;
  /** How long to wait for a connection before STORE_UNAVAILABLE, in ms. @default 10_000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long a write waits for the store's write lock, which another process holds, before STORE_UNAVAILABLE (503
   * on the HTTP API), in ms. @default 45_000
   */
  readonly lockWaitMs?: number;
  /**
   * How long a transaction of this process may sit between statements before the server ends its session and lets
   * its write lock go, in ms: a process paused (SIGSTOP, a debugger) or hung inside a write would otherwise hold every
   * process's writes. @default 30_000
   */
  readonly idleInTransactionMs?: number;
}

/** First half of the advisory lock keys: "tp" + "wr" (writes) and "tp" + "mg" (migrations). */
const WRITE_LOCK_CLASS = 0x7470_7772;
const MIGRATION_LOCK_CLASS = 0x7470_6d67;

const noop = (): void => {};
const buffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Largest amount of key and value bytes one group commit carries. */
const MAX_GROUP_BYTES = 4 * 1024 * 1024;

/** Puts and batches that go out as one database transaction (see PostgresStore's group commit). */
interface WriteGroup {
  readonly writes: Map<string, Uint8Array | null>;
  bytes: number;
  done: Promise<void>;
}

/** Calls of `increment` for one key, `by` and `max`: at most one statement in flight. */
interface IncrementLane {
  running: boolean;
  waiting: Array<{ resolve: (r: Increment) => void; reject: (e: unknown) => void }>;
}

/** Something to run a query on: the pool or one checked-out client. */
interface Queryable {
  query(text: string, values?: unknown[]): Promise<QueryResult>;
}

/** The SQL of one store: statements with the schema spliced in once. */
class Statements {
  readonly kv: string;
  readonly get: string;
  readonly getForUpdate: string;
  readonly delete: string;
  readonly putMany: string;
  readonly deleteMany: string;
  readonly increment: string;

  constructor(schema: string) {
    const s = quote(schema);
    this.kv = `${s}.kv`;
    this.get = `SELECT value FROM ${this.kv} WHERE key = $1`;
    this.getForUpdate = `${this.get} FOR UPDATE`;
    this.delete = `DELETE FROM ${this.kv} WHERE key = $1`;
    this.putMany = `INSERT INTO ${this.kv} (key, value) SELECT * FROM unnest($1::bytea[], $2::bytea[])
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
    this.deleteMany = `DELETE FROM ${this.kv} WHERE key = ANY($1::bytea[])`;
    // $2 = by, $3 = max, $4 = how many increments of `by` (coalesced calls): as many as fit under
    // max are added and counted in `applied` (SET expressions see the row before the update). The
    // count is written back as msgpack uint 64 (0xcf + 8 bytes big-endian = int8send).
    const old = `${s}.msgpack_uint(t.value)`;
    const fits = `LEAST($4::bigint, ($3::bigint - ${old}) / $2::bigint)`;
    this.increment = `INSERT INTO ${this.kv} AS t (key, value, applied)
      VALUES ($1, decode('cf', 'hex') || int8send(LEAST($4::bigint, $3::bigint / $2::bigint) * $2::bigint),
        LEAST($4::bigint, $3::bigint / $2::bigint))
      ON CONFLICT (key) DO UPDATE
        SET value = decode('cf', 'hex') || int8send(${old} + ${fits} * $2::bigint), applied = ${fits}
      WHERE ${old} + $2::bigint <= $3::bigint
      RETURNING ${s}.msgpack_uint(t.value) AS n, t.applied AS applied`;
  }
}

async function getValue(db: Queryable, sql: Statements, key: string, forUpdate = false): Promise<unknown | undefined> {
  const r = await db.query(forUpdate ? sql.getForUpdate : sql.get, [buffer(keyBytes(key))]);
  return r.rows.length === 0 ? undefined : decodeValueSliced(r.rows[0].value as Uint8Array);
}

/** A prefix scan as one index range: key ≥ prefix, < the prefix's end, > after, in byte order. */
async function scanRows(
  db: Queryable,
  sql: Statements,
  prefix: string,
  after: string | undefined,
  limit: number,
): Promise<Array<[string, unknown]>> {
  if (limit === 0) return [];
  const start = keyBytes(prefix);
  const values: unknown[] = [buffer(start)];
  let where = 'key >= $1';
  const end = prefixEnd(start);
  if (end) where += ` AND key < $${values.push(buffer(end))}`;
  if (after !== undefined) where += ` AND key > $${values.push(buffer(keyBytes(after)))}`;
  const cap = Number.isFinite(limit) ? ` LIMIT $${values.push(limit)}` : '';
  const r = await db.query(`SELECT key, value FROM ${sql.kv} WHERE ${where} ORDER BY key${cap}`, values);
  return r.rows.map((row) => [bytesKey(row.key as Uint8Array), decodeValue(row.value as Uint8Array)]);
}

/** Applies writes (the last one per key wins) in two statements: one upsert, one delete. */
async function applyWrites(
  db: Queryable,
  sql: Statements,
  writes: ReadonlyMap<string, Uint8Array | null>,
): Promise<void> {
  const putKeys: Buffer[] = [];
  const putValues: Buffer[] = [];
  const deleteKeys: Buffer[] = [];
  for (const [key, value] of writes) {
    if (value === null) deleteKeys.push(buffer(keyBytes(key)));
    else {
      putKeys.push(buffer(keyBytes(key)));
      putValues.push(buffer(value));
    }
  }
  if (putKeys.length > 0) await db.query(sql.putMany, [putKeys, putValues]);
  if (deleteKeys.length > 0) await db.query(sql.deleteMany, [deleteKeys]);
}

function lastWritePerKey(ops: readonly EncodedOp[]): Map<string, Uint8Array | null> {
  const writes = new Map<string, Uint8Array | null>();
  for (const op of ops) {
    writes.delete(op.key); // keep insertion order = order of the last write
    writes.set(op.key, op.type === 'put' ? op.value : null);
  }
  return writes;
}

/**
 * A {@link Store} in a PostgreSQL schema (see the module comment for how writes are serialised).
 * Made by {@link openPostgresStore}.
 * @example
 * const store = await openPostgresStore('postgres://app@db/trainprint')
 * const engine = await createEngine({ store })
 */
export class PostgresStore implements Store {
  readonly #pool: Pool;
  readonly #target: PostgresTarget;
  readonly #sql: Statements;
  readonly #lockSql: string;
  /** Serialises this process's writes in arrival order. */
  #chain: Promise<unknown> = Promise.resolve();
  /** The last queued write when it is a group of puts and batches not yet started: later ones join it. */
  #group: WriteGroup | undefined;
  /** Increments waiting per key, `by` and `max` (see {@link PostgresStore.increment}). */
  readonly #increments = new Map<string, IncrementLane>();
  /** Running increment lanes, awaited by close(). */
  readonly #draining = new Set<Promise<void>>();
  #closing: Promise<void> | undefined;

  /** @internal use {@link openPostgresStore} */
  constructor(pool: Pool, target: PostgresTarget, schema: string, lockWaitMs = 45_000) {
    this.#pool = pool;
    this.#target = target;
    this.#sql = new Statements(schema);
    // the wait for the lock is bounded: a holder that is neither done nor cut off (./connection.ts) is a 503, not a hang
    this.#lockSql = `BEGIN; SET LOCAL lock_timeout = ${lockWaitMs}; SELECT pg_advisory_xact_lock(${WRITE_LOCK_CLASS}, ${lockId(schema)})`;
  }

  async get(key: string): Promise<unknown | undefined> {
    this.#checkOpen();
    checkKey(key);
    return this.#run(() => getValue(this.#pool, this.#sql, key));
  }

  async scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>> {
    this.#checkOpen();
    const { after, limit } = checkScan(prefix, options);
    return this.#run(() => scanRows(this.#pool, this.#sql, prefix, after, limit));
  }

  async prepare(value: unknown): Promise<PreparedValue> {
    this.#checkOpen();
    return prepareValue(value);
  }

  async put(key: string, value: unknown): Promise<void> {
    this.#checkOpen();
    checkKey(key);
    return this.#grouped(new Map([[key, encodeValue(value)]]));
  }

  async delete(key: string): Promise<boolean> {
    this.#checkOpen();
    checkKey(key);
    return this.#write(async (db) => ((await db.query(this.#sql.delete, [buffer(keyBytes(key))])).rowCount ?? 0) > 0);
  }

  async batch(ops: readonly BatchOp[]): Promise<void> {
    this.#checkOpen();
    const writes = lastWritePerKey(await encodeBatchSliced(ops));
    if (writes.size === 0) return this.#write(async () => {});
    return this.#grouped(writes);
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T> {
    this.#checkOpen();
    if (typeof fn !== 'function') throw new TrainprintError('INVALID_INPUT', 'transaction() needs a function');
    return this.#write(async (db) => {
      const tx = new PostgresTransaction(db, this.#sql);
      try {
        const result = await fn(tx);
        await tx.flush();
        return result;
      } finally {
        tx.end();
      }
    });
  }

  /**
   * One statement, no advisory lock: concurrent increments of a key (from any process) queue on
   * its row lock, so each sees the count the one before it wrote. Calls of this process for the same
   * key, `by` and `max` that arrive while one statement is in flight are coalesced into the next:
   * it adds as many as fit under `max` and says how many, and each call gets the count a serial
   * execution would have given it (a hot counter would otherwise wait for one commit per call).
   */
  async increment(key: string, by: number, max?: number): Promise<Increment> {
    this.#checkOpen();
    checkKey(key);
    const cap = checkIncrement(by, max);
    if (by > cap) return { value: await this.#count(key), applied: false };
    const id = `${by}:${cap}:${key}`;
    let lane = this.#increments.get(id);
    if (!lane) this.#increments.set(id, (lane = { running: false, waiting: [] }));
    const result = new Promise<Increment>((resolve, reject) => lane.waiting.push({ resolve, reject }));
    if (!lane.running) {
      const drained = this.#drainIncrements(id, lane, key, by, cap);
      this.#draining.add(drained);
      void drained.finally(() => this.#draining.delete(drained));
    }
    return result;
  }

  /** The count at `key` now (INVALID_INPUT when it holds something else). */
  async #count(key: string): Promise<number> {
    return counterValue(key, await this.#run(() => getValue(this.#pool, this.#sql, key)));
  }

  /** Sends the waiting increments of one lane, one statement at a time, until none wait. */
  async #drainIncrements(id: string, lane: IncrementLane, key: string, by: number, cap: number): Promise<void> {
    lane.running = true;
    while (lane.waiting.length > 0) {
      const calls = lane.waiting.splice(0, lane.waiting.length);
      try {
        const values = [buffer(keyBytes(key)), by, cap, calls.length];
        const r = await this.#run(() => this.#pool.query(this.#sql.increment, values));
        // no row: nothing fitted (or the key holds something else), so read what is there now
        const applied = r.rows.length > 0 ? Number(r.rows[0].applied) : 0;
        const value = r.rows.length > 0 ? Number(r.rows[0].n) : await this.#count(key);
        const before = value - applied * by;
        calls.forEach((c, i) => {
          c.resolve(i < applied ? { value: before + (i + 1) * by, applied: true } : { value, applied: false });
        });
      } catch (error) {
        for (const c of calls) c.reject(error);
      }
    }
    lane.running = false;
    this.#increments.delete(id);
  }

  /**
   * Waits for this process's queued writes and increments, then ends the pool. Calling it again
   * returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#chain;
      await Promise.all(this.#draining);
      await this.#pool.end();
    })();
    return this.#closing;
  }

  #checkOpen(): void {
    if (this.#closing) throw new TrainprintError('STORE_CLOSED');
  }

  /** Runs a statement, turning "the database is not available" into STORE_UNAVAILABLE. */
  async #run<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw unavailable(error, this.#target) ?? error;
    }
  }

  /**
   * Group commit: puts and batches queued behind one another while earlier writes run go out in one
   * database transaction (one commit, one WAL flush), as the file store groups its fsyncs. Only the
   * last queued write is joined, so arrival order holds; a group is atomic as a whole, which keeps
   * each batch atomic.
   */
  #grouped(writes: ReadonlyMap<string, Uint8Array | null>): Promise<void> {
    let bytes = 0;
    for (const [key, value] of writes) bytes += key.length * 2 + (value?.length ?? 0);
    const open = this.#group;
    if (open && open.bytes + bytes <= MAX_GROUP_BYTES) {
      for (const [key, value] of writes) {
        open.writes.delete(key); // keep the order of the last write per key
        open.writes.set(key, value);
      }
      open.bytes += bytes;
      return open.done;
    }
    const group: WriteGroup = { writes: new Map(writes), bytes, done: Promise.resolve() };
    const closed = () => {
      if (this.#group === group) this.#group = undefined; // started: nothing joins it any more
    };
    // closed when it ends too: a group whose transaction failed before its body (the lock not had in time, the
    // server gone) would otherwise stay open, and every later put would join it and get its refusal
    group.done = this.#write(async (db) => {
      closed();
      await applyWrites(db, this.#sql, group.writes);
    }).finally(closed);
    this.#group = group; // after #write, which closes the group before it
    return group.done;
  }

  /** Runs `body` at its turn, in a database transaction holding the schema's write lock. */
  #write<T>(body: (db: PoolClient) => Promise<T>): Promise<T> {
    this.#group = undefined; // a write queued after a group: later puts must not overtake it
    const run = this.#chain.then(() => this.#run(() => inTransaction(this.#pool, this.#lockSql, body)));
    this.#chain = run.then(noop, noop);
    return run;
  }
}

/**
 * A transaction's view: writes are kept here and sent before the next scan and at commit (in two
 * statements, whatever their number); `get` answers a key written here without a round trip.
 */
class PostgresTransaction extends BufferedTransaction {
  readonly #db: PoolClient;
  readonly #sql: Statements;

  constructor(db: PoolClient, sql: Statements) {
    super();
    this.#db = db;
    this.#sql = sql;
  }

  async get(key: string): Promise<unknown | undefined> {
    this.checkActive();
    checkKey(key);
    const own = this.writes.get(key);
    if (own !== undefined) return own === null ? undefined : decodeValueSliced(own);
    // FOR UPDATE: a row read here is locked until the commit, so a lock-free `increment` of it from another
    // process waits and then adds to what this transaction wrote, instead of being overwritten by it
    return getValue(this.#db, this.#sql, key, true);
  }

  async scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>> {
    this.checkActive();
    const { after, limit } = checkScan(prefix, options);
    await this.flush();
    return scanRows(this.#db, this.#sql, prefix, after, limit);
  }

  /** Sends the writes kept so far. */
  async flush(): Promise<void> {
    if (this.writes.size === 0) return;
    const writes = this.writes;
    this.writes = new Map();
    await applyWrites(this.#db, this.#sql, writes);
  }
}

/**
 * Opens the store in a PostgreSQL database (Node): connects, creates the schema when missing and
 * applies the migrations it lacks (./migrations.ts) under a session advisory lock, recording each
 * in `<schema>.schema_migrations`. Several processes may open the same schema at once.
 * @throws INVALID_OPTIONS for a URL that is not `postgres://…`/`postgresql://…`, a bad schema name
 * or option; STORE_UNAVAILABLE when the server cannot be reached, refuses the login or lacks the
 * database, or when the schema was migrated by a newer release (messages never show the password)
 * @example
 * import { openPostgresStore } from 'trainprint/node'
 * const store = await openPostgresStore('postgres://app:secret@db.internal:5432/trainprint')
 * await store.put('work/1', { title: 'Dune' })
 * await store.close()
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const target = parseTarget(url);
  const schema = options.schema ?? target.schema ?? 'trainprint';
  checkSchema(schema);
  // PostgreSQL's settings take ms up to 2³¹ − 1
  const lockWaitMs = positiveInt('lockWaitMs', options.lockWaitMs, 45_000, 2 ** 31 - 1);
  const idleInTransactionMs = positiveInt('idleInTransactionMs', options.idleInTransactionMs, 30_000, 2 ** 31 - 1);
  const pool = await openPool(target, { ...options, idleInTransactionMs });
  try {
    const set = { migrations: MIGRATIONS, table: 'schema_migrations', lockClass: MIGRATION_LOCK_CLASS };
    await applyMigrations(pool, schema, set);
  } catch (error) {
    await pool.end().catch(noop);
    throw unavailable(error, target) ?? error;
  }
  return new PostgresStore(pool, target, schema, lockWaitMs);
}
