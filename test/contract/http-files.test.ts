/**
 * A file over HTTP: `POST /api/v1/attribution/analyze` with an EPUB, PDF or DOCX in base64 (`content_encoding:
 * "base64"`) answers as the library does for its bytes — `extraction`, spans into the extracted text — and the stored
 * analysis reads back the same; a broken file or a wrong pairing of type and encoding is a 422 JSON error naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';

const CHAPTERS = persuasion(2);
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

let engine: Engine;
let call: (method: string, path: string, json?: unknown) => Promise<{ status: number; json: Record<string, any> }>;

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'copies' }, [
    { id: 'ch1', text: CHAPTERS[0].text.split(/\s+/).slice(100, 220).join(' ') },
  ]);
  const keys = new KeyStore(engine.store);
  const key = (await keys.createKey({ account: 'press', plan: 'pro', scopes: ['analyze'] })).key;
  const handler = createHandler(engine, { keys });
  call = async (method, path, json) => {
    const res = await handler(
      new Request(`http://api.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: json === undefined ? undefined : JSON.stringify(json),
      }),
    );
    return { status: res.status, json: await res.json() };
  };
}, 60_000);
afterAll(() => engine?.dispose());

describe('a file over HTTP', () => {
  it('answers with the extraction and spans into the extracted text, as the library does for the bytes', async () => {
    const bytes = buildDocx(CHAPTERS);
    const body = { content: base64(bytes), content_encoding: 'base64', content_type: 'docx', include_text: true };
    const r = await call('POST', '/api/v1/attribution/analyze', body);
    expect(r.status).toBe(200);
    const x = r.json.extraction;
    expect(x).toMatchObject({ format: 'docx', bytes: bytes.length });
    const m = r.json.matches.find((y: { dataset_id: string }) => y.dataset_id === 'copies');
    expect(x.text.slice(m.query_start, m.query_end).split(/\s+/).length).toBeGreaterThanOrEqual(100);
    const lib = await engine.analyze({ content: bytes, content_type: 'docx', include_text: true });
    expect(r.json.matches).toEqual(lib.matches);
    const stored = await call('GET', `/api/v1/attribution/analyses/${r.json.analysis_id}`);
    expect(stored.json.extraction).toEqual(x);
  });

  it('refuses a broken file and a wrong pairing with a 422 naming it', async () => {
    const epub = buildEpub(CHAPTERS);
    for (const [body, message] of [
      [{ content: base64(epub.subarray(0, 700)), content_encoding: 'base64', content_type: 'epub' }, /EPUB|zip/i],
      [{ content: base64(epub), content_type: 'epub' }, /content_encoding/],
      [{ content: '%%%', content_encoding: 'base64', content_type: 'pdf' }, /base64/],
      [{ content: 'a text', content_encoding: 'base64', content_type: 'text' }, /takes text/],
      [{ content: base64(epub), content_encoding: 'gzip', content_type: 'epub' }, /content_encoding/],
    ] as const) {
      const r = await call('POST', '/api/v1/attribution/analyze', body);
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ success: false, error: { message: expect.stringMatching(message) } });
    }
  });
});
