/**
 * `trainprint jobs` on a file store (the embedded default): a job submitted through the library is read, exported
 * and cancelled from the command line; a store path that does not exist is NOT_FOUND (exit 1) and is not made, and a
 * URL of another scheme is a usage error.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobService } from '../../src/library.js';
import { openFileStore } from '../../src/store/node.js';
import { requireBuiltCli, runCli } from '../fixtures/serve-process.js';

let dir = '';
let store = '';
let job = '';

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-jobs-'));
  store = join(dir, 'store');
  const s = await openFileStore(store);
  const items = Array.from({ length: 3 }, (_, i) => ({ id: `t${i}`, text: `A text ${i}.` }));
  job = (await createJobService({ store: s }).submit({ account: '', type: 'scan', items })).id;
  await s.close();
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint jobs --store DIR', () => {
  it('reads a queued job, cancels it, and says it is cancelled', async () => {
    const before = await runCli(['jobs', 'status', job, '--store', store, '--json'], { cwd: dir });
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ job_id: job, state: 'queued', total: 3 });
    expect((await runCli(['jobs', 'cancel', job, '--store', store], { cwd: dir })).code).toBe(0);
    const after = await runCli(['jobs', 'status', job, '--store', store, '--json'], { cwd: dir });
    expect(JSON.parse(after.stdout)).toMatchObject({ job_id: job, state: 'cancelled' });
  });

  it('a store that does not exist is NOT_FOUND, exit 1, and is not made', async () => {
    const missing = join(dir, 'no-such-store');
    const r = await runCli(['jobs', 'status', '--store', missing], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('NOT_FOUND');
    expect(r.stderr).toContain('no store at');
    expect(existsSync(missing)).toBe(false);
  });

  it('a URL of another scheme (a mistyped postgres://) is a usage error naming the scheme only, and makes nothing', async () => {
    for (const args of [
      ['jobs', 'status'],
      ['keys', 'create', '--account', 'a'],
    ]) {
      const r = await runCli([...args, '--store', 'postgress://app:S3cretPW@db.internal:5432/tp'], { cwd: dir });
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toContain('not a postgress:// URL');
      expect(r.stderr).not.toContain('S3cretPW');
      expect(existsSync(join(dir, 'postgress:'))).toBe(false);
    }
  });
});
