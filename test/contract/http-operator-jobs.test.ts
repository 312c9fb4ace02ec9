/**
 * The operator's jobs over HTTP: the jobs the command line submits to the store (`trainprint scan --queue`,
 * `worker`, `jobs … --queue` without `--account`) are of the account `''`, which no key is of. An `admin` key lists
 * them with `GET /api/v1/jobs?owner=operator` (paged as its own list) and reads, cancels and deletes them by id; any
 * other key gets 403 for `owner=operator` and, for such a job's id, the 404 of a job that does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { createJobService, type JobStore } from '../../src/library.js';
import { handlerWithJobs } from '../fixtures/http/jobs-handler.js';
import { type Answer, type Call, callWithKey } from '../fixtures/http/keyed-call.js';

let engine: Engine;
let keys: KeyStore;
let handler: Handler;
let jobs: JobStore;
let admin: Call;
let plain: Call;
let adminKey: string;

async function caller(account: string, scopes: Array<'analyze' | 'admin'>): Promise<[Call, string]> {
  const key = (await keys.createKey({ account, plan: 'pro', scopes })).key;
  return [callWithKey(handler, key), key];
}

/** A job of the operator, as `trainprint scan --queue` submits one: account `''`. */
const operatorJob = async (n = 2) =>
  jobs.submit({
    account: '',
    type: 'scan',
    items: Array.from({ length: n }, (_, i) => ({ id: `out-${i}`, text: `A model output ${i}.` })),
  });

beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  // no runner: the jobs stay queued unless a test claims one by hand, as a runner would
  handler = handlerWithJobs(engine, { keys, jobs: { run: false } });
  // a clock that never reads the same millisecond twice: jobs submitted in a row are listed in that order
  let last = 0;
  jobs = createJobService({ store: engine.store, clock: () => (last = Math.max(Date.now(), last + 1)) });
  [admin, adminKey] = await caller('ops', ['analyze', 'admin']);
  [plain] = await caller('acme', ['analyze']);
}, 60_000);
afterAll(() => engine?.dispose());

describe('GET /api/v1/jobs?owner=operator', () => {
  it("lists the operator's jobs to an admin key, newest first, paged as the account's list", async () => {
    const a = await operatorJob();
    const b = await operatorJob();
    const c = await operatorJob();
    const first = await admin('GET', '/api/v1/jobs?owner=operator&limit=2');
    expect(first.status).toBe(200);
    const ids = (r: Answer) => r.json.jobs.map((j: any) => j.job_id);
    expect(ids(first)).toEqual([c.id, b.id]);
    expect(first.json.jobs[0]).toMatchObject({
      type: 'scan',
      state: 'queued',
      total: 2,
      status_url: `/api/v1/jobs/${c.id}`,
    });
    expect(first.json.next).toBe(b.id);
    const second = await admin('GET', `/api/v1/jobs?owner=operator&limit=2&after=${first.json.next}`);
    expect(ids(second)).toContain(a.id);
    expect(ids(second)).not.toContain(b.id);
    // without the parameter, the admin's own account's jobs: none of the operator's
    expect((await admin('GET', '/api/v1/jobs')).json).toEqual({ success: true, jobs: [], next: null });
    // a cursor of the admin's own list is no job of the operator
    const own = await jobs.submit({ account: 'ops', type: 'scan', items: [{ id: 'x', text: 'Mine.' }] });
    const bad = await admin('GET', `/api/v1/jobs?owner=operator&after=${own.id}`);
    expect(bad.status).toBe(422);
    expect(bad.json.error.code).toBe('INVALID_INPUT');
  });

  it('answers 403 to a key without the admin scope, as a route of that scope does', async () => {
    const r = await plain('GET', '/api/v1/jobs?owner=operator');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="trainprint", error="insufficient_scope", scope="admin"',
    );
    // its own list is untouched
    expect((await plain('GET', '/api/v1/jobs')).status).toBe(200);
  });

  it('refuses an owner other than operator (422 naming the parameter)', async () => {
    const r = await admin('GET', '/api/v1/jobs?owner=acme');
    expect(r.status).toBe(422);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(JSON.stringify(r.json.error)).toContain('owner');
  });

  it("is the client's listJobs({ owner: 'operator' })", async () => {
    const job = await operatorJob(1);
    const tp = createClient({
      api_key: adminKey,
      base_url: 'http://api.test',
      fetch: (input, init) => handler(new Request(input, init)),
    });
    const page = await tp.listJobs({ owner: 'operator', limit: 1 });
    expect(page.jobs.map((j) => j.job_id)).toEqual([job.id]);
  });
});

describe("an operator's job by its id", () => {
  it('is read, its results paged and then cancelled and deleted by an admin key', async () => {
    const job = await operatorJob(2);
    const status = await admin('GET', `/api/v1/jobs/${job.id}`);
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ job_id: job.id, type: 'scan', state: 'queued', total: 2 });
    // the alias of the first background analyses reads it too
    expect((await admin('GET', `/api/v1/attribution/jobs/${job.id}`)).json.job_id).toBe(job.id);
    // its chunk run by hand, as a runner would: the results are the operator's job's
    let claim = await jobs.claim(60_000);
    while (claim && claim.job.id !== job.id) claim = await jobs.claim(60_000);
    expect(claim?.job.id).toBe(job.id);
    const done = claim!.items.map((_, i) => ({ index: claim!.first + i, success: true as const, result: { n: i } }));
    expect(await jobs.complete(claim!, done)).toBe(true);
    const results = await admin('GET', `/api/v1/jobs/${job.id}/results`);
    expect(results.status).toBe(200);
    const lines = results.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.index)).toEqual(claim!.items.map((_, i) => claim!.first + i));

    const other = await operatorJob(1);
    const cancel = await admin('DELETE', `/api/v1/jobs/${other.id}`);
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ job_id: other.id, state: 'cancelled', deleted: false });
    expect((await admin('DELETE', `/api/v1/jobs/${other.id}`)).json).toMatchObject({ deleted: true });
    expect((await admin('GET', `/api/v1/jobs/${other.id}`)).status).toBe(404);
  });

  it('is absent for a key without the admin scope: the 404 of an unknown id, and it stays', async () => {
    const job = await operatorJob(1);
    const unknown = `job_${'0'.repeat(32)}`;
    const absent = await plain('GET', `/api/v1/jobs/${unknown}`);
    expect(absent.status).toBe(404);
    for (const [method, path] of [
      ['GET', `/api/v1/jobs/${job.id}`],
      ['GET', `/api/v1/jobs/${job.id}/results`],
      ['GET', `/api/v1/attribution/jobs/${job.id}`],
      ['DELETE', `/api/v1/jobs/${job.id}`],
    ] as const) {
      const r = await plain(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.text.replace(job.id, unknown)).toBe(absent.text);
    }
    expect((await admin('GET', `/api/v1/jobs/${job.id}`)).json.state).toBe('queued');
  });

  it("keeps an admin's own job its own: read by id as any account's", async () => {
    const own = await jobs.submit({ account: 'ops', type: 'scan', items: [{ id: 'x', text: 'Mine.' }] });
    expect((await admin('GET', `/api/v1/jobs/${own.id}`)).json).toMatchObject({ job_id: own.id, state: 'queued' });
    expect((await plain('GET', `/api/v1/jobs/${own.id}`)).status).toBe(404);
  });
});
