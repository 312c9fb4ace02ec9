/**
 * Plans and call limits. Every authenticated call is charged to its account in a daily window in
 * UTC (00:00–24:00); a call over the plan's limit is refused with 429 and `Retry-After`. Every
 * authenticated response carries the IETF draft headers (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds to the window's end) and
 * `RateLimit-Policy: <limit>;w=86400`.
 *
 * Counting is exact under concurrency: a {@link CounterStore} increments *only if below the
 * limit* in one atomic step, so 150 parallel calls on a 100/day key give exactly 100 successes.
 * The in-memory default does the check and the increment in one synchronous step (JavaScript runs
 * it without interleaving); {@link StoreCounterStore} does it with the store's atomic `increment`,
 * durable with the file store and shared by every process on one PostgreSQL store. Another shared
 * counter (Redis `INCR` with a Lua check) implements the same two methods.
 */
import { TrainprintError } from '../../errors.js';
import { ANALYZE_MAX_FILE_BYTES } from '../analyze/files.js';
import type { Store } from '../../store/types.js';
import type { Principal } from './scopes.js';

/**
 * A plan: calls per UTC day, or `null` for no limit; optionally the availability it promises.
 * @example createHandler(engine, { plans: { startup: { daily: 2_000, availability: 99.5 } } })
 */
export interface Plan {
  readonly daily: number | null;
  /**
   * Availability target in percent (e.g. 99.9), shown on the status page beside the measured availability.
   * Absent or null: the plan promises none.
   */
  readonly availability?: number | null;
  /**
   * What an account may keep of its own reference datasets (`POST /api/v1/datasets`, `…/import`, `…/documents`):
   * how many, and how many bytes of document text in all (each dataset's `bytes`; the server holds about 2–3 times
   * that in memory with the index). null: no cap. Absent: none either.
   */
  readonly datasets?: { readonly count: number | null; readonly bytes: number | null };
  /**
   * The largest file (EPUB, PDF, DOCX, or a text file in a multipart upload) one request may carry, in bytes: what
   * analyze, register and score take (its decoded size when it comes in base64, which makes the JSON body a third
   * larger), at most {@link MAX_PLAN_FILE_BYTES}. Absent: {@link ANALYZE_MAX_FILE_BYTES}, the library's default.
   */
  readonly fileBytes?: number;
  /**
   * The most items one catalogue job may hold (`POST /api/v1/jobs`), at most {@link MAX_PLAN_JOB_ITEMS}; a job's items
   * also count against `daily`, one call each. Absent: {@link DEFAULT_JOB_ITEMS}.
   */
  readonly jobItems?: number;
  /**
   * Uploads one account may have in flight at once — requests whose body is 1 MiB or more, has no declared length,
   * or is a multipart form on a route that takes files — from 1 to {@link MAX_PLAN_UPLOADS}. One more waits, its
   * body unread, until one of them ends (a few wait at most, for a bounded time), else 429 `RATE_LIMITED` naming this
   * limit. Absent: {@link DEFAULT_UPLOADS}.
   */
  readonly uploads?: number;
}

const MIB = 1024 * 1024;

/**
 * The most a plan may set as its `uploads`: 64 at once (the service reads 4 large bodies at once in all, and keeps 16
 * more waiting: more in flight for one account only waits longer).
 * @example createHandler(engine, { plans: { archive: { daily: null, uploads: MAX_PLAN_UPLOADS } } })
 */
export const MAX_PLAN_UPLOADS = 64;
/**
 * The uploads at once of a plan that sets no `uploads`: 4 (Pro's).
 * @example planUploads({ daily: 5 }) // 4
 */
export const DEFAULT_UPLOADS = 4;

/**
 * The most a plan may set as its `jobItems`: 1,000,000 items in one job.
 * @example createHandler(engine, { plans: { archive: { daily: null, jobItems: MAX_PLAN_JOB_ITEMS } } })
 */
export const MAX_PLAN_JOB_ITEMS = 1_000_000;
/**
 * The items per job of a plan that sets no `jobItems`: 100 (Free's).
 * @example planJobItems({ daily: 5 }) // 100
 */
export const DEFAULT_JOB_ITEMS = 100;

/**
 * The most a plan may set as its `fileBytes`: 256 MiB. In base64 that is a JSON body of 341 MiB, held as one string
 * while it is parsed (V8 strings stop at 512 MiB), and extraction holds a few copies of a file as it reads it.
 * @example createHandler(engine, { plans: { archive: { daily: 1_000, fileBytes: MAX_PLAN_FILE_BYTES } } })
 */
export const MAX_PLAN_FILE_BYTES = 256 * MIB;

/**
 * Built-in plans: Free 100 calls/day, Pro 10,000, Scale 1,000,000; Enterprise has no limit by
 * default (contracts set their own: pass `plans: { enterprise: { daily: 5_000_000, availability: 99.99 } }` or a
 * plan of any other name to `createHandler`). Availability targets: Pro 99.9 %, Enterprise 99.99 %. An account's own
 * reference datasets: Free 2 of 10 MiB of text in all, Pro 20 of 250 MiB, Scale 100 of 2 GiB, Enterprise no cap. The
 * largest file a request may carry (`fileBytes`): Free 8 MiB, Pro 32 MiB, Scale and Enterprise 64 MiB (the default
 * limit of document extraction; a contract may set up to 256 MiB). Items per catalogue job (`jobItems`): Free 100, Pro
 * 10,000, Scale and Enterprise 100,000 (a contract may set up to 1,000,000). Uploads in flight at once (`uploads`):
 * Free 2, Pro 4, Scale and Enterprise 8 (a contract may set up to 64).
 *
 * @example
 * PLANS.pro.daily // 10000
 * PLANS.enterprise.availability // 99.99
 * PLANS.free.fileBytes // 8388608
 */
export const PLANS: Readonly<Record<string, Plan>> = Object.freeze({
  free: { daily: 100, datasets: { count: 2, bytes: 10 * MIB }, fileBytes: 8 * MIB, jobItems: 100, uploads: 2 },
  pro: {
    daily: 10_000,
    availability: 99.9,
    datasets: { count: 20, bytes: 250 * MIB },
    fileBytes: 32 * MIB,
    jobItems: 10_000,
    uploads: 4,
  },
  scale: {
    daily: 1_000_000,
    datasets: { count: 100, bytes: 2048 * MIB },
    fileBytes: 64 * MIB,
    jobItems: 100_000,
    uploads: 8,
  },
  enterprise: {
    daily: null,
    availability: 99.99,
    datasets: { count: null, bytes: null },
    fileBytes: 64 * MIB,
    jobItems: 100_000,
    uploads: 8,
  },
});

/**
 * The largest file a request on `plan` may carry, in bytes: its `fileBytes`, else the library's default
 * ({@link ANALYZE_MAX_FILE_BYTES}, also for a plan not known here).
 * @example planFileBytes(PLANS.free) // 8388608
 */
export function planFileBytes(plan: Plan | undefined): number {
  return plan?.fileBytes ?? ANALYZE_MAX_FILE_BYTES;
}

/**
 * The most items one catalogue job on `plan` may hold: its `jobItems`, else {@link DEFAULT_JOB_ITEMS}.
 * @example planJobItems(PLANS.pro) // 10000
 */
export function planJobItems(plan: Plan | undefined): number {
  return plan?.jobItems ?? DEFAULT_JOB_ITEMS;
}

/**
 * The uploads one account on `plan` may have in flight at once: its `uploads`, else {@link DEFAULT_UPLOADS}.
 * @example planUploads(PLANS.free) // 2
 */
export function planUploads(plan: Plan | undefined): number {
  return plan?.uploads ?? DEFAULT_UPLOADS;
}

/**
 * Length of the window in seconds (one UTC day).
 * @example `RateLimit-Policy: 100;w=${WINDOW_SECONDS}`
 */
export const WINDOW_SECONDS = 86_400;

/**
 * Where calls are counted. Both methods must be atomic with respect to each other.
 *
 * @example
 * const counters: CounterStore = new MemoryCounterStore()
 * await counters.take('acme/2026-03-01', 100, Date.parse('2026-03-02')) // { allowed: true, count: 1 }
 */
export interface CounterStore {
  /**
   * If the count of `key` plus `by` (default 1: one call; a catalogue job's items reserve all at once) stays within
   * `limit`, add `by`. Returns whether it did and the count after the call. `expiresAt` (ms) says when the counter
   * may be forgotten. A counter store written before `by` existed counts one whatever `by` is: give jobs one that
   * honours it.
   */
  take(key: string, limit: number, expiresAt: number, by?: number): Promise<{ allowed: boolean; count: number }>;
  /** The count of `key` (0 when none). */
  peek(key: string): Promise<number>;
  /**
   * Takes `by` off the count of `key`, never below 0: units charged for work not done (an extract or audit item's
   * calls not made). Optional: a counter store without it gives nothing back.
   */
  giveBack?(key: string, by: number): Promise<void>;
}

/**
 * Counters in this process's memory (the default): exact under any concurrency within the
 * process, lost on restart, not shared between processes.
 *
 * @example
 * createHandler(engine, { counters: new MemoryCounterStore() })
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();
  private takes = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async take(key: string, limit: number, expiresAt: number, by = 1): Promise<{ allowed: boolean; count: number }> {
    // no await between the read and the write: this block is atomic
    if (++this.takes % 1024 === 0) this.prune();
    const c = this.counts.get(key);
    const count = c && c.expiresAt > this.clock() ? c.count : 0;
    if (count + by > limit) return { allowed: false, count };
    this.counts.set(key, { count: count + by, expiresAt });
    return { allowed: true, count: count + by };
  }

  async peek(key: string): Promise<number> {
    const c = this.counts.get(key);
    return c && c.expiresAt > this.clock() ? c.count : 0;
  }

  async giveBack(key: string, by: number): Promise<void> {
    const c = this.counts.get(key);
    if (c && c.expiresAt > this.clock()) c.count = Math.max(0, c.count - by);
  }

  private prune(): void {
    const now = this.clock();
    for (const [k, c] of this.counts) if (c.expiresAt <= now) this.counts.delete(k);
  }
}

/**
 * Counters in a {@link Store} (`http/usage/<account>/<YYYY-MM-DD>`): exact and durable, at one store
 * write per call. With a store that has {@link Store.increment} (all of trainprint's) the check and
 * the increment are that one atomic step — one SQL statement in the PostgreSQL store, so several
 * server processes on one database count together; otherwise a transaction. Past days stay as a
 * usage history.
 *
 * @example
 * createHandler(engine, { counters: new StoreCounterStore(engine.store) })
 */
export class StoreCounterStore implements CounterStore {
  constructor(private readonly store: Store) {}

  async take(key: string, limit: number, _expiresAt?: number, by = 1): Promise<{ allowed: boolean; count: number }> {
    const at = `http/usage/${key}`;
    if (this.store.increment) {
      const r = await this.store.increment(at, by, Number.isFinite(limit) ? limit : undefined);
      return { allowed: r.applied, count: r.value };
    }
    return this.store.transaction(async (tx) => {
      const v = await tx.get(at);
      const count = typeof v === 'number' ? v : 0;
      if (count + by > limit) return { allowed: false, count };
      tx.put(at, count + by);
      return { allowed: true, count: count + by };
    });
  }

  async peek(key: string): Promise<number> {
    const v = await this.store.get(`http/usage/${key}`);
    return typeof v === 'number' ? v : 0;
  }

  async giveBack(key: string, by: number): Promise<void> {
    const at = `http/usage/${key}`;
    await this.store.transaction(async (tx) => {
      const v = await tx.get(at);
      if (typeof v === 'number' && v > 0) tx.put(at, Math.max(0, v - by));
    });
  }
}

/**
 * The UTC day containing `nowMs`: its id (`YYYY-MM-DD`) and bounds in ms.
 * @example utcDay(Date.parse('2026-03-01T23:59:59Z')).id // '2026-03-01'
 */
export function utcDay(nowMs: number): { id: string; start: number; end: number } {
  const start = Math.floor(nowMs / 86_400_000) * 86_400_000;
  return { id: new Date(start).toISOString().slice(0, 10), start, end: start + 86_400_000 };
}

/**
 * An account's position in its window after (or without) a call.
 * @example
 * const s: RateState = await limiter.peek(principal)
 * s.remaining // calls left today (null: no limit)
 */
export interface RateState {
  readonly account: string;
  readonly plan: string;
  /** Calls per window; `null`: no limit. */
  readonly limit: number | null;
  /** Calls counted in the window. */
  readonly used: number;
  /** Calls left; `null`: no limit. */
  readonly remaining: number | null;
  /** Whether this call was admitted (`peek`: whether one more would be). */
  readonly allowed: boolean;
  /** End of the window (ms since the epoch). */
  readonly resetAt: number;
  /** Seconds from now to `resetAt`, at least 1. */
  readonly resetSeconds: number;
}

/**
 * Charges calls to accounts against their plans.
 *
 * @example
 * const limiter = new RateLimiter({ plans: PLANS, counters: new MemoryCounterStore(), now: Date.now })
 * const s = await limiter.take(principal)
 * if (!s.allowed) return tooManyRequests(s)
 */
export class RateLimiter {
  private readonly plans: Readonly<Record<string, Plan>>;
  private readonly counters: CounterStore;
  private readonly now: () => number;

  constructor(options: { plans: Readonly<Record<string, Plan>>; counters: CounterStore; now: () => number }) {
    for (const [name, p] of Object.entries(options.plans)) {
      if (p === null || typeof p !== 'object' || (p.daily !== null && (!Number.isInteger(p.daily) || p.daily < 0))) {
        throw new TrainprintError('INVALID_OPTIONS', `plans.${name}.daily must be a non-negative integer or null`);
      }
      const a = p.availability;
      // four decimals at most: the status page compares counts of minutes with the target exactly
      const fourDecimals = typeof a === 'number' && Math.abs(a * 1e4 - Math.round(a * 1e4)) < 1e-6;
      if (a !== undefined && a !== null && !(fourDecimals && (a as number) > 0 && (a as number) <= 100)) {
        const why = 'must be a percentage in (0, 100] with at most 4 decimals, or null';
        throw new TrainprintError('INVALID_OPTIONS', `plans.${name}.availability ${why}`);
      }
      const d = p.datasets;
      const cap = (v: unknown) => v === null || (Number.isSafeInteger(v) && (v as number) >= 0);
      if (d !== undefined && (d === null || typeof d !== 'object' || !cap(d.count) || !cap(d.bytes))) {
        throw new TrainprintError(
          'INVALID_OPTIONS',
          `plans.${name}.datasets must be { count, bytes }, each a non-negative integer or null`,
        );
      }
      const j = p.jobItems;
      if (j !== undefined && !(Number.isSafeInteger(j) && j >= 1 && j <= MAX_PLAN_JOB_ITEMS)) {
        throw new TrainprintError(
          'INVALID_OPTIONS',
          `plans.${name}.jobItems must be a whole number of items from 1 to ${MAX_PLAN_JOB_ITEMS}`,
        );
      }
      const u = p.uploads;
      if (u !== undefined && !(Number.isSafeInteger(u) && u >= 1 && u <= MAX_PLAN_UPLOADS)) {
        throw new TrainprintError(
          'INVALID_OPTIONS',
          `plans.${name}.uploads must be a whole number of uploads at once from 1 to ${MAX_PLAN_UPLOADS}`,
        );
      }
      const f = p.fileBytes;
      if (f !== undefined && !(Number.isSafeInteger(f) && f >= 1 && f <= MAX_PLAN_FILE_BYTES)) {
        throw new TrainprintError(
          'INVALID_OPTIONS',
          `plans.${name}.fileBytes must be a whole number of bytes from 1 to ${MAX_PLAN_FILE_BYTES} (256 MiB)`,
        );
      }
    }
    this.plans = options.plans;
    this.counters = options.counters;
    this.now = options.now;
  }

  /**
   * Charge one call, or `n` at once (a catalogue job's items), only if all of them are within the limit.
   * @throws FORBIDDEN when the principal's plan is not configured
   */
  async take(p: Principal, n = 1): Promise<RateState> {
    if (!Number.isSafeInteger(n) || n < 1) throw new TrainprintError('INVALID_INPUT', 'n must be a positive integer');
    const { limit, day, now } = this.window(p);
    const key = `${p.account}/${day.id}`;
    const r = await this.counters.take(key, limit ?? Number.POSITIVE_INFINITY, day.end, n);
    return this.state(p, limit, r.count, r.allowed, day.end, now);
  }

  /**
   * Gives `n` units back to `account`, charged at `chargedAt` (ms) for work not done — only within the UTC day of the
   * charge (a later day's calls are not paid with an earlier day's charge).
   * @example await limiter.giveBack('acme', 13, job.created)
   */
  async giveBack(account: string, n: number, chargedAt: number): Promise<void> {
    const day = utcDay(chargedAt);
    if (!(Number.isSafeInteger(n) && n > 0) || utcDay(this.now()).id !== day.id) return;
    await this.counters.giveBack?.(`${account}/${day.id}`, n);
  }

  /** The current state, without charging. @throws FORBIDDEN when the plan is not configured */
  async peek(p: Principal): Promise<RateState> {
    const { limit, day, now } = this.window(p);
    const used = await this.counters.peek(`${p.account}/${day.id}`);
    return this.state(p, limit, used, limit === null || used < limit, day.end, now);
  }

  private window(p: Principal) {
    const plan = Object.hasOwn(this.plans, p.plan) ? this.plans[p.plan] : undefined;
    if (!plan) throw new TrainprintError('FORBIDDEN', `plan "${p.plan}" is not configured on this server`);
    const now = this.now();
    return { limit: plan.daily, day: utcDay(now), now };
  }

  private state(
    p: Principal,
    limit: number | null,
    used: number,
    allowed: boolean,
    resetAt: number,
    now: number,
  ): RateState {
    return {
      account: p.account,
      plan: p.plan,
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      allowed,
      resetAt,
      resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
    };
  }
}
