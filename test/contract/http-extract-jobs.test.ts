/**
 * Extract jobs over HTTP (`POST /api/v1/jobs` with `type: "extract"`) against the fixture chat server on 127.0.0.1
 * (test/fixtures/memorised-chat-server.ts): the item's model key reaches the model service and is never stored; the
 * model host is checked at submission (422 naming `items[i].model.base_url`); a process started again over the same
 * store holds no key, so the item fails naming `model.api_key` without a call; the job resubmitted with the key replays
 * every call answered before from the store's journal, and no request reaches the server twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { createHeldJobModels, createJobService, startJobRunner, type JobStore } from '../../src/library.js';
import { createHandler as plainHandler } from '../../src/http/index.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import type { GenerateOptions } from '../../src/models/types.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import { memoryExtractionJournal } from '../../src/services/memorization/extraction-journal.js';
import { verifyEvidenceBundle } from '../../src/services/report/index.js';
import { HOLDER_TTL_MS } from '../../src/services/jobs/hand-back.js';
import { countWords } from '../../src/util/space.js';
import { keyedCall, type Call } from '../fixtures/http/keyed-call.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const SECRET = 'sk-fixture-secret-7f3a9c';
const { text, words } = syntheticWork(2, 600, 11);
let engine: Engine;
let keys: KeyStore;
let server: MemorisedServer;

const caller = (handler: Handler, account: string, keyStore = keys): Promise<Call> =>
  keyedCall(handler, keyStore, account);

async function finished(call: Call, url: string): Promise<Record<string, any>> {
  // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
  for (;;) {
    const s = await call('GET', url);
    expect(s.status).toBe(200);
    if (['done', 'failed', 'cancelled'].includes(s.json.state)) return s.json;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function results(call: Call, url: string): Promise<Array<Record<string, any>>> {
  const r = await call('GET', `${url}?limit=100`);
  expect(r.status).toBe(200);
  return r.text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Every key and value the store holds under `prefix`, as text (bytes as Latin-1: msgpacked strings stay readable). */
async function storedText(prefix = ''): Promise<string> {
  const bytes = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v);
  return JSON.stringify(await engine.store.scan(prefix), (_k, v) => bytes(v));
}

const extractItem = (budget: number) => ({
  text,
  model: { base_url: server.baseUrl, model: 'fixture-memo-1', api: 'chat', api_key: SECRET },
  budget_calls: budget,
  prompt_variants: 1,
  concurrency: 1,
});

beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  server = await startMemorisedServer({ words, held: [150, 700] });
}, 60_000);
afterAll(async () => {
  await server?.close();
  engine?.dispose();
});

describe('extract jobs over HTTP', () => {
  it('refuses a private model host unless the server allows it, naming the field; no call made, no key stored', async () => {
    const handler = createHandler(engine, { keys, jobs: { run: false } });
    const acme = await caller(handler, 'acme-refused');
    const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [extractItem(10)] });
    expect(r.status).toBe(422);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(r.json.error.message).toContain('items[0].model.base_url');
    const both = await acme('POST', '/api/v1/jobs', {
      type: 'extract',
      items: [{ ...extractItem(10), work_id: 'wk_00000000000000000000000000000000' }],
    });
    expect(both.status).toBe(422);
    expect(server.requests()).toBe(0);
    expect(await storedText()).not.toContain(SECRET);
  });

  it('runs with the key, stores none, and a restart replays every answered call instead of asking it again', async () => {
    const first = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    const acme = await caller(first, 'acme');
    const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [extractItem(40)] });
    expect(r.status).toBe(202);
    expect(r.text).not.toContain(SECRET);
    expect(r.json).toMatchObject({ type: 'extract', total: 1 });
    const done = await finished(acme, r.json.status_url);
    expect(done).toMatchObject({ state: 'done', done: 1, failed: 0 });
    const [line] = await results(acme, r.json.results_url);
    expect(line.success).toBe(true);
    const one = line.result;
    const made = one.calls as number;
    expect(made).toBeGreaterThan(4);
    expect(one.nv_recall).toBeGreaterThan(0);
    // a request the run asks twice (a probe a loop meets again) is answered once, then from the journal
    const asked = made - (one.replayed_calls as number);
    expect(server.bodies()).toHaveLength(asked);
    expect(new Set(server.bodies()).size).toBe(asked);
    // the key went to the model service on every call, and nowhere into the store or the answers
    expect(new Set(server.authorizations())).toEqual(new Set([`Bearer ${SECRET}`]));
    expect(JSON.stringify(line)).not.toContain(SECRET);
    expect(await storedText()).not.toContain(SECRET);
    await stopJobs(first);

    // a process started again over the same store holds no model: a job accepted before it fails naming the key
    const parked = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
    const p = await (await caller(parked, 'acme'))('POST', '/api/v1/jobs', {
      type: 'extract',
      items: [extractItem(40)],
    });
    expect(p.status).toBe(202);
    // the stored item names the service and the held model, not the key
    const items = await storedText(`job-items/${p.json.job_id}/`);
    expect(items).toContain(server.baseUrl);
    expect(items).toContain('hm_');
    expect(items).not.toContain(SECRET);
    const second = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    const acme2 = await caller(second, 'acme');
    const lost = await finished(acme2, p.json.status_url);
    expect(lost).toMatchObject({ state: 'done', done: 1, failed: 1 });
    const [gone] = await results(acme2, p.json.results_url);
    expect(gone.error.code).toBe('INVALID_INPUT');
    expect(gone.error.message).toContain('model.api_key');
    expect(gone.error.message).toContain('resubmit');
    expect(server.bodies()).toHaveLength(asked);

    // resubmitted with the key: every call of the first job comes from the journal, none reaches the server again
    const again = await acme2('POST', '/api/v1/jobs', { type: 'extract', items: [extractItem(40)] });
    expect(again.status).toBe(202);
    await finished(acme2, again.json.status_url);
    const [line2] = await results(acme2, again.json.results_url);
    expect(line2.success).toBe(true);
    expect(line2.result.calls).toBe(made);
    expect(line2.result.replayed_calls).toBe(made);
    expect(line2.result.record.transcript_sha256).toBe(one.record.transcript_sha256);
    expect(line2.result.nv_recall).toBe(one.nv_recall);
    expect(server.bodies()).toHaveLength(asked);

    // another account's job makes its own calls (the journal is the account's), each once
    const other = await caller(second, 'other');
    const theirs = await other('POST', '/api/v1/jobs', { type: 'extract', items: [extractItem(40)] });
    await finished(other, theirs.json.status_url);
    const [line3] = await results(other, theirs.json.results_url);
    expect(line3.result.replayed_calls).toBe(one.replayed_calls);
    expect(server.bodies()).toHaveLength(2 * asked);
    expect(await storedText()).not.toContain(SECRET);
    await stopJobs(second);
  }, 120_000);

  it("bundles the account's extractions of an analysed text: the bundle verifies offline with their transcripts", async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    const acme = await caller(handler, 'acme-bundle');
    const job = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [extractItem(30)] });
    expect(job.status).toBe(202);
    await finished(acme, job.json.status_url);
    const [line] = await results(acme, job.json.results_url);
    expect(line.success).toBe(true);
    const analysed = await acme('POST', '/api/v1/attribution/analyze', { content: text, content_type: 'text' });
    expect(analysed.status, analysed.text.slice(0, 300)).toBe(200);
    const id = analysed.json.analysis_id as string;
    const bundle = await acme('GET', `/api/v1/attribution/analyses/${id}/bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.json.model_extractions).toHaveLength(1);
    expect(bundle.json.model_extractions[0].record.transcript_sha256).toBe(line.result.record.transcript_sha256);
    const key = (await acme('GET', '/api/v1/report-key')).json;
    const v = await verifyEvidenceBundle(bundle.text, { publicKey: key, text });
    expect(v.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.valid).toBe(true);
    expect(v.checks.map((c) => c.name)).toContain('model_extraction:0');
    // one call's answer digest changed: the transcript no longer hashes to the digest signed (nor the signature)
    const c0 = bundle.json.model_extractions[0].record.calls[0];
    const forged = bundle.text.replace(c0.answer_sha256, '0'.repeat(64));
    const bad = await verifyEvidenceBundle(forged, { publicKey: key, text });
    expect(bad.valid).toBe(false);
    expect(bad.checks.find((c) => c.name === 'model_extraction:0')?.ok).toBe(false);
    // the report draws the strip; another account's analysis of the same text bundles none of acme's extractions
    const page = await acme('GET', `/api/v1/attribution/analyses/${id}/report`);
    expect(page.text).toContain('What models wrote out');
    const other = await caller(handler, 'globex-bundle');
    const theirs = await other('POST', '/api/v1/attribution/analyze', { content: text, content_type: 'text' });
    const b2 = await other('GET', `/api/v1/attribution/analyses/${theirs.json.analysis_id}/bundle`);
    expect(b2.status).toBe(200);
    expect(b2.json.model_extractions).toBeUndefined();

    // the extractions route answers the same records as the bundle, without it; only the account's own
    const mine = await acme('GET', `/api/v1/attribution/analyses/${id}/extractions`);
    expect(mine.status).toBe(200);
    expect(mine.json).toMatchObject({ success: true, analysis_id: id, text_sha256: bundle.json.text_sha256 });
    expect(mine.json.extractions).toEqual(bundle.json.model_extractions);
    const theirsRead = await other('GET', `/api/v1/attribution/analyses/${theirs.json.analysis_id}/extractions`);
    expect(theirsRead.status).toBe(200);
    expect(theirsRead.json.text_sha256).toBe(bundle.json.text_sha256);
    expect(theirsRead.json.extractions).toEqual([]);
    // another account's analysis, and an id no account has: 404 with the JSON error body
    for (const [who, path] of [
      [other, `/api/v1/attribution/analyses/${id}/extractions`],
      [acme, '/api/v1/attribution/analyses/an_00000000000000000000000000000000/extractions'],
    ] as const) {
      const r = await who('GET', path);
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
      expect(r.text).not.toContain(line.result.record.transcript_sha256);
    }
    await stopJobs(handler);
  }, 120_000);

  it('charges an extract item a plan unit per 100 calls of its budget, at submission, all or none', async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
    const asked = server.requests();
    const key = (await keys.createKey({ account: 'acme-units', plan: 'free', scopes: ['analyze'] })).key;
    const post = async (items: unknown[]) => {
      const res = await handler(
        new Request('http://api.test/api/v1/jobs', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'extract', items }),
        }),
      );
      return { status: res.status, json: (await res.json()) as Record<string, any> };
    };
    // Free: 100 a day. Four items of 2,000 calls and one of 1,000: 90 units
    const big = extractItem(2000);
    expect((await post([big, big, big, big, extractItem(1000)])).status).toBe(202);
    // one more of 2,000 calls (20 units) passes the 10 left: refused whole
    const refused = await post([big]);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
    expect(refused.json.error.message).toContain('1 items (20 units)');
    // one of 1,000 calls is 10 units: it fits, and then nothing more does
    expect((await post([extractItem(1000)])).status).toBe(202);
    expect((await post([extractItem(1)])).status).toBe(429);
    expect(server.requests()).toBe(asked);
  });

  it('holds the models of a job until it is cancelled, and none for a refused submission', async () => {
    const jobModels = createHeldJobModels();
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false, jobModels } });
    const acme = await caller(handler, 'acme-held');
    const bad = await acme('POST', '/api/v1/jobs', {
      type: 'extract',
      items: [
        extractItem(10),
        { ...extractItem(10), model: { base_url: 'http://user:pw@127.0.0.1:9/v1', model: 'm' } },
      ],
    });
    // the first item's model was built, the second's refused (credentials in the URL): nothing held
    expect(bad.status).toBe(422);
    expect(bad.json.error.message).toContain('items[1].model.base_url');
    expect(jobModels.size).toBe(0);
    const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [extractItem(10), extractItem(12)] });
    expect(r.status).toBe(202);
    expect(jobModels.size).toBe(2);
    const cancelled = await acme('DELETE', r.json.status_url);
    expect(cancelled.status).toBe(200);
    expect(jobModels.size).toBe(0);
  });
});

describe("an extraction's signal (a job item's time limit, cancel or stop)", () => {
  it('aborts the call in flight and makes no call once aborted; the calls answered before are journaled and replayed', async () => {
    const own = await startMemorisedServer({ words, held: [150, 700] });
    try {
      const model = createOpenAICompatibleModel({ baseUrl: own.baseUrl, model: 'fixture-memo-1', api: 'chat' });
      const stop = new AbortController();
      let made = 0;
      const stopping = {
        ...model,
        generateCall: (prompt: string, o: GenerateOptions) => {
          if (++made === 3) stop.abort(new Error('stopped'));
          return model.generateCall!(prompt, o);
        },
      };
      const journal = memoryExtractionJournal();
      const request = { text, budget_calls: 40, prompt_variants: 1, concurrency: 1, journal } as const;
      await expect(
        runWorkExtraction(engine.store, { ...request, model: stopping, signal: stop.signal }),
      ).rejects.toThrow('stopped');
      // the third call was aborted as it went out: the server may have read it, but it answered nothing kept
      expect(own.requests()).toBeLessThanOrEqual(3);
      expect(journal.size).toBe(2);
      const resumed = await runWorkExtraction(engine.store, { ...request, model });
      expect(resumed.replayed_calls).toBeGreaterThanOrEqual(2);
      // a request answered once is asked again only if its first answer was aborted
      expect(new Set(own.bodies()).size).toBeGreaterThanOrEqual(own.bodies().length - 1);
      await expect(
        runWorkExtraction(engine.store, { ...request, model, signal: 'no' as unknown as AbortSignal }),
      ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await expect(
        runWorkExtraction(engine.store, { ...request, model, stop: 'no' as unknown as AbortSignal }),
      ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    } finally {
      await own.close();
    }
  });

  it('stop lets the calls in flight finish and be journaled, then ends; a run with the journal asks none again', async () => {
    const own = await startMemorisedServer({ words, held: [150, 700] });
    try {
      const model = createOpenAICompatibleModel({ baseUrl: own.baseUrl, model: 'fixture-memo-1', api: 'chat' });
      const stop = new AbortController();
      let made = 0;
      const stopping = {
        ...model,
        generateCall: (prompt: string, o: GenerateOptions) => {
          if (++made === 3) stop.abort(new Error('end of slice'));
          return model.generateCall!(prompt, o);
        },
      };
      const journal = memoryExtractionJournal();
      const request = { text, budget_calls: 40, prompt_variants: 1, concurrency: 1, journal } as const;
      await expect(runWorkExtraction(engine.store, { ...request, model: stopping, stop: stop.signal })).rejects.toThrow(
        'end of slice',
      );
      expect(own.requests()).toBe(3);
      expect(journal.size).toBe(3);
      const resumed = await runWorkExtraction(engine.store, { ...request, model });
      expect(resumed.replayed_calls).toBeGreaterThanOrEqual(3);
      expect(new Set(own.bodies()).size).toBe(own.bodies().length);
    } finally {
      await own.close();
    }
  });
});

describe('extract jobs on a store several processes share', () => {
  it('a runner without the model gives the item back to the live process that holds it; with none alive it fails at once', async () => {
    const own = await startMemorisedServer({ words, held: [150, 700] });
    // a store of its own: no job of the other tests in it
    const shared = await createEngine();
    const sharedKeys = new KeyStore(shared.store);
    const store = shared.store;
    // process A accepted the job and holds its model; its runner beats in the store but looks for work only when woken
    const modelsA = createHeldJobModels();
    const runnerA = startJobRunner(shared, { pollMs: 60_000, jobModels: modelsA });
    const handlerA = plainHandler(shared, {
      keys: sharedKeys,
      allowPrivateModelHosts: true,
      jobs: createJobService({ store }),
      jobModels: modelsA,
    });
    // process B runs the same store's jobs, holds no model, and polls often
    const base = createJobService({ store });
    const claimedByB: string[] = [];
    const jobsB = new Proxy(base, {
      get(t, k) {
        if (k === 'claim')
          return async (...a: Parameters<JobStore['claim']>) => {
            const c = await t.claim(...a);
            if (c) claimedByB.push(c.job.id);
            return c;
          };
        const v = (t as unknown as Record<PropertyKey, unknown>)[k];
        return typeof v === 'function' ? v.bind(t) : v;
      },
    }) as JobStore;
    const runnerB = startJobRunner(shared, { pollMs: 10, jobs: jobsB, jobModels: createHeldJobModels() });
    try {
      const acme = await caller(handlerA, 'acme-two', sharedKeys);
      const item = { ...extractItem(30), model: { ...extractItem(30).model, base_url: own.baseUrl } };
      // A's beat reads as alive for HOLDER_TTL_MS (15 s) past it, not for a chunk lease (60 s): killed, A reads as gone
      // within 15 s
      const beatA = (await store.get(`extract-model-holder/${modelsA.id}`)) as { until: number };
      expect(beatA.until - Date.now()).toBeGreaterThan(0);
      expect(beatA.until - Date.now()).toBeLessThanOrEqual(HOLDER_TTL_MS);
      const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [item] });
      expect(r.status).toBe(202);
      const id = r.json.job_id as string;
      for (let i = 0; i < 500 && !claimedByB.includes(id); i++) await new Promise((w) => setTimeout(w, 10));
      expect(claimedByB).toContain(id);
      // B gave it back: no result, no call
      const waiting = (await acme('GET', r.json.status_url)).json;
      expect(waiting).toMatchObject({ done: 0, failed: 0 });
      expect(['queued', 'running']).toContain(waiting.state);
      expect(own.requests()).toBe(0);
      runnerA.wake();
      const done = await finished(acme, r.json.status_url);
      expect(done).toMatchObject({ state: 'done', done: 1, failed: 0 });
      const [line] = await results(acme, r.json.results_url);
      expect(line.success).toBe(true);
      expect(line.result.calls).toBeGreaterThan(4);
      expect(new Set(own.bodies()).size).toBe(own.bodies().length);

      // A's runner stops (its beat goes): B claims the next job A accepted and fails it at once, naming the key
      await runnerA.stop();
      const t0 = Date.now();
      const r2 = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [item] });
      const lost = await finished(acme, r2.json.status_url);
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect(lost).toMatchObject({ state: 'done', done: 1, failed: 1 });
      const [gone] = await results(acme, r2.json.results_url);
      expect(gone.error.code).toBe('INVALID_INPUT');
      expect(gone.error.message).toContain('model.api_key');
      expect(gone.error.message).toContain('resubmit');
      expect(claimedByB).toContain(r2.json.job_id);
      expect(own.bodies()).toHaveLength(new Set(own.bodies()).size);
    } finally {
      await runnerA.stop();
      await runnerB.stop();
      await own.close();
      shared.dispose();
    }
  }, 120_000);
});

describe('an extract item across time slices', () => {
  it('completes a book-length extraction past the item time limit (3 s), slice after slice, with no call repeated', async () => {
    const book = syntheticWork(12, 500, 23);
    const own = await startMemorisedServer({ words: book.words, held: [400, 4400], delayMs: 80 });
    const item = {
      text: book.text,
      model: { base_url: own.baseUrl, model: 'fixture-memo-1', api: 'chat', api_key: SECRET },
      budget_calls: 400,
      prompt_variants: 1,
      concurrency: 1,
    };
    const sliced = createHandler(engine, {
      keys,
      allowPrivateModelHosts: true,
      jobs: { pollMs: 20, itemTimeoutMs: 3000 },
    });
    try {
      const acme = await caller(sliced, 'acme-slices');
      const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [item] });
      expect(r.status).toBe(202);
      const done = await finished(acme, r.json.status_url);
      const [line] = await results(acme, r.json.results_url);
      expect(line.success, JSON.stringify(line.error)).toBe(true);
      expect(done).toMatchObject({ state: 'done', done: 1, failed: 0 });
      const x = line.result;
      expect(x.stopped).toBe('done');
      expect(x.nv_recall).toBeGreaterThan(0.3);
      // the calls of the earlier slices came back from the journal; no request reached the model twice
      const asked = own.bodies();
      expect(new Set(asked).size).toBe(asked.length);
      expect(x.replayed_calls).toBeGreaterThan(0);
      // more calls than one slice holds: ≥ 2 slices of < 3 s at ≥ 80 ms a call
      expect(asked.length).toBeGreaterThan(38);
      expect(asked.length).toBeLessThanOrEqual(x.calls);
      // the same run as one without a limit (a fresh account: its own journal)
      await stopJobs(sliced);
      const whole = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
      const other = await caller(whole, 'acme-whole');
      const r2 = await other('POST', '/api/v1/jobs', { type: 'extract', items: [item] });
      await finished(other, r2.json.status_url);
      const [line2] = await results(other, r2.json.results_url);
      // (the answers' bodies differ: the server numbers its completions) the same requests in the same order
      const requestKeys = (calls: Array<{ key: string }>) => calls.map((c) => c.key);
      expect(requestKeys(line2.result.record.calls)).toEqual(requestKeys(x.record.calls));
      expect(line2.result.blocks.map((b: { start: number; end: number }) => [b.start, b.end])).toEqual(
        x.blocks.map((b: { start: number; end: number }) => [b.start, b.end]),
      );
      expect(line2.result.nv_recall).toBe(x.nv_recall);
      // the sliced run answered from its journal what its earlier slices asked: more than one run's own repeats
      expect(x.replayed_calls).toBeGreaterThan(line2.result.replayed_calls);
      await stopJobs(whole);
    } finally {
      await stopJobs(sliced);
      await own.close();
    }
  }, 180_000);
});

describe('an extract job against a hostile model service (the attack round: H2, M2)', () => {
  it('8 MiB answers and model names: the job result and the journal stay small; requests ≤ budget_calls', async () => {
    let requests = 0;
    const big = 'M'.repeat(8 << 20);
    const hostile = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        requests++;
        const prompt = String(JSON.parse(body).messages.at(-1).content);
        // in turn: an 8 MiB answer, a good one, an 8 MiB model name, a good one (a 4,000-character name), a 502
        const mode = requests % 5;
        const tail = prompt.split(/\s+/).slice(-20).join(' ');
        const content = mode === 0 ? `${tail} ${'zq '.repeat((8 << 20) / 3)}` : tail;
        const name = mode === 2 ? big : mode === 3 ? 'M'.repeat(4000) : 'm';
        const answer = { model: name, choices: [{ index: 0, message: { role: 'assistant', content } }] };
        res.writeHead(mode === 4 ? 502 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    const port = (hostile.address() as { port: number }).port;
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    try {
      const dave = await caller(handler, 'dave-hostile');
      const item = {
        text,
        model: { base_url: `http://127.0.0.1:${port}/v1`, model: 'm', api: 'chat' },
        budget_calls: 20,
        concurrency: 1,
      };
      const r = await dave('POST', '/api/v1/jobs', { type: 'extract', items: [item] });
      expect(r.status).toBe(202);
      await finished(dave, r.json.status_url);
      const page = await dave('GET', `${r.json.results_url}?limit=100`);
      expect(page.text.length).toBeLessThan(1_000_000);
      const x = JSON.parse(page.text.split('\n')[0]).result;
      expect(x.calls).toBeGreaterThan(4);
      expect(x.reported_models.every((m: string) => m.length <= 256)).toBe(true);
      expect(requests).toBeLessThanOrEqual(20);
      const stored = await storedText('extraction-journal/dave-hostile');
      expect(stored).toContain('response'); // the answers that were within bounds are journaled
      expect(stored.length).toBeLessThan(2_000_000);
    } finally {
      await stopJobs(handler);
      await new Promise((r) => hostile.close(r));
    }
  }, 120_000);

  it("a book's words in a job's JSON are the words every door counts, its tokens named apart", async () => {
    // Julius Caesar's opening: 10,966 runs of non-space characters, 11,174 of the engine's word tokens
    const book = readFileSync(
      new URL('../fixtures/texts/gutenberg/shakespeare-caesar.txt', import.meta.url),
      'utf8',
    ).slice(0, 60_000);
    const own = await startMemorisedServer({ words: book.split(/\s+/).filter(Boolean), held: [1000, 1600] });
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    try {
      const acme = await caller(handler, 'acme');
      const model = { base_url: own.baseUrl, model: 'fixture-memo-1', api: 'chat' };
      const item = { model, budget_calls: 30, prompt_variants: 1, concurrency: 1 };
      const x = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [{ ...item, text: book }] });
      const a = await acme('POST', '/api/v1/jobs', {
        type: 'audit',
        items: [{ ...item, works: [{ id: 'caesar', text: book }] }],
      });
      expect([x.status, a.status]).toEqual([202, 202]);
      for (const r of [x, a])
        expect(await finished(acme, r.json.status_url)).toMatchObject({ state: 'done', failed: 0 });
      const [extracted] = await results(acme, x.json.results_url);
      expect(extracted.result).toMatchObject({ words: countWords(book), tokens: 11_174 });
      expect(extracted.result.words).toBe(10_966);
      const [audited] = await results(acme, a.json.results_url);
      expect(audited.result.works[0]).toMatchObject({ id: 'caesar', words: 10_966, tokens: 11_174 });
    } finally {
      await stopJobs(handler);
      await own.close();
    }
  }, 120_000);
});
