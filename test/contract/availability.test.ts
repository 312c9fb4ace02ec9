/**
 * Measured availability (src/services/accounts/availability.ts) on every store (memory, file, PostgreSQL), with a clock the test
 * moves: heartbeats of two instances mark the minutes they ran in; the 24-hour and 30-day windows count from the
 * first heartbeat, a minute without any heartbeat is down, the current minute counts once it has one; the plans'
 * targets are compared exactly; the records stay bounded (31 days of minutes, instances a day after last seen).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, TrainprintError } from '../../src/index.js';
import { openFileStore, openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import { Heartbeat, PLANS, readAvailability } from '../../src/http/index.js';
import { describePostgres } from '../pg/postgres.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** 2026-03-01T00:00:00Z: minute 0 of the tests. */
const T0 = Date.parse('2026-03-01T00:00:00Z');
/** A time inside minute `m` (20 s in, so a heartbeat at it lands in that minute, whatever its second). */
const at = (m: number) => T0 + m * MINUTE + 20_000;

let tmpRoot = '';
beforeAll(async () => {
  tmpRoot = await mkdtemp(join(tmpdir(), 'trainprint-availability-'));
});
afterAll(async () => {
  await rm(tmpRoot, { recursive: true, force: true });
});

function availability(name: string, open: () => Promise<Store>): void {
  describe(`${name}: measured availability`, () => {
    it('counts the minutes with a heartbeat of any instance, from the first one, over 24 h and 30 d', async () => {
      const store = await open();
      let clock = at(0);
      const now = () => clock;
      const read = () => readAvailability(store, { now: clock, plans: PLANS });
      // nothing measured yet: no share, no verdict on a target
      const empty = await read();
      expect(empty.last_24h).toEqual({ since: null, minutes: 0, minutes_up: 0, percent: null });
      expect(empty.targets).toEqual([
        { plan: 'pro', percent: 99.9, met_24h: null, met_30d: null },
        { plan: 'enterprise', percent: 99.99, met_24h: null, met_30d: null },
      ]);
      expect(empty.instances).toEqual([]);

      const a = new Heartbeat(store, { now, instanceId: 'ins_a' });
      const b = new Heartbeat(store, { now, instanceId: 'ins_b' });
      // a runs minutes 0–299, nothing runs in 300–304, b runs 305–599 (b overlaps a at 299 with one heartbeat)
      for (let m = 0; m < 600; m++) {
        clock = at(m);
        if (m < 300) await a.beat();
        if (m === 299 || m >= 305) await b.beat();
      }
      clock = at(599) + 25_000; // b heartbeated 25 s ago, in this minute: it is live, and minute 599 counts
      let r = await read();
      const since = new Date(T0).toISOString();
      expect(r.last_24h).toEqual({ since, minutes: 600, minutes_up: 595, percent: 99.1666 });
      expect(r.last_30d).toEqual(r.last_24h); // the service is younger than a day: the same minutes
      expect(r.targets.map((t) => [t.plan, t.met_24h, t.met_30d])).toEqual([
        ['pro', false, false],
        ['enterprise', false, false],
      ]);
      expect(r.instances.map((i) => [i.instance_id, i.live])).toEqual([
        ['ins_b', true],
        ['ins_a', false],
      ]);
      expect(r.instances[1]).toMatchObject({
        started_at: new Date(at(0)).toISOString(),
        last_seen: new Date(at(299)).toISOString(),
      });
      clock = at(600);
      expect((await read()).last_24h).toMatchObject({ minutes: 600, minutes_up: 595 }); // 600 is not down yet
      await b.beat(); // now minute 600 counts
      r = await read();
      expect(r.last_24h).toMatchObject({ minutes: 601, minutes_up: 596 });

      // two days on: the 24-hour window holds 1439 minutes without a heartbeat, then the current one with one
      clock = at(600 + 2 * 1440);
      await a.beat();
      r = await read();
      expect(r.last_24h).toEqual({
        since: new Date(T0 + (601 + 1440) * MINUTE).toISOString(),
        minutes: 1440,
        minutes_up: 1,
        percent: 0.0694,
      });
      expect(r.last_30d).toEqual({ since, minutes: 600 + 2 * 1440 + 1, minutes_up: 597, percent: 17.1502 });
      // b was last seen two days ago: not listed; a is live again
      expect(r.instances.map((i) => [i.instance_id, i.live])).toEqual([['ins_a', true]]);
      await a.stop(); // not started: nothing to stop
      await store.close();
    });

    it('keeps 31 days of minutes and the instances seen in the last day; the 30 days never reach further', async () => {
      const store = await open();
      let clock = at(0);
      const now = () => clock;
      const a = new Heartbeat(store, { now, instanceId: 'ins_old' });
      for (let d = 0; d < 40; d++) {
        clock = at(d * 1440);
        await a.beat();
      }
      const b = new Heartbeat(store, { now, instanceId: 'ins_new' });
      clock += 2 * DAY;
      await b.beat(); // prunes: a was last seen two days ago
      const days = (await store.scan('availability/day/')).map(([k]) => k.slice('availability/day/'.length));
      expect(days.length).toBe(30); // days 11…39 of a (the 30 days reach into day 11), and today (day 41)
      expect(days[0]).toBe(new Date(T0 + 11 * DAY).toISOString().slice(0, 10));
      expect(days.at(-1)).toBe(new Date(T0 + 41 * DAY).toISOString().slice(0, 10));
      expect((await store.scan('availability/instance/')).map(([k]) => k)).toEqual(['availability/instance/ins_new']);
      const r = await readAvailability(store, { now: clock });
      // 30 days of minutes, ending with the current one; up: a's minute 0 on each of days 12…39, and now
      expect(r.last_30d).toMatchObject({ minutes: 30 * 1440, minutes_up: 29 });
      expect(r.last_30d.since).toBe(new Date(T0 + 11 * DAY + MINUTE).toISOString());
      expect(r.targets).toEqual([]); // no plans given
      await store.close();
    });

    it('compares with the targets exactly: 999 minutes up of 1000 meet 99.9 %, not 99.99 %', async () => {
      const store = await open();
      // the records as heartbeats leave them: the first heartbeat, and the minutes of the day as bits
      const bits = new Uint8Array(180).fill(0);
      for (let m = 0; m < 1000; m++) if (m !== 500) bits[m >> 3] |= 1 << (m & 7);
      await store.put('availability/since', T0);
      await store.put('availability/day/2026-03-01', bits);
      const r = await readAvailability(store, { now: at(1000), plans: PLANS });
      expect(r.last_24h).toMatchObject({ minutes: 1000, minutes_up: 999, percent: 99.9 });
      expect(r.targets).toEqual([
        { plan: 'pro', percent: 99.9, met_24h: true, met_30d: true },
        { plan: 'enterprise', percent: 99.99, met_24h: false, met_30d: false },
      ]);
      await store.close();
    });

    it('start() beats at once and on its timer; stop() marks the instance stopped', async () => {
      const store = await open();
      let clock = at(0);
      const h = new Heartbeat(store, { now: () => clock, intervalMs: 1000 });
      expect(h.instanceId).toMatch(/^ins_[0-9a-f]{16}$/);
      await h.start(); // resolves once the first heartbeat is in
      expect(() => h.start()).toThrow(TrainprintError);
      const key = `availability/instance/${h.instanceId}`;
      expect(await store.get(key)).toMatchObject({ last_seen: new Date(at(0)).toISOString(), stopped_at: null });
      clock = at(1);
      await h.stop();
      expect(await store.get(key)).toMatchObject({ stopped_at: new Date(at(1)).toISOString(), interval_ms: 1000 });
      const r = await readAvailability(store, { now: clock });
      expect(r.instances).toEqual([expect.objectContaining({ instance_id: h.instanceId, live: false })]);
      await store.close();
    });
  });
}

availability('MemoryStore', async () => new MemoryStore());
let dirs = 0;
availability('FileStore', () => openFileStore(join(tmpRoot, `s${dirs++}`)));
describePostgres('PostgreSQL', (pg) => {
  availability('PostgresStore', () => openPostgresStore(pg.url, { schema: pg.schema() }));
});

describe('Heartbeat options', () => {
  it('refuses an interval a minute could pass without, and an unusable instance id', () => {
    const store = new MemoryStore();
    for (const intervalMs of [999, 60_001, 1.5]) {
      expect(() => new Heartbeat(store, { intervalMs })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    }
    for (const instanceId of ['', 'a b', 'x'.repeat(65)]) {
      expect(() => new Heartbeat(store, { instanceId })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    }
  });
});
