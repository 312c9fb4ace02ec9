/**
 * The HTTP adapter with an offload (what `trainprint serve` passes: its worker pool), through
 * `handler(new Request(…))`:
 *
 * - a JSON body of 1 MiB and more is parsed and checked by the offload's `parseJson`, with the same value
 *   and the same errors (400 MALFORMED_JSON saying where, 422 naming the field) as in the handler's thread;
 * - `score` runs its chunking on the offload and gives the score `engine.score` gives in one go;
 * - long HTML or Markdown is extracted on the offload (analyze, register) with the same text and offset map;
 * - a request cut by shutdown — the pool closed before its work was done, or the engine disposed under it —
 *   is answered 503 SERVICE_UNAVAILABLE with the JSON error envelope, never 500.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type Offload } from '../../src/library.js';
import { createHandler, KeyStore, type HandlerOptions, type JsonBodyOffload } from '../../src/http/index.js';
import { createWorkerPool } from '../../src/node/index.js';
import { knowledgeBase } from '../../src/services/kb/index.js';
import { recordingOffload } from '../fixtures/offload.js';
import { book } from '../fixtures/texts/index.js';

async function setup(options: HandlerOptions = {}) {
  const engine = await createEngine();
  await engine.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, [
    { id: 'persuasion', text: book('austen-persuasion') },
  ]);
  const keys = new KeyStore(engine.store);
  const { key } = await keys.createKey({ account: 'acme', plan: 'enterprise' });
  const handler = createHandler(engine, { ...options, keys });
  const call = async (method: string, path: string, body?: string | Record<string, unknown>) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const text = typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
    const res = await handler(new Request(`http://api.test${path}`, { method, headers, body: text }));
    return { status: res.status, json: await res.json() };
  };
  return { engine, call };
}

/** A recording offload (test/fixtures/offload.ts) that parses bodies too, as the worker pool does ('json'). */
async function countingOffload() {
  const { offload: work, kinds: calls, works } = await recordingOffload();
  const pool = createWorkerPool({ threads: 1 }); // in this thread here (no built worker file beside the sources)
  const offload: Offload & JsonBodyOffload = {
    run: work.run,
    parseJson: async (bytes, schema) => {
      calls.push('json');
      return structuredClone(await pool.parseJson(bytes, schema));
    },
  };
  return { offload, calls, works };
}

/**
 * About 1.2 MB of prose with one quoted passage of the indexed book: a body over the 1 MiB from which the
 * offload parses it, with little to align (the alignment's time budget stays far away).
 */
const LARGE = [
  book('milton-paradise'),
  book('austen-persuasion').slice(10_000, 14_000),
  book('chesterton-thursday'),
  book('shakespeare-caesar'),
  book('milton-paradise'),
]
  .join('\n\n')
  .slice(0, 1_200_000);
const strip = ({ analysis_id: _a, created_at: _c, ...rest }: Record<string, unknown>) => rest;

describe('HTTP with an offload', () => {
  it("parses a large JSON body on the offload: the same analysis as in the handler's thread", async () => {
    const { offload, calls } = await countingOffload();
    const off = await setup({ offload });
    const local = await setup();
    const body = { content: LARGE, content_type: 'text', metadata: { title: 'Persuasion, four times' } };
    const a = await off.call('POST', '/api/v1/attribution/analyze', body);
    const b = await local.call('POST', '/api/v1/attribution/analyze', body);
    expect(a.status).toBe(200);
    expect(strip(a.json)).toEqual(strip(b.json));
    expect(calls[0]).toBe('json');
    // a small body stays in the handler's thread
    calls.length = 0;
    expect(
      (await off.call('POST', '/api/v1/attribution/analyze', { content: 'A short text.', content_type: 'text' }))
        .status,
    ).toBe(200);
    expect(calls).not.toContain('json');
  });

  it('gives the same errors for a large body parsed on the offload', async () => {
    const { offload } = await countingOffload();
    const off = await setup({ offload });
    const local = await setup();
    const bodies = [
      JSON.stringify({ content: LARGE, content_type: 'text' }).slice(0, -1), // cut short: 400 saying where
      JSON.stringify({ content: LARGE, content_type: 'rtf' }), // schema: 422 naming the field
      JSON.stringify({ content: LARGE, content_type: 'text', extra: 1 }),
      JSON.stringify({ content: `${LARGE}\ud800`, content_type: 'text' }), // a lone surrogate
    ];
    for (const body of bodies) {
      const a = await off.call('POST', '/api/v1/attribution/analyze', body);
      const b = await local.call('POST', '/api/v1/attribution/analyze', body);
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect([a.status, a.json]).toEqual([b.status, b.json]);
    }
  });

  it('extracts long HTML on the offload: the same analysis, spans in the HTML sent', async () => {
    const { offload, calls } = await countingOffload();
    const off = await setup({ offload });
    const local = await setup();
    const paragraphs = LARGE.split('\n\n').map((p) => `<p>${p.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</p>`);
    const body = { content: `<html><body>${paragraphs.join('\n')}</body></html>`, content_type: 'html' };
    const a = await off.call('POST', '/api/v1/attribution/analyze', body);
    const b = await local.call('POST', '/api/v1/attribution/analyze', body);
    expect(a.status).toBe(200);
    expect(calls).toContain('extract');
    expect(strip(a.json)).toEqual(strip(b.json));
    const quoted = a.json.matches.find((m: { document_id: string }) => m.document_id === 'persuasion');
    expect(body.content.slice(quoted.query_start, quoted.query_end)).toContain('</p>');
  });

  it('registers long content with extraction and fingerprint on the offload: the same work', async () => {
    const { offload, calls, works } = await countingOffload();
    const off = await setup({ offload });
    const local = await setup();
    const markdown = `# Persuasion\n\n${book('austen-persuasion').slice(0, 200_000).replaceAll('\n\n', '\n\n> ')}`;
    for (const body of [{ content: markdown, content_type: 'markdown' }, { content: markdown.slice(0, 150_000) }]) {
      const a = await off.call('POST', '/api/v1/content/register', body);
      const b = await local.call('POST', '/api/v1/content/register', body);
      expect(a.status).toBe(201);
      const same = ({ work_hash, fingerprint, tokens, content_type }: Record<string, unknown>) => ({
        work_hash,
        fingerprint,
        tokens,
        content_type,
      });
      expect(same(a.json)).toEqual(same(b.json));
    }
    expect(calls.filter((k) => k !== 'json')).toEqual(['extract', 'fingerprint', 'fingerprint']);
    // the id and the token count are what a registration reads: no per-shingle column crosses back
    for (const w of works) if (w.kind === 'fingerprint') expect(w.columns).toEqual({});
    // a lone surrogate is the same error either way, the offload's fingerprint finding it where engine.fingerprint does
    for (const bad of [
      { content: `${markdown.slice(0, 100_000)}\ud800` },
      { content: `${markdown.slice(0, 60_000)}\udc00${markdown.slice(60_000, 120_000)}\ud800` },
    ]) {
      const a = await off.call('POST', '/api/v1/content/register', bad);
      const b = await local.call('POST', '/api/v1/content/register', bad);
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect([a.status, a.json.error.code, a.json.error.message]).toEqual([
        b.status,
        b.json.error.code,
        b.json.error.message,
      ]);
      expect(a.json.error.message).toContain('lone surrogate');
    }
  });

  it('scores with the chunking on the offload: the score engine.score gives in one go', async () => {
    const { offload, calls } = await countingOffload();
    const { engine, call } = await setup({ offload });
    const content = book('austen-persuasion').slice(50_000, 70_000);
    const work = await call('POST', '/api/v1/content/register', { content });
    expect(work.status).toBe(201);
    const model = knowledgeBase().modelsTrainedOn('project-gutenberg')[0].model.id;
    const request = { work_hash: work.json.work_hash, target_model: model, jurisdiction: 'US' };
    const served = await call('POST', '/api/v1/attribution/score', request);
    expect(served.status).toBe(200);
    expect(calls).toContain('fingerprint');
    const { success: _s, ...score } = served.json;
    expect(score).toEqual(JSON.parse(JSON.stringify(await engine.score(request, { sliceMs: Infinity }))));
  });

  it('answers 503 SERVICE_UNAVAILABLE with the error envelope when the pool closes under a request', async () => {
    const pool = createWorkerPool({ threads: 1 });
    let closing: Promise<void> | null = null;
    // the pool closes once the analysis has asked it for its first piece of work: the next piece is refused
    const offload: Offload = {
      run: (work) => {
        const answer = pool.run(work);
        closing ??= pool.close();
        return answer;
      },
    };
    const { call } = await setup({ offload });
    const r = await call('POST', '/api/v1/attribution/analyze', {
      content: book('austen-persuasion').slice(0, 50_000),
      content_type: 'text',
    });
    expect(closing).not.toBeNull();
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', details: { request_id: expect.any(String) } },
    });
  });

  it('answers 503 SERVICE_UNAVAILABLE, not 500, when the engine is disposed under a request', async () => {
    const helper = await createEngine();
    let dispose: () => void = () => {};
    const offload: Offload = {
      run: async (work) => {
        dispose();
        return structuredClone(helper.runWork(work));
      },
    };
    const { engine, call } = await setup({ offload });
    dispose = () => engine.dispose();
    const r = await call('POST', '/api/v1/attribution/analyze', {
      content: book('austen-persuasion').slice(0, 50_000),
      content_type: 'text',
    });
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});
