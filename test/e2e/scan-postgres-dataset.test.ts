/**
 * `trainprint scan --dataset postgres://…` with real processes of the built CLI (dist/cli.js) and a real PostgreSQL:
 * the dataset built from files is pushed into PostgreSQL (`trainprint index push`), and a local scan that attaches it
 * from there writes the hit lines the scan of its file writes, byte for byte. The scan command runs on its own scan
 * engine (dist/scan-files.js), which attaches the PostgreSQL dataset with its own copy of that store's code: this is
 * the test that the copy reads what the library's does. Apart from test/e2e/scan-queue.test.ts, whose kill tests run
 * alone after the others, since nothing here counts on timing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepare } from '../../bench/scan-queue-kill.mjs';
import { requireBuiltCli, runCli } from '../fixtures/serve-process.js';
import { describePostgres } from '../pg/postgres.js';

const ITEMS = 2000;
let dir = '';
let reference = '';

const run = (args: string[]) => runCli(args, { cwd: dir, timeout: 120_000 });

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-postgres-'));
  reference = (await prepare(dir, ITEMS)).reference;
}, 180_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describePostgres('trainprint scan of a dataset attached from PostgreSQL (real processes)', (db) => {
  it('a local scan of the dataset pushed into PostgreSQL (--dataset postgres://…) writes the hit lines of its file', async () => {
    // the hits of the file's scan: planted passages found, so that equal outputs say something
    expect(reference.split('\n').filter(Boolean).length).toBeGreaterThan(20);
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    const pushed = await run(['index', 'push', join(dir, 'books.tpds'), '--into', url.toString()]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const scan = await run(['scan', '--dataset', url.toString(), join(dir, 'items.jsonl'), '--out', '-', '--quiet']);
    expect(scan.code, scan.stderr).toBe(0);
    expect(scan.stdout).toBe(reference);
  }, 120_000);
});
