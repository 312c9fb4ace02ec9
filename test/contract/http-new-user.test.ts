/**
 * What a new user met, pinned through the handler: `next_steps` holds only paths (the registration prefill sits beside
 * it), registration accepts the analyze request's `metadata` shape, every score tier comes with its reasons and what
 * would raise it, and a subdivision that does not exist (`US-ZZ`) is refused like `EU-DE`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';

// the opening of Moby-Dick (Melville, 1851; Project Gutenberg eBook #2701): 142 words, one chunk
const MOBY_DICK_OPENING =
  'Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse, ' +
  'and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of ' +
  'the world. It is a way I have of driving off the spleen and regulating the circulation. Whenever I find myself ' +
  'growing grim about the mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself ' +
  'involuntarily pausing before coffin warehouses, and bringing up the rear of every funeral I meet; and especially ' +
  'whenever my hypos get such an upper hand of me, that it requires a strong moral principle to prevent me from ' +
  "deliberately stepping into the street, and methodically knocking people's hats off—then, I account it high time " +
  'to get to sea as soon as I can.';

let engine: Engine;
let call: (method: string, path: string, json?: unknown) => Promise<{ status: number; json: Record<string, any> }>;

beforeAll(async () => {
  engine = await createEngine({ packs: 'default' });
  const keys = new KeyStore(engine.store);
  const key = (
    await keys.createKey({ account: 'newcomer', plan: 'pro', scopes: ['analyze', 'registry:read', 'registry:write'] })
  ).key;
  const handler = createHandler(engine, { keys });
  call = async (method, path, json) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await handler(
      new Request(`http://api.test${path}`, {
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
      }),
    );
    return { status: res.status, json: await res.json() };
  };
}, 120_000);
afterAll(() => engine?.dispose());

describe('analyze → register, as a client follows it', () => {
  it('next_steps holds only paths; the prefill is top-level and registration takes the analyze metadata as it is', async () => {
    const metadata = { title: 'Moby-Dick', author: 'Herman Melville' };
    const a = await call('POST', '/api/v1/attribution/analyze', {
      content: MOBY_DICK_OPENING,
      content_type: 'text',
      metadata,
    });
    expect(a.status).toBe(200);
    for (const [name, path] of Object.entries(a.json.next_steps))
      expect([name, path]).toEqual([name, expect.stringMatching(/^\/api\/v1\//)]);
    expect(a.json.register_prefill).toEqual(metadata);

    // the analyze request's own shape
    const r = await call('POST', '/api/v1/content/register', {
      content: MOBY_DICK_OPENING,
      content_type: 'text',
      metadata,
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ title: 'Moby-Dick', author: 'Herman Melville', work_hash: a.json.work_hash });
    // the prefill spread top-level is the same registration
    const again = await call('POST', '/api/v1/content/register', {
      content: MOBY_DICK_OPENING,
      ...a.json.register_prefill,
    });
    expect(again).toMatchObject({ status: 200, json: { created: false, work_id: r.json.work_id } });
  });

  it('refuses a field given twice, a jurisdiction, and an unknown metadata field, each naming it', async () => {
    const twice = await call('POST', '/api/v1/content/register', {
      content: 'x y z',
      title: 'A',
      metadata: { title: 'B' },
    });
    expect(twice.status).toBe(422);
    expect(twice.json.error.details).toMatchObject({ field: 'metadata.title' });
    const jur = await call('POST', '/api/v1/content/register', { content: 'x y z', metadata: { jurisdiction: 'US' } });
    expect(jur.status).toBe(422);
    expect(jur.json.error.message).toContain('a registration has no jurisdiction');
    const unknown = await call('POST', '/api/v1/content/register', { content: 'x y z', metadata: { isbn: '123' } });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.json.error)).toContain('isbn');
  });
});

describe('every score tier says why', () => {
  it('a one-chunk work matched only in a portrait: inconclusive, with too_few_chunks and portrait_evidence_only', async () => {
    const r = await call('POST', '/api/v1/content/register', { content: MOBY_DICK_OPENING, content_type: 'text' });
    const s = await call('POST', '/api/v1/attribution/score', {
      work_hash: r.json.work_hash,
      target_model: 'meta/llama-7b',
      jurisdiction: 'US',
    });
    expect(s.status).toBe(200);
    // the case as reported: score 95, interval [95, 95], inconclusive — now with its reasons
    expect(s.json).toMatchObject({ score: 95, ci_95: [95, 95], tier: 'inconclusive' });
    const codes = s.json.tier_reasons.map((x: { code: string }) => x.code);
    expect(codes).toEqual(['too_few_chunks', 'portrait_evidence_only']);
    expect(s.json.tier_reasons[0].message).toContain('1 chunk of 200 words');
    expect(s.json.to_raise.length).toBeGreaterThan(0);
    expect(s.json.to_raise.join(' ')).toContain('600 words');
    expect(s.json.to_raise.join(' ')).toContain('exact index');
  });

  it('a work with no match: the score rule and no_match_in_model_datasets', async () => {
    const text = Array.from(
      { length: 70 },
      (_, i) => `Ledger line ${i} records ${(i * 53) % 97} crates of quince shipped from the orchard cooperative.`,
    ).join(' ');
    const r = await call('POST', '/api/v1/content/register', { content: text });
    const s = await call('POST', '/api/v1/attribution/score', {
      work_hash: r.json.work_hash,
      target_model: 'meta/llama-7b',
      jurisdiction: 'US',
    });
    expect(s.json.tier).toBe('inconclusive');
    expect(s.json.tier_reasons.map((x: { code: string }) => x.code)).toEqual([
      'score_below_50',
      'no_match_in_model_datasets',
    ]);
  });
});

describe('format errors in words', () => {
  it('a model name without its provider, a bad work hash: what to send, not a regular expression', async () => {
    const r = await call('POST', '/api/v1/content/register', { content: MOBY_DICK_OPENING });
    const s = await call('POST', '/api/v1/attribution/score', {
      work_hash: r.json.work_hash,
      target_model: 'gpt-4o',
      jurisdiction: 'US',
    });
    expect(s.status).toBe(422);
    expect(s.json.error.details).toMatchObject({ field: 'target_model' });
    expect(s.json.error.details.reason).toContain('"provider/model_name"');
    expect(s.json.error.details.reason).toContain('/api/v1/kb/models');
    const h = await call('POST', '/api/v1/attribution/score', {
      work_hash: 'abc',
      target_model: 'meta/llama-7b',
      jurisdiction: 'US',
    });
    expect(h.json.error.details.reason).toContain('"sha256:" then 64 lowercase hex digits');
    for (const reply of [s, h]) expect(reply.json.error.message).not.toMatch(/\^|\$|\\w|\[0-9/);
  });
});

describe('jurisdictions', () => {
  it('US-ZZ is refused like EU-DE, naming the subdivision', async () => {
    const r = await call('POST', '/api/v1/content/register', { content: MOBY_DICK_OPENING });
    for (const bad of ['US-ZZ', 'EU-DE', 'XX']) {
      const s = await call('POST', '/api/v1/attribution/score', {
        work_hash: r.json.work_hash,
        target_model: 'meta/llama-7b',
        jurisdiction: bad,
      });
      expect([bad, s.status]).toEqual([bad, 422]);
    }
    const zz = await call('POST', '/api/v1/attribution/analyze', {
      content: MOBY_DICK_OPENING,
      content_type: 'text',
      metadata: { jurisdiction: 'US-ZZ' },
    });
    expect(zz.status).toBe(422);
    expect(zz.json.error.message).toContain('not an ISO 3166-2 subdivision of US');
    const ok = await call('POST', '/api/v1/attribution/score', {
      work_hash: r.json.work_hash,
      target_model: 'meta/llama-7b',
      jurisdiction: 'US-NY',
    });
    expect(ok.status).toBe(200);
  });
});

describe('analyze over HTTP: the body validated once, string lengths in characters', () => {
  // U+1F4DA BOOKS: one character (code point), two UTF-16 units
  const books = (n: number): string => '\u{1F4DA}'.repeat(n);

  it("a title of 1,000 emoji is accepted (it was 422 from the library's second check); 1,001 are 422 naming the field", async () => {
    const ok = await call('POST', '/api/v1/attribution/analyze', {
      content: MOBY_DICK_OPENING,
      content_type: 'text',
      metadata: { title: books(1000) },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.title).toBe(books(1000));
    const over = await call('POST', '/api/v1/attribution/analyze', {
      content: MOBY_DICK_OPENING,
      content_type: 'text',
      metadata: { title: books(1001) },
    });
    expect(over.status).toBe(422);
    expect(over.json.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { location: 'body', field: 'metadata.title', reason: 'must have at most this many characters: 1000' },
    });
  });
});
