/**
 * `trainprint jobs list` on a store directory: the account's jobs, newest first, a line each; with `--json` the body
 * the HTTP API answers for `GET /api/v1/jobs?limit=100` on the same store, field for field (`job_id`, ISO times,
 * `status_url` …), not the library's `JobInfo`; `jobs status --json` the body of `GET /api/v1/jobs/{job_id}`. On a
 * store directory another process holds (`serve`), STORE_LOCKED saying how to read its jobs instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, TrainprintError } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { openFileStore } from '../../src/node/index.js';
import { jobsCommand } from '../../src/cli/jobs.js';
import { keyedCall } from '../fixtures/http/keyed-call.js';

let dir: string;
let http: Record<string, unknown>;
let httpJob: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-jobs-list-'));
  const engine = await createEngine({ store: await openFileStore(dir) });
  const keys = new KeyStore(engine.store);
  const call = await keyedCall(createHandler(engine, { keys }), keys, 'acme');
  for (const content of ['A first text of a few words.', 'A second text of a few words.'])
    expect(
      (await call('POST', '/api/v1/jobs', { type: 'analyze', items: [{ content, content_type: 'text' }] })).status,
    ).toBe(202);
  http = (await call('GET', '/api/v1/jobs?limit=100')).json;
  const newest = (http.jobs as Array<{ status_url: string }>)[0];
  httpJob = (await call('GET', newest.status_url)).json;
  await engine.store.close();
  engine.dispose();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `jobs …` printed on standard output, line by line. */
async function printed(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((l: unknown) => void lines.push(String(l)));
  try {
    expect(await jobsCommand(args)).toBe(0);
  } finally {
    log.mockRestore();
  }
  return lines;
}

describe('trainprint jobs status', () => {
  it('--json is the HTTP API body of GET /api/v1/jobs/{job_id} on the same store', async () => {
    const [json] = await printed(['status', '--store', dir, '--account', 'acme', '--json']);
    expect(JSON.parse(json)).toEqual(httpJob);
    expect(httpJob).toMatchObject({ success: true, type: 'analyze', state: 'queued' });
  });

  it('on a store another process holds (serve): STORE_LOCKED saying where its jobs can be read, the store unchanged', async () => {
    const held = await openFileStore(dir);
    try {
      const before = await held.scan('');
      const failed = await jobsCommand(['status', '--store', dir, '--account', 'acme']).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(TrainprintError);
      expect((failed as TrainprintError).code).toBe('STORE_LOCKED');
      expect((failed as TrainprintError).message).toMatch(/GET \/api\/v1\/jobs\/JOB/);
      expect(await held.scan('')).toEqual(before);
    } finally {
      await held.close();
    }
    // once it is let go, the command reads it
    expect(await printed(['status', '--store', dir, '--account', 'acme'])).toHaveLength(1);
  });
});

describe('trainprint jobs list', () => {
  it('--json is the HTTP API body of GET /api/v1/jobs on the same store', async () => {
    const [json] = await printed(['list', '--store', dir, '--account', 'acme', '--json']);
    expect(JSON.parse(json)).toEqual(http);
    expect((http.jobs as unknown[]).length).toBe(2);
  });

  it('a line each, newest first', async () => {
    const lines = await printed(['list', '--store', dir, '--account', 'acme']);
    const ids = (http.jobs as Array<{ job_id: string }>).map((j) => j.job_id);
    expect(lines).toHaveLength(2);
    for (const [i, l] of lines.entries())
      expect(l).toMatch(new RegExp(`^job ${ids[i]} \\(analyze\\): queued, 0 of 1 items`));
  });
});
