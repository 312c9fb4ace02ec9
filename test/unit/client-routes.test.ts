/**
 * The TypeScript client's routes against the server's route table (ROUTES, src/http/routes/index.ts), without a
 * server: every typed method of `createClient` is called once through a recording `fetch`, and each request it sends
 * must be a row of the table (the same method and path, with the path's parameters filled in); every row of the table
 * but the few that are no client method must be sent by some typed method. A route renamed or added on either side
 * fails here.
 */
import { describe, expect, it } from 'vitest';
import { createClient, type TrainprintClient } from '../../src/client/index.js';
import { ROUTES } from '../../src/http/index.js';

/** Not client methods: the HTML status page, the GET form of score (score() is the POST), the operators' admin route. */
const NOT_IN_THE_CLIENT = new Set(['statusPage', 'scoreByQuery', 'adminCreateKey']);

const body = {} as never;
/** One call of every typed method, by its name in the client (a group's methods as `group.method`). */
const CALLS: Record<string, (c: TrainprintClient) => unknown> = {
  analyze: (c) => c.analyze(body),
  analyzeAsync: (c) => c.analyzeAsync(body),
  getAnalysis: (c) => c.getAnalysis('a1'),
  getAnalysisJob: (c) => c.getAnalysisJob('j1'),
  createJob: (c) => c.createJob(body),
  listJobs: (c) => c.listJobs({ limit: 5 }),
  getJob: (c) => c.getJob('j1'),
  jobResults: async (c) => {
    for await (const _ of c.jobResults('j1', { pollMs: 1 })) break;
  },
  auditWorks: (c) => c.auditWorks('j1', 0, { after: 500, limit: 1000 }),
  cancelJob: (c) => c.cancelJob('j1'),
  getAnalysisReport: async (c) => {
    await c.getAnalysisReport('a1');
    await c.getAnalysisReport('a1', { format: 'json' });
  },
  getEvidenceBundle: (c) => c.getEvidenceBundle('a1'),
  getAnalysisExtractions: (c) => c.getAnalysisExtractions('a1'),
  getReportKey: (c) => c.getReportKey(),
  compare: (c) => c.compare('a', 'b'),
  score: (c) => c.score(body),
  fingerprint: (c) => c.fingerprint(body),
  registerWork: (c) => c.registerWork(body),
  getWork: (c) => c.getWork('w1'),
  listWorks: (c) => c.listWorks({}),
  deleteWork: (c) => c.deleteWork('w1'),
  verifyReceipt: (c) => c.verifyReceipt(body),
  'monitors.create': (c) => c.monitors.create(body),
  'monitors.list': (c) => c.monitors.list({}),
  'monitors.get': (c) => c.monitors.get('m1'),
  'monitors.delete': (c) => c.monitors.delete('m1'),
  'monitors.pause': (c) => c.monitors.pause('m1'),
  'monitors.resume': (c) => c.monitors.resume('m1'),
  'monitors.events': (c) => c.monitors.events('m1', {}),
  'datasets.list': (c) => c.datasets.list(),
  'datasets.get': (c) => c.datasets.get('d1'),
  'datasets.create': (c) => c.datasets.create(body),
  'datasets.addDocuments': (c) => c.datasets.addDocuments('d1', []),
  'datasets.export': (c) => c.datasets.export('d1'),
  'datasets.import': (c) => c.datasets.import(body),
  'datasets.delete': (c) => c.datasets.delete('d1'),
  'kb.models': (c) => c.kb.models({}),
  'kb.model': (c) => c.kb.model('openai/gpt-4'),
  'kb.providers': (c) => c.kb.providers(),
  'kb.datasets': (c) => c.kb.datasets(),
  'kb.dataset': (c) => c.kb.dataset('books3'),
  'kb.jurisdictions': (c) => c.kb.jurisdictions(),
  'kb.factors': (c) => c.kb.factors(),
  usage: (c) => c.usage(),
  'keys.create': (c) => c.keys.create(),
  'keys.list': (c) => c.keys.list(),
  'keys.revoke': (c) => c.keys.revoke('k1'),
  'oauth.token': (c) => c.oauth.token({ client_id: 'c', client_secret: 's' }),
  'oauth.createClient': (c) => c.oauth.createClient(),
  'oauth.listClients': (c) => c.oauth.listClients(),
  'oauth.revokeClient': (c) => c.oauth.revokeClient('c1'),
  'marketplace.createListing': (c) => c.marketplace.createListing(body),
  'marketplace.listListings': (c) => c.marketplace.listListings({}),
  'marketplace.getListing': (c) => c.marketplace.getListing('l1'),
  'marketplace.updateListing': (c) => c.marketplace.updateListing('l1', body),
  'marketplace.publishListing': (c) => c.marketplace.publishListing('l1'),
  'marketplace.withdrawListing': (c) => c.marketplace.withdrawListing('l1'),
  'marketplace.makeOffer': (c) => c.marketplace.makeOffer('l1', body),
  'marketplace.listOffers': (c) => c.marketplace.listOffers({}),
  'marketplace.getOffer': (c) => c.marketplace.getOffer('o1'),
  'marketplace.acceptOffer': (c) => c.marketplace.acceptOffer('o1'),
  'marketplace.declineOffer': (c) => c.marketplace.declineOffer('o1'),
  'marketplace.counterOffer': (c) => c.marketplace.counterOffer('o1', body),
  'marketplace.withdrawOffer': (c) => c.marketplace.withdrawOffer('o1'),
  'marketplace.listLicences': (c) => c.marketplace.listLicences({}),
  'marketplace.getLicence': (c) => c.marketplace.getLicence('x1'),
  'marketplace.verifyLicence': (c) => c.marketplace.verifyLicence(body),
  'marketplace.audit': (c) => c.marketplace.audit(body),
  'memorization.trackWork': (c) => c.memorization.trackWork(body),
  'memorization.createReferenceSet': (c) => c.memorization.createReferenceSet(body),
  'memorization.listReferenceSets': (c) => c.memorization.listReferenceSets(),
  'memorization.extract': (c) => c.memorization.extract(body),
  'memorization.probe': (c) => c.memorization.probe(body),
  'memorization.compareOutput': (c) => c.memorization.compareOutput(body),
  'memorization.assess': (c) => c.memorization.assess(body),
  'memorization.report': (c) => c.memorization.report(body),
  status: (c) => c.status(),
  openapi: (c) => c.openapi(),
};

/** The typed methods of a client, by the names CALLS uses (`request`, the untyped escape hatch, is not one). */
function methodsOf(o: object, prefix = ''): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(o)).flatMap(([name, d]) => {
    if (typeof d.value === 'function') return name === 'request' && prefix === '' ? [] : [`${prefix}${name}`];
    return d.value !== null && typeof d.value === 'object' ? methodsOf(d.value, `${prefix}${name}.`) : [];
  });
}

/** The table's row that a request (method and path under the base URL) is, by its operationId; undefined for none. */
function rowOf(method: string, path: string): string | undefined {
  return ROUTES.find(
    (r) =>
      r.method === method && new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(path),
  )?.operationId;
}

describe("the TypeScript client's routes and the server's route table", () => {
  const sent = new Map<string, string[]>();
  let requests: string[] = [];
  const client = createClient({
    api_key: 'tp_test',
    base_url: 'http://127.0.0.1:9/trainprint',
    maxRetries: 0,
    fetch: async (url, init) => {
      requests.push(`${init.method ?? 'GET'} ${new URL(url).pathname}`);
      return new Response('{"success":true,"state":"done"}', {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });

  it('calls every typed method once', async () => {
    expect(Object.keys(CALLS).sort()).toEqual(methodsOf(client).sort());
    for (const [name, call] of Object.entries(CALLS)) {
      requests = [];
      await call(client);
      sent.set(name, requests);
    }
  });

  it('sends each request of a typed method to a row of the table, with its method', () => {
    for (const [name, requests] of sent) {
      expect(requests.length, name).toBeGreaterThan(0);
      for (const r of requests) {
        const [method, path] = r.split(' ');
        expect(path.startsWith('/trainprint/api/v1/'), r).toBe(true);
        expect(rowOf(method, path.slice('/trainprint'.length)), `${name}: ${r}`).toBeDefined();
      }
    }
  });

  it('sends every row of the table but the few that are no client method', () => {
    const called = new Set(
      [...sent.values()].flat().map((r) => {
        const [method, path] = r.split(' ');
        return rowOf(method, path.slice('/trainprint'.length));
      }),
    );
    const rows = ROUTES.filter((r) => r.aliasOf === undefined && !NOT_IN_THE_CLIENT.has(r.operationId));
    expect(rows.filter((r) => !called.has(r.operationId)).map((r) => r.operationId)).toEqual([]);
    for (const id of NOT_IN_THE_CLIENT)
      expect(
        ROUTES.some((r) => r.operationId === id),
        id,
      ).toBe(true);
  });
});
