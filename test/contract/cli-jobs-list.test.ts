/**
 * `trainprint jobs list` on a store directory: the account's jobs, newest first, a line each; with `--json` the body
 * the HTTP API answers for `GET /api/v1/jobs?limit=100` on the same store, field for field (`job_id`, ISO times,
 * `status_url` …), not the library's `JobInfo`; `jobs status --json` the body of `GET /api/v1/jobs/{job_id}`. On a
 * store directory another process holds (`serve`), STORE_LOCKED saying how to read its jobs instead.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, TrainprintError, type ScanHit } from '../../src/index.js';
import { createJobService } from '../../src/entries/jobs.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { hitLine, openFileStore } from '../../src/node/index.js';
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

describe('trainprint jobs status and export read what each job type says of its results', () => {
  const hit = {
    id: 'out-1',
    dataset_id: 'books',
    document_id: 'd1',
    query_start: 0,
    query_end: 40,
    source_start: 10,
    source_end: 50,
    words: 8,
    kind: 'verbatim',
  };
  let finished: string;
  let scan: string;

  beforeAll(async () => {
    finished = mkdtempSync(join(tmpdir(), 'trainprint-jobs-summaries-'));
    const store = await openFileStore(finished);
    try {
      const jobs = createJobService({ store });
      // a scan job of three items, run by hand: a hit (its fields stored out of the hit line's order), none, a failure
      scan = (await jobs.submit({ account: 'acme', type: 'scan', items: [{}, {}, {}] })).id;
      const claim = (await jobs.claim(60_000))!;
      const { kind, id, ...rest } = hit;
      await jobs.complete(claim, [
        { index: 0, success: true, result: { id: 'out-1', hits: [{ kind, ...rest, id }] } },
        { index: 1, success: true, result: { id: 'out-2', hits: [] } },
        { index: 2, success: false, error: { code: 'NOT_FOUND', message: 'no dataset "books"' } },
      ]);
      // a type this command does not know: its result gets the neutral line, never a score
      await jobs.submit({ account: 'acme', type: 'upper', items: [{}] });
      const other = (await jobs.claim(60_000))!;
      await jobs.complete(other, [{ index: 0, success: true, result: { text: 'ABC' } }]);
    } finally {
      await store.close();
    }
  });
  afterAll(() => rmSync(finished, { recursive: true, force: true }));

  it("status: the job's line, then a line for each result as its type summarizes it", async () => {
    const lines = await printed(['status', scan, '--store', finished, '--account', 'acme']);
    expect(lines).toEqual([
      `job ${scan} (scan): done, 3 of 3 items (100.0 %), 1 failed`,
      '  item 0: 1 hit',
      '  item 1: 0 hits',
      '  item 2: NOT_FOUND: no dataset "books"',
    ]);
    const newest = await printed(['status', '--store', finished, '--account', 'acme']);
    expect(newest.slice(1)).toEqual(['  item 0: a result with text']);
  });

  it("export: a scan job's rows, its hits as `scan --out` writes them", async () => {
    const out = join(finished, 'hits.jsonl');
    expect(await jobsCommand(['export', scan, '--store', finished, '--account', 'acme', '--out', out, '--quiet'])).toBe(
      0,
    );
    expect(readFileSync(out, 'utf8')).toBe(hitLine(hit as ScanHit));
  });
});
