/**
 * HTTP adapter contract (src/http/, src/node/serve.ts), against a real server on 127.0.0.1. Every
 * response is validated against the OpenAPI document the server serves (test/fixtures/http/harness.ts).
 *
 * - every route answers 2xx to a good request (a scenario through the whole API; a final check
 *   that each operation of the table got one);
 * - every authenticated route: no credentials → 401 with `WWW-Authenticate: Bearer realm=…`, an
 *   unknown key → 401 `invalid_token`, a key without the scope → 403; every body route: malformed
 *   JSON → 400, schema-invalid → 422 naming the field; wrong Content-Type → 415; query routes:
 *   unknown parameter → 422;
 * - tenancy (another account sees 404), idempotency replay and 409, 404/405 with Allow, 500
 *   without internals recorded on the status page, the OpenAPI document's consistency, and that
 *   no key or secret appears in any response other than the one that created it.
 *
 * The good requests of the marketplace and memorization routes (several accounts, a model
 * server) are in http-marketplace.test.ts and http-memorization.test.ts; the checks above run on
 * them here like on every other route. Random and malformed requests: http-fuzz.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeBase } from '../../src/services/kb/index.js';
import { ROUTES, type Route } from '../../src/http/index.js';
import { book, passageAt, startApi, type Api, type Reply } from '../fixtures/http/harness.js';

const boom: Route = {
  method: 'GET',
  path: '/api/v1/test/boom',
  operationId: 'boom',
  tag: 'test',
  scope: 'kb',
  summary: 'Fails on purpose',
  responseSchema: { type: 'object' },
  handler: async () => {
    throw new Error('secret internals: /home/ops/.env');
  },
};
const ALL_ROUTES = [...ROUTES, boom];
const HEX32 = '0'.repeat(32);
/** A concrete path for a template: valid-looking ids that name nothing. */
const fill = (path: string) =>
  path
    .replace('{analysis_id}', `an_${HEX32}`)
    .replace('{job_id}', `job_${HEX32}`)
    .replace('{item}', '0')
    .replace('{work_id}', `wk_${HEX32}`)
    .replace('{monitor_id}', `mon_${HEX32}`)
    .replace('{dataset_id}', 'no-such-dataset')
    .replace('{provider}', 'nobody')
    .replace('{model}', 'nothing')
    .replace('{kb_dataset_id}', 'no-such-kb-dataset')
    .replace('{key_id}', `key_${'0'.repeat(16)}`)
    .replace('{client_id}', `tpc_${'0'.repeat(24)}`)
    .replace('{listing_id}', `lst_${HEX32}`)
    .replace('{offer_id}', `ofr_${HEX32}`)
    .replace('{licence_id}', `lic_${HEX32}`);
/** Required query parameters of a route (so that an extra one is what the check trips on). */
const REQUIRED_QUERY: Readonly<Record<string, string>> = { marketplaceAudit: `entity_id=lst_${HEX32}` };
/** Route groups whose good requests are exercised in their own files (a model server, several accounts). */
const OWN_FILE_TAGS = new Set(['marketplace', 'memorization', 'jobs']); // test/unit/http-marketplace.test.ts, http-memorization.test.ts, test/contract/http-catalogue-jobs.test.ts

describe('HTTP API contract', () => {
  let api: Api;
  let key: string; // account acme, pro, every scope
  let other: string; // account globex
  let kbOnly: string;
  let analyzeOnly: string;
  let admin: string; // account ops, scope admin only
  const ok = new Set<string>(); // operations answered 2xx
  const secrets: Array<{ secret: string; createdBy: number | null }> = [];
  const model = knowledgeBase()
    .modelsTrainedOn('project-gutenberg')
    .find((l) => l.via.length === 1 && l.model.disclosure === 'full')!.model.id;

  const call = async (method: string, path: string, o: Parameters<Api['call']>[2] = {}): Promise<Reply> => {
    const r = await api.call(method, path, o);
    if (r.status >= 200 && r.status < 300 && r.operation) ok.add(r.operation);
    return r;
  };

  beforeAll(async () => {
    api = await startApi({ routes: [boom] });
    const all = [
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
    key = (await api.keys.createKey({ account: 'acme', plan: 'pro', scopes: [...all] })).key;
    other = (await api.keys.createKey({ account: 'globex', plan: 'pro' })).key;
    kbOnly = (await api.keys.createKey({ account: 'acme', plan: 'pro', scopes: ['kb'] })).key;
    analyzeOnly = (await api.keys.createKey({ account: 'acme', plan: 'pro', scopes: ['analyze'], mode: 'test' })).key;
    admin = (await api.keys.createKey({ account: 'ops', plan: 'enterprise', scopes: ['admin'] })).key;
    for (const s of [key, other, kbOnly, analyzeOnly, admin]) secrets.push({ secret: s, createdBy: null });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('serves a consistent OpenAPI 3.1 document generated from the table', async () => {
    const r = await call('GET', '/api/v1/openapi.json');
    const doc = r.json;
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, m]) =>
      Object.entries(m).map(([method, op]) => ({ p, method, op })),
    );
    expect(ops.length).toBe(ALL_ROUTES.length);
    expect(new Set(ops.map((o) => o.op.operationId)).size).toBe(ops.length);
    for (const route of ALL_ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      expect(op.operationId).toBe(route.operationId);
      if (route.scope) {
        expect(op.security).toEqual([{ apiKey: [route.scope] }, { oauth2: [route.scope] }]);
        for (const s of ['401', '403', '429'])
          expect(op.responses[s], `${route.operationId} documents ${s}`).toBeDefined();
      }
      for (const name of route.path.matchAll(/\{([^}]+)\}/g))
        expect(op.parameters.some((p: any) => p.in === 'path' && p.name === name[1])).toBe(true);
      if (route.creates) expect(op.parameters.some((p: any) => p.name === 'Idempotency-Key')).toBe(true);
    }
    // every $ref resolves
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const path = ref.slice(9, -1).split('/').slice(1);
      let node: any = doc;
      for (const seg of path) node = node?.[seg];
      expect(node, ref).toBeDefined();
    }
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes.analyze).toBeTypeOf('string');
    expect(doc.components.schemas.AnalysisResult.properties.matches.items).toEqual({
      $ref: '#/components/schemas/Match',
    });
  });

  it('answers 2xx on every route to a good request (a scenario through the whole API)', async () => {
    // service
    expect((await call('GET', '/api/v1/status')).json.status).toBe('operational');
    const page = await call('GET', '/status');
    expect(page.text).toContain('<h1>trainprint status');

    // attribution
    const persuasion = book('austen-persuasion');
    const copied = passageAt(persuasion, 120_000, 150).text;
    const an = await call('POST', '/api/v1/attribution/analyze', {
      key,
      json: { content: `<p>${copied}</p>`, content_type: 'html', metadata: { jurisdiction: 'US' } },
    });
    expect(an.status).toBe(200);
    expect(an.json).toMatchObject({ success: true, potential_matches: 1 });
    expect(an.json.attribution_sources.length).toBeGreaterThan(0);
    // next_steps are relative to the base URL and exist as routes
    const steps = Object.values(an.json.next_steps as Record<string, unknown>).filter((v) => typeof v === 'string');
    for (const step of steps) {
      expect(
        ALL_ROUTES.some((r) => r.path === step && r.method === 'POST'),
        step as string,
      ).toBe(true);
    }
    const id = an.json.analysis_id;
    expect((await call('GET', `/api/v1/attribution/analyses/${id}`, { key })).json.analysis_id).toBe(id);
    expect((await call('GET', `/api/v1/attribution/analyses/${id}`, { key: other })).status).toBe(404); // another account's
    // the same analysis in the background (Prefer: respond-async): a job, polled until it is done (http-jobs.test.ts)
    const job = await call('POST', '/api/v1/attribution/analyze', {
      key,
      headers: { prefer: 'respond-async' },
      json: { content: `<p>${copied}</p>`, content_type: 'html' },
    });
    expect(job.status).toBe(202);
    let polled = await call('GET', job.json.status_url, { key });
    // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
    while (!['done', 'failed', 'cancelled'].includes(polled.json.state)) {
      await new Promise((r) => setTimeout(r, 10));
      polled = await call('GET', job.json.status_url, { key });
    }
    expect(polled.json).toMatchObject({ type: 'analyze', state: 'done', done: 1, failed: 0 });
    const alias = await call('GET', `/api/v1/attribution/jobs/${job.json.job_id}`, { key });
    expect(alias.json).toEqual(polled.json);
    const line = JSON.parse((await call('GET', polled.json.results_url, { key })).text);
    expect(line.result.analysis_id).toMatch(/^an_[0-9a-f]{32}$/);
    // its work report, its signed evidence bundle and the key that signs it (tested in http-work-report.test.ts)
    expect((await call('GET', `/api/v1/attribution/analyses/${id}/report`, { key })).text).toContain('<h1>Work report');
    const bundle = (await call('GET', `/api/v1/attribution/analyses/${id}/bundle`, { key })).json;
    expect(bundle.result.analysis_id).toBe(id);
    expect((await call('GET', '/api/v1/report-key')).json.public_key).toBe(bundle.signature.public_key);
    expect((await call('GET', `/api/v1/attribution/analyses/${id}/bundle`, { key: other })).status).toBe(404);
    // the extractions of its text the account has (none here: tested in http-extract-jobs.test.ts)
    expect((await call('GET', `/api/v1/attribution/analyses/${id}/extractions`, { key })).json).toMatchObject({
      analysis_id: id,
      extractions: [],
    });

    const cmp = await call('POST', '/api/v1/attribution/compare', {
      key,
      json: { a: `Intro words here. ${copied} Outro.`, b: copied },
    });
    expect(cmp.json.spans.length).toBeGreaterThan(0);

    const html = `<p>${copied.slice(0, 400)}</p>`;
    const fp = await call('POST', '/api/v1/attribution/fingerprint', {
      key,
      json: { content: html, content_type: 'html', include_winnow: true },
    });
    expect(fp.json.fingerprint).toBe((await api.engine.fingerprint(copied.slice(0, 400))).fingerprint); // the id of the text, not of the markup
    const w0 = fp.json.winnow;
    expect(html.slice(w0.starts[0], w0.ends[0]).length).toBeGreaterThan(0);

    // registry
    const workText = passageAt(persuasion, 200_000, 2000).text;
    const reg = await call('POST', '/api/v1/content/register', {
      key,
      json: { content: workText, title: 'Persuasion (part)', work_type: 'book' },
    });
    expect(reg.status).toBe(201);
    expect(reg.json).toMatchObject({ created: true, owner: 'acme' });
    const again = await call('POST', '/api/v1/content/register', { key, json: { content: workText } });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ created: false, work_id: reg.json.work_id });
    const work = reg.json;
    expect((await call('GET', `/api/v1/content/${work.work_id}`, { key })).json.work_id).toBe(work.work_id);
    expect((await call('GET', `/api/v1/content/${work.work_id}`, { key: other })).status).toBe(404);
    const list = await call('GET', '/api/v1/content?limit=10', { key });
    expect(list.json.works.map((w: any) => w.work_id)).toEqual([work.work_id]);
    expect((await call('GET', '/api/v1/content', { key: other })).json.works).toEqual([]);
    expect(
      (await call('POST', '/api/v1/content/verify-receipt', { key, json: { receipt: work.receipt } })).json.valid,
    ).toBe(true);
    expect(
      (
        await call('POST', '/api/v1/content/verify-receipt', {
          key,
          json: { receipt: { ...work.receipt, owner: 'globex' } },
        })
      ).json.valid,
    ).toBe(false);

    // score (POST body and GET query give the same result)
    const sreq = { work_hash: work.work_hash, target_model: model, jurisdiction: 'US' };
    const s = await call('POST', '/api/v1/attribution/score', { key, json: sreq });
    expect(s.json).toMatchObject({ success: true, tier: 'confirmed' });
    expect(s.json.ci_95).toHaveLength(2);
    const sq = await call('GET', `/api/v1/attribution/score?${new URLSearchParams(sreq)}`, { key });
    expect(sq.json).toEqual(s.json);
    expect((await call('POST', '/api/v1/attribution/score', { key: other, json: sreq })).status).toBe(404); // not globex's work

    // monitors
    const mon = await call('POST', '/api/v1/monitors/create', {
      key,
      json: { work_hash: work.work_hash, models: [model], jurisdiction: 'DE' },
    });
    expect(mon.status).toBe(201);
    const mid = mon.json.monitor_id;
    expect(mon.json.work_id).toBe(work.work_id);
    expect((await call('GET', '/api/v1/monitors', { key })).json.monitors.map((m: any) => m.monitor_id)).toEqual([mid]);
    expect((await call('GET', `/api/v1/monitors?work_id=${work.work_id}`, { key })).json.monitors).toHaveLength(1);
    expect((await call('GET', '/api/v1/monitors', { key: other })).json.monitors).toEqual([]);
    expect((await call('GET', `/api/v1/monitors/${mid}`, { key: other })).status).toBe(404);
    expect((await call('POST', `/api/v1/monitors/${mid}/pause`, { key })).json.state).toBe('paused');
    expect((await call('POST', `/api/v1/monitors/${mid}/resume`, { key })).json.state).toBe('active');
    await api.engine.evaluateMonitors();
    const events = await call('GET', `/api/v1/monitors/${mid}/events?limit=10`, { key });
    expect(events.json.events.map((e: any) => e.type)).toContain('match.found');
    expect((await call('GET', `/api/v1/monitors/${mid}`, { key })).json.last[model].tier).toBe('confirmed');

    // datasets
    expect((await call('GET', '/api/v1/datasets', { key })).json.datasets.map((d: any) => d.id)).toEqual(['pg-sample']);
    expect((await call('GET', '/api/v1/datasets/pg-sample', { key })).json.documents).toBe(2);
    const created = await call('POST', '/api/v1/datasets', {
      key,
      json: { id: 'tmp-set', kind: 'exact', documents: [{ id: 'caesar', text: book('shakespeare-caesar') }] },
    });
    expect(created.status).toBe(201);
    expect((await call('POST', '/api/v1/datasets', { key, json: { id: 'tmp-set' } })).status).toBe(409);
    const grown = await call('POST', '/api/v1/datasets/tmp-set/documents', {
      key,
      json: { documents: [{ id: 'blake', text: book('blake-poems') }] },
    });
    expect(grown.json.documents).toBe(2);
    // one id twice in a request: refused before any document is added, and no dataset is left behind
    const twice = [
      { id: 'a', text: 'the first text of the two' },
      { id: 'a', text: 'the second text of the two' },
    ];
    const dup = await call('POST', '/api/v1/datasets', {
      key,
      json: { id: 'dup-set', kind: 'exact', documents: twice },
    });
    expect([dup.status, dup.json.error.details.field]).toEqual([422, 'documents[1].id']);
    expect((await call('GET', '/api/v1/datasets/dup-set', { key })).status).toBe(404);
    const dupAdd = await call('POST', '/api/v1/datasets/tmp-set/documents', { key, json: { documents: twice } });
    expect(dupAdd.status).toBe(422);
    // a document the dataset refuses after another was added: the dataset that request made is not kept
    const loneHalf = [
      { id: 'ok', text: 'a text of a few words' },
      { id: 'bad', text: 'a lone \ud800 half' },
    ];
    const refused = await call('POST', '/api/v1/datasets', {
      key,
      json: { id: 'half-set', kind: 'exact', documents: loneHalf },
    });
    expect(refused.status).toBe(422);
    expect((await call('GET', '/api/v1/datasets/half-set', { key })).status).toBe(404);
    expect((await call('GET', '/api/v1/datasets/tmp-set', { key })).json.documents).toBe(2);
    const file = await call('GET', '/api/v1/datasets/tmp-set/export', { key });
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(file.bytes.length).toBeGreaterThan(1000);
    expect((await call('DELETE', '/api/v1/datasets/tmp-set', { key })).json).toMatchObject({
      deleted: true,
      id: 'tmp-set',
    });
    const imported = await call('POST', '/api/v1/datasets/import', {
      key,
      body: file.bytes as Uint8Array<ArrayBuffer>,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(imported.status).toBe(201);
    expect(imported.json).toMatchObject({ id: 'tmp-set', documents: 2 });
    await call('DELETE', '/api/v1/datasets/tmp-set', { key });
    expect((await call('GET', '/api/v1/datasets/tmp-set', { key })).status).toBe(404);

    // knowledge base
    expect(
      (await call('GET', '/api/v1/kb/models?provider=meta', { key })).json.models.every(
        (m: any) => m.provider_id === 'meta',
      ),
    ).toBe(true);
    const [prov, name] = model.split('/');
    expect((await call('GET', `/api/v1/kb/models/${prov}/${name}`, { key })).json.id).toBe(model);
    expect((await call('GET', '/api/v1/kb/providers', { key })).json.providers.length).toBeGreaterThan(5);
    expect((await call('GET', '/api/v1/kb/datasets', { key })).json.datasets.some((d: any) => d.id === 'books3')).toBe(
      true,
    );
    expect((await call('GET', '/api/v1/kb/datasets/books3', { key })).json.pirated).toBe(true);
    expect(
      (await call('GET', '/api/v1/kb/jurisdictions', { key })).json.jurisdictions.some((j: any) => j.code === 'US'),
    ).toBe(true);
    expect((await call('GET', '/api/v1/kb/factors', { key })).json.factors.length).toBeGreaterThan(20);

    // account: usage, keys, OAuth clients and tokens
    const usage = await call('GET', '/api/v1/usage', { key });
    expect(usage.json).toMatchObject({ account: 'acme', plan: 'pro', limit: 10_000, window: 'day' });
    expect(Number(usage.headers.get('ratelimit-remaining'))).toBe(usage.json.remaining);
    const nk = await call('POST', '/api/v1/keys', { key, json: { name: 'ci', scopes: ['kb'], mode: 'test' } });
    expect(nk.status).toBe(201);
    secrets.push({ secret: nk.json.key, createdBy: api.log.length - 1 });
    expect(nk.json.key.startsWith('tp_test_')).toBe(true);
    expect((await call('GET', '/api/v1/kb/factors', { key: nk.json.key })).status).toBe(200);
    const keysList = await call('GET', '/api/v1/keys', { key });
    expect(keysList.json.keys.find((k: any) => k.key_id === nk.json.key_id)).toMatchObject({
      last4: nk.json.key.slice(-4),
      prefix: 'tp_test_',
      revoked: false,
    });
    expect((await call('DELETE', `/api/v1/keys/${nk.json.key_id}`, { key })).json.revoked).toBe(true);
    expect((await call('GET', '/api/v1/kb/factors', { key: nk.json.key })).status).toBe(401);
    expect((await call('DELETE', `/api/v1/keys/${nk.json.key_id}`, { key: other })).status).toBe(404);
    const narrow = await call('POST', '/api/v1/keys', { key, json: { scopes: ['kb', 'keys'] } });
    secrets.push({ secret: narrow.json.key, createdBy: api.log.length - 1 });
    const escalate = await call('POST', '/api/v1/keys', { key: narrow.json.key, json: { scopes: ['kb', 'analyze'] } });
    expect(escalate.status).toBe(403); // a key cannot mint scopes it does not have
    expect(escalate.json.error.message).toContain('analyze');
    expect((await call('POST', '/api/v1/keys', { key: narrow.json.key, json: {} })).json.scopes).toEqual([
      'kb',
      'keys',
    ]);

    // operators: a key for a new account through the admin route, which other keys may not call
    const asked = { account: 'initech', plan: 'free', scopes: ['kb'], expires_in_days: 30 };
    const made = await call('POST', '/api/v1/admin/keys', { key: admin, json: asked });
    expect(made.status).toBe(201);
    secrets.push({ secret: made.json.key, createdBy: api.log.length - 1 });
    expect(made.json).toMatchObject({ account: 'initech', plan: 'free', scopes: ['kb'], mode: 'live', revoked: false });
    expect(Date.parse(made.json.expires_at) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    expect((await call('GET', '/api/v1/kb/factors', { key: made.json.key })).status).toBe(200);
    expect((await call('POST', '/api/v1/admin/keys', { key, json: { account: 'initech' } })).status).toBe(403);
    const platinum = await call('POST', '/api/v1/admin/keys', { key: admin, json: { account: 'x', plan: 'platinum' } });
    expect(platinum.status).toBe(422);
    expect(platinum.json.error.details).toMatchObject({ field: 'plan' });
    expect(platinum.json.error.message).toContain('the plans are free, pro, scale, enterprise');
    const badScope = await call('POST', '/api/v1/admin/keys', { key: admin, json: { account: 'x', scopes: ['root'] } });
    expect(badScope.json.error.details.field).toBe('scopes[0]');

    const cl = await call('POST', '/api/v1/oauth/clients', {
      key,
      json: { name: 'worker', scopes: ['kb', 'analyze'] },
    });
    expect(cl.status).toBe(201);
    secrets.push({ secret: cl.json.client_secret, createdBy: api.log.length - 1 });
    const tok = await call('POST', '/api/v1/oauth/token', {
      body: 'grant_type=client_credentials&scope=kb',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${cl.json.client_id}:${cl.json.client_secret}`)}`,
      },
    });
    expect(tok.json).toMatchObject({ token_type: 'Bearer', scope: 'kb', expires_in: 3600 });
    expect(tok.headers.get('cache-control')).toBe('no-store');
    secrets.push({ secret: tok.json.access_token, createdBy: api.log.length - 1 });
    expect((await call('GET', '/api/v1/kb/providers', { key: tok.json.access_token })).status).toBe(200);
    expect((await call('GET', '/api/v1/oauth/clients', { key })).json.clients.map((c: any) => c.client_id)).toEqual([
      cl.json.client_id,
    ]);
    expect((await call('DELETE', `/api/v1/oauth/clients/${cl.json.client_id}`, { key })).json.revoked).toBe(true);
    expect((await call('GET', '/api/v1/kb/providers', { key: tok.json.access_token })).status).toBe(401); // revoking the client revokes its tokens

    // clean up: delete the monitor and the work (another account cannot)
    expect((await call('DELETE', `/api/v1/monitors/${mid}`, { key: other })).status).toBe(404);
    expect((await call('DELETE', `/api/v1/monitors/${mid}`, { key })).json.deleted).toBe(true);
    expect((await call('DELETE', `/api/v1/content/${work.work_id}`, { key: other })).status).toBe(404);
    expect((await call('DELETE', `/api/v1/content/${work.work_id}`, { key })).json).toEqual({
      success: true,
      id: work.work_id,
      deleted: true,
    });
    expect((await call('GET', `/api/v1/content/${work.work_id}`, { key })).status).toBe(404);

    const missing = ALL_ROUTES.filter(
      (r) => r !== boom && !OWN_FILE_TAGS.has(r.tag) && !ok.has(`${r.method} ${r.path}`),
    ).map((r) => r.operationId);
    expect(missing, 'operations never answered 2xx').toEqual([]);
  });

  it('every authenticated route: 401 without or with a bad credential, 403 without the scope', async () => {
    let n = 0;
    for (const r of ALL_ROUTES.filter((x) => x.scope !== null)) {
      // a different wrong key each time: the same one repeated would meet the back-off (http-reliability.test.ts)
      const badKey = `tp_live_${String(n++).padStart(8, '0')}${'x'.repeat(24)}`;
      const path = fill(r.path);
      const none = await call(r.method, path);
      expect(none.status, `${r.operationId} without credentials`).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="trainprint"');
      expect(none.json.error.code).toBe('UNAUTHORIZED');
      expect(none.headers.get('ratelimit-limit')).toBeNull();
      for (const bad of [badKey, `not-a-key-${n}`, `eyJhbGciOiJIUzI1NiJ9.e30.AAAA${n}`]) {
        const r401 = await call(r.method, path, { key: bad });
        expect(r401.status, `${r.operationId} with ${bad}`).toBe(401);
        expect(r401.headers.get('www-authenticate')).toMatch(/^Bearer realm="trainprint", error="invalid_token"/);
      }
      const wrong = r.scope === 'kb' ? analyzeOnly : kbOnly;
      const forbidden = await call(r.method, path, { key: wrong });
      expect(forbidden.status, `${r.operationId} with the wrong scope`).toBe(403);
      expect(forbidden.json.error.code).toBe('FORBIDDEN');
      expect(forbidden.headers.get('www-authenticate')).toBe(
        `Bearer realm="trainprint", error="insufficient_scope", scope="${r.scope}"`,
      );
      expect(forbidden.headers.get('ratelimit-limit')).toBe('10000'); // authenticated: the headers are there
    }
  });

  it('every body route: 400 for malformed JSON, 422 naming the field, 415 for the wrong type; query routes: 422', async () => {
    const acmeKey = key;
    // a dataset of acme's, for the routes that check the dataset before they read the body
    expect((await call('POST', '/api/v1/datasets', { key, json: { id: 'body-checks' } })).status).toBe(201);
    for (const r of ALL_ROUTES.filter((x) => x.scope !== null && x.body)) {
      const key = r.scope === 'admin' ? admin : acmeKey;
      let path = fill(r.path);
      const wrongType = await call(r.method, path, { key, body: 'x', headers: { 'content-type': 'text/plain' } });
      expect(wrongType.status, `${r.operationId} text/plain`).toBe(415);
      if (r.beforeBody && r.path.includes('{dataset_id}')) {
        // a missing dataset is 404 whatever the body: it is not read
        const json = { 'content-type': 'application/json' };
        const missing = await call(r.method, path, { key, body: '{"content": ', headers: json });
        expect(missing.status, `${r.operationId} missing`).toBe(404);
        path = r.path.replace('{dataset_id}', 'body-checks');
      }
      if (r.body === 'json') {
        const malformed = await call(r.method, path, {
          key,
          body: '{"content": ',
          headers: { 'content-type': 'application/json' },
        });
        expect(malformed.status, `${r.operationId} malformed`).toBe(400);
        expect(malformed.json.error.code).toBe('MALFORMED_JSON');
        const invalid = await call(r.method, path, { key, json: { not_a_field: 1 } });
        expect(invalid.status, `${r.operationId} invalid`).toBe(422);
        expect(invalid.json.error.details.field, r.operationId).toMatch(/^[a-z_]+$/);
        expect(invalid.json.error.message).toContain(invalid.json.error.details.field);
      } else {
        const empty = await call(r.method, path, {
          key,
          body: new Uint8Array(0),
          headers: { 'content-type': 'application/octet-stream' },
        });
        expect(empty.status).toBe(422);
        const garbage = await call(r.method, path, {
          key,
          body: new Uint8Array([1, 2, 3]),
          headers: { 'content-type': 'application/octet-stream' },
        });
        expect(garbage.json.error.code).toBe('SNAPSHOT_INCOMPATIBLE');
      }
    }
    for (const r of ALL_ROUTES.filter((x) => x.scope !== null && x.method === 'GET')) {
      const bad = await call(
        'GET',
        `${fill(r.path)}?${REQUIRED_QUERY[r.operationId] ? `${REQUIRED_QUERY[r.operationId]}&` : ''}bogus=1`,
        { key },
      );
      expect(bad.status, `${r.operationId} ?bogus`).toBe(422);
      expect(bad.json.error.details).toMatchObject({ location: 'query', field: 'bogus' });
    }
    // the field named is the innermost one
    const nested = await call('POST', '/api/v1/attribution/analyze', {
      key,
      json: { content: 'x', content_type: 'text', metadata: { jurisdiction: 'usa!' } },
    });
    expect(nested.json.error.details).toMatchObject({ field: 'metadata.jurisdiction', location: 'body' });
    const inArray = await call('POST', '/api/v1/datasets', {
      key,
      json: { id: 'x', documents: [{ id: 'a', text: 'b' }, { id: 'c' }] },
    });
    expect(inArray.json.error.details.field).toBe('documents[1].text');
    const typed = await call('GET', '/api/v1/content?limit=zero', { key });
    expect(typed.json.error.details).toMatchObject({ field: 'limit', reason: 'must be an integer' });
    const enumed = await call('POST', '/api/v1/attribution/analyze', {
      key,
      json: { content: 'x', content_type: 'rtf' },
    });
    expect(enumed.json.error.message).toBe(
      'The input is not valid: content_type: must be one of "text", "markdown", "html", "epub", "pdf", "docx"',
    );
    // an engine-level check (after the schema) is also 422 and names the field
    const engineLevel = await call('POST', '/api/v1/attribution/analyze', {
      key,
      json: { content: 'x', content_type: 'text', metadata: { jurisdiction: 'EU-DE' } },
    });
    expect(engineLevel.status).toBe(422);
    expect(engineLevel.json.error.message).toContain('EU has no ISO 3166-2 subdivisions');
  });

  it('404 for unknown paths, 405 with Allow for other methods', async () => {
    const nf = await call('GET', '/api/v1/nothing-here', { key });
    expect(nf.status).toBe(404);
    expect(nf.json.error.code).toBe('NOT_FOUND');
    const na = await call('GET', '/api/v1/attribution/analyze', { key });
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toBe('POST');
    expect(na.json.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', details: { allow: ['POST'] } });
    const both = await call('PUT', `/api/v1/content/wk_${HEX32}`, { key });
    expect(both.headers.get('allow')).toBe('DELETE, GET, HEAD');
    expect((await call('GET', '/api/v1/monitors/create', { key })).headers.get('allow')).toBe('POST'); // a literal, never an id
    expect((await call('GET', '/api/v1/monitors/not-an-id', { key })).status).toBe(404);
  });

  it('Idempotency-Key: the first success is replayed; another request with the key is 409', async () => {
    const body = {
      content: 'A short idempotent work, written once and registered twice over the network.',
      title: 'Idem',
    };
    const headers = { 'idempotency-key': 'reg-0001' };
    const first = await call('POST', '/api/v1/content/register', { key, json: body, headers });
    expect(first.status).toBe(201);
    const replay = await call('POST', '/api/v1/content/register', { key, json: body, headers });
    expect(replay.status).toBe(201); // the stored response, not the 200 of a second registration
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const clash = await call('POST', '/api/v1/content/register', { key, json: { ...body, title: 'Other' }, headers });
    expect(clash.status).toBe(409);
    expect(clash.json.error.code).toBe('CONFLICT');
    // per account: the same key of another account is independent
    expect((await call('POST', '/api/v1/content/register', { key: other, json: body, headers })).status).toBe(201);
    const badKey = await call('POST', '/api/v1/content/register', {
      key,
      json: body,
      headers: { 'idempotency-key': 'bad key with spaces' },
    });
    expect(badKey.status).toBe(422);
    // analyses: a replay returns the same analysis id
    const h2 = { 'idempotency-key': 'an-1' };
    const a1 = await call('POST', '/api/v1/attribution/analyze', {
      key,
      json: { content: 'Some text to analyse once.', content_type: 'text' },
      headers: h2,
    });
    const a2 = await call('POST', '/api/v1/attribution/analyze', {
      key,
      json: { content: 'Some text to analyse once.', content_type: 'text' },
      headers: h2,
    });
    expect(a2.json.analysis_id).toBe(a1.json.analysis_id);
  });

  it('unexpected errors: 500 INTERNAL without internals, recorded as an incident on the status page', async () => {
    const r = await call('GET', '/api/v1/test/boom', { key });
    expect(r.status).toBe(500);
    expect(r.json.error).toEqual({
      code: 'INTERNAL',
      message: 'An unexpected error occurred',
      details: { request_id: r.headers.get('x-request-id') },
    });
    expect(r.text).not.toMatch(/secret internals|\.env|at .*\.ts|Error:/);
    const s = await call('GET', '/api/v1/status');
    expect(s.json.requests.server_errors).toBeGreaterThanOrEqual(1);
    const inc = s.json.incidents[0];
    expect(inc).toMatchObject({ server_errors: 1, statuses: [500], codes: ['INTERNAL'], operations: ['boom'] });
    expect(inc.resolved_at).not.toBeNull(); // the status call's own health check passed after it
    expect(s.json.components.find((c: any) => c.name === 'api').status).toBe('degraded');
    const page = await call('GET', '/status');
    expect(page.text).toContain('1 server error(s) (500)');
    expect(page.text).not.toContain('secret internals');
  });

  it('echoes the client request id when sane, else makes one', async () => {
    expect(
      (await call('GET', '/api/v1/status', { headers: { 'x-request-id': 'trace-42' } })).headers.get('x-request-id'),
    ).toBe('trace-42');
    expect(
      (await call('GET', '/api/v1/status', { headers: { 'x-request-id': 'bad id <script>' } })).headers.get(
        'x-request-id',
      ),
    ).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('never echoes a key, a client secret or a token outside the response that created it', () => {
    expect(api.log.length).toBeGreaterThan(200);
    for (const { secret, createdBy } of secrets) {
      const seen = api.log.map((e, i) => (e.text.includes(secret) ? i : -1)).filter((i) => i >= 0);
      expect(seen, `secret ${secret.slice(0, 8)}… seen in ${seen.map((i) => api.log[i].label).join(', ')}`).toEqual(
        createdBy === null ? [] : [createdBy],
      );
    }
  });
});
