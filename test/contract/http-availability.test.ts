/**
 * The measured availability on `GET /api/v1/status` and the page `/status` (src/http/status.ts,
 * src/services/accounts/availability.ts), against a real server on 127.0.0.1 with a clock the test moves: two instances'
 * heartbeats in the engine's store, the 24-hour and 30-day shares beside the plans' targets (the built-in ones,
 * or the handler's own), and what the figures measure. Every response is validated against the OpenAPI document
 * the server serves (test/fixtures/http/harness.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, MemoryStore, TrainprintError } from '../../src/index.js';
import { AVAILABILITY_MEASURES, createHandler, Heartbeat } from '../../src/http/index.js';
import { startApi, type Api } from '../fixtures/http/harness.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');

describe('GET /api/v1/status: measured availability', () => {
  let clock = T0 + 20_000;
  const apis: Api[] = [];
  afterAll(async () => {
    for (const a of apis) await a.close();
  });

  it("shows the shares of minutes with a heartbeat, the plans' targets, the instances and what is measured", async () => {
    const engine = await createEngine();
    const api = await startApi({ now: () => clock }, engine);
    apis.push(api);
    // no heartbeat yet (a handler without a serving instance's heartbeat): nothing measured
    let r = await api.call('GET', '/api/v1/status');
    expect(r.json.availability).toMatchObject({
      measures: AVAILABILITY_MEASURES,
      heartbeat_interval_seconds: 10,
      error: null,
      instances: [],
      last_24h: { since: null, minutes: 0, minutes_up: 0, percent: null },
      targets: [
        { plan: 'pro', percent: 99.9, met_24h: null, met_30d: null },
        { plan: 'enterprise', percent: 99.99, met_24h: null, met_30d: null },
      ],
    });

    // two instances: one runs 2000 minutes but for minute 1000, the other joins for the last 10
    const one = new Heartbeat(engine.store, { now: () => clock, instanceId: 'ins_one' });
    const two = new Heartbeat(engine.store, { now: () => clock, instanceId: 'ins_two' });
    for (let m = 0; m < 2000; m++) {
      clock = T0 + m * MINUTE + 20_000;
      if (m !== 1000) await one.beat();
      if (m >= 1990) await two.beat();
    }
    r = await api.call('GET', '/api/v1/status');
    const a = r.json.availability;
    // the last 24 h: minutes 560…1999 (1999 is the current one, with heartbeats); 30 d: since the first
    expect(a.last_24h).toEqual({
      since: new Date(T0 + 560 * MINUTE).toISOString(),
      minutes: 1440,
      minutes_up: 1439,
      percent: 99.9305,
    });
    expect(a.last_30d).toEqual({
      since: new Date(T0).toISOString(),
      minutes: 2000,
      minutes_up: 1999,
      percent: 99.95,
    });
    expect(a.targets).toEqual([
      { plan: 'pro', percent: 99.9, met_24h: true, met_30d: true },
      { plan: 'enterprise', percent: 99.99, met_24h: false, met_30d: false },
    ]);
    const seen = new Date(clock).toISOString();
    expect(a.instances).toEqual([
      // seen last in the same heartbeat round: by id
      { instance_id: 'ins_one', live: true, started_at: new Date(T0 + 20_000).toISOString(), last_seen: seen },
      {
        instance_id: 'ins_two',
        live: true,
        started_at: new Date(T0 + 1990 * MINUTE + 20_000).toISOString(),
        last_seen: seen,
      },
    ]);

    const page = await api.call('GET', '/status');
    expect(page.text).toContain('<h2>Availability</h2>');
    expect(page.text).toContain('<td>Last 24 hours</td><td>99.9305 %</td><td>1439 of 1440 minutes up since');
    expect(page.text).toContain('<td>Last 30 days</td><td>99.95 %</td>');
    expect(page.text).toContain('<td>Plan pro</td><td>target 99.9 %</td><td>24 hours: met; 30 days: met</td>');
    expect(page.text).toContain('<td>Plan enterprise</td><td>target 99.99 %</td><td>24 hours: missed; 30 days: missed');
    expect(page.text).toContain('2 instance(s) heartbeating now');
    expect(page.text).toContain('it is not an end-to-end probe');
  });

  it("compares with the handler's own plans, and refuses a target that is not a percentage", async () => {
    const engine = await createEngine();
    const plans = { pro: { daily: 10, availability: 99.5 }, gold: { daily: null, availability: 99.95 } };
    const api = await startApi({ now: () => clock, plans }, engine);
    apis.push(api);
    await new Heartbeat(engine.store, { now: () => clock }).beat();
    const { targets } = (await api.call('GET', '/api/v1/status')).json.availability;
    expect(targets).toEqual([
      { plan: 'pro', percent: 99.5, met_24h: true, met_30d: true },
      { plan: 'enterprise', percent: 99.99, met_24h: true, met_30d: true },
      { plan: 'gold', percent: 99.95, met_24h: true, met_30d: true },
    ]);
    for (const availability of [0, 100.5, 99.99999, '99.9', Number.NaN]) {
      const bad = { pro: { daily: 10, availability: availability as number } };
      expect(() => createHandler(engine, { plans: bad }), String(availability)).toThrow(TrainprintError);
    }
  });

  it('still answers when the store cannot be read: availability unmeasured, with the reason', async () => {
    const store = new MemoryStore();
    const engine = await createEngine({ store });
    const api = await startApi({ now: () => clock }, engine);
    apis.push(api);
    const scan = store.scan.bind(store);
    store.scan = async (prefix, options) => {
      if (prefix.startsWith('availability/')) throw new TrainprintError('STORE_UNAVAILABLE', 'down for the test');
      return scan(prefix, options);
    };
    const r = await api.call('GET', '/api/v1/status');
    expect(r.status).toBe(200);
    expect(r.json.availability).toMatchObject({
      error: 'store: STORE_UNAVAILABLE',
      last_30d: { percent: null },
      targets: [expect.objectContaining({ met_30d: null }), expect.anything()],
    });
    const page = (await api.call('GET', '/status')).text;
    expect(page).toContain('Heartbeats could not be read (store: STORE_UNAVAILABLE)');
  });
});
