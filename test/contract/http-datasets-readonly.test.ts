/**
 * `createHandler(engine, { datasetsReadOnly })` (what `serve --workers N` passes its processes): every change to the
 * reference datasets is 409 CONFLICT with the reason, before a body is read; reading, exporting and searching work.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';

async function setup(datasetsReadOnly?: string) {
  const engine = await createEngine();
  const text = 'A document loaded when the server started, with enough words.';
  await engine.addDataset({ id: 'loaded' }, [{ id: 'one', text }]);
  const keys = new KeyStore(engine.store);
  const scopes = ['datasets:read', 'datasets:write', 'analyze', 'admin'] as const;
  const { key } = await keys.createKey({ account: 'ops', plan: 'enterprise', scopes: [...scopes] });
  const handler = createHandler(engine, { keys, ...(datasetsReadOnly ? { datasetsReadOnly } : {}) });
  const call = async (method: string, path: string, body?: BodyInit, type = 'application/json') => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = type;
    const res = await handler(new Request(`http://api.test${path}`, { method, headers, body }));
    return { status: res.status, json: res.headers.get('content-type')?.includes('json') ? await res.json() : null };
  };
  return { engine, call };
}

describe('reference datasets kept as loaded', () => {
  it('refuses create, import, add and drop with 409 CONFLICT and the reason; reading works', async () => {
    const { engine, call } = await setup('each process loads them from files');
    const file = engine.exportDataset('loaded');
    const refused = [
      await call('POST', '/api/v1/datasets', JSON.stringify({ id: 'new' })),
      await call('POST', '/api/v1/datasets/loaded/documents', JSON.stringify({ documents: [{ id: 't', text: 'x' }] })),
      await call('POST', '/api/v1/datasets/import', file as Uint8Array<ArrayBuffer>, 'application/octet-stream'),
      await call('DELETE', '/api/v1/datasets/loaded'),
      // refused before the body is read: a body that would be malformed is not looked at
      await call('POST', '/api/v1/datasets', '{ not json'),
    ];
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.json.error.code).toBe('CONFLICT');
      expect(r.json.error.message).toContain('each process loads them from files');
    }
    expect(engine.datasets().map((d) => [d.id, d.documents])).toEqual([['loaded', 1]]);
    expect((await call('GET', '/api/v1/datasets')).status).toBe(200);
    expect((await call('GET', '/api/v1/datasets/loaded')).status).toBe(200);
    expect((await call('GET', '/api/v1/datasets/loaded/export')).status).toBe(200);
    const content = 'A document loaded when the server started, with enough words.';
    const body = JSON.stringify({ content, content_type: 'text' });
    const analysis = await call('POST', '/api/v1/attribution/analyze', body);
    expect(analysis.status).toBe(200);
  });

  it('refuses a datasetsReadOnly that is not a string with INVALID_OPTIONS', async () => {
    const engine = await createEngine();
    for (const bad of [true, 1, {}, null]) {
      expect(() => createHandler(engine, { datasetsReadOnly: bad as unknown as string })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
    }
  });

  it('changes datasets as usual without the option', async () => {
    const { call } = await setup();
    expect((await call('POST', '/api/v1/datasets', JSON.stringify({ id: 'new' }))).status).toBe(201);
    expect((await call('DELETE', '/api/v1/datasets/new')).status).toBe(200);
  });
});
