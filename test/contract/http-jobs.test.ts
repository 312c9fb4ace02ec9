/**
 * Background analyses over HTTP: `POST /api/v1/attribution/analyze` with `Prefer: respond-async` submits a one-item
 * `analyze` job to the job store and answers 202 with it; the job is polled at `GET /api/v1/jobs/{job_id}` (and at
 * its alias `GET /api/v1/attribution/jobs/{job_id}`) by the account that started it and no other (404); its one
 * result line is the analysis the synchronous request answers — the same JSON, byte for byte, but for the analysis's
 * own id and time; a failed analysis is a failed item with the error the synchronous request answers; a multipart
 * upload goes to the job as the same bytes; a job submitted before a restart is finished by the next process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, ROUTES, type Handler } from '../../src/http/index.js';
import { prefersAsync } from '../../src/http/routes/jobs.js';
import { openFileStore } from '../../src/store/node.js';
import { buildDocx } from '../fixtures/documents.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { type Call, keyedCall } from '../fixtures/http/keyed-call.js';

const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
  'documentation files (the "Software"), to deal in the Software without restriction, including without ' +
  'limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the ' +
  'Software, and to permit persons to whom the Software is furnished to do so';
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

let engine: Engine;
let keys: KeyStore;
const handlers: Handler[] = [];
const dirs: string[] = [];

/** A handler with a job runner beside it, stopped after the tests. */
function serving(e: Engine = engine): Handler {
  const h = createHandler(e, { keys: e === engine ? keys : new KeyStore(e.store), jobs: { pollMs: 20 } });
  handlers.push(h);
  return h;
}

/** A caller of `handler` with the key of `account` (a body that is FormData goes as a multipart upload). */
const caller = (handler: Handler, account: string, ks = keys): Promise<Call> => keyedCall(handler, ks, account);

const ASYNC = { prefer: 'respond-async' };
const TEXT = { content: MIT, content_type: 'text' };

/** Polls the job until it is finished. */
async function settled(call: Call, statusUrl: string): Promise<Record<string, any>> {
  // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
  for (;;) {
    const s = await call('GET', statusUrl);
    expect(s.status).toBe(200);
    if (['done', 'failed', 'cancelled'].includes(s.json.state)) return s.json;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The one result line of a finished one-item job. */
async function resultLine(call: Call, job: Record<string, any>): Promise<Record<string, any>> {
  const r = await call('GET', job.results_url);
  expect(r.status).toBe(200);
  const lines = r.text.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

/** An analysis's JSON with its own id and time blanked: what two analyses of the same request share. */
const sameAnalysis = (text: string) =>
  text.replace(/"an_[0-9a-f]{32}"/g, '"an_"').replace(/"created_at":"[^"]+"/, '"created_at":""');

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'licences' }, [{ id: 'MIT', text: `Copyright (c) <year> <holder>\n\n${MIT}` }]);
  keys = new KeyStore(engine.store);
}, 60_000);
afterAll(async () => {
  for (const h of handlers) await stopJobs(h);
  await engine?.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('Prefer: respond-async', () => {
  it('answers 202 with a one-item analyze job whose result is the synchronous answer, byte for byte', async () => {
    const acme = await caller(serving(), 'acme');
    const body = { content: `Our terms.\n\n${MIT}\n`, content_type: 'text' };
    const r = await acme('POST', '/api/v1/attribution/analyze', body, ASYNC);
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({
      success: true,
      type: 'analyze',
      total: 1,
      job_id: expect.stringMatching(/^job_[0-9a-f]{32}$/),
    });
    expect(r.json.status_url).toBe(`/api/v1/jobs/${r.json.job_id}`);
    expect(r.json.results_url).toBe(`/api/v1/jobs/${r.json.job_id}/results`);
    expect(r.headers.get('location')).toBe(r.json.status_url);
    expect(r.headers.get('preference-applied')).toBe('respond-async');

    const done = await settled(acme, r.json.status_url);
    expect(done).toMatchObject({ success: true, job_id: r.json.job_id, state: 'done', done: 1, failed: 0 });
    // the alias of the first background analyses reads the same job, in the same status model
    const alias = await acme('GET', `/api/v1/attribution/jobs/${r.json.job_id}`);
    expect(alias.status).toBe(200);
    expect(alias.json).toEqual(done);

    const line = await resultLine(acme, done);
    expect(line).toMatchObject({ index: 0, success: true });
    const sync = await acme('POST', '/api/v1/attribution/analyze', body);
    expect(sync.status).toBe(200);
    const fromJob = JSON.stringify({ success: true, ...line.result });
    expect(sameAnalysis(fromJob)).toBe(sameAnalysis(sync.text));
    expect(line.result.matches[0]).toMatchObject({ dataset_id: 'licences', document_id: 'MIT' });
    // and it is stored as every analysis is
    const stored = await acme('GET', `/api/v1/attribution/analyses/${line.result.analysis_id}`);
    expect(stored.status).toBe(200);
    expect(stored.json.matches).toEqual(line.result.matches);
  });

  it('takes a multipart upload: the file goes to the job as the same bytes', async () => {
    const acme = await caller(serving(), 'acme');
    const docx = buildDocx([{ title: 'Terms', text: MIT }]);
    const form = () => {
      const f = new FormData();
      f.set('file', new Blob([docx as Uint8Array<ArrayBuffer>]), 'terms.docx');
      return f;
    };
    const r = await acme('POST', '/api/v1/attribution/analyze', form(), ASYNC);
    expect(r.status).toBe(202);
    const line = await resultLine(acme, await settled(acme, r.json.status_url));
    const sync = await acme('POST', '/api/v1/attribution/analyze', form());
    expect(sync.status).toBe(200);
    expect(sameAnalysis(JSON.stringify({ success: true, ...line.result }))).toBe(sameAnalysis(sync.text));
  });

  it("is the account's: another account's poll and read are 404, as for an unknown id", async () => {
    const handler = serving();
    const acme = await caller(handler, 'acme');
    const globex = await caller(handler, 'globex');
    const r = await acme('POST', '/api/v1/attribution/analyze', TEXT, ASYNC);
    expect(r.status).toBe(202);
    const alias = `/api/v1/attribution/jobs/${r.json.job_id}`;
    for (const url of [r.json.status_url, alias]) expect((await globex('GET', url)).json.error.code).toBe('NOT_FOUND');
    const done = await settled(acme, r.json.status_url);
    expect((await globex('GET', done.results_url)).status).toBe(404);
    expect((await acme('GET', `/api/v1/attribution/jobs/job_${'0'.repeat(32)}`)).status).toBe(404);
    // another handler on the same store (another process) reads the same job
    const elsewhere = await caller(serving(), 'acme');
    expect((await elsewhere('GET', alias)).json).toMatchObject({ job_id: r.json.job_id, state: 'done' });
  });

  it('a failed analysis is a failed item with the error the request answers without the preference', async () => {
    const acme = await caller(serving(), 'acme');
    const broken = buildDocx([{ title: 'Terms', text: MIT }]).subarray(0, 300);
    const body = { content: base64(broken), content_encoding: 'base64', content_type: 'docx' };
    const sync = await acme('POST', '/api/v1/attribution/analyze', body);
    expect(sync.status).toBe(422);
    const r = await acme('POST', '/api/v1/attribution/analyze', body, ASYNC);
    expect(r.status).toBe(202);
    const job = await settled(acme, r.json.status_url);
    expect(job).toMatchObject({ state: 'done', done: 1, failed: 1 });
    expect(await resultLine(acme, job)).toEqual({
      index: 0,
      success: false,
      error: { code: sync.json.error.code, message: sync.json.error.message },
    });
    // a request refused by its checks is refused before any job: 422, as without the preference
    const invalid = await acme('POST', '/api/v1/attribution/analyze', { content: '' }, ASYNC);
    expect(invalid.status).toBe(422);
  });

  it('a job submitted before a restart is finished by the next process on the same file store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-async-'));
    dirs.push(dir);
    const first = await createEngine({ store: await openFileStore(dir) });
    await first.addDataset({ id: 'licences' }, [{ id: 'MIT', text: MIT }]);
    const firstKeys = new KeyStore(first.store);
    // no runner in the first process: it stops before the job runs
    const accepting = createHandler(first, { keys: firstKeys, jobs: { run: false } });
    const r = await (await caller(accepting, 'acme', firstKeys))('POST', '/api/v1/attribution/analyze', TEXT, ASYNC);
    expect(r.status).toBe(202);
    await first.store.close();
    first.dispose();

    const second = await createEngine({ store: await openFileStore(dir) });
    const acme = await caller(serving(second), 'acme', new KeyStore(second.store));
    const line = await resultLine(acme, await settled(acme, `/api/v1/attribution/jobs/${r.json.job_id}`));
    expect(line.success).toBe(true);
    const sync = await acme('POST', '/api/v1/attribution/analyze', TEXT);
    expect(sameAnalysis(JSON.stringify({ success: true, ...line.result }))).toBe(sameAnalysis(sync.text));
    await stopJobs(handlers.pop()!);
    await second.store.close();
    second.dispose();
  });

  it('reads the Prefer header as RFC 7240 does, and documents the 202 and the status alias', () => {
    const req = (prefer: string) => new Request('http://x', { headers: { prefer } });
    expect(prefersAsync(req('respond-async'))).toBe(true);
    expect(prefersAsync(req('wait=10, Respond-Async'))).toBe(true);
    expect(prefersAsync(req('respond-async; foo=bar'))).toBe(true);
    expect(prefersAsync(req('return=minimal'))).toBe(false);
    expect(prefersAsync(req('respond-asynchronously'))).toBe(false);
    const analyze = ROUTES.find((r) => r.operationId === 'analyze')!;
    expect(analyze.status).toEqual([200, 202]);
    expect(analyze.description).toContain('Prefer: respond-async');
    const job = ROUTES.find((r) => r.operationId === 'getAnalysisJob')!;
    expect(job).toMatchObject({ method: 'GET', path: '/api/v1/attribution/jobs/{job_id}', scope: 'analyze' });
    expect(ROUTES.indexOf(job)).toBe(ROUTES.findIndex((r) => r.operationId === 'getAnalysis') + 1);
  });
});
