/**
 * A scan worker's wait for a database that is away (src/node/queue/wait.ts), without a database: a stand-in pool
 * whose statements fail as the `pg` driver's do while PostgreSQL stops (ECONNREFUSED, 57P01 "terminating connection
 * due to administrator command", pg-pool's "timeout exceeded when trying to connect") for a number of calls, then
 * answer. A worker's start waits such an outage out; a refused login or a missing database is not waited for; the
 * wait of `waitOut` is bounded and ends in STORE_UNAVAILABLE naming it.
 */
import type { Pool } from 'pg';
import type PgBoss from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/library.js';
import { QueueDb } from '../../src/node/queue/db.js';
import type { QueueScanner } from '../../src/node/queue/types.js';
import { waitOut } from '../../src/node/queue/wait.js';
import { work } from '../../src/node/queue/worker.js';
import { isOutage, parseTarget, unavailable } from '../../src/store/node-kit.js';

const target = parseTarget('postgres://app:secret@127.0.0.1:1/db');

/** A driver error as `pg` makes them: a socket error's `code`, or a server error's SQLSTATE. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
const refused = () => pgError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED');
const shuttingDown = () => pgError('terminating connection due to administrator command', '57P01');

/** A pool whose first `failures.length` statements fail with those errors, then answer `rows`. */
function flakyPool(failures: (() => Error)[], rows: Record<string, unknown>[] = []) {
  const calls: string[] = [];
  const pool = {
    async query(text: string) {
      calls.push(text);
      const fail = failures[calls.length - 1];
      if (fail) throw fail();
      return { rows };
    },
  };
  return { pool: pool as unknown as Pool, calls };
}

const scanner: QueueScanner = {
  datasets: () => [{ id: 'ds', kind: 'exact' }],
  datasetDigest: async () => 'a'.repeat(64),
  scanItem: async () => [],
};

const queueDb = (pool: Pool) =>
  new QueueDb(pool, {} as PgBoss, target, 'q', { lease: 30, retryLimit: 1, poll: 1, retentionDays: 7 });

describe('which failures are an outage', () => {
  it('the server away, broken, shutting down or starting up, or no free connection in time: waited for', () => {
    for (const e of [
      refused(),
      shuttingDown(),
      pgError('the database system is starting up', '57P03'),
      pgError('Connection terminated unexpectedly'),
      pgError('timeout exceeded when trying to connect'),
    ]) {
      expect(unavailable(e, target)?.code, e.message).toBe('STORE_UNAVAILABLE');
      expect(isOutage(e), e.message).toBe(true);
      expect(isOutage(unavailable(e, target)), e.message).toBe(true);
    }
  });

  it('a refused login, a missing database, a bad statement: not waited for', () => {
    const login = pgError('password authentication failed for user "app"', '28P01');
    const missing = pgError('database "db" does not exist', '3D000');
    expect(unavailable(login, target)?.code).toBe('STORE_UNAVAILABLE');
    expect(unavailable(missing, target)?.code).toBe('STORE_UNAVAILABLE');
    for (const e of [login, missing, pgError('syntax error at or near "SELEC"', '42601')]) {
      expect(isOutage(e), e.message).toBe(false);
      expect(isOutage(unavailable(e, target) ?? e), e.message).toBe(false);
    }
    expect(isOutage(new TrainprintError('NOT_FOUND', 'no scan job x'))).toBe(false);
  });
});

describe('a worker started while the database is away', () => {
  it('waits the outage out: its job is looked up once the database answers', async () => {
    // the job's lookup fails three times (refused, cut, refused), then the database answers: no such job
    const { pool, calls } = flakyPool([refused, shuttingDown, refused]);
    const told: string[] = [];
    const worked = work(queueDb(pool), scanner, { job: 'f00', onError: (e) => told.push(e.message) });
    await expect(worked).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('f00') });
    expect(calls).toHaveLength(4);
    expect(told).toHaveLength(3);
    for (const m of told) expect(m).toContain('postgres://app@127.0.0.1:1/db');
    expect(told.join('\n')).not.toContain('secret');
  });

  it('a refused login is not waited for', async () => {
    const { pool, calls } = flakyPool([() => pgError('password authentication failed for user "app"', '28P01')]);
    await expect(work(queueDb(pool), scanner, { job: 'f00' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(calls).toHaveLength(1);
  });

  it('a stop while it waits ends the wait: nothing done, no error', async () => {
    const { pool, calls } = flakyPool(Array.from({ length: 100 }, () => refused));
    const stop = new AbortController();
    const summary = await work(queueDb(pool), scanner, {
      job: 'f00',
      signal: stop.signal,
      onError: () => stop.abort(),
    });
    expect(summary).toEqual({ chunks: 0, items: 0, hits: 0, abandoned: 0 });
    expect(calls).toHaveLength(1);
  });
});

describe('waitOut', () => {
  it('is bounded: past its wait, STORE_UNAVAILABLE says how many tries in how long', async () => {
    let clock = 0;
    let tries = 0;
    const attempt = async () => {
      tries++;
      clock += 100; // each try takes 100 ms of the test's clock
      throw refused();
    };
    // waits of 250 and 500 ms (the back-off from 250 ms): the third try's failure is at 300 ms of the clock, and
    // its next wait (1 s) would end past the 1.2 s allowed
    const e = await waitOut(target, attempt, { waitMs: 1200, pollMs: 250, now: () => clock }).catch((x) => x);
    expect(e).toBeInstanceOf(TrainprintError);
    expect(e.code).toBe('STORE_UNAVAILABLE');
    expect(tries).toBe(3);
    expect(e.message).toContain('cannot reach the server (ECONNREFUSED); still so after 3 tries in 0.3 s');
    expect(e.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('with no wait, one try and the error as it was', async () => {
    let tries = 0;
    const e = await waitOut(
      target,
      async () => {
        tries++;
        throw shuttingDown();
      },
      { waitMs: 0, pollMs: 250 },
    ).catch((x) => x);
    expect(tries).toBe(1);
    expect(e).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(e.message).toContain('57P01');
    expect(e.message).not.toContain('tries');
  });

  it('an error that is not the database is thrown at once, as it is', async () => {
    const bug = new TypeError('x is not a function');
    let tries = 0;
    const e = await waitOut(
      target,
      async () => {
        tries++;
        throw bug;
      },
      { waitMs: 60_000, pollMs: 250 },
    ).catch((x) => x);
    expect(e).toBe(bug);
    expect(tries).toBe(1);
  });
});
