/**
 * A 200 MiB upload to a dataset that does not exist (or is another account's), over a real socket to `serve`
 * on 127.0.0.1: the server answers 404 / 403 with the JSON error envelope from the path alone, closes the
 * connection instead of reading the rest, and goes on serving. The client offers the body as it can be sent
 * (64 KiB at a time, with backpressure) and stops at the answer: a bounded loop of at most 200 MiB. What it
 * got to send before the answer is what the sockets buffer, far from 200 MiB; nothing is timed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';

const TOTAL = 200 * 1024 * 1024;
const CHUNK = new Uint8Array(64 * 1024).fill(0x20);

/**
 * POST up to TOTAL bytes of JSON-typed spaces to `path`, stopping once the answer is in (or the server has
 * closed the connection): the status, the body, and how many bytes were handed to the socket before that.
 */
function upload(url: string, path: string, key: string): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': TOTAL },
    }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => { req.destroy(); resolve({ status: res.statusCode ?? 0, body, sent }); });
    });
    // a server that answers and closes makes further writes fail: that is the expected end of the upload
    req.on('error', (e) => { if (!answered) reject(e); });
    const pump = (): void => {
      while (!answered && !req.destroyed && sent < TOTAL) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (sent >= TOTAL && !answered) req.end();
    };
    pump();
  });
}

describe('a 200 MiB upload to a missing or foreign dataset over HTTP', () => {
  let server: Server;
  let acme = '';
  beforeAll(async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const scopes = ['datasets:read', 'datasets:write', 'analyze'] as const;
    acme = (await keys.createKey({ account: 'acme', plan: 'pro', scopes: [...scopes] })).key;
    const globex = (await keys.createKey({ account: 'globex', plan: 'pro', scopes: [...scopes] })).key;
    server = await serve(createHandler(engine, { keys }), { port: 0 });
    const made = await fetch(`${server.url}/api/v1/datasets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${globex}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'globex-set' }),
    });
    expect(made.status).toBe(201);
  });
  afterAll(async () => { await server?.close(); });

  it('is answered from the path, 404 / 403 with the error envelope, without reading the body; the server goes on', async () => {
    const cases = [['/api/v1/datasets/no-such-set/documents', 404, 'NOT_FOUND'], ['/api/v1/datasets/globex-set/documents', 403, 'FORBIDDEN']] as const;
    for (const [path, status, code] of cases) {
      const r = await upload(server.url, path, acme);
      expect(r.status, path).toBe(status);
      expect(JSON.parse(r.body), path).toMatchObject({ success: false, error: { code } });
      expect(r.sent, path).toBeLessThan(TOTAL / 4); // the sockets' buffers, not the body
    }
    const status = await fetch(`${server.url}/api/v1/status`);
    expect(status.status).toBe(200);
  });
});
