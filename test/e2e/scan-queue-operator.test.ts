/**
 * The operator's scan queue read over HTTP, with real processes of the built CLI (dist/cli.js) and a real PostgreSQL:
 * `trainprint scan --queue URL` (no `--account`: the operator's job, account `''`) runs a scan to the end, then
 * `trainprint serve --store URL` on the same database lists it to an `admin` key at `GET /api/v1/jobs?owner=operator`
 * and gives its status and every result line; a key without the scope gets 403 for the list and the 404 of an unknown
 * job for its id, and cannot delete it.
 *
 * Bounded: the server must print its URL within 30 s; the scan of 200 items must end within 2 minutes.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepare } from '../../bench/scan-queue-kill.mjs';
import {
  cli,
  createKey,
  requireBuiltCli,
  startServe,
  stopProcess,
  type ServeProcess,
} from '../fixtures/serve-process.js';
import { describePostgres } from '../pg/postgres.js';

const ITEMS = 200;
const running: ChildProcess[] = [];
let dir = '';

function run(args: string[], timeout = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

async function call(url: string, key: string, method: string, path: string) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text };
}

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-queue-operator-'));
  await prepare(dir, ITEMS);
}, 180_000);
afterAll(async () => {
  await Promise.all(running.map(stopProcess));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describePostgres("the operator's scan queue over HTTP (serve --store on the same database)", (db) => {
  let store = '';
  let server: ServeProcess;

  beforeAll(async () => {
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    store = url.toString();
  });

  it('an admin key lists the queue job with owner=operator and reads its results; another key does not see it', async () => {
    const scan = await run(['scan', '--queue', store, '--dataset', join(dir, 'books.tpds'), join(dir, 'items.jsonl')]);
    expect(scan.code, scan.stderr).toBe(0);
    const job = scan.stdout.trim();
    expect(job).toMatch(/^job_[0-9a-f]{32}$/);

    server = await startServe(['--port', '0', '--packs', 'none', '--workers', '1', '--store', store], { running });
    const admin = await createKey(store, ['--account', 'ops', '--scopes', 'analyze,admin']);
    const plain = await createKey(store, ['--account', 'acme', '--scopes', 'analyze']);

    const listed = await call(server.url, admin, 'GET', '/api/v1/jobs?owner=operator');
    expect(listed.status).toBe(200);
    expect(listed.json.jobs.map((j: any) => j.job_id)).toEqual([job]);
    expect(listed.json.jobs[0]).toMatchObject({ type: 'scan', state: 'done', total: ITEMS, done: ITEMS, failed: 0 });
    expect((await call(server.url, admin, 'GET', '/api/v1/jobs')).json.jobs).toEqual([]);
    const status = await call(server.url, admin, 'GET', `/api/v1/jobs/${job}`);
    expect(status.json).toMatchObject({ job_id: job, state: 'done', total: ITEMS });
    const results = await call(server.url, admin, 'GET', `/api/v1/jobs/${job}/results?limit=1000`);
    expect(results.status).toBe(200);
    const lines = results.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.index)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));

    expect((await call(server.url, plain, 'GET', '/api/v1/jobs?owner=operator')).status).toBe(403);
    for (const method of ['GET', 'DELETE']) {
      const r = await call(server.url, plain, method, `/api/v1/jobs/${job}`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('NOT_FOUND');
    }
    // still there for the operator's command line
    const after = JSON.parse((await run(['jobs', 'status', job, '--queue', store, '--json'])).stdout);
    expect(after).toMatchObject({ job_id: job, state: 'done' });
  }, 180_000);
});
