/**
 * Memorization routes over real HTTP (`/api/v1/memorization/…`), every response validated against
 * the served OpenAPI document (test/fixtures/http/harness.ts). The target model is real: a
 * Kneser-Ney n-gram LM trained on the work (three copies: a text copied around the web) plus
 * background text, served OpenAI-compatibly on 127.0.0.1 (test/fixtures/http/model.ts) and
 * reached through the request's `model: { base_url, api_key, model }`.
 *
 * - every memorization route answers 2xx to a good request (register-work with canaries,
 *   reference sets, extract, probe, compare, assess, report as text/html);
 * - tenancy: another account's work, assessment or reference set is 404; reference-set ids are
 *   per account; compare looks only at the caller's works;
 * - the model service's failures: 502 UPSTREAM_ERROR (a refused key) and 504 UPSTREAM_TIMEOUT,
 *   with what the service said and never the API key;
 * - SSRF: the default policy refuses loopback, private, link-local and internal hosts (422 naming
 *   `model.base_url`), `allowPrivateModelHosts` and `modelHosts` change it; the API key is never
 *   echoed in any response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore, ROUTES } from '../../src/http/index.js';
import { isInternalHost } from '../../src/net/egress.js';
import { book, startApi, type Api, type Reply } from '../fixtures/http/harness.js';
import { serveModel, type ServedModel } from '../fixtures/http/model.js';

const MODEL_KEY = 'sk-model-0123456789abcdef-SECRET';
const words = (text: string, from: number, n: number) =>
  text
    .split(/\s+/)
    .slice(from, from + n)
    .join(' ');
const persuasion = book('austen-persuasion');
const WORK = words(persuasion, 20_000, 3000);
const REFERENCE = Array.from({ length: 8 }, (_, i) => words(book('chesterton-thursday'), 5_000 + i * 700, 600));

describe('memorization routes over HTTP', () => {
  let api: Api;
  let model: ServedModel;
  let acme: string, globex: string;
  let spec: { base_url: string; api_key: string; model: string; top_logprobs: number };
  let workId: string;
  let assessmentId: string;
  const ok = new Set<string>();

  const call = async (method: string, path: string, o: Parameters<Api['call']>[2] = {}): Promise<Reply> => {
    const r = await api.call(method, path, o);
    if (r.status >= 200 && r.status < 300 && r.operation) ok.add(r.operation);
    return r;
  };

  beforeAll(async () => {
    api = await startApi({ allowPrivateModelHosts: true });
    acme = (await api.keys.createKey({ account: 'acme', plan: 'pro', scopes: ['memorization', 'registry:read'] })).key;
    globex = (await api.keys.createKey({ account: 'globex', plan: 'pro' })).key;
    model = await serveModel(
      [WORK, WORK, WORK, words(book('milton-paradise'), 0, 20_000), words(book('blake-poems'), 0, 5_000)],
      { name: 'ngram-web', apiKey: MODEL_KEY, order: 6 },
    );
    spec = { base_url: model.baseUrl, api_key: MODEL_KEY, model: model.name, top_logprobs: 5 };
  });
  afterAll(async () => {
    await api?.close();
    await model?.close();
  });

  it('register-work: registers the work for the account and hands out canaries once', async () => {
    const r = await call('POST', '/api/v1/memorization/register-work', {
      key: acme,
      json: { work: { content: WORK, title: 'Persuasion (excerpt)', work_type: 'book' }, canaries: { count: 2 } },
    });
    expect(r.status).toBe(200);
    expect(r.json.canaries).toHaveLength(2);
    expect(r.json.controls).toHaveLength(8);
    workId = r.json.work_id;
    expect((await call('GET', `/api/v1/content/${workId}`, { key: acme })).json.owner).toBe('acme'); // the account, whatever the body says
    const again = await call('POST', '/api/v1/memorization/register-work', {
      key: acme,
      json: { work_id: workId, canaries: { count: 1 } },
    });
    expect(again.status).toBe(409);
    expect(
      (await call('POST', '/api/v1/memorization/register-work', { key: acme, json: { work_id: workId } })).json
        .canaries,
    ).toEqual(r.json.canaries);
    expect(
      (await call('POST', '/api/v1/memorization/register-work', { key: globex, json: { work_id: workId } })).status,
    ).toBe(404);
    const owned = await call('POST', '/api/v1/memorization/register-work', {
      key: globex,
      json: { work: { content: 'x', owner: 'acme' } },
    });
    expect(owned.status).toBe(422); // `owner` is not a field: the caller is the owner
  });

  it('reference sets belong to the account', async () => {
    const body = {
      id: 'withheld',
      texts: REFERENCE,
      basis: 'randomized_split',
      description: 'Chesterton passages never trained on',
    };
    const a = await call('POST', '/api/v1/memorization/reference-sets', { key: acme, json: body });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ id: 'withheld', documents: 8, basis: 'randomized_split' });
    const dup = await call('POST', '/api/v1/memorization/reference-sets', { key: acme, json: body });
    expect(dup.status).toBe(409);
    expect(dup.json.error.message).toContain('"withheld"');
    expect(dup.json.error.message).not.toContain('acme/');
    expect(
      (
        await call('POST', '/api/v1/memorization/reference-sets', {
          key: globex,
          json: { ...body, texts: REFERENCE.slice(0, 3) },
        })
      ).status,
    ).toBe(201);
    const { success: _s, ...info } = a.json;
    expect((await call('GET', '/api/v1/memorization/reference-sets', { key: acme })).json.reference_sets).toEqual([
      info,
    ]);
    expect(
      (await call('GET', '/api/v1/memorization/reference-sets', { key: globex })).json.reference_sets.map((s: any) => [
        s.id,
        s.documents,
      ]),
    ).toEqual([['withheld', 3]]);
  });

  it('extract: the LM that saw the work three times reproduces it verbatim', async () => {
    const r = await call('POST', '/api/v1/memorization/extract', {
      key: acme,
      json: { work_id: workId, model: spec, prefixes: 4 },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ work_id: workId, model: `openai-compatible:${model.name}`, access: 'top_k' });
    expect(r.json.summary.verified).toBeGreaterThan(0);
    expect(r.json.factors).toContain('verbatim_extraction_verified');
    expect(model.authorizations.at(-1)).toBe(`Bearer ${MODEL_KEY}`);
    // a text instead of a work: any account; another account's work: 404
    const t = await call('POST', '/api/v1/memorization/extract', {
      key: globex,
      json: { text: words(WORK, 0, 400), model: { ...spec, api: 'chat' }, prefixes: 2 },
    });
    expect(t.json).toMatchObject({ work_id: null, access: 'generations_only' });
    expect(
      (await call('POST', '/api/v1/memorization/extract', { key: globex, json: { work_id: workId, model: spec } }))
        .status,
    ).toBe(404);
    expect(
      (
        await call('POST', '/api/v1/memorization/extract', {
          key: acme,
          json: { work_id: workId, text: 'both', model: spec },
        })
      ).status,
    ).toBe(422);
  });

  it("probe: set-level statistics against the account's reference set", async () => {
    const r = await call('POST', '/api/v1/memorization/probe', {
      key: acme,
      json: { work_id: workId, model: spec, reference: { reference_set: 'withheld' }, chunk_tokens: 64 },
    });
    expect(r.status).toBe(200);
    expect(r.json.reference).toEqual({
      source: 'reference_set',
      id: 'withheld',
      basis: 'randomized_split',
      matched: true,
    });
    expect(r.json.statistics.find((s: any) => s.name === 'loss').auc).toBeGreaterThan(0.9);
    const missing = await call('POST', '/api/v1/memorization/probe', {
      key: globex,
      json: { text: WORK, model: spec, reference: { reference_set: 'nope' } },
    });
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('no reference set "nope"');
    const chat = await call('POST', '/api/v1/memorization/probe', {
      key: acme,
      json: { work_id: workId, model: { ...spec, api: 'chat' }, reference: { texts: REFERENCE } },
    });
    expect(chat.json).toMatchObject({ verdict: 'not_applicable', distribution: 'none' });
  });

  it("compare: a model output against the caller's works only", async () => {
    const output = `The model said: ${words(WORK, 1000, 120)}`;
    const r = await call('POST', '/api/v1/memorization/compare', { key: acme, json: { output } });
    expect(r.json.works[0]).toMatchObject({ work_id: workId });
    expect(r.json.works[0].longest_verbatim_tokens).toBeGreaterThanOrEqual(100);
    const g = await call('POST', '/api/v1/memorization/compare', { key: globex, json: { output } });
    expect(g.json).toMatchObject({ works: [], examined: 0 });
    expect(
      (await call('POST', '/api/v1/memorization/compare', { key: globex, json: { output, work_ids: [workId] } }))
        .status,
    ).toBe(404);
  });

  it('assess + report: an assessment of the account, rendered as text/html', async () => {
    const r = await call('POST', '/api/v1/memorization/assess', {
      key: acme,
      json: {
        work_id: workId,
        model: spec,
        jurisdiction: 'DE',
        extract: { prefixes: 4 },
        probe: { reference: { reference_set: 'withheld' }, chunk_tokens: 64 },
      },
    });
    expect(r.status).toBe(200);
    expect(r.json.evidence_tier).toBe('confirmed');
    expect(r.json.probe.reference.id).toBe('withheld');
    expect(r.json.traps).toMatchObject({ canaries: 2, controls: 8 });
    assessmentId = r.json.assessment_id;
    const page = await call('POST', '/api/v1/memorization/report', {
      key: acme,
      json: { assessment_id: assessmentId },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('Memorization risk report');
    expect(page.text).toContain('<mark');
    expect(page.text).not.toContain('acme/withheld');
    expect(
      (await call('POST', '/api/v1/memorization/report', { key: globex, json: { assessment_id: assessmentId } }))
        .status,
    ).toBe(404);
    expect(
      (await call('POST', '/api/v1/memorization/assess', { key: globex, json: { work_id: workId, model: spec } }))
        .status,
    ).toBe(404);
  });

  it("a failing model service is 502 UPSTREAM_ERROR with its status and its JSON error's message, never the key", async () => {
    const r = await call('POST', '/api/v1/memorization/extract', {
      key: acme,
      json: { text: WORK, model: { ...spec, api_key: 'sk-wrong-key-XYZ' }, prefixes: 1 },
    });
    expect(r.status).toBe(502);
    expect(r.json.error.code).toBe('UPSTREAM_ERROR');
    expect(r.json.error.details.upstream).toMatch(/status 401 \(application\/json, \d+ bytes\): "Incorrect API key/);
    expect(r.text).not.toContain('sk-wrong-key-XYZ');
  });

  it('the short paths (/api/v1/assess …) answer like the memorization paths they stand for', async () => {
    const sent: Array<[string, unknown]> = [
      ['register-work', { work_id: workId }],
      ['extract', { work_id: workId, model: spec, prefixes: 1 }],
      ['probe', { work_id: workId, model: spec, reference: { reference_set: 'withheld' }, chunk_tokens: 64 }],
      ['compare', { output: `The model said: ${words(WORK, 1000, 120)}` }],
      ['assess', { work_id: workId, model: spec, extract: { prefixes: 1 }, probe: false }],
    ];
    for (const [name, json] of sent) {
      const short = await call('POST', `/api/v1/${name}`, { key: acme, json });
      expect(short.status, name).toBe(200);
      expect(short.operation, name).toBe(`POST /api/v1/${name}`);
      if (name === 'register-work' || name === 'compare') {
        expect(short.json).toEqual((await call('POST', `/api/v1/memorization/${name}`, { key: acme, json })).json);
      }
      if (name === 'assess') assessmentId = short.json.assessment_id;
    }
    const page = await call('POST', '/api/v1/report', { key: acme, json: { assessment_id: assessmentId } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // the same tenancy and validation as the long paths
    const foreign = await call('POST', '/api/v1/assess', { key: globex, json: { work_id: workId, model: spec } });
    expect(foreign.status).toBe(404);
    const none = await call('POST', '/api/v1/extract', { key: acme, json: { model: spec } });
    expect(none.json.error.details.field).toBe('work_id');
    const doc = (await call('GET', '/api/v1/openapi.json')).json;
    expect(doc.paths['/api/v1/assess'].post).toMatchObject({
      operationId: 'assessAlias',
      'x-alias-of': 'assessMemorization',
    });
    expect(doc.paths['/api/v1/compare'].post['x-alias-of']).toBe('compareOutput');
  });

  it('every memorization route answered 2xx; the model key never appears in a response', () => {
    const missing = ROUTES.filter((r) => r.tag === 'memorization' && !ok.has(`${r.method} ${r.path}`)).map(
      (r) => r.operationId,
    );
    expect(missing, 'memorization operations never answered 2xx').toEqual([]);
    expect(api.log.filter((e) => e.text.includes(MODEL_KEY)).map((e) => e.label)).toEqual([]);
  });
});

describe('model hosts (SSRF) and timeouts, through the Fetch handler', () => {
  let api: Api; // only for its OpenAPI document
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  async function setup(options: Parameters<typeof createHandler>[1] = {}) {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const { key } = await keys.createKey({ account: 'acme', plan: 'pro' });
    const handler = createHandler(engine, { ...options, keys });
    return async (baseUrl: string) => {
      const res = await handler(
        new Request('http://x/api/v1/memorization/extract', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            text: 'one two three four five six seven eight nine ten eleven twelve',
            model: { base_url: baseUrl, model: 'm', api_key: MODEL_KEY },
            prefixes: 1,
            prefix_tokens: 4,
            continuation_tokens: 8,
          }),
        }),
      );
      const json = await res.json();
      api.validate('POST', '/api/v1/memorization/extract', res.status, json);
      expect(JSON.stringify(json)).not.toContain(MODEL_KEY);
      return { status: res.status, json };
    };
  }

  it('the default policy refuses internal hosts with 422 naming model.base_url, before any request', async () => {
    let fetched = 0;
    const extract = await setup({
      modelFetch: async () => {
        fetched++;
        return new Response('{}', { status: 500 });
      },
    });
    const internal = [
      'http://127.0.0.1:8000/v1',
      'http://127.1/v1',
      'http://2130706433/v1',
      'http://0x7f000001/v1',
      'http://0.0.0.0/v1',
      'http://0/v1',
      'http://[::1]/v1',
      'http://[::ffff:127.0.0.1]/v1',
      'http://[::ffff:10.0.0.1]/v1',
      'http://[64:ff9b::a9fe:a9fe]/v1',
      'http://[2002:c0a8:101::1]/v1',
      'http://[fd00::1]/v1',
      'http://[fe80::1]/v1',
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/v1',
      'http://172.16.0.1/v1',
      'http://172.31.255.255/v1',
      'http://192.168.1.1/v1',
      'http://100.64.0.1/v1',
      'http://198.18.0.1/v1',
      'http://224.0.0.1/v1',
      'http://255.255.255.255/v1',
      'http://localhost:11434/v1',
      'http://LOCALHOST./v1',
      'http://api.localhost/v1',
      'http://printer.local/v1',
      'http://metadata.google.internal/v1',
      'http://router.home.arpa/v1',
      'http://redis:6379/v1',
      'http://model-server/v1',
      'http://localhost.localdomain/v1',
      'http://vllm.models.svc/v1',
      'http://vllm.default.svc.cluster.local/v1',
    ];
    for (const url of internal) {
      const r = await extract(url);
      expect([url, r.status, r.json.error?.details?.field]).toEqual([url, 422, 'model.base_url']);
    }
    for (const url of [
      'http://user:pw@models.example.org/v1',
      'https://models.example.org/v1?x=1',
      'https://models.example.org/v1#f',
    ]) {
      expect((await extract(url)).json.error.details.field, url).toBe('model.base_url');
    }
    expect((await extract('ftp://models.example.org/v1')).status).toBe(422); // the schema: http(s) only
    expect(fetched).toBe(0);
  });

  it('a reference model goes through the same policy: 422 naming its field, before any request', async () => {
    let fetched = 0;
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const { key } = await keys.createKey({ account: 'acme', plan: 'pro' });
    const handler = createHandler(engine, {
      keys,
      modelFetch: async () => {
        fetched++;
        return new Response('{}', { status: 500 });
      },
    });
    const post = async (path: string, body: unknown) => {
      const res = await handler(
        new Request(`http://x/api/v1/memorization/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      const json = await res.json();
      api.validate('POST', `/api/v1/memorization/${path}`, res.status, json);
      return { status: res.status, field: json.error?.details?.field, json };
    };
    const model = { base_url: 'https://models.example.org/v1', model: 'm' };
    const internal = { base_url: 'http://169.254.169.254/v1', model: 'earlier' };
    const reference = { texts: ['one two three four five six seven eight nine ten'] };
    const probe = await post('probe', { text: 'a b c', model, reference, reference_model: internal });
    expect([probe.status, probe.field]).toEqual([422, 'reference_model.base_url']);
    const tracked = await post('register-work', { work: { content: 'one two three four five six seven' } });
    expect(tracked.status).toBe(200);
    const assess = await post('assess', {
      work_id: tracked.json.work_id,
      model,
      extract: false,
      probe: { reference, reference_model: internal },
    });
    expect([assess.status, assess.field]).toEqual([422, 'probe.reference_model.base_url']);
    expect(fetched).toBe(0);
  });

  it("a public host passes; the service's refusal is 502 with its status, content type, length and message", async () => {
    const seen: string[] = [];
    const extract = await setup({
      modelFetch: async (url) => {
        seen.push(String(url));
        return new Response(JSON.stringify({ error: { message: 'The model `m` does not exist.' } }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    const r = await extract('https://models.example.org/v1');
    expect(r.status).toBe(502);
    expect(r.json.error).toMatchObject({
      code: 'UPSTREAM_ERROR',
      details: {
        upstream:
          'https://models.example.org/v1/completions: status 404 (application/json, 53 bytes): "The model `m` does not exist."',
      },
    });
    expect(seen).toEqual(['https://models.example.org/v1/completions']);
  });

  it('a model service answering 200 with 50 MB is cut off at the cap: 502 at once, the body never read whole', async () => {
    let pulled = 0;
    const huge: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            // 1 MiB a pull, 50 MiB in all: a reader that buffered everything would hold 50 MiB
            if (pulled >= 50) return controller.close();
            pulled++;
            controller.enqueue(new Uint8Array(1 << 20).fill(0x20));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const extract = await setup({ modelFetch: huge });
    const r = await extract('https://models.example.org/v1');
    expect(r.status).toBe(502);
    expect(r.json.error.code).toBe('UPSTREAM_ERROR');
    // a generation's answer is read up to what its output-token limit can produce (far below the 16 MiB cap)
    expect(r.json.error.details.upstream).toMatch(/a body over \d+ bytes/);
    // the read stopped at the cap (16 MiB and the chunk that passed it), and was not retried
    expect(pulled).toBeLessThanOrEqual(18);
    // a declared Content-Length over the cap is refused before anything is read
    let declaredPulls = 0;
    const declared = await setup({
      modelFetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              declaredPulls++;
              controller.enqueue(new Uint8Array(1024));
            },
          }),
          { status: 200, headers: { 'content-length': String(50 << 20) } },
        ),
    });
    const d = await declared('https://models.example.org/v1');
    expect(d.status).toBe(502);
    expect(d.json.error.details.upstream).toMatch(/a body of 52428800 bytes declared/);
    expect(declaredPulls).toBeLessThanOrEqual(1);
  });

  it('allowPrivateModelHosts and modelHosts change the policy; a silent service is 504', async () => {
    const hang: typeof fetch = (_url, init) =>
      new Promise((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    const open = await setup({ allowPrivateModelHosts: true, modelTimeoutMs: 100, modelFetch: hang });
    const slow = await open('http://127.0.0.1:9/v1');
    expect(slow.status).toBe(504);
    expect(slow.json.error.code).toBe('UPSTREAM_TIMEOUT');
    expect(slow.json.error.details.upstream).toContain('no complete answer within 100 ms');
    const listed = await setup({
      modelHosts: (u) => u.origin === 'https://models.example.org',
      modelFetch: hang,
      modelTimeoutMs: 50,
    });
    expect((await listed('https://other.example.org/v1')).status).toBe(422);
    expect((await listed('https://models.example.org/v1')).status).toBe(504);
    const throwing = await setup({
      modelHosts: () => {
        throw new Error('policy bug');
      },
    });
    expect((await throwing('https://models.example.org/v1')).status).toBe(422); // a throwing policy refuses
    await expect(setup({ modelTimeoutMs: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('isInternalHost: public addresses and names pass', () => {
    for (const u of [
      'https://api.openai.com/v1',
      'http://8.8.8.8/v1',
      'http://[2606:4700::1111]/v1',
      'http://172.32.0.1/v1',
      'http://100.128.0.1/v1',
      'http://[::ffff:8.8.8.8]/v1',
      'http://models.example.org./v1',
    ]) {
      expect([u, isInternalHost(new URL(u))]).toEqual([u, false]);
    }
  });
});
