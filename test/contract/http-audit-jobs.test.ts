/**
 * Audit jobs over HTTP (`POST /api/v1/jobs` with `type: "audit"`) against the fixture chat server on 127.0.0.1
 * (test/fixtures/memorised-chat-server.ts), which has memorised the first of three works: the job's result is the audit
 * record `auditCatalogue` gives in process for the same catalogue and answers (one audit digest, at another
 * concurrency), its requests stay within the budget, the key is never stored, a resubmission replays every call from
 * the catalogue's journal, and a catalogue with repeated ids or more works than the plan's jobItems is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { KeyStore, StoreCounterStore, type Handler } from '../../src/http/index.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import { verifyEvidenceBundle } from '../../src/services/report/index.js';
import { auditDigest } from '../../src/services/memorization/audit.js';
import { keyedCall, type Call } from '../fixtures/http/keyed-call.js';
import { closedPort } from '../fixtures/closed-port.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const SECRET = 'sk-audit-fixture-4b1d';
const { words } = syntheticWork(3, 300, 13);
const catalogue = [
  { id: 'held.txt', text: words.slice(0, 300).join(' ') },
  { id: 'unseen-1.txt', text: words.slice(300, 600).join(' ') },
  { id: 'unseen-2.txt', text: words.slice(600, 900).join(' ') },
  { id: 'short.txt', text: words.slice(0, 12).join(' ') },
];
let engine: Engine;
let keys: KeyStore;
let server: MemorisedServer;

const caller = (handler: Handler, account: string, plan = 'pro'): Promise<Call> =>
  keyedCall(handler, keys, account, plan);

async function result(call: Call, job: Record<string, any>): Promise<Record<string, any>> {
  // until the job ends, however long a loaded machine takes (the test's timeout bounds a hang)
  while (!['done', 'failed', 'cancelled'].includes((await call('GET', job.status_url)).json.state))
    await new Promise((r) => setTimeout(r, 20));
  const lines = (await call('GET', `${job.results_url}?limit=10`)).text.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

/** The units left to the caller's account today (RateLimit-Remaining of a read, which is not charged). */
const left = async (call: Call) => Number((await call('GET', '/api/v1/jobs')).headers.get('ratelimit-remaining'));

/** The answered calls the store's journals of `account` hold. */
const journalCalls = async (account: string) =>
  (await engine.store.scan(`extraction-journal/${encodeURIComponent(account)}/`)).length;

const auditItem = (extra: Record<string, unknown> = {}) => ({
  works: catalogue,
  model: { base_url: server.baseUrl, model: 'fixture-memo-1', api: 'chat', api_key: SECRET },
  budget_calls: 150,
  first_probes: 3,
  prompt_variants: 1,
  concurrency: 4,
  ...extra,
});

/** The catalogue audited in process at concurrency 1 against the server at `baseUrl` (the items' other options). */
function inProcess(baseUrl: string) {
  const model = createOpenAICompatibleModel({ baseUrl, model: 'fixture-memo-1', api: 'chat' });
  return engine.memorization.auditCatalogue({
    model,
    works: catalogue,
    budget_calls: 150,
    first_probes: 3,
    prompt_variants: 1,
    concurrency: 1,
  });
}

beforeAll(async () => {
  engine = await createEngine();
  keys = new KeyStore(engine.store);
  server = await startMemorisedServer({ words, held: [0, 300] });
}, 60_000);
afterAll(async () => {
  await server?.close();
  engine?.dispose();
});

describe('audit jobs over HTTP', () => {
  it('gives the audit record of the catalogue: the held work reproduced, the unseen not found, the same digest in process', async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    const acme = await caller(handler, 'acme-audit');
    const start = await left(acme);
    const r = await acme('POST', '/api/v1/jobs', { type: 'audit', items: [auditItem()] });
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ type: 'audit', total: 1 });
    const line = await result(acme, r.json);
    expect(line.success).toBe(true);
    const audit = line.result;
    expect(audit.works.map((w: { id: string; verdict: string }) => [w.id, w.verdict])).toEqual([
      ['held.txt', 'reproduced'],
      ['unseen-1.txt', 'not_found'],
      ['unseen-2.txt', 'not_found'],
      ['short.txt', 'too_short'],
    ]);
    expect(audit.works[0].nv_recall).toBeGreaterThan(0.5);
    expect(audit.works[1].miss_probability).toBeCloseTo(0.125, 4); // (1 − 0.5)^3 probes
    expect(audit.catalogue).toMatchObject({ works: 4, measured: 3, reproduced: 1 });
    expect(audit.calls).toBeLessThanOrEqual(150);
    const asked = server.requests();
    expect(asked).toBeLessThanOrEqual(150);
    expect(new Set(server.authorizations())).toEqual(new Set([`Bearer ${SECRET}`]));
    expect(JSON.stringify(await engine.store.scan(''))).not.toContain(SECRET);

    // the same catalogue audited in process at concurrency 1, against the same answers: one audit digest
    const local = await inProcess(server.baseUrl);
    expect(local.audit_sha256).toBe(audit.audit_sha256);
    expect(local.catalogue).toEqual(audit.catalogue);
    expect(local.calls).toBe(audit.calls);

    // resubmitted: every call is replayed from the catalogue's journal, none reaches the server again, and it is
    // charged for the calls it makes, not its whole budget again
    const afterFirst = await left(acme);
    const before = server.requests();
    const again = await acme('POST', '/api/v1/jobs', { type: 'audit', items: [auditItem({ concurrency: 8 })] });
    expect(again.status).toBe(202);
    const line2 = await result(acme, again.json);
    expect(line2.result.audit_sha256).toBe(audit.audit_sha256);
    expect(server.requests()).toBe(before);
    // each charged for the calls it made: the audit's (under 100: a unit of the 2 of its budget), the replay's
    // (none: the least an item costs, a unit)
    expect(audit.calls).toBeLessThan(100);
    expect(start - afterFirst).toBe(1);
    expect(afterFirst - (await left(acme))).toBe(1);

    // an analysis of one of the catalogue's works bundles the account's audit, signed; verify checks its digest
    const analysed = await acme('POST', '/api/v1/attribution/analyze', {
      content: catalogue[1].text,
      content_type: 'text',
    });
    expect(analysed.status, analysed.text.slice(0, 300)).toBe(200);
    const bundle = await acme('GET', `/api/v1/attribution/analyses/${analysed.json.analysis_id}/bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.json.catalogue_audits.map((a: { audit_sha256: string }) => a.audit_sha256)).toEqual([
      audit.audit_sha256,
    ]);
    const key = (await acme('GET', '/api/v1/report-key')).json;
    const v = await verifyEvidenceBundle(bundle.text, { publicKey: key, text: catalogue[1].text });
    expect(v.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.checks.map((c) => c.name)).toContain('catalogue_audit:0');
    // a verdict changed in the bundle: refused (the signature, and the audit's own figures)
    const forged = bundle.text.replace('"verdict":"not_found"', '"verdict":"reproduced"');
    const bad = await verifyEvidenceBundle(forged, { publicKey: key });
    expect(bad.valid).toBe(false);
    expect(bad.checks.find((c) => c.name === 'catalogue_audit:0')?.ok).toBe(false);
    // another account's analysis of the same text bundles none of acme's audits
    const other = await caller(handler, 'globex-audit');
    const theirs = await other('POST', '/api/v1/attribution/analyze', {
      content: catalogue[1].text,
      content_type: 'text',
    });
    const b2 = await other('GET', `/api/v1/attribution/analyses/${theirs.json.analysis_id}/bundle`);
    expect(b2.json.catalogue_audits).toBeUndefined();
    await stopJobs(handler);
  }, 120_000);

  it("refuses repeated ids (422), more works than the plan's jobItems (413) and a bad option (422); nothing called", async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
    const before = server.requests();
    const pro = await caller(handler, 'acme-audit-bad');
    const twice = await pro('POST', '/api/v1/jobs', {
      type: 'audit',
      items: [auditItem({ works: [catalogue[0], { ...catalogue[1], id: 'held.txt' }] })],
    });
    expect(twice.status).toBe(422);
    expect(twice.json.error.message).toContain('items[0].works[1].id');
    const level = await pro('POST', '/api/v1/jobs', { type: 'audit', items: [auditItem({ level: 1 })] });
    expect(level.status).toBe(422);
    expect(level.json.error.message).toContain('items[0].level');
    const noWorks = await pro('POST', '/api/v1/jobs', { type: 'audit', items: [auditItem({ works: [] })] });
    expect(noWorks.status).toBe(422);
    const temperature = await pro('POST', '/api/v1/jobs', {
      type: 'audit',
      items: [auditItem({ model: { base_url: server.baseUrl, model: 'm', temperature: 5 } })],
    });
    expect(temperature.status).toBe(422);
    expect(temperature.json.error.message).toContain('items[0].model.temperature');
    const free = await caller(handler, 'acme-audit-free', 'free');
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `w${i}`, text: 'a few words' }));
    const big = await free('POST', '/api/v1/jobs', { type: 'audit', items: [auditItem({ works: many })] });
    expect(big.status).toBe(413);
    expect(big.json.error.message).toContain('at most 100 works');
    expect(server.requests()).toBe(before);
    await stopJobs(handler);
  });
});

describe('an audit item sent without a key, across a restart', () => {
  it('resumes in the process started again (nothing secret to lose): one audit_sha256, no journaled call asked again, charged once', async () => {
    const slow = await startMemorisedServer({ words, held: [0, 300], delayMs: 30 });
    const item = { ...auditItem(), model: { base_url: slow.baseUrl, model: 'fixture-memo-1', api: 'chat' } };
    // the day's counts in the store: both processes count on them, as `serve --store` does
    const options = {
      keys,
      counters: new StoreCounterStore(engine.store),
      allowPrivateModelHosts: true,
      jobs: { pollMs: 20 },
    };
    const first = createHandler(engine, options);
    let second: Handler | null = null;
    try {
      const acme = await caller(first, 'acme-audit-restart', 'pro');
      const start = await left(acme);
      const r = await acme('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
      expect(r.status).toBe(202);
      // nothing held in memory only: the submission has nothing to warn of
      expect(r.json.notice).toBeUndefined();
      // the process stops (its runner hands the item back) once the audit is under way
      while (slow.requests() < 10) await new Promise((done) => setTimeout(done, 10));
      await stopJobs(first);
      const before = slow.requests();
      expect((await acme('GET', r.json.status_url)).json.state).not.toBe('done');

      // a process started again over the same store, with models of its own: it builds the item's model from what
      // was stored and goes on from the journal
      second = createHandler(engine, options);
      const again = await caller(second, 'acme-audit-restart', 'pro');
      const line = await result(again, r.json);
      expect(line.success, JSON.stringify(line.error)).toBe(true);
      expect(slow.requests()).toBeGreaterThan(before);
      // asked again: only the calls in flight when the process stopped (at most `concurrency`), never a journaled one
      const asked = slow.bodies();
      expect(asked.length - new Set(asked).size).toBeLessThanOrEqual(item.concurrency);
      // the audit of one uninterrupted run, in process, against the same answers
      const local = await inProcess(slow.baseUrl);
      expect(line.result.audit_sha256).toBe(local.audit_sha256);
      // charged once, for the calls it made (under 100: a unit of the 2 its budget reserved): the restart charged nothing
      expect(line.result.calls).toBeLessThan(100);
      expect(start - (await left(again))).toBe(1);
    } finally {
      await stopJobs(first);
      if (second) await stopJobs(second);
      await slow.close();
    }
  }, 120_000);

  it('sent with a key, fails after a restart naming model.api_key; it and its resubmission are charged for the calls each made', async () => {
    const slow = await startMemorisedServer({ words, held: [0, 300], delayMs: 30 });
    const item = { ...auditItem(), model: { ...auditItem().model, base_url: slow.baseUrl } };
    // the day's counts in the store: both processes count on them, as `serve --store` does
    const counters = new StoreCounterStore(engine.store);
    const options = { keys, counters, allowPrivateModelHosts: true, jobs: { pollMs: 20 } };
    const first = createHandler(engine, options);
    let second: Handler | null = null;
    try {
      const acme = await caller(first, 'acme-audit-keyed', 'pro');
      const start = await left(acme);
      const r = await acme('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
      expect(r.status).toBe(202);
      // charged its whole budget at submission (150 calls: 2 units), while it runs
      expect(start - (await left(acme))).toBe(2);
      while (slow.requests() < 10) await new Promise((done) => setTimeout(done, 10));
      await stopJobs(first);

      // the process started again holds no key: the item fails naming it, and owes the calls it made (a unit)
      second = createHandler(engine, options);
      const again = await caller(second, 'acme-audit-keyed', 'pro');
      const failed = await result(again, r.json);
      expect(failed.success).toBe(false);
      expect(failed.error.message).toContain('model.api_key');
      const made = await journalCalls('acme-audit-keyed');
      expect(made).toBeGreaterThanOrEqual(5);
      expect(start - (await left(again))).toBe(1);

      // resubmitted with the key: the journal's calls are replayed, the rest made and paid (under 100 calls: a unit)
      const resubmitted = await again('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
      expect(resubmitted.status).toBe(202);
      const line = await result(again, resubmitted.json);
      expect(line.success, JSON.stringify(line.error)).toBe(true);
      expect(line.result.calls).toBeLessThan(100);
      // one audit, its calls made once (but those in flight at the stop), two units in all — not 2 + 2
      const asked = slow.bodies();
      expect(asked.length - new Set(asked).size).toBeLessThanOrEqual(item.concurrency);
      expect(start - (await left(again))).toBe(2);
      expect(line.result.audit_sha256).toBe((await inProcess(slow.baseUrl)).audit_sha256);
    } finally {
      await stopJobs(first);
      if (second) await stopJobs(second);
      await slow.close();
    }
  }, 120_000);

  it('a submission with a key says the key is held in memory only, and what a restart does', async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { run: false } });
    const acme = await caller(handler, 'acme-audit-notice');
    const r = await acme('POST', '/api/v1/jobs', { type: 'audit', items: [auditItem()] });
    expect(r.status).toBe(202);
    expect(r.json.notice).toContain("model.api_key is held in this server process's memory only");
    expect(r.json.notice).toContain('resubmit');
    expect(r.text).not.toContain(SECRET);
    await stopJobs(handler);
  });
});

describe('an audit whose model is never reached', () => {
  it('is a failed item with the upstream reason (UPSTREAM_UNREACHABLE), not a finished audit with a share of 0', async () => {
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    try {
      const acme = await caller(handler, 'acme-audit-closed');
      const port = await closedPort();
      const r = await acme('POST', '/api/v1/jobs', {
        type: 'audit',
        items: [auditItem({ model: { base_url: `http://127.0.0.1:${port}/v1`, model: 'm', api: 'chat' } })],
      });
      expect(r.status).toBe(202);
      const line = await result(acme, r.json);
      expect(line.success).toBe(false);
      expect(line.error.code).toBe('UPSTREAM_UNREACHABLE');
      expect(line.error.message).toContain('the model answered none of');
      expect(line.error.message).toContain(`127.0.0.1:${port}`);
      const status = (await acme('GET', r.json.status_url)).json;
      expect(status).toMatchObject({ state: 'done', total: 1, done: 1, failed: 1 });
    } finally {
      await stopJobs(handler);
    }
  }, 60_000);
});

describe('an audit item across time slices', () => {
  it('completes past the item time limit (3 s), slice after slice, no request repeated, the record of one run', async () => {
    const book = syntheticWork(2, 600, 29);
    // a call takes ≥ 150 ms, so a slice (3 s less its margin of a quarter) holds at most 15; a slice that made no new
    // call would be the limit — on a machine at load 47 a slice of 1.1 s (a limit of 1.5 s) once made none
    const own = await startMemorisedServer({ words: book.words, held: [0, 1200], delayMs: 150, refuseEvery: 0 });
    const item = {
      works: [
        { id: 'held.txt', text: book.words.slice(0, 1200).join(' ') },
        { id: 'other.txt', text: words.slice(300, 600).join(' ') },
      ],
      model: { base_url: own.baseUrl, model: 'fixture-memo-1', api: 'chat', api_key: SECRET },
      budget_calls: 200,
      prompt_variants: 1,
      concurrency: 1,
    };
    const sliced = createHandler(engine, {
      keys,
      allowPrivateModelHosts: true,
      jobs: { pollMs: 20, itemTimeoutMs: 3000 },
    });
    try {
      const acme = await caller(sliced, 'acme-audit-slices');
      const r = await acme('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
      expect(r.status).toBe(202);
      const line = await result(acme, r.json);
      expect(line.success, JSON.stringify(line.error)).toBe(true);
      const x = line.result;
      const asked = own.bodies();
      expect(new Set(asked).size).toBe(asked.length);
      // more calls than one slice holds: ≥ 2 slices of < 3 s at ≥ 150 ms a call
      expect(asked.length).toBeGreaterThan(20);
      expect(asked.length).toBe(x.calls);
      expect(x.works.map((w: { verdict: string }) => w.verdict)).toEqual(['reproduced', 'not_found']);
      await stopJobs(sliced);
      // the same audit without a limit (another account: its own journal): one record
      const whole = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
      const other = await caller(whole, 'acme-audit-whole');
      const r2 = await other('POST', '/api/v1/jobs', { type: 'audit', items: [item] });
      const line2 = await result(other, r2.json);
      expect(line2.result.audit_sha256).toBe(x.audit_sha256);
      expect(line2.result.works).toEqual(x.works);
      await stopJobs(whole);
    } finally {
      await stopJobs(sliced);
      await own.close();
    }
  }, 600_000); // a bound on a hang: 55 s at load 62 beside two CPU burners
});

describe("an audit item's works by pages", () => {
  it('the result line holds the first 500 works and works_next; the rest are read by pages, none twice, in order', async () => {
    // 1,203 works of 80 words (texts may repeat; ids are distinct): 3 calls of budget, the rest untried
    const many = Array.from({ length: 1203 }, (_, i) => ({
      id: `w${i}`,
      text: words.slice((i * 7) % 800, ((i * 7) % 800) + 80).join(' '),
    }));
    const handler = createHandler(engine, { keys, allowPrivateModelHosts: true, jobs: { pollMs: 20 } });
    try {
      const acme = await caller(handler, 'acme-audit-pages');
      const r = await acme('POST', '/api/v1/jobs', {
        type: 'audit',
        items: [auditItem({ works: many, budget_calls: 3, first_probes: 1, concurrency: 1 })],
      });
      expect(r.status).toBe(202);
      const line = await result(acme, r.json);
      expect(line.success, JSON.stringify(line.error)).toBe(true);
      expect(line.result.works).toHaveLength(500);
      expect(line.result.works_next).toBe(500);
      expect(line.result.catalogue.works).toBe(1203);
      // the job's stored result holds the first page only, not the catalogue
      const stored = await engine.store.scan(`job-result/${r.json.job_id}/`);
      expect((stored[0][1] as { result: { works: unknown[] } }).result.works).toHaveLength(500);

      const worksUrl = `${r.json.results_url}/0/works`;
      const read: Array<{ id: string; verdict: string; transcript_sha256?: string }> = [];
      let after: number | null = 0;
      let pages = 0;
      while (after !== null) {
        const page = await acme('GET', `${worksUrl}?after=${after}&limit=1000`);
        expect(page.status, page.text.slice(0, 300)).toBe(200);
        expect(page.json).toMatchObject({ job_id: r.json.job_id, item: 0, total: 1203 });
        expect(page.json.audit_sha256).toBe(line.result.audit_sha256);
        read.push(...page.json.works);
        after = page.json.next;
        pages++;
      }
      expect(pages).toBe(2);
      expect(read.map((w) => w.id)).toEqual(many.map((w) => w.id));
      expect(read.slice(0, 500)).toEqual(line.result.works);
      // the works read by pages are the audit's: its digest computed again from them
      expect(auditDigest(read)).toBe(line.result.audit_sha256);
      expect(read.filter((w) => w.verdict === 'untried').length).toBeGreaterThan(1190);
      // default page: 100 works
      const first = await acme('GET', worksUrl);
      expect(first.json.works).toHaveLength(100);
      expect(first.json.next).toBe(100);
      // out of range and other owners: refused, as for any job read
      expect((await acme('GET', `${worksUrl}?limit=1001`)).status).toBe(422);
      expect((await acme('GET', `${r.json.results_url}/1/works`)).status).toBe(404);
      expect((await acme('GET', `${r.json.results_url}/x/works`)).status).toBe(404);
      const other = await caller(handler, 'globex-audit-pages');
      expect((await other('GET', worksUrl)).status).toBe(404);
      const scan = await acme('POST', '/api/v1/jobs', { type: 'scan', items: [{ id: 'a', text: 'a few words' }] });
      expect((await acme('GET', `${scan.json.results_url}/0/works`)).status).toBe(404);
    } finally {
      await stopJobs(handler);
    }
  }, 180_000);
});
