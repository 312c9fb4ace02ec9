/**
 * Units given back to a plan: an extract or audit item is charged its whole call budget at submission and, when it
 * ends, owes only the calls it made — the rest goes back to the day's count, never below 0, and only on the day of
 * the charge (memory and store counters alike).
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/library.js';
import {
  MemoryCounterStore,
  PLANS,
  RateLimiter,
  StoreCounterStore,
  type CounterStore,
} from '../../src/services/accounts/plans.js';

const DAY = 86_400_000;
const t0 = Date.parse('2026-03-01T10:00:00Z');
const acme = { account: 'acme', plan: 'pro', scopes: [] } as never;

for (const [name, make] of [
  ['memory', (clock: () => number) => new MemoryCounterStore(clock)],
  ['store', () => new StoreCounterStore(new MemoryStore())],
] as Array<[string, (clock: () => number) => CounterStore]>) {
  describe(`giving units back (${name} counters)`, () => {
    it('takes them off the day of the charge, never below 0', async () => {
      let now = t0;
      const limiter = new RateLimiter({ plans: PLANS, counters: make(() => now), now: () => now });
      expect((await limiter.take(acme, 20)).used).toBe(20);
      await limiter.giveBack('acme', 13, t0);
      expect((await limiter.peek(acme)).used).toBe(7);
      await limiter.giveBack('acme', 50, t0 + 1000);
      expect((await limiter.peek(acme)).used).toBe(0);
      // another account's count is not touched
      await limiter.giveBack('globex', 5, t0);
      expect((await limiter.peek({ account: 'globex', plan: 'pro', scopes: [] } as never)).used).toBe(0);
      expect((await limiter.take(acme, 3)).used).toBe(3);
      // a charge of yesterday is not paid back out of today's calls
      now = t0 + DAY;
      expect((await limiter.take(acme, 4)).used).toBe(4);
      await limiter.giveBack('acme', 2, t0);
      expect((await limiter.peek(acme)).used).toBe(4);
      // nothing for a count that is not a positive whole number
      await limiter.giveBack('acme', 0, now);
      await limiter.giveBack('acme', 1.5, now);
      expect((await limiter.peek(acme)).used).toBe(4);
    });
  });
}
