/**
 * The scan queue through the failures of its database and of its enqueuer, with real processes of the built CLI
 * and a PostgreSQL cluster of this file's own (stopped and started again on the same data and port):
 *  - two `worker` processes scanning while PostgreSQL stops (`pg_ctl stop -m fast`: every connection cut) and
 *    starts again: neither exits before the job is done, the chunks they wrote add up to the job's (each chunk
 *    written once), and the export is the local scan byte for byte;
 *  - a `worker` started while PostgreSQL is down (as a worker still loading its datasets when the server stops):
 *    it waits for the server rather than exiting, and does the job once it is back;
 *  - `scan --queue --enqueue-only` killed with SIGKILL half-way (its fourth chunk's insert stalled by a trigger, so
 *    the kill lands before the input ends by construction): the job reads `failed` and incomplete, and a worker for
 *    it takes none of its chunks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepare } from '../../bench/scan-queue-kill.mjs';
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
    const queueArgs = ['--lease-seconds', '30', '--maintenance-seconds', '1'];
    const enq = await run([
      ...['scan', '--queue', url, '--dataset', books, join(dir, 'items.jsonl')],
      ...['--enqueue-only', '--quiet', '--chunk-items', '40', ...queueArgs],
    ]);
    expect(enq.code, enq.stderr).toBe(0);
    const job = enq.stdout.trim();
    const chunks = async () =>
      (
        await query(
          cluster!.url,
          'SELECT count(*)::int AS total, count(done_at)::int AS done FROM "restart".chunks WHERE job_id = $1',
          [job],
        )
      )[0];
    const { total } = await chunks();
    expect(total).toBe(ITEMS / 40);
    const workers = [0, 1].map(() => start(['worker', '--queue', url, '--dataset', books, '--job', job, ...queueArgs]));
    try {
      // the restart lands while both work: a few chunks done, most to come
      await expect.poll(async () => (await chunks()).done, { timeout: 60_000, interval: 50 }).toBeGreaterThan(1);
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
    expect(await chunks()).toEqual({ total, done: total });
    // each chunk was written by one worker once: the chunks they report add up to the job's
    const wrote = workers.map((w) => Number(/stopped: (\d+) chunks/.exec(w.err())?.[1] ?? Number.NaN));
    expect(wrote[0] + wrote[1]).toBe(total);
    const status = JSON.parse((await run(['scan', '--queue', url, '--status', '--json', '--job', job])).stdout);
    expect(status).toMatchObject({ state: 'done', items_done: ITEMS, items_total: ITEMS });
    const exported = await run(['scan', '--queue', url, '--export', '-', '--job', job, '--quiet']);
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
    const status = JSON.parse((await run(['scan', '--queue', url, '--status', '--json', '--job', job])).stdout);
    expect(status).toMatchObject({ state: 'done', items_done: 400, items_total: 400 });
  }, 120_000);

  it('an enqueuer killed with SIGKILL before its input ended leaves a failed, incomplete job that no worker takes', async () => {
    const schema = 'killed_enqueue';
    const url = `${cluster!.url}?schema=${schema}`;
    const books = join(dir, 'books.tpds');
    // the queue's tables exist once a command opened the queue (here: a status of no job, exit 1)
    expect((await run(['scan', '--queue', url, '--status'])).code).toBe(1);
    // the enqueue stalls by construction after its third chunk: the fourth chunk's insert waits for ever
    await query(
      cluster!.url,
      `CREATE FUNCTION "${schema}".stall() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN IF NEW.seq >= 3 THEN PERFORM pg_sleep(3600); END IF; RETURN NEW; END $$`,
    );
    await query(
      cluster!.url,
      `CREATE TRIGGER stall BEFORE INSERT ON "${schema}".chunks FOR EACH ROW EXECUTE FUNCTION "${schema}".stall()`,
    );
    const enqueuer = start([
      ...['scan', '--queue', url, '--dataset', books, join(dir, 'items.jsonl')],
      ...['--enqueue-only', '--chunk-items', '10'],
    ]);
    try {
      let job = '';
      await expect
        .poll(
          async () => {
            job ||= /job ([0-9a-f-]{36})/.exec(enqueuer.err())?.[1] ?? '';
            if (!job) return 0;
            const rows = await query(
              cluster!.url,
              `SELECT count(*)::int AS n FROM "${schema}".chunks WHERE job_id = $1`,
              [job],
            );
            return rows[0].n;
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe(3);
      enqueuer.child.kill('SIGKILL');
      await enqueuer.exited;
      const status = JSON.parse((await run(['scan', '--queue', url, '--status', '--json', '--job', job])).stdout);
      expect(status).toMatchObject({ state: 'failed', items_done: 0, items_total: 30 });
      expect(status.error).toContain('its enqueue stopped before the input ended');
      const line = (await run(['scan', '--queue', url, '--status', '--job', job])).stdout;
      expect(line).toContain(`job ${job}: failed, 0 of 30+ items`);
      expect(line).toContain('its enqueue stopped before the input ended');
      const worker = await run(['worker', '--queue', url, '--dataset', books, '--job', job]);
      expect(worker.code, worker.stderr).toBe(0);
      expect(worker.stderr).toContain('stopped: 0 chunks');
      const taken = await query(cluster!.url, `SELECT count(started_at)::int AS n FROM "${schema}".chunks`);
      expect(taken[0].n).toBe(0); // not one of its chunks was taken
    } finally {
      if (enqueuer.child.exitCode === null) enqueuer.child.kill('SIGKILL');
    }
  }, 120_000);
});
