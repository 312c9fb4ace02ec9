/**
 * The scan queue through the failures of its database and of its enqueuer, with real processes of the built CLI
 * and a PostgreSQL cluster of this file's own (stopped and started again on the same data and port):
 *  - two `worker` processes scanning while PostgreSQL stops (`pg_ctl stop -m fast`: every connection cut) and
 *    starts again: neither exits before the job is done, the chunks they wrote add up to the job's (each chunk
 *    written once), and the export is the local scan byte for byte;
 *  - a `worker` started while PostgreSQL is down (as a worker still loading its datasets when the server stops):
 *    it waits for the server rather than exiting, and does the job once it is back;
 *  - `scan --queue --enqueue-only` killed with SIGKILL half-way (its fourth chunk's write stalled by a trigger, so
 *    the kill lands before the input ends by construction): once its lease expired the job reads `failed` and
 *    incomplete, and a worker for it runs none of its items.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepare } from '../../bench/scan-queue-kill.mjs';
import { createJobService, type JobInfo } from '../../src/library.js';
import { keyBytes } from '../../src/store/postgres/key-bytes.js';
import { openPostgresStore } from '../../src/store/node.js';
import { cli, requireBuiltCli, runCli } from '../fixtures/serve-process.js';
import { findPostgresBin, startCluster, startServer, stopServer } from '../pg/cluster.mjs';

const ITEMS = 6000;
const CAN_RUN = findPostgresBin() !== undefined;
let dir = '';
let reference = '';
let cluster: Awaited<ReturnType<typeof startCluster>> | undefined;

const run = (args: string[], timeout = 120_000) => runCli(args, { cwd: dir, timeout });

/** A CLI process whose stderr is kept; `exited` resolves to its exit code. */
function start(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [cli, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, err: () => err, exited };
}

/** One query on a connection of its own (the database may have restarted since the last). */
async function query(url: string, text: string, values: unknown[] = []): Promise<Record<string, any>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A job as the store reads it, on a connection of its own (the database may have restarted since the last). */
async function jobStatus(url: string, job: string): Promise<JobInfo> {
  const store = await openPostgresStore(url);
  try {
    return await createJobService({ store }).status(job, { owner: '' });
  } finally {
    await store.close();
  }
}

describe.skipIf(!CAN_RUN)('scan queue: a PostgreSQL restart under the workers, an enqueuer killed', () => {
  beforeAll(async () => {
    requireBuiltCli();
    cluster = await startCluster();
    dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-restart-'));
    reference = (await prepare(dir, ITEMS)).reference;
  }, 180_000);
  afterAll(() => {
    cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('two workers carry on through a restart: the job is done, each chunk written once, the export is the local scan', async () => {
    const url = `${cluster!.url}?schema=restart`;
    const books = join(dir, 'books.tpds');
    const queueArgs = ['--lease-seconds', '5'];
    const enq = await run([
      ...['scan', '--queue', url, '--dataset', books, join(dir, 'items.jsonl')],
      ...['--enqueue-only', '--quiet', '--chunk-items', '40', ...queueArgs],
    ]);
    expect(enq.code, enq.stderr).toBe(0);
    const job = enq.stdout.trim();
    const total = ITEMS / 40;
    expect(await jobStatus(url, job)).toMatchObject({ total: ITEMS, state: 'queued' });
    const workers = [0, 1].map(() => start(['worker', '--queue', url, '--dataset', books, '--job', job, ...queueArgs]));
    try {
      // the restart lands while both work: a few chunks done, most to come
      await expect
        .poll(async () => (await jobStatus(url, job)).done, { timeout: 60_000, interval: 50 })
        .toBeGreaterThan(40);
      stopServer(cluster!.dir);
      // down for a while: each worker's statements fail and it waits, retrying
      await new Promise((r) => setTimeout(r, 1500));
      for (const w of workers) expect(w.child.exitCode, w.err()).toBeNull();
      startServer(cluster!.dir);
      const codes = await Promise.all(workers.map((w) => w.exited));
      expect(codes, workers.map((w) => w.err()).join('\n')).toEqual([0, 0]);
    } finally {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    }
    // each chunk was written by one worker once: the chunks they report add up to the job's
    const wrote = workers.map((w) => Number(/stopped: (\d+) chunks/.exec(w.err())?.[1] ?? Number.NaN));
    expect(wrote[0] + wrote[1]).toBe(total);
    expect(await jobStatus(url, job)).toMatchObject({ state: 'done', done: ITEMS, total: ITEMS, failed: 0 });
    const exported = await run(['jobs', 'export', job, '--queue', url, '--quiet']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(reference);
  }, 180_000);

  it('a worker started while PostgreSQL is down waits for it, then does the job', async () => {
    const url = `${cluster!.url}?schema=late`;
    const books = join(dir, 'books.tpds');
    const items = join(dir, 'late.jsonl');
    writeFileSync(items, `${readFileSync(join(dir, 'items.jsonl'), 'utf8').split('\n').slice(0, 400).join('\n')}\n`);
    const enq = await run([
      ...['scan', '--queue', url, '--dataset', books, items, '--enqueue-only', '--quiet', '--chunk-items', '40'],
    ]);
    expect(enq.code, enq.stderr).toBe(0);
    const job = enq.stdout.trim();
    stopServer(cluster!.dir);
    // TRAINPRINT_DEBUG: the worker says each failure it waits out ("queue: …"), so the server starts again only once
    // the worker has met it stopped
    const worker = start(['worker', '--queue', url, '--dataset', books, '--job', job], {
      ...process.env,
      TRAINPRINT_DEBUG: '1',
    });
    try {
      try {
        await expect
          .poll(() => (worker.child.exitCode === null ? /queue: .*ECONNREFUSED/.test(worker.err()) : worker.err()), {
            timeout: 60_000,
            interval: 50,
          })
          .toBe(true);
      } finally {
        startServer(cluster!.dir);
      }
      expect(await worker.exited, worker.err()).toBe(0);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
    expect(worker.err()).toContain('stopped: 10 chunks');
    expect(await jobStatus(url, job)).toMatchObject({ state: 'done', done: 400, total: 400 });
  }, 120_000);

  it('an enqueuer killed with SIGKILL before its input ended leaves a failed, incomplete job that no worker takes', async () => {
    const schema = 'killed_enqueue';
    const url = `${cluster!.url}?schema=${schema}`;
    const books = join(dir, 'books.tpds');
    // the store's tables exist once a command opened it (here: a status of no job, exit 1)
    expect((await run(['jobs', 'status', '--queue', url])).code).toBe(1);
    // the enqueue stalls by construction after its third chunk: the fourth chunk's write waits for ever
    const hex = (text: string) => `'\\x${Buffer.from(keyBytes(text)).toString('hex')}'::bytea`;
    await query(
      cluster!.url,
      `CREATE FUNCTION "${schema}".stall() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN IF substring(NEW.key from 1 for 20) = ${hex('job-items/')}
             AND substring(NEW.key from length(NEW.key) - 17) = ${hex('/00000003')} THEN PERFORM pg_sleep(3600);
           END IF; RETURN NEW; END $$`,
    );
    await query(
      cluster!.url,
      `CREATE TRIGGER stall BEFORE INSERT OR UPDATE ON "${schema}".kv FOR EACH ROW EXECUTE FUNCTION "${schema}".stall()`,
    );
    const enqueuer = start([
      ...['scan', '--queue', url, '--dataset', books, join(dir, 'items.jsonl')],
      ...['--enqueue-only', '--chunk-items', '10', '--lease-seconds', '2'],
    ]);
    try {
      let job = '';
      await expect
        .poll(
          async () => {
            job ||= /job (job_[0-9a-f]{32})/.exec(enqueuer.err())?.[1] ?? '';
            return job ? (await jobStatus(url, job)).total : 0;
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe(30);
      await new Promise((r) => setTimeout(r, 200)); // the fourth chunk's write reaches its trigger
      enqueuer.child.kill('SIGKILL');
      await enqueuer.exited;
      // the server does not see the client gone while the trigger sleeps: its transaction (holding the store's write
      // lock) is ended as the server would end it at its next read of the socket
      await query(
        cluster!.url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND pid <> pg_backend_pid()",
      );
      await expect
        .poll(async () => (await jobStatus(url, job)).state, { timeout: 30_000, interval: 200 })
        .toBe('failed');
      const status = JSON.parse((await run(['jobs', 'status', job, '--queue', url, '--json'])).stdout);
      expect(status).toMatchObject({ state: 'failed', done: 0, total: 30, error: { code: 'INTERNAL' } });
      expect(status.error.message).toContain('the submission stopped before its input ended');
      const line = (await run(['scan', '--queue', url, '--status', '--job', job])).stdout;
      expect(line).toContain(`job ${job} (scan): failed, 0 of 30 items`);
      const worker = await run(['worker', '--queue', url, '--dataset', books, '--job', job]);
      expect(worker.code, worker.stderr).toBe(0);
      expect(worker.stderr).toContain('stopped: 0 chunks');
      expect(await jobStatus(url, job)).toMatchObject({ state: 'failed', done: 0 });
    } finally {
      if (enqueuer.child.exitCode === null) enqueuer.child.kill('SIGKILL');
    }
  }, 120_000);
});
