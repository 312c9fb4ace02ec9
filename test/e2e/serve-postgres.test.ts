/**
 * Two `trainprint serve` processes (the built CLI, dist/cli.js) on one PostgreSQL database — the
 * deployment `--store postgres://…` is for: what one process counts or sells, the other sees.
 *
 * - 150 concurrent analyze calls on a Free key (100 calls a day), spread over both processes:
 *   exactly 100 succeed, the other 50 get 429 — the day's count is one counter in the database;
 * - 100 concurrent accepts of offers on one exclusive listing, spread over both: exactly one
 *   licence is issued, the other 99 get 409.
 * Keys come from `trainprint keys create --store postgres://…` while the servers run.
 *
 * Bounded: a server must print its URL within 30 s; each is stopped with SIGTERM (SIGKILL after 5 s).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PLANS } from '../../src/services/accounts/plans.js';
import { describePostgres } from '../pg/postgres.js';
import {
  createKey,
  requireBuiltCli,
  startServe,
  stopProcess as stop,
  type ServeProcess,
} from '../fixtures/serve-process.js';

const ANALYZE = '/api/v1/attribution/analyze';
const running: ChildProcess[] = [];

/** Start `trainprint serve` (one process) on `store`; resolves once it listens. */
const start = (store: string): Promise<ServeProcess> =>
  startServe(['--port', '0', '--packs', 'none', '--workers', '1', '--store', store], { running });

async function call(url: string, key: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, json: (await res.json()) as any };
}

beforeAll(() => {
  requireBuiltCli();
});
afterAll(async () => {
  await Promise.all(running.map(stop));
});

describePostgres('two trainprint serve processes on one PostgreSQL store', (db) => {
  let store = '';
  let servers: ServeProcess[] = [];

  beforeAll(async () => {
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    store = url.toString();
    servers = await Promise.all([start(store), start(store)]); // both migrate the new schema at once
  }, 90_000);

  it('logs the store without its password', () => {
    const password = decodeURIComponent(new URL(db.url).password);
    for (const s of servers) {
      expect(s.out()).toMatch(/store: postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
      if (password) expect(s.out()).not.toContain(password);
    }
  });

  it(`150 concurrent analyze calls on a Free key over both: ${PLANS.free.daily} get 200, the rest 429`, async () => {
    const free = await createKey(store, ['--account', 'free-co', '--plan', 'free']);
    const content = 'Permission is hereby granted, free of charge, to any person obtaining a copy';
    const body = { content, content_type: 'text' };
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) => call(servers[i % 2].url, free, 'POST', ANALYZE, body)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(PLANS.free.daily);
    expect(statuses.filter((s) => s === 429).length).toBe(150 - PLANS.free.daily!);
    // both processes took a share of the successes: the limit is shared, not per process
    const okOn = [0, 1].map((p) => results.filter((r, i) => i % 2 === p && r.status === 200).length);
    expect(okOn.every((n) => n > 0)).toBe(true);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.json.error.code).toBe('RATE_LIMITED');
  }, 120_000);

  it('100 concurrent accepts on one exclusive listing over both: exactly one licence', async () => {
    const [alice, bob] = await Promise.all([
      createKey(store, ['--account', 'alice', '--plan', 'pro']),
      createKey(store, ['--account', 'bob', '--plan', 'pro']),
    ]);
    const [a, b] = servers.map((s) => s.url);
    const work = await call(a, alice, 'POST', '/api/v1/content/register', {
      content: 'A short story that alice wrote and licenses, exclusively, to one buyer for training.',
      title: 'A story',
    });
    expect(work.status, JSON.stringify(work.json)).toBe(201);
    const listing = await call(b, alice, 'POST', '/api/v1/marketplace/listings', {
      work_id: work.json.work_id,
      licence_type: 'training',
      territory: ['WORLDWIDE'],
      term_months: 12,
      price: { amount_minor: 50000, currency: 'USD' },
      exclusive: true,
      status: 'active',
    });
    expect(listing.status, JSON.stringify(listing.json)).toBe(201);
    const lid = listing.json.listing_id as string;
    const offers: string[] = [];
    for (let i = 0; i < 100; i++) {
      const o = await call(i % 2 ? a : b, bob, 'POST', `/api/v1/marketplace/listings/${lid}/offers`, {
        amount: { amount_minor: 50000 + i, currency: 'USD' },
      });
      expect(o.status, JSON.stringify(o.json)).toBe(201);
      offers.push(o.json.offer_id);
    }
    const accepts = await Promise.all(
      offers.map((id, i) => call(i % 2 ? a : b, alice, 'POST', `/api/v1/marketplace/offers/${id}/accept`)),
    );
    const statuses = accepts.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(99);
    const after = await call(a, alice, 'GET', `/api/v1/marketplace/listings/${lid}`);
    expect(after.json).toMatchObject({ status: 'sold_out', licences_issued: 1 });
  }, 180_000);
});
