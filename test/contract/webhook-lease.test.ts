/**
 * Two webhook deliverers on one store — two server processes on a PostgreSQL store, each running its
 * own deliverer — run what is due at the same time: every delivery is sent once, not once per
 * deliverer. Run on the memory store (two deliverers in one process) and on PostgreSQL (two pools).
 * A lease left by a runner that died lapses after the request timeout plus a margin; a deliverer that
 * stops (a server shutting down) lets a request answered within its grace finish, and hands back one
 * that is not: the lease released at once, so the other deliverer sends it without waiting for the lapse.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import { WebhookDeliverer } from '../../src/services/monitors/webhook.js';
import { describePostgres } from '../pg/postgres.js';

const SUBSCRIPTION = { id: 'sub_1', url: 'https://hooks.example/receive', secret: 'whsec_0123456789abcdef' };
const event = (i: number) => ({
  id: `evt_${i}`,
  type: 'match.found',
  created_at: new Date().toISOString(),
  data: { i },
});

/** A receiver that answers 200 after a few milliseconds, counting requests per event id. */
function receiver() {
  const seen = new Map<string, number>();
  const fetch = (async (_url: string, init: RequestInit) => {
    const id = (JSON.parse(String(init.body)) as { id: string }).id;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 5));
    return new Response(null, { status: 200 });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, seen };
}

function leases(name: string, open: () => Promise<[Store, Store, () => Promise<void>]>): void {
  describe(`${name}: one attempt, one runner`, () => {
    it('two deliverers running at once send each of 30 deliveries once', async () => {
      const [a, b, close] = await open();
      const { fetch, seen } = receiver();
      const secret = async () => SUBSCRIPTION.secret;
      const one = new WebhookDeliverer({ store: a, fetch, resolveSecret: secret, concurrency: 4 });
      const two = new WebhookDeliverer({ store: b, fetch, resolveSecret: secret, concurrency: 4 });
      for (let i = 0; i < 30; i++) await one.enqueue(SUBSCRIPTION, event(i));
      const [x, y] = await Promise.all([one.runDue(), two.runDue()]);
      expect(x + y).toBe(30);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(seen.size).toBe(30);
      expect((await one.list({ state: 'delivered' })).length).toBe(30);
      expect(await a.scan('delivery-lease/')).toEqual([]);
      await close();
    });

    it('a lease left by a runner that died lapses after the timeout plus 30 s', async () => {
      const [a, , close] = await open();
      let clock = Date.parse('2026-03-01T00:00:00Z');
      const { fetch, seen } = receiver();
      const resolveSecret = async () => SUBSCRIPTION.secret;
      const d = new WebhookDeliverer({ store: a, fetch, now: () => clock, timeoutMs: 1_000, resolveSecret });
      const { id } = await d.enqueue(SUBSCRIPTION, event(1));
      // as a runner killed mid-request leaves it
      await a.put(`delivery-lease/${id}`, { until: clock + 31_000, by: 'run_dead' });
      expect(await d.runDue()).toBe(0);
      clock += 31_000;
      expect(await d.runDue()).toBe(1);
      expect(seen.get('evt_1')).toBe(1);
      await close();
    });

    it('the lease it takes lasts the request timeout plus leaseMarginMs (30 s unless given)', async () => {
      const [a, , close] = await open();
      const clock = Date.parse('2026-03-01T00:00:00Z');
      const resolveSecret = async () => SUBSCRIPTION.secret;
      for (const [leaseMarginMs, lasts] of [
        [undefined, 31_000],
        [2_000, 3_000],
      ] as const) {
        let held: number | undefined;
        // the lease as the store holds it while the request is out
        const fetch = (async () => {
          const [[, lease]] = (await a.scan('delivery-lease/')) as [[string, { until: number }]];
          held = lease.until - clock;
          return new Response(null, { status: 200 });
        }) as unknown as typeof globalThis.fetch;
        const d = new WebhookDeliverer({
          store: a,
          fetch,
          now: () => clock,
          timeoutMs: 1_000,
          leaseMarginMs,
          resolveSecret,
        });
        await d.enqueue(SUBSCRIPTION, event(lasts));
        expect(await d.runDue()).toBe(1);
        expect(held).toBe(lasts);
      }
      for (const leaseMarginMs of [0, -1])
        expect(() => new WebhookDeliverer({ store: a, leaseMarginMs })).toThrow(/leaseMarginMs/);
      await close();
    });

    it('stop() hands back a request unanswered when its grace ends: the other deliverer sends it at once', async () => {
      const [a, b, close] = await open();
      const clock = Date.parse('2026-03-01T00:00:00Z'); // frozen: no lease could lapse
      const resolveSecret = async () => SUBSCRIPTION.secret;
      // a receiver that never answers the stopping runner: its request ends only when aborted
      let started = 0;
      const hanging = (async (_url: string, init: RequestInit) => {
        started++;
        return new Promise<Response>((_, reject) => {
          init.signal!.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
        });
      }) as unknown as typeof globalThis.fetch;
      const { fetch, seen } = receiver();
      const leaving = new WebhookDeliverer({ store: a, fetch: hanging, now: () => clock, resolveSecret });
      const staying = new WebhookDeliverer({ store: b, fetch, now: () => clock, resolveSecret });
      const { id } = await leaving.enqueue(SUBSCRIPTION, event(1));
      const run = leaving.runDue();
      while (started === 0) await new Promise((r) => setTimeout(r, 5)); // the test's timeout bounds a hang
      expect(started).toBe(1);
      expect(await staying.runDue()).toBe(0); // leased by the leaving runner
      await leaving.stop({ graceMs: 0 });
      expect(await run).toBe(0); // no request completed
      expect(await a.scan('delivery-lease/')).toEqual([]); // released, not left to lapse
      // due as before, with no attempt logged: the request may or may not have reached the receiver
      expect(await leaving.get(id)).toMatchObject({ state: 'pending', attempts: [] });
      expect(await staying.runDue()).toBe(1);
      expect(seen.get('evt_1')).toBe(1);
      expect((await staying.get(id))!.state).toBe('delivered');
      await close();
    });

    it('stop() lets a request answered within its grace finish, and starts no other', async () => {
      const [a, , close] = await open();
      const resolveSecret = async () => SUBSCRIPTION.secret;
      let answer: (() => void) | undefined;
      const bodies: string[] = [];
      const gated = (async (_url: string, init: RequestInit) => {
        bodies.push(String(init.body));
        await new Promise<void>((r) => {
          answer = r;
        });
        return new Response(null, { status: 200 });
      }) as unknown as typeof globalThis.fetch;
      const d = new WebhookDeliverer({ store: a, fetch: gated, resolveSecret, concurrency: 1 });
      const first = await d.enqueue(SUBSCRIPTION, event(1));
      const second = await d.enqueue(SUBSCRIPTION, event(2));
      const run = d.runDue();
      while (answer === undefined) await new Promise((r) => setTimeout(r, 5)); // the test's timeout bounds a hang
      const stopped = d.stop({ graceMs: 60_000 });
      answer!(); // the receiver answers while the stop waits
      await stopped;
      expect(await run).toBe(1);
      const sent = JSON.parse(bodies[0]).id === 'evt_1' ? first.id : second.id;
      const other = sent === first.id ? second.id : first.id;
      const attempts = [expect.objectContaining({ status: 200 })];
      expect(await d.get(sent)).toMatchObject({ state: 'delivered', attempts });
      expect(await d.get(other)).toMatchObject({ state: 'pending', attempts: [] }); // left due, not started
      expect(bodies).toHaveLength(1);
      expect(await a.scan('delivery-lease/')).toEqual([]);
      await expect(d.stop({ graceMs: -1 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await close();
    });
  });
}

leases('MemoryStore', async () => {
  const s = new MemoryStore();
  return [s, s, () => s.close()];
});
describePostgres('PostgreSQL', (pg) => {
  leases('PostgresStore', async () => {
    const schema = pg.schema();
    const [a, b] = await Promise.all([openPostgresStore(pg.url, { schema }), openPostgresStore(pg.url, { schema })]);
    return [
      a,
      b,
      async () => {
        await Promise.all([a.close(), b.close()]);
      },
    ];
  });
});
