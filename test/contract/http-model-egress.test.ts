/**
 * The model-host policy over HTTP (round 6's L4): the IPv6 forms that embed a loopback or private IPv4 are 422 naming
 * `model.base_url`, as the IPv4 itself is; and a model service that cannot be reached is one typed 502
 * `UPSTREAM_UNREACHABLE` naming the URL, never the socket's error text (`ECONNREFUSED` against `EHOSTUNREACH` would
 * tell a client which ports of an allowed host are open).
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type HandlerOptions } from '../../src/http/index.js';

const TWELVE = 'one two three four five six seven eight nine ten eleven twelve';
const ONE_CALL = { prefixes: 1, prefix_tokens: 4, continuation_tokens: 8 };

let engine: Engine;
let keys: KeyStore;
let key = '';
beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'acme', plan: 'pro' })).key;
});
afterAll(() => engine.dispose());

async function extract(options: HandlerOptions, baseUrl: string) {
  const handler = createHandler(engine, { keys, ...options });
  const res = await handler(
    new Request('http://api.test/api/v1/memorization/extract', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TWELVE, model: { base_url: baseUrl, model: 'm' }, ...ONE_CALL }),
    }),
  );
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

describe('model URLs with an IPv4 inside IPv6', () => {
  it('are refused 422 naming model.base_url when the IPv4 is internal', async () => {
    let called = 0;
    const modelFetch = async () => {
      called++;
      return new Response('{}');
    };
    for (const host of [
      '64:ff9b:1::7f00:1', // NAT64 local-use
      '::ffff:0:7f00:1', // SIIT
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
      '::ffff:7f00:1', // mapped
      '::7f00:1', // compatible
      '64:ff9b::a9fe:a9fe', // NAT64 well-known, 169.254.169.254
      '2002:a9fe:a9fe::1', // 6to4
    ]) {
      const url = `http://[${host}]/v1`;
      const r = await extract({}, url);
      expect([url, r.status, r.json.error.details?.field]).toEqual([url, 422, 'model.base_url']);
    }
    expect(called).toBe(0);
    // the same host under an operator's modelFetch and a policy that allows it is called
    const allowed = await extract({ modelHosts: () => true, modelFetch }, 'http://[64:ff9b:1::7f00:1]/v1');
    expect(allowed.status).toBe(502); // '{}' is no completion: UPSTREAM_ERROR, but it was called
    expect(called).toBeGreaterThan(0);
  });
});

describe('a model service that cannot be reached', () => {
  it('is 502 UPSTREAM_UNREACHABLE naming the URL, without the socket error (a closed port on loopback)', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const r = await extract({ allowPrivateModelHosts: true }, `http://127.0.0.1:${port}/v1`);
    expect(r.status).toBe(502);
    expect(r.json.error.code).toBe('UPSTREAM_UNREACHABLE');
    expect(r.json.error.message).toBe('The model service could not be reached');
    expect(r.json.error.details.upstream).toContain(`http://127.0.0.1:${port}/v1/completions`);
    expect(r.json.error.details.upstream).toContain('could not connect to the model service');
    expect(r.text).not.toMatch(/ECONN|EHOST|ENET|fetch failed/);
  });

  it('the same for any connection failure of the fetch: refused, no route, reset, a name that does not resolve', async () => {
    const answers: string[] = [];
    for (const code of ['EHOSTUNREACH', 'ECONNRESET', 'ENOTFOUND', 'UND_ERR_SOCKET']) {
      const modelFetch = async () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error(`connect ${code} 10.9.8.7:8000`), { code }),
        });
      };
      const r = await extract({ modelHosts: () => true, modelFetch }, 'https://models.example.org/v1');
      expect([code, r.status, r.json.error.code]).toEqual([code, 502, 'UPSTREAM_UNREACHABLE']);
      expect(r.text).not.toContain(code);
      expect(r.text).not.toContain('10.9.8.7');
      answers.push(r.json.error.details.upstream);
    }
    expect(new Set(answers).size).toBe(1); // one answer whatever the socket said
  });

  it('an answer with an error status stays UPSTREAM_ERROR', async () => {
    const modelFetch = async () => new Response('no', { status: 404 });
    const r = await extract({ modelHosts: () => true, modelFetch }, 'https://models.example.org/v1');
    expect([r.status, r.json.error.code]).toEqual([502, 'UPSTREAM_ERROR']);
  });
});
