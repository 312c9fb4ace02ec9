/**
 * The order of the handler's steps (src/http/handler.ts, src/http/pipeline/) and what each leaves on the answer: a
 * request with several faults is refused by the earliest step that sees one; the headers a step collected stay on
 * every later answer; what a request holds (a `beforeBody` allowance) is given back however it ends; unexpected
 * errors reach `onError` with the request id, as a method of the options.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, TrainprintError, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type Handler, type Route } from '../../src/http/index.js';

let engine: Engine;
let handler: Handler;
let key = '';
let tiny = '';
const released: string[] = [];
const errors: Array<{ message: string; requestId: string; fromOptions: boolean }> = [];

/** A JSON route with a `beforeBody` that allows 30 bytes and records when they are given back. */
const allowanceRoute: Route = {
  method: 'POST',
  path: '/api/v1/test/things/{thing}',
  operationId: 'testThing',
  tag: 'test',
  scope: 'kb',
  summary: 'test',
  body: 'json',
  requestSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
  responseSchema: {},
  beforeBody: async (ctx) => {
    if (ctx.params.thing === 'missing') throw new TrainprintError('NOT_FOUND', 'no such thing');
    return { maxBodyBytes: 30, reason: '30 bytes left', release: () => released.push(ctx.params.thing) };
  },
  handler: async (ctx) => {
    if (ctx.params.thing === 'broken') throw new Error('a bug');
    return { got: ctx.body };
  },
};

beforeAll(async () => {
  engine = await createEngine();
  const keys = new KeyStore(engine.store);
  const options = {
    keys,
    plans: { tiny: { daily: 1 } },
    maxBodyBytes: 1000,
    routes: [allowanceRoute],
    onError(this: unknown, error: unknown, requestId: string) {
      errors.push({ message: (error as Error).message, requestId, fromOptions: this === options });
    },
  };
  handler = createHandler(engine, options);
  key = (await keys.createKey({ account: 'acme', plan: 'pro' })).key;
  tiny = (await keys.createKey({ account: 'tiny', plan: 'tiny', scopes: ['kb', 'registry:write'] })).key;
});
afterAll(() => engine?.dispose());

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return handler(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      body,
      // as the Node bridge passes it: a Request made here has no Content-Length of its own
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
    }),
  );
}
const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe('the order of the steps', () => {
  it('a declared length over the limit is 413 before authentication', async () => {
    const res = await post('/api/v1/content/register', 'x'.repeat(1001));
    expect(res.status).toBe(413);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('authentication comes before the Content-Type, the plan before the body', async () => {
    const noKey = await post('/api/v1/content/register', '{', { 'content-type': 'text/plain' });
    expect([noKey.status, await codeOf(noKey)]).toEqual([401, 'UNAUTHORIZED']);
    // tiny's one call of the day, then the plan refuses before the Content-Type or the body are looked at
    const first = await post('/api/v1/content/register', '{', { ...bearer(tiny), 'content-type': 'text/plain' });
    expect(first.status).toBe(415);
    expect(first.headers.get('ratelimit-remaining')).toBe('0');
    const over = await post('/api/v1/content/register', '{', { ...bearer(tiny), 'content-type': 'text/plain' });
    expect([over.status, await codeOf(over)]).toEqual([429, 'RATE_LIMITED']);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('the RateLimit-* headers of the charge stay on the later refusals (400, 422)', async () => {
    for (const [body, status] of [
      ['{', 400],
      ['{"zzz":1}', 422],
    ] as const) {
      const res = await post('/api/v1/content/register', body, bearer(key));
      expect(res.status).toBe(status);
      expect(res.headers.get('ratelimit-limit')).toBe('10000');
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    }
  });
});

describe('what a request holds is given back however it ends', () => {
  it('the allowance of beforeBody: after a success, a 413 and a failing route; none when it refused', async () => {
    released.length = 0;
    const missing = await post('/api/v1/test/things/missing', '{}', bearer(key));
    expect([missing.status, await codeOf(missing)]).toEqual([404, 'NOT_FOUND']);
    const ok = await post('/api/v1/test/things/one', '{"a":"b"}', bearer(key));
    expect(await ok.json()).toEqual({ success: true, got: { a: 'b' } });
    const big = await post('/api/v1/test/things/two', JSON.stringify({ a: 'x'.repeat(40) }), bearer(key));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toContain('30 bytes left');
    const broken = await post('/api/v1/test/things/broken', '{}', { ...bearer(key), 'x-request-id': 'trace-1' });
    expect(broken.status).toBe(500);
    expect(released).toEqual(['one', 'two', 'broken']);
    expect(errors).toEqual([{ message: 'a bug', requestId: 'trace-1', fromOptions: true }]);
  });
});
