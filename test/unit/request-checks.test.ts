/**
 * How the library reads requests: a getter (or proxy trap) that throws is INVALID_INPUT naming the
 * field, at every entry point that takes a request object; unassigned jurisdiction codes are refused
 * with what is accepted; `metadata.title` / `metadata.author` of `analyze` are kept in the stored
 * result and prefill the registration suggestion.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, TrainprintError, type Engine } from '../../src/index.js';
import { resolveJurisdiction, SUBDIVISIONS } from '../../src/services/kb/jurisdictions.js';
import { ANALYSIS_RESULT_SCHEMA, ANALYZE_REQUEST_SCHEMA } from '../../src/services/analyze/schema.js';
import { checkSchema, markSchemaChecked, readRequest } from '../../src/util/schema-check.js';
import { compileValidator } from '../../src/http/validate.js';
import { passageAt } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';

const CONTENT = passageAt(book('austen-persuasion'), 60_000, 120).text;

/** The TrainprintError a promise rejects with (fails the test for anything else). */
async function rejection(p: Promise<unknown>): Promise<TrainprintError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TrainprintError);
  return error as TrainprintError;
}

let engine: Engine;
let workHash: string;
beforeAll(async () => {
  engine = await createEngine();
  workHash = (await engine.registerWork({ content: CONTENT, owner: 'estate' })).work_hash;
});

describe('a request field that throws when read is INVALID_INPUT, never the raw error', () => {
  const boom = (): never => {
    throw new Error('boom');
  };

  it('analyze', async () => {
    const request = {
      content: 'x',
      content_type: 'text',
      get metadata() {
        return boom();
      },
    };
    const e = await rejection(engine.analyze(request as never));
    expect([e.code, e.detail]).toEqual(['INVALID_INPUT', 'metadata could not be read (boom)']);
    const nested = {
      content: 'x',
      content_type: 'text',
      metadata: {
        get title() {
          return boom();
        },
      },
    };
    expect((await rejection(engine.analyze(nested as never))).detail).toBe('metadata.title could not be read (boom)');
  });

  it('registerWork', async () => {
    const request = {
      content: CONTENT,
      get owner() {
        return boom();
      },
    };
    const e = await rejection(engine.registerWork(request as never));
    expect([e.code, e.detail]).toEqual(['INVALID_INPUT', 'owner could not be read (boom)']);
    const byFingerprint = {
      owner: 'o',
      fingerprint: {
        get work_hash() {
          return boom();
        },
      },
    };
    expect((await rejection(engine.registerWork(byFingerprint as never))).code).toBe('INVALID_INPUT');
  });

  it('score', async () => {
    const request = {
      work_hash: workHash,
      target_model: 'meta/llama-7b',
      get jurisdiction() {
        return boom();
      },
    };
    const e = await rejection(engine.score(request as never));
    expect([e.code, e.detail]).toEqual(['INVALID_INPUT', 'jurisdiction could not be read (boom)']);
  });

  it('a proxy whose traps throw, a revoked proxy and a cyclic request', async () => {
    const trap = new Proxy({}, { ownKeys: boom });
    expect((await rejection(engine.score(trap as never))).code).toBe('INVALID_INPUT');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect((await rejection(engine.analyze(proxy as never))).code).toBe('INVALID_INPUT');
    const cyclic: Record<string, unknown> = { content: 'x', content_type: 'text' };
    cyclic.metadata = cyclic;
    expect((await rejection(engine.analyze(cyclic as never))).detail).toMatch(/nests deeper than 64 levels/);
  });

  it('createMonitor and the webhook deliverer', async () => {
    const monitor = {
      get work_hash() {
        return boom();
      },
    };
    expect((await rejection(engine.createMonitor(monitor as never))).detail).toBe('work_hash could not be read (boom)');
    const subscription = {
      id: 'sub_1',
      secret: 'whsec_0123456789abcdef',
      get url() {
        return boom();
      },
    };
    const event = { id: 'evt_1', type: 'match.found', created_at: new Date().toISOString(), data: null };
    const e = await rejection(engine.webhooks.enqueue(subscription as never, event));
    expect([e.code, e.detail]).toEqual(['INVALID_INPUT', 'subscription.url could not be read (boom)']);
  });

  it('a getter runs once: the operation uses the value that was checked', async () => {
    let reads = 0;
    const request = {
      content_type: 'text',
      get content() {
        return ++reads === 1 ? CONTENT : '';
      },
    };
    const r = await engine.analyze(request as never);
    expect(reads).toBe(1);
    expect(r.tokens).toBeGreaterThan(100);
    const plain = { a: [1, { b: 'x' }], bytes: new Uint8Array([1]) };
    const copy = readRequest(plain, 'the request') as typeof plain;
    expect(copy).toEqual(plain);
    expect([copy === plain, copy.a === plain.a, copy.bytes === plain.bytes]).toEqual([false, false, true]);
  });
});

describe('jurisdiction codes must be assigned', () => {
  it('refuses a well-shaped code of no country, listing what is accepted', () => {
    for (const bad of ['XX-99', 'XX', 'zz', 'QQ-CA', 'AA']) {
      const e = (() => {
        try {
          resolveJurisdiction(bad);
        } catch (error) {
          return error as TrainprintError;
        }
        throw new Error(`${bad} was accepted`);
      })();
      expect([bad, e.code]).toEqual([bad, 'INVALID_INPUT']);
      expect(e.detail).toContain('is not an assigned ISO 3166-1 country code');
      expect(e.detail).toContain('"US-CA"'); // the shape
      expect(e.detail).toContain('EU, DE, GB, US, US-CA'); // the codes with facts
    }
    // assigned codes outside the table, subdivisions and the aliases still resolve
    expect(resolveJurisdiction('BR')).toMatchObject({ code: 'BR', known: false });
    expect(resolveJurisdiction('us-ny')).toMatchObject({ code: 'US-NY', layers: ['US'] });
    expect(resolveJurisdiction('uk').code).toBe('GB');
    expect(resolveJurisdiction('EL').code).toBe('GR');
  });

  it('validates subdivisions against the documented list (US-ZZ is no state)', () => {
    const refused = (code: string): string => {
      try {
        resolveJurisdiction(code);
      } catch (error) {
        expect((error as TrainprintError).code).toBe('INVALID_INPUT');
        return (error as TrainprintError).detail ?? '';
      }
      throw new Error(`${code} was accepted`);
    };
    expect(refused('US-ZZ')).toContain('"ZZ" is not an ISO 3166-2 subdivision of US');
    expect(refused('gb-lnd')).toContain('not an ISO 3166-2 subdivision of GB');
    expect(refused('JP-48')).toContain('of JP');
    // a country without a listed subdivision: the country code says the same
    expect(refused('FR-75')).toContain('give the country code "FR"');
    for (const [country, subs] of Object.entries(SUBDIVISIONS)) {
      for (const sub of subs) expect(resolveJurisdiction(`${country}-${sub}`).code).toBe(`${country}-${sub}`);
    }
    expect(SUBDIVISIONS.US.size).toBe(57); // 50 states, DC and six outlying areas
    expect(resolveJurisdiction('de-by')).toMatchObject({ code: 'DE-BY', layers: ['EU', 'DE'], eu: true });
    expect(resolveJurisdiction('UK-SCT').code).toBe('GB-SCT');
  });

  it('score and analyze (metadata.jurisdiction) refuse it the same way, naming the field', async () => {
    const jurisdiction = 'XX-99';
    const s = await rejection(engine.score({ work_hash: workHash, target_model: 'meta/llama-7b', jurisdiction }));
    const a = await rejection(engine.analyze({ content: CONTENT, content_type: 'text', metadata: { jurisdiction } }));
    expect([s.code, a.code]).toEqual(['INVALID_INPUT', 'INVALID_INPUT']);
    expect([s.cause, a.cause]).toMatchObject([{ field: 'jurisdiction' }, { field: 'metadata.jurisdiction' }]);
    expect(s.detail).toMatch(/^jurisdiction: "XX-99" is not accepted: "XX" is not an assigned ISO 3166-1 country code/);
    expect(a.detail).toBe(`metadata.${s.detail}`);
    expect(
      (await engine.score({ work_hash: workHash, target_model: 'meta/llama-7b', jurisdiction: 'BR' })).legal_risk,
    ).toBeDefined();
  });
});

describe('analyze keeps metadata.title and metadata.author', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
  const valid = ajv.compile(ANALYSIS_RESULT_SCHEMA);

  it('in the stored result, and as the prefill of the registration suggestion', async () => {
    const metadata = { title: 'Persuasion', author: 'Jane Austen', jurisdiction: 'GB' };
    const r = await engine.analyze({ content: CONTENT, content_type: 'text', metadata });
    expect(valid(JSON.parse(JSON.stringify(r))), JSON.stringify(valid.errors)).toBe(true);
    expect(r).toMatchObject({ title: 'Persuasion', author: 'Jane Austen' });
    expect(r.next_steps).toEqual({
      register_content: '/api/v1/content/register',
      setup_monitoring: '/api/v1/monitors/create',
    });
    // every value of next_steps is a path a client may follow; the prefill sits beside it
    for (const v of Object.values(r.next_steps)) expect(v).toMatch(/^\/api\/v1\//);
    expect(r.register_prefill).toEqual({ title: 'Persuasion', author: 'Jane Austen' });
    expect(await engine.getAnalysis(r.analysis_id)).toEqual(r);
    // the prefill is a valid part of a registration request
    const w = await engine.registerWork({ content: CONTENT, owner: 'reader', ...r.register_prefill });
    expect(w).toMatchObject({ title: 'Persuasion', author: 'Jane Austen' });
  });

  it('only what was given; nothing without them; empty strings are refused', async () => {
    const one = await engine.analyze({ content: CONTENT, content_type: 'text', metadata: { author: 'Jane Austen' } });
    expect(one.register_prefill).toEqual({ author: 'Jane Austen' });
    expect('title' in one).toBe(false);
    const none = await engine.analyze({ content: CONTENT, content_type: 'text' });
    expect(Object.keys(none.next_steps)).toEqual(['register_content', 'setup_monitoring']);
    expect('title' in none || 'author' in none).toBe(false);
    const empty = await rejection(engine.analyze({ content: CONTENT, content_type: 'text', metadata: { title: '' } }));
    expect(empty.code).toBe('INVALID_INPUT');
  });

  it('a lone surrogate in either is refused with the request, before the analysis runs', async () => {
    for (const field of ['title', 'author'] as const) {
      let phases = 0;
      const e = await rejection(
        engine.analyze(
          { content: CONTENT, content_type: 'text', metadata: { [field]: 'Persuasion \ud800' } },
          { onProgress: () => phases++ },
        ),
      );
      expect([e.code, e.detail]).toEqual([
        'INVALID_INPUT',
        `metadata.${field}: contains a lone surrogate (not valid Unicode text)`,
      ]);
      expect(phases).toBe(0);
    }
    // a surrogate pair is one character, kept as given
    const pair = await engine.analyze({
      content: CONTENT,
      content_type: 'text',
      metadata: { title: 'Books \u{1F4DA}' },
    });
    expect(pair.title).toBe('Books \u{1F4DA}');
  });
});

describe('string lengths are counted in characters (code points), as JSON Schema defines them', () => {
  // U+1F4DA BOOKS: one character, two UTF-16 units
  const books = (n: number): string => '\u{1F4DA}'.repeat(n);

  it('a title of 1,000 emoji is within maxLength 1000; 1,001 are not', async () => {
    const r = await engine.analyze({ content: CONTENT, content_type: 'text', metadata: { title: books(1000) } });
    expect(r.title).toBe(books(1000));
    const over = await rejection(
      engine.analyze({ content: CONTENT, content_type: 'text', metadata: { title: books(1001) } }),
    );
    expect(over.code).toBe('INVALID_INPUT');
    expect(over.message).toContain('metadata.title: must have at most this many characters: 1000');
  });

  it('a request a full validator accepted against the same schema is not checked again; against another it is', async () => {
    // an empty title is refused by the check: taken as given only where the mark says that very schema accepted it
    const marked = { content: CONTENT, content_type: 'text', metadata: { title: '' } } as const;
    markSchemaChecked(ANALYZE_REQUEST_SCHEMA, marked);
    expect((await engine.analyze(marked)).title).toBe('');
    const other = { content: CONTENT, content_type: 'text', metadata: { title: '' } } as const;
    markSchemaChecked({ ...ANALYZE_REQUEST_SCHEMA }, other);
    expect((await rejection(engine.analyze(other))).code).toBe('INVALID_INPUT');
  });
});

describe('a list of types, null and minProperties: both validators take and refuse alike, in the same words', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      cap: { type: ['integer', 'null'], minimum: 1 },
      note: { type: ['string', 'null'], minLength: 1 },
      none: { type: 'null' },
    },
  } as const;
  const http = compileValidator(schema, 'body');
  /** What each door says of `value`: null when it takes it, else the detail after the field. */
  const said = (check: () => unknown) => {
    try {
      check();
      return null;
    } catch (e) {
      return String((e as TrainprintError).detail);
    }
  };
  for (const value of [
    { cap: 2 },
    { cap: null, note: null, none: null },
    { note: 'x' },
    {},
    { cap: 0 },
    { cap: 1.5 },
    { cap: '2' },
    { note: '' },
    { note: 3 },
    { none: 0 },
  ])
    it(JSON.stringify(value), () => {
      const library = said(() => checkSchema(schema, value, 'the request'));
      expect(library).toBe(said(() => http(value)));
      if (Object.keys(value).length === 0) expect(library).toBe('the request: must have at least this many members: 1');
    });
  it('the words of each refusal', () => {
    expect(said(() => checkSchema(schema, { cap: 1.5 }, 'the request'))).toBe('cap: must be of type integer or null');
    expect(said(() => checkSchema(schema, { none: 0 }, 'the request'))).toBe('none: must be null');
    expect(said(() => checkSchema(schema, { cap: 0 }, 'the request'))).toBe('cap: must be ≥ 1');
    expect(said(() => checkSchema(schema, { cap: null }, 'the request'))).toBeNull();
  });
});
