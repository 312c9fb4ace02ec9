/**
 * Background analyses over HTTP: `POST /api/v1/attribution/analyze` with `Prefer: respond-async` answers 202 with a
 * job, `GET /api/v1/attribution/jobs/{job_id}` reports it — the progress the analysis reports, then the stored
 * analysis's id — to the account that started it and to no other (404); an account's third running job is refused
 * with 429; a failed analysis is a failed job with the error the synchronous request answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type AnalyzeOptions, type AnalyzeRequest, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, ROUTES } from '../../src/http/index.js';
import { MAX_RUNNING_JOBS, prefersAsync } from '../../src/http/routes/jobs.js';
import { buildDocx } from '../fixtures/documents.js';

const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
  'documentation files (the "Software"), to deal in the Software without restriction, including without ' +
  'limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the ' +
  'Software, and to permit persons to whom the Software is furnished to do so';
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

type Call = (
  method: string,
  path: string,
  json?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; json: Record<string, any>; headers: Headers }>;

let engine: Engine;
let keys: KeyStore;

/** A caller of `handler` with the key of `account`. */
async function caller(handler: (r: Request) => Promise<Response>, account: string): Promise<Call> {
  const key = (await keys.createKey({ account, plan: 'pro', scopes: ['analyze'] })).key;
  return async (method, path, json, headers = {}) => {
    const res = await handler(
      new Request(`http://api.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: json === undefined ? undefined : JSON.stringify(json),
      }),
    );
    return { status: res.status, json: await res.json(), headers: res.headers };
  };
}

const ASYNC = { prefer: 'respond-async' };
const TEXT = { content: MIT, content_type: 'text' };

/** Polls the job until it is no longer running. */
async function settled(call: Call, statusUrl: string): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i++) {
    const s = await call('GET', statusUrl);
    expect(s.status).toBe(200);
    if (s.json.state !== 'running') return s.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${statusUrl} still running`);
}

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'licences' }, [{ id: 'MIT', text: `Copyright (c) <year> <holder>\n\n${MIT}` }]);
  keys = new KeyStore(engine.store);
}, 60_000);
afterAll(() => engine?.dispose());

describe('Prefer: respond-async', () => {
  it('answers 202 with a job; the job reports the stored analysis, which reads back as a synchronous one', async () => {
    const acme = await caller(createHandler(engine, { keys }), 'acme');
    const body = { content: `Our terms.\n\n${MIT}\n`, content_type: 'text' };
    const r = await acme('POST', '/api/v1/attribution/analyze', body, ASYNC);
    expect(r.status).toBe(202);
    expect(r.json).toEqual({
      success: true,
      job_id: expect.stringMatching(/^job_[0-9a-f]{32}$/),
      status_url: expect.any(String),
    });
    expect(r.json.status_url).toBe(`/api/v1/attribution/jobs/${r.json.job_id}`);
    expect(r.headers.get('location')).toBe(r.json.status_url);
    expect(r.headers.get('preference-applied')).toBe('respond-async');

    const done = await settled(acme, r.json.status_url);
    expect(done).toMatchObject({ success: true, job_id: r.json.job_id, state: 'done' });
    expect(done.result_url).toBe(`/api/v1/attribution/analyses/${done.analysis_id}`);
    // the analysis's own last report: done, no remote corpus searched
    expect(done.progress).toEqual({ phase: 'done', calls: 0, budget: 0, corpora: 0 });
    const stored = await acme('GET', done.result_url);
    expect(stored.status).toBe(200);
    const sync = await acme('POST', '/api/v1/attribution/analyze', body);
    expect(sync.status).toBe(200);
    expect(stored.json.matches).toEqual(sync.json.matches);
    expect(stored.json.matches[0]).toMatchObject({ dataset_id: 'licences', document_id: 'MIT' });
  });

  it("is the account's: another account's poll and read are 404, as for an unknown id", async () => {
    const handler = createHandler(engine, { keys });
    const acme = await caller(handler, 'acme');
    const globex = await caller(handler, 'globex');
    const r = await acme('POST', '/api/v1/attribution/analyze', TEXT, ASYNC);
    expect(r.status).toBe(202);
    const other = await globex('GET', r.json.status_url);
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe('NOT_FOUND');
    const done = await settled(acme, r.json.status_url);
    expect((await globex('GET', r.json.status_url)).status).toBe(404);
    expect((await globex('GET', done.result_url)).status).toBe(404);
    expect((await acme('GET', `/api/v1/attribution/jobs/job_${'0'.repeat(32)}`)).status).toBe(404);
    // another handler (another process) has a table of its own
    const elsewhere = await caller(createHandler(engine, { keys }), 'acme');
    expect((await elsewhere('GET', r.json.status_url)).status).toBe(404);
  });

  it(`refuses an account's job beyond ${MAX_RUNNING_JOBS} running with 429; other accounts are not held back`, async () => {
    // analyses held until released, each reporting progress as an engine with remote corpora does
    const held: Array<() => void> = [];
    const gated = new Proxy(engine, {
      get(target, key) {
        if (key === 'analyze')
          return async (request: AnalyzeRequest, options: AnalyzeOptions & { onProgress?: (p: unknown) => void }) => {
            const { onProgress, ...rest } = options;
            onProgress?.({ phase: 'remote', calls: 3, budget: 40, corpora: 2 });
            await new Promise<void>((resolve) => held.push(resolve));
            return target.analyze(request, rest);
          };
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const handler = createHandler(gated, { keys });
    const acme = await caller(handler, 'acme');
    const globex = await caller(handler, 'globex');
    const jobs = [];
    for (let i = 0; i < MAX_RUNNING_JOBS; i++) {
      const r = await acme(
        'POST',
        '/api/v1/attribution/analyze',
        { content: `${i} ${MIT}`, content_type: 'text' },
        ASYNC,
      );
      expect(r.status).toBe(202);
      jobs.push(r.json);
    }
    const running = await acme('GET', jobs[0].status_url);
    expect(running.json).toMatchObject({
      state: 'running',
      progress: { phase: 'remote', calls: 3, budget: 40, corpora: 2 },
    });
    expect(running.json.analysis_id).toBeUndefined();

    const refused = await acme('POST', '/api/v1/attribution/analyze', TEXT, ASYNC);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('running') });
    expect((await globex('POST', '/api/v1/attribution/analyze', TEXT, ASYNC)).status).toBe(202);

    // one finished: room for one more
    held.shift()!();
    const first = await settled(acme, jobs[0].status_url);
    expect(first).toMatchObject({ state: 'done', progress: { phase: 'done', calls: 3, budget: 40 } });
    const again = await acme('POST', '/api/v1/attribution/analyze', TEXT, ASYNC);
    expect(again.status).toBe(202);
    while (held.length) held.shift()!();
  });

  it('a failed analysis is a failed job with the error the request answers without the preference', async () => {
    const acme = await caller(createHandler(engine, { keys }), 'acme');
    const broken = buildDocx([{ title: 'Terms', text: MIT }]).subarray(0, 300);
    const body = { content: base64(broken), content_encoding: 'base64', content_type: 'docx' };
    const sync = await acme('POST', '/api/v1/attribution/analyze', body);
    expect(sync.status).toBe(422);
    const r = await acme('POST', '/api/v1/attribution/analyze', body, ASYNC);
    expect(r.status).toBe(202);
    const failed = await settled(acme, r.json.status_url);
    expect(failed).toMatchObject({
      state: 'failed',
      error: { code: sync.json.error.code, message: sync.json.error.message },
    });
    expect(failed.analysis_id).toBeUndefined();
    // a request refused by its checks is refused before any job: 422, as without the preference
    const invalid = await acme('POST', '/api/v1/attribution/analyze', { content: '' }, ASYNC);
    expect(invalid.status).toBe(422);
  });

  it('reads the Prefer header as RFC 7240 does, and documents the 202 and the status route', () => {
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
