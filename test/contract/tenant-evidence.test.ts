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

describe('dataset caps under concurrency: reserved before the body is read', () => {
  const big = (id: string, mb: number) => ({
    id,
    text: `${'lantern quay dusk memoir '.repeat((mb * 1024 * 1024) / 25)}`,
  });
  const send = async (handler: ReturnType<typeof createHandler>, key: string, path: string, json: unknown) => {
    const body = JSON.stringify(json);
    const res = await handler(
      new Request(`http://api.test${path}`, {
        method: 'POST',
        body,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      }),
    );
    return res.status;
  };

  it('a Free key sending 8 uploads of 4.5 MB at once keeps at most 2 datasets and 10 MiB; 10 small ones make 2', async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const handler = createHandler(engine, { keys });
    const scopes = ['datasets:read', 'datasets:write'] as const;
    const free = (await keys.createKey({ account: 'burst', plan: 'free', scopes: [...scopes] })).key;
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        send(handler, free, '/api/v1/datasets', { id: `big-${i}`, documents: [big('d', 4.5)] }),
      ),
    );
    const own = () => engine.datasets().filter((d) => engine.datasetProvenance(d.id).account === 'burst');
    expect(statuses.filter((s) => s === 201).length).toBe(own().length);
    expect(own().length).toBeLessThanOrEqual(2);
    expect(own().reduce((n, d) => n + d.bytes, 0)).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(statuses.every((s) => s === 201 || s === 403 || s === 413)).toBe(true);

    const small = (await keys.createKey({ account: 'many', plan: 'free', scopes: [...scopes] })).key;
    const made = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send(handler, small, '/api/v1/datasets', { id: `small-${i}`, documents: [{ id: 'd', text: VICTIM_TEXT }] }),
      ),
    );
    expect(made.filter((s) => s === 201)).toHaveLength(2);
    expect(made.filter((s) => s === 403)).toHaveLength(8);
    // the reservations are given back: after a drop, one more can be made
    expect(
      (
        await handler(
          new Request('http://api.test/api/v1/datasets/small-0', {
            method: 'DELETE',
            headers: { authorization: `Bearer ${small}` },
          }),
        )
      ).status,
    ).toBeLessThan(300);
    const ids = engine
      .datasets()
      .filter((d) => engine.datasetProvenance(d.id).account === 'many')
      .map((d) => d.id);
    expect(ids.length).toBe(1);
    expect(
      await send(handler, small, '/api/v1/datasets', { id: 'again', documents: [{ id: 'd', text: VICTIM_TEXT }] }),
    ).toBe(201);
  });

  it('parallel documents to one dataset stay within the bytes left', async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const handler = createHandler(engine, { keys });
    const free = (await keys.createKey({ account: 'adder', plan: 'free', scopes: ['datasets:read', 'datasets:write'] }))
      .key;
    expect(
      await send(handler, free, '/api/v1/datasets', { id: 'mine', documents: [{ id: 'a', text: VICTIM_TEXT }] }),
    ).toBe(201);
    const statuses = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        send(handler, free, '/api/v1/datasets/mine/documents', { documents: [big(`d${i}`, 4.5)] }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 413)).toHaveLength(2);
    expect(engine.datasets().find((d) => d.id === 'mine')!.bytes).toBeLessThanOrEqual(10 * 1024 * 1024);
  });
});

describe('datasets created through the API say they do not outlast a restart', () => {
  it('durable: false on them (true on the operator’s); a monitor limited to a dataset the server lost lists it', async () => {
    const { engine, call, victim } = await setup();
    await engine.addDataset({ id: 'operator-books' }, [{ id: 'memo', text: VICTIM_TEXT }]);
    const made = await call('POST', '/api/v1/datasets', victim, {
      id: 'my-drafts',
      documents: [{ id: 'ch1', text: VICTIM_TEXT }],
    });
    expect(made.status).toBe(201);
    expect(made.json.durable).toBe(false);
    const list = await call('GET', '/api/v1/datasets', victim);
    expect(
      Object.fromEntries(list.json.datasets.map((d: { id: string; durable: boolean }) => [d.id, d.durable])),
    ).toEqual({ 'operator-books': true, 'my-drafts': false });
    // who supplied each: a declaration of the operator's or an account's, never a pack's documented link
    expect(
      Object.fromEntries(list.json.datasets.map((d: { id: string; supplied_by: string }) => [d.id, d.supplied_by])),
    ).toEqual({ 'operator-books': 'operator', 'my-drafts': 'account' });
    const work = await call('POST', '/api/v1/content/register', victim, { content: VICTIM_TEXT, title: 'Memoir' });
    const m = await call('POST', '/api/v1/monitors/create', victim, {
      work_id: work.json.work_id,
      datasets: ['my-drafts'],
    });
    expect(m.status).toBe(201);
    expect(m.json.missing_datasets).toEqual([]);

    // a restart: the store keeps the monitor, the new server holds no dataset of the API
    const { createEngine: fresh } = await import('../../src/index.js');
    const restarted = await fresh({ store: engine.store });
    const keys = new KeyStore(restarted.store);
    const handler = createHandler(restarted, { keys });
    const res = await handler(
      new Request(`http://api.test/api/v1/monitors/${m.json.monitor_id}`, {
        headers: { authorization: `Bearer ${victim}` },
      }),
    );
    const shown = await res.json();
    expect(res.status).toBe(200);
    expect(shown.missing_datasets).toEqual(['my-drafts']);
  });
});

describe("the knowledge base's dataset names are the operator's", () => {
  it('an account cannot take "the-pile", "c4" or "books3"; the operator still can', async () => {
    const { engine, call, attacker } = await setup();
    for (const id of ['the-pile', 'c4', 'books3', 'Pile']) {
      const r = await call('POST', '/api/v1/datasets', attacker, { id, documents: [{ id: 'a', text: VICTIM_TEXT }] });
      expect([id, r.status]).toEqual([id, 422]);
      expect(r.json.error.details.field).toBe('id');
      expect(r.json.error.message).toContain('names a dataset of the knowledge base');
    }
    expect(engine.datasets().map((d) => d.id)).toEqual([]);
    const keys = new KeyStore(engine.store);
    const admin = (
      await keys.createKey({ account: 'ops', plan: 'pro', scopes: ['admin', 'datasets:read', 'datasets:write'] })
    ).key;
    const op = await call('POST', '/api/v1/datasets', admin, {
      id: 'the-pile',
      kb_dataset: 'the-pile',
      documents: [{ id: 'a', text: VICTIM_TEXT }],
    });
    expect(op.status).toBe(201);
  });
});
