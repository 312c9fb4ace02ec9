/**
 * pg-boss with the project's settings. pg-boss (10.x: the major that runs on Node 20) is the queue library under the
 * scan queue (and the HTTP jobs that several `serve` processes share): a job fetched with `FOR UPDATE SKIP LOCKED`
 * is `active` for `expireInSeconds` — a lease — and pg-boss's maintenance (every `maintenanceIntervalSeconds`, run by
 * whichever process's turn it is) puts an expired job back as `retry`, so the work of a process killed with
 * `kill -9` is taken again by another after the lease, up to `retryLimit` times, then moved to a dead-letter queue.
 */
import type PgBoss from 'pg-boss';
import type { Pool } from 'pg';
import { checkSchema, parseTarget } from '../../store/node-kit.js';

/** Options of {@link startBoss}. */
export interface StartBossOptions {
  /** The schema of pg-boss's tables (created on first start). @default 'trainprint_boss' */
  readonly schema?: string;
  /** A pool to run pg-boss's statements on (shared with the caller's); without it pg-boss opens its own. */
  readonly pool?: Pool;
  /** Connections of pg-boss's own pool (without `pool`). @default 4 */
  readonly maxConnections?: number;
  /** Seconds between maintenance runs: expired leases go back to the queue, old jobs are archived. @default 30 */
  readonly maintenanceIntervalSeconds?: number;
  /** The default lease of a job, in seconds (a queue or a job may set its own). @default 120 */
  readonly expireInSeconds?: number;
  /** How often a job is retried after a failure or an expired lease. @default 10 */
  readonly retryLimit?: number;
  /** Errors of pg-boss's background work (maintenance, a lost connection): they do not stop it. @default ignored */
  readonly onError?: (error: Error) => void;
}

/**
 * A started pg-boss on the database at `url` (a `postgres://` URL; its `schema` parameter is not pg-boss's), its
 * tables in `options.schema`, supervising (maintenance: expired leases back to the queue) but without cron
 * schedules. Stop it with `boss.stop({ graceful: false })` (close: the pool too, unless it was given).
 * @throws INVALID_OPTIONS for a bad URL or schema name
 * @example
 * const boss = await startBoss('postgres://localhost/db', { schema: 'trainprint_jobs_boss' })
 * await boss.createQueue('chunks', { expireInSeconds: 60 })
 */
export async function startBoss(url: string, options: StartBossOptions = {}): Promise<PgBoss> {
  const target = parseTarget(url);
  const schema = options.schema ?? 'trainprint_boss';
  checkSchema(schema);
  const { default: Boss } = await import('pg-boss');
  const db = options.pool;
  const boss = new Boss({
    ...(db
      ? { db: { executeSql: (text: string, values: unknown[]) => db.query(text, values) } }
      : { connectionString: target.connectionString, max: options.maxConnections ?? 4 }),
    application_name: 'trainprint',
    schema,
    supervise: true,
    schedule: false,
    migrate: true,
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
    expireInSeconds: options.expireInSeconds ?? 120,
    retryLimit: options.retryLimit ?? 10,
  });
  const onError = options.onError ?? (() => {});
  // an 'error' event without a listener would throw; pg-boss keeps going after these
  boss.on('error', (e) => onError(e instanceof Error ? e : new Error(String(e))));
  await boss.start();
  return boss;
}
