/**
 * One bad request, one refusal, at every door: an operation's request is read through its entry of `REQUESTS` (its
 * schema and its rules), so the library, the HTTP route, the command line and a job item refuse the same request with
 * the same code, field and sentence — a job item's field and sentence prefixed with the item (`items[0].`).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../src/cli/analyze.js';
import { auditCommand } from '../../src/cli/audit.js';
import { indexBuildCommand } from '../../src/cli/index-build.js';
import { keysCommand } from '../../src/cli/keys.js';
import { scanCommand } from '../../src/cli/scan.js';
import { TrainprintError } from '../../src/errors.js';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, SCOPES, type Handler } from '../../src/http/index.js';
import type { TargetModel } from '../../src/models/types.js';
import { buildDatasetFile } from '../../src/node/build.js';
import { scanFiles } from '../../src/node/scan/files.js';
import { auditCatalogue } from '../../src/services/memorization/memorization.js';
import { BUILT_IN_JOB_TYPES } from '../../src/services/jobs/registry.js';
import { REQUESTS } from '../../src/services/requests.js';
import { readThrough } from '../../src/util/schema-check.js';
import { JOB_REQUEST, JOB_TYPE_NAME_WORDS } from '../../src/services/jobs/request.js';
import { createJobService } from '../../src/services/jobs/service.js';
import { handlerWithJobs, stopJobs } from '../fixtures/http/jobs-handler.js';
import { type Call, callWithKey, keyedCall } from '../fixtures/http/keyed-call.js';

let engine: Engine;
let keys: KeyStore;
let handler: Handler;
let dir = '';
/** A model host nothing listens on: no door may call it before the request is refused. */
const BASE_URL = 'http://127.0.0.1:9/v1';
const text = 'A few words of a work that nobody has registered anywhere at all.';
const works = [
  { id: 'a.txt', text },
  { id: 'a.txt', text: `${text} Again.` },
];

beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  handler = handlerWithJobs(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
  dir = mkdtempSync(join(tmpdir(), 'trainprint-request-doors-'));
}, 60_000);
afterAll(async () => {
  await stopJobs(handler);
  engine?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** How a schema names the scopes it takes. */
const SCOPE_LIST = SCOPES.map((x) => JSON.stringify(x)).join(', ');

/** What a refusal says: its code, its field and its sentence. */
type Refused = { code: string; field: unknown; message: string };
async function refusal(p: Promise<unknown>): Promise<Refused> {
  const e = await p.then(
    () => expect.fail('accepted'),
    (err: unknown) => err,
  );
  if (!(e instanceof TrainprintError)) throw e;
  return { code: e.code, field: (e.cause as { field?: unknown } | undefined)?.field, message: e.message };
}

/** The same refusal as a 422 body says it, and as a job's item: `items[0].` before the field and the sentence. */
const over = (r: { status: number; json: Record<string, any> }) => ({
  code: r.json.error.code,
  field: r.json.error.details?.field,
  message: r.json.error.message,
});
const asItem = (x: { code: string; field: unknown; message: string }) => ({
  ...x,
  field: `items[0].${x.field}`,
  message: x.message.replace(`: ${x.field}:`, `: items[0].${x.field}:`),
});
/** The same refusal as a job's `options` say it: `options.` before the field and the sentence. */
const asOption = (x: { code: string; field: unknown; message: string }) => ({
  ...x,
  field: `options.${x.field}`,
  message: x.message.replace(`: ${x.field}:`, `: options.${x.field}:`),
});

describe('the same bad request gives the same 422 at every door', () => {
  it('audit: a repeated work id (its rules), in the library, the CLI and a job item', async () => {
    const model: TargetModel = {
      id: 'never-called',
      access: 'generations_only',
      generate: async () => expect.fail('a refused audit called its model'),
    } as unknown as TargetModel;
    const library = await refusal(auditCatalogue(engine.store, { model, works }));
    expect(library).toEqual({
      code: 'INVALID_INPUT',
      field: 'works[1].id',
      message: 'The input is not valid: works[1].id: "a.txt" is repeated',
    });
    const method = await refusal(engine.memorization.auditCatalogue({ model, works }));
    expect(method).toEqual(library);
    const list = join(dir, 'catalogue.jsonl');
    writeFileSync(list, works.map((w) => JSON.stringify(w)).join('\n'));
    const cli = await refusal(
      auditCommand([list, '--model-url', BASE_URL, '--model', 'm', '--chat', '--allow-private-model-hosts']),
    );
    expect(cli).toEqual(library);
    const call = await keyedCall(handler, keys, 'doors-audit', 'scale');
    const item = { works, model: { base_url: BASE_URL, model: 'm', api: 'chat' } };
    const job = await call('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
    expect(job.status).toBe(422);
    expect(over(job)).toEqual(asItem(library));
  });

  it("audit: a work's sections past its text (its rules), in the library and a job item, before a call", async () => {
    const model = {
      id: 'never-called',
      access: 'generations_only',
      generate: async () => expect.fail('a refused audit called its model'),
    } as unknown as TargetModel;
    const sectioned = [
      {
        id: 'a.txt',
        text,
        sections: [
          { start: 0, end: 10 },
          { start: 10, end: text.length + 1 },
        ],
      },
    ];
    const library = await refusal(auditCatalogue(engine.store, { model, works: sectioned }));
    expect(library).toEqual({
      code: 'INVALID_INPUT',
      field: 'works[0].sections[1]',
      message: `The input is not valid: works[0].sections[1]: start and end must be integers with 10 ≤ start < end ≤ ${text.length} (in order, not overlapping)`,
    });
    const call = await keyedCall(handler, keys, 'doors-audit-sections', 'scale');
    const item = { works: sectioned, model: { base_url: BASE_URL, model: 'm', api: 'chat' } };
    const job = await call('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
    expect(job.status).toBe(422);
    expect(over(job)).toEqual(asItem(library));
  });

  it('audit: a model that is no TargetModel is refused before its works are planned', async () => {
    const library = await refusal(
      auditCatalogue(engine.store, { model: { id: 'x' } as unknown as TargetModel, works: works.slice(0, 1) }),
    );
    expect(library).toMatchObject({ code: 'INVALID_INPUT' });
    expect(library.message).toContain('model must be a TargetModel');
  });

  it('audit: an option out of its bounds (its schema), in the library, the CLI and a job item', async () => {
    const model = { id: 'm', access: 'generations_only', generate: async () => '' } as unknown as TargetModel;
    const library = await refusal(auditCatalogue(engine.store, { model, works: works.slice(0, 1), budget_calls: 0 }));
    expect(library).toMatchObject({ code: 'INVALID_INPUT', field: 'budget_calls' });
    const list = join(dir, 'one.jsonl');
    writeFileSync(list, JSON.stringify(works[0]));
    const cli = await refusal(
      auditCommand([
        list,
        '--model-url',
        BASE_URL,
        '--model',
        'm',
        '--allow-private-model-hosts',
        '--budget-calls',
        '0',
      ]),
    );
    expect(cli).toEqual(library);
    const call = await keyedCall(handler, keys, 'doors-audit-bounds', 'scale');
    const item = { works: works.slice(0, 1), model: { base_url: BASE_URL, model: 'm' }, budget_calls: 0 };
    const job = await call('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
    expect(job.status).toBe(422);
    // the HTTP validator words a bound as checkSchema does (SCHEMA_WORDS)
    expect(library.message).toBe('The input is not valid: budget_calls: must be ≥ 1');
    expect(over(job)).toEqual(asItem(library));
  });

  it('score: work_hash and content both (its rules), in the library, the route and a job item', async () => {
    const request = {
      work_hash: `sha256:${'0'.repeat(64)}`,
      content: text,
      target_model: 'meta/llama-7b',
      jurisdiction: 'US',
    };
    const library = await refusal(engine.score(request));
    expect(library).toEqual({
      code: 'INVALID_INPUT',
      field: 'content',
      message: 'The input is not valid: content: give only one of work_hash, content',
    });
    const call = await keyedCall(handler, keys, 'doors-score', 'scale');
    await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/score', 'score');
    // neither: the same sentence at every door too
    const { work_hash: _, content: __, ...neither } = request;
    const none = await refusal(engine.score(neither));
    expect(none).toEqual({
      code: 'INVALID_INPUT',
      field: 'work_hash',
      message: 'The input is not valid: work_hash: is required (or give content)',
    });
    expect(over(await call('POST', '/api/v1/attribution/score', neither))).toEqual(none);
    expect(over(await call('POST', '/api/v1/jobs', { type: 'score', items: [neither] }))).toEqual(asItem(none));
  });

  it("score: content's checks (its rules: include_text, a file's base64) in the library, the route and a job item", async () => {
    const call = await keyedCall(handler, keys, 'doors-score-content', 'scale');
    const scored = { target_model: 'meta/llama-7b', jurisdiction: 'US' };
    const request = { ...scored, content: text, include_text: true };
    const library = await refusal(engine.score(request));
    expect(library).toEqual(invalid('include_text', 'goes with epub, pdf and docx'));
    await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/score', 'score');
    const file = { ...scored, content: 'J', content_type: 'pdf', content_encoding: 'base64' };
    const bad = await refusal(engine.score(file as never));
    expect(bad.message).toBe('The input is not valid: content is not valid base64');
    const route = await call('POST', '/api/v1/attribution/score', file);
    expect([route.status, route.json.error.message]).toEqual([422, bad.message]);
    const job = await call('POST', '/api/v1/jobs', { type: 'score', items: [file] });
    expect([job.status, job.json.error.message]).toEqual([
      422,
      bad.message.replace(': content', ': items[0]: content'),
    ]);
  });

  it('compareOutput: a blank output (its rules), in the library and the route at both its paths', async () => {
    const request = { output: ' \n ' };
    const library = await refusal(engine.memorization.compare(request));
    expect(library).toEqual(invalid('output', 'is blank'));
    await refusedAlike(library, request, '/api/v1/memorization/compare', '/api/v1/compare');
  });

  it('trackWork: work_id and work both (its rules), canaries out of bounds (its schema), in the library and the route', async () => {
    const work_id = `wk_${'0'.repeat(32)}`;
    const both = { work_id, work: { content: text } };
    const library = await refusal(engine.memorization.registerWork({ ...both, work: { ...both.work, owner: 'o' } }));
    expect(library).toEqual(invalid('work', 'give only one of work_id, work'));
    await refusedAlike(library, both, '/api/v1/memorization/register-work', '/api/v1/register-work');
    const many = { work: { content: text }, canaries: { count: 101 } };
    const bounds = await refusal(
      engine.memorization.registerWork({ work: { content: text, owner: 'o' }, canaries: many.canaries }),
    );
    expect(bounds).toEqual(invalid('canaries.count', 'must be ≤ 100'));
    await refusedAlike(bounds, many, '/api/v1/memorization/register-work', '/api/v1/register-work');
  });

  it("trackWork: its work's fields named within the request, by the registration's schema and its rules", async () => {
    const track = (work: object) => engine.memorization.registerWork({ work: { ...work, owner: 'o' } } as never);
    const typed = { content: text, title: 7 };
    const library = await refusal(track(typed));
    expect(library).toEqual(invalid('work.title', 'must be a string'));
    await refusedAlike(library, { work: typed }, '/api/v1/memorization/register-work');
    const blank = { content: ' \n ' };
    expect(await refusal(track(blank))).toEqual(invalid('work.content', 'is blank'));
    await refusedAlike(invalid('work.content', 'is blank'), { work: blank }, '/api/v1/memorization/register-work');
    const unknown = { content: text, colour: 'red' };
    expect(await refusal(track(unknown))).toEqual(invalid('work.colour', 'is not a known field'));
    await refusedAlike(invalid('work.colour', 'is not a known field'), { work: unknown }, '/api/v1/register-work');
  });

  it('referenceSet: a blank text (its rules), in the library and the route', async () => {
    const request = { id: 'blank', texts: ['A document.', ' '], basis: 'unverified' } as const;
    const library = await refusal(engine.memorization.addReferenceSet(request));
    expect(library).toEqual(invalid('texts[1]', 'is blank'));
    await refusedAlike(library, request, '/api/v1/memorization/reference-sets');
  });

  it('extract, probe, assess: a blank text (their rules), in the library and the routes', async () => {
    const model = { id: 'm', access: 'logprobs', generate: async () => '', logprobs: async () => [] } as never;
    const spec = { base_url: BASE_URL, model: 'm' };
    const extract = { text: ' ' };
    expect(await refusal(engine.memorization.extract({ model, ...extract }))).toEqual(invalid('text', 'is blank'));
    await refusedAlike(invalid('text', 'is blank'), { ...extract, model: spec }, '/api/v1/memorization/extract');
    const probe = { texts: ['A document.'], reference: { texts: ['One.', '\t'] } };
    const blank = invalid('reference.texts[1]', 'is blank');
    expect(await refusal(engine.memorization.probe({ model, ...probe }))).toEqual(blank);
    await refusedAlike(blank, { ...probe, model: spec }, '/api/v1/memorization/probe', '/api/v1/probe');
    const assess = { work_id: `wk_${'0'.repeat(32)}`, probe: { reference: probe.reference } };
    const nested = invalid('probe.reference.texts[1]', 'is blank');
    expect(await refusal(engine.memorization.assess({ model, ...assess }))).toEqual(nested);
    await refusedAlike(nested, { ...assess, model: spec }, '/api/v1/memorization/assess');
  });

  it('assess, createMonitor: an unknown jurisdiction (their rules) named as score names it, at both doors', async () => {
    const model = { id: 'm', access: 'logprobs', generate: async () => '', logprobs: async () => [] } as never;
    const assess = { work_id: `wk_${'0'.repeat(32)}`, jurisdiction: 'XX-99' };
    const said = await refusal(engine.memorization.assess({ model, ...assess } as never));
    expect(said).toMatchObject({ code: 'INVALID_INPUT', field: 'jurisdiction' });
    expect(said.message).toContain('jurisdiction: "XX-99" is not accepted: "XX" is not an assigned ISO 3166-1');
    await refusedAlike(said, { ...assess, model: { base_url: BASE_URL, model: 'm' } }, '/api/v1/memorization/assess');
    const call = callWithKey(handler, (await keys.createKey({ account: 'doors-monitor-where', plan: 'scale' })).key);
    const monitor = { work_id: `wk_${'0'.repeat(32)}`, jurisdiction: 'XX-99' };
    expect(await refusal(engine.createMonitor(monitor, { owner: 'doors-monitor-where' }))).toEqual(said);
    const route = await call('POST', '/api/v1/monitors/create', monitor);
    expect([route.status, over(route)]).toEqual([422, said]);
  });

  it("probe, assess: a reference of neither form (its schema's oneOf) refused by the field within, at both doors", async () => {
    const model = { id: 'm', access: 'logprobs', generate: async () => '', logprobs: async () => [] } as never;
    const spec = { base_url: BASE_URL, model: 'm' };
    const forms = [
      [{ reference_set: 5 }, 'reference.reference_set', 'must be a string'],
      [{ texts: 'One.' }, 'reference.texts', 'must be an array'],
      [{}, 'reference.reference_set', 'is required'],
      [{ texts: ['One.'], reference_set: 'novels' }, 'reference.texts', 'is not a known field'],
    ] as const;
    for (const [reference, field, reason] of forms) {
      const probe = { texts: ['A document.'], reference };
      const said = invalid(field, reason);
      expect(await refusal(engine.memorization.probe({ model, ...probe } as never))).toEqual(said);
      await refusedAlike(said, { ...probe, model: spec }, '/api/v1/memorization/probe');
      const assess = { work_id: `wk_${'0'.repeat(32)}`, probe: { reference } };
      const nested = invalid(`probe.${field}`, reason);
      expect(await refusal(engine.memorization.assess({ model, ...assess } as never))).toEqual(nested);
      await refusedAlike(nested, { ...assess, model: spec }, '/api/v1/memorization/assess');
    }
  });

  it('analyze: its rules in the library, the route, its 202 answer (Prefer: respond-async) and a job item', async () => {
    const call = await keyedCall(handler, keys, 'doors-analyze', 'scale');
    const cases = [
      [{ content: text, content_type: 'text', include_text: true }, 'include_text', 'goes with epub, pdf and docx'],
      [{ content: '   ', content_type: 'markdown' }, 'content', 'is blank'],
    ] as const;
    for (const [request, field, reason] of cases) {
      const library = await refusal(engine.analyze(request as never));
      expect(library).toEqual(invalid(field, reason));
      expect(await refusal(Promise.resolve().then(() => readThrough(REQUESTS.analyze, request, {})))).toEqual(library);
      await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/analyze', 'analyze');
      const later = await call('POST', '/api/v1/attribution/analyze', request, { prefer: 'respond-async' });
      expect([later.status, over(later)]).toEqual([422, library]);
    }
    // what needs more than the schema: an unknown jurisdiction, the same field and sentence at each door
    const somewhere = { content: text, content_type: 'text', metadata: { jurisdiction: 'ZZ' } };
    const unknown = await refusal(engine.analyze(somewhere as never));
    expect(unknown).toMatchObject({ code: 'INVALID_INPUT', field: 'metadata.jurisdiction' });
    expect(unknown.message).toContain(
      'metadata.jurisdiction: "ZZ" is not accepted: "ZZ" is not an assigned ISO 3166-1',
    );
    await refusedAtRouteAndJob(call, unknown, somewhere, '/api/v1/attribution/analyze', 'analyze');
    const later = await call('POST', '/api/v1/attribution/analyze', somewhere, { prefer: 'respond-async' });
    expect([later.status, over(later)]).toEqual([422, unknown]);
  });

  it('score: an unknown jurisdiction (its rules) named at every door, a job item refused at submission', async () => {
    const call = await keyedCall(handler, keys, 'doors-score-jurisdiction', 'scale');
    const request = { content: text, target_model: 'meta/llama-7b', jurisdiction: 'XX-99' };
    const library = await refusal(engine.score(request));
    expect(library).toMatchObject({ code: 'INVALID_INPUT', field: 'jurisdiction' });
    expect(library.message).toContain('jurisdiction: "XX-99" is not accepted: "XX" is not an assigned ISO 3166-1');
    expect(await refusal(Promise.resolve().then(() => readThrough(REQUESTS.score, request, {})))).toEqual(library);
    await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/score', 'score');
  });

  it('score: a target_model without its provider (its schema), in the same words at every door', async () => {
    const call = await keyedCall(handler, keys, 'doors-score-model', 'scale');
    const request = { content: text, target_model: 'pythia-6.9b', jurisdiction: 'US' };
    const library = await refusal(engine.score(request));
    expect(library).toMatchObject({ code: 'INVALID_INPUT', field: 'target_model' });
    expect(library.message).toContain('target_model: must be "provider/model_name" as the knowledge base names it');
    await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/score', 'score');
  });

  it("an enum's and a const's refusal in the same words at both doors (one wording table)", async () => {
    const request = { content: text, content_type: 'pdfx' };
    const library = await refusal(engine.analyze(request as never));
    const kinds = ['text', 'markdown', 'html', 'epub', 'pdf', 'docx'].map((x) => JSON.stringify(x)).join(', ');
    expect(library).toEqual(invalid('content_type', `must be one of ${kinds}`));
    const call = await keyedCall(handler, keys, 'doors-words', 'scale');
    await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/analyze', 'analyze');
    const model = { id: 'm', access: 'logprobs', generate: async () => '', logprobs: async () => [] } as never;
    const assess = { work_id: `wk_${'0'.repeat(32)}`, probe: true };
    const constant = invalid('probe', 'must be false');
    expect(await refusal(engine.memorization.assess({ model, ...assess } as never))).toEqual(constant);
    await refusedAlike(
      constant,
      { ...assess, model: { base_url: BASE_URL, model: 'm' } },
      '/api/v1/memorization/assess',
    );
  });

  it('marketplace: a listing, a patch and an offer (their schemas and rules), in the library and the routes', async () => {
    const owner = 'doors-market-owner';
    const seller = await keyedCall(handler, keys, owner, 'pro', ['marketplace' as never]);
    const work = await engine.registerWork({ content: `${text} A work on the market.`, owner });
    const listing = { work_id: work.work_id, licence_type: 'training', territory: ['US'], term_months: 12 };
    const price = { amount_minor: 100, currency: 'USD' };
    const listings: Array<[object, Refused]> = [
      [listing, invalid('price', 'is required (or give rate)')],
      [{ ...listing, price, rate: { per: 'word', ...price } }, invalid('rate', 'give only one of price, rate')],
      [
        { ...listing, price: { amount_minor: 1, currency: 'usd' } },
        invalid('price.currency', 'must be an ISO 4217 code such as "USD"'),
      ],
      [{ ...listing, price, max_licences: 0 }, invalid('max_licences', 'must be ≥ 1')],
      [{ ...listing, price, output_cap: { max_percent: 150 } }, invalid('output_cap.max_percent', 'must be ≤ 100')],
      [
        { ...listing, price, exclusive: true, max_licences: 2 },
        invalid('max_licences', 'is for non-exclusive listings (an exclusive listing sells one licence)'),
      ],
      [
        { ...listing, price, territory: ['US', 'U$'] },
        {
          ...invalid('territory[1]', ''),
          message: expect.stringContaining('territory[1]: jurisdiction "U$" is not accepted'),
        },
      ],
    ];
    for (const [request, said] of listings) {
      const library = await refusal(engine.marketplace.createListing(owner, request as never));
      expect(library).toEqual(said);
      const route = await seller('POST', '/api/v1/marketplace/listings', request);
      expect(route.status).toBe(422);
      expect(over(route)).toEqual(library);
    }
    const { listing_id } = await engine.marketplace.createListing(owner, {
      ...listing,
      price,
      status: 'active',
    } as never);
    const patch = { price, rate: { per: 'word', ...price } };
    const patched = await refusal(engine.marketplace.updateListing(owner, listing_id, patch as never));
    expect(patched).toEqual(invalid('rate', 'give only one of price, rate'));
    expect(over(await seller('PATCH', `/api/v1/marketplace/listings/${listing_id}`, patch))).toEqual(patched);
    // an empty patch, refused whole (its schema's minProperties): one sentence at both doors
    const empty = await refusal(engine.marketplace.updateListing(owner, listing_id, {}));
    expect(empty.message).toBe('The input is not valid: the request: must have at least this many members: 1');
    const emptied = over(await seller('PATCH', `/api/v1/marketplace/listings/${listing_id}`, {}));
    expect(emptied).toMatchObject({ code: empty.code, message: empty.message });
    const buyer = await keyedCall(handler, keys, 'doors-market-buyer', 'pro', ['marketplace' as never]);
    const offer = { amount: price, expires_at: 'tomorrow' };
    const offered = await refusal(engine.marketplace.makeOffer('doors-market-buyer', listing_id, offer));
    expect(offered).toEqual(invalid('expires_at', 'must be an ISO 8601 date such as "2024-05-01"'));
    expect(over(await buyer('POST', `/api/v1/marketplace/listings/${listing_id}/offers`, offer))).toEqual(offered);
  });

  it("marketplace: a listing, offer, licence and audit query (their schemas and rules), in the library and the routes' queries", async () => {
    const who = 'doors-market-queries';
    const call = await keyedCall(handler, keys, who, 'pro', ['marketplace' as never]);
    const work_id = (await engine.registerWork({ content: `${text} A work to query.`, owner: who })).work_id;
    const market = engine.marketplace;
    const long = 'x'.repeat(301);
    const statuses = ['draft', 'active', 'withdrawn', 'sold_out', 'any'].map((x) => JSON.stringify(x)).join(', ');
    const queries: Array<[Promise<unknown>, string, string, string]> = [
      [
        market.listListings({ status: 'closed' as never }),
        '/listings?status=closed',
        'status',
        `must be one of ${statuses}`,
      ],
      [
        market.listListings({ currency: 'usd' }),
        '/listings?currency=usd',
        'currency',
        'must be an ISO 4217 code such as "USD"',
      ],
      [
        market.listListings({ min_amount_minor: 5 }),
        '/listings?min_amount_minor=5',
        'currency',
        'is required with a price range: amounts in different currencies do not compare',
      ],
      [
        market.listListings({ currency: 'USD', min_amount_minor: 6, max_amount_minor: 5 }),
        '/listings?currency=USD&min_amount_minor=6&max_amount_minor=5',
        'max_amount_minor',
        'must be ≥ min_amount_minor',
      ],
      [
        market.listListings({ after: long }),
        `/listings?after=${long}`,
        'after',
        'must have at most this many characters: 300',
      ],
      [
        market.listOffers({ party: who, listing_id: 'lst_1' }),
        '/offers?listing_id=lst_1',
        'listing_id',
        'must match ^lst_[0-9a-f]{32}$',
      ],
      [market.listLicences({ party: who, limit: 0 }), '/licences?limit=0', 'limit', 'must be ≥ 1'],
      [
        market.auditLog({ entity_id: work_id, after: long }),
        `/audit?entity_id=${work_id}&after=${long}`,
        'after',
        'must have at most this many characters: 300',
      ],
    ];
    for (const [library, path, field, reason] of queries)
      await saidAlike([library, call('GET', `/api/v1/marketplace${path}`)], field, reason);
  });

  it('report: max_spans out of its bounds (its schema), in the library and the route', async () => {
    const assessment_id = `ma_${'0'.repeat(32)}`;
    const library = await refusal(engine.memorization.report(assessment_id, { maxSpans: 101 }));
    expect(library).toMatchObject({ code: 'INVALID_INPUT', field: 'max_spans' });
    const call = await keyedCall(handler, keys, 'doors-report', 'pro', ['memorization' as never]);
    const route = await call('POST', '/api/v1/memorization/report', { assessment_id, max_spans: 101 });
    expect(route.status).toBe(422);
    expect(over(route)).toEqual(library);
  });

  it('analyze: a blank text (its rules), in the library, the CLI, the route and a job item', async () => {
    const request = { content: ' \n ', content_type: 'text' } as const;
    const library = await refusal(engine.analyze(request));
    expect(library).toEqual(invalid('content', 'is blank'));
    const blank = join(dir, 'blank.txt');
    writeFileSync(blank, request.content);
    expect(await refusal(analyzeCommand([blank, '--packs', 'none', '--quiet']))).toEqual(library);
    const call = await keyedCall(handler, keys, 'doors-analyze', 'scale');
    await refusedAtRouteAndJob(call, library, request, '/api/v1/attribution/analyze', 'analyze');
  });

  it('compare: a text past what a server aligns in a request (its served schema: 500,000 characters)', async () => {
    const call = await keyedCall(handler, keys, 'doors-compare', 'scale');
    const route = await call('POST', '/api/v1/attribution/compare', { a: 'x'.repeat(500_001), b: 'y' });
    expect(route.status).toBe(422);
    expect(over(route)).toMatchObject({ code: 'INVALID_INPUT', field: 'a' });
    // the library aligns it: its caller owns the process
    expect((await engine.compare('x'.repeat(500_001), 'y')).spans).toEqual([]);
  });
  it('createMonitor: work_id and work_hash both, a webhook URL with credentials (its rules), in the library and the route', async () => {
    const call = callWithKey(handler, (await keys.createKey({ account: 'doors-monitor', plan: 'scale' })).key);
    const work = await call('POST', '/api/v1/content/register', { content: text });
    expect(work.status).toBe(201);
    const { work_id, work_hash } = work.json;
    const create = (r: object) =>
      [engine.createMonitor(r, { owner: 'doors-monitor' }), call('POST', '/api/v1/monitors/create', r)] as const;
    await saidAlike(create({ work_id, work_hash }), 'work_hash', 'give only one of work_id, work_hash');
    const webhook = { url: 'https://user:pw@example.org/hooks', secret: 'whsec_0123456789abcdef' };
    await saidAlike(create({ work_id, webhook }), 'webhook.url', 'must not contain credentials');
    // an event page out of bounds (its schema): the library and the route's query name the same field
    const monitor = await call('POST', '/api/v1/monitors/create', { work_id });
    expect(monitor.status).toBe(201);
    const events = call('GET', `/api/v1/monitors/${monitor.json.monitor_id}/events?limit=0`);
    await boundAlike([engine.listEvents({ limit: 0 }), events], 'limit');
  });

  it('registerWork: content and fingerprint both, a date that is none (its rules), in the library and the route', async () => {
    const call = callWithKey(handler, (await keys.createKey({ account: 'doors-registry', plan: 'scale' })).key);
    const register = (r: object) =>
      [engine.registerWork({ ...r, owner: 'doors-registry' }), call('POST', '/api/v1/content/register', r)] as const;
    const fingerprint = { fingerprint: `tp1:${'0'.repeat(32)}`, work_hash: `sha256:${'0'.repeat(64)}` };
    await saidAlike(register({ content: text, fingerprint }), 'fingerprint', 'give only one of content, fingerprint');
    const dated = { content: text, metadata: { declarations: { since: 'soon' } } };
    const date = 'must be an ISO 8601 date such as "2024-05-01"';
    await saidAlike(register(dated), 'metadata.declarations.since', date);
    // a page out of bounds (its schema): the same field from the library and the route's query
    await boundAlike([engine.listWorks({ limit: 1001 }), call('GET', '/api/v1/content?limit=1001')], 'limit');
    // a lone surrogate in a title: the rules say what the route's JSON decoder says, top-level and under metadata
    const lone = 'contains a lone surrogate (not valid Unicode text)';
    await saidAlike(register({ content: text, metadata: { title: 'Persuasion \ud800' } }), 'metadata.title', lone);
    await saidAlike(register({ content: text, author: '\udc00 Austen' }), 'author', lone);
  });

  it("registerWork: the content's limits (its rules, within the caller's file limit), in the library and its entry", async () => {
    const entry = (r: object, maxFileBytes?: number) =>
      refusal(Promise.resolve().then(() => readThrough(REQUESTS.registerWork, r, { maxFileBytes })));
    const pdf = { content: 'JVBERi0xLjQK'.repeat(4), content_type: 'pdf', content_encoding: 'base64', owner: 'o' };
    const file = await refusal(engine.registerWork(pdf as never, { maxFileBytes: 16 }));
    expect(file).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      field: undefined,
      message: 'The input is larger than the configured limit: the file is larger than 16 bytes (0 MiB)',
    });
    expect(await entry(pdf, 16)).toEqual(file);
    const bytes = { ...pdf, content: new Uint8Array(17), content_encoding: undefined };
    expect(await refusal(engine.registerWork(bytes as never, { maxFileBytes: 16 }))).toEqual(file);
    const long = { content: 'é'.repeat(5 * 1024 * 1024 + 1), owner: 'o' };
    const over10 = await refusal(engine.registerWork(long));
    expect(over10).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('(10 MiB)') });
    expect(await entry(long)).toEqual(over10);
    expect(await refusal(engine.memorization.registerWork({ work: long }))).toEqual(over10);
    // the library's default: 64 MiB of file; the plan's own limit given, a file within it passes the rules
    expect(() => readThrough(REQUESTS.registerWork, pdf, { maxFileBytes: 48 })).not.toThrow();
  });
});

describe("a dataset's descriptor read through its contract", () => {
  it('createDataset: a field of the other kind (its rules), a kind it has not (its schema), in the library and the route', async () => {
    const writer = await keys.createKey({ account: 'doors-datasets', plan: 'scale', scopes: ['datasets:write'] });
    const call = callWithKey(handler, writer.key);
    const documents = [{ id: 'one', text }];
    const create = (d: object) =>
      [engine.addDataset(d as never, documents), call('POST', '/api/v1/datasets', { ...d, documents })] as const;
    await saidAlike(create({ id: 'doors-books', window: 8 }), 'window', "is an option of kind 'portrait' only");
    await saidAlike(create({ id: 'doors-books', kind: 'bloom' }), 'kind', 'must be one of "exact", "portrait"');
    await saidAlike(
      create({ id: 'doors-books', kind: 'portrait', keep_text: false }),
      'keep_text',
      "is an option of kind 'exact' only",
    );
    // refused before anything was loaded, at either door
    expect(engine.datasets().map((d) => d.id)).not.toContain('doors-books');
  });

  it("index build: the descriptor's fields refused as addDataset and the route refuse them, in the library and the CLI", async () => {
    const writer = await keys.createKey({ account: 'doors-build', plan: 'scale', scopes: ['datasets:write'] });
    const call = callWithKey(handler, writer.key);
    const documents = [{ id: 'one', text }];
    const file = join(dir, 'build.jsonl');
    writeFileSync(file, JSON.stringify({ text }));
    const out = join(dir, 'doors-build.tpds');
    const pattern = 'must be "provider/model_name" as the knowledge base names it';
    const cases: Array<[object, string[], string, string]> = [
      [{ window: 8 }, ['--window', '8'], 'window', "is an option of kind 'portrait' only"],
      [{ kind: 'bloom' }, ['--kind', 'bloom'], 'kind', 'must be one of "exact", "portrait"'],
      [{ kb_dataset: '' }, ['--kb-dataset', ' '], 'kb_dataset', 'must have at least this many characters: 1'],
      [{ models: ['a/b', 'c'] }, ['--models', 'a/b, c'], 'models[1]', pattern],
    ];
    for (const [fields, flags, field, reason] of cases) {
      const d = { id: 'doors-build', ...fields };
      const said = await refusal(engine.addDataset(d as never, documents));
      expect(said.message.startsWith(`The input is not valid: ${field}: ${reason}`), said.message).toBe(true);
      expect(said).toMatchObject({ code: 'INVALID_INPUT', field });
      const { kb_dataset: kbDataset, id: dataset, ...rest } = d as Record<string, unknown>;
      const options = { ...rest, dataset, ...(kbDataset === undefined ? {} : { kbDataset }), files: [file], out };
      expect(await refusal(buildDatasetFile(options as never))).toEqual(said);
      expect(await refusal(indexBuildCommand(['--dataset', 'doors-build', '--out', out, ...flags, file]))).toEqual(
        said,
      );
      const route = await call('POST', '/api/v1/datasets', { ...d, documents });
      expect(route.status).toBe(422);
      expect(over(route)).toEqual(said);
    }
    expect(existsSync(out)).toBe(false);
  });

  it("declareDataset: its declarations refused as the descriptor's, naming the same field", async () => {
    await engine.addDataset({ id: 'doors-declared' }, [{ id: 'one', text }]);
    const declared = (d: object) => Promise.resolve().then(() => engine.declareDataset('doors-declared', d as never));
    for (const d of [{ models: ['acme'] }, { kb_dataset: '' }]) {
      const said = await refusal(engine.addDataset({ id: 'doors-declared-2', ...d } as never, []));
      expect(await refusal(declared(d))).toEqual(said);
    }
    expect(await refusal(declared({ kb_dataset: null, colour: 'red' }))).toEqual(
      invalid('colour', 'is not a known field'),
    );
    expect(await refusal(declared({ models: 'acme/x' }))).toEqual(invalid('models', 'must be of type array or null'));
    expect(await refusal(declared({ kb_dataset: 7 }))).toEqual(invalid('kb_dataset', 'must be of type string or null'));
    expect(engine.corpus.descriptor('doors-declared').models).toBeUndefined();
  });
});

describe("a scan's item and options read through their contracts", () => {
  it('scan: an item without an id, a min_words out of bounds, an inexact dataset, in the library, the CLI and a job', async () => {
    await engine.addDataset({ id: 'doors-scanned' }, [{ id: 'one', text }]);
    await engine.addDataset({ id: 'doors-portrait', kind: 'portrait' }, [{ id: 'one', text }]);
    const call = await keyedCall(handler, keys, 'doors-scan', 'scale');
    const item = { id: 'out-1', text };
    const job = (request: object) => call('POST', '/api/v1/jobs', { type: 'scan', ...request });
    // the item (its schema): the library's scanItem, its stream (the item named by its place), a job's item
    const noId = { id: '', text };
    const library = await refusal(engine.scanItem(noId));
    expect(library).toEqual(invalid('id', 'must have at least this many characters: 1'));
    const stream = engine.scan([item, noId]);
    expect(await refusal(stream.next().then(() => stream.next()))).toEqual(
      invalid('items[1].id', 'must have at least this many characters: 1'),
    );
    const refusedItem = await job({ items: [noId] });
    expect(refusedItem.status).toBe(422);
    expect(over(refusedItem)).toEqual(asItem(library));
    // an option (its schema), as `min_words` at every door: the library's minWords, a job's options, the CLI's flag
    for (const [minWords, reason] of [
      [0, 'must be ≥ 1'],
      [100_001, 'must be ≤ 100000'],
    ] as const) {
      const said = await refusal(engine.scanItem(item, { minWords }));
      expect(said).toEqual(invalid('min_words', reason));
      const refused = await job({ items: [item], options: { min_words: minWords } });
      expect(refused.status).toBe(422);
      expect(over(refused)).toEqual(asOption(said));
      const input = join(dir, 'outputs.jsonl');
      writeFileSync(input, JSON.stringify(item));
      const cli = ['--dataset', join(dir, 'never-loaded.tpds'), input, '--out', '-', '--min-words', `${minWords}`];
      expect(await refusal(scanCommand([...cli, '--quiet']))).toEqual(said);
    }
    // a dataset that is not exact (its rules)
    const inexact = await refusal(engine.scanItem(item, { datasets: ['doors-portrait'] }));
    expect(inexact).toEqual(
      invalid('datasets[0]', '"doors-portrait" is not an exact dataset: a scan searches exact datasets'),
    );
    const refused = await job({ items: [item], options: { datasets: ['doors-portrait'] } });
    expect(refused.status).toBe(422);
    expect(over(refused)).toEqual(asOption(inexact));
  });

  it("threads: one bound, the library's, at scanFiles, buildDatasetFile and both commands' --threads", async () => {
    const input = join(dir, 'threads.jsonl');
    writeFileSync(input, JSON.stringify({ id: 'out-1', text }));
    const out = join(dir, 'threads-never-written.tpds');
    const bound = { code: 'INVALID_OPTIONS', field: undefined };
    for (const threads of [0, 1.5, 257, Number.NaN]) {
      const said = await refusal(scanFiles({ datasets: [out], inputs: [input], out: '-', threads }));
      const got = `got ${threads}`;
      expect(said).toEqual({
        ...bound,
        message: `The options are not valid: threads must be an integer in 1..256, ${got}`,
      });
      expect(await refusal(buildDatasetFile({ dataset: 'doors-threads', files: [input], out, threads }))).toEqual(said);
      const flag = ['--threads', Number.isNaN(threads) ? 'two' : `${threads}`];
      expect(await refusal(scanCommand(['--dataset', out, input, '--out', '-', ...flag, '--quiet']))).toEqual(said);
      expect(await refusal(indexBuildCommand(['--dataset', 'doors-threads', '--out', out, ...flag, input]))).toEqual(
        said,
      );
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe("a catalogue job's submission read through its contract", () => {
  it('createJob: no type, two types, options for a type without any (its rules), in the library and the route', async () => {
    const call = await keyedCall(handler, keys, 'doors-jobs', 'scale');
    const items = [{ id: 'a', text }];
    const cases: Array<[object, string, string, string]> = [
      [{ items }, '', 'type', 'is required (in the body, or as ?type= for JSON lines)'],
      [{ type: 'scan', items }, '?type=analyze', 'type', 'the body and the query name different types'],
      [
        { type: 'analyze', items: [{ content: text, content_type: 'text' }], options: {} },
        '',
        'options',
        'only a scan job takes options',
      ],
    ];
    for (const [request, query, field, reason] of cases) {
      const namedType = query === '' ? undefined : query.slice('?type='.length);
      const library = await refusal(
        Promise.resolve().then(() => JOB_REQUEST.rules(request as never, { registry: BUILT_IN_JOB_TYPES, namedType })),
      );
      expect(library).toEqual(invalid(field, reason));
      const route = await call('POST', `/api/v1/jobs${query}`, request);
      expect(route.status).toBe(422);
      expect(over(route)).toEqual(library);
    }
    // a type the host does not run: the words of the route's schema (its enum)
    const unknown = { type: 'bloom', items };
    const said = await refusal(
      Promise.resolve().then(() => JOB_REQUEST.rules(unknown, { registry: BUILT_IN_JOB_TYPES })),
    );
    const route = await call('POST', '/api/v1/jobs', unknown);
    expect(route.status).toBe(422);
    expect(over(route)).toEqual(said);
    // a plan's jobItems (its rules, 413), before any item is read against its type's schema
    const plan = { name: 'free', jobItems: 1 };
    const over1 = { items: [...items, 'not an item'] };
    const capped = await refusal(
      Promise.resolve().then(() => JOB_REQUEST.rules(over1, { registry: BUILT_IN_JOB_TYPES, namedType: 'scan', plan })),
    );
    expect(capped).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      field: undefined,
      message: expect.stringContaining('a job on plan "free" holds at most 1 items (jobItems); this one has 2'),
    });
  });
});

describe("a JSON-lines job's items, typed beside the request", () => {
  it("createJob: each item of its type's schema (the rules), as a JSON body's item is refused by the schema", async () => {
    const call = await keyedCall(handler, keys, 'doors-job-lines', 'scale');
    const ndjson = { 'content-type': 'application/x-ndjson' };
    const good = { id: 'a', text };
    for (const [bad, field, reason] of [
      [{ id: '', text }, 'items[1].id', 'must have at least this many characters: 1'],
      [{ id: 'b', text: 5 }, 'items[1].text', 'must be a string'],
      [{ id: 'b', text, colour: 'red' }, 'items[1].colour', 'is not a known field'],
      [{ text }, 'items[1].id', 'is required'],
      ['just text', 'items[1]', 'must be an object'],
    ] as const) {
      const items = [good, bad];
      const body = await call('POST', '/api/v1/jobs', { type: 'scan', items });
      expect(body.status).toBe(422);
      expect(over(body)).toEqual(invalid(field, reason));
      const lines = await call(
        'POST',
        '/api/v1/jobs?type=scan',
        items.map((x) => JSON.stringify(x)).join('\n'),
        ndjson,
      );
      expect(lines.status).toBe(422);
      expect(lines.json.error).toEqual(body.json.error);
      const rules = () => JOB_REQUEST.rules({ items }, { registry: BUILT_IN_JOB_TYPES, namedType: 'scan' });
      expect(await refusal(Promise.resolve().then(rules))).toEqual(over(body));
    }
    // past its schema, a type's own checks (score: one of work_hash and content), as for a JSON body
    const both = JSON.stringify({
      target_model: 'eleutherai/pythia-6.9b',
      jurisdiction: 'US',
      work_hash: `sha256:${'a'.repeat(64)}`,
      content: text,
    });
    const score = await call('POST', '/api/v1/jobs?type=score', both, ndjson);
    expect(score.status).toBe(422);
    expect(over(score).field).toBe('items[0].content');
    expect((await call('GET', '/api/v1/jobs')).json.jobs).toEqual([]);
  });
});

describe("a job's submission at the job store, as at the route", () => {
  it('createJob: no item (its schema), a type that is no name (its rules), at JobService.submit and the route', async () => {
    const jobs = createJobService({ store: engine.store });
    const call = await keyedCall(handler, keys, 'doors-job-store', 'scale');
    const none = await refusal(jobs.submit({ account: 'doors-job-store', type: 'scan', items: [] }));
    expect(none).toEqual(invalid('items', 'must have at least this many items: 1'));
    const route = await call('POST', '/api/v1/jobs', { type: 'scan', items: [] });
    expect(route.status).toBe(422);
    expect(over(route)).toEqual(none);
    const named = invalid('type', JOB_TYPE_NAME_WORDS);
    expect(await refusal(jobs.submit({ account: 'doors-job-store', type: 'Scan!', items: [{}] }))).toEqual(named);
    expect(await refusal(jobs.submitStream({ account: 'doors-job-store', type: '' }, [{}]))).toEqual(named);
    expect((await jobs.list({ owner: 'doors-job-store' })).jobs).toEqual([]);
  });
});

describe('a request refused whole', () => {
  it('names no field, in the library and the route (details: location and reason)', async () => {
    const library = await refusal(Promise.resolve().then(() => readThrough(REQUESTS.compare, [], undefined)));
    expect(library).toEqual({
      code: 'INVALID_INPUT',
      field: undefined,
      message: 'The input is not valid: the request: must be an object',
    });
    const call = await keyedCall(handler, keys, 'doors-whole', 'scale');
    const route = await call('POST', '/api/v1/attribution/compare', []);
    expect(route.status).toBe(422);
    expect(over(route)).toEqual(library);
    expect(route.json.error.details).toEqual({ location: 'body', reason: 'must be an object' });
  });
});

describe("an account's credentials read through their contracts", () => {
  it('createKey, createClient: a name past its bound, a scope twice (their schema), in the library and the routes', async () => {
    const own = { account: 'doors-keys', plan: 'scale' };
    const mine = callWithKey(handler, (await keys.createKey(own)).key);
    const long = { name: 'n'.repeat(101) };
    const bound = 'must have at most this many characters: 100';
    await saidAlike([keys.createKey({ ...own, ...long }), mine('POST', '/api/v1/keys', long)], 'name', bound);
    const twice = { scopes: ['kb', 'kb'] };
    const clients = [keys.createClient({ ...own, ...twice }), mine('POST', '/api/v1/oauth/clients', twice)] as const;
    await saidAlike(clients, 'scopes', 'must not repeat an item');
  });

  it('adminCreateKey: a plan the server does not charge (its rules), in the library and the route', async () => {
    const admin = callWithKey(handler, (await keys.createKey({ account: 'doors-admin', scopes: ['admin'] })).key);
    const platinum = { account: 'acme', plan: 'platinum' };
    const reason = '"platinum" is not a known plan; the plans are free, pro, scale, enterprise';
    await saidAlike([keys.createKey(platinum), admin('POST', '/api/v1/admin/keys', platinum)], 'plan', reason);
  });

  it('keys create: a plan and a scope the server does not know, in the CLI as in the library and the route', async () => {
    const admin = callWithKey(handler, (await keys.createKey({ account: 'doors-cli', scopes: ['admin'] })).key);
    const store = join(dir, 'keys-never-opened');
    const cli = (...flags: string[]) => keysCommand(['create', '--store', store, '--account', 'acme', ...flags]);
    const platinum = { account: 'acme', plan: 'platinum' };
    const reason = '"platinum" is not a known plan; the plans are free, pro, scale, enterprise';
    expect(await refusal(cli('--plan', 'platinum'))).toEqual(await refusal(keys.createKey(platinum)));
    await saidAlike([cli('--plan', 'platinum'), admin('POST', '/api/v1/admin/keys', platinum)], 'plan', reason);
    const root = { account: 'acme', scopes: ['analyze', 'root'] };
    expect(await refusal(cli('--scopes', 'analyze,root'))).toEqual(await refusal(keys.createKey(root)));
    await saidAlike(
      [cli('--scopes', 'analyze,root'), admin('POST', '/api/v1/admin/keys', root)],
      'scopes[1]',
      `must be one of ${SCOPE_LIST}`,
    );
    const days = { account: 'acme', expires_in_days: 0 };
    await saidAlike(
      [cli('--expires-days', '0'), admin('POST', '/api/v1/admin/keys', days)],
      'expires_in_days',
      'must be ≥ 1',
    );
    // refused before the store is opened: a file store would have made its directory
    expect(existsSync(store)).toBe(false);
  });
});

describe('a query read through its contract', () => {
  it("listModels: a disclosure the knowledge base does not know, in the library and the route's query", async () => {
    const call = callWithKey(handler, (await keys.createKey({ account: 'doors-kb', plan: 'scale' })).key);
    const route = call('GET', '/api/v1/kb/models?disclosure=secret');
    await boundAlike(
      [Promise.resolve().then(() => engine.models({ disclosure: 'secret' as never })), route],
      'disclosure',
    );
  });
});

type Doors = readonly [library: Promise<unknown>, route: Promise<{ status: number; json: Record<string, any> }>];

/** A rule's refusal: the library's INVALID_INPUT naming `field` with `reason`, and the route's 422 saying the same. */
async function saidAlike([library, route]: Doors, field: string, reason: string): Promise<void> {
  const said = await refusal(library);
  expect(said).toEqual({ code: 'INVALID_INPUT', field, message: `The input is not valid: ${field}: ${reason}` });
  const answer = await route;
  expect(answer.status).toBe(422);
  expect(over(answer)).toEqual(said);
}

/** A bound's refusal: the same code and field (the HTTP validator words a bound its own way). */
async function boundAlike([library, route]: Doors, field: string): Promise<void> {
  expect(await refusal(library)).toMatchObject({ code: 'INVALID_INPUT', field });
  const answer = await route;
  expect(answer.status).toBe(422);
  expect(over(answer)).toMatchObject({ code: 'INVALID_INPUT', field });
}

/** INVALID_INPUT naming `field`, as every door says it. */
const invalid = (field: string, reason: string) => ({
  code: 'INVALID_INPUT',
  field,
  message: `The input is not valid: ${field}: ${reason}`,
});

/** Each route's answer to `request` is a 422 saying what the library said. */
async function refusedAlike(library: object, request: object, ...paths: string[]): Promise<void> {
  const call = await keyedCall(handler, keys, `doors-${paths[0].split('/').pop()}`, 'pro', ['memorization' as never]);
  for (const path of paths) {
    const route = await call('POST', path, request);
    expect(route.status, path).toBe(422);
    expect(over(route), path).toEqual(library);
  }
}

/** The route's 422 and a job item's of `request` say what the library said (the item's prefixed `items[0].`). */
async function refusedAtRouteAndJob(call: Call, library: Refused, request: object, path: string, type: string) {
  const route = await call('POST', path, request);
  expect(route.status).toBe(422);
  expect(over(route)).toEqual(library);
  const job = await call('POST', '/api/v1/jobs', { type, items: [request] });
  expect(job.status).toBe(422);
  expect(over(job)).toEqual(asItem(library));
}
