/**
 * How long stored analyses stay: a time to live (default 30 days) and a cap per owner (default
 * 10,000; the HTTP service's owner is the account), so the store does not grow with every call.
 *
 * Layout beside `analysis/<id>`:
 *   `analysis-due/<expires ISO>/<id>`             → { id, owner_key, extra }: what to delete at expiry
 *   `analysis-owner/<owner>/<created ISO>/<n>/<id>` → the due key (oldest first: what the cap drops; n orders
 *                                                  the analyses of one service made in the same millisecond)
 *   `analysis-owner-count/<owner>`                → how many the owner has
 * (owner percent-encoded, so `a/b` never falls under the prefix of `a`). The first two are written in the
 * analysis's own batch, the count after it ({@link retainAfter}). Expired analyses are deleted by later
 * analyses, in batches of transactions at most once a second (no timer: every process that analyses also
 * cleans up); until then `get` already treats them as gone.
 */
import { TrainprintError } from '../../errors.js';
import { counterValue } from '../../store/counter.js';
import type { BatchOp, Store, Transaction } from '../../store/types.js';

/**
 * Retention of stored analyses (`createEngine({ analyses })`).
 * @example createEngine({ analyses: { ttlDays: 7, maxPerOwner: 1_000 } })
 */
export interface AnalysisRetention {
  /** Days a stored analysis can be read back; later it is NOT_FOUND and deleted. @default 30 */
  readonly ttlDays?: number;
  /** Analyses kept per owner (`analyze(…, { owner })`); a new one beyond it deletes the oldest. @default 10_000 */
  readonly maxPerOwner?: number;
  /** The clock, in ms since the epoch (tests move it). @default Date.now */
  readonly now?: () => number;
}

/** {@link AnalysisRetention} with its defaults applied and checked. */
export interface RetentionRules {
  readonly ttlMs: number;
  readonly maxPerOwner: number;
  readonly now: () => number;
}

/**
 * A stored analysis: its id, when it was made, and its place among the analyses of its service (so that
 * analyses made in the same millisecond still go oldest first).
 */
export interface Made {
  readonly id: string;
  readonly createdMs: number;
  readonly order: number;
}

/** What is deleted with an analysis when it expires or is pushed out by its owner's cap. */
interface DueRecord {
  readonly id: string;
  readonly owner_key: string | null;
  readonly extra: readonly string[];
}

const DAY_MS = 86_400_000;
const DUE = 'analysis-due/';
const OWNER = 'analysis-owner/';
const OWNER_COUNT = 'analysis-owner-count/';

/**
 * Checks retention options (INVALID_OPTIONS) and applies the defaults.
 * @example retentionRules(undefined).ttlMs // 2_592_000_000 (30 days)
 */
export function retentionRules(options: AnalysisRetention | undefined): RetentionRules {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TrainprintError('INVALID_OPTIONS', 'analyses must be an object');
  }
  const ttlDays = options?.ttlDays ?? 30;
  const maxPerOwner = options?.maxPerOwner ?? 10_000;
  const now = options?.now ?? Date.now;
  if (typeof ttlDays !== 'number' || !(ttlDays > 0) || !Number.isFinite(ttlDays)) {
    throw new TrainprintError('INVALID_OPTIONS', `analyses.ttlDays must be a positive number, got ${String(ttlDays)}`);
  }
  if (!Number.isSafeInteger(maxPerOwner) || maxPerOwner < 1) {
    const got = String(maxPerOwner);
    throw new TrainprintError('INVALID_OPTIONS', `analyses.maxPerOwner must be a positive integer, got ${got}`);
  }
  if (typeof now !== 'function') throw new TrainprintError('INVALID_OPTIONS', 'analyses.now must be a function');
  return { ttlMs: ttlDays * DAY_MS, maxPerOwner, now };
}

/**
 * True when an analysis made at `createdAt` (ISO) is past its time to live at `nowMs`.
 * @example isExpired('2026-01-01T00:00:00Z', Date.parse('2026-03-01'), rules) // true with 30 days
 */
export function isExpired(createdAt: string, nowMs: number, rules: RetentionRules): boolean {
  const made = Date.parse(createdAt);
  return Number.isFinite(made) && made + rules.ttlMs <= nowMs;
}

/**
 * The records stored with analysis `id` (made at `createdMs`, with the caller's `extra` keys) in the
 * analysis's own atomic batch: its expiry record and, with an owner, its place in the owner's list.
 * @example
 * const made = { id, createdMs: Date.now(), order: 0 }
 * await store.batch([{ type: 'put', key: `analysis/${id}`, value: r }, ...retentionOps(rules, made, 'acme', [])])
 */
export function retentionOps(
  rules: RetentionRules,
  made: Made,
  owner: string | undefined,
  extra: readonly string[],
): BatchOp[] {
  const { id, createdMs } = made;
  const ownerKey = owner === undefined ? null : ownerKeyOf(owner, made);
  const dueKey = `${DUE}${new Date(createdMs + rules.ttlMs).toISOString()}/${id}`;
  const due: DueRecord = { id, owner_key: ownerKey, extra: [...extra] };
  const ops: BatchOp[] = [{ type: 'put', key: dueKey, value: due }];
  if (ownerKey !== null) ops.push({ type: 'put', key: ownerKey, value: dueKey });
  return ops;
}

/**
 * Keeps the store within the rules once an analysis of `owner` is stored (its {@link retentionOps} written):
 * counts it, deletes the owner's oldest beyond the cap, and deletes expired analyses of anyone.
 *
 * Why not one transaction with the analysis: a transaction serialises against every other write of every
 * process sharing the store, and reads under that lock; here the common call is one atomic counter step
 * ({@link Store.increment}, lock-free in the PostgreSQL store) and transactions run only when there is
 * something to delete. Each deletion decrements the count inside its transaction. A crash between the
 * analysis's batch and its count leaves the owner one analysis beyond the cap until a later one is dropped.
 * @example await store.batch(ops); await retainAfter(store, rules, sweeper, made, 'acme')
 */
export async function retainAfter(
  store: Store,
  rules: RetentionRules,
  sweeper: Sweeper,
  made: Made,
  owner: string | undefined,
): Promise<void> {
  if (owner !== undefined) {
    const countKey = `${OWNER_COUNT}${encodeURIComponent(owner)}`;
    const counted = store.increment
      ? await store.increment(countKey, 1)
      : await store.transaction(async (tx) => {
          const value = counterValue(countKey, await tx.get(countKey)) + 1;
          tx.put(countKey, value);
          return { value, applied: true };
        });
    if (counted.value > rules.maxPerOwner) await trim(store, rules, owner, ownerKeyOf(owner, made));
  }
  await sweeper.sweep(store, rules);
}

/**
 * Deletes the owner's oldest analyses down to the cap — and below it by a hundredth of the cap, so that an
 * owner at the cap does not run a transaction on every call (never below the cap for caps under 100).
 */
async function trim(store: Store, rules: RetentionRules, owner: string, justStored: string): Promise<void> {
  const prefix = ownerPrefix(owner);
  const countKey = `${OWNER_COUNT}${encodeURIComponent(owner)}`;
  await store.transaction(async (tx) => {
    const count = counterValue(countKey, await tx.get(countKey));
    if (count <= rules.maxPerOwner) return; // another call trimmed first
    const over = count - rules.maxPerOwner + Math.floor(rules.maxPerOwner / 100);
    // oldest first; never the one just stored (a clock that did not move can sort it first)
    const oldest = await tx.scan(prefix, { limit: over + 1 });
    for (const [, due] of oldest.filter(([k]) => k !== justStored).slice(0, over)) await drop(tx, due as string);
  });
}

/** Expired analyses deleted per transaction, and transactions per sweep: bounded work, and a backlog drains. */
const PURGE_PER_TRANSACTION = 64;
const PURGE_TRANSACTIONS = 8;
/** Least time between two looks for expired analyses from one service (by the rules' clock). */
const SWEEP_EVERY_MS = 1_000;

/**
 * Deletes expired analyses, looking at most once a second (by the rules' clock): one read when nothing has
 * expired, a transaction per {@link PURGE_PER_TRANSACTION} when something has.
 * @example const sweeper = new Sweeper(); await sweeper.sweep(store, rules)
 */
export class Sweeper {
  #lastMs = -Infinity;
  #running: Promise<void> | undefined;

  /** Resolves when this call's sweep is done (at once when another is under way); never rejects. */
  async sweep(store: Store, rules: RetentionRules): Promise<void> {
    const now = rules.now();
    if (this.#running || now - this.#lastMs < SWEEP_EVERY_MS) return;
    this.#lastMs = now;
    const nowIso = new Date(now).toISOString();
    const expired = (key: string) => key.slice(DUE.length, DUE.length + nowIso.length) <= nowIso;
    this.#running = (async () => {
      for (let round = 0; round < PURGE_TRANSACTIONS; round++) {
        const first = await store.scan(DUE, { limit: 1 });
        if (first.length === 0 || !expired(first[0][0])) return;
        await store.transaction(async (tx) => {
          for (const [key] of await tx.scan(DUE, { limit: PURGE_PER_TRANSACTION })) {
            if (!expired(key)) break; // keys are in expiry order
            await drop(tx, key);
          }
        });
      }
    })()
      // a failed sweep deletes nothing and the next one tries again; `get` already refuses what has expired
      .catch(() => {})
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }
}

const ownerPrefix = (owner: string): string => `${OWNER}${encodeURIComponent(owner)}/`;
const ownerKeyOf = (owner: string, made: Made): string =>
  `${ownerPrefix(owner)}${new Date(made.createdMs).toISOString()}/${String(made.order).padStart(12, '0')}/${made.id}`;

/** Deletes one analysis and everything recorded with it. */
async function drop(tx: Transaction, dueKey: string): Promise<void> {
  const due = (await tx.get(dueKey)) as DueRecord | undefined;
  tx.delete(dueKey);
  if (!due) return;
  tx.delete(`analysis/${due.id}`);
  tx.delete(`analysis-by/${due.id}`); // its owner (./service.ts)
  for (const key of due.extra) tx.delete(key);
  if (due.owner_key === null) return;
  if ((await tx.get(due.owner_key)) === undefined) return; // already dropped
  tx.delete(due.owner_key);
  const owner = due.owner_key.slice(OWNER.length, due.owner_key.indexOf('/', OWNER.length));
  const countKey = `${OWNER_COUNT}${owner}`;
  const count = counterValue(countKey, await tx.get(countKey));
  if (count > 1) tx.put(countKey, count - 1);
  else tx.delete(countKey);
}
