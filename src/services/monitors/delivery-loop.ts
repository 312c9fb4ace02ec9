/**
 * The delivery loop of {@link WebhookDeliverer} (./webhook.ts): the runs that POST every due delivery, sign it, log
 * the attempt and schedule the retry; the leases that send each attempt from one process only; start, stop and
 * drain; the delivery log's reads and `retry`. Loaded with ./operations.ts on the deliverer's first run or read (a
 * file of its own in the package, dist/webhook-work.js), so a program that never delivers a webhook carries none of
 * it. Only `fetch`, `AbortController` and WebCrypto are used: Node ≥ 20, Deno and browsers alike.
 *
 * @example
 * const loop = new DeliveryLoop(settings) // settings: the deliverer's options, checked (./delivery-records.ts)
 * await loop.runDue()
 */
import type { Transaction } from '../../store/types.js';
import { TrainprintError, isTrainprintError } from '../../errors.js';
import { SIGNATURE_HEADER, signPayload } from './signature.js';
import { unrefTimer } from '../../util/timers.js';
import {
  DELIVERY_HEADER,
  DUE_PREFIX,
  EVENT_HEADER,
  RECORD_PREFIX,
  SECRET_UNAVAILABLE,
  STATES,
  WEBHOOK_USER_AGENT,
  dueKey,
  dueMsOfKey,
  intOption,
  invalid,
  isScheduled,
  numberOption,
  reschedule,
  type Delivery,
  type DeliveryAttempt,
  type DeliverySettings,
  type ListDeliveriesOptions,
  type Mutable,
} from './delivery-records.js';

type Outcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly retryAfterMs?: number }
  | { readonly kind: 'dead' };

/**
 * `delivery-lease/<id>` → { until, by }: the runner sending an attempt now. Several processes on one
 * store (PostgreSQL) each run their deliverer; the lease, taken in a transaction before the request
 * and removed with its result (or released when stop() cuts the request off), makes each attempt go
 * out from one of them only. It lapses after the request timeout plus a margin (`leaseMarginMs`, 30 s
 * by default), so an attempt of a runner that died is made again by another.
 */
const LEASE_PREFIX = 'delivery-lease/';
/** Abort reason of a request cut off by {@link WebhookDeliverer.stop}: its lease is handed back, no attempt logged. */
const HANDED_BACK = Object.freeze({ reason: 'handed back at stop' });
const DUE_PAGE = 256;

/** The running half of a {@link WebhookDeliverer}: its runs, loop and log, on the settings the deliverer checked. */
export class DeliveryLoop {
  readonly #store: DeliverySettings['store'];
  readonly #fetch: typeof fetch;
  readonly #maxAttempts: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #timeoutMs: number;
  readonly #leaseMarginMs: number;
  readonly #concurrency: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #resolveSecret?: (subscriptionId: string) => Promise<string | undefined>;
  readonly #onError: (error: unknown) => void;
  /** Secrets of subscriptions seen by `enqueue` in this process (the deliverer's map); never persisted. */
  readonly #secrets: Map<string, string>;
  /** Tail of the chain that serialises runs, so two runs never send the same delivery twice. */
  #tail: Promise<unknown> = Promise.resolve();
  #running = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** While started: the wake-up for the earliest scheduled attempt, and its generation (stale ones do nothing). */
  #dueTimer: ReturnType<typeof setTimeout> | undefined;
  #dueToken = 0;
  readonly #customSleep: boolean;
  /** Requests sent by the last run: 0 means what is due cannot progress now (e.g. no secret yet). */
  #lastRunSent = 0;
  /** Names this deliverer in the leases it takes (for people reading the store). */
  readonly #runner = `run_${Math.random().toString(36).slice(2, 12)}`;
  /** Calls of stop() under way: while any is, runs start no new attempt. */
  #stopping = 0;
  /** The requests in flight, aborted with {@link HANDED_BACK} when a stop's grace ends. */
  readonly #inFlight = new Set<AbortController>();

  constructor(settings: DeliverySettings) {
    this.#store = settings.store;
    this.#fetch = settings.fetch;
    this.#maxAttempts = settings.maxAttempts;
    this.#baseDelayMs = settings.baseDelayMs;
    this.#maxDelayMs = settings.maxDelayMs;
    this.#timeoutMs = settings.timeoutMs;
    this.#leaseMarginMs = settings.leaseMarginMs;
    this.#concurrency = settings.concurrency;
    this.#now = settings.now;
    this.#sleep = settings.sleep;
    this.#customSleep = settings.customSleep;
    this.#random = settings.random;
    this.#resolveSecret = settings.resolveSecret;
    this.#onError = settings.onError;
    this.#secrets = settings.secrets;
  }

  /**
   * Attempt every delivery whose `next_attempt_at` ≤ now, `concurrency` at a time. Runs are serialised:
   * a call made while another run is in flight starts after it.
   * @returns How many requests were sent (deliveries waiting for a secret are not counted).
   * @example
   * const sent = await deliverer.runDue()
   */
  runDue(): Promise<number> {
    const run = this.#tail.then(() => this.#runDueNow());
    this.#tail = run.catch(() => {});
    this.#running++;
    void run
      .finally(() => {
        this.#running--;
        this.armDue(true);
      })
      .catch(() => {});
    return run;
  }

  /**
   * Call {@link runDue} every `intervalMs` (the first run starts at once), and in between at the due time
   * of the earliest scheduled attempt, so retries keep to their backoff (and a receiver's Retry-After)
   * whatever the interval. A tick is skipped while a run is still going, so runs never overlap. The
   * timers are unref'd where the runtime allows, so an idle deliverer does not keep a Node or Deno
   * process alive. A closed store stops the loop.
   * @throws CONFLICT when already started; INVALID_OPTIONS for a non-positive interval.
   * @example
   * deliverer.start(1000)
   */
  start(intervalMs: number): void {
    if (this.#timer !== undefined) throw new TrainprintError('CONFLICT', 'the deliverer is already started');
    if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs <= 0) {
      throw new TrainprintError('INVALID_OPTIONS', 'intervalMs must be a positive number');
    }
    this.#timer = setInterval(() => this.#tick(), intervalMs);
    unrefTimer(this.#timer);
    this.#tick();
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
    const graceMs = numberOption('graceMs', options.graceMs, this.#timeoutMs);
    this.#clearTimer();
    this.#stopping++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const tail = this.#tail;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), graceMs);
      });
      if ((await Promise.race([tail.then(() => 'done' as const), late])) === 'late') {
        for (const request of this.#inFlight) request.abort(HANDED_BACK);
        await tail;
      }
    } finally {
      clearTimeout(timer);
      this.#stopping--;
    }
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
    const maxRuns = intOption('maxRuns', options.maxRuns, 1000, 1);
    let total = 0;
    for (let run = 0; run < maxRuns; run++) {
      const sent = await this.runDue();
      total += sent;
      const next = await this.#nextDueMs();
      if (next === undefined) break;
      const wait = next - this.#now();
      if (wait <= 0) {
        if (sent === 0) break; // due but stuck (secret unavailable): sleeping would not help
        continue;
      }
      await this.#sleep(wait);
    }
    return total;
  }

  /**
   * Deliveries in creation order, optionally filtered.
   * @throws INVALID_INPUT (rejects) for an unknown state.
   * @example
   * const dead = await deliverer.list({ state: 'dead_letter' })
   */
  async list(filter: ListDeliveriesOptions = {}): Promise<Delivery[]> {
    if (filter.state !== undefined && !STATES.includes(filter.state))
      throw invalid(`unknown state ${String(filter.state)}`);
    const out: Delivery[] = [];
    for (const [, value] of await this.#store.scan(RECORD_PREFIX)) {
      const d = value as Delivery;
      if (filter.state !== undefined && d.state !== filter.state) continue;
      if (filter.subscription_id !== undefined && d.subscription_id !== filter.subscription_id) continue;
      out.push(d);
    }
    return out;
  }

  /**
   * One delivery with its attempt log, or undefined.
   * @example
   * const d = await deliverer.get('dlv_…')
   * d?.attempts.at(-1)?.status
   */
  async get(id: string): Promise<Delivery | undefined> {
    if (typeof id !== 'string') throw invalid('id must be a string');
    return (await this.#store.get(RECORD_PREFIX + id)) as Delivery | undefined;
  }

  /**
   * Schedule a delivery again, now. A dead-lettered one starts a fresh cycle of `maxAttempts`; its
   * attempt log is kept. A pending or retrying one is simply made due now.
   * @throws NOT_FOUND for an unknown id; CONFLICT for a delivery already delivered.
   * @example
   * for (const d of await deliverer.list({ state: 'dead_letter' })) await deliverer.retry(d.id)
   */
  async retry(id: string): Promise<Delivery> {
    if (typeof id !== 'string') throw invalid('id must be a string');
    return this.#store
      .transaction(async (tx) => {
        const current = (await tx.get(RECORD_PREFIX + id)) as Delivery | undefined;
        if (!current) throw new TrainprintError('NOT_FOUND', `delivery ${id}`);
        if (current.state === 'delivered')
          throw new TrainprintError('CONFLICT', `delivery ${id} was already delivered`);
        const now = this.#now();
        const next: Mutable<Delivery> = { ...current };
        if (current.state === 'dead_letter') {
          next.state = 'pending';
          next.cycle_start = current.attempts.length;
        }
        reschedule(tx, current, next, now);
        next.updated_at = new Date(now).toISOString();
        tx.put(RECORD_PREFIX + id, next);
        return next;
      })
      .then((next) => {
        this.armDue(false);
        return next;
      });
  }

  // ---------------------------------------------------------------------------------------------

  #clearTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#dueToken++; // a pending wake-up (timer or sleep) is now stale
    if (this.#dueTimer !== undefined) clearTimeout(this.#dueTimer);
    this.#dueTimer = undefined;
  }

  /** A run from the loop (interval tick or due wake-up); skipped while one is going (it re-arms when done). */
  #tick(): void {
    if (this.#running > 0) return;
    this.runDue().catch((error) => this.#loopError(error));
  }

  #loopError(error: unknown): void {
    if (isTrainprintError(error, 'STORE_CLOSED')) this.#clearTimer();
    this.#onError(error);
  }

  /**
   * While started, wake up when the earliest scheduled attempt is due. `afterRun`: re-armed by a run that
   * has just ended; when that run sent nothing and something is already due, it cannot progress (no
   * secret yet), so the interval retries it rather than a tight loop.
   */
  armDue(afterRun: boolean): void {
    if (this.#timer === undefined) return;
    const token = ++this.#dueToken;
    if (this.#dueTimer !== undefined) clearTimeout(this.#dueTimer);
    this.#dueTimer = undefined;
    const stuck = afterRun && this.#lastRunSent === 0;
    this.#nextDueMs().then(
      (next) => {
        if (next === undefined || token !== this.#dueToken) return;
        const wait = next - this.#now();
        if (wait <= 0 && stuck) return;
        const wake = () => {
          if (token !== this.#dueToken || this.#timer === undefined) return;
          if (this.#now() >= next) this.#tick();
          // A timer may fire a little early: wait again. A sleep that left the clock where it was (a
          // frozen fake clock) would loop for ever: the interval takes over instead.
          else if (!this.#customSleep) this.armDue(false);
        };
        if (this.#customSleep) {
          this.#sleep(Math.max(0, wait)).then(wake, (error: unknown) => this.#onError(error));
          return;
        }
        this.#dueTimer = setTimeout(wake, Math.min(Math.max(0, wait), MAX_TIMER_MS));
        unrefTimer(this.#dueTimer);
      },
      (error: unknown) => this.#loopError(error),
    );
  }

  async #runDueNow(): Promise<number> {
    this.#lastRunSent = 0;
    if (this.#stopping > 0) return 0;
    const due = await this.#dueIds(this.#now());
    let sent = 0;
    let cursor = 0;
    const worker = async () => {
      while (cursor < due.length && this.#stopping === 0) {
        const [key, id] = due[cursor++];
        if (await this.#attempt(key, id)) sent++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, due.length) }, worker));
    this.#lastRunSent = sent;
    return sent;
  }

  /** Index entries due at `now`, read page by page until the first one in the future. */
  async #dueIds(now: number): Promise<Array<[string, string]>> {
    const out: Array<[string, string]> = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.#store.scan(DUE_PREFIX, { after, limit: DUE_PAGE });
      for (const [key, id] of page) {
        if (dueMsOfKey(key) > now) return out;
        out.push([key, id as string]);
      }
      if (page.length < DUE_PAGE) return out;
      after = page[page.length - 1][0];
    }
  }

  async #nextDueMs(): Promise<number | undefined> {
    const [first] = await this.#store.scan(DUE_PREFIX, { limit: 1 });
    return first ? dueMsOfKey(first[0]) : undefined;
  }

  /** One attempt of one delivery. True when a request was sent. */
  async #attempt(indexKey: string, id: string): Promise<boolean> {
    const record = (await this.#store.get(RECORD_PREFIX + id)) as Delivery | undefined;
    if (!record || !isScheduled(record) || dueKey(Date.parse(record.next_attempt_at!), id) !== indexKey) {
      // The index entry outlived its record's schedule (e.g. retry() moved it): drop it.
      await this.#store.transaction(async (tx) => {
        const fresh = (await tx.get(RECORD_PREFIX + id)) as Delivery | undefined;
        if (!fresh || !isScheduled(fresh) || dueKey(Date.parse(fresh.next_attempt_at!), id) !== indexKey)
          tx.delete(indexKey);
      });
      return false;
    }

    const secret = await this.#secretFor(record.subscription_id);
    if (secret === undefined) {
      // Stay due, so the next run sends it as soon as a secret appears (enqueue or resolveSecret).
      if (record.last_error !== SECRET_UNAVAILABLE) {
        await this.#update(id, (_tx, current, next) => {
          if (!isScheduled(current)) return false;
          next.last_error = SECRET_UNAVAILABLE;
          return true;
        });
      }
      return false;
    }

    if (this.#stopping > 0) return false; // stopping: no new attempt
    if (!(await this.#lease(indexKey, id))) return false; // another runner is sending it, or sent it

    let sent: { attempt: DeliveryAttempt; outcome: Outcome } | null;
    try {
      sent = await this.#send(record, secret);
    } catch (error) {
      await this.#release(id).catch(() => {});
      throw error;
    }
    if (sent === null) {
      await this.#release(id); // cut off by stop(): due as it was, for any runner, now
      return false;
    }
    const { attempt, outcome } = sent;
    await this.#update(id, (tx, current, next) => {
      tx.delete(LEASE_PREFIX + id); // with the result: the next attempt may go from any runner
      next.attempts = [...current.attempts, attempt];
      const now = this.#now();
      if (attempt.error !== undefined) next.last_error = attempt.error;
      else if (outcome.kind !== 'delivered') next.last_error = `HTTP ${attempt.status}`;
      const inCycle = next.attempts.length - current.cycle_start;
      if (outcome.kind === 'delivered') {
        next.state = 'delivered';
        reschedule(tx, current, next, undefined);
      } else if (outcome.kind === 'dead' || inCycle >= this.#maxAttempts) {
        next.state = 'dead_letter';
        reschedule(tx, current, next, undefined);
      } else {
        next.state = 'failed_retrying';
        reschedule(tx, current, next, now + this.#delayMs(inCycle, outcome.retryAfterMs));
      }
      return true;
    });
    return true;
  }

  /**
   * Takes the lease of one attempt: true when the delivery is still due at `indexKey` and no other
   * runner holds a lease that has not lapsed.
   */
  async #lease(indexKey: string, id: string): Promise<boolean> {
    return this.#store.transaction(async (tx) => {
      const current = (await tx.get(RECORD_PREFIX + id)) as Delivery | undefined;
      const due = current && isScheduled(current) && dueKey(Date.parse(current.next_attempt_at!), id) === indexKey;
      if (!due) return false;
      const now = this.#now();
      const held = (await tx.get(LEASE_PREFIX + id)) as { until?: unknown } | undefined;
      if (held && typeof held.until === 'number' && held.until > now) return false;
      tx.put(LEASE_PREFIX + id, { until: now + this.#timeoutMs + this.#leaseMarginMs, by: this.#runner });
      return true;
    });
  }

  /** Remove this runner's lease of a delivery (a lease another runner took since is left alone). */
  async #release(id: string): Promise<void> {
    await this.#store.transaction(async (tx) => {
      const held = (await tx.get(LEASE_PREFIX + id)) as { by?: unknown } | undefined;
      if (held?.by === this.#runner) tx.delete(LEASE_PREFIX + id);
    });
  }

  /** Read-modify-write of one record inside a transaction; `change` returns false to write nothing. */
  async #update(
    id: string,
    change: (tx: Transaction, current: Delivery, next: Mutable<Delivery>) => boolean,
  ): Promise<void> {
    await this.#store.transaction(async (tx) => {
      const current = (await tx.get(RECORD_PREFIX + id)) as Delivery | undefined;
      if (!current) return; // deleted while the request was in flight
      const next: Mutable<Delivery> = { ...current };
      if (!change(tx, current, next)) return;
      next.updated_at = new Date(this.#now()).toISOString();
      tx.put(RECORD_PREFIX + id, next);
    });
  }

  async #secretFor(subscriptionId: string): Promise<string | undefined> {
    const known = this.#secrets.get(subscriptionId);
    if (known !== undefined) return known;
    if (!this.#resolveSecret) return undefined;
    try {
      const secret = await this.#resolveSecret(subscriptionId);
      return typeof secret === 'string' && secret.length > 0 ? secret : undefined;
    } catch (error) {
      this.#onError(error);
      return undefined;
    }
  }

  /** POST the body once; classify the answer, or null when stop() cut the request off. Never throws. */
  async #send(record: Delivery, secret: string): Promise<{ attempt: DeliveryAttempt; outcome: Outcome } | null> {
    const startedAt = this.#now();
    const started = performance.now();
    const at = new Date(startedAt).toISOString();
    const elapsed = () => Math.round(performance.now() - started);
    // in flight from here: a stop() whose grace ends while this signs makes the fetch below fail at once
    const controller = new AbortController();
    this.#inFlight.add(controller);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let response: Response;
    try {
      // Sign at send time, not at enqueue: a retry hours later must carry a timestamp inside the
      // receiver's replay window.
      const signature = await signPayload(secret, record.body, Math.floor(startedAt / 1000));
      timer = setTimeout(() => controller.abort(), this.#timeoutMs);
      response = await this.#fetch(record.url, {
        method: 'POST',
        body: record.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          [SIGNATURE_HEADER]: signature,
          [EVENT_HEADER]: record.event_type,
          [DELIVERY_HEADER]: record.id,
        },
        // A redirect could carry the signed payload to a host the subscriber never registered.
        redirect: 'manual',
        signal: controller.signal,
      });
    } catch (error) {
      if (controller.signal.reason === HANDED_BACK) return null;
      const message = controller.signal.aborted ? `timeout after ${this.#timeoutMs} ms` : networkError(error);
      return { attempt: { at, error: message, duration_ms: elapsed() }, outcome: { kind: 'retry' } };
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(controller);
    }
    // The answer's body is not used; cancel it so the connection is released now rather than at GC.
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    const duration_ms = elapsed();
    // Browsers report a manual redirect as an opaque response with status 0.
    if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
      return { attempt: { at, status, error: 'redirect not followed', duration_ms }, outcome: { kind: 'dead' } };
    }
    if (status >= 200 && status < 300) return { attempt: { at, status, duration_ms }, outcome: { kind: 'delivered' } };
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), this.#now());
      return {
        attempt: { at, status, duration_ms },
        outcome: retryAfterMs === undefined ? { kind: 'retry' } : { kind: 'retry', retryAfterMs },
      };
    }
    return { attempt: { at, status, duration_ms }, outcome: { kind: 'dead' } };
  }

  /** Wait before the next attempt after `failures` failures in this cycle. */
  #delayMs(failures: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(this.#maxDelayMs, retryAfterMs);
    const ceiling = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** (failures - 1));
    return Math.floor(this.#random() * ceiling);
  }
}

/** Longest delay a timer takes (setTimeout fires at once beyond 2^31 − 1 ms); a later wake-up re-arms. */
const MAX_TIMER_MS = 0x7fffffff;

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from `now`. */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function networkError(error: unknown): string {
  // Node's fetch says only "fetch failed"; the useful part (ECONNREFUSED, ENOTFOUND…) is in the cause.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail = cause?.code ?? cause?.message ?? (error as { message?: unknown } | undefined)?.message ?? error;
  return `network error: ${String(detail)}`;
}
