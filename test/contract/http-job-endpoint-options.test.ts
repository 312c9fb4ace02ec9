/**
 * The production endpoint's options of a job item's model (`POST /api/v1/jobs`, extract): temperature, the name of the
 * output-token limit, seed, per-call timeout, requests and tokens a minute reach the model service's requests; a value
 * out of range is 422 naming `items[i].model.<option>` before anything is charged or called, and a per-call timeout
 * past the server's model timeout is refused the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { keyedCall, type Call } from '../fixtures/http/keyed-call.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const { text, words } = syntheticWork(1, 400, 5);
let engine: Engine;
let keys: KeyStore;
let server: MemorisedServer;

const caller = (handler: Handler, account: string): Promise<Call> => keyedCall(handler, keys, account);

async function finished(call: Call, url: string): Promise<Record<string, any>> {
  // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
  for (;;) {
    const s = await call('GET', url);
    if (['done', 'failed', 'cancelled'].includes(s.json.state)) return s.json;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const item = (model: Record<string, unknown>) => ({
  text,
  model: { base_url: server.baseUrl, model: 'fixture-memo-1', api: 'chat', ...model },
  budget_calls: 6,
  prompt_variants: 1,
  concurrency: 1,
});

beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  server = await startMemorisedServer({ words, held: [0, 400] });
}, 60_000);
afterAll(async () => {
  await server?.close();
  engine?.dispose();
});

describe("an extract job's endpoint options", () => {
  it('refuses a bad value with 422 naming items[i].model.<option>; nothing called', async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
    const acme = await caller(handler, 'acme-bad-options');
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ temperature: 3 }, 'items[0].model.temperature'],
      [{ temperature: 'hot' }, 'items[0].model.temperature'],
      [{ max_tokens_param: 'max_length' }, 'items[0].model.max_tokens_param'],
      [{ seed: 1.5 }, 'items[0].model.seed'],
      [{ seed: 2 ** 31 }, 'items[0].model.seed'],
      [{ timeout_ms: 10 }, 'items[0].model.timeout_ms'],
      [{ timeout_ms: 120_000 }, 'items[0].model.timeout_ms'], // past the server's model timeout (60 s)
      [{ requests_per_minute: 0 }, 'items[0].model.requests_per_minute'],
      [{ tokens_per_minute: -5 }, 'items[0].model.tokens_per_minute'],
      [{ top_p: 1 }, 'items[0].model'],
    ];
    for (const [options, field] of bad) {
      const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [item(options)] });
      expect(r.status, JSON.stringify(options)).toBe(422);
      expect(r.json.error.code).toBe('INVALID_INPUT');
      expect(r.json.error.message).toContain(field);
    }
    expect(server.requests()).toBe(0);
    await stopJobs(handler);
  });

  it("sends temperature, seed and max_completion_tokens on every request, within the job's limits", async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    const acme = await caller(handler, 'acme-options');
    const options = {
      temperature: 0.25,
      max_tokens_param: 'max_completion_tokens',
      seed: 1234,
      timeout_ms: 30_000,
      requests_per_minute: 600,
      tokens_per_minute: 1_000_000,
    };
    const r = await acme('POST', '/api/v1/jobs', { type: 'extract', items: [item(options)] });
    expect(r.status).toBe(202);
    const done = await finished(acme, r.json.status_url);
    expect(done).toMatchObject({ state: 'done', done: 1, failed: 0 });
    const lines = (await acme('GET', `${r.json.results_url}?limit=10`)).text.split('\n').filter(Boolean);
    const line = JSON.parse(lines[0]);
    expect(line.success).toBe(true);
    expect(line.result.calls).toBeGreaterThan(0);
    const bodies = server.bodies().map((b) => JSON.parse(b));
    expect(bodies.length).toBeGreaterThan(0);
    for (const b of bodies) {
      expect(b.temperature).toBe(0.25);
      expect(b.seed).toBe(1234);
      expect(b.max_completion_tokens).toBeGreaterThan(0);
      expect(b.max_tokens).toBeUndefined();
    }
    await stopJobs(handler);
  }, 60_000);
});
