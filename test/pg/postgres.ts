/**
 * The PostgreSQL tier of the tests. The database is `TRAINPRINT_TEST_PG_URL` when set (CI starts one
 * with test/pg/cluster.mjs), else a throwaway cluster this file starts (and stops) itself when the
 * binaries are installed, else the tier is skipped with a line saying so — never failed. Every
 * store gets a schema of its own (this run's process id and a counter), dropped at the end, so
 * runs and tests sharing a database never see each other's data.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { randomBytes } from 'node:crypto';
import { findPostgresBin, startCluster } from './cluster.mjs';

const GIVEN = process.env.TRAINPRINT_TEST_PG_URL;
const CAN_START = GIVEN === undefined && findPostgresBin() !== undefined;

/** Whether the PostgreSQL tier runs, and why not. */
export const POSTGRES_SKIP_REASON: string | undefined =
  GIVEN !== undefined || CAN_START
    ? undefined
    : 'PostgreSQL tier skipped: TRAINPRINT_TEST_PG_URL is not set and no PostgreSQL binaries were found';

const RUN = `tp_${process.pid}_${randomBytes(3).toString('hex')}`;
let schemas = 0;

/**
 * `describe` for tests that need PostgreSQL: skipped (with a console line) when there is none.
 * Inside, `pg.url` is the database URL and `pg.schema()` a fresh schema name (dropped after the
 * suite).
 */
export function describePostgres(name: string, body: (pg: { readonly url: string; schema(): string }) => void): void {
  if (POSTGRES_SKIP_REASON) {
    console.log(`${name}: ${POSTGRES_SKIP_REASON}`);
    describe.skip(name, () => body({ url: '', schema: () => '' }));
    return;
  }
  const made: string[] = [];
  const pg = {
    url: GIVEN ?? '',
    schema(): string {
      const s = `${RUN}_${schemas++}`;
      made.push(s);
      return s;
    },
  };
  describe(name, () => {
    let stop: (() => void) | undefined;
    beforeAll(async () => {
      if (GIVEN !== undefined) return;
      const cluster = await startCluster();
      pg.url = cluster.url;
      stop = cluster.stop;
    });
    afterAll(async () => {
      if (stop) return stop(); // the whole cluster goes
      if (made.length === 0) return;
      const { default: pgDriver } = await import('pg');
      const client = new pgDriver.Client({ connectionString: pg.url });
      await client.connect();
      try {
        for (const s of made) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await client.end();
      }
    });
    body(pg);
  });
}
