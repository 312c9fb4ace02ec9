/**
 * HTTP adapter: plans and limits, OAuth, and the node:http bridge, against real servers on
 * 127.0.0.1 (every response validated against the served OpenAPI document by the harness).
 *
 * - rate limits are exact under concurrency: 150 parallel calls on a Free key (100/day) give
 *   exactly 100 successes (each `RateLimit-Remaining` value once) and 50 × 429 with Retry-After —
 *   with the in-memory counters and with the store-backed ones; the window is the UTC day;
 * - OAuth 2.0 client credentials: Basic and body authentication, RFC 6749 §5.2 errors, scopes
 *   narrowed and enforced, expiry;
 * - bodies: 413 on a declared Content-Length before any byte is read, 413 on a streamed body
 *   counted past the limit, 415, concurrent Idempotency-Key requests.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import {
  createHandler,
  KeyStore,
  parseJsonBody,
  StoreCounterStore,
  type JsonBodyOffload,
} from '../../src/http/index.js';
import type { Offload, PureWork } from '../../src/library.js';
import { book, documentSchemas, INDEXED, startApi, type Api } from '../fixtures/http/harness.js';

let engine: Engine;
const servers: Api[] = [];
const start = async (...a: Parameters<typeof startApi>) => {
  const api = await startApi(...a);
  servers.push(api);
  return api;
};

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset(
    { id: 'pg-sample', kb_dataset: 'project-gutenberg' },
    INDEXED.slice(0, 1).map((id) => ({ id, text: book(id) })),
  );
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('rate limits', () => {
  for (const counters of ['memory', 'store'] as const) {
    it(`150 parallel calls on a Free key: exactly 100 succeed, 50 get 429 with Retry-After (${counters} counters)`, async () => {
      const api = await start(counters === 'store' ? { counters: new StoreCounterStore(engine.store) } : {}, engine);
      const { key } = await api.keys.createKey({ account: `free-${counters}`, plan: 'free' });
      const replies = await Promise.all(
        Array.from({ length: 150 }, () => api.call('GET', '/api/v1/kb/factors', { key })),
      );
      const good = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status === 429);
      expect(good.length).toBe(100);
      expect(limited.length).toBe(50);
      expect(good.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 100 }, (_, i) => i),
      );
      for (const r of limited) {
        expect(r.json.error.code).toBe('RATE_LIMITED');
        expect(Number(r.headers.get('retry-after'))).toBe(Number(r.headers.get('ratelimit-reset')));
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.headers.get('ratelimit-remaining')).toBe('0');
      }
      for (const r of replies) {
        expect(r.headers.get('ratelimit-limit')).toBe('100');
        expect(r.headers.get('ratelimit-policy')).toBe('100;w=86400');
      }
      // usage agrees: it is not charged, so it answers at the limit too (and the refused calls did not count)
      const usage = await api.call('GET', '/api/v1/usage', { key });
      expect(usage.status).toBe(200);
      expect(usage.json).toMatchObject({ limit: 100, used: 100, remaining: 0 });
    });
  }

  it('the window is the UTC day: Reset counts down to midnight, calls pass again after it', async () => {
    let now = Date.parse('2026-03-01T23:59:50Z');
    const api = await start({ now: () => now, plans: { tiny: { daily: 3 } } }, engine);
    const { key } = await api.keys.createKey({ account: 'clock', plan: 'tiny' });
    for (let i = 0; i < 3; i++) expect((await api.call('GET', '/api/v1/kb/providers', { key })).status).toBe(200);
    const refused = await api.call('GET', '/api/v1/kb/providers', { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.headers.get('ratelimit-reset')).toBe('10');
    now += 10_001;
    const next = await api.call('GET', '/api/v1/usage', { key });
    expect(next.status).toBe(200);
    expect(next.json).toMatchObject({
      limit: 3,
      used: 0,
      remaining: 3,
      reset_at: '2026-03-03T00:00:00.000Z',
      reset_seconds: 86_400,
    });
  });

  it('unlimited plans carry no RateLimit headers; an unconfigured plan is refused', async () => {
    const api = await start({}, engine);
    const ent = (await api.keys.createKey({ account: 'bigco', plan: 'enterprise' })).key;
    const r = await api.call('GET', '/api/v1/usage', { key: ent });
    expect(r.json).toMatchObject({ plan: 'enterprise', limit: null, remaining: null, used: 0 });
    expect(r.headers.get('ratelimit-limit')).toBeNull();
    // a key store refuses a plan it does not know, naming the plans
    await expect(api.keys.createKey({ account: 'odd', plan: 'legacy' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      detail: 'plan: "legacy" is not a known plan; the plans are free, pro, scale, enterprise',
    });
    // a key from when the server had that plan (another key store that knew it) is refused by the handler
    const then = new KeyStore(engine.store, { plans: { legacy: { daily: 5 } } });
    const odd = (await then.createKey({ account: 'odd', plan: 'legacy' })).key;
    const f = await api.call('GET', '/api/v1/usage', { key: odd });
    expect(f.status).toBe(403);
    expect(f.json.error.message).toContain('plan "legacy" is not configured');
  });
});

describe('plain Fetch handler', () => {
  it('runs without a server (Deno.serve / Workers style) and under a base path', async () => {
    const handler = createHandler(engine, { baseUrl: 'https://example.org/trainprint/' });
    const doc = await (await handler(new Request('https://example.org/trainprint/api/v1/openapi.json'))).json();
    expect(doc.servers).toEqual([{ url: 'https://example.org/trainprint/' }]);
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      'https://example.org/trainprint/api/v1/oauth/token',
    );
    const schemaAt = documentSchemas(doc, 'https://t.test/openapi.json');
    const check = (pointer: string, body: unknown) => expect(schemaAt(pointer).validate(body).valid).toBe(true);
    const ok = await handler(new Request('https://example.org/trainprint/api/v1/status'));
    expect(ok.status).toBe(200);
    check('/paths/~1api~1v1~1status/get/responses/200/content/application~1json/schema', await ok.json());
    const outside = await handler(new Request('https://example.org/api/v1/status'));
    expect(outside.status).toBe(404);
    check('/components/schemas/ErrorEnvelope', await outside.json());
  });
});

describe('status page', () => {
  it('a failing health check is a major outage and an unresolved incident; nothing else is invented', async () => {
    const sick = await createEngine();
    const api = await start({}, sick);
    const healthy = await api.call('GET', '/api/v1/status');
    expect(healthy.json).toMatchObject({ status: 'operational', incidents: [], checks: { total: 1, failed: 0 } });
    sick.dispose();
    const r = await api.call('GET', '/api/v1/status');
    expect(r.json.status).toBe('major_outage');
    expect(r.json.components.find((c: any) => c.name === 'engine')).toMatchObject({
      status: 'major_outage',
      detail: 'engine: ENGINE_DISPOSED',
    });
    expect(r.json.incidents).toEqual([
      expect.objectContaining({
        failed_checks: 1,
        server_errors: 0,
        resolved_at: null,
        codes: ['engine: ENGINE_DISPOSED'],
      }),
    ]);
    const page = await api.call('GET', '/status');
    expect(page.text).toContain('Major outage');
    expect(page.text).toContain('not yet resolved');
  });
});

describe('OAuth 2.0 client credentials', () => {
  let api: Api;
  let now = Date.parse('2026-05-01T12:00:00Z');
  let client: { client_id: string; client_secret: string };
  const form = (body: string, auth?: string) => ({
    body,
    unchecked: false,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
  });
  const basic = (id: string, secret: string) =>
    `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

  beforeAll(async () => {
    api = await start({ now: () => now, tokenTtlSeconds: 600 }, engine);
    const c = await api.keys.createClient({ account: 'oauth-co', plan: 'pro', scopes: ['kb', 'analyze', 'usage'] });
    client = { client_id: c.client_id, client_secret: c.client_secret };
  });

  it('issues scoped, expiring bearer tokens; scopes are enforced per route', async () => {
    const viaBody = await api.call(
      'POST',
      '/api/v1/oauth/token',
      form(`grant_type=client_credentials&client_id=${client.client_id}&client_secret=${client.client_secret}`),
    );
    expect(viaBody.status).toBe(200);
    expect(viaBody.json).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'kb analyze usage' });
    const narrow = await api.call(
      'POST',
      '/api/v1/oauth/token',
      form('grant_type=client_credentials&scope=kb', basic(client.client_id, client.client_secret)),
    );
    const token = narrow.json.access_token as string;
    expect(token.split('.')).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({
      acct: 'oauth-co',
      plan: 'pro',
      scope: 'kb',
      client_id: client.client_id,
      exp: claims.iat + 600,
    });
    expect((await api.call('GET', '/api/v1/kb/factors', { key: token })).status).toBe(200);
    const denied = await api.call('GET', '/api/v1/usage', { key: token });
    expect(denied.status).toBe(403); // the client has `usage`, this token does not
    expect(denied.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="usage"');
    // the token's calls are charged to the client's account (usage itself is not)
    const usage = await api.call('GET', '/api/v1/usage', { key: viaBody.json.access_token });
    expect(usage.json).toMatchObject({ account: 'oauth-co', used: 1 });
    now += 601_000;
    const expired = await api.call('GET', '/api/v1/kb/factors', { key: token });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // a token signed with another key is refused
    const forged = `${token.split('.').slice(0, 2).join('.')}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
    expect((await api.call('GET', '/api/v1/kb/factors', { key: forged })).status).toBe(401);
  });

  it('answers RFC 6749 §5.2 errors', async () => {
    const cases: Array<[string, string | undefined, number, string]> = [
      ['grant_type=client_credentials', basic(client.client_id, 'tp_cs_wrong'), 401, 'invalid_client'],
      ['grant_type=client_credentials', undefined, 401, 'invalid_client'],
      [
        `grant_type=client_credentials&client_id=tpc_${'0'.repeat(24)}&client_secret=${client.client_secret}`,
        undefined,
        401,
        'invalid_client',
      ],
      ['grant_type=password', basic(client.client_id, client.client_secret), 400, 'unsupported_grant_type'],
      ['scope=kb', basic(client.client_id, client.client_secret), 400, 'invalid_request'],
      [
        'grant_type=client_credentials&scope=kb%20datasets:write',
        basic(client.client_id, client.client_secret),
        400,
        'invalid_scope',
      ],
      [
        'grant_type=client_credentials&grant_type=client_credentials',
        basic(client.client_id, client.client_secret),
        400,
        'invalid_request',
      ],
      [
        `grant_type=client_credentials&client_secret=${client.client_secret}`,
        basic(client.client_id, client.client_secret),
        400,
        'invalid_request',
      ],
    ];
    for (const [body, auth, status, error] of cases) {
      const r = await api.call('POST', '/api/v1/oauth/token', form(body, auth));
      expect([r.status, r.json.error], body).toEqual([status, error]);
      expect(r.headers.get('cache-control')).toBe('no-store');
      if (status === 401 && auth) expect(r.headers.get('www-authenticate')).toBe('Basic realm="trainprint"');
      expect(r.text).not.toContain(client.client_secret);
      // printable ASCII but `"` and `\` (RFC 6749 §5.2)
      expect(r.json.error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    }
    // the form read through its contract: refusals worded as every refusal is, quotes as '
    const said = async (body: string) => {
      const r = await api.call(
        'POST',
        '/api/v1/oauth/token',
        form(body, basic(client.client_id, client.client_secret)),
      );
      return [r.status, r.json.error, r.json.error_description];
    };
    expect(await said('scope=kb')).toEqual([400, 'invalid_request', 'grant_type: is required']);
    expect(await said('grant_type=password')).toEqual([
      400,
      'unsupported_grant_type',
      "grant_type: must be 'client_credentials'",
    ]);
    expect(await said('grant_type=client_credentials&scope=kb%20admin')).toEqual([
      400,
      'invalid_scope',
      'scope: not granted to this client: admin',
    ]);
    expect(await said('grant_type=client_credentials&scope=%20')).toEqual([
      400,
      'invalid_scope',
      'scope: names no scope',
    ]);
    expect(await said('grant_type=client_credentials&grant_type=x')).toEqual([
      400,
      'invalid_request',
      'grant_type: is given more than once',
    ]);
    // a parameter it does not know is ignored, one without a value is as if not sent (RFC 6749 §3.2)
    const lenient = await api.call(
      'POST',
      '/api/v1/oauth/token',
      form('grant_type=client_credentials&scope=&audience=x', basic(client.client_id, client.client_secret)),
    );
    expect([lenient.status, lenient.json.scope]).toEqual([200, 'kb analyze usage']);
    const json = await api.call('POST', '/api/v1/oauth/token', { json: { grant_type: 'client_credentials' } });
    expect(json.status).toBe(415);
  });
});

describe('bodies over node:http', () => {
  let api: Api;
  let key: string;
  beforeAll(async () => {
    api = await start({ maxBodyBytes: 256 * 1024 }, engine);
    key = (await api.keys.createKey({ account: 'bodies', plan: 'pro' })).key;
  });

  /** A raw request: `write` gets the request to send its body; resolves with the response. */
  function raw(
    path: string,
    headers: Record<string, string | number>,
    write: (req: ReturnType<typeof httpRequest>) => void,
  ) {
    return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest(
        `${api.server.url}${path}`,
        { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => {
            resolve({ status: res.statusCode!, body, headers: res.headers });
            req.destroy();
          });
        },
      );
      req.on('error', (e) => {
        if (!(e as NodeJS.ErrnoException).code?.startsWith('ECONN') && (e as NodeJS.ErrnoException).code !== 'EPIPE')
          reject(e);
      });
      write(req);
    });
  }

  it('413 for a declared Content-Length over the limit, before the body is sent', async () => {
    // the client sends 12 bytes and waits: the answer comes without the rest (else the test's timeout ends it)
    const r = await raw(
      '/api/v1/attribution/analyze',
      { 'content-type': 'application/json', 'content-length': 50 * 1024 * 1024 },
      (req) => {
        req.write('{"content":"'); // 12 bytes of a promised 50 MiB: the answer must not wait for the rest
      },
    );
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    api.validate('POST', '/api/v1/attribution/analyze', 413, JSON.parse(r.body));
    expect(r.headers.connection).toBe('close');
  });

  it('413 for a chunked body counted past the limit while streaming', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const r = await raw('/api/v1/attribution/analyze', { 'content-type': 'application/json' }, (req) => {
      let sent = 0;
      const pump = () => {
        while (sent < 64) {
          // 4 MiB, far past 256 KiB
          sent++;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      req.write('{"content":"');
      pump();
    });
    expect(r.status).toBe(413);
    api.validate('POST', '/api/v1/attribution/analyze', 413, JSON.parse(r.body));
    // the server still serves the next request
    expect((await api.call('GET', '/api/v1/kb/providers', { key })).status).toBe(200);
  });

  it('415 for other content types and charsets, 400 for bodies that are not UTF-8', async () => {
    for (const type of ['text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded']) {
      const r = await api.call('POST', '/api/v1/attribution/compare', {
        key,
        body: '{"a":"x","b":"y"}',
        headers: { 'content-type': type },
      });
      expect([type, r.status]).toEqual([type, 415]);
    }
    const r = await api.call('POST', '/api/v1/attribution/compare', {
      key,
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('MALFORMED_JSON');
  });

  it('concurrent requests with one Idempotency-Key create one work', async () => {
    const body = { content: 'A work registered by an impatient client that retries at once.' };
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        api.call('POST', '/api/v1/content/register', { key, json: body, headers: { 'idempotency-key': 'burst' } }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(new Set(replies.filter((r) => r.status === 201).map((r) => r.json.work_id)).size).toBe(1);
    const all = await api.call('GET', '/api/v1/content', { key });
    expect(all.json.works).toHaveLength(1);
  });

  it('a client that disconnects mid-response does not disturb the server', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest(
        `${api.server.url}/api/v1/datasets/pg-sample/export`,
        { headers: { authorization: `Bearer ${key}` } },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => undefined);
      req.end();
    });
    expect((await api.call('GET', '/api/v1/datasets/pg-sample', { key })).status).toBe(200);
  });
});

describe('large requests run a few at a time', () => {
  it('with one place and no queue, a second large request is 503 with Retry-After once its body is read', async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const key = (await keys.createKey({ account: 'big', plan: 'pro' })).key;
    // the first request holds its place while its body is parsed, until the test lets it go
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    let parsing = 0;
    const offload = {
      run: async (work: PureWork) => structuredClone(engine.runWork(work)),
      parseJson: async (bytes: Uint8Array) => {
        if (parsing++ === 0) await held;
        return parseJsonBody(bytes);
      },
    } as Offload & JsonBodyOffload;
    const handler = createHandler(engine, { keys, largeRequests: { running: 1, waiting: 0 }, offload });
    const content = 'The keeper counted herons over the estuary at dawn. '.repeat(50_000); // 2.6 MB
    const json = new TextEncoder().encode(JSON.stringify({ content, content_type: 'text' }));
    /** An analyze request whose body streams from `body`, its full length declared. */
    const streamed = (body: ReadableStream<Uint8Array>) =>
      new Request('http://api.test/api/v1/attribution/analyze', {
        method: 'POST',
        duplex: 'half',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(json.length),
        },
        body,
      } as RequestInit);
    const first = handler(
      new Request('http://api.test/api/v1/attribution/analyze', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: json,
      }),
    );
    while (parsing === 0) await new Promise((r) => setTimeout(r, 5));
    let pulled = 0;
    const second = await handler(
      streamed(
        new ReadableStream<Uint8Array>(
          {
            pull(c) {
              pulled++;
              c.enqueue(json);
              c.close();
            },
          },
          { highWaterMark: 0 },
        ),
      ),
    );
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('5');
    expect((await second.json()).error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(pulled).toBe(1); // read first: a body takes its place once it is in, never while it arrives
    // small requests are not held up
    const small = await handler(
      new Request('http://api.test/api/v1/attribution/compare', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ a: 'one two three four five six', b: 'one two three four five six' }),
      }),
    );
    expect(small.status).toBe(200);
    letGo();
    expect((await first).status).toBe(200);
    // the place is given back: the next large request runs
    const third = await handler(
      new Request('http://api.test/api/v1/attribution/analyze', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: json,
      }),
    );
    expect(third.status).toBe(200);
    engine.dispose();
  });
});
