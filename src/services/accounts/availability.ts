/**
 * Measured availability for the status page. Every serving instance (each `serve` process, each worker of
 * `serve --workers N`) runs a {@link Heartbeat}: every 10 s it writes to the store it serves from. A minute
 * counts as up when at least one instance wrote a heartbeat in it; {@link readAvailability} gives the share of
 * up minutes over the last 24 hours and 30 days, counted from the first heartbeat the store holds (the windows
 * never reach back before the service existed), beside the availability targets of the plans.
 *
 * What it measures is that some instance was running and could write to its store. It is not an end-to-end
 * probe: it cannot see DNS, the network, TLS or a load balancer keeping clients away, nor requests that failed or
 * were slow while an instance ran (those are the status page's incidents and 5xx counts). A minute with one
 * heartbeat counts as a whole minute up. With the memory store the record lives and dies with the process.
 *
 * Records, all ordinary store records under `availability/` (so every store keeps them), bounded:
 * - `availability/since`: epoch ms of the first heartbeat (one record);
 * - `availability/day/<YYYY-MM-DD>`: 180 bytes, bit m set when an instance heartbeated in minute m of that UTC
 *   day; the last {@link RETAINED_DAYS} days are kept, older ones are pruned;
 * - `availability/instance/<id>`: `{ instance_id, started_at, last_seen, stopped_at, interval_ms }`, pruned a
 *   day after it was last seen.
 */
import { TrainprintError } from '../../errors.js';
import { codeUnitOrder as cmp } from '../../util/sorted.js';
import { randomHex } from '../../util/validate.js';
import type { Store, Transaction } from '../../store/types.js';
import type { Plan } from './plans.js';

/**
 * How often an instance writes its heartbeat, in ms.
 * @example new Heartbeat(store, { intervalMs: HEARTBEAT_INTERVAL_MS })
 */
export const HEARTBEAT_INTERVAL_MS = 10_000;
/**
 * Days of minute records kept: the 30-day window plus the day it starts in.
 * @example RETAINED_DAYS // 31
 */
export const RETAINED_DAYS = 31;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const MINUTES_PER_DAY = 1440;
const DAY_BYTES = MINUTES_PER_DAY / 8;
const SINCE_KEY = 'availability/since';
const DAY_PREFIX = 'availability/day/';
const INSTANCE_PREFIX = 'availability/instance/';
/** An instance record is kept this long after its last heartbeat (the page lists the last day's instances). */
const INSTANCE_KEPT_MS = DAY_MS;
/** Pruning runs with at most one heartbeat an hour per instance: it scans, the other heartbeats do not. */
const PRUNE_EVERY_MS = 3_600_000;
/** Instances listed on the page, most recently seen first. */
const MAX_LISTED = 20;
/** An instance is live while its last heartbeat is at most this many intervals old. */
const LIVE_INTERVALS = 3;

/** What {@link readAvailability} says it measures, and what it cannot see (shown on the page and in JSON). */
export const AVAILABILITY_MEASURES =
  'Share of minutes in which at least one instance of the service wrote its ' +
  'heartbeat (every 10 s) to the store, counted from the first heartbeat the store holds. It shows that an ' +
  'instance was running and could write to its store; it is not an end-to-end probe and cannot see DNS, network, ' +
  'TLS or load-balancer failures between clients and the service, nor requests that failed or were slow while an ' +
  'instance ran (see incidents). A minute with one heartbeat counts as up.';

/** One instance's heartbeat record. */
export interface InstanceRecord {
  readonly instance_id: string;
  readonly started_at: string;
  readonly last_seen: string;
  /** Set by a clean stop; null while it runs or after it died. */
  readonly stopped_at: string | null;
  readonly interval_ms: number;
}

/**
 * Options of {@link Heartbeat}.
 * @example new Heartbeat(engine.store, { now: () => clock, intervalMs: 10_000 })
 */
export interface HeartbeatOptions {
  /** Clock in epoch ms. @default Date.now */
  readonly now?: () => number;
  /** @default HEARTBEAT_INTERVAL_MS (10 s) */
  readonly intervalMs?: number;
  /** @default `ins_` + 16 random hex digits */
  readonly instanceId?: string;
  /** A heartbeat that could not be written (the store is down: that minute counts as down). @default ignored */
  readonly onError?: (error: unknown) => void;
}

/**
 * One instance's heartbeat: {@link start} writes one now and then every interval; {@link stop} ends it and marks
 * the instance stopped. Each heartbeat is one store transaction: the minute's bit, the instance record, and (at
 * most hourly) the pruning of what is past keeping.
 *
 * @throws INVALID_OPTIONS (constructor) for an interval outside 1 s..60 s or an empty instance id.
 * @example
 * const heartbeat = new Heartbeat(engine.store)
 * await heartbeat.start()
 * // …on shutdown
 * await heartbeat.stop()
 */
export class Heartbeat {
  /** This instance's id, in its store record. */
  readonly instanceId: string;
  readonly #store: Store;
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  #startedAt: number | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #pending: Promise<void> | null = null;
  #lastPrune = Number.NEGATIVE_INFINITY;

  constructor(store: Store, options: HeartbeatOptions = {}) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
    const interval = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
    // a minute must see at least one heartbeat of a running instance
    if (!Number.isInteger(interval) || interval < 1000 || interval > MINUTE_MS) {
      throw new TrainprintError('INVALID_OPTIONS', 'intervalMs must be an integer in 1000..60000');
    }
    this.#intervalMs = interval;
    const id = options.instanceId ?? `ins_${randomHex(8)}`;
    if (typeof id !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(id)) {
      throw new TrainprintError('INVALID_OPTIONS', 'instanceId must be 1–64 visible ASCII characters');
    }
    this.instanceId = id;
    this.#onError = options.onError ?? (() => {});
  }

  /**
   * Write a heartbeat now and every interval after (the timer is unref'd: it never keeps a process alive).
   * Resolves once the first one is written, or failed (that goes to `onError`, like every later failure).
   * @throws CONFLICT when already started.
   * @example await heartbeat.start()
   */
  start(): Promise<void> {
    if (this.#timer !== undefined) throw new TrainprintError('CONFLICT', 'the heartbeat is already started');
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
    this.#tick();
    return this.#pending ?? Promise.resolve();
  }

  /**
   * Write one heartbeat now (what the timer does): the current minute's bit, this instance's record and, at
   * most hourly, the pruning.
   * @example await heartbeat.beat()
   */
  async beat(): Promise<void> {
    const now = this.#now();
    this.#startedAt ??= now;
    const prune = now - this.#lastPrune >= PRUNE_EVERY_MS;
    await this.#store.transaction(async (tx) => {
      const since = await tx.get(SINCE_KEY);
      if (typeof since !== 'number' || since > now) tx.put(SINCE_KEY, now);
      await markMinute(tx, now);
      tx.put(INSTANCE_PREFIX + this.instanceId, this.#record(now, null));
      if (prune) await pruneIn(tx, now);
    });
    if (prune) this.#lastPrune = now;
  }

  /**
   * Stop the timer, wait for a heartbeat in flight, and mark the instance stopped (so the page does not list it
   * as live until its heartbeats go stale). Safe to call when not started.
   * @example await heartbeat.stop()
   */
  async stop(): Promise<void> {
    const started = this.#timer !== undefined;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pending;
    if (!started || this.#startedAt === null) return;
    const now = this.#now();
    await this.#store.put(INSTANCE_PREFIX + this.instanceId, this.#record(now, now)).catch(this.#onError);
  }

  /** A timer tick: skipped while the last heartbeat is still being written (a slow store does not pile them up). */
  #tick(): void {
    if (this.#pending) return;
    this.#pending = this.beat()
      .catch(this.#onError)
      .finally(() => {
        this.#pending = null;
      });
  }

  #record(now: number, stoppedAt: number | null): InstanceRecord {
    return {
      instance_id: this.instanceId,
      started_at: new Date(this.#startedAt ?? now).toISOString(),
      last_seen: new Date(now).toISOString(),
      stopped_at: stoppedAt === null ? null : new Date(stoppedAt).toISOString(),
      interval_ms: this.#intervalMs,
    };
  }
}

/** One window of {@link AvailabilityReport}. */
export interface AvailabilityWindow {
  /** Start of the minutes counted: the window's start, or the first heartbeat when later; null when none. */
  readonly since: string | null;
  /**
   * Minutes counted (at most the window's): those since `since`, ending with the current one once it has a
   * heartbeat, else with the one before it.
   */
  readonly minutes: number;
  /** Of those, the minutes in which at least one instance heartbeated. */
  readonly minutes_up: number;
  /** 100 · minutes_up / minutes, rounded down to 4 decimals; null when no minute is counted yet. */
  readonly percent: number | null;
}

/**
 * The measured availability, as `GET /api/v1/status` shows it under `availability`.
 * @example
 * const { availability } = await (await fetch(`${url}/api/v1/status`)).json()
 * availability.last_30d.percent // 99.9977
 */
export interface AvailabilityReport {
  /** What is measured and what it cannot see ({@link AVAILABILITY_MEASURES}). */
  readonly measures: string;
  readonly heartbeat_interval_seconds: number;
  readonly last_24h: AvailabilityWindow;
  readonly last_30d: AvailabilityWindow;
  /** The plans' availability targets, each compared with both windows (null: nothing measured yet). */
  readonly targets: ReadonlyArray<{
    readonly plan: string;
    readonly percent: number;
    readonly met_24h: boolean | null;
    readonly met_30d: boolean | null;
  }>;
  /** Instances seen in the last 24 hours, most recently seen first, then by id (at most 20). */
  readonly instances: ReadonlyArray<{
    readonly instance_id: string;
    readonly started_at: string;
    readonly last_seen: string;
    readonly live: boolean;
  }>;
  /** Why the heartbeats could not be read (the store failed); null when they were. */
  readonly error: string | null;
}

/**
 * Availability over the last 24 hours and 30 days from the heartbeats in `store`, with the targets of `plans`
 * (those with an `availability`). A target is met when the measured share is at least the target, exactly.
 *
 * @example
 * const report = await readAvailability(engine.store, { now: Date.now(), plans: PLANS })
 * report.targets.find((t) => t.plan === 'pro') // { plan: 'pro', percent: 99.9, met_24h: true, met_30d: true }
 */
export async function readAvailability(
  store: Store,
  options: { readonly now: number; readonly plans?: Readonly<Record<string, Plan>> },
): Promise<AvailabilityReport> {
  const { now } = options;
  const current = Math.floor(now / MINUTE_MS);
  const sinceValue = await store.get(SINCE_KEY);
  const first = typeof sinceValue === 'number' ? Math.floor(sinceValue / MINUTE_MS) : null;
  const days = new Map<number, Uint8Array>();
  for (const [key, value] of await store.scan(DAY_PREFIX)) {
    const day = Date.parse(`${key.slice(DAY_PREFIX.length)}T00:00:00Z`);
    if (value instanceof Uint8Array && value.length === DAY_BYTES && Number.isFinite(day)) {
      days.set(day / MINUTE_MS / MINUTES_PER_DAY, value);
    }
  }
  const isUp = (minute: number): boolean => {
    const bits = days.get(Math.floor(minute / MINUTES_PER_DAY));
    const m = minute - Math.floor(minute / MINUTES_PER_DAY) * MINUTES_PER_DAY;
    return bits !== undefined && (bits[m >> 3] & (1 << (m & 7))) !== 0;
  };
  // the window ends with the current minute once it has a heartbeat (a minute in progress is not down yet)
  const end = isUp(current) ? current + 1 : current;
  const window = (minutes: number) => measure(first === null ? null : Math.max(end - minutes, first), end, isUp);
  const last24h = window(MINUTES_PER_DAY);
  const last30d = window(30 * MINUTES_PER_DAY);
  const targets = Object.entries(options.plans ?? {})
    .filter(([, p]) => typeof p.availability === 'number')
    .map(([plan, p]) => ({
      plan,
      percent: p.availability as number,
      met_24h: meets(last24h, p.availability as number),
      met_30d: meets(last30d, p.availability as number),
    }));
  const instances = (await store.scan(INSTANCE_PREFIX))
    .map(([, v]) => v as InstanceRecord)
    .filter((r) => r && typeof r.last_seen === 'string' && now - Date.parse(r.last_seen) <= INSTANCE_KEPT_MS)
    .sort((a, b) => cmp(b.last_seen, a.last_seen) || cmp(a.instance_id, b.instance_id))
    .slice(0, MAX_LISTED)
    .map((r) => ({
      instance_id: r.instance_id,
      started_at: r.started_at,
      last_seen: r.last_seen,
      live: r.stopped_at === null && now - Date.parse(r.last_seen) <= LIVE_INTERVALS * (r.interval_ms || MINUTE_MS),
    }));
  return { ...base(), last_24h: last24h, last_30d: last30d, targets, instances, error: null };
}

/**
 * The report when the heartbeats cannot be read: nothing measured, the reason in `error`, the plans' targets
 * with nothing to compare them with.
 * @example unmeasuredAvailability('store: STORE_UNAVAILABLE', PLANS).last_30d.percent // null
 */
export function unmeasuredAvailability(error: string, plans: Readonly<Record<string, Plan>> = {}): AvailabilityReport {
  const none: AvailabilityWindow = { since: null, minutes: 0, minutes_up: 0, percent: null };
  const targets = Object.entries(plans)
    .filter(([, p]) => typeof p.availability === 'number')
    .map(([plan, p]) => ({ plan, percent: p.availability as number, met_24h: null, met_30d: null }));
  return { ...base(), last_24h: none, last_30d: none, targets, instances: [], error };
}

function base() {
  return { measures: AVAILABILITY_MEASURES, heartbeat_interval_seconds: HEARTBEAT_INTERVAL_MS / 1000 };
}

/** The minutes from `start` up to `end` (excluded), and how many of them had a heartbeat. */
function measure(start: number | null, end: number, isUp: (minute: number) => boolean): AvailabilityWindow {
  if (start === null || start >= end) return { since: null, minutes: 0, minutes_up: 0, percent: null };
  const minutes = end - start;
  let up = 0;
  for (let m = start; m < end; m++) if (isUp(m)) up++;
  // rounded down: a share just under a target never shows as the target
  const percent = Math.floor((up * 1e6) / minutes) / 1e4;
  return { since: new Date(start * MINUTE_MS).toISOString(), minutes, minutes_up: up, percent };
}

/** up / minutes ≥ target / 100, in integers (a target has at most 4 decimals). */
function meets(w: AvailabilityWindow, targetPercent: number): boolean | null {
  if (w.minutes === 0) return null;
  return w.minutes_up * 1_000_000 >= Math.round(targetPercent * 10_000) * w.minutes;
}

/** Set the bit of `now`'s minute in its day record, writing only when it was not set yet. */
async function markMinute(tx: Transaction, now: number): Promise<void> {
  const key = DAY_PREFIX + new Date(now).toISOString().slice(0, 10);
  const m = Math.floor((now % DAY_MS) / MINUTE_MS);
  const stored = await tx.get(key);
  const bits = stored instanceof Uint8Array && stored.length === DAY_BYTES ? stored : new Uint8Array(DAY_BYTES);
  if ((bits[m >> 3] & (1 << (m & 7))) !== 0) return;
  bits[m >> 3] |= 1 << (m & 7);
  tx.put(key, bits);
}

/** Drop the day records older than {@link RETAINED_DAYS} and the instances not seen for a day. */
async function pruneIn(tx: Transaction, now: number): Promise<void> {
  const oldest = DAY_PREFIX + new Date(now - (RETAINED_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  for (const [key] of await tx.scan(DAY_PREFIX)) {
    if (key >= oldest) break;
    tx.delete(key);
  }
  for (const [key, value] of await tx.scan(INSTANCE_PREFIX)) {
    const seen = Date.parse(String((value as Partial<InstanceRecord> | null)?.last_seen));
    if (!(now - seen <= INSTANCE_KEPT_MS)) tx.delete(key);
  }
}
