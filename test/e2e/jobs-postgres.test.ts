/**
 * One catalogue job shared by two `trainprint serve` processes (the built CLI, dist/cli.js) on one PostgreSQL store:
 * 300 analyze items submitted to one process, polled on both — progress never goes back, every item has exactly one
 * result and exactly one stored analysis (an item run twice would store two), and the plan's limit is exact across the
 * processes (the items are charged at submission in the database's counter: what is left is exactly the limit less
 * the items, and a job one item over it is refused while one that fits is taken).
 *
 * Bounded: a server must print its URL within 30 s; the job must finish within 3 minutes.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PLANS } from '../../src/services/accounts/plans.js';
import { openPostgresStore } from '../../src/store/node.js';
import { describePostgres } from '../pg/postgres.js';
import {
  createKey,
  requireBuiltCli,
  startServe,
  stopProcess as stop,
  type ServeProcess,
} from '../fixtures/serve-process.js';

const ITEMS = 300;
const running: ChildProcess[] = [];
const start = (store: string): Promise<ServeProcess> =>
  startServe(['--port', '0', '--packs', 'none', '--workers', '1', '--store', store], { running });

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}

const item = (i: number) => ({
  content: `Catalogue title ${i}. Permission is hereby granted, free of charge, to any person obtaining a copy of this software, item ${i}.`,
  content_type: 'text',
});

beforeAll(() => {
  requireBuiltCli();
});
afterAll(async () => {
  await Promise.all(running.map(stop));
});

describePostgres('a catalogue job shared by two serve processes on one PostgreSQL store', (db) => {
  let store = '';
  let servers: ServeProcess[] = [];

  beforeAll(async () => {
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    store = url.toString();
    servers = await Promise.all([start(store), start(store)]);
  }, 90_000);

  it(`${ITEMS} analyze items: each done exactly once, progress monotone, the plan's limit exact`, async () => {
    const key = await createKey(store, ['--account', 'catalogue', '--plan', 'pro']);
    const [a, b] = servers.map((s) => s.url);
    const posted = await call(a, key, 'POST', '/api/v1/jobs', {
      type: 'analyze',
      items: Array.from({ length: ITEMS }, (_, i) => item(i)),
    });
    expect(posted.status, posted.text).toBe(202);
    const { status_url, results_url } = posted.json;
    // the items are charged at submission, in the database: the other process sees exactly what is left
    const limit = PLANS.pro.daily!;
    const usage = await call(b, key, 'GET', status_url);
    expect(usage.headers.get('ratelimit-remaining')).toBe(String(limit - ITEMS));

    let last = -1;
    let state = '';
    const deadline = Date.now() + 180_000;
    for (let i = 0; state !== 'done' && Date.now() < deadline; i++) {
      const s = await call(i % 2 ? a : b, key, 'GET', status_url);
      expect(s.status).toBe(200);
      expect(s.json.done).toBeGreaterThanOrEqual(last);
      last = s.json.done;
      state = s.json.state;
      if (state !== 'done') await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe('done');
    expect(last).toBe(ITEMS);

    const lines: any[] = [];
    let next: string | null = `${results_url}?limit=1000`;
    while (next) {
      const r = await call(lines.length % 2 ? a : b, key, 'GET', next);
      lines.push(
        ...r.text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
      const link = r.headers.get('link');
      next = link ? /<([^>]+)>/.exec(link)![1] : null;
    }
    expect(lines.map((l) => l.index)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    expect(lines.every((l) => l.success)).toBe(true);
    const ids = new Set(lines.map((l) => l.result.analysis_id));
    expect(ids.size).toBe(ITEMS);
    // exactly one analysis stored per item: an item run twice would have stored a second one
    const db2 = await openPostgresStore(store);
    try {
      const owned = (await db2.scan('analysis-by/')).filter(([, owner]) => owner === 'catalogue');
      expect(owned.length).toBe(ITEMS);
      expect(new Set(owned.map(([k]) => k.slice('analysis-by/'.length)))).toEqual(ids);
      expect(await db2.scan('job-lease/')).toEqual([]);
      expect(await db2.scan('job-items/')).toEqual([]);
    } finally {
      await db2.close();
    }

    // the limit, exactly: a job one item over what is left is refused, one that fits is taken (and cancelled)
    const left = limit - ITEMS;
    const scan = (n: number) => ({
      type: 'scan',
      items: Array.from({ length: n }, (_, i) => ({ id: `x${i}`, text: 'x' })),
    });
    const over = await call(b, key, 'POST', '/api/v1/jobs', scan(left + 1));
    expect(over.status, over.text).toBe(429);
    const fits = await call(a, key, 'POST', '/api/v1/jobs', scan(left));
    expect(fits.status, fits.text).toBe(202);
    expect((await call(b, key, 'DELETE', fits.json.status_url)).status).toBe(200);
    expect((await call(b, key, 'POST', '/api/v1/attribution/analyze', item(0))).status).toBe(429);
  }, 300_000);
});
