/**
 * Retention of stored analyses on every store (memory, file, PostgreSQL), with a clock the test
 * moves: an analysis is read back until its time to live ends, then NOT_FOUND and deleted by later
 * analyses with its records; an owner keeps at most `maxPerOwner` analyses and `maxBytesPerOwner` bytes of kept
 * text, the oldest going first; options are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, MemoryStore, TrainprintError, type Engine } from '../../src/index.js';
import { openFileStore, openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import { describePostgres } from '../pg/postgres.js';

const DAY = 86_400_000;
const TEXT = 'Permission is hereby granted, free of charge, to any person obtaining a copy of this software';

let tmpRoot = '';
beforeAll(async () => {
  tmpRoot = await mkdtemp(join(tmpdir(), 'trainprint-retention-'));
});
afterAll(async () => {
  await rm(tmpRoot, { recursive: true, force: true });
});

async function notFound(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (e) {
    return e instanceof TrainprintError && e.code === 'NOT_FOUND';
  }
}

function retention(name: string, open: () => Promise<Store>): void {
  describe(`${name}: analysis retention`, () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const now = () => clock;
    const engineOn = async (store: Store): Promise<Engine> =>
      createEngine({ store, analyses: { ttlDays: 30, maxPerOwner: 3, now } });
    // an analysis with an owner keeps it beside the result (`analysis-by/<id>`), deleted with it
    const analyze = (e: Engine, owner?: string) =>
      e.analyze({ content: TEXT, content_type: 'text' }, owner === undefined ? {} : { owner });

    it('read back for 30 days, then NOT_FOUND, and deleted with its records by a later analysis', async () => {
      const store = await open();
      const e = await engineOn(store);
      const first = await analyze(e, 'acme');
      expect(first.created_at).toBe(new Date(clock).toISOString()); // the engine's clock
      clock += 29 * DAY;
      const second = await analyze(e);
      expect((await e.getAnalysis(first.analysis_id)).analysis_id).toBe(first.analysis_id);
      clock += 1 * DAY; // the first one is exactly 30 days old
      expect(await notFound(e.getAnalysis(first.analysis_id))).toBe(true);
      expect(await store.get(`analysis/${first.analysis_id}`)).toBeDefined(); // gone for readers, not yet deleted
      const third = await analyze(e); // deletes what expired
      expect(await store.get(`analysis/${first.analysis_id}`)).toBeUndefined();
      expect(await store.get(`analysis-by/${first.analysis_id}`)).toBeUndefined();
      expect(await store.scan('analysis-owner/')).toEqual([]);
      expect(await store.get('analysis-owner-count/acme')).toBeUndefined();
      expect(await store.get('analysis-owner-bytes/acme')).toBeUndefined();
      expect((await store.scan('analysis/')).map(([k]) => k).sort()).toEqual(
        [`analysis/${second.analysis_id}`, `analysis/${third.analysis_id}`].sort(),
      );
      clock += 31 * DAY;
      await analyze(e); // both older ones expire now
      expect((await store.scan('analysis/')).length).toBe(1);
      expect(await store.scan('analysis-by/')).toEqual([]); // only the first had an owner
      expect((await store.scan('analysis-due/')).length).toBe(1);
      await store.close();
    });

    it('at most maxPerOwner per owner: the oldest go first, other owners untouched', async () => {
      const store = await open();
      const e = await engineOn(store);
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock += 1_000;
        made.push((await analyze(e, 'a/b')).analysis_id);
      }
      const other = await analyze(e, 'a'); // 'a' is not a prefix of 'a/b' in the index
      for (const id of made.slice(0, 2)) expect(await notFound(e.getAnalysis(id))).toBe(true);
      for (const id of made.slice(2)) expect((await e.getAnalysis(id)).analysis_id).toBe(id);
      expect((await e.getAnalysis(other.analysis_id)).analysis_id).toBe(other.analysis_id);
      expect(await store.get('analysis-owner-count/a%2Fb')).toBe(3);
      expect(await store.get('analysis-owner-count/a')).toBe(1);
      expect((await store.scan('analysis-by/')).length).toBe(4);
      // an owner reads its own, nobody else's
      expect((await e.getAnalysis(other.analysis_id, { owner: 'a' })).analysis_id).toBe(other.analysis_id);
      expect(await notFound(e.getAnalysis(other.analysis_id, { owner: 'a/b' }))).toBe(true);
      // a clock that does not move: the newest is still never the one dropped
      const still = await Promise.all([analyze(e, 'a'), analyze(e, 'a'), analyze(e, 'a'), analyze(e, 'a')]);
      expect((await e.getAnalysis(still[3].analysis_id)).analysis_id).toBe(still[3].analysis_id);
      expect(await store.get('analysis-owner-count/a')).toBe(3);
      expect((await store.scan('analysis-owner/a/')).length).toBe(3);
      await store.close();
    });

    it('at most maxBytesPerOwner of kept text per owner: the oldest go first, never the one just made', async () => {
      const store = await open();
      const e = await createEngine({ store, analyses: { ttlDays: 30, maxPerOwner: 100, maxBytesPerOwner: 300, now } });
      const bytes = new TextEncoder().encode(TEXT).byteLength; // 93: the analysed text, no remote transcripts
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock += 1_000;
        made.push((await analyze(e, 'acme')).analysis_id);
      }
      // 4 × 93 > 300: the oldest went, down to 300 less a hundredth (297), so 3 are kept
      for (const id of made.slice(0, 2)) expect(await notFound(e.getAnalysis(id))).toBe(true);
      for (const id of made.slice(2)) expect((await e.getAnalysis(id)).analysis_id).toBe(id);
      expect(await store.get('analysis-record/' + made[0])).toBeUndefined();
      expect(await store.get('analysis-owner-bytes/acme')).toBe(3 * bytes);
      expect(await store.get('analysis-owner-count/acme')).toBe(3);
      // one text larger than the cap alone: every older one goes, it stays (the owner one analysis over)
      clock += 1_000;
      const large = await e.analyze({ content: `${TEXT} `.repeat(5), content_type: 'text' }, { owner: 'acme' });
      for (const id of made) expect(await notFound(e.getAnalysis(id))).toBe(true);
      expect((await e.getAnalysis(large.analysis_id)).analysis_id).toBe(large.analysis_id);
      const largeBytes = (await store.get('analysis-owner-bytes/acme')) as number;
      expect(largeBytes).toBeGreaterThan(300);
      expect(await store.get('analysis-owner-count/acme')).toBe(1);
      // the next one pushes it out; another owner's count is its own
      clock += 1_000;
      const next = await analyze(e, 'acme');
      await analyze(e, 'other');
      expect(await notFound(e.getAnalysis(large.analysis_id))).toBe(true);
      expect((await e.getAnalysis(next.analysis_id)).analysis_id).toBe(next.analysis_id);
      expect(await store.get('analysis-owner-bytes/acme')).toBe(bytes);
      expect(await store.get('analysis-owner-bytes/other')).toBe(bytes);
      expect((await store.scan('analysis-record/')).length).toBe(2);
      await store.close();
    });
  });
}

let dirs = 0;
retention('MemoryStore', async () => new MemoryStore());
retention('FileStore', () => openFileStore(join(tmpRoot, `s${dirs++}`)));
describePostgres('PostgreSQL', (pg) => {
  retention('PostgresStore', () => openPostgresStore(pg.url, { schema: pg.schema() }));

  it('two processes on one schema: the cap and the count hold under concurrent analyses and deletions', async () => {
    const schema = pg.schema();
    const stores = [await openPostgresStore(pg.url, { schema }), await openPostgresStore(pg.url, { schema })];
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const engines = await Promise.all(
      stores.map((store) => createEngine({ store, analyses: { ttlDays: 30, maxPerOwner: 5, now: () => clock } })),
    );
    const analyze = (i: number) => engines[i % 2].analyze({ content: TEXT, content_type: 'text' }, { owner: 'acme' });
    await Promise.all(Array.from({ length: 40 }, (_, i) => analyze(i)));
    clock += 31 * 86_400_000; // everything expires: the next analyses delete it while others count
    await Promise.all(Array.from({ length: 12 }, (_, i) => analyze(i)));
    const owned = await stores[0].scan('analysis-owner/acme/');
    expect(owned.length).toBe(5);
    expect(await stores[0].get('analysis-owner-count/acme')).toBe(owned.length);
    expect(await stores[0].get('analysis-owner-bytes/acme')).toBe(owned.length * new TextEncoder().encode(TEXT).length);
    for (const store of stores) await store.close();
  });
});

describe('retention options', () => {
  it('are checked: INVALID_OPTIONS', async () => {
    const bad = [
      { ttlDays: 0 },
      { ttlDays: -1 },
      { ttlDays: Infinity },
      { maxPerOwner: 0 },
      { maxPerOwner: 1.5 },
      { maxBytesPerOwner: 0 },
      { maxBytesPerOwner: 2.5 },
      { now: 5 },
      null,
      'x',
    ];
    for (const analyses of bad) {
      await expect(createEngine({ analyses: analyses as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    }
    const e = await createEngine();
    const noOwner = e.analyze({ content: TEXT, content_type: 'text' }, { owner: '' });
    await expect(noOwner).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});
