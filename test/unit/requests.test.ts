/**
 * REQUESTS, the one definition of each converted operation's request: every door's schema IS its entry's object (the
 * route's request schema, the job type's item schema), each entry's TypeScript type names the members its schema
 * does, the served schema differs from the library's only where SERVER_CAPS says so, and each service's rules refuse
 * what its schema cannot say, naming the field.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes/index.js';
import { BUILT_IN_JOB_TYPES } from '../../src/services/jobs/registry.js';
import { SERVER_CAPS } from '../../src/services/memorization/limits.js';
import {
  auditRules,
  EXTRACT_WORK_REQUEST,
  type AssessRequestJson,
  type AuditRequestJson,
  type ProbeRequestJson,
  type ReportRequest,
  type ExtractWorkRequestJson,
} from '../../src/services/memorization/schemas.js';
import type { Engine } from '../../src/engine.js';
import type { ModelFilter } from '../../src/services/kb/schema.js';
import type { CreateMonitorRequest } from '../../src/services/monitors/monitors.js';
import { createMonitorRules } from '../../src/services/monitors/schema.js';
import { registerRules } from '../../src/services/registry/schema.js';
import type { ListWorksOptions, RegisterWorkRequest } from '../../src/services/registry/works.js';
import { REQUESTS } from '../../src/services/requests.js';
import { MARKET_REQUESTS } from '../../src/services/market/schema.js';
import type {
  AuditFilter,
  CreateListingRequest,
  LicenceFilter,
  ListingFilter,
  MakeOfferRequest,
  OfferFilter,
  UpdateListingRequest,
} from '../../src/services/market/types.js';
import type { DatasetDeclaration, DatasetDescriptor } from '../../src/datasets/types.js';
import type { AdminCreateKeyRequest } from '../../src/services/accounts/schema.js';
import type { CreateClientOptions, CreateKeyOptions } from '../../src/services/accounts/keys.js';
import type { TokenRequest } from '../../src/services/accounts/schema.js';
import {
  ANALYZE_REQUEST_SCHEMA,
  type CompareRequest,
  type FingerprintRequest,
} from '../../src/services/analyze/schema.js';
import type { ScanOptionsJson } from '../../src/services/scan/schema.js';
import type { ScanItem } from '../../src/services/scan/types.js';
import { scoreRules } from '../../src/services/score/schema.js';
import type { ScoreRequest } from '../../src/services/score/types.js';
import type {
  CompareOutputRequest,
  ExtractRequest,
  ReferenceSetRequest,
  TrackWorkRequest,
} from '../../src/services/memorization/types.js';

/**
 * The doors of each entry: the operation ids of its routes (`query`: the request is their query), its job type (whose
 * item it is), the job type whose `options` it is.
 */
const DOORS: Record<keyof typeof REQUESTS, { routes: string[]; query?: true; jobType?: string; jobOptions?: string }> =
  {
    analyze: { routes: ['analyze'], jobType: 'analyze' },
    compare: { routes: ['compare'] },
    fingerprint: { routes: ['fingerprint'] },
    compareOutput: { routes: ['compareOutput'] },
    trackWork: { routes: ['trackWork'] },
    referenceSet: { routes: ['createReferenceSet'] },
    extract: { routes: ['extractMemorized'] },
    probe: { routes: ['probeMemorization'] },
    assess: { routes: ['assessMemorization'] },
    report: { routes: ['memorizationReport'] },
    audit: { routes: [], jobType: 'audit' },
    extractWork: { routes: [], jobType: 'extract' },
    score: { routes: ['score'], jobType: 'score' },
    scan: { routes: [], jobType: 'scan' },
    scanOptions: { routes: [], jobOptions: 'scan' },
    createMonitor: { routes: ['createMonitor'] },
    listMonitors: { routes: ['listMonitors'], query: true },
    listEvents: { routes: ['listMonitorEvents'], query: true },
    registerWork: { routes: ['registerWork'] },
    listWorks: { routes: ['listWorks'], query: true },
    verifyReceipt: { routes: ['verifyReceipt'] },
    listModels: { routes: ['listModels'], query: true },
    createKey: { routes: ['createApiKey'] },
    adminCreateKey: { routes: ['adminCreateKey'] },
    createClient: { routes: ['createOAuthClient'] },
    issueToken: { routes: ['oauthToken'] },
    createDataset: { routes: ['createDataset'] },
    declareDataset: { routes: [] },
  };

/** Each entry's TypeScript members, checked against its type by the compiler (a member added or gone fails it). */
const TYPE_KEYS: Record<keyof typeof REQUESTS, string[]> = {
  // its type is its schema's (AnalyzeRequestJson = FromSchema<typeof ANALYZE_REQUEST_SCHEMA>): the same members
  analyze: Object.keys(ANALYZE_REQUEST_SCHEMA.properties),
  compare: Object.keys({ a: 1, b: 1 } satisfies Record<keyof CompareRequest, 1>),
  fingerprint: Object.keys({
    content: 1,
    content_type: 1,
    options: 1,
    include_winnow: 1,
  } satisfies Record<keyof FingerprintRequest, 1>),
  compareOutput: Object.keys({
    output: 1,
    work_ids: 1,
    min_tokens: 1,
    limit: 1,
  } satisfies Record<keyof CompareOutputRequest, 1>),
  trackWork: Object.keys({ work_id: 1, work: 1, canaries: 1 } satisfies Record<keyof TrackWorkRequest, 1>),
  referenceSet: Object.keys({
    id: 1,
    texts: 1,
    basis: 1,
    description: 1,
    published_after: 1,
  } satisfies Record<keyof ReferenceSetRequest, 1>),
  extract: Object.keys({
    work_id: 1,
    text: 1,
    prefix_tokens: 1,
    continuation_tokens: 1,
    prefixes: 1,
    max_tokens: 1,
    concurrency: 1,
  } satisfies Record<Exclude<keyof ExtractRequest, 'model'>, 1>),
  probe: Object.keys({
    work_id: 1,
    text: 1,
    texts: 1,
    reference: 1,
    chunk_tokens: 1,
    min_chunks: 1,
    min_reference_documents: 1,
    k: 1,
    alpha: 1,
    concurrency: 1,
  } satisfies Record<Exclude<keyof ProbeRequestJson | 'texts', 'model' | 'reference_model'>, 1>),
  assess: Object.keys({
    work_id: 1,
    kb_model: 1,
    jurisdiction: 1,
    extract: 1,
    probe: 1,
    traps: 1,
    trap_alpha: 1,
  } satisfies Record<keyof AssessRequestJson, 1>),
  report: Object.keys({ assessment_id: 1, max_spans: 1 } satisfies Record<keyof ReportRequest, 1>),
  audit: Object.keys({
    works: 1,
    budget_calls: 1,
    first_probes: 1,
    level: 1,
    prefix_words: 1,
    max_tokens: 1,
    concurrency: 1,
    prompt_variants: 1,
  } satisfies Record<keyof AuditRequestJson, 1>),
  extractWork: Object.keys({
    work_id: 1,
    text: 1,
    sections: 1,
    budget_calls: 1,
    probes: 1,
    prefix_words: 1,
    max_tokens: 1,
    concurrency: 1,
    prompt_variants: 1,
    prices: 1,
  } satisfies Record<keyof ExtractWorkRequestJson, 1>),
  score: Object.keys({
    work_hash: 1,
    content: 1,
    content_type: 1,
    content_encoding: 1,
    include_text: 1,
    target_model: 1,
    jurisdiction: 1,
  } satisfies Record<keyof ScoreRequest, 1>),
  scan: Object.keys({ id: 1, text: 1 } satisfies Record<keyof ScanItem, 1>),
  scanOptions: Object.keys({ datasets: 1, min_words: 1, paraphrase: 1 } satisfies Record<keyof ScanOptionsJson, 1>),
  createMonitor: Object.keys({
    work_id: 1,
    work_hash: 1,
    models: 1,
    datasets: 1,
    webhook: 1,
    events: 1,
    jurisdiction: 1,
  } satisfies Record<keyof CreateMonitorRequest, 1>),
  listMonitors: ['work_id'],
  registerWork: Object.keys({
    owner: 1,
    content: 1,
    content_type: 1,
    content_encoding: 1,
    fingerprint: 1,
    title: 1,
    author: 1,
    work_type: 1,
    declarations: 1,
    metadata: 1,
  } satisfies Record<keyof RegisterWorkRequest, 1>),
  listWorks: Object.keys({ after: 1, limit: 1 } satisfies Record<Exclude<keyof ListWorksOptions, 'owner'>, 1>),
  verifyReceipt: ['receipt'],
  listModels: Object.keys({ provider: 1, modality: 1, disclosure: 1, dataset: 1 } satisfies Record<
    keyof ModelFilter,
    1
  >),
  listEvents: Object.keys({ monitor_id: 1, after: 1, limit: 1 } satisfies Record<
    keyof Parameters<Engine['listEvents']>[0] & string,
    1
  >),
  createKey: Object.keys({
    account: 1,
    plan: 1,
    scopes: 1,
    mode: 1,
    name: 1,
    expiresInSeconds: 1,
  } satisfies Record<keyof CreateKeyOptions, 1>),
  adminCreateKey: Object.keys({
    account: 1,
    plan: 1,
    scopes: 1,
    mode: 1,
    name: 1,
    expires_in_days: 1,
  } satisfies Record<keyof AdminCreateKeyRequest, 1>),
  createClient: Object.keys({ account: 1, plan: 1, scopes: 1, name: 1 } satisfies Record<keyof CreateClientOptions, 1>),
  issueToken: Object.keys({ grant_type: 1, scope: 1, client_id: 1, client_secret: 1 } satisfies Record<
    keyof TokenRequest,
    1
  >),
  createDataset: Object.keys({
    id: 1,
    name: 1,
    kind: 1,
    window: 1,
    background: 1,
    locate: 1,
    common: 1,
    models: 1,
    kb_dataset: 1,
    keep_text: 1,
    meta: 1,
  } satisfies Record<keyof DatasetDescriptor, 1>),
  declareDataset: Object.keys({ kb_dataset: 1, models: 1 } satisfies Record<keyof DatasetDeclaration, 1>),
};

/**
 * Members a door serves otherwise than the library reads them, each for a reason written beside its contract: a
 * reference set's id is the account's own name for the set (the route stores it as `<account>/<id>`), and so a
 * probe's reference; an assessment's settings are the extraction's and the probe's options as their routes serve them;
 * a comparison's texts are held shorter by a server, which aligns them within the request; a tracked work's `work` is a
 * registration, read by the library through its own contract and served as that contract serves it (without `owner`);
 * a dataset an account creates has an id without `:`, so that it cannot take a name of the shipped packs' family; a
 * scan item's id and text are held to bounds by a server, which stores a job's items.
 */
const SERVED_OWN: Partial<Record<keyof typeof REQUESTS, string[]>> = {
  scan: ['id', 'text'],
  trackWork: ['work'],
  referenceSet: ['id'],
  probe: ['reference'],
  assess: ['extract', 'probe'],
  compare: ['a', 'b'],
  createDataset: ['id'],
};

type Props = Record<string, Record<string, unknown>>;
const props = (schema: unknown) => (schema as { properties: Props }).properties;

const refusedAt = (f: () => void) => {
  try {
    f();
  } catch (e) {
    return [(e as { code: string }).code, ((e as Error).cause as { field?: string } | undefined)?.field];
  }
  return null;
};

describe('REQUESTS', () => {
  for (const [name, entry] of Object.entries(REQUESTS) as [
    keyof typeof REQUESTS,
    (typeof REQUESTS)[keyof typeof REQUESTS],
  ][]) {
    it(`${name}: every door's schema is the entry's served object`, () => {
      expect(entry.operation).toBe(name);
      const doors = DOORS[name];
      for (const id of doors.routes) {
        const rows = ROUTES.filter((r) => r.operationId === id || r.aliasOf === id);
        expect(rows.length, id).toBeGreaterThan(0);
        for (const r of rows)
          expect((doors.query ? r.querySchema : r.requestSchema) === entry.served, `${r.method} ${r.path}`).toBe(true);
      }
      if (doors.jobType) expect(BUILT_IN_JOB_TYPES.get(doors.jobType)?.itemSchema === entry.served).toBe(true);
      if (doors.jobOptions) expect(BUILT_IN_JOB_TYPES.get(doors.jobOptions)?.optionsSchema === entry.served).toBe(true);
      // no route serves a schema of the same component under another object
      const same = ROUTES.filter((r) => [r.requestSchema, r.querySchema].includes(entry.schema));
      for (const r of same) expect(doors.routes).toContain(r.aliasOf ?? r.operationId);
    });

    it(`${name}: its type names the members its schema does`, () => {
      expect(Object.keys(props(entry.schema)).sort()).toEqual([...TYPE_KEYS[name]].sort());
    });

    it(`${name}: served as the library reads it, tightened only by SERVER_CAPS`, () => {
      const library = props(entry.schema);
      for (const [k, served] of Object.entries(props(entry.served))) {
        // what only a door names (an audit item's model spec), or names its own way
        if (!(k in library) || SERVED_OWN[name]?.includes(k)) continue;
        const cap = SERVER_CAPS[k];
        const tightened = cap !== undefined && Number(library[k].maximum) > cap;
        expect(served, k).toEqual(tightened ? { ...library[k], maximum: cap } : library[k]);
      }
    });
  }
});

/** The marketplace's entries: each one route's body or query (`query`), served as the library reads it but where said. */
const MARKET_DOORS: Record<keyof typeof MARKET_REQUESTS, { route: string; query?: true }> = {
  createListing: { route: 'createListing' },
  updateListing: { route: 'updateListing' },
  makeOffer: { route: 'makeOffer' },
  counterOffer: { route: 'counterOffer' },
  listListings: { route: 'listListings', query: true },
  listOffers: { route: 'listOffers', query: true },
  listLicences: { route: 'listLicences', query: true },
  auditLog: { route: 'marketplaceAudit', query: true },
  verifyLicence: { route: 'verifyLicence' },
};

const MARKET_TYPE_KEYS: Record<keyof typeof MARKET_REQUESTS, string[]> = {
  createListing: Object.keys({
    work_id: 1,
    licence_type: 1,
    territory: 1,
    term_months: 1,
    price: 1,
    rate: 1,
    exclusive: 1,
    max_licences: 1,
    output_cap: 1,
    title: 1,
    description: 1,
    status: 1,
  } satisfies Record<keyof CreateListingRequest, 1>),
  updateListing: Object.keys({
    title: 1,
    description: 1,
    territory: 1,
    term_months: 1,
    price: 1,
    rate: 1,
    exclusive: 1,
    max_licences: 1,
    output_cap: 1,
  } satisfies Record<keyof UpdateListingRequest, 1>),
  makeOffer: Object.keys({
    amount: 1,
    territory: 1,
    term_months: 1,
    expires_at: 1,
    message: 1,
  } satisfies Record<keyof MakeOfferRequest, 1>),
  counterOffer: ['amount', 'territory', 'term_months', 'expires_at', 'message'],
  listListings: Object.keys({
    status: 1,
    licence_type: 1,
    territory: 1,
    work_type: 1,
    owner: 1,
    visible_to: 1,
    exclusive: 1,
    pricing: 1,
    currency: 1,
    min_amount_minor: 1,
    max_amount_minor: 1,
    after: 1,
    limit: 1,
  } satisfies Record<keyof ListingFilter, 1>),
  listOffers: Object.keys({
    listing_id: 1,
    buyer: 1,
    seller: 1,
    party: 1,
    status: 1,
    after: 1,
    limit: 1,
  } satisfies Record<keyof OfferFilter, 1>),
  listLicences: Object.keys({
    licensor: 1,
    licensee: 1,
    party: 1,
    listing_id: 1,
    work_id: 1,
    after: 1,
    limit: 1,
  } satisfies Record<keyof LicenceFilter, 1>),
  auditLog: Object.keys({ entity_id: 1, after: 1, limit: 1 } satisfies Record<keyof AuditFilter, 1>),
  verifyLicence: ['licence'],
};

/**
 * What a route serves otherwise than the library reads it: the library's parties of an offer or licence are the
 * caller's `role` over HTTP (the route names the caller), a listing search is the caller's (no `visible_to`: the route
 * gives the caller), and an audit read over HTTP is of one entity (the route checks the caller may see it).
 */
const MARKET_SERVED: Partial<
  Record<keyof typeof MARKET_REQUESTS, { gone: string[]; role?: string[]; required?: string[] }>
> = {
  listListings: { gone: ['visible_to'] },
  listOffers: { gone: ['buyer', 'seller', 'party'], role: ['buyer', 'seller'] },
  listLicences: { gone: ['licensor', 'licensee', 'party'], role: ['licensor', 'licensee'] },
  auditLog: { gone: [], required: ['entity_id'] },
};

describe('MARKET_REQUESTS', () => {
  for (const [name, entry] of Object.entries(MARKET_REQUESTS) as [
    keyof typeof MARKET_REQUESTS,
    (typeof MARKET_REQUESTS)[keyof typeof MARKET_REQUESTS],
  ][]) {
    it(`${name}: its route's ${MARKET_DOORS[name].query ? 'query' : 'request'} schema is the entry's served object`, () => {
      expect(entry.operation).toBe(name);
      const { route, query } = MARKET_DOORS[name];
      const rows = ROUTES.filter((r) => r.operationId === route);
      expect(rows.length).toBe(1);
      expect((query ? rows[0].querySchema : rows[0].requestSchema) === entry.served).toBe(true);
      const serving = ROUTES.filter((r) =>
        [r.requestSchema, r.querySchema].some((s) => s === entry.served || s === entry.schema),
      );
      expect(serving.map((r) => r.operationId)).toEqual([route]);
    });
    it(`${name}: served as the library reads it, but for what MARKET_SERVED says`, () => {
      const own = MARKET_SERVED[name];
      if (own === undefined) return void expect(entry.served).toBe(entry.schema);
      const { role, ...library } = props(entry.schema);
      expect(role).toBeUndefined();
      for (const k of own.gone) delete library[k];
      const { role: served, ...rest } = props(entry.served);
      expect(rest).toEqual(library);
      expect(served).toEqual(own.role && { enum: own.role });
      expect((entry.served as { required: string[] }).required).toEqual(own.required ?? []);
      expect((entry.schema as { required: string[] }).required).toEqual([]);
    });
    it(`${name}: its type names the members its schema does`, () => {
      expect(Object.keys(props(entry.schema)).sort()).toEqual([...MARKET_TYPE_KEYS[name]].sort());
    });
  }

  it('createListing, updateListing: one of price and rate; max_licences without exclusivity; a cap of something', () => {
    const listing = {
      work_id: `wk_${'0'.repeat(32)}`,
      licence_type: 'training',
      territory: ['US'],
      term_months: 12,
    } as const;
    const price = { amount_minor: 1, currency: 'USD' };
    const rate = { per: 'word', ...price } as const;
    const create = (r: object) =>
      refusedAt(() => MARKET_REQUESTS.createListing.rules({ ...listing, ...r } as CreateListingRequest, undefined));
    expect(create({})).toEqual(['INVALID_INPUT', 'price']);
    expect(create({ price, rate })).toEqual(['INVALID_INPUT', 'rate']);
    expect(create({ price })).toBeNull();
    expect(create({ rate, exclusive: true, max_licences: 2 })).toEqual(['INVALID_INPUT', 'max_licences']);
    expect(create({ rate, exclusive: true, max_licences: null })).toBeNull();
    expect(create({ price, output_cap: { max_percent: null } })).toEqual(['INVALID_INPUT', 'output_cap']);
    expect(create({ price, output_cap: { max_percent: 5 } })).toBeNull();
    const patch = (r: object) => refusedAt(() => MARKET_REQUESTS.updateListing.rules(r, undefined));
    expect(patch({ price, rate })).toEqual(['INVALID_INPUT', 'rate']);
    expect(patch({ exclusive: true, max_licences: 3 })).toEqual(['INVALID_INPUT', 'max_licences']);
    expect(patch({ rate })).toBeNull();
  });

  it('listListings: a price range in one currency, low to high', () => {
    const rules = (q: ListingFilter) => refusedAt(() => MARKET_REQUESTS.listListings.rules(q, undefined));
    expect(rules({ min_amount_minor: 5 })).toEqual(['INVALID_INPUT', 'currency']);
    expect(rules({ max_amount_minor: 0 })).toEqual(['INVALID_INPUT', 'currency']);
    expect(rules({ currency: 'USD', min_amount_minor: 6, max_amount_minor: 5 })).toEqual([
      'INVALID_INPUT',
      'max_amount_minor',
    ]);
    expect(rules({ currency: 'USD', min_amount_minor: 5, max_amount_minor: 5 })).toBeNull();
    expect(rules({ currency: 'USD' })).toBeNull();
  });

  it('makeOffer, counterOffer: an expiry in ISO 8601', () => {
    for (const entry of [MARKET_REQUESTS.makeOffer, MARKET_REQUESTS.counterOffer]) {
      const rules = (expires_at: string) =>
        refusedAt(() => entry.rules({ amount: { amount_minor: 1, currency: 'USD' }, expires_at }, undefined));
      expect(rules('tomorrow')).toEqual(['INVALID_INPUT', 'expires_at']);
      expect(rules('2030-01-01T00:00:00Z')).toBeNull();
    }
  });
});

describe('members served otherwise (SERVED_OWN)', () => {
  it("assess: its settings are the extraction's and the probe's options as their routes serve them", () => {
    const form = (k: string) => props((props(REQUESTS.assess.served)[k].oneOf as unknown[])[1]);
    for (const [op, k] of [
      ['extract', 'extract'],
      ['probe', 'probe'],
    ] as const) {
      const served = props(REQUESTS[op].served);
      for (const [member, schema] of Object.entries(form(k))) expect(schema, `${k}.${member}`).toEqual(served[member]);
    }
  });

  it("referenceSet, probe: a reference set's id over HTTP is the account's name, the library's holds <account>/", () => {
    expect(props(REQUESTS.referenceSet.served).id).toMatchObject({ pattern: expect.any(String) });
    expect(props(REQUESTS.referenceSet.schema).id).toMatchObject({ maxLength: 200 });
  });
});

describe("createDataset: served without the packs' portrait options, its id without `:`", () => {
  it('serves no background, locate or common; an id of the HTTP pattern', () => {
    const served = props(REQUESTS.createDataset.served);
    for (const k of ['background', 'locate', 'common']) expect(served[k], k).toBeUndefined();
    expect(new RegExp(served.id.pattern as string).test('pack:gutenberg')).toBe(false);
    expect(props(REQUESTS.createDataset.schema).id).toMatchObject({ minLength: 1, maxLength: 200 });
  });
});

describe("each service's rules", () => {
  const scored = { target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' };
  const hash = `sha256:${'0'.repeat(64)}`;

  it('score: exactly one of work_hash and content; content members only with content', () => {
    expect(refusedAt(() => scoreRules({ ...scored }))).toEqual(['INVALID_INPUT', 'work_hash']);
    expect(refusedAt(() => scoreRules({ ...scored, work_hash: hash, content: 'x' }))).toEqual([
      'INVALID_INPUT',
      'content',
    ]);
    for (const k of ['content_type', 'content_encoding', 'include_text'] as const)
      expect(
        refusedAt(() => scoreRules({ ...scored, work_hash: hash, [k]: k === 'include_text' ? true : 'pdf' })),
      ).toEqual(['INVALID_INPUT', k]);
    expect(refusedAt(() => scoreRules({ ...scored, work_hash: hash }))).toBeNull();
    expect(
      refusedAt(() =>
        scoreRules({
          ...scored,
          content: 'JVBERi0=',
          content_type: 'pdf',
          content_encoding: 'base64',
          include_text: false,
        }),
      ),
    ).toBeNull();
  });

  it('compareOutput: an output of more than white space', () => {
    const rules = (output: string) => refusedAt(() => REQUESTS.compareOutput.rules({ output }, undefined));
    expect(rules(' \n\t')).toEqual(['INVALID_INPUT', 'output']);
    expect(rules(' x ')).toBeNull();
  });

  it('trackWork: exactly one of work_id and work; its work served as the registration is', () => {
    const rules = (r: object) => refusedAt(() => REQUESTS.trackWork.rules(r, undefined));
    expect(rules({})).toEqual(['INVALID_INPUT', 'work_id']);
    expect(rules({ work_id: `wk_${'0'.repeat(32)}`, work: { content: 'x' } })).toEqual(['INVALID_INPUT', 'work']);
    expect(rules({ work: { content: 'x' } })).toBeNull();
    expect(props(REQUESTS.trackWork.served).work).toBe(REQUESTS.registerWork.served);
  });

  it('referenceSet: texts more than white space, within the total; published_after a date', () => {
    const set = { id: 'r', basis: 'unverified', texts: ['a', 'b'] } as const;
    const rules = (r: object) => refusedAt(() => REQUESTS.referenceSet.rules({ ...set, ...r }, undefined));
    expect(rules({})).toBeNull();
    expect(rules({ texts: ['a', ' '] })).toEqual(['INVALID_INPUT', 'texts[1]']);
    expect(rules({ published_after: '2024-13-01' })).toEqual(['INVALID_INPUT', 'published_after']);
    expect(rules({ published_after: '2024-05-01' })).toBeNull();
    const half = 'x'.repeat(25 * 1024 * 1024);
    expect(rules({ texts: [half, half, 'y'] })).toEqual(['PAYLOAD_TOO_LARGE', undefined]);
  });

  it("analyze: include_text only with a file, a text more than white space, a title of valid Unicode (score's too)", () => {
    const rules = (r: object) =>
      refusedAt(() => REQUESTS.analyze.rules({ content: 'x', content_type: 'text', ...r }, undefined));
    expect(rules({})).toBeNull();
    expect(rules({ include_text: true })).toEqual(['INVALID_INPUT', 'include_text']);
    const pdf = { content: 'JVBERi0=', content_type: 'pdf', content_encoding: 'base64' };
    expect(rules({ ...pdf, include_text: true })).toBeNull();
    // what `analyze` checks before its work: a file's base64 and size (within a plan's limit), a known place, a date
    expect(rules({ ...pdf, content: 'JVB' })).toBeNull();
    expect(rules({ ...pdf, content: 'J' })).toEqual(['INVALID_INPUT', undefined]);
    expect([rules({ ...pdf, content: 'JVBERi0==' }), rules({ ...pdf, content: '=' })]).toEqual([
      ['INVALID_INPUT', undefined],
      ['INVALID_INPUT', undefined],
    ]);
    expect(rules({ content_encoding: 'base64' })).toEqual(['INVALID_INPUT', undefined]);
    const limited = (limit: number) => refusedAt(() => REQUESTS.analyze.rules(pdf as never, { maxFileBytes: limit }));
    expect([limited(5), limited(4)]).toEqual([null, ['PAYLOAD_TOO_LARGE', undefined]]);
    expect(rules({ metadata: { jurisdiction: 'ZZ' } })).toEqual(['INVALID_INPUT', 'metadata.jurisdiction']);
    expect(rules({ metadata: { declarations: { since: '2024-13-40' } } })).toEqual([
      'INVALID_INPUT',
      'metadata.declarations.since',
    ]);
    expect(rules({ content: ' \n' })).toEqual(['INVALID_INPUT', 'content']);
    expect(rules({ metadata: { author: 'A \ud800' } })).toEqual(['INVALID_INPUT', 'metadata.author']);
    const scored = { target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' };
    expect(refusedAt(() => scoreRules({ ...scored, content: ' ' }))).toEqual(['INVALID_INPUT', 'content']);
    expect(refusedAt(() => scoreRules({ ...scored, content: 'x', jurisdiction: 'ZZ' }))).toEqual([
      'INVALID_INPUT',
      'jurisdiction',
    ]);
    // a file's checks (its bytes not decoded), within a job's plan: analyze's
    const file = { ...scored, content: 'JVBERi0=', content_type: 'pdf', content_encoding: 'base64' } as const;
    expect(refusedAt(() => scoreRules(file, { maxFileBytes: 5 }))).toBeNull();
    expect(refusedAt(() => scoreRules(file, { maxFileBytes: 4 }))).toEqual(['PAYLOAD_TOO_LARGE', undefined]);
    expect(refusedAt(() => scoreRules({ ...file, content: 'J' }))).toEqual(['INVALID_INPUT', undefined]);
  });

  it('extractWork: exactly one of work_id and text', () => {
    const rules = (r: object) => refusedAt(() => EXTRACT_WORK_REQUEST.rules(r, undefined));
    expect(rules({})).toEqual(['INVALID_INPUT', 'work_id']);
    expect(rules({ work_id: 'wk_1', text: 'x' })).toEqual(['INVALID_INPUT', 'text']);
    expect(rules({ text: 'x' })).toBeNull();
  });

  it("audit: ids distinct; a job's catalogue within its plan's jobItems (413); each work's sections within its text", () => {
    const works = [
      { id: 'a', text: 'x' },
      { id: 'b', text: 'y' },
      { id: 'a', text: 'z' },
    ];
    expect(refusedAt(() => auditRules({ works }, {}))).toEqual(['INVALID_INPUT', 'works[2].id']);
    expect(refusedAt(() => auditRules({ works: works.slice(0, 2) }, {}))).toBeNull();
    expect(refusedAt(() => auditRules({ works: works.slice(0, 2) }, { plan: 'free', jobItems: 1 }))).toEqual([
      'PAYLOAD_TOO_LARGE',
      undefined,
    ]);
    expect(refusedAt(() => auditRules({ works: works.slice(0, 2) }, { plan: 'free', jobItems: 2 }))).toBeNull();
    const within = (sections: { start: number; end: number }[]) =>
      refusedAt(() =>
        auditRules(
          {
            works: [
              { id: 'a', text: 'ten chars.' },
              { id: 'b', text: 'x', sections },
            ],
          },
          {},
        ),
      );
    expect(within([{ start: 0, end: 1 }])).toBeNull();
    expect(within([{ start: 0, end: 2 }])).toEqual(['INVALID_INPUT', 'works[1].sections[0]']);
    expect(within([])).toEqual(['INVALID_INPUT', 'works[1].sections']);
  });

  it('createMonitor: exactly one of work_id and work_hash; a webhook URL of http: or https: without credentials', () => {
    const work_id = `wk_${'0'.repeat(32)}`;
    const secret = 'whsec_0123456789abcdef';
    expect(refusedAt(() => createMonitorRules({}))).toEqual(['INVALID_INPUT', 'work_id']);
    expect(refusedAt(() => createMonitorRules({ work_id, work_hash: `sha256:${'0'.repeat(64)}` }))).toEqual([
      'INVALID_INPUT',
      'work_hash',
    ]);
    for (const url of ['not a url', 'ftp://example.org/hooks', 'https://user:pw@example.org/hooks'])
      expect(
        refusedAt(() => createMonitorRules({ work_id, webhook: { url, secret } })),
        url,
      ).toEqual(['INVALID_INPUT', 'webhook.url']);
    expect(
      refusedAt(() => createMonitorRules({ work_id, webhook: { url: 'https://example.org/h', secret } })),
    ).toBeNull();
  });

  it('createKey, createClient, adminCreateKey: a plan the server charges (default free), named as it is', () => {
    for (const entry of [REQUESTS.createKey, REQUESTS.createClient, REQUESTS.adminCreateKey]) {
      const rules = (r: object, plans: string[]) => refusedAt(() => entry.rules({ account: 'acme', ...r }, plans));
      expect(rules({}, ['free'])).toBeNull();
      expect(rules({}, ['pro'])).toEqual(['INVALID_INPUT', 'plan']);
      expect(rules({ plan: 'startup' }, ['free', 'startup'])).toBeNull();
      // a name a plan cannot have is none, even if the server was given it
      expect(rules({ plan: 'Big Co' }, ['free', 'Big Co'])).toEqual(['INVALID_INPUT', 'plan']);
    }
  });

  it("createDataset: a field of one kind only refused for the other (no kind: 'exact'); a common rule of its shape", () => {
    const rules = (d: object) => refusedAt(() => REQUESTS.createDataset.rules({ id: 'books', ...d }, undefined));
    expect(rules({})).toBeNull();
    for (const k of ['window', 'locate', 'common'] as const) {
      const value = { window: 8, locate: true, common: { min_holders: 3 } }[k];
      expect(rules({ [k]: value }), k).toEqual(['INVALID_INPUT', k]);
      expect(rules({ kind: 'exact', [k]: value }), k).toEqual(['INVALID_INPUT', k]);
      expect(rules({ kind: 'portrait', [k]: value }), k).toBeNull();
    }
    expect(rules({ kind: 'portrait', keep_text: false })).toEqual(['INVALID_INPUT', 'keep_text']);
    expect(rules({ keep_text: false })).toBeNull();
    expect(rules({ kind: 'portrait', common: { min_holders: 1 } })).toEqual(['INVALID_INPUT', 'common.min_holders']);
    expect(rules({ kind: 'portrait', common: { by: 'title' } })).toEqual(['INVALID_INPUT', 'common.by']);
  });

  it('registerWork: exactly one of content and fingerprint; content members with content; the fields once; a date', () => {
    const owner = 'acme';
    const fingerprint = { fingerprint: `tp1:${'0'.repeat(32)}`, work_hash: `sha256:${'0'.repeat(64)}` };
    const rules = (r: object) => refusedAt(() => registerRules({ owner, ...r }));
    expect(rules({})).toEqual(['INVALID_INPUT', 'content']);
    expect(rules({ content: 'x', fingerprint })).toEqual(['INVALID_INPUT', 'fingerprint']);
    expect(rules({ fingerprint, content_type: 'text' })).toEqual(['INVALID_INPUT', 'content_type']);
    expect(rules({ content: ' \n ' })).toEqual(['INVALID_INPUT', 'content']);
    expect(rules({ content: 'x', title: 'A', metadata: { title: 'B' } })).toEqual(['INVALID_INPUT', 'metadata.title']);
    expect(rules({ content: 'x', metadata: { jurisdiction: 'US' } })).toEqual([
      'INVALID_INPUT',
      'metadata.jurisdiction',
    ]);
    expect(rules({ content: 'x', declarations: { since: 'soon' } })).toEqual(['INVALID_INPUT', 'declarations.since']);
    expect(rules({ content: 'x', metadata: { declarations: { since: '2024-13-45' } } })).toEqual([
      'INVALID_INPUT',
      'metadata.declarations.since',
    ]);
    expect(
      rules({ content: 'x', title: 'A', metadata: { author: 'B', declarations: { since: '2024-05-01' } } }),
    ).toBeNull();
    expect(rules({ fingerprint })).toBeNull();
    expect(rules({ content: 'x', metadata: { author: '\ud800' } })).toEqual(['INVALID_INPUT', 'metadata.author']);
    // the content's limits: a file within the context's (a plan's), a text within 10 MiB
    const pdf = { content: 'JVBERi0=', content_type: 'pdf', content_encoding: 'base64' } as const;
    const limited = (limit: number) => refusedAt(() => registerRules({ owner, ...pdf }, { maxFileBytes: limit }));
    expect([limited(5), limited(4)]).toEqual([null, ['PAYLOAD_TOO_LARGE', undefined]]);
    expect(rules({ ...pdf, content: 'J' })).toEqual(['INVALID_INPUT', undefined]);
    expect(rules({ content: 'x'.repeat(10 * 1024 * 1024 + 1) })).toEqual(['PAYLOAD_TOO_LARGE', undefined]);
    expect(rules({ content: 'x'.repeat(10 * 1024 * 1024) })).toBeNull();
  });
});
