/**
 * Stores written by the previous version keep their owners. test/fixtures/stores/v1-file/ is a file store that the
 * version before owners moved into the services wrote (test/fixtures/stores/write-v1.mjs: two accounts, each with an
 * analysis, a work and a monitor made over HTTP, ownership kept as `http/owner/<kind>/<id>` records). Opened by this
 * version — as it is (file store), and replayed record by record into a memory store and a PostgreSQL store — every
 * account still reads its own analysis and monitors and nobody else's, over HTTP and through the library; the old
 * records are gone; a monitor made before monitors recorded their owner gets it; running the migration again changes
 * nothing.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, MemoryStore, migrateStore, type Monitor, type Store } from '../../src/library.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { openFileStore, openPostgresStore } from '../../src/store/node.js';
import { describePostgres } from '../pg/postgres.js';

const FIXTURE = new URL('../fixtures/stores/v1-file/', import.meta.url);
interface Made {
  key: string;
  analysis_id: string;
  work_id: string;
  work_hash: string;
  monitor_id: string;
}
const MADE = JSON.parse(readFileSync(new URL('../fixtures/stores/v1-file.json', import.meta.url), 'utf8')) as Record<
  'alice' | 'bob',
  Made
>;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the fixture, opened as a file store. */
async function fixtureFileStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-v1-'));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  return openFileStore(dir);
}

/** Every record of the fixture written into `store` as it was, with bob's monitor as it was before monitors kept owners. */
async function replayInto(store: Store): Promise<Store> {
  const source = await fixtureFileStore();
  for (const [key, value] of await source.scan('')) {
    let old = value;
    if (key === `monitor/${MADE.bob.monitor_id}`) {
      const { owner: _dropped, ...before } = value as Monitor;
      old = before;
    }
    await store.put(key, old);
  }
  await source.close();
  return store;
}

function migrationSuite(name: string, open: () => Promise<Store>): void {
  describe(`${name}: a store of the previous version`, () => {
    it("keeps every owner: each account reads its own analysis and monitors, nobody else's", async () => {
      const store = await open();
      expect((await store.scan('http/owner/')).length).toBe(4);
      // the fixture's analyses were made on 2026-11-24: a long time to live keeps them readable whenever this runs
      const engine = await createEngine({ store, analyses: { ttlDays: 36_500 } });
      expect(await store.scan('http/owner/')).toEqual([]);
      const keys = new KeyStore(engine.store);
      const handler = createHandler(engine, { keys });
      const get = async (key: string, path: string) => {
        const res = await handler(new Request(`http://x${path}`, { headers: { authorization: `Bearer ${key}` } }));
        return { status: res.status, json: (await res.json()) as any };
      };
      for (const [me, other] of [
        ['alice', 'bob'],
        ['bob', 'alice'],
      ] as const) {
        const mine = MADE[me];
        const theirs = MADE[other];
        // the keys the previous version made still work; the analysis is the account's and only its
        expect((await get(mine.key, `/api/v1/attribution/analyses/${mine.analysis_id}`)).status).toBe(200);
        expect((await get(mine.key, `/api/v1/attribution/analyses/${theirs.analysis_id}`)).status).toBe(404);
        const list = await get(mine.key, '/api/v1/monitors');
        expect(list.json.monitors.map((m: Monitor) => m.monitor_id)).toEqual([mine.monitor_id]);
        expect(list.json.monitors[0].owner).toBe(me);
        expect((await get(mine.key, `/api/v1/monitors/${theirs.monitor_id}`)).status).toBe(404);
        // the library answers the same
        expect((await engine.getAnalysis(mine.analysis_id, { owner: me })).analysis_id).toBe(mine.analysis_id);
        expect((await engine.listMonitors({ owner: me })).map((m) => m.monitor_id)).toEqual([mine.monitor_id]);
        expect((await engine.findWork(mine.work_hash, { owner: me })).work_id).toBe(mine.work_id);
        await expect(engine.findWork(theirs.work_hash, { owner: me })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      }
      // a second run finds nothing left to do
      expect(await migrateStore(store)).toEqual({ analyses: 0, monitors: 0, indexed: 0, listings: 0 });
      engine.dispose();
      await store.close();
    });
  });
}

migrationSuite('file store (the fixture as written)', fixtureFileStore);
migrationSuite('memory store (the fixture replayed)', () => replayInto(new MemoryStore()));

describePostgres('PostgreSQL store', (db) => {
  migrationSuite('PostgreSQL store (the fixture replayed)', async () =>
    replayInto(await openPostgresStore(db.url, { schema: db.schema() })),
  );
});

describe('migrateStore', () => {
  it('reports what it changed: two analyses, two monitors (one without an owner before)', async () => {
    const store = await replayInto(new MemoryStore());
    expect(await migrateStore(store)).toEqual({ analyses: 2, monitors: 2, indexed: 0, listings: 0 });
    expect(((await store.get(`monitor/${MADE.bob.monitor_id}`)) as Monitor).owner).toBe('bob');
    expect(await store.get(`analysis-by/${MADE.alice.analysis_id}`)).toBe('alice');
    expect(await store.get(`monitor-of/bob/${MADE.bob.monitor_id}`)).toBe(true);
  });

  it('indexes a monitor that has an owner but no index entry (made through the library before)', async () => {
    const store = new MemoryStore();
    const engine = await createEngine({ store });
    const w = await engine.registerWork({
      content: 'A text of its own, long enough to register here.',
      owner: 'carol',
    });
    const m = await engine.createMonitor({ work_id: w.work_id }, { owner: 'carol' });
    await store.delete(`monitor-of/carol/${m.monitor_id}`);
    expect(await engine.listMonitors({ owner: 'carol' })).toEqual([]);
    expect(await migrateStore(store)).toEqual({ analyses: 0, monitors: 0, indexed: 1, listings: 0 });
    expect((await engine.listMonitors({ owner: 'carol' })).map((x) => x.monitor_id)).toEqual([m.monitor_id]);
    engine.dispose();
  });

  it('indexes a listing by its owner (listings made before the marketplace kept that index)', async () => {
    const store = new MemoryStore();
    const engine = await createEngine({ store });
    const w = await engine.registerWork({ content: 'A text of its own, long enough to list here.', owner: 'dana' });
    const l = await engine.marketplace.createListing('dana', {
      work_id: w.work_id,
      licence_type: 'training',
      territory: ['WORLDWIDE'],
      term_months: 12,
      price: { amount_minor: 1000, currency: 'EUR' },
    });
    const INDEX = `market/listing-by-owner/dana/${l.listing_id}`;
    expect(await store.get(INDEX)).toBe(l.listing_id);
    await store.delete(INDEX);
    expect((await engine.marketplace.listListings({ owner: 'dana', status: 'any' })).listings).toEqual([]);
    expect(await migrateStore(store)).toEqual({ analyses: 0, monitors: 0, indexed: 0, listings: 1 });
    const after = await engine.marketplace.listListings({ owner: 'dana', status: 'any' });
    expect(after.listings.map((x) => x.listing_id)).toEqual([l.listing_id]);
    expect(await migrateStore(store)).toEqual({ analyses: 0, monitors: 0, indexed: 0, listings: 0 });
    engine.dispose();
  });
});
