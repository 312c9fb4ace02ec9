/**
 * `GET /api/v1/attribution/analyses/{analysis_id}/report` and `…/bundle`, and `GET /api/v1/report-key`, through the
 * handler: an account's analysis of a text with a passage of a remote corpus (the infini-gram fixture server on
 * 127.0.0.1, searched in full and, with a small budget, by sampling) and of a book (an EPUB, by sections) — the page,
 * the signed bundle that verifies offline with the published key (its transcripts recomputed), and another account's
 * analysis not found, as the page and as the bundle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTokenIndex,
  fixtureCorpus,
  plantedCases,
  startInfiniGramServer,
  type InfiniGramServer,
} from '../fixtures/infini-gram/index.mjs';
import type { Engine } from '../../src/engine.js';
import { createHandler, KeyStore, type Handler } from '../../src/http/index.js';
import { resetEndpoints, sharedCache } from '../../src/remote/index.js';
import { verifyEvidenceBundle } from '../../src/services/report/index.js';
import { buildEpub } from '../fixtures/documents.js';
import { CHAPTERS, reportEngine } from '../fixtures/work-report.js';

const QUICK = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 } as const;

let server: InfiniGramServer;
let engine: Engine;
let handler: Handler;
let acme = '';
let globex = '';
let textAnalysis = '';
let bookAnalysis = '';

async function call(key: string | null, path: string, init: { method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await handler(
    new Request(`http://localhost${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    type,
    bytes,
    text,
    headers: res.headers,
    json: type.includes('json') ? JSON.parse(text) : null,
  };
}

beforeAll(async () => {
  const tokens = buildTokenIndex({ documents: fixtureCorpus().documents, tokenizer: 'llama' });
  server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { v4_piletrain_llama: tokens } });
  sharedCache.clear();
  resetEndpoints();
  const corpus = { kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: server.url, ...QUICK } as const;
  engine = await reportEngine({
    // the same index twice: searched in full, and with a budget that makes a 2,000-word text a sampled search
    remoteCorpora: [
      { id: 'pile-full', ...corpus },
      { id: 'pile-sampled', ...corpus, maxCalls: 60 },
    ],
  });
  const keys = new KeyStore(engine.store);
  handler = createHandler(engine, { keys });
  acme = (await keys.createKey({ account: 'acme', plan: 'pro' })).key;
  globex = (await keys.createKey({ account: 'globex', plan: 'pro' })).key;
  const [planted] = plantedCases({ seed: 7, count: 1, words: 2000, passageWords: 80 });
  const a = await call(acme, '/api/v1/attribution/analyze', {
    method: 'POST',
    body: { content: planted.text, content_type: 'text' },
  });
  expect(a.status, a.text.slice(0, 300)).toBe(200);
  textAnalysis = a.json.analysis_id;
  const epub = Buffer.from(buildEpub(CHAPTERS)).toString('base64');
  const book = {
    content: epub,
    content_encoding: 'base64',
    content_type: 'epub',
    search_remote: false,
    metadata: { title: 'Persuasion' },
  };
  const b = await call(acme, '/api/v1/attribution/analyze', { method: 'POST', body: book });
  expect(b.status, b.text.slice(0, 300)).toBe(200);
  bookAnalysis = b.json.analysis_id;
});

afterAll(async () => {
  engine?.dispose();
  await server?.close();
});

describe('the work report over HTTP', () => {
  it("serves the account's analysis as a self-contained page", async () => {
    const r = await call(acme, `/api/v1/attribution/analyses/${textAnalysis}/report`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    );
    expect(r.text.startsWith('<!doctype html>')).toBe(true);
    for (const id of ['pile-full', 'pile-sampled']) expect(r.text).toContain(`Corpus <code>${id}</code>`);
    expect(r.text).toMatch(/share of the work held ≈ <b>[\d.]+ %<\/b> \(95 % interval/);
    expect(r.text).toContain('Ed25519 by key');
    // the planted passage, found by the full search: the work's text beside the corpus document's
    expect(r.text).toMatch(/<span class="lbl">Source · document \d+<\/span>/);
    expect(r.text).not.toMatch(/(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
  });

  it('serves the signed bundle as canonical JSON, verified with the published key and its transcripts', async () => {
    const r = await call(acme, `/api/v1/attribution/analyses/${textAnalysis}/bundle`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(r.json.format).toBe('trainprint-evidence-bundle/1');
    expect(r.json.success).toBeUndefined();
    const key = await call(null, '/api/v1/report-key');
    expect(key.status).toBe(200);
    expect(key.json).toMatchObject({ success: true, alg: 'Ed25519', public_key: r.json.signature.public_key });
    const v = await verifyEvidenceBundle(r.bytes, { publicKey: key.json });
    expect(v.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.valid).toBe(true);
    const names = v.checks.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['signer', 'transcript:pile-full', 'transcript:pile-sampled', 'sampling:pile-sampled']),
    );
    const full = r.json.result.remote_corpora.find((c: { dataset_id: string }) => c.dataset_id === 'pile-full');
    expect(full.outcome).toBe('searched');
    expect(full.transcript.calls).toBeGreaterThan(0);
    expect(r.json.transcripts['pile-full'].entries).toHaveLength(full.transcript.calls);
    expect(r.json.remote_indexes.map((x: { endpoint: string }) => x.endpoint)).toEqual([full.endpoint, full.endpoint]);
    // the same bytes with one member changed no longer verify
    const changed = r.text.replace('"potential_matches":', '"potential_matches":1');
    expect((await verifyEvidenceBundle(changed)).valid).toBe(false);
    // the report's own address gives the same bundle with ?format=json (its signature made afresh: created_at)
    const same = await call(acme, `/api/v1/attribution/analyses/${textAnalysis}/report?format=json`);
    expect(same.status).toBe(200);
    expect(same.type).toBe('application/json; charset=utf-8');
    expect(same.json.result).toEqual(r.json.result);
    expect((await verifyEvidenceBundle(same.bytes, { publicKey: key.json })).valid).toBe(true);
  });

  it("draws a book's sections, and bundles its extraction without the text", async () => {
    const page = await call(acme, `/api/v1/attribution/analyses/${bookAnalysis}/report`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h3>Per section</h3>');
    for (const c of CHAPTERS) expect(page.text).toContain(`<td>${c.title}</td>`);
    const bundle = await call(acme, `/api/v1/attribution/analyses/${bookAnalysis}/bundle`);
    expect(bundle.json.extraction.sections).toHaveLength(CHAPTERS.length);
    expect(bundle.json.extraction.text).toBeUndefined();
    expect((await verifyEvidenceBundle(bundle.bytes)).valid).toBe(true);
  });

  it("answers 404 for another account's analysis, as the page and as the bundle, and 401 without a key", async () => {
    for (const route of ['report', 'bundle']) {
      const r = await call(globex, `/api/v1/attribution/analyses/${textAnalysis}/${route}`);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: `The requested item does not exist: no analysis "${textAnalysis}"` },
      });
    }
    for (const route of ['report', 'bundle'])
      expect((await call(null, `/api/v1/attribution/analyses/${textAnalysis}/${route}`)).status).toBe(401);
    // the key is public
    expect((await call(null, '/api/v1/report-key')).status).toBe(200);
  });
});
