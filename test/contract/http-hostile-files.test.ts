/**
 * The attack files of test/fixtures/hostile-files.ts sent to a real `serve` on 127.0.0.1 as multipart uploads with a
 * Free key: each is answered within the extraction's budget — a 413 naming the limit it passed, or its text (the
 * repeated chapter once, the DOCTYPE's junk left out) — and the server answers `/status` meanwhile and after. A file
 * of any size takes a place among the large requests: with one place and none to wait in, a second file is 503.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';
import { HOSTILE_FILES } from '../fixtures/hostile-files.js';

let engine: Engine;
let server: Server;
let key = '';

beforeAll(async () => {
  engine = await createEngine();
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'mallory', plan: 'free', scopes: ['analyze'] })).key;
  server = await serve(createHandler(engine, { keys }), { port: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  engine?.dispose();
});

/**
 * One request on a connection of its own (no keep-alive: a reused connection the server has just closed would fail
 * for a reason that is not this test's); the status and the JSON answer.
 */
function call(method: string, path: string, body?: { bytes: Uint8Array; type: string }) {
  return new Promise<{ status: number; json: Record<string, any> }>((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${key}` };
    if (body) Object.assign(headers, { 'content-type': body.type, 'content-length': body.bytes.length });
    const req = request(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body?.bytes);
  });
}

/** POST the named attack file to analyze as a multipart upload; the status and JSON answer. */
async function analyzeFile(name: string, fields: Record<string, string> = {}) {
  const [, bytes] = HOSTILE_FILES[name]();
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const encoded = new Response(form);
  const type = encoded.headers.get('content-type') ?? '';
  return call('POST', '/api/v1/attribution/analyze', { bytes: new Uint8Array(await encoded.arrayBuffer()), type });
}

describe('hostile files over HTTP, Free plan', () => {
  it.each([
    ['flate-bomb.pdf', /inflates to more than 268435456 bytes.*maxUncompressedBytes/],
    ['font-bomb.pdf', /inflates to more than 268435456 bytes.*maxUncompressedBytes/],
    ['million-items.pdf', /page 1 has more than 50000 text items/],
    ['page-references.pdf', /an object takes more than 1048576 bytes/],
    ['pages-dag.pdf', /1000000000 pages, over the limit of 10000/],
  ])('%s: 413 naming the limit, and /status answers meanwhile', async (name, message) => {
    const answer = analyzeFile(name);
    const status = await call('GET', '/api/v1/status');
    expect(status.status).toBe(200);
    const r = await answer;
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(r.json.error.message).toMatch(message);
  });

  it.each([
    ['quadratic-attribute.docx', 'hello world'],
    ['quadratic-attribute.epub', 'hello world'],
    ['doctype.epub', 'a  b  c'],
  ])('%s: its text', async (name, text) => {
    const r = await analyzeFile(name, { include_text: 'true' });
    expect(r.status).toBe(200);
    expect(r.json.extraction.text).toBe(text);
  });

  it('spine-repeat.epub: the chapter once, under the text cap', async () => {
    const r = await analyzeFile('spine-repeat.epub');
    expect(r.status).toBe(200);
    expect(r.json.extraction.characters).toBeGreaterThan(1_000_000);
    expect(r.json.extraction.characters).toBeLessThan(1 << 20);
  });
});

describe('document files and the large requests', () => {
  it('a file of a few KB takes a place: with one place and no queue, a second at once is 503', async () => {
    const keys = new KeyStore(engine.store);
    const free = (await keys.createKey({ account: 'small', plan: 'free', scopes: ['analyze'] })).key;
    const handler = createHandler(engine, { keys, largeRequests: { running: 1, waiting: 0 } });
    const [, spine] = HOSTILE_FILES['spine-repeat.epub']();
    const post = (body: Record<string, unknown>) =>
      handler(
        new Request('http://api.test/api/v1/attribution/analyze', {
          method: 'POST',
          headers: { authorization: `Bearer ${free}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const file = { content: Buffer.from(spine).toString('base64'), content_encoding: 'base64', content_type: 'epub' };
    // both start at once: one takes the place, the other finds it taken and no room to wait (which one is a race)
    const answers = await Promise.all([post(file), post(file)]);
    const text = await post({ content: 'A short text takes no place.', content_type: 'text' });
    expect(answers.map((a) => a.status).sort()).toEqual([200, 503]);
    const refused = answers.find((a) => a.status === 503)!;
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as any).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(text.status).toBe(200);
  });
});
