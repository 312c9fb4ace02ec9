/**
 * Webhook delivery: durable, signed, retried, logged.
 *
 * `enqueue` writes a delivery record to the {@link Store}; `runDue` POSTs every record that is due and
 * appends the outcome to its attempt log. Because the schedule lives in the store rather than in
 * timers, a restarted process picks up where the last one stopped (give it `resolveSecret`, since
 * secrets are never written to the record). Delivery is at-least-once: a receiver may see an event
 * twice (e.g. we crash after it answered 2xx but before the record was updated) and should dedupe on
 * the event id.
 *
 * Keys: `delivery/<id>` holds the record; `delivery-due/<15-digit ms>/<id>` indexes the deliveries
 * that still have an attempt scheduled, so `runDue` reads only what is due instead of scanning every
 * delivery ever made (the log grows without bound; the due set stays small).
 *
 * Only `fetch`, `AbortController` and WebCrypto are used: Node ≥ 20, Deno and browsers alike. The runs, the loop and
 * the log's reads (./delivery-loop.ts) load on the first of them: a file of its own in the package, so a program
 * that never delivers a webhook carries none of it; the store layout is ./delivery-records.ts.
 */
import type { Store, Transaction } from '../../store/types.js';
import { TrainprintError } from '../../errors.js';
import { loadOnce } from '../../util/load-once.js';
import { readRequest } from '../../util/schema-check.js';
import { randomHex } from '../../util/validate.js';
import type { DeliveryLoop } from './delivery-loop.js';
import {
  RECORD_PREFIX,
  dueKey,
  intOption,
  invalid,
  numberOption,
  type Delivery,
  type DeliverySettings,
  type ListDeliveriesOptions,
} from './delivery-records.js';

export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, signPayload, verifySignature } from './signature.js';
export type { VerifyOptions } from './signature.js';
export { DELIVERY_HEADER, EVENT_HEADER, WEBHOOK_USER_AGENT } from './delivery-records.js';
export type { Delivery, DeliveryAttempt, DeliveryState, ListDeliveriesOptions } from './delivery-records.js';

/** Where to send events, and the secret they are signed with. */
export interface WebhookSubscription {
  readonly id: string;
  /** `http:` or `https:` only. */
  readonly url: string;
  readonly secret: string;
}

/** An event as produced by a monitor; posted as JSON exactly in this shape. */
export interface WebhookEvent {
  readonly id: string;
  readonly type: string;
  readonly created_at: string;
  readonly data: unknown;
}

/** Options of {@link WebhookDeliverer}. Times are milliseconds unless named otherwise. */
export interface WebhookDelivererOptions {
  readonly store: Store;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Attempts per cycle before a retryable failure becomes `dead_letter`. @default 6 */
  readonly maxAttempts?: number;
  /** Backoff base: the n-th retry waits up to `baseDelayMs · 2^(n−1)`. @default 1000 */
  readonly baseDelayMs?: number;
  /** Cap on any single wait, including a receiver's Retry-After. @default 60_000 */
  readonly maxDelayMs?: number;
  /** Per-request timeout (until the response headers arrive). @default 10_000 */
  readonly timeoutMs?: number;
  /**
   * How long an attempt stays leased past its request timeout: a runner that died while sending it (several
   * processes on one store) is taken over by another `timeoutMs + leaseMarginMs` after the lease was taken. The
   * margin covers a runner whose clock or loop lags; it must be positive. @default 30_000
   */
  readonly leaseMarginMs?: number;
  /** Requests in flight at once during `runDue`, so one slow receiver does not hold up the rest. @default 8 */
  readonly concurrency?: number;
  /** Clock in epoch ms. @default Date.now */
  readonly now?: () => number;
  /**
   * Waits for the next due attempt: in {@link WebhookDeliverer.drain}, and while started (a fake clock's
   * sleep makes retries run at once in tests). @default setTimeout, unref'd while started
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1) for the backoff jitter. @default Math.random */
  readonly random?: () => number;
  /** Secret lookup for deliveries whose subscription this process has not seen (e.g. after a restart). */
  readonly resolveSecret?: (subscriptionId: string) => Promise<string | undefined>;
  /** Errors the `start()` loop cannot put in a delivery record (store failures, a throwing resolveSecret). */
  readonly onError?: (error: unknown) => void;
}

/** The delivery loop's module, imported once, on the first run or read of any deliverer (a file of its own). */
const operations = loadOnce(() => import('./operations.js'));

/**
 * Signs and delivers webhook events with retries, keeping a per-delivery attempt log in the store.
 *
 * Retry policy: 2xx delivers. Network errors, timeouts, 408, 429 and 5xx are retried with full-jitter
 * exponential backoff, `random() · min(maxDelayMs, baseDelayMs · 2^(n−1))` after the n-th failure, or
 * after `Retry-After` (seconds or HTTP date, capped at `maxDelayMs`) when the receiver sends one; the
 * `maxAttempts`-th failure dead-letters. Redirects (3xx, not followed) and every other 4xx dead-letter
 * at once: the receiver has answered, and sending the same request again will not change its mind.
 *
 * Several deliverers may share one store (one per server process on a PostgreSQL store): each attempt
 * is leased to one of them in a store transaction before its request goes out, so a due delivery is
 * not sent twice at once.
 *
 * @throws INVALID_OPTIONS (from the constructor) for a missing store or an out-of-range number.
 * @example
 * const deliverer = new WebhookDeliverer({ store, resolveSecret: (id) => subscriptions.secretOf(id) })
 * await deliverer.enqueue({ id: 'sub_1', url: 'https://example.com/hooks', secret },
 *   { id: 'evt_1', type: 'match.found', created_at: new Date().toISOString(), data: { work_id: 'w1' } })
 * deliverer.start(1000)          // or: await deliverer.runDue() from your own scheduler
 * // …on shutdown
 * await deliverer.stop()
 */
export class WebhookDeliverer {
  readonly #settings: DeliverySettings;
  /** The loop, once its module has loaded (its first run or read); until then, the promise of it. */
  #loop: DeliveryLoop | undefined;
  #loading: Promise<DeliveryLoop> | undefined;
  /** A start() whose loop is still loading: its generation (a stop() before the load cancels it). */
  #pendingStart: number | undefined;
  #starts = 0;

  constructor(options: WebhookDelivererOptions) {
    if (!options || typeof options !== 'object' || !options.store) {
      throw new TrainprintError('INVALID_OPTIONS', 'store is required');
    }
    // checked in this order: the first option out of range is the one reported
    const maxAttempts = intOption('maxAttempts', options.maxAttempts, 6, 1);
    const baseDelayMs = numberOption('baseDelayMs', options.baseDelayMs, 1000);
    const maxDelayMs = numberOption('maxDelayMs', options.maxDelayMs, 60_000);
    const timeoutMs = numberOption('timeoutMs', options.timeoutMs, 10_000);
    if (timeoutMs === 0) throw new TrainprintError('INVALID_OPTIONS', 'timeoutMs must be positive');
    const leaseMarginMs = numberOption('leaseMarginMs', options.leaseMarginMs, 30_000);
    if (leaseMarginMs === 0) throw new TrainprintError('INVALID_OPTIONS', 'leaseMarginMs must be positive');
    this.#settings = {
      store: options.store,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      maxAttempts,
      baseDelayMs,
      maxDelayMs,
      timeoutMs,
      leaseMarginMs,
      concurrency: intOption('concurrency', options.concurrency, 8, 1),
      now: options.now ?? Date.now,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      customSleep: options.sleep !== undefined,
      random: options.random ?? Math.random,
      resolveSecret: options.resolveSecret,
      onError: options.onError ?? (() => {}),
      secrets: new Map<string, string>(),
    };
  }

  /**
   * Record a delivery of `event` to `subscription`, due now. The subscription's secret is kept in
   * memory (a later enqueue for the same subscription id replaces it, e.g. after rotation).
   * @throws INVALID_INPUT (rejects) for a non-http(s) or credential-bearing URL, empty ids or type,
   *   an empty secret, or event data that JSON cannot encode.
   * @example
   * const delivery = await deliverer.enqueue(subscription, event)
   * delivery.state // 'pending'
   */
  async enqueue(subscription: WebhookSubscription, event: WebhookEvent): Promise<Delivery> {
    const { delivery, dueMs } = this.#newDelivery(subscription, event);
    await this.#settings.store.batch([
      { type: 'put', key: RECORD_PREFIX + delivery.id, value: delivery },
      { type: 'put', key: dueKey(dueMs, delivery.id), value: delivery.id },
    ]);
    this.#loop?.armDue(false);
    return delivery;
  }

  /**
   * {@link enqueue} inside the caller's store transaction: the delivery commits together with the writes
   * that produced its event, or not at all, so a crash cannot leave a logged event without its delivery.
   * Call {@link runDue} after the transaction (or let `start()` pick it up).
   * @throws INVALID_INPUT as enqueue, before writing anything to `tx`.
   * @example
   * await store.transaction(async (tx) => {
   *   tx.put(`event/${event.id}`, event)
   *   deliverer.stage(tx, subscription, event)
   * })
   * await deliverer.runDue()
   */
  stage(tx: Transaction, subscription: WebhookSubscription, event: WebhookEvent): Delivery {
    const { delivery, dueMs } = this.#newDelivery(subscription, event);
    tx.put(RECORD_PREFIX + delivery.id, delivery);
    tx.put(dueKey(dueMs, delivery.id), delivery.id);
    return delivery;
  }

  /** A checked, new delivery record due now; remembers the subscription's secret. */
  #newDelivery(input: WebhookSubscription, inputEvent: WebhookEvent): { delivery: Delivery; dueMs: number } {
    // read once: a throwing getter is INVALID_INPUT, and what is checked is what gets stored
    const subscription = readRequest(input, 'subscription') as WebhookSubscription;
    const event = readRequest(inputEvent, 'event') as WebhookEvent;
    if (!subscription || typeof subscription !== 'object') throw invalid('subscription must be an object');
    if (!event || typeof event !== 'object') throw invalid('event must be an object');
    nonEmpty('subscription.id', subscription.id);
    nonEmpty('subscription.secret', subscription.secret);
    nonEmpty('event.id', event.id);
    nonEmpty('event.type', event.type);
    nonEmpty('event.created_at', event.created_at);
    const url = checkUrl(subscription.url);

    let body: string;
    try {
      body = JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data: event.data ?? null });
    } catch (cause) {
      throw new TrainprintError('INVALID_INPUT', 'event data must be JSON-serialisable', { cause });
    }

    const now = this.#settings.now();
    const iso = new Date(now).toISOString();
    const delivery: Delivery = {
      id: newDeliveryId(now),
      subscription_id: subscription.id,
      event_id: event.id,
      event_type: event.type,
      url,
      state: 'pending',
      attempts: [],
      next_attempt_at: iso,
      cycle_start: 0,
      created_at: iso,
      updated_at: iso,
      body,
    };
    this.#settings.secrets.set(subscription.id, subscription.secret);
    return { delivery, dueMs: now };
  }

  /**
   * Attempt every delivery whose `next_attempt_at` ≤ now, `concurrency` at a time. Runs are serialised:
   * a call made while another run is in flight starts after it.
   * @returns How many requests were sent (deliveries waiting for a secret are not counted).
   * @example
   * const sent = await deliverer.runDue()
   */
  runDue(): Promise<number> {
    return this.#work().then((loop) => loop.runDue());
  }

  /**
   * Call {@link runDue} every `intervalMs` (the first run starts at once: on a first call, as soon as the loop's code
   * has loaded), and in between at the due time of the earliest scheduled attempt, so retries keep to their backoff
   * (and a receiver's Retry-After) whatever the interval. A tick is skipped while a run is still going, so runs never overlap. The
   * timers are unref'd where the runtime allows, so an idle deliverer does not keep a Node or Deno
   * process alive. A closed store stops the loop.
   * @throws CONFLICT when already started; INVALID_OPTIONS for a non-positive interval.
   * @example
   * deliverer.start(1000)
   */
  start(intervalMs: number): void {
    if (this.#pendingStart !== undefined) throw new TrainprintError('CONFLICT', 'the deliverer is already started');
    if (this.#loop) {
      this.#loop.start(intervalMs);
      return;
    }
    if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs <= 0) {
      throw new TrainprintError('INVALID_OPTIONS', 'intervalMs must be a positive number');
    }
    const start = ++this.#starts;
    this.#pendingStart = start;
    this.#work().then(
      (loop) => {
        if (this.#pendingStart !== start) return; // stopped while the loop loaded
        this.#pendingStart = undefined;
        loop.start(intervalMs);
      },
      (error: unknown) => {
        if (this.#pendingStart === start) this.#pendingStart = undefined;
        this.#settings.onError(error);
      },
    );
  }

  /**
   * Stop the loop, for a shutdown: a run in flight starts no new attempt (what is still due stays due, for the next
   * start or another process on the store), and the requests in flight get `graceMs` to finish. One still
   * unanswered then is aborted and handed back: its lease is released at once and no attempt is logged, so another
   * deliverer on the store sends it at its next run instead of after the lease lapses (the receiver may have seen
   * it: delivery is at-least-once). Resolves when the run in flight has ended. Safe to call when not started; a
   * later {@link runDue}, {@link drain} or {@link start} works as before.
   * @param options.graceMs How long requests in flight may take. @default the request timeout (`timeoutMs`)
   * @throws INVALID_OPTIONS (rejects) for a negative or non-finite graceMs.
   * @example
   * await deliverer.stop({ graceMs: 5_000 }) // e.g. the drain of a server taken out of its load balancer
   */
  async stop(options: { readonly graceMs?: number } = {}): Promise<void> {
    numberOption('graceMs', options.graceMs, this.#settings.timeoutMs);
    this.#pendingStart = undefined;
    // never run or read: nothing is started or in flight, and nothing need load
    if (this.#loading) await (await this.#loading).stop(options);
  }

  /**
   * Run until nothing is scheduled, sleeping (with the `sleep` option) until each next due attempt:
   * for short-lived processes and tests. Stops early when due deliveries can make no progress
   * (no secret available) or after `maxRuns` runs.
   * @returns The total number of requests sent.
   * @example
   * await deliverer.enqueue(subscription, event)
   * await deliverer.drain()   // delivered or dead-lettered, every retry included
   */
  async drain(options: { readonly maxRuns?: number } = {}): Promise<number> {
    return (await this.#work()).drain(options);
  }

  /**
   * Deliveries in creation order, optionally filtered.
   * @throws INVALID_INPUT (rejects) for an unknown state.
   * @example
   * const dead = await deliverer.list({ state: 'dead_letter' })
   */
  async list(filter: ListDeliveriesOptions = {}): Promise<Delivery[]> {
    return (await this.#work()).list(filter);
  }

  /**
   * One delivery with its attempt log, or undefined.
   * @example
   * const d = await deliverer.get('dlv_…')
   * d?.attempts.at(-1)?.status
   */
  async get(id: string): Promise<Delivery | undefined> {
    return (await this.#work()).get(id);
  }

  /**
   * Schedule a delivery again, now. A dead-lettered one starts a fresh cycle of `maxAttempts`; its
   * attempt log is kept. A pending or retrying one is simply made due now.
   * @throws NOT_FOUND for an unknown id; CONFLICT for a delivery already delivered.
   * @example
   * for (const d of await deliverer.list({ state: 'dead_letter' })) await deliverer.retry(d.id)
   */
  async retry(id: string): Promise<Delivery> {
    return (await this.#work()).retry(id);
  }

  /** The delivery loop, its module loaded on the first call. */
  #work(): Promise<DeliveryLoop> {
    this.#loading ??= operations().then((m) => (this.#loop = new m.DeliveryLoop(this.#settings)));
    return this.#loading;
  }
}

// ---------------------------------------------------------------------------------------------------

function newDeliveryId(now: number): string {
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  return 'dlv_' + time + randomHex(10);
}

function checkUrl(value: unknown): string {
  if (typeof value !== 'string') throw invalid('subscription.url must be a string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`subscription.url is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(`subscription.url must be http: or https:, not ${url.protocol}`);
  // fetch refuses URLs with credentials, so accepting one would only fail later, on every attempt.
  if (url.username !== '' || url.password !== '') throw invalid('subscription.url must not contain credentials');
  return url.href;
}

function nonEmpty(name: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${name} must be a non-empty string`);
}
