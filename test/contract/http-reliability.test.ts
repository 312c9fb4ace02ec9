/**
 * Reliability defects an attack run found, each pinned: HEAD is served wherever GET is; TRACE (which a Fetch Request
 * cannot carry) is the path's 405 with its Allow, not a 500; a client that goes away mid-body is the client's doing (499 in
 * the logs), never a server error on the public status page; reading one's own usage is not charged and works at the
 * limit; the statistics refuse non-numbers instead of returning NaN.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binomialUpperTail, createEngine, wilsonInterval, type Engine } from '../../src/library.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { authSubjects } from '../../src/http/auth-throttle.js';
import { isLoopback } from '../../src/services/accounts/throttle.js';
import { CLIENT_ADDRESS_HEADER, serve, type Server } from '../../src/node/serve.js';

let engine: Engine;
let server: Server;
let key = '';
let free = '';

beforeAll(async () => {
  engine = await createEngine();
  const keys = new KeyStore(engine.store);
  // the handler tells the key store of its plans (a tiny one, to reach its limit here)
  const handler = createHandler(engine, { keys, plans: { tiny: { daily: 2 } } });
  key = (
    await keys.createKey({
      account: 'acme',
      plan: 'pro',
      scopes: ['analyze', 'usage', 'kb', 'datasets:read', 'datasets:write'],
    })
  ).key;
  free = (await keys.createKey({ account: 'tiny', plan: 'tiny', scopes: ['usage', 'kb'] })).key;
  server = await serve(handler, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  engine?.dispose();
});

const get = (path: string, k = key, method = 'GET') =>
  fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${k}` } });

describe('methods', () => {
  it('HEAD is answered wherever GET is: same status and headers, no body', async () => {
    const g = await get('/api/v1/kb/models');
    const h = await get('/api/v1/kb/models', key, 'HEAD');
    expect(h.status).toBe(200);
    expect(h.headers.get('content-type')).toBe(g.headers.get('content-type'));
    expect(await h.text()).toBe('');
    // a path without GET still refuses HEAD, and a GET path lists HEAD among its methods
    const post = await get('/api/v1/attribution/analyze', key, 'HEAD');
    expect(post.status).toBe(405);
    const del = await fetch(`${server.url}/api/v1/kb/models`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD');
  });

  it("TRACE is the path's 405 with its own Allow (404 where no route is), in the error envelope, never a 500", async () => {
    const trace = (path: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = httpRequest(`${server.url}${path}`, { method: 'TRACE' }, (r) => {
          let body = '';
          r.on('data', (c) => {
            body += c;
          });
          r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const res = await trace('/api/v1/usage');
    expect(res.status).toBe(405);
    // the methods this path takes, as a PUT is told (not a fixed list for every path)
    expect(res.headers.allow).toBe('GET, HEAD');
    const json = JSON.parse(res.body);
    expect(json.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', details: { allow: ['GET', 'HEAD'] } });
    expect(json.error.message).toContain('TRACE is not allowed on /api/v1/usage');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const none = await trace('/api/v1/no-such-route');
    expect([none.status, JSON.parse(none.body).error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await (await fetch(`${server.url}/api/v1/status`)).json()).requests.server_errors).toBe(0);
  });
});

/**
 * One raw request over a socket (a Host header or a path that fetch would not send as written), with
 * `Connection: close`: the answer is what arrives before the server closes (its body chunked or not).
 */
function rawRequest(head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () =>
      socket.write(`${head}\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (c) => {
      text += c;
    });
    socket.on('end', () => {
      const [headers, rest] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
      // a chunked body: its one chunk between the size line and the last chunk
      const body = /transfer-encoding: chunked/i.test(headers)
        ? rest.slice(rest.indexOf('\r\n') + 2, rest.lastIndexOf('\r\n0\r\n'))
        : rest;
      resolve({ status: Number(text.slice(9, 12)), body });
    });
    socket.on('error', reject);
  });
}

describe('the request line and Host as written', () => {
  it('a Host that is not a host and port is 400 in the error envelope, never a 500', async () => {
    for (const host of ['x@y', 'u:p@127.0.0.1', 'a b', '[::1']) {
      const r = await rawRequest(`GET /api/v1/status HTTP/1.1\r\nHost: ${host}`);
      expect([host, r.status]).toEqual([host, 400]);
      expect(JSON.parse(r.body).error.code).toBe('MALFORMED_REQUEST');
    }
    expect((await (await fetch(`${server.url}/api/v1/status`)).json()).requests.server_errors).toBe(0);
  });

  it('a path that begins with // is that path, not a host name', async () => {
    const auth = `Authorization: Bearer ${key}`;
    const hidden = await rawRequest(`GET //anything/api/v1/usage HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}`);
    expect(hidden.status).toBe(404);
    const doubled = await rawRequest(`GET //api/v1/usage HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}`);
    expect(JSON.parse(doubled.body).error.message).toContain('//api/v1/usage');
    const plain = await rawRequest(`GET /api/v1/usage HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}`);
    expect(plain.status).toBe(200);
    // the query goes with the path: an unknown parameter is named
    const query = await rawRequest(`GET /api/v1/usage?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}`);
    expect([query.status, JSON.parse(query.body).error.code]).toEqual([422, 'INVALID_INPUT']);
  });
});

describe('a client that goes away mid-body', () => {
  it('is not a server error: the status page stays operational with no incident', async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
          socket.write(
            `POST /api/v1/attribution/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"content":"half a body',
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', () => resolve());
      });
    }
    await new Promise((r) => setTimeout(r, 100));
    const status = await (await fetch(`${server.url}/api/v1/status`)).json();
    expect(status.requests.server_errors).toBe(0);
    expect(status.incidents).toEqual([]);
    expect(status.components.find((c: { name: string }) => c.name === 'api').status).toBe('operational');
  });
});

describe('usage', () => {
  it("reading one's own usage is not charged, and answers at the limit", async () => {
    expect((await get('/api/v1/kb/models', free)).status).toBe(200);
    expect((await get('/api/v1/kb/models', free)).status).toBe(200);
    expect((await get('/api/v1/kb/models', free)).status).toBe(429);
    for (let i = 0; i < 3; i++) {
      const u = await get('/api/v1/usage', free);
      expect(u.status).toBe(200);
      expect(await u.json()).toMatchObject({ limit: 2, used: 2, remaining: 0 });
    }
  });
});

describe('statistics refuse non-numbers', () => {
  it('wilsonInterval and binomialUpperTail: INVALID_INPUT, never NaN', () => {
    for (const bad of [NaN, Infinity, -Infinity, '3' as unknown as number, undefined as unknown as number]) {
      expect(() => wilsonInterval(bad, 10)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(() => wilsonInterval(3, bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(() => binomialUpperTail(bad, 10, 0.1)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(() => binomialUpperTail(3, 10, bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    }
    expect(wilsonInterval(0, 10)[0]).toBe(0);
    expect(binomialUpperTail(3, 100, 0.01)).toBeCloseTo(0.0794, 3);
  });
});

describe('failed authentication backs off', () => {
  it('per address and per credential: past 10 failures, 429 with Retry-After before any key is looked up', async () => {
    let now = Date.parse('2026-03-02T10:00:00Z');
    const e = await createEngine();
    const keys = new KeyStore(e.store);
    // the bridge says 127.0.0.1, which is never counted per address (a local proxy's): played here as a remote one
    const seen: string[] = [];
    const clientAddress = (r: Request) => {
      const peer = r.headers.get(CLIENT_ADDRESS_HEADER);
      seen.push(String(peer));
      return peer !== null && isLoopback(peer) ? '203.0.113.9' : peer;
    };
    const handler = createHandler(e, { keys, now: () => now, clientAddress });
    const good = (await keys.createKey({ account: 'acme', plan: 'pro', scopes: ['kb', 'keys'] })).key;
    const s = await serve(handler, { port: 0 });
    try {
      const attempt = (k: string, headers: Record<string, string> = {}) =>
        fetch(`${s.url}/api/v1/kb/providers`, { headers: { authorization: `Bearer ${k}`, ...headers } });
      // guessed keys, each different: the address is what they share
      for (let i = 0; i < 10; i++)
        expect((await attempt(`tp_live_${String(i).padStart(8, '0')}${'x'.repeat(24)}`)).status).toBe(401);
      expect((await attempt(`tp_live_guess0010${'x'.repeat(24)}`)).status).toBe(401); // the 11th: counted, wait 1 s
      const refused = await attempt(good);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await refused.json()).error.code).toBe('RATE_LIMITED');
      // a client cannot name another address: the bridge drops its header and says where it came from
      expect((await attempt(good, { [CLIENT_ADDRESS_HEADER]: '198.51.100.7' })).status).toBe(429);
      expect(seen.at(-1)).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      now += 1001;
      expect((await attempt(good)).status).toBe(200);
      expect((await attempt('tp_live_guess0012xxxxxxxxxxxxxxxxxxxxxxxx')).status).toBe(401); // the 12th: wait 2 s
      expect((await attempt(good)).headers.get('retry-after')).toBe('2');
      // after the window, the count starts again
      now += 11 * 60 * 1000;
      expect((await attempt(good)).status).toBe(200);

      // OAuth client secrets: per client id
      const client = await keys.createClient({ account: 'acme', plan: 'pro', scopes: ['kb'] });
      const token = (secret: string) =>
        fetch(`${s.url}/api/v1/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=${client.client_id}&client_secret=${secret}`,
        });
      now += 11 * 60 * 1000;
      for (let i = 0; i < 11; i++) expect((await token(`wrong-${i}`)).status).toBe(401);
      const slow = await token(client.client_secret);
      expect([slow.status, slow.headers.get('retry-after')]).toEqual([429, '1']);
      now += 1001;
      expect((await token(client.client_secret)).status).toBe(200);
    } finally {
      await s.close();
      e.dispose();
    }
  });
});

describe('what a failed authentication counts against', () => {
  it('an address unless loopback, and the credential presented, never a prefix of it', () => {
    const wrong = `tp_live_abcd1234${'x'.repeat(24)}`;
    expect(authSubjects('203.0.113.9', `Bearer ${wrong}`)).toEqual(['addr:203.0.113.9', `cred:${wrong}`]);
    for (const local of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.9.9.9'])
      expect(authSubjects(local, null)).toEqual([]);
    // a wrong key sharing a valid key's first characters never makes the valid one wait
    expect(authSubjects(null, `Bearer ${wrong}`)).not.toContain(`cred:tp_live_abcd1234${'y'.repeat(24)}`);
  });
});
