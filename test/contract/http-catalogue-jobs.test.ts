/**
 * Catalogue jobs over HTTP (`/api/v1/jobs`) through the handler: a submission answers 202 with the job, its progress
 * only grows, its results come back as JSON lines in item order, paged by the `Link` header; a job is its account's
 * (another account's answers 404); DELETE cancels a running job and deletes a finished one; the items are charged to
 * the plan's daily limit at submission, all or none, exactly; a job holds at most the plan's `jobItems`; and a job
 * submitted before a restart is finished by the next process on the same file store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { openFileStore } from '../../src/store/node.js';
import { createJobService } from '../../src/library.js';
import { createClient } from '../../src/client/index.js';
import { type Call, callWithKey, keyedCall } from '../fixtures/http/keyed-call.js';

const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
  'documentation files (the "Software"), to deal in the Software without restriction, including without ' +
  'limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the ' +
  'Software, and to permit persons to whom the Software is furnished to do so';

let engine: Engine;
let keys: KeyStore;
const dirs: string[] = [];

const caller = (handler: Handler, account: string, plan = 'pro', ks = keys): Promise<Call> =>
  keyedCall(handler, ks, account, plan);

const item = (i: number) => ({ content: `Item ${i}. Our terms.\n\n${MIT}\n`, content_type: 'text' });

/** Polls until the job is finished, checking that `done` never decreases. */
async function finished(call: Call, url: string, seen: number[] = []): Promise<Record<string, any>> {
  // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
  for (;;) {
    const s = await call('GET', url);
    expect(s.status).toBe(200);
    if (seen.length) expect(s.json.done).toBeGreaterThanOrEqual(seen[seen.length - 1]);
    seen.push(s.json.done);
    if (['done', 'failed', 'cancelled'].includes(s.json.state)) return s.json;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every result line, following the Link header. */
async function allResults(call: Call, url: string, limit: number): Promise<Array<Record<string, any>>> {
  const out: Array<Record<string, any>> = [];
  let next: string | null = `${url}?limit=${limit}`;
  for (let guard = 0; next && guard < 10_000; guard++) {
    const r = await call('GET', next);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = r.text.split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(limit);
    out.push(...lines.map((l) => JSON.parse(l)));
    const link = r.headers.get('link');
    next = link ? /<([^>]+)>; rel="next"/.exec(link)![1] : null;
    if (next && lines.length === 0) await new Promise((res) => setTimeout(res, 20));
  }
  return out;
}

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'licences' }, [{ id: 'MIT', text: `Copyright (c) <year> <holder>\n\n${MIT}` }]);
  keys = new KeyStore(engine.store);
}, 60_000);
afterAll(() => {
  engine?.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('POST /api/v1/jobs', () => {
  it('answers 202; progress only grows; the results come in item order, paged by Link', async () => {
    const handler = createHandler(engine, { keys, jobs: { pollMs: 20, chunkItems: 3 } });
    const acme = await caller(handler, 'acme');
    const items = Array.from({ length: 11 }, (_, i) => item(i));
    // an item its schema takes but the analysis refuses: a failed result, not a failed job
    items[4] = { content: 'bm90IGFuIGVwdWI=', content_type: 'epub', content_encoding: 'base64' } as never;
    const r = await acme('POST', '/api/v1/jobs', { type: 'analyze', items });
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ success: true, type: 'analyze', total: 11, failed: 0 });
    expect(['queued', 'running']).toContain(r.json.state);
    expect(r.json.job_id).toMatch(/^job_[0-9a-f]{32}$/);
    expect(r.headers.get('location')).toBe(`/api/v1/jobs/${r.json.job_id}`);
    expect(r.json.status_url).toBe(r.headers.get('location'));
    const seen: number[] = [];
    const done = await finished(acme, r.json.status_url, seen);
    expect(done).toMatchObject({ state: 'done', total: 11, done: 11, failed: 1, eta_seconds: null });
    expect(done.started).not.toBeNull();
    expect(done.finished).not.toBeNull();
    const results = await allResults(acme, r.json.results_url, 4);
    expect(results.map((x) => x.index)).toEqual(items.map((_, i) => i));
    expect(results[4]).toMatchObject({ success: false, error: { code: expect.any(String) } });
    const ok = results.filter((x) => x.success);
    expect(ok).toHaveLength(10);
    for (const x of ok) expect(x.result.matches[0]).toMatchObject({ dataset_id: 'licences', document_id: 'MIT' });
    // each analysis is stored as a synchronous one is
    const stored = await acme('GET', `/api/v1/attribution/analyses/${ok[0].result.analysis_id}`);
    expect(stored.status).toBe(200);
    await stopJobs(handler);
  });

  it('takes JSON lines with ?type= (a scan job: { id, hits } per item)', async () => {
    const handler = createHandler(engine, { keys, jobs: { pollMs: 20 } });
    const acme = await caller(handler, 'acme');
    const lines = `${JSON.stringify({ id: 'a', text: MIT })}\n\n${JSON.stringify({ id: 'b', text: 'nothing here at all' })}\n`;
    const r = await acme('POST', '/api/v1/jobs?type=scan', lines, { 'content-type': 'application/x-ndjson' });
    expect(r.status).toBe(202);
    expect(r.json.total).toBe(2);
    await finished(acme, r.json.status_url);
    const results = await allResults(acme, r.json.results_url, 100);
    expect(results.map((x) => x.result?.id ?? x.error)).toEqual(['a', 'b']);
    expect(results[1].result.hits).toEqual([]);
    await stopJobs(handler);
  });

  it('refuses bad input with JSON errors: 422 naming the item field, 400 naming the line, 415', async () => {
    const handler = createHandler(engine, { keys, jobs: { run: false } });
    const acme = await caller(handler, 'acme');
    const noType = await acme('POST', '/api/v1/jobs', { items: [item(0)] });
    expect(noType.status).toBe(422);
    expect(noType.json.error.details.field).toBe('type');
    const badItem = await acme('POST', '/api/v1/jobs', { type: 'analyze', items: [item(0), { content: 5 }] });
    expect(badItem.status).toBe(422);
    expect(badItem.json.error.details.field).toBe('items[1].content');
    expect((await acme('POST', '/api/v1/jobs', { type: 'nope', items: [item(0)] })).status).toBe(422);
    expect((await acme('POST', '/api/v1/jobs', { type: 'analyze', items: [] })).status).toBe(422);
    const scanOpts = await acme('POST', '/api/v1/jobs', { type: 'analyze', items: [item(0)], options: {} });
    expect(scanOpts.status).toBe(422);
    const broken = await acme('POST', '/api/v1/jobs?type=scan', '{"id":"a","text":"x"}\n{oops\n', {
      'content-type': 'application/x-ndjson',
    });
    expect(broken.status).toBe(400);
    expect(broken.json.error.message).toContain('line 2');
    const wrongType = await acme('POST', '/api/v1/jobs', 'x', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect((await acme('GET', `/api/v1/jobs/job_${'0'.repeat(32)}`)).status).toBe(404);
    expect((await acme('GET', `/api/v1/jobs/job_${'0'.repeat(32)}/results?limit=0`)).status).toBe(422);
  });
});

describe('GET /api/v1/jobs', () => {
  it("lists the account's jobs newest first, paged by next; another account's never; after a restart too", async () => {
    const handler = createHandler(engine, { keys, jobs: { run: false } });
    const lister = await caller(handler, 'lister');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await lister('POST', '/api/v1/jobs', { type: 'scan', items: [{ id: `x${i}`, text: 'a text' }] });
      expect(r.status).toBe(202);
      ids.push(r.json.job_id);
      await new Promise((res) => setTimeout(res, 5)); // distinct creation times
    }
    const first = await lister('GET', '/api/v1/jobs?limit=2');
    expect(first.status).toBe(200);
    expect(first.json.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[2], ids[1]]);
    expect(first.json.jobs[0]).toMatchObject({ type: 'scan', state: 'queued', total: 1 });
    const second = await lister('GET', `/api/v1/jobs?limit=2&after=${first.json.next}`);
    expect(second.json).toMatchObject({ success: true, next: null });
    expect(second.json.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[0]]);
    // a handler made again on the same store (a restart) lists them the same
    const again = await caller(createHandler(engine, { keys, jobs: { run: false } }), 'lister');
    expect((await again('GET', '/api/v1/jobs')).json.jobs).toHaveLength(3);
    const stranger = await caller(handler, 'stranger');
    expect((await stranger('GET', '/api/v1/jobs')).json).toEqual({ success: true, jobs: [], next: null });
    expect((await stranger('GET', `/api/v1/jobs?after=${ids[0]}`)).status).toBe(422);
  });
});

describe('plans', () => {
  it('charges the items at submission, all or none, exactly; a job holds at most jobItems (413)', async () => {
    const handler = createHandler(engine, { keys, jobs: { run: false } });
    const free = await caller(handler, 'small', 'free');
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `i${i}`, text: 'x' }));
    const cap = await free('POST', '/api/v1/jobs', { type: 'scan', items: many });
    expect(cap.status).toBe(413);
    expect(cap.json.error.message).toContain('jobItems');
    const first = await free('POST', '/api/v1/jobs', { type: 'scan', items: many.slice(0, 60) });
    expect(first.status).toBe(202);
    const over = await free('POST', '/api/v1/jobs', { type: 'scan', items: many.slice(0, 41) });
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe('RATE_LIMITED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    const rest = await free('POST', '/api/v1/jobs', { type: 'scan', items: many.slice(0, 40) });
    expect(rest.status).toBe(202);
    const status = await free('GET', rest.json.status_url);
    expect(status.headers.get('ratelimit-remaining')).toBe('0');
    expect((await free('POST', '/api/v1/attribution/analyze', item(0))).status).toBe(429);
    expect((await free('POST', '/api/v1/jobs', { type: 'scan', items: many.slice(0, 1) })).status).toBe(429);
  });
});

describe('ownership and cancelling', () => {
  it("another account's job is 404 to every route", async () => {
    const handler = createHandler(engine, { keys, jobs: { run: false } });
    const acme = await caller(handler, 'acme');
    const globex = await caller(handler, 'globex');
    const r = await acme('POST', '/api/v1/jobs', { type: 'analyze', items: [item(0)] });
    expect(r.status).toBe(202);
    for (const [m, p] of [
      ['GET', r.json.status_url],
      ['GET', r.json.results_url],
      ['DELETE', r.json.status_url],
    ]) {
      const a = await globex(m, p);
      expect(a.status).toBe(404);
      expect(a.json.error.code).toBe('NOT_FOUND');
    }
    expect((await acme('GET', r.json.status_url)).json.state).toBe('queued');
  });

  it('DELETE cancels a running job (it stays as the cancel answered), and a second DELETE deletes it', async () => {
    // an engine of its own: no other job's chunk to claim first
    const own = await createEngine();
    const ownKeys = new KeyStore(own.store);
    const handler = createHandler(own, { keys: ownKeys, jobs: { run: false, chunkItems: 2 } });
    const acme = await caller(handler, 'acme', 'pro', ownKeys);
    const r = await acme('POST', '/api/v1/jobs', {
      type: 'analyze',
      items: Array.from({ length: 8 }, (_, i) => item(i)),
    });
    // one chunk claimed by hand, as a runner would
    const jobs = createJobService({ store: own.store });
    const claim = await jobs.claim(60_000);
    expect(claim?.job.id).toBe(r.json.job_id);
    const cancel = await acme('DELETE', r.json.status_url);
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ state: 'cancelled', deleted: false, total: 8 });
    // the chunk that was running ends after the cancel and adds nothing (a reader that stopped at the cancel's
    // answer has read every line); nothing else runs
    const runner = createHandler(own, { keys: ownKeys, jobs: { pollMs: 20 } });
    expect(
      await jobs.complete(
        claim!,
        claim!.items.map((_, i) => ({ index: claim!.first + i, success: true as const, result: { n: i } })),
      ),
    ).toBe(false);
    await new Promise((res) => setTimeout(res, 150));
    const after = await acme('GET', r.json.status_url);
    const { deleted: _, ...answered } = cancel.json;
    expect(after.json).toEqual(answered);
    expect(after.json).toMatchObject({ state: 'cancelled', done: 0 });
    expect(await allResults(acme, r.json.results_url, 10)).toEqual([]);
    const gone = await acme('DELETE', r.json.status_url);
    expect(gone.json).toEqual({ success: true, job_id: r.json.job_id, deleted: true });
    expect((await acme('GET', r.json.status_url)).status).toBe(404);
    expect((await own.store.scan(`job-result/${r.json.job_id}/`)).length).toBe(0);
    expect((await own.store.scan('job')).length).toBe(0); // nothing of the job is left
    await stopJobs(runner);
    own.dispose();
  });
});

describe('restart', () => {
  it('a job submitted before a restart is finished by the next process on the same file store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-jobs-'));
    dirs.push(dir);
    const e1 = await createEngine({ store: await openFileStore(dir) });
    await e1.addDataset({ id: 'licences' }, [{ id: 'MIT', text: MIT }]);
    const k1 = new KeyStore(e1.store);
    const h1 = createHandler(e1, { keys: k1, jobs: { run: false, chunkItems: 4 } });
    const key = (await k1.createKey({ account: 'acme', plan: 'pro', scopes: ['analyze'] })).key;
    const post = await h1(
      new Request('http://api.test/api/v1/jobs', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'scan',
          items: Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, text: MIT })),
        }),
      }),
    );
    expect(post.status).toBe(202);
    const { status_url, results_url } = await post.json();
    await e1.store.close();
    e1.dispose();

    const e2 = await createEngine({ store: await openFileStore(dir) });
    await e2.addDataset({ id: 'licences' }, [{ id: 'MIT', text: MIT }]);
    const h2 = createHandler(e2, { keys: new KeyStore(e2.store), jobs: { pollMs: 20 } });
    const call = callWithKey(h2, key);
    const done = await finished(call, status_url);
    expect(done).toMatchObject({ state: 'done', done: 10, failed: 0 });
    const results = await allResults(call, results_url, 3);
    expect(results.map((x) => x.result.id)).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`));
    await stopJobs(h2);
    await e2.store.close();
    e2.dispose();
  }, 60_000);
});

describe('the TypeScript client', () => {
  it('createJob, getJob, jobResults (every line, waiting while the job runs), cancelJob', async () => {
    const handler = createHandler(engine, { keys, jobs: { pollMs: 20, chunkItems: 2 } });
    const key = (await keys.createKey({ account: 'client-co', plan: 'pro', scopes: ['analyze'] })).key;
    const tp = createClient({
      api_key: key,
      base_url: 'http://api.test',
      fetch: (input, init) => handler(new Request(input, init)),
    });
    const items = Array.from({ length: 7 }, (_, i) => ({ id: `o${i}`, text: i === 3 ? MIT : 'plain words' }));
    const job = await tp.createJob({ type: 'scan', items, options: { min_words: 10 } });
    expect(job).toMatchObject({ type: 'scan', total: 7 });
    const lines = [];
    for await (const line of tp.jobResults(job.job_id, { limit: 3, pollMs: 10 })) lines.push(line);
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const hit = lines[3];
    expect(hit.success && (hit.result.hits as unknown[]).length).toBeGreaterThan(0);
    expect((await tp.getJob(job.job_id)).state).toBe('done');
    expect(await tp.cancelJob(job.job_id)).toMatchObject({ job_id: job.job_id, deleted: true });
    await expect(tp.getJob(job.job_id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await stopJobs(handler);
  });
});
