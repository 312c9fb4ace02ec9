/**
 * The scan queue with real processes of the built CLI (dist/cli.js) and a real PostgreSQL: `scan --queue
 * --enqueue-only`, two `worker` processes, one of them killed with SIGKILL 4 times while it scans (and restarted)
 * while the other is stopped with SIGSTOP past its lease (so the kills land during the scan on any machine, and a
 * worker that wakes up to a chunk redone meanwhile writes nothing twice), then `--export`: byte for byte what a local
 * `trainprint scan` of the same input writes — every item scanned exactly once, no hit lost or duplicated
 * (bench/scan-queue-kill.mjs runs the same at 100,000 items, both workers running). Also: a worker stops cleanly on
 * SIGTERM, and refuses a job made against another version of the dataset (exit code 1, nothing written). (A local scan
 * against a dataset attached from PostgreSQL: test/e2e/scan-postgres-dataset.test.ts, which needs no core of its own.)
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killScan, prepare } from '../../bench/scan-queue-kill.mjs';
import { cli, requireBuiltCli } from '../fixtures/serve-process.js';
import { describePostgres } from '../pg/postgres.js';

const ITEMS = 6000;
let dir = '';
let reference = '';

function run(args: string[], timeout = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-queue-'));
  reference = (await prepare(dir, ITEMS)).reference;
}, 180_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describePostgres('trainprint scan --queue and worker (real processes, kill -9)', (db) => {
  const at = (schema: string) => {
    const url = new URL(db.url);
    url.searchParams.set('schema', schema);
    return url.toString();
  };

  it('kill -9 of one of two workers 4 times during the scan (the other paused past its lease): the export is the local scan, byte for byte', async () => {
    expect(reference.split('\n').filter(Boolean).length).toBeGreaterThan(100);
    const r = await killScan({
      url: at(db.schema()),
      dir,
      kills: 4,
      chunkItems: 40,
      lease: 3,
      reference,
      killAfterMs: [100, 300],
      pauseOther: true,
    });
    expect(r.kills).toBe(4);
    expect(r.kills_mid_job).toBeGreaterThanOrEqual(1); // kills that took a chunk with them
    expect(r.status).toMatchObject({ type: 'scan', state: 'done', done: ITEMS, total: ITEMS, failed: 0 });
    expect(r).toMatchObject({ items_done: ITEMS, items_failed: 0, duplicate_hit_lines: 0, chunk_items_left: 0 });
    expect(r.export_equals_local_scan).toBe(true);
  }, 120_000);

  it('scan --queue works on its job until done; trainprint jobs status|export|delete on the queue, the old names too', async () => {
    const url = at(db.schema());
    const scan = await run(['scan', '--queue', url, '--dataset', join(dir, 'books.tpds'), join(dir, 'items.jsonl')]);
    expect(scan.code).toBe(0);
    const job = scan.stdout.trim();
    expect(job).toMatch(/^job_[0-9a-f]{32}$/);
    expect(scan.stderr).toContain(`job ${job} (scan): done, ${ITEMS.toLocaleString('en-US')} of`);
    const exported = await run(['jobs', 'export', '--queue', url, '--quiet']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(reference);
    const old = await run(['scan', '--queue', url, '--export', '-', '--quiet']); // the old name
    expect(old.stdout).toBe(reference);
    const status = await run(['jobs', 'status', job, '--queue', url]);
    expect(status.stdout).toContain(`job ${job} (scan): done, ${ITEMS.toLocaleString('en-US')} of`);
    const json = JSON.parse((await run(['scan', '--queue', url, '--status', '--json'])).stdout);
    expect(json).toMatchObject({ job_id: job, type: 'scan', state: 'done', total: ITEMS, failed: 0 });
    // the same store through --store: a serving process's view
    expect(JSON.parse((await run(['jobs', 'status', '--store', url, '--json'])).stdout)).toMatchObject({ job_id: job });
    expect((await run(['jobs', 'delete', job, '--queue', url])).code).toBe(0);
    const gone = await run(['jobs', 'status', job, '--queue', url]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NOT_FOUND');
  }, 60_000);

  it('trainprint jobs cancel on the queue: chunks not yet claimed never run; export refuses an unfinished job', async () => {
    const url = at(db.schema());
    const args = ['--dataset', join(dir, 'books.tpds'), join(dir, 'items.jsonl'), '--enqueue-only', '--quiet'];
    const job = (await run(['scan', '--queue', url, ...args, '--chunk-items', '100'])).stdout.trim();
    const early = await run(['jobs', 'export', job, '--queue', url]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('CONFLICT');
    const cancel = await run(['jobs', 'cancel', job, '--queue', url]);
    expect(cancel.code).toBe(0);
    expect(cancel.stderr).toContain(`cancelled job ${job}`);
    const worker = await run(['worker', '--queue', url, '--dataset', join(dir, 'books.tpds'), '--job', job]);
    expect(worker.code).toBe(0);
    expect(worker.stderr).toMatch(/stopped: 0 chunks/);
    const st = JSON.parse((await run(['jobs', 'status', job, '--queue', url, '--json'])).stdout);
    expect(st).toMatchObject({ state: 'cancelled', done: 0, total: ITEMS });
    expect((await run(['jobs', 'export', job, '--queue', url, '--quiet'])).stdout).toBe('');
  }, 60_000);

  it('a worker runs until SIGTERM, then finishes its chunk and exits with code 0', async () => {
    const url = at(db.schema());
    const enq = await run([
      'scan',
      '--queue',
      url,
      '--dataset',
      join(dir, 'books.tpds'),
      join(dir, 'items.jsonl'),
      '--enqueue-only',
      '--quiet',
      '--chunk-items',
      '200',
    ]);
    expect(enq.code).toBe(0);
    const child = spawn(process.execPath, [cli, 'worker', '--queue', url, '--dataset', join(dir, 'books.tpds')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    await expect.poll(() => err, { timeout: 30_000 }).toContain(' with datasets ');
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(err).toMatch(/stopped: \d+ chunks/);
    const st = JSON.parse((await run(['jobs', 'status', '--queue', url, '--json'])).stdout);
    expect(st.done % 200 === 0 || st.done === ITEMS).toBe(true); // whole chunks only
  }, 60_000);

  it('a worker refuses a job made against another version of the dataset: exit code 1, nothing run', async () => {
    const url = at(db.schema());
    const enq = await run([
      'scan',
      '--queue',
      url,
      '--dataset',
      join(dir, 'books.tpds'),
      join(dir, 'items.jsonl'),
      '--enqueue-only',
      '--quiet',
    ]);
    expect(enq.code).toBe(0);
    const job = enq.stdout.trim();
    // the same dataset id with one document more: another SHA-256
    writeFileSync(
      join(dir, 'more.jsonl'),
      `${JSON.stringify({ id: 'extra', text: 'one more document '.repeat(40) })}\n`,
    );
    const built = await run([
      'index',
      'build',
      '--dataset',
      'books',
      '--out',
      join(dir, 'books2.tpds'),
      '--threads',
      '1',
      '--quiet',
      join(dir, 'docs.jsonl'),
      join(dir, 'more.jsonl'),
    ]);
    expect(built.code).toBe(0);
    const worker = await run(['worker', '--queue', url, '--dataset', join(dir, 'books2.tpds'), '--job', job]);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toMatch(/CONFLICT: .*refusing scan job job_[0-9a-f]{32}: its dataset "books" has SHA-256/);
    const st = JSON.parse((await run(['jobs', 'status', job, '--queue', url, '--json'])).stdout);
    expect(st).toMatchObject({ job_id: job, done: 0, failed: 0, total: ITEMS });
    expect(['queued', 'running']).toContain(st.state); // left for a worker with the same dataset, not failed
  }, 120_000);
});
