/**
 * A scan worker's wait for a database that is away, without a database: the failures of the `pg` driver while
 * PostgreSQL stops (ECONNREFUSED, 57P01 "terminating connection due to administrator command", pg-pool's "timeout
 * exceeded when trying to connect") are an outage, a refused login or a missing database not; the wait of the queue's
 * opening (`waitOut`, src/store/postgres/wait.ts) is bounded and ends in STORE_UNAVAILABLE naming it; and the one runner
 * over a store that is away for a while waits it out (a doubling wait) and then runs the job.
 */
import { describe, expect, it } from 'vitest';
import { createJobService, JobRunner, TrainprintError, type JobStore } from '../../src/library.js';
import { MemoryStore } from '../../src/store/index.js';
import { isOutage, parseTarget, unavailable, waitOut } from '../../src/store/node-kit.js';

const target = parseTarget('postgres://app:secret@127.0.0.1:1/db');

/** A driver error as `pg` makes them: a socket error's `code`, or a server error's SQLSTATE. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
const refused = () => pgError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED');
const shuttingDown = () => pgError('terminating connection due to administrator command', '57P01');

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

describe('a runner whose store goes away (a database restart)', () => {
  it('waits the outage out, a doubling wait between tries, then runs the job: nothing failed', async () => {
    const inner = createJobService({ store: new MemoryStore() });
    let outages = 3;
    const away = () => new TrainprintError('STORE_UNAVAILABLE', 'cannot reach the server (ECONNREFUSED)');
    const jobs: JobStore = {
      submit: (s) => inner.submit(s),
      claim: async (ms, o) => {
        if (outages-- > 0) throw away();
        return inner.claim(ms, o);
      },
      renew: (c, ms) => inner.renew(c, ms),
      watch: (c) => inner.watch(c),
      release: (c) => inner.release(c),
      complete: (c, r) => inner.complete(c, r),
      fail: (c, e) => inner.fail(c, e),
      list: (o) => inner.list(o),
      status: (id, o) => inner.status(id, o),
      results: (id, o) => inner.results(id, o),
      cancel: (id, o) => inner.cancel(id, o),
      delete: (id, o) => inner.delete(id, o),
      expire: (n) => inner.expire(n),
    };
    const job = await jobs.submit({ account: '', type: 'scan', items: [1, 2] });
    const told: unknown[] = [];
    const runner = new JobRunner({
      jobs,
      pollMs: 5,
      concurrency: 1,
      executors: { scan: async (item) => ({ item }) },
      unsupported: {},
      onError: (e) => told.push(e),
    });
    runner.start();
    for (let i = 0; i < 300 && (await inner.status(job.id, { owner: '' })).state !== 'done'; i++)
      await new Promise((r) => setTimeout(r, 10));
    await runner.stop();
    expect(told).toEqual([away(), away(), away()].map((e) => expect.objectContaining({ code: e.code })));
    expect(await inner.status(job.id, { owner: '' })).toMatchObject({ state: 'done', done: 2, failed: 0 });
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
