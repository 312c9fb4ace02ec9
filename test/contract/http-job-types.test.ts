/**
 * A job type of the host's own, registered through the public API (`defineJobType` of `trainprint/jobs`, given to
 * `createHandler` and `startJobRunner`), runs over HTTP on a real listening server like a built-in one: its items are
 * checked against its schema (422 naming `items[i].field`), charged its units, run by its executor, and its schema is
 * in the OpenAPI document. A handler without it refuses the type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import {
  BUILT_IN_JOB_TYPES,
  createHeldJobModels,
  defineJobType,
  JOB_TYPES,
  startJobRunner,
  type JobRunner,
} from '../../src/entries/jobs.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';

/** The fixture: an item `{ text }`, its result the number of its words; a unit per 1,000 characters. */
const WORD_COUNT = defineJobType<{ text: string }>({
  name: 'word-count',
  summary: '`word-count` (`{ text }`: its words counted)',
  itemSchema: {
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: { text: { type: 'string', minLength: 1, maxLength: 100_000 } },
  },
  chunkItems: 2,
  units: (item) => Math.ceil(item.text.length / 1000),
  executor: () => async (item) => ({ words: (item as { text: string }).text.split(/\s+/).filter(Boolean).length }),
});

let engine: Engine;
let server: Server;
let runner: JobRunner;
let key = '';
const call = (path: string, init: RequestInit = {}) =>
  fetch(new URL(path, server.url), {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });

beforeAll(async () => {
  engine = await createEngine();
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'acme', plan: 'pro' })).key;
  const jobModels = createHeldJobModels();
  runner = startJobRunner(engine, { pollMs: 20, jobModels, jobTypes: [WORD_COUNT] });
  const handler = createHandler(engine, {
    keys,
    jobModels,
    jobTypes: [WORD_COUNT],
    onJobSubmitted: () => runner.wake(),
  });
  server = await serve(handler, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await runner.stop();
  await engine.dispose();
});

describe('a job type of the host’s own', () => {
  it('runs over HTTP: 202, done, one result per item in item order, charged its units', async () => {
    const texts = ['one two three', 'a'.repeat(2500), 'four five', ' six  seven eight nine '];
    const usage0 = (await (await call('/api/v1/usage')).json()) as { used: number };
    const res = await call('/api/v1/jobs', {
      method: 'POST',
      body: JSON.stringify({ type: 'word-count', items: texts.map((text) => ({ text })) }),
    });
    expect(res.status).toBe(202);
    const job = (await res.json()) as { job_id: string; type: string; total: number };
    expect(job).toMatchObject({ type: 'word-count', total: 4 });
    let state = '';
    for (let i = 0; i < 500 && state !== 'done'; i++) {
      state = ((await (await call(`/api/v1/jobs/${job.job_id}`)).json()) as { state: string }).state;
      if (state !== 'done') await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('done');
    const lines = (await (await call(`/api/v1/jobs/${job.job_id}/results`)).text()).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { index: 0, success: true, result: { words: 3 } },
      { index: 1, success: true, result: { words: 1 } },
      { index: 2, success: true, result: { words: 2 } },
      { index: 3, success: true, result: { words: 4 } },
    ]);
    // units: 1 + 3 + 1 + 1
    const usage1 = (await (await call('/api/v1/usage')).json()) as { used: number };
    expect(usage1.used - usage0.used).toBe(6); // polls and reads are not charged
  });

  it("checks each item against the type's schema: 422 naming items[i].field", async () => {
    const res = await call('/api/v1/jobs', {
      method: 'POST',
      body: JSON.stringify({ type: 'word-count', items: [{ text: 'ok' }, { text: '' }] }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_INPUT');
    expect(body.error.message).toContain('items[1].text');
  });

  it('is in the OpenAPI document: its name and its item schema in the submission', async () => {
    const doc = (await (await call('/api/v1/openapi.json')).json()) as Record<string, any>;
    expect(JSON.stringify(doc.paths['/api/v1/jobs'].post.requestBody)).toContain('#/components/schemas/JobRequest');
    const request = doc.components.schemas.JobRequest;
    expect(request.properties.type.enum).toEqual([...JOB_TYPES, 'word-count']);
    const own = request.allOf.find((c: any) => c.if.properties.type.const === 'word-count');
    expect(own.then.properties.items.items).toEqual(WORD_COUNT.itemSchema);
  });

  it('a handler without it refuses the type; the built-in registry is JOB_TYPES', async () => {
    const plain = createHandler(engine, { keys: new KeyStore(engine.store) });
    const other = (await new KeyStore(engine.store).createKey({ account: 'acme', plan: 'pro' })).key;
    const res = await plain(
      new Request('http://api.test/api/v1/jobs', {
        method: 'POST',
        headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'word-count', items: [{ text: 'x' }] }),
      }),
    );
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('type');
    expect([...BUILT_IN_JOB_TYPES.keys()]).toEqual([...JOB_TYPES]);
    for (const [name, t] of BUILT_IN_JOB_TYPES) expect(t.name).toBe(name);
  });
});
