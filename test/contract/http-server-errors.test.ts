/**
 * Every 500 leaves a trace (round 6's L6): one JSON line on stderr with the request id the client was given, the
 * method and route, and the error's class, message and stack; the client's body holds the request id and nothing
 * internal. An operator's `onError` replaces the line and is told the same.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type Handler, type HandlerOptions } from '../../src/http/index.js';
import type { Route } from '../../src/http/context.js';

const failing: Route = {
  method: 'POST',
  path: '/api/v1/test/failing/{kind}',
  operationId: 'testFailing',
  tag: 'service',
  scope: null,
  summary: 'fails as the path says',
  responseSchema: { type: 'object' },
  body: 'json',
  handler: async (ctx) => {
    if (ctx.params.kind === 'range') throw new RangeError('Invalid string length');
    throw new Error('a bug', { cause: new TypeError('deeper') });
  },
};

let engine: Engine;
let keys: KeyStore;
beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
});
afterAll(() => engine.dispose());
afterEach(() => vi.restoreAllMocks());

const call = (handler: Handler, kind: string, id?: string) =>
  handler(
    new Request(`http://api.test/api/v1/test/failing/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(id ? { 'x-request-id': id } : {}) },
      body: '{"secret":"the body is never logged"}',
    }),
  );

function handlerWith(options: Partial<HandlerOptions> = {}): Handler {
  return createHandler(engine, { keys, routes: [failing], ...options });
}

describe('a 500', () => {
  it('writes one structured line on stderr, found by the request id of the answer', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(' ')));
    const res = await call(handlerWith(), 'range');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { code: string; message: string; details: Record<string, string> } };
    const id = res.headers.get('x-request-id');
    expect(body.error).toEqual({
      code: 'INTERNAL',
      message: 'An unexpected error occurred',
      details: { request_id: id },
    });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({
      level: 'error',
      request_id: id,
      method: 'POST',
      route: '/api/v1/test/failing/{kind}',
      operation: 'testFailing',
      error: { class: 'RangeError', message: 'Invalid string length', stack: expect.stringContaining('RangeError') },
    });
    expect(new Date(line.time).toISOString()).toBe(line.time);
    expect(lines[0]).not.toContain('never logged');
  });

  it("names the error's causes, and the client's own request id", async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(' ')));
    const res = await call(handlerWith(), 'plain', 'trace-42');
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    const line = JSON.parse(lines[0]);
    expect(line.request_id).toBe('trace-42');
    expect(line.error).toMatchObject({
      class: 'Error',
      message: 'a bug',
      cause: { class: 'TypeError', message: 'deeper' },
    });
  });

  it("goes to the operator's onError instead, with where it failed; a throwing hook changes nothing", async () => {
    const seen: unknown[] = [];
    const spy = vi.spyOn(console, 'error');
    const res = await call(
      handlerWith({ onError: (error, requestId, where) => void seen.push({ error, requestId, where }) }),
      'range',
      'trace-7',
    );
    expect(res.status).toBe(500);
    expect(seen).toEqual([
      {
        error: expect.any(RangeError),
        requestId: 'trace-7',
        where: { method: 'POST', route: '/api/v1/test/failing/{kind}', operation: 'testFailing' },
      },
    ]);
    expect(spy).not.toHaveBeenCalled();
    const throwing = await call(
      handlerWith({
        onError: () => {
          throw new Error('the hook');
        },
      }),
      'range',
    );
    expect(throwing.status).toBe(500);
  });

  it('a refusal (4xx) writes nothing', async () => {
    const spy = vi.spyOn(console, 'error');
    const res = await handlerWith()(
      new Request('http://api.test/api/v1/test/failing/x', { method: 'POST', body: '{' }),
    );
    expect(res.status).toBe(415);
    expect(spy).not.toHaveBeenCalled();
  });
});
