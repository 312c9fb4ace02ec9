/**
 * Quotations over HTTP (docs/analyze.md#quotations): `POST /api/v1/attribution/analyze` shows a quotation of known text
 * as a quotation and leaves it out of `confidence` by default; the body's `quotations: "count"` (JSON, or a multipart
 * form field) counts it; any other value is 422 naming the field; the OpenAPI document lists the member. The headline
 * states the share of the text quoted from one work, and over a third the quotation counts for the work; an English
 * essay quoting Dante in Italian (a pack built from a fixture) is the English essay quoting known text, with or without
 * marks and attribution (the passage's language is not the essay's).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { buildOpenApi, createHandler, type Handler, KeyStore, ROUTES } from '../../src/http/index.js';

const PREAMBLE =
  'We the People of the United States, in Order to form a more perfect Union, establish Justice, insure domestic ' +
  'Tranquility, provide for the common defence, promote the general Welfare, and secure the Blessings of Liberty ' +
  'to ourselves and our Posterity, do ordain and establish this Constitution for the United States of America.';
const ESSAY = readFileSync(
  new URL('../fixtures/quotations/essay-quoting-the-constitution.txt', import.meta.url),
  'utf8',
);

/** The opening of the Inferno, in Italian, and an English essay that quotes it (its place marked {QUOTE}). */
const INFERNO = readFileSync(new URL('../fixtures/quotations/inferno-canto-1.txt', import.meta.url), 'utf8');
const DANTE_ESSAY = readFileSync(new URL('../fixtures/quotations/essay-quoting-dante.txt', import.meta.url), 'utf8');

let engine: Engine;
let handler: Handler;
let key = '';

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, [
    { id: 'constitution', text: PREAMBLE },
    { id: 'inferno', text: INFERNO },
  ]);
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'quoter', plan: 'pro', scopes: ['analyze'] })).key;
  handler = createHandler(engine, { keys });
});
afterAll(() => engine?.dispose());

async function analyze(body: Record<string, unknown> | FormData) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (!(body instanceof FormData)) headers['content-type'] = 'application/json';
  const res = await handler(
    new Request('http://api.test/api/v1/attribution/analyze', {
      method: 'POST',
      headers,
      body: body instanceof FormData ? body : JSON.stringify(body),
    }),
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('quotations over HTTP', () => {
  it('by default the quotation is shown as one and the work answers < 50; "count" counts it', async () => {
    const excluded = await analyze({ content: ESSAY, content_type: 'text' });
    expect(excluded.status).toBe(200);
    expect(excluded.json.confidence).toBeLessThan(50);
    const quote = excluded.json.matches.find((m: { role?: string }) => m.role === 'quotation');
    expect(quote).toMatchObject({ document_id: 'constitution', quotation: { by: ['quotation_marks'] } });
    expect(excluded.json.risk_assessment.factors).toContain('quotes_known_text');
    expect(excluded.json.evidence.quotations).toBe('exclude');

    const counted = await analyze({ content: ESSAY, content_type: 'text', quotations: 'count' });
    expect(counted.status).toBe(200);
    expect(counted.json.confidence).toBeGreaterThanOrEqual(50);
    expect(counted.json.evidence.quotations).toBe('count');
  });

  it('a multipart form field counts them as the JSON member does', async () => {
    const f = new FormData();
    f.append('file', new Blob([ESSAY], { type: 'text/plain' }), 'essay.txt');
    f.append('quotations', 'count');
    const r = await analyze(f);
    expect(r.status).toBe(200);
    expect(r.json.evidence.quotations).toBe('count');
    expect(r.json.confidence).toBeGreaterThanOrEqual(50);
  });

  it('another value is 422 INVALID_INPUT naming the field, never 500', async () => {
    for (const quotations of ['ignore', true, 1, null]) {
      const r = await analyze({ content: ESSAY, content_type: 'text', quotations });
      expect(r.status, String(quotations)).toBe(422);
      expect(r.json).toMatchObject({ success: false, error: { code: 'INVALID_INPUT' } });
      expect(JSON.stringify(r.json.error)).toMatch(/quotations/);
    }
  });

  it('the OpenAPI document lists the member with its values', () => {
    const doc = buildOpenApi(ROUTES) as any;
    const body = JSON.stringify(doc.paths['/api/v1/attribution/analyze'].post.requestBody);
    expect(body).toMatch(/"quotations":\{"enum":\["exclude","count"\]/);
  });

  it('the headline states the share quoted from one work; over a third the quotation counts for the work', async () => {
    const small = await analyze({ content: ESSAY, content_type: 'text' });
    expect(small.json.corpus_evidence.summary).toMatch(/\d+ % of the text is quoted from document "constitution"/);
    // the story's own words around a block quote of the preamble: 52 of 122 words (43 %)
    const own = ESSAY.replace(/"[^"]+"/, '')
      .split(/\s+/)
      .filter(Boolean);
    const content = `${own.slice(0, 35).join(' ')}\n\n> ${PREAMBLE}\n\n${own.slice(35, 70).join(' ')}`;
    const large = await analyze({ content, content_type: 'markdown' });
    expect(large.status).toBe(200);
    const quote = large.json.matches.find((m: { role?: string }) => m.role === 'quotation');
    expect(quote.quotation).toMatchObject({ by: ['block_quote'], counts: true });
    expect(quote.quotation.share).toBeGreaterThan(1 / 3);
    expect(quote.quotation.share).toBeLessThan(0.5);
    expect(large.json.confidence).toBeGreaterThanOrEqual(50);
    const pct = Math.round(quote.quotation.share * 100);
    expect(large.json.corpus_evidence.summary).toContain(`${pct} % of the text is quoted from document "constitution"`);
    expect(large.json.corpus_evidence.summary).toMatch(/counted for the work: more than a third/);
  });

  it('an English essay quoting Dante in Italian is the English essay quoting known text', async () => {
    const content = DANTE_ESSAY.replace('{QUOTE}', INFERNO.split('\n').slice(0, 6).join(' '));
    const r = await analyze({ content, content_type: 'text' });
    expect(r.status).toBe(200);
    const quote = r.json.matches.find((m: { document_id?: string }) => m.document_id === 'inferno');
    expect(quote).toMatchObject({ role: 'quotation', quotation: { by: ['attribution'], attributed_to: 'Dante' } });
    expect(r.json.confidence).toBeLessThan(50);
    // with neither marks nor an attribution: Italian lines inside English prose are still the essay's quotation
    const plain = await analyze({ content: content.replace('As Dante wrote, and as', 'And as'), content_type: 'text' });
    const unmarked = plain.json.matches.find((m: { document_id?: string }) => m.document_id === 'inferno');
    expect(unmarked).toMatchObject({ role: 'quotation', quotation: { by: ['other_language'] } });
    expect(plain.json.confidence).toBeLessThan(50);
    // the same lines in an Italian text are its own: a copy, counted
    const italian = await analyze({
      content: `Mia madre leggeva questo libro ad alta voce, e io non capivo quasi niente, ma ricordo la sua voce. ${INFERNO.split('\n').slice(0, 6).join(' ')} Poi chiudeva il libro e andava a dormire.`,
      content_type: 'text',
    });
    expect(
      italian.json.matches.find((m: { document_id?: string }) => m.document_id === 'inferno')?.role,
    ).toBeUndefined();
    expect(italian.json.confidence).toBeGreaterThanOrEqual(50);
  });
});
