/**
 * Hardening of the HTTP adapter, through `handler(new Request(…))`:
 *
 * - egress (SSRF): a model or webhook host name that the handler's resolver maps to an internal
 *   address is refused with 422 naming the field, also when only one of its addresses is; a public
 *   one is called through the resolver's pinned fetch; what a model service answered is reported
 *   by status, content type and length, never by its body;
 * - keys: plans and scopes are checked when keys are made; keys expire; a key slot holds at most
 *   one valid key;
 * - datasets: only the account that made a dataset grows or drops it (operators' datasets need
 *   `admin`); an upload to a missing or foreign dataset is answered without reading its body; a
 *   dataset file whose id is not a valid id is refused before it is loaded;
 * - every route with required fields answers `{}` with 422 naming a field.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, TrainprintError } from '../../src/index.js';
import {
  createHandler,
  egressFetch,
  isInternalAddress,
  KeyStore,
  ROUTES,
  SCOPES,
  type HandlerOptions,
  type HostResolver,
} from '../../src/http/index.js';

const WORK =
  'A short work of a few dozen words that its author registers before anything else happens to it, ' +
  'so that monitors and memorization checks can name it by its id.';
/** Twelve words: with 4-word prefixes and 8-word continuations, one model call. */
const TWELVE = 'one two three four five six seven eight nine ten eleven twelve';
const ONE_CALL = { prefixes: 1, prefix_tokens: 4, continuation_tokens: 8 };
const noNetwork = async (): Promise<Response> => {
  throw new TypeError('no network in this test');
};

async function setup(options: HandlerOptions = {}) {
  const engine = await createEngine({ webhooks: { fetch: noNetwork } });
  const keys = new KeyStore(engine.store);
  const everyScope = SCOPES.filter((s) => s !== 'admin');
  const acme = (await keys.createKey({ account: 'acme', plan: 'pro', scopes: everyScope })).key;
  const globex = (await keys.createKey({ account: 'globex', plan: 'pro', scopes: everyScope })).key;
  const opsScopes = ['admin', 'datasets:read', 'datasets:write'];
  const admin = (await keys.createKey({ account: 'ops', plan: 'enterprise', scopes: opsScopes })).key;
  const handler = createHandler(engine, { ...options, keys });
  const call = async (method: string, path: string, key: string, json?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const body = json === undefined ? undefined : JSON.stringify(json);
    const res = await handler(new Request(`http://api.test${path}`, { method, headers, body }));
    const text = await res.text();
    return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
  };
  return { engine, keys, handler, call, acme, globex, admin };
}

/** A resolver over a fixed table whose pinned fetch records what it was asked and answers with `answer`. */
function fakeDns(table: Record<string, string[]>, answer: () => Response = () => new Response('{}')) {
  const looked: string[] = [];
  const fetched: string[] = [];
  const resolve: HostResolver = async (name) => {
    looked.push(name);
    const addresses = table[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return {
      addresses,
      fetch: async (input) => {
        fetched.push(String(input));
        return answer();
      },
    };
  };
  return { resolve, looked, fetched };
}

const DNS = {
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'localtest.me': ['127.0.0.1', '::1'],
  'half.example.org': ['93.184.215.14', '10.0.0.5'],
  'mapped.example.org': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:169.254.169.254'],
  'ula.example.org': ['fd12:3456::1'],
  'models.example.org': ['93.184.215.14'],
  'hooks.example.org': ['93.184.215.34'],
};
const INTERNAL_NAMES = [
  '127.0.0.1.nip.io',
  'localtest.me',
  'half.example.org',
  'mapped.example.org',
  'ula.example.org',
];

describe('egress: names are resolved, checked and pinned', () => {
  it('classifies addresses as resolvers give them', () => {
    const internal = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'fe80::1',
      'fe80::1%eth0',
      'fd00::1',
      'fc00::',
      '64:ff9b::a9fe:a9fe',
      'not an address',
      '',
    ];
    for (const a of internal) expect(isInternalAddress(a), a).toBe(true);
    const external = [
      '93.184.215.14',
      '8.8.8.8',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
    ];
    for (const a of external) expect(isInternalAddress(a), a).toBe(false);
  });

  it('a model host resolving to an internal address (any one of them) is 422 naming model.base_url', async () => {
    const dns = fakeDns(DNS);
    const { call, acme } = await setup({ resolveHost: dns.resolve });
    const extract = (base: string) =>
      call('POST', '/api/v1/memorization/extract', acme, {
        text: TWELVE,
        model: { base_url: base, model: 'm' },
        ...ONE_CALL,
      });
    for (const host of INTERNAL_NAMES) {
      const r = await extract(`http://${host}/v1`);
      expect([host, r.status, r.json.error.details.field]).toEqual([host, 422, 'model.base_url']);
      expect(r.json.error.message).toContain('resolves to a loopback, private, link-local or internal address');
    }
    const unknown = await extract('https://nowhere.example.org/v1');
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.message).toContain('does not resolve');
    expect(dns.fetched).toEqual([]); // no request reached any of them
    const short = await call('POST', '/api/v1/extract', acme, {
      text: TWELVE,
      model: { base_url: 'http://localtest.me/v1', model: 'm' },
    });
    expect(short.json.error.details.field).toBe('model.base_url'); // the short path goes through the same check
  });

  it('a public model host is called through the pinned fetch; its 500 page, non-JSON 200 not echoed', async () => {
    const page = '<html><body><h1>Internal Server Error</h1><pre>SECRET-INTERNAL-TOKEN db=10.0.0.7</pre></body></html>';
    let status = 500;
    const html = { 'content-type': 'text/html; charset=utf-8' };
    const dns = fakeDns(DNS, () => new Response(page, { status, headers: html }));
    const { call, acme } = await setup({ resolveHost: dns.resolve });
    const body = { text: TWELVE, model: { base_url: 'https://models.example.org/v1', model: 'm' }, ...ONE_CALL };
    const failed = await call('POST', '/api/v1/memorization/extract', acme, body);
    expect(failed.status).toBe(502);
    expect(failed.json.error.code).toBe('UPSTREAM_ERROR');
    expect(failed.json.error.details.upstream).toBe(
      `https://models.example.org/v1/completions: status 500 (text/html, ${page.length} bytes) (after 4 attempts)`,
    );
    expect(failed.text).not.toContain('SECRET');
    expect(failed.text).not.toContain('Internal Server Error');
    expect(dns.looked).toEqual(['models.example.org']); // one lookup for the request, not one per attempt
    expect(dns.fetched).toHaveLength(4);
    expect(dns.fetched[0]).toBe('https://models.example.org/v1/completions');

    status = 200; // an internal service answering 200 with a page: still only its shape
    const odd = await call('POST', '/api/v1/memorization/extract', acme, body);
    expect(odd.status).toBe(502);
    expect(odd.json.error.details.upstream).toBe(
      'https://models.example.org/v1/completions: status 200 with a body ' +
        `that is not a JSON object (text/html, ${page.length} bytes)`,
    );
    expect(odd.text).not.toContain('SECRET');
  });

  it('without the default policy nothing is resolved: allowPrivateModelHosts, modelHosts', async () => {
    const dns = fakeDns(DNS);
    const refusing = async () => new Response('{}', { status: 404 });
    for (const options of [{ allowPrivateModelHosts: true }, { modelHosts: () => true }] as HandlerOptions[]) {
      const { call, acme } = await setup({ ...options, resolveHost: dns.resolve, modelFetch: refusing });
      const r = await call('POST', '/api/v1/memorization/extract', acme, {
        text: TWELVE,
        model: { base_url: 'http://localtest.me/v1', model: 'm' },
        ...ONE_CALL,
      });
      expect(r.status).toBe(502); // called: the operator's fetch answered 404
    }
    expect(dns.looked).toEqual([]);
  });

  it('a webhook host resolving to an internal address is 422 naming webhook.url; a public one passes', async () => {
    const dns = fakeDns(DNS);
    const { call, acme } = await setup({ resolveHost: dns.resolve });
    const work = await call('POST', '/api/v1/content/register', acme, { content: WORK });
    expect(work.status).toBe(201);
    const monitor = (host: string) =>
      call('POST', '/api/v1/monitors/create', acme, {
        work_id: work.json.work_id,
        webhook: { url: `https://${host}/hook`, secret: 'whsec_0123456789abcdef' },
      });
    for (const host of ['127.0.0.1.nip.io', 'half.example.org', 'nowhere.example.org']) {
      const r = await monitor(host);
      expect([host, r.status, r.json.error.details.field]).toEqual([host, 422, 'webhook.url']);
    }
    expect((await monitor('hooks.example.org')).status).toBe(201);
  });

  it('egressFetch (webhook deliveries): resolved and checked at every request', async () => {
    const dns = fakeDns(DNS, () => new Response('ok'));
    const send = egressFetch(dns.resolve);
    const post = { method: 'POST', body: '{}' };
    await expect(send('https://127.0.0.1.nip.io/hook', post)).rejects.toThrow(TypeError);
    await expect(send('https://half.example.org/hook', post)).rejects.toThrow(/internal address/);
    await expect(send('http://10.0.0.1/hook')).rejects.toThrow(/internal host/); // the URL text first
    expect((await send('https://hooks.example.org/hook', post)).status).toBe(200);
    expect(dns.fetched).toEqual(['https://hooks.example.org/hook']);
  });
});

describe('keys', () => {
  it('plans and scopes are checked when keys are made, naming what is allowed', async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const e = await keys.createKey({ account: 'acme', plan: 'platinum' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TrainprintError);
    expect(e).toMatchObject({
      code: 'INVALID_INPUT',
      detail: 'plan: "platinum" is not a known plan; the plans are free, pro, scale, enterprise',
    });
    const client = keys.createClient({ account: 'acme', plan: 'platinum' });
    await expect(client).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(keys.createKey({ account: 'acme', scopes: ['analyze', 'root'] })).rejects.toMatchObject({
      detail: expect.stringMatching(/^scopes\[1\]: must be one of "analyze", /),
    });
    // the server's own plans: given to the key store, or by the handler it serves
    const startup = { startup: { daily: 5 } };
    const told = new KeyStore(engine.store, { plans: startup });
    expect((await told.createKey({ account: 'a', plan: 'startup' })).info.plan).toBe('startup');
    const shared = new KeyStore(engine.store);
    createHandler(engine, { keys: shared, plans: startup });
    expect((await shared.createKey({ account: 'b', plan: 'startup' })).info.plan).toBe('startup');
  });

  it('a key with an expiry stops working then', async () => {
    let now = Date.parse('2026-05-01T12:00:00Z');
    const engine = await createEngine();
    const keys = new KeyStore(engine.store, { clock: () => now });
    const { key, info } = await keys.createKey({ account: 'acme', scopes: ['kb'], expiresInSeconds: 3600 });
    expect(info.expires_at).toBe('2026-05-01T13:00:00.000Z');
    const handler = createHandler(engine, { keys, now: () => now });
    const headers = { authorization: `Bearer ${key}` };
    const get = () => handler(new Request('http://api.test/api/v1/kb/factors', { headers }));
    expect((await get()).status).toBe(200);
    now += 3600_000;
    expect((await get()).status).toBe(401);
    const never = keys.createKey({ account: 'acme', expiresInSeconds: 0 });
    await expect(never).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const clockOnly = new KeyStore(engine.store, () => now); // the constructor form of earlier versions
    expect((await clockOnly.createKey({ account: 'acme' })).info.expires_at).toBeNull();
  });

  it('a key slot holds at most one valid key, however often it is filled', async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await keys.replaceKey('serve-dev', { account: 'dev', plan: 'pro', mode: 'test', scopes: ['kb'] }));
    }
    expect(made[0].replaced).toBeNull();
    expect(made[2].replaced?.key_id).toBe(made[1].info.key_id);
    const valid = [];
    for (const m of made) if (await keys.verifyKey(m.key)) valid.push(m.info.key_id);
    expect(valid).toEqual([made[2].info.key_id]);
    expect((await keys.listKeys('dev')).filter((k) => !k.revoked)).toHaveLength(1);
    await expect(keys.replaceKey('Bad Slot', { account: 'dev' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('datasets belong to the account that made them', () => {
  it("others cannot see them (404); the operator's datasets need admin", async () => {
    const { engine, call, acme, globex, admin } = await setup();
    await engine.addDataset({ id: 'operator-set' }, [{ id: 'a', text: WORK }]);
    const made = await call('POST', '/api/v1/datasets', acme, {
      id: 'acme-set',
      documents: [{ id: 'd1', text: WORK }],
    });
    expect(made.status).toBe(201);
    const grow = { documents: [{ id: 'd2', text: `${WORK} Again.` }] };
    const foreign = await call('POST', '/api/v1/datasets/acme-set/documents', globex, grow);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.message).toContain('no dataset "acme-set"');
    expect((await call('DELETE', '/api/v1/datasets/acme-set', globex)).status).toBe(404);
    expect((await call('POST', '/api/v1/datasets/acme-set/documents', acme, grow)).json.documents).toBe(2);
    // only acme sees it (the admin too); to globex it is not there, and its id is only "taken"
    expect((await call('GET', '/api/v1/datasets/acme-set', globex)).status).toBe(404);
    expect((await call('GET', '/api/v1/datasets/acme-set/export', globex)).status).toBe(404);
    expect((await call('GET', '/api/v1/datasets', globex)).json.datasets.map((d: { id: string }) => d.id)).toEqual([
      'operator-set',
    ]);
    expect((await call('GET', '/api/v1/datasets', acme)).json.datasets.map((d: { id: string }) => d.id)).toEqual([
      'operator-set',
      'acme-set',
    ]);
    expect((await call('GET', '/api/v1/datasets/acme-set', admin)).status).toBe(200);
    const taken = await call('POST', '/api/v1/datasets', globex, { id: 'acme-set' });
    expect(taken.status).toBe(409);
    expect(taken.json.error.message).toContain('dataset "acme-set" is taken: choose another id');
    expect(engine.datasetProvenance('acme-set')).toEqual({ supplied_by: 'account', account: 'acme' });
    const op = await call('DELETE', '/api/v1/datasets/operator-set', acme);
    expect(op.status).toBe(403);
    expect(op.json.error.message).toContain('admin');
    expect((await call('DELETE', '/api/v1/datasets/operator-set', admin)).status).toBe(200);
    expect((await call('DELETE', '/api/v1/datasets/acme-set', acme)).json).toMatchObject({ deleted: true });
    // once dropped, the id is free for anyone
    expect((await call('POST', '/api/v1/datasets', globex, { id: 'acme-set' })).status).toBe(201);
    expect((await call('DELETE', '/api/v1/datasets/acme-set', acme)).status).toBe(404);
    // an admin key loads for every account: the operator's
    expect((await call('POST', '/api/v1/datasets', admin, { id: 'shared-set' })).status).toBe(201);
    expect(engine.datasetProvenance('shared-set')).toEqual({ supplied_by: 'operator', account: null });
    expect((await call('GET', '/api/v1/datasets/shared-set', acme)).status).toBe(200);
  });

  it('an upload to a missing or foreign dataset is answered without reading the body', async () => {
    const { handler, call, acme, globex } = await setup();
    expect((await call('POST', '/api/v1/datasets', globex, { id: 'globex-set' })).status).toBe(201);
    const cases = [
      ['/api/v1/datasets/no-such-set/documents', 404],
      ['/api/v1/datasets/globex-set/documents', 404],
    ] as const;
    for (const [path, status] of cases) {
      let pulled = 0;
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      // 200 MiB on offer, produced only as it is read
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (pulled >= 200 * 1024 * 1024) return controller.close();
            pulled += chunk.length;
            controller.enqueue(chunk);
          },
        },
        { highWaterMark: 0 },
      );
      const headers = { authorization: `Bearer ${acme}`, 'content-type': 'application/json' };
      const init = { method: 'POST', headers, body, duplex: 'half' } as RequestInit;
      const res = await handler(new Request(`http://api.test${path}`, init));
      expect(res.status, path).toBe(status);
      expect(pulled, path).toBeLessThanOrEqual(2 * chunk.length);
    }
  });

  it("import: the file's dataset id is checked before it is loaded; the dataset is the importer's", async () => {
    const { engine, handler, call, acme, globex } = await setup();
    const scratch = await createEngine();
    const bad = '../evil\r\nSet-Cookie: x=1';
    await scratch.addDataset({ id: bad }, [{ id: 'a', text: WORK }]);
    await scratch.addDataset({ id: 'fine-set' }, [{ id: 'a', text: WORK }]);
    const upload = (bytes: Uint8Array, key: string) =>
      handler(
        new Request('http://api.test/api/v1/datasets/import', {
          method: 'POST',
          body: bytes as Uint8Array<ArrayBuffer>,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        }),
      );
    const refused = await upload(scratch.exportDataset(bad), acme);
    expect(refused.status).toBe(422);
    expect((await refused.json()).error.details).toMatchObject({ field: 'id' });
    expect(engine.datasets().map((d) => d.id)).not.toContain(bad);
    const ok = await upload(scratch.exportDataset('fine-set'), acme);
    expect(ok.status).toBe(201);
    expect((await call('DELETE', '/api/v1/datasets/fine-set', globex)).status).toBe(404);
    expect((await upload(scratch.exportDataset('fine-set'), globex)).status).toBe(409);
    expect(engine.datasetProvenance('fine-set')).toEqual({ supplied_by: 'account', account: 'acme' });
    expect((await call('DELETE', '/api/v1/datasets/fine-set', acme)).status).toBe(200);
  });

  it("the shipped packs' ids (with a colon) are addressable; monitors refuse malformed dataset ids", async () => {
    const { engine, call, acme } = await setup();
    await engine.addDataset({ id: 'pack:sample' }, [{ id: 'a', text: WORK }]);
    expect((await call('GET', '/api/v1/datasets/pack:sample', acme)).status).toBe(200);
    const work = await call('POST', '/api/v1/content/register', acme, { content: WORK });
    const bad = await call('POST', '/api/v1/monitors/create', acme, {
      work_id: work.json.work_id,
      datasets: ['../x\r\n'],
    });
    expect([bad.status, bad.json.error.details.field]).toEqual([422, 'datasets[0]']);
    // an account cannot take a name of the packs' family
    expect((await call('POST', '/api/v1/datasets', acme, { id: 'pack:mine' })).json.error.details.field).toBe('id');
  });
});

describe('required fields', () => {
  /** Routes whose schema cannot require a field (exactly one of several), checked by the route itself. */
  const ONE_OF = new Set(['registerWork', 'createMonitor', 'trackWork', 'extractMemorized', 'probeMemorization']);
  const PREFIX: Readonly<Record<string, string>> = {
    listing: 'lst',
    offer: 'ofr',
    monitor: 'mon',
    work: 'wk',
    analysis: 'an',
    licence: 'lic',
  };

  it('every route with a required field answers {} with 422 naming it', async () => {
    const { call, acme, admin } = await setup();
    expect((await call('POST', '/api/v1/datasets', acme, { id: 'mine' })).status).toBe(201);
    const fill = (path: string) =>
      path
        .replace('{dataset_id}', 'mine')
        .replace(/\{(\w+)_id\}/g, (_, kind: string) => `${PREFIX[kind] ?? kind}_${'0'.repeat(32)}`);
    const checked: string[] = [];
    for (const r of ROUTES.filter((x) => x.body === 'json')) {
      const required = ((r.requestSchema as { required?: string[] } | undefined)?.required ?? []).length > 0;
      if (!required && !ONE_OF.has(r.aliasOf ?? r.operationId)) continue;
      const res = await call(r.method, fill(r.path), r.scope === 'admin' ? admin : acme, {});
      expect(res.status, `${r.operationId}: ${res.text}`).toBe(422);
      expect(res.json.error.details.field, r.operationId).toMatch(/^[a-z_.]+$/);
      expect(res.json.error.message, r.operationId).toContain(res.json.error.details.field);
      checked.push(r.operationId);
    }
    expect(checked).toContain('createMonitor');
    expect(checked).toContain('registerWorkAlias');
    const monitor = await call('POST', '/api/v1/monitors/create', acme, {});
    expect(monitor.json.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'work_id', reason: 'is required (or give work_hash)' },
    });
  });
});
