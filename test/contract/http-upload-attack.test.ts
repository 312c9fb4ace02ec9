/**
 * A 200 MiB upload to a dataset that does not exist, is another account's (which this one cannot see) or is shared
 * (the operator's), over a real socket to `serve` on 127.0.0.1: the server answers 404 / 404 / 403 with the JSON
 * error envelope from the path alone, closes the
 * connection instead of reading all of the rest, and goes on serving.
 *
 * First the answer with 200 MiB declared and none of it sent: it comes, so it does not wait for the body. Then
 * the body offered as fast as the socket takes it (64 KiB at a time, with backpressure) until the answer stops
 * it: a bounded loop of at most 200 MiB. The server closes with a lingering close (it reads and drops what still
 * comes, for a bounded time), so no reset overtakes the answer: the client always reads it, having sent far
 * from 200 MiB. Nothing is timed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';

const TOTAL = 200 * 1024 * 1024;
const CHUNK = new Uint8Array(64 * 1024).fill(0x20);

interface Outcome {
  /** The answer, or null when the connection was cut before the client read one. */
  readonly answer: { status: number; body: string } | null;
  /** Bytes of the body handed to the socket before the answer or the cut. */
  readonly sent: number;
}

/**
 * POST to `path` with a Content-Length of TOTAL bytes of JSON-typed spaces, of which `offer` sends as many as
 * the socket takes (else none), until the answer is in or the server has closed the connection.
 */
function upload(url: string, path: string, key: string, offer: boolean): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = false;
    const finish = (answer: Outcome['answer']) => {
      if (done) return;
      done = true;
      req.destroy();
      resolve({ answer, sent });
    };
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': TOTAL },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => finish({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (done) return;
      // the server closed the connection on the unread body: the expected end of the upload
      if (offer && (e.code === 'EPIPE' || e.code === 'ECONNRESET')) finish(null);
      else reject(e);
    });
    if (!offer) return void req.flushHeaders();
    const pump = (): void => {
      while (!done && !req.destroyed && sent < TOTAL) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (sent >= TOTAL && !done) req.end();
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
    await engine.addDataset({ id: 'operator-set' }, [
      { id: 'a', text: 'A document the operator loaded for every account.' },
    ]);
    server = await serve(createHandler(engine, { keys }), { port: 0 });
    const made = await fetch(`${server.url}/api/v1/datasets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${globex}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'globex-set' }),
    });
    expect(made.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is answered from the path, 404 / 403 with the error envelope, without reading the body; the server goes on', async () => {
    const cases = [
      ['/api/v1/datasets/no-such-set/documents', 404, 'NOT_FOUND'],
      ['/api/v1/datasets/globex-set/documents', 404, 'NOT_FOUND'],
      ['/api/v1/datasets/operator-set/documents', 403, 'FORBIDDEN'],
    ] as const;
    for (const [path, status, code] of cases) {
      const declared = await upload(server.url, path, acme, false);
      expect(declared.answer?.status, path).toBe(status);
      expect(JSON.parse(declared.answer!.body), path).toMatchObject({ success: false, error: { code } });
      const offered = await upload(server.url, path, acme, true);
      expect(offered.answer?.status, path).toBe(status);
      expect(offered.sent, path).toBeLessThan(TOTAL / 4); // the sockets' buffers, not the body
    }
    const status = await fetch(`${server.url}/api/v1/status`);
    expect(status.status).toBe(200);
  });
});
