/**
 * WebhookDeliverer's loop (src/services/monitors/webhook.ts): while started, a retry runs at its
 * backoff due time (or the receiver's Retry-After), not at the next interval tick; the wake-up is a
 * timer cleared by stop(). Fake fetch, store in memory, fake clock and sleep — no network, no waiting.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';
import { WebhookDeliverer } from '../../src/services/monitors/webhook.js';

const T0 = Date.UTC(2025, 0, 1);
const SUBSCRIPTION = { id: 'sub_1', url: 'https://hooks.example/receive', secret: 'whsec_0123456789abcdef' };
const EVENT = { id: 'evt_1', type: 'match.found', created_at: new Date(T0).toISOString(), data: { n: 1 } };

/** A fetch answering with the given statuses in turn (headers per answer), recording when it was called. */
function scriptedFetch(now: () => number, answers: Array<[number, Record<string, string>?]>) {
  const calls: number[] = [];
  const fetch = (async () => {
    calls.push(now());
    const [status, headers] = answers.shift() ?? [200];
    return new Response(null, { status, headers });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

/**
 * Polls `predicate` across macrotasks until it holds: signing runs on WebCrypto's thread pool, so a run completes on
 * no fixed tick, and on a loaded machine in no fixed time (the test's timeout bounds a hang). setImmediate is never
 * faked here.
 */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setImmediate(r));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('WebhookDeliverer: retries on their backoff schedule while started', () => {
  it('waits the backoff delay and then Retry-After, not the 60 s interval (fake clock and sleep)', async () => {
    const clock = { ms: T0 };
    const waits: number[] = [];
    const wakeUps: Array<() => void> = [];
    const sleep = (ms: number) => {
      waits.push(ms);
      return new Promise<void>((resolve) => wakeUps.push(() => ((clock.ms += ms), resolve())));
    };
    const { fetch, calls } = scriptedFetch(() => clock.ms, [[500], [429, { 'retry-after': '7' }], [200]]);
    const now = () => clock.ms;
    const deliverer = new WebhookDeliverer({ store: new MemoryStore(), fetch, now, sleep, random: () => 0.5 });
    const { id } = await deliverer.enqueue(SUBSCRIPTION, EVENT);
    deliverer.start(60_000);

    await until(() => waits.length === 1);
    expect(waits).toEqual([500]); // full jitter: 0.5 · min(60 s, 1 s · 2^0)
    wakeUps.shift()!();
    await until(() => waits.length === 2);
    expect(waits[1]).toBe(7000); // the receiver's Retry-After: 7 s
    wakeUps.shift()!();
    await until(() => calls.length === 3);
    await deliverer.stop(); // waits for the run in flight

    expect(calls).toEqual([T0, T0 + 500, T0 + 7500]);
    const d = await deliverer.get(id);
    expect(d).toMatchObject({ state: 'delivered', next_attempt_at: null });
    expect(d!.attempts.map((a) => a.status)).toEqual([500, 429, 200]);
    expect(waits).toHaveLength(2); // nothing left to wait for
  });

  it('with the default timers: the retry fires at its due time, and stop() clears every timer', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const { fetch, calls } = scriptedFetch(() => Date.now(), [[503], [200]]);
    const deliverer = new WebhookDeliverer({ store: new MemoryStore(), fetch, random: () => 0.25, baseDelayMs: 2000 });
    await deliverer.enqueue(SUBSCRIPTION, EVENT);
    expect(vi.getTimerCount()).toBe(0); // not started: no timer at all
    deliverer.start(60_000);
    await until(() => calls.length === 1 && vi.getTimerCount() === 2); // the interval and the due wake-up
    expect(calls).toEqual([T0]);
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toHaveLength(1); // due at T0 + 0.25 · 2 s
    await vi.advanceTimersByTimeAsync(1);
    await until(() => calls.length === 2);
    expect(calls).toEqual([T0, T0 + 500]);
    await until(() => vi.getTimerCount() === 1); // delivered: only the interval is left
    expect((await deliverer.list({ state: 'delivered' })).length).toBe(1);
    await deliverer.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a delivery that cannot progress (no secret) is left to the interval, not retried in a loop', async () => {
    const store = new MemoryStore();
    await new WebhookDeliverer({ store, now: () => T0 }).enqueue(SUBSCRIPTION, EVENT);
    let slept = 0;
    const { fetch, calls } = scriptedFetch(() => T0, []);
    // a new process: the secret is unknown and nothing resolves it
    const deliverer = new WebhookDeliverer({ store, fetch, now: () => T0, sleep: async () => void slept++ });
    let marked = false;
    deliverer.start(60_000);
    const poll = async () => (marked = (await deliverer.get((await deliverer.list())[0].id))?.last_error !== undefined);
    while (!marked) await poll(); // however long a loaded machine takes: the test's timeout bounds a hang
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r)); // room for a loop, were there one
    await deliverer.stop();
    expect(calls).toEqual([]);
    expect(slept).toBe(0);
    expect((await deliverer.list())[0]).toMatchObject({ state: 'pending', last_error: 'secret unavailable' });
  });

  it('a stop() while the loop loads cancels the start: no timer, no request; a second start() is CONFLICT', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const { fetch, calls } = scriptedFetch(() => Date.now(), []);
    const deliverer = new WebhookDeliverer({ store: new MemoryStore(), fetch });
    await deliverer.enqueue(SUBSCRIPTION, EVENT);
    deliverer.start(60_000); // the loop's module loads on this first call
    expect(() => deliverer.start(60_000)).toThrow(/already started/);
    await deliverer.stop();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); // room for a late start, were there one
    expect(vi.getTimerCount()).toBe(0);
    expect(calls).toEqual([]);
    expect((await deliverer.list())[0]).toMatchObject({ state: 'pending', attempts: [] });
    deliverer.start(60_000); // loaded now: starts at once, as before
    await until(() => calls.length === 1);
    await deliverer.stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
