/**
 * A job item is refused at submission for what its run would refuse it for, before anything is charged: for every
 * built-in type that checks more than its schema (analyze, score, extract, audit), and for an analysis sent with
 * `Prefer: respond-async`. Each refusal is the error the synchronous request answers (its code and sentence), names
 * the item, charges no unit, stores no job and calls no model. Before, `include_text` on text content and a call
 * budget whose result could not be held were accepted (202, charged — 10,000 units for one audit item) and then failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { keyedCall, type Call } from '../fixtures/http/keyed-call.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const { words } = syntheticWork(2, 150, 7);
const works = [
  { id: 'one.txt', text: words.slice(0, 150).join(' ') },
  { id: 'two.txt', text: words.slice(150, 300).join(' ') },
];
let engine: Engine;
let keys: KeyStore;
let server: MemorisedServer;
let handler: Handler;

beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  server = await startMemorisedServer({ words, held: [0, 150] });
  handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
}, 60_000);
afterAll(async () => {
  await stopJobs(handler);
  await server?.close();
  engine?.dispose();
});

const model = () => ({ base_url: server.baseUrl, model: 'fixture-memo-1', api: 'chat' });
/** What a score names besides its work. */
const SCORED = { target_model: 'meta/llama-7b', jurisdiction: 'US' };
/** Stands for {@link model} in the table (the server starts after the table is built). */
const MODEL = 'the fixture model';

/** What a refused submission left: the units left today (`RateLimit-Remaining`) and the jobs stored. */
async function trace(call: Call): Promise<[number, number]> {
  const list = await call('GET', '/api/v1/jobs');
  const left = Number(list.headers.get('ratelimit-remaining'));
  expect(left).toBeGreaterThan(0);
  return [left, (list.json as { jobs: unknown[] }).jobs.length];
}

describe('job submission checks', () => {
  it.each([
    [
      'analyze: include_text on text content',
      'analyze',
      { content: 'A plain text of a few words.', content_type: 'text', include_text: true },
      422,
      'items[0].include_text: goes with epub, pdf and docx',
    ],
    [
      'score: include_text on text content',
      'score',
      { ...SCORED, content: 'A plain text of a few words.', include_text: true },
      422,
      'items[0].include_text: goes with epub, pdf and docx',
    ],
    [
      'score: a work_hash the account does not have',
      'score',
      { ...SCORED, work_hash: `sha256:${'0'.repeat(64)}` },
      404,
      '',
    ],
    [
      'extract: a budget whose result could not be held',
      'extract',
      { text: works[0].text, model: MODEL, budget_calls: 1_000_000 },
      413,
      'items[0]: a result of budget_calls 1000000 on a work of',
    ],
    [
      'extract: a work too short for its prompt',
      'extract',
      { text: words.slice(0, 70).join(' '), model: MODEL, prefix_words: 60 },
      422,
      'items[0]: the work has 70 words',
    ],
    [
      'audit: a budget whose result could not be held (two 150-word works)',
      'audit',
      { works, model: MODEL, budget_calls: 1_000_000 },
      413,
      'items[0]: work "one.txt": a result of budget_calls 1000000',
    ],
  ])('%s: refused at submission, nothing charged or stored', async (_what, type, item, status, message) => {
    const call = await keyedCall(handler, keys, `checks-${type}-${status}`, 'scale');
    const before = await trace(call);
    const asked = server.requests();
    const sent = (item as { model?: unknown }).model === MODEL ? { ...item, model: model() } : item;
    const r = await call('POST', '/api/v1/jobs', { type, items: [sent] });
    expect(r.status, r.text.slice(0, 300)).toBe(status);
    expect(r.json.error.message).toContain(message);
    expect(await trace(call)).toEqual(before);
    expect(server.requests()).toBe(asked);
  });

  it('scan: datasets its run would refuse (none such, none to scan), refused at submission, nothing charged or stored', async () => {
    const call = await keyedCall(handler, keys, 'checks-scan', 'scale');
    const before = await trace(call);
    const items = [{ id: 'a', text: 'A plain text of a few words.' }];
    const none = await call('POST', '/api/v1/jobs', { type: 'scan', options: { datasets: ['no-such'] }, items });
    expect(none.status, none.text.slice(0, 300)).toBe(404);
    expect(none.json.error.message).toContain('options.datasets[0]: no dataset "no-such"');
    expect(none.json.error.details.field).toBe('options.datasets[0]');
    // this server holds no exact dataset: a scan of every one has none to scan against
    expect(engine.corpus.datasets().filter((d) => d.kind === 'exact')).toEqual([]);
    const empty = await call('POST', '/api/v1/jobs', { type: 'scan', items });
    expect(empty.status, empty.text.slice(0, 300)).toBe(422);
    expect(empty.json.error.message).toContain('options.datasets: no exact dataset to scan against');
    expect(empty.json.error.details.field).toBe('options.datasets');
    expect(await trace(call)).toEqual(before);
  });

  it('the same items pass once the cause is gone: the checks refuse only what the run refuses', async () => {
    const call = await keyedCall(handler, keys, 'checks-pass', 'scale');
    const ok = await call('POST', '/api/v1/jobs', {
      type: 'audit',
      items: [{ works, model: model(), budget_calls: 2000 }],
    });
    expect(ok.status, ok.text.slice(0, 300)).toBe(202);
    const extract = await call('POST', '/api/v1/jobs', {
      type: 'extract',
      items: [{ text: works[0].text, model: model(), budget_calls: 60_000 }],
    });
    expect(extract.status, extract.text.slice(0, 300)).toBe(202);
    const analyze = await call('POST', '/api/v1/jobs', {
      type: 'analyze',
      items: [{ content: 'A plain text of a few words.', content_type: 'text' }],
    });
    expect(analyze.status).toBe(202);
  });

  it('Prefer: respond-async: the synchronous refusal, no job stored', async () => {
    const call = await keyedCall(handler, keys, 'checks-async', 'pro');
    const body = { content: 'A plain text of a few words.', content_type: 'text', include_text: true };
    const sync = await call('POST', '/api/v1/attribution/analyze', body);
    expect(sync.status).toBe(422);
    const before = await trace(call);
    const async = await call('POST', '/api/v1/attribution/analyze', body, { prefer: 'respond-async' });
    expect(async.status).toBe(422);
    expect(async.json.error).toEqual({ ...sync.json.error, details: async.json.error.details });
    expect(async.json.error.message).toBe(sync.json.error.message);
    // one call, as the synchronous refusal is charged: no job
    expect(await trace(call)).toEqual([before[0] - 1, 0]);
  });
});
