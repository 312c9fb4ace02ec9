/**
 * The TypeScript HTTP client (src/client/) against a real server on 127.0.0.1 (engine + starter
 * dataset + createHandler + serve): every typed method once, the error mapping, and the retry
 * rules — 429 waits `Retry-After` (a fake clock 0.7 s before UTC midnight, so the window really
 * resets), a long `Retry-After` is thrown at once, 5xx and network errors are retried only when
 * the call is idempotent, a lost response of a POST with an Idempotency-Key is replayed (the work
 * is created once), timeouts and aborts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/index.js';
import {
  createClient,
  TrainprintApiError,
  parseRetryAfter,
  type FetchLike,
  type TrainprintClient,
} from '../../src/client/index.js';
import { verifyEvidenceBundle } from '../../src/services/report/index.js';
import { MIT_GRANT, startServer, type TestServer } from '../fixtures/client/server.js';
import { serveModel, type ServedModel } from '../fixtures/http/model.js';
import { book } from '../fixtures/texts/index.js';

const ALL_SCOPES = [
  'analyze',
  'registry:read',
  'registry:write',
  'monitors',
  'datasets:read',
  'datasets:write',
  'kb',
  'usage',
  'keys',
  'marketplace',
  'memorization',
] as const;
const DAY = 86_400_000;

let srv: TestServer;
/** Every server of the file, for the route coverage check at the end. */
const servers: TestServer[] = [];
let key: string;
let tp: TrainprintClient;

/** Rejection of `p` as a TrainprintApiError (fails the test if it resolves or throws something else). */
async function failure(p: Promise<unknown>): Promise<TrainprintApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TrainprintApiError);
    return e as TrainprintApiError;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  srv = await startServer();
  servers.push(srv);
  key = (await srv.keys.createKey({ account: 'acme', plan: 'pro', scopes: [...ALL_SCOPES], name: 'client test' })).key;
  tp = createClient({ api_key: key, base_url: srv.url });
});
afterAll(async () => {
  await srv?.close();
  srv?.engine.dispose();
});

describe('TypeScript client: typed methods against a real server', () => {
  it('status and openapi need no key', async () => {
    const anon = createClient({ base_url: `${srv.url}/` });
    expect(anon.baseUrl).toBe(srv.url);
    const s = await anon.status();
    expect(s.success).toBe(true);
    expect(s.status).toMatch(/operational|degraded|major_outage/);
    const doc = await anon.openapi();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths as object)).toContain('/api/v1/attribution/analyze');
  });

  it('analyze, getAnalysis, compare, fingerprint', async () => {
    const content = `Our project is free software.\n\n${MIT_GRANT}\n\nSee the documentation.`;
    const r = await tp.analyze({ content, content_type: 'text', metadata: { jurisdiction: 'US' } });
    expect(r.success).toBe(true);
    const mit = r.matches.find((m) => m.dataset_id === 'spdx-licenses' && m.document_id === 'MIT');
    expect(mit).toBeDefined();
    expect(content.slice(mit!.query_start, mit!.query_end)).toContain('to deal in the Software without restriction');
    expect(tp.rateLimit).toMatchObject({ limit: 10_000, policy: '10000;w=86400' });
    expect(tp.rateLimit!.remaining).toBeLessThan(10_000);

    const again = await tp.getAnalysis(r.analysis_id);
    expect(again.analysis_id).toBe(r.analysis_id);
    expect(again.matches.length).toBe(r.matches.length);

    const cmp = await tp.compare(MIT_GRANT, `Preface. ${MIT_GRANT} Afterword.`);
    expect(cmp.similarity).toBeGreaterThan(0.9);
    expect(cmp.spans.length).toBeGreaterThan(0);

    const fp = await tp.fingerprint({ content: MIT_GRANT, include_winnow: true });
    expect(fp.fingerprint).toMatch(/^tp1r?:[0-9a-f]{32}$/);
    expect(fp.work_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fp.winnow!.hashes.length).toBe(fp.winnow!.starts.length);
  });

  it('createJob, listJobs, getJob, jobResults, auditWorks, cancelJob', async () => {
    const items = Array.from({ length: 4 }, (_, i) => ({
      content: `Title ${i}.\n\n${MIT_GRANT}`,
      content_type: 'text',
    }));
    const job = await tp.createJob({ type: 'analyze', items });
    expect(job).toMatchObject({ success: true, type: 'analyze', total: 4 });
    const lines = [];
    for await (const line of tp.jobResults(job.job_id, { limit: 3, pollMs: 20 })) lines.push(line);
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3]);
    expect(lines.every((l) => l.success)).toBe(true);
    expect((await tp.getJob(job.job_id)).done).toBe(4);
    const listed = await tp.listJobs({ limit: 1 });
    expect(listed.jobs.map((j) => j.job_id)).toEqual([job.job_id]); // the newest first
    // an analyze item has no audit works to page: a typed 404
    expect(await failure(tp.auditWorks(job.job_id, 0, { limit: 10 }))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    expect(await tp.cancelJob(job.job_id)).toMatchObject({ job_id: job.job_id, deleted: true });
    expect(await failure(tp.getJob(job.job_id))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('analyzeAsync, getAnalysisJob; getAnalysisReport, getEvidenceBundle, getReportKey, getAnalysisExtractions', async () => {
    const content = `A background analysis.\n\n${MIT_GRANT}\n\nThe end.`;
    const started = await tp.analyzeAsync({ content, content_type: 'text' });
    if (!('job_id' in started)) throw new Error('expected a 202 with a job');
    expect(started).toMatchObject({ type: 'analyze', total: 1, status_url: `/api/v1/jobs/${started.job_id}` });
    let job = await tp.getAnalysisJob(started.job_id);
    // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
    while (!['done', 'failed', 'cancelled'].includes(job.state)) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      job = await tp.getAnalysisJob(started.job_id);
    }
    expect(job).toMatchObject({ success: true, job_id: started.job_id, state: 'done', done: 1, failed: 0 });
    const lines = [];
    for await (const line of tp.jobResults(started.job_id, { pollMs: 20 })) lines.push(line);
    expect(lines).toHaveLength(1);
    if (!lines[0].success) throw new Error('expected the analysis');
    const r = await tp.getAnalysis(lines[0].result.analysis_id as string);
    expect(r).toMatchObject({ success: true, ...lines[0].result });
    expect(r.matches.some((m) => m.document_id === 'MIT')).toBe(true);
    expect(await failure(tp.getAnalysisJob(`job_${'0'.repeat(32)}`))).toMatchObject({ status: 404, code: 'NOT_FOUND' });

    const html: string = await tp.getAnalysisReport(r.analysis_id);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    const { bytes, bundle } = await tp.getEvidenceBundle(r.analysis_id);
    expect(bundle.result.analysis_id).toBe(r.analysis_id);
    const key = await createClient({ base_url: srv.url }).getReportKey(); // public: no key needed
    expect(bundle.signature.key_id).toBe(key.key_id);
    const v = await verifyEvidenceBundle(bytes, { publicKey: key, text: content });
    expect(v.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.valid).toBe(true);
    // a newline added after it was served parses alike, but the bytes are no longer the ones that were signed
    const changed = new Uint8Array([...bytes, 0x0a]);
    expect((await verifyEvidenceBundle(changed, { publicKey: key })).valid).toBe(false);
    const asJson = await tp.getAnalysisReport(r.analysis_id, { format: 'json' });
    expect(asJson.bundle.result).toEqual(bundle.result);
    expect((await verifyEvidenceBundle(asJson.bytes, { publicKey: key })).valid).toBe(true);
    // the account ran no extract job over this text: none, under the digest the bundle binds
    expect(await tp.getAnalysisExtractions(r.analysis_id)).toEqual({
      success: true,
      analysis_id: r.analysis_id,
      text_sha256: bundle.text_sha256,
      extractions: [],
    });
    expect(await failure(tp.getAnalysisExtractions(`an_${'0'.repeat(32)}`))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('works: register, get, list, verify receipt, score, delete', async () => {
    const text = `${MIT_GRANT} ${"A paragraph of the author's own words follows the licence grant here. ".repeat(20)}`;
    const w = await tp.registerWork({ content: text, title: 'Client test work', work_type: 'article' });
    expect(w.created).toBe(true);
    expect(w.owner).toBe('acme');
    const got = await tp.getWork(w.work_id);
    expect(got.work_hash).toBe(w.work_hash);
    const page = await tp.listWorks({ limit: 10 });
    expect(page.works.map((x) => x.work_id)).toContain(w.work_id);
    expect((await tp.verifyReceipt(w.receipt)).valid).toBe(true);
    expect((await tp.verifyReceipt({ ...w.receipt, owner: 'mallory' })).valid).toBe(false);

    const model = (await tp.kb.models({ modality: 'text' })).models[0].id;
    const s = await tp.score({ work_hash: w.work_hash, target_model: model, jurisdiction: 'DE' });
    expect(s.work_id).toBe(w.work_id);
    expect(s.score).toBeGreaterThanOrEqual(0);
    expect(s.ci_95).toHaveLength(2);

    // by fingerprint: the text stays with the caller
    const fp = await tp.fingerprint({ content: 'Another work, registered by its fingerprint only, never sent whole.' });
    const byFp = await tp.registerWork({ fingerprint: { fingerprint: fp.fingerprint, work_hash: fp.work_hash } });
    expect(byFp.has_text).toBe(false);

    expect(await tp.deleteWork(byFp.work_id)).toMatchObject({ success: true, id: byFp.work_id, deleted: true });
    const gone = await failure(tp.getWork(byFp.work_id));
    expect(gone).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('monitors: create, list, get, pause, resume, events, delete', async () => {
    const w = await tp.registerWork({ content: `Monitored work. ${MIT_GRANT}` });
    const model = (await tp.kb.models({ modality: 'text' })).models[0].id;
    const m = await tp.monitors.create({ work_id: w.work_id, models: [model], jurisdiction: 'US' });
    expect(m.monitor_id).toMatch(/^mon_/);
    const missing: readonly string[] = m.missing_datasets; // typed: ApiMonitor
    expect(missing).toEqual([]);
    expect((await tp.monitors.list()).monitors.map((x) => x.monitor_id)).toContain(m.monitor_id);
    expect((await tp.monitors.list({ work_id: w.work_id })).monitors).toHaveLength(1);
    expect((await tp.monitors.get(m.monitor_id)).work_id).toBe(w.work_id);
    expect((await tp.monitors.pause(m.monitor_id)).state).toBe('paused');
    expect((await tp.monitors.resume(m.monitor_id)).state).toBe('active');
    const ev = await tp.monitors.events(m.monitor_id, { limit: 10 });
    expect(Array.isArray(ev.events)).toBe(true);
    expect((await tp.monitors.delete(m.monitor_id)).deleted).toBe(true);
    expect((await failure(tp.monitors.get(m.monitor_id))).status).toBe(404);
  });

  it('datasets: create, add documents, get, list, export, delete, import', async () => {
    const docs = [
      {
        id: 'd1',
        text: 'Zorblax quintessential marmalade fjords whisper under purple lanterns of the eastern harbour every night.',
      },
      {
        id: 'd2',
        text: 'Glimmering tortoise caravans negotiate with astonished lighthouse keepers about the price of seaweed.',
      },
    ];
    const created = await tp.datasets.create({
      id: 'client-test',
      name: 'Client test corpus',
      documents: docs.slice(0, 1),
    });
    expect(created).toMatchObject({ success: true, id: 'client-test', documents: 1 });
    const durable: boolean = created.durable; // typed: ApiDataset
    expect(durable).toBe(false);
    const shipped = (await tp.datasets.list()).datasets.find((d) => d.id === 'spdx-licenses');
    expect([shipped?.durable, shipped?.supplied_by, created.supplied_by]).toEqual([true, 'shipped', 'account']);
    expect((await tp.datasets.addDocuments('client-test', docs.slice(1))).documents).toBe(2);
    expect((await tp.datasets.get('client-test')).name).toBe('Client test corpus');
    expect((await tp.datasets.list()).datasets.map((d) => d.id)).toEqual(
      expect.arrayContaining(['spdx-licenses', 'client-test']),
    );
    const file = await tp.datasets.export('client-test');
    expect(file).toBeInstanceOf(Uint8Array);
    expect(file.length).toBeGreaterThan(100);
    expect(await tp.datasets.delete('client-test')).toMatchObject({ id: 'client-test', deleted: true });
    expect((await failure(tp.datasets.get('client-test'))).code).toBe('NOT_FOUND');
    const back = await tp.datasets.import(file);
    expect(back).toMatchObject({ id: 'client-test', documents: 2 });
    await tp.datasets.delete('client-test');
  });

  it('knowledge base: models, model, providers, datasets, dataset, jurisdictions, factors', async () => {
    const models = (await tp.kb.models()).models;
    expect(models.length).toBeGreaterThan(10);
    const one = await tp.kb.model(models[0].id.toUpperCase());
    expect(one.id).toBe(models[0].id);
    const providers = (await tp.kb.providers()).providers;
    expect(providers.some((p) => p.models.includes(models[0].id))).toBe(true);
    const kbDatasets = (await tp.kb.datasets()).datasets;
    expect(kbDatasets.map((d) => d.id)).toContain('the-pile');
    expect((await tp.kb.dataset('the-pile')).name).toBeTruthy();
    expect((await tp.kb.jurisdictions()).jurisdictions.map((j) => j.code)).toContain('DE');
    expect((await tp.kb.factors()).factors.length).toBeGreaterThan(10);
    await expect(tp.kb.model('no-slash')).rejects.toThrow(TypeError);
  });

  it('account: usage, keys, OAuth clients and tokens', async () => {
    const u = await tp.usage();
    expect(u).toMatchObject({ account: 'acme', plan: 'pro', window: 'day', limit: 10_000 });
    expect(u.used).toBeGreaterThan(0);

    const k = await tp.keys.create({ name: 'kb only', scopes: ['kb'], mode: 'test' });
    expect(k.key).toMatch(/^tp_test_/);
    expect((await tp.keys.list()).keys.map((x) => x.key_id)).toContain(k.key_id);
    const kbOnly = createClient({ api_key: k.key, base_url: srv.url });
    expect((await kbOnly.kb.factors()).success).toBe(true);
    const forbidden = await failure(kbOnly.usage());
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await tp.keys.revoke(k.key_id)).revoked).toBe(true);
    expect((await failure(kbOnly.kb.factors())).code).toBe('UNAUTHORIZED');

    const c = await tp.oauth.createClient({ name: 'ci', scopes: ['kb', 'usage'] });
    expect(c.client_secret).toMatch(/^tp_cs_/);
    expect((await tp.oauth.listClients()).clients.map((x) => x.client_id)).toContain(c.client_id);
    const token = await tp.oauth.token({ client_id: c.client_id, client_secret: c.client_secret, scope: ['kb'] });
    expect(token).toMatchObject({ token_type: 'Bearer', scope: 'kb' });
    const viaToken = createClient({ api_key: token.access_token, base_url: srv.url });
    expect((await viaToken.kb.providers()).success).toBe(true);
    const bad = await failure(tp.oauth.token({ client_id: c.client_id, client_secret: `tp_cs_${'x'.repeat(40)}` }));
    expect(bad).toMatchObject({ status: 401, code: 'invalid_client' });
    expect((await tp.oauth.revokeClient(c.client_id)).revoked).toBe(true);
  });

  it('request(): any route, with query, body and idempotency key', async () => {
    const r = await tp.request<{ success: true; models: Array<{ provider: string }> }>('GET', '/api/v1/kb/models', {
      query: { provider: 'meta', modality: undefined },
    });
    expect(r.models.every((m) => m.provider.toLowerCase().includes('meta'))).toBe(true);
    const idem = `client-test-${Date.now()}`;
    const a = await tp.request<{ work_id: string }>('POST', '/api/v1/content/register', {
      body: { content: 'Idempotent registration text for the generic request.' },
      idempotencyKey: idem,
    });
    const b = await tp.request<{ work_id: string }>('POST', '/api/v1/content/register', {
      body: { content: 'Idempotent registration text for the generic request.' },
      idempotencyKey: idem,
    });
    expect(b.work_id).toBe(a.work_id);
    await expect(tp.request('GET', 'api/v1/status')).rejects.toThrow(TypeError);
  });
});

describe('TypeScript client: marketplace and memorization', () => {
  const words = (name: string, from: number, n: number) =>
    book(name)
      .split(/\s+/)
      .slice(from, from + n)
      .join(' ');
  let mem: TestServer;
  let model: ServedModel;
  let seller: TrainprintClient;
  let buyer: TrainprintClient;

  beforeAll(async () => {
    // the model server runs on 127.0.0.1: the default SSRF policy would refuse it
    mem = await startServer({ allowPrivateModelHosts: true }, srv.engine);
    servers.push(mem);
    seller = createClient({
      api_key: (await mem.keys.createKey({ account: 'estate', plan: 'pro', scopes: [...ALL_SCOPES] })).key,
      base_url: mem.url,
    });
    buyer = createClient({
      api_key: (await mem.keys.createKey({ account: 'lab', plan: 'pro', scopes: ['marketplace'] })).key,
      base_url: mem.url,
    });
  });
  afterAll(async () => {
    await model?.close();
    await mem?.close();
  });

  it('marketplace: listings, offers, counter, accept (idempotent), licences, audit', async () => {
    const USD = (amount_minor: number) => ({ amount_minor, currency: 'USD' });
    const work = await seller.registerWork({
      content: words('austen-persuasion', 1000, 800),
      title: 'Persuasion (excerpt)',
      work_type: 'book',
    });
    const draft = await seller.marketplace.createListing(
      { work_id: work.work_id, licence_type: 'training', territory: ['US'], term_months: 12, price: USD(500_000) },
      { idempotencyKey: `listing-${work.work_id}` },
    );
    expect(draft.status).toBe('draft');
    expect((await seller.marketplace.updateListing(draft.listing_id, { description: 'A chapter' })).description).toBe(
      'A chapter',
    );
    const listing = await seller.marketplace.publishListing(draft.listing_id);
    expect(listing.status).toBe('active');
    expect(
      (await buyer.marketplace.listListings({ licence_type: 'training', territory: 'US' })).listings.map(
        (l) => l.listing_id,
      ),
    ).toContain(listing.listing_id);
    expect((await buyer.marketplace.getListing(listing.listing_id)).owner).toBe('estate');

    const offer = await buyer.marketplace.makeOffer(listing.listing_id, {
      amount: USD(400_000),
      message: 'For a research model',
    });
    expect(
      (await seller.marketplace.listOffers({ role: 'seller', status: 'pending' })).offers.map((o) => o.offer_id),
    ).toContain(offer.offer_id);
    expect((await seller.marketplace.getOffer(offer.offer_id)).buyer).toBe('lab');
    const counter = await seller.marketplace.counterOffer(offer.offer_id, { amount: USD(450_000) });
    expect(counter.made_by).toBe('estate');
    // the response of the accept is lost once: the retry with the same key returns the same licence
    mem.faults.push({
      method: 'POST',
      path: `/api/v1/marketplace/offers/${counter.offer_id}/accept`,
      when: 'after',
      status: 502,
    });
    const licence = await buyer.marketplace.acceptOffer(counter.offer_id, {
      idempotencyKey: `accept-${counter.offer_id}`,
    });
    expect(licence).toMatchObject({ licensor: 'estate', licensee: 'lab', amount: USD(450_000) });
    expect((await buyer.marketplace.listLicences({ role: 'licensee' })).licences.map((l) => l.licence_id)).toEqual([
      licence.licence_id,
    ]);
    expect((await seller.marketplace.getLicence(licence.licence_id)).verified).toBe(true);
    const { success: _s, ...document } = licence;
    expect((await buyer.marketplace.verifyLicence(document)).valid).toBe(true);
    expect((await buyer.marketplace.verifyLicence({ ...document, amount: USD(1) })).valid).toBe(false);

    const declined = await buyer.marketplace.makeOffer(listing.listing_id, { amount: USD(1_000) });
    expect((await seller.marketplace.declineOffer(declined.offer_id)).status).toBe('declined');
    const mine = await buyer.marketplace.makeOffer(listing.listing_id, { amount: USD(2_000) });
    expect((await buyer.marketplace.withdrawOffer(mine.offer_id)).status).toBe('withdrawn');
    const trail = await seller.marketplace.audit({ entity_id: listing.listing_id });
    expect(trail.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['listing.created', 'listing.published']),
    );
    expect((await seller.marketplace.withdrawListing(listing.listing_id)).status).toBe('withdrawn');
  });

  it('memorization: track, reference sets, extract, probe, compare, assess, report', async () => {
    const WORK = words('austen-persuasion', 20_000, 1500);
    model = await serveModel([WORK, WORK, WORK, words('milton-paradise', 0, 10_000)], {
      name: 'ngram-client',
      order: 6,
    });
    const spec = { base_url: model.baseUrl, model: model.name, top_logprobs: 5 };
    const tracked = await seller.memorization.trackWork({
      work: { content: WORK, title: 'Persuasion (chapter)' },
      canaries: { count: 1 },
    });
    expect(tracked.canaries).toHaveLength(1);
    const reference = Array.from({ length: 6 }, (_, i) => words('chesterton-thursday', 5_000 + i * 700, 600));
    expect(
      (await seller.memorization.createReferenceSet({ id: 'withheld', texts: reference, basis: 'randomized_split' }))
        .documents,
    ).toBe(6);
    expect((await seller.memorization.listReferenceSets()).reference_sets.map((r) => r.id)).toEqual(['withheld']);
    const ex = await seller.memorization.extract({ work_id: tracked.work_id, model: spec, prefixes: 2 });
    expect(ex.summary.verified).toBeGreaterThan(0);
    const pr = await seller.memorization.probe({
      work_id: tracked.work_id,
      model: spec,
      reference: { reference_set: 'withheld' },
      chunk_tokens: 64,
    });
    expect(pr.reference.id).toBe('withheld');
    const cmp = await seller.memorization.compareOutput({
      output: `It said: ${WORK.split(' ').slice(300, 400).join(' ')}`,
    });
    expect(cmp.works[0].work_id).toBe(tracked.work_id);
    const a = await seller.memorization.assess({
      work_id: tracked.work_id,
      model: spec,
      extract: { prefixes: 2 },
      probe: false,
    });
    expect(a.assessment_id).toMatch(/^ma_/);
    const html = await seller.memorization.report({ assessment_id: a.assessment_id });
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('Memorization risk report');
    // the server may not call hosts of its private network unless told: a 422 naming the field
    const refused = await failure(
      createClient({ api_key: key, base_url: srv.url }).memorization.extract({ text: WORK, model: spec }),
    );
    expect(refused).toMatchObject({ status: 422, details: { field: 'model.base_url' } });
  });
});

describe('TypeScript client: errors', () => {
  it('maps the error envelope: status, code, message, details, request_id', async () => {
    const e = await failure(tp.analyze({ content: 'x', content_type: 'rtf' as never }));
    expect(e.status).toBe(422);
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.details).toMatchObject({ location: 'body', field: 'content_type' });
    expect(e.request_id).toMatch(/^req_/);
    expect(e.message).toContain('content_type');

    const wrong = await failure(
      createClient({ api_key: `tp_live_${'0'.repeat(32)}`, base_url: srv.url, maxRetries: 0 }).kb.factors(),
    );
    expect(wrong).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const none = await failure(createClient({ base_url: srv.url }).usage());
    expect(none).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const missing = await failure(tp.getAnalysis(`an_${'0'.repeat(32)}`));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const method = await failure(tp.request('PATCH', '/api/v1/status'));
    expect(method).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    expect(method.details).toMatchObject({ allow: ['GET', 'HEAD'] });
  });

  it('a body that is not an envelope → HTTP_ERROR; unreachable → NETWORK_ERROR', async () => {
    srv.faults.push({ method: 'GET', path: '/api/v1/kb/factors', when: 'before', status: 418 });
    const fake: FetchLike = async (url, init) => {
      const r = await fetch(url, init);
      return r.status === 418 ? new Response('<html>teapot</html>', { status: 418, statusText: "I'm a teapot" }) : r;
    };
    const e = await failure(createClient({ api_key: key, base_url: srv.url, fetch: fake }).kb.factors());
    expect(e).toMatchObject({ status: 418, code: 'HTTP_ERROR' });
    expect(e.message).toContain('teapot');

    const dead = createClient({ base_url: 'http://127.0.0.1:9', maxRetries: 0 });
    expect(await failure(dead.status())).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });

  it('times out per attempt; an abort signal ends the call', async () => {
    const slow = createClient({ api_key: key, base_url: srv.url, timeoutMs: 150, maxRetries: 0 });
    // TIMEOUT, not the answer the server gives after 1.5 s: the attempt was cut at its timeout
    const e = await failure(slow.request('GET', '/api/v1/kb/providers', { headers: { 'x-test-delay': '1500' } }));
    expect(e).toMatchObject({ status: 0, code: 'TIMEOUT' });

    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('user left')), 100);
    const a = await failure(
      tp.request('GET', '/api/v1/kb/providers', { headers: { 'x-test-delay': '1500' }, signal: ac.signal }),
    );
    expect(a.code).toBe('ABORTED');
  });
});

describe('TypeScript client: retries', () => {
  it('429: waits Retry-After and succeeds once the window resets', async () => {
    // a tiny plan and a clock the test sets: 3 s before a UTC midnight, then 0.7 s before it for the refused call, and
    // past it once the retry arrives (the 4th request). It does not run with real time, so a loaded machine's slow
    // requests cannot carry a call across midnight; the client's wait of Retry-After is its own real timer.
    const midnight = Math.ceil(Date.now() / DAY) * DAY + DAY;
    let at = midnight - 3000;
    let retryAt: number | undefined;
    const factorsSeen = () => limited.seen.filter((s) => s.endsWith('/kb/factors')).length;
    const now = () => (retryAt !== undefined && factorsSeen() >= 4 ? retryAt : at);
    const limited = await startServer({ plans: { tiny: { daily: 2 } }, now }, srv.engine);
    try {
      const k = (await limited.keys.createKey({ account: 'tiny-a', plan: 'tiny', scopes: ['kb'] })).key;
      const c = createClient({ api_key: k, base_url: limited.url });
      await c.kb.factors();
      await c.kb.factors();
      expect(c.rateLimit).toMatchObject({ limit: 2, remaining: 0 });
      at = midnight - 700; // the same day: the next call is refused with Retry-After: 1
      retryAt = midnight + 300;
      const t0 = Date.now();
      const r = await c.kb.factors();
      expect(r.success).toBe(true);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
      expect(limited.seen.filter((s) => s.endsWith('/kb/factors'))).toHaveLength(4); // 2 + the 429 + the retry
      expect(c.rateLimit).toMatchObject({ limit: 2, remaining: 1 });

      // a Retry-After beyond maxRetryDelayMs is not waited for (noon: the window resets in 12 h)
      at = midnight + DAY / 2;
      retryAt = undefined;
      const k2 = (await limited.keys.createKey({ account: 'tiny-b', plan: 'tiny', scopes: ['kb'] })).key;
      const c2 = createClient({ api_key: k2, base_url: limited.url, maxRetryDelayMs: 5_000 });
      await c2.kb.factors();
      await c2.kb.factors();
      const asked = limited.seen.length;
      const e = await failure(c2.kb.factors());
      expect(e).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect(e.retry_after).toBeGreaterThan(40_000);
      expect(limited.seen.length - asked).toBe(1); // the 429 alone: no retry was waited for
    } finally {
      await limited.close();
    }
  });

  it('429 of a POST without Idempotency-Key is retried (nothing ran); a 5xx of it is not', async () => {
    srv.faults.push({
      method: 'POST',
      path: '/api/v1/attribution/analyze',
      when: 'before',
      status: 429,
      headers: { 'retry-after': '1' },
    });
    const before = srv.seen.length;
    const r = await tp.analyze({ content: MIT_GRANT, content_type: 'text' });
    expect(r.success).toBe(true);
    expect(srv.seen.slice(before)).toEqual(['POST /api/v1/attribution/analyze', 'POST /api/v1/attribution/analyze']);

    srv.faults.push({ method: 'POST', path: '/api/v1/attribution/analyze', when: 'before', status: 503 });
    const n = srv.seen.length;
    const e = await failure(tp.analyze({ content: MIT_GRANT, content_type: 'text' }));
    expect(e.status).toBe(503);
    expect(srv.seen.length - n).toBe(1);
  });

  it('5xx and network errors of idempotent calls are retried, up to maxRetries', async () => {
    srv.faults.push(
      { method: 'GET', path: '/api/v1/kb/providers', when: 'before', status: 502 },
      { method: 'GET', path: '/api/v1/kb/providers', when: 'before', status: 503 },
    );
    expect((await tp.kb.providers()).success).toBe(true);
    // compare is a POST that changes nothing: retried like a GET
    srv.faults.push({ method: 'POST', path: '/api/v1/attribution/compare', when: 'before', status: 500 });
    expect((await tp.compare('one two three four five six', 'one two three four five six')).success).toBe(true);

    let calls = 0;
    const flaky: FetchLike = async (url, init) => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed: ECONNRESET');
      return fetch(url, init);
    };
    expect((await createClient({ api_key: key, base_url: srv.url, fetch: flaky }).kb.jurisdictions()).success).toBe(
      true,
    );
    expect(calls).toBe(2);
    calls = 0;
    const post = await failure(
      createClient({ api_key: key, base_url: srv.url, fetch: flaky }).registerWork({ content: 'never sent twice' }),
    );
    expect(post.code).toBe('NETWORK_ERROR');
    expect(calls).toBe(1);

    for (let i = 0; i < 3; i++)
      srv.faults.push({ method: 'GET', path: '/api/v1/kb/datasets', when: 'before', status: 503 });
    const e = await failure(createClient({ api_key: key, base_url: srv.url, maxRetries: 2 }).kb.datasets());
    expect(e.status).toBe(503);
    srv.faults.length = 0;
  });

  it('a job DELETE whose answer is lost is not retried: a cancel never repeats as the delete of the finished job', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({
      content: `Cancel ${i}.\n\n${MIT_GRANT}`,
      content_type: 'text',
    }));
    const deletesOf = (id: string) => srv.seen.filter((s) => s === `DELETE /api/v1/jobs/${id}`).length;

    // the connection drops after the server answered: the DELETE ran once, and the client says so
    const lost = await tp.createJob({ type: 'analyze', items });
    const dropping: FetchLike = async (url, init) => {
      const res = await fetch(url, init);
      if (init.method === 'DELETE') throw new TypeError('fetch failed: ECONNRESET');
      return res;
    };
    const e = await failure(createClient({ api_key: key, base_url: srv.url, fetch: dropping }).cancelJob(lost.job_id));
    expect(e.code).toBe('NETWORK_ERROR');
    expect(deletesOf(lost.job_id)).toBe(1);

    // a proxy's 502 in place of the answer: not retried either
    const proxied = await tp.createJob({ type: 'analyze', items });
    srv.faults.push({ method: 'DELETE', path: `/api/v1/jobs/${proxied.job_id}`, when: 'after', status: 502 });
    expect(await failure(tp.cancelJob(proxied.job_id))).toMatchObject({ status: 502 });
    expect(deletesOf(proxied.job_id)).toBe(1);
    srv.faults.length = 0;

    // other DELETEs keep their retries
    srv.faults.push({ method: 'DELETE', path: '/api/v1/content/no-such-work', when: 'before', status: 503 });
    expect(await failure(tp.deleteWork('no-such-work'))).toMatchObject({ status: 404 });
    expect(srv.seen.filter((s) => s === 'DELETE /api/v1/content/no-such-work')).toHaveLength(2);
  });

  it('a lost response of a POST with an Idempotency-Key is retried and replayed: the work exists once', async () => {
    srv.faults.push({ method: 'POST', path: '/api/v1/content/register', when: 'after', status: 502 });
    const content = `Registered through a flaky proxy ${Date.now()}.`;
    const w = await tp.registerWork({ content }, { idempotencyKey: `lost-${Date.now()}` });
    expect(w.created).toBe(true);
    const mine = [];
    let after: string | undefined;
    for (;;) {
      const page = await tp.listWorks({ limit: 1000, ...(after ? { after } : {}) });
      mine.push(...page.works.filter((x) => x.work_hash === w.work_hash));
      if (!page.next) break;
      after = page.next;
    }
    expect(mine).toHaveLength(1);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});

describe('TypeScript client: portable source', () => {
  it('uses fetch only: no node: imports, no Buffer, no engine code at run time', () => {
    const dir = new URL('../../src/client/', import.meta.url);
    for (const f of readdirSync(dir)) {
      // comments (JSDoc examples mention process.env) are not code
      const src = readFileSync(new URL(f, dir), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      expect(src, f).not.toMatch(/from ['"]node:|require\(|\bBuffer\b|process\./);
      for (const m of src.matchAll(/^import (?!type )[^;]*from ['"]([^'"]+)['"]/gm))
        expect(m[1], `${f} imports ${m[1]} at run time`).toMatch(/^(\.\/[a-z-]+|\.\.\/util\/timers)\.js$/);
    }
    // the one module from outside the folder, the abortable wait between retries, imports nothing itself
    const timers = readFileSync(new URL('../../src/util/timers.ts', import.meta.url), 'utf8');
    expect(timers).not.toMatch(/^import |\bimport\(|require\(/m);
  });

  it('validates its options', () => {
    expect(() => createClient({ base_url: 'ftp://example.org' })).toThrow(TypeError);
    expect(() => createClient({ base_url: 'not a url' })).toThrow(TypeError);
    expect(() => createClient({ base_url: 'http://x?a=1' })).toThrow(TypeError);
    expect(() => createClient({ maxRetries: -1 })).toThrow(TypeError);
    expect(createClient({ base_url: 'https://example.org/trainprint/' }).baseUrl).toBe(
      'https://example.org/trainprint',
    );
  });
});

describe('TypeScript client: coverage', () => {
  it('called every route of the table (ROUTES) through a typed method', () => {
    // not client methods: the HTML status page, the GET form of score (score() is the POST), the
    // operators' admin route, and the short paths of memorization operations (the client calls theirs)
    const skip = new Set(['statusPage', 'scoreByQuery', 'adminCreateKey']);
    const seen = servers.flatMap((s) => s.seen);
    const missing = ROUTES.filter((r) => !skip.has(r.operationId) && r.aliasOf === undefined).filter((r) => {
      const re = new RegExp(`^${r.method} ${r.path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`);
      return !seen.some((s) => re.test(s.split('?')[0]));
    });
    expect(missing.map((r) => r.operationId)).toEqual([]);
  });
});
