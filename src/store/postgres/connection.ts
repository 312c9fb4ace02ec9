/**
 * The PostgreSQL store's connection settings and failures: the URL (with the store's own `schema`
 * parameter taken out), how the target is named in messages (never with its password), and which
 * driver errors mean "the database is not available" (STORE_UNAVAILABLE) rather than a bug.
 */
import type { Pool, PoolClient } from 'pg';
import { TrainprintError } from '../../errors.js';

/** Where the store lives, parsed from its URL. */
export interface PostgresTarget {
  /** The URL handed to the driver: the caller's, without `schema`. */
  readonly connectionString: string;
  /** `postgres://user@host:port/database` — for messages; no password. */
  readonly label: string;
  /** The schema named by the URL's `schema` parameter, if any. */
  readonly schema: string | undefined;
}

/** A schema name used unquoted-safe: lower-case letters, digits and `_`, not starting with a digit. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * True for the URLs the PostgreSQL store takes (`postgres://…`, `postgresql://…`): how the CLI
 * tells a database URL from a directory.
 * @example isPostgresUrl('postgres://localhost/trainprint') // true
 */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Parses a store URL. INVALID_OPTIONS for anything but a `postgres://` / `postgresql://` URL or for
 * a `schema` parameter that is not a plain name; the message never repeats the password.
 * @example parseTarget('postgres://app:secret@db:5432/trainprint?schema=tenant_a').label
 * // 'postgres://app@db:5432/trainprint'
 */
export function parseTarget(url: unknown): PostgresTarget {
  if (typeof url !== 'string' || !isPostgresUrl(url)) {
    throw new TrainprintError('INVALID_OPTIONS', 'a PostgreSQL store needs a postgres:// or postgresql:// URL');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TrainprintError('INVALID_OPTIONS', `not a valid URL: ${redact(url)}`);
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  if (schema !== undefined) checkSchema(schema);
  parsed.searchParams.delete('schema');
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  const label = `${parsed.protocol}//${user}${parsed.host || 'localhost'}${parsed.pathname}`;
  return { connectionString: parsed.toString(), label, schema };
}

/**
 * Throws INVALID_OPTIONS unless `schema` is a plain schema name (it is spliced into SQL, quoted).
 * @example checkSchema('trainprint_test_1') // ok
 */
export function checkSchema(schema: unknown): asserts schema is string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    const got = JSON.stringify(schema);
    throw new TrainprintError('INVALID_OPTIONS', `schema must match ${SCHEMA_NAME.source}, got ${got}`);
  }
}

/** A URL with its password replaced by `***`, for messages about a URL that did not parse. */
function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/** Socket-level failures: the server is not there, or went away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * The TrainprintError for a driver error that means the database is not available — refused or
 * broken connection, failed login, missing database, server shutting down — or `undefined` for any
 * other error (a bug in a statement, which should surface as it is).
 * @example unavailable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), target) // STORE_UNAVAILABLE
 */
export function unavailable(error: unknown, target: PostgresTarget): TrainprintError | undefined {
  if (error instanceof TrainprintError) return error;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(error);
  let why: string | undefined;
  if (NETWORK_CODES.has(code)) why = `cannot reach the server (${code})`;
  else if (code.startsWith('28') || /password/i.test(message)) why = `the server refused the login (${message})`;
  else if (code === '3D000') why = `the database does not exist (${message})`;
  else if (code.startsWith('08') || code.startsWith('57P') || code === '25P03')
    why = `the connection failed (${code}: ${message})`;
  else if (code === '55P03') why = `another process held the store's write lock past the wait (${code})`;
  else if (code === '42501') why = `the role may not do this (${code}: ${message})`;
  else if (BROKEN.test(message)) why = message;
  if (why === undefined) return undefined;
  return new TrainprintError('STORE_UNAVAILABLE', `${target.label}: ${why}`, { cause: error });
}

/**
 * The driver's own messages for a connection that broke or never came: pg's (`Connection terminated unexpectedly`,
 * `… due to connection timeout`, `Client has encountered a connection error and is not queryable`) and pg-pool's
 * wait for a free connection (`timeout exceeded when trying to connect`).
 */
const BROKEN =
  /connection (terminated|timeout)|timeout expired|Connection ended|not queryable|timeout exceeded when trying to connect/i;

/**
 * Whether `error` (a driver error, or the STORE_UNAVAILABLE made of one) is an outage that passes: the server
 * cannot be reached, broke the connection, is shutting down or starting up (SQLSTATE classes 08 and 57P) — what a
 * restart or a failover looks like. A refused login, a missing database or any other error is not: waiting does not
 * mend it.
 * @example isOutage(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })) // true
 */
export function isOutage(error: unknown): boolean {
  const e = (error instanceof TrainprintError ? error.cause : error) as { code?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (code.startsWith('28') || code === '3D000' || /password/i.test(message)) return false;
  return NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || BROKEN.test(message);
}

/**
 * FNV-1a of a name as a signed 32-bit integer: the second half of an advisory lock key.
 * @example lockId('trainprint') // a fixed int32
 */
export function lockId(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * A plain name (checked by {@link checkSchema} or made here) as a quoted SQL identifier.
 * @example quote('trainprint') // '"trainprint"'
 */
export const quote = (name: string): string => `"${name}"`;

/** The pool settings of a store or a dataset: how many connections, how long to wait for one. */
export interface PoolSettings {
  readonly maxConnections?: number;
  readonly connectTimeoutMs?: number;
  /**
   * The server ends a session of the pool that sits this long in a transaction without a statement (its process
   * paused or hung), so a lock it holds is let go; unset, never.
   */
  readonly idleInTransactionMs?: number;
  /**
   * Settings every session of the pool starts with (the startup packet's `options`, so no statement races the
   * pool's first query); an `options` parameter of the URL wins.
   */
  readonly sessionSettings?: Readonly<Record<string, string>>;
}

/**
 * A `pg` pool for `target` (the driver imported now: Node only), after checking `settings`
 * (INVALID_OPTIONS: maxConnections 1..1000, default 10; connectTimeoutMs > 0, default 10 s).
 * @example const pool = await openPool(parseTarget(url), { maxConnections: 20 })
 */
export async function openPool(target: PostgresTarget, settings: PoolSettings): Promise<Pool> {
  const { max, timeout } = checkPoolSettings(settings);
  const { default: pg } = await import('pg');
  const idle = settings.idleInTransactionMs;
  const session = Object.entries(settings.sessionSettings ?? {}).map(([k, v]) => `-c ${k}=${v}`);
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max,
    connectionTimeoutMillis: timeout,
    ...(idle === undefined ? {} : { idle_in_transaction_session_timeout: idle }),
    ...(session.length === 0 ? {} : { options: session.join(' ') }),
  });
  // An idle connection that breaks (server restart) is reported here; the next query reconnects or
  // fails with STORE_UNAVAILABLE, so there is nothing to do — but an unheard 'error' would crash the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * The checked pool settings, with their defaults (INVALID_OPTIONS otherwise): checked before anything connects.
 * @example checkPoolSettings({}) // { max: 10, timeout: 10000 }
 */
export function checkPoolSettings(settings: PoolSettings): { max: number; timeout: number } {
  const max = settings.maxConnections ?? 10;
  const timeout = settings.connectTimeoutMs ?? 10_000;
  if (!Number.isInteger(max) || max < 1 || max > 1000) {
    throw new TrainprintError('INVALID_OPTIONS', `maxConnections must be an integer in 1..1000, got ${String(max)}`);
  }
  if (!Number.isInteger(timeout) || timeout < 1) {
    throw new TrainprintError('INVALID_OPTIONS', `connectTimeoutMs must be a positive integer, got ${String(timeout)}`);
  }
  return { max, timeout };
}

/**
 * Runs `body` in a database transaction on a connection of `pool`: `begin` (BEGIN, and whatever must come
 * first in it, such as an advisory lock), the body, COMMIT; ROLLBACK on a failure, which is rethrown. A
 * connection that cannot roll back is dropped from the pool rather than handed to the next caller.
 * @example await inTransaction(pool, 'BEGIN', (db) => db.query('DELETE FROM t'))
 */
export async function inTransaction<T>(pool: Pool, begin: string, body: (db: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // a connection that ends while checked out (a server restart) says so with an 'error' event, which would crash
  // the process unheard; the statement in flight (or the next) fails too, and the connection is dropped
  const onError = (e: Error) => {
    broken ??= e;
  };
  client.on('error', onError);
  try {
    await client.query(begin);
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((e: Error) => {
      broken = e;
    });
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
