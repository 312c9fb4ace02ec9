/**
 * No account can change what another is told. The attack of a key with `datasets:write`: upload the victim's text as
 * a dataset declared a sample of Project Gutenberg (a corpus that documented models trained on). Before, every
 * account's analyze then named those models at high confidence and the victim's monitors fired. Now an account's
 * upload is its own: the victim's analysis, score and monitor evaluations are exactly what they were, the attacker's
 * own analysis sees its dataset, and every evidence source says who supplied its dataset.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';

// a 150-word original text (numbered sentences keep it distinct): the victim's work
const VICTIM_TEXT = Array.from(
  { length: 15 },
  (_, i) =>
    `In the ${i + 1}th chapter of her unpublished memoir the narrator counts ${(i * 37) % 91} lanterns along the quay at dusk.`,
).join(' ');

async function setup() {
  const engine = await createEngine();
  const keys = new KeyStore(engine.store);
  const scopes = ['analyze', 'registry:read', 'registry:write', 'monitors', 'datasets:read', 'datasets:write'] as const;
  const victim = (await keys.createKey({ account: 'victim', plan: 'pro', scopes: [...scopes] })).key;
  const attacker = (await keys.createKey({ account: 'attacker', plan: 'free', scopes: [...scopes] })).key;
  const handler = createHandler(engine, { keys });
  const call = async (method: string, path: string, key: string, json?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await handler(
      new Request(`http://api.test${path}`, {
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
      }),
    );
    return { status: res.status, json: await res.json() };
  };
  return { engine, call, victim, attacker };
}

/** What an analysis tells, without what differs between two calls (ids, times). */
const told = (r: Record<string, unknown>) => {
  const { analysis_id: _a, created_at: _c, success: _s, ...rest } = r;
  return rest;
};

describe('an account cannot plant evidence for another', () => {
  it("the victim's analyze, score and monitors are unchanged by the attacker's declared upload", async () => {
    const { engine, call, victim, attacker } = await setup();
    const work = await call('POST', '/api/v1/content/register', victim, { content: VICTIM_TEXT, title: 'Memoir' });
    expect(work.status).toBe(201);
    const monitor = await call('POST', '/api/v1/monitors/create', victim, {
      work_id: work.json.work_id,
      models: ['meta/llama-65b', 'facebook/opt-66b'],
    });
    expect(monitor.status).toBe(201);
    expect(monitor.json.owner).toBe('victim');
    const analyze = () =>
      call('POST', '/api/v1/attribution/analyze', victim, { content: VICTIM_TEXT, content_type: 'text' });
    const score = () =>
      call('POST', '/api/v1/attribution/score', victim, {
        work_hash: work.json.work_hash,
        target_model: 'meta/llama-65b',
        jurisdiction: 'US',
      });
    const before = await analyze();
    const scoreBefore = await score();
    expect(before.json.confidence).toBe(0);
    await engine.evaluateMonitors();

    // the attack: the victim's text, declared a sample of Project Gutenberg
    const planted = await call('POST', '/api/v1/datasets', attacker, {
      id: 'totally-gutenberg',
      kb_dataset: 'project-gutenberg',
      documents: [{ id: 'memoir', text: VICTIM_TEXT }],
    });
    expect(planted.status).toBe(201);
    const events = await engine.evaluateMonitors();

    const after = await analyze();
    expect(told(after.json)).toEqual(told(before.json));
    expect(after.json.attribution_sources).toEqual([]);
    const scoreAfter = await score();
    expect(scoreAfter.json).toEqual(scoreBefore.json);
    expect(events.filter((e) => e.data.monitor_id === monitor.json.monitor_id)).toEqual([]);
    const log = await call('GET', `/api/v1/monitors/${monitor.json.monitor_id}/events`, victim);
    expect(log.json.events).toEqual([]);
    // the victim's dataset list does not show it; naming it is as for any missing dataset
    expect((await call('GET', '/api/v1/datasets', victim)).json.datasets).toEqual([]);
    expect((await call('GET', '/api/v1/datasets/totally-gutenberg', victim)).status).toBe(404);

    // the attacker's own analysis sees its own dataset, and says whose it is
    const own = await call('POST', '/api/v1/attribution/analyze', attacker, {
      content: VICTIM_TEXT,
      content_type: 'text',
    });
    expect(own.json.confidence).toBeGreaterThan(50);
    expect(own.json.attribution_sources.length).toBeGreaterThan(0);
    for (const s of own.json.attribution_sources)
      expect([s.dataset_id, s.supplied_by, s.declared]).toEqual(['totally-gutenberg', 'account', true]);
    expect(own.json.evidence.datasets).toEqual([
      expect.objectContaining({ dataset_id: 'totally-gutenberg', supplied_by: 'account' }),
    ]);
  });

  it("a shared dataset (the operator's) informs every account, and says so", async () => {
    const { engine, call, victim, attacker } = await setup();
    await engine.addDataset({ id: 'operator-gutenberg', kb_dataset: 'project-gutenberg' }, [
      { id: 'memoir', text: VICTIM_TEXT },
    ]);
    for (const key of [victim, attacker]) {
      const r = await call('POST', '/api/v1/attribution/analyze', key, { content: VICTIM_TEXT, content_type: 'text' });
      expect(r.json.confidence).toBeGreaterThan(50);
      expect(new Set(r.json.attribution_sources.map((s: { supplied_by: string }) => s.supplied_by))).toEqual(
        new Set(['operator']),
      );
      expect(r.json.evidence.datasets[0].supplied_by).toBe('operator');
    }
  });
});

describe('per-account dataset caps by plan, checked before the body is read', () => {
  it("Free keeps 2 datasets of 10 MiB of text; an admin key loads the operator's without a cap", async () => {
    const { engine, call, attacker } = await setup(); // attacker: a Free key
    const doc = (id: string) => ({ id, text: `${VICTIM_TEXT} ${id}` });
    expect((await call('POST', '/api/v1/datasets', attacker, { id: 'one', documents: [doc('a')] })).status).toBe(201);
    expect((await call('POST', '/api/v1/datasets', attacker, { id: 'two', documents: [doc('b')] })).status).toBe(201);
    const third = await call('POST', '/api/v1/datasets', attacker, { id: 'three', documents: [doc('c')] });
    expect(third.status).toBe(403);
    expect(third.json.error.message).toContain(
      'plan "free" keeps at most 2 datasets per account and this account has 2',
    );
    // documents may still be added to one's own, up to the bytes left
    expect((await call('POST', '/api/v1/datasets/one/documents', attacker, { documents: [doc('d')] })).status).toBe(
      200,
    );

    // 11 MiB declared and offered only as read: refused from the declaration, nothing read
    const keys = new KeyStore(engine.store);
    const free = (await keys.createKey({ account: 'big', plan: 'free', scopes: ['datasets:read', 'datasets:write'] }))
      .key;
    const handler = createHandler(engine, { keys });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (pulled >= 11 * 1024 * 1024) return c.close();
          pulled += 65536;
          c.enqueue(new Uint8Array(65536).fill(0x20));
        },
      },
      { highWaterMark: 0 },
    );
    const res = await handler(
      new Request('http://api.test/api/v1/datasets', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: {
          authorization: `Bearer ${free}`,
          'content-type': 'application/json',
          'content-length': String(11 * 1024 * 1024),
        },
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toContain(
      'plan "free" keeps 10485760 bytes of dataset text per account and 0 are used',
    );
    expect(pulled).toBeLessThanOrEqual(2 * 65536);

    const admin = (
      await keys.createKey({ account: 'ops', plan: 'free', scopes: ['admin', 'datasets:read', 'datasets:write'] })
    ).key;
    for (const id of ['op-1', 'op-2', 'op-3']) {
      expect((await call('POST', '/api/v1/datasets', admin, { id, documents: [doc(id)] })).status).toBe(201);
    }
  });
});
