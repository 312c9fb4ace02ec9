/**
 * How long stored analyses stay: a time to live (default 30 days) and a cap per owner (default
 * 10,000; the HTTP service's owner is the account), so the store does not grow with every call.
 *
 * Layout beside `analysis/<id>`:
 *   `analysis-due/<expires ISO>/<id>`             → { id, owner_key, extra }: what to delete at expiry
 *   `analysis-owner/<owner>/<created ISO>/<id>`   → the due key (oldest first: what the cap drops)
 *   `analysis-owner-count/<owner>`                → how many the owner has
 * (owner percent-encoded, so `a/b` never falls under the prefix of `a`). Everything is written and
 * deleted in the analysis's own transaction. Expired analyses are deleted a few at a time by later
 * analyses (no timer: every process that analyses also cleans up); until then `get` already treats
 * them as gone.
 */
import { TrainprintError } from '../../errors.js';
import { counterValue } from '../../store/counter.js';
import type { Transaction } from '../../store/types.js';

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

/** What is deleted with an analysis when it expires or is pushed out by its owner's cap. */
interface DueRecord {
  readonly id: string;
  readonly owner_key: string | null;
  readonly extra: readonly string[];
}

const DAY_MS = 86_400_000;
/** Expired analyses deleted per new analysis: bounded work per call, and a backlog still drains. */
const PURGE_PER_CALL = 20;
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
 * Inside the transaction that stores analysis `id` (made at `createdMs`, with the caller's `extra`
 * keys): records its expiry and owner, deletes the owner's oldest beyond the cap, and deletes up to
 * a few expired analyses of anyone.
 * @example await store.transaction(async (tx) => { tx.put(`analysis/${id}`, r); await retain(tx, rules, id, now, 'acme', []) })
 */
export async function retain(
  tx: Transaction, rules: RetentionRules, id: string, createdMs: number, owner: string | undefined, extra: readonly string[],
): Promise<void> {
  const ownerPrefix = owner === undefined ? null : `${OWNER}${encodeURIComponent(owner)}/`;
  const ownerKey = ownerPrefix === null ? null : `${ownerPrefix}${new Date(createdMs).toISOString()}/${id}`;
  const dueKey = `${DUE}${new Date(createdMs + rules.ttlMs).toISOString()}/${id}`;
  tx.put(dueKey, { id, owner_key: ownerKey, extra: [...extra] } satisfies DueRecord);
  if (owner !== undefined && ownerPrefix !== null && ownerKey !== null) {
    tx.put(ownerKey, dueKey);
    const countKey = `${OWNER_COUNT}${encodeURIComponent(owner)}`;
    const count = counterValue(countKey, await tx.get(countKey)) + 1;
    tx.put(countKey, count);
    if (count > rules.maxPerOwner) {
      // oldest first; never the one just stored (a clock that did not move can sort it first)
      const over = count - rules.maxPerOwner;
      const oldest = await tx.scan(ownerPrefix, { limit: over + 1 });
      for (const [, due] of oldest.filter(([k]) => k !== ownerKey).slice(0, over)) await drop(tx, due as string);
    }
  }
  const nowIso = new Date(rules.now()).toISOString();
  for (const [key] of await tx.scan(DUE, { limit: PURGE_PER_CALL })) {
    if (key.slice(DUE.length, DUE.length + nowIso.length) > nowIso) break; // keys are in expiry order
    await drop(tx, key);
  }
}

/** Deletes one analysis and everything recorded with it. */
async function drop(tx: Transaction, dueKey: string): Promise<void> {
  const due = (await tx.get(dueKey)) as DueRecord | undefined;
  tx.delete(dueKey);
  if (!due) return;
  tx.delete(`analysis/${due.id}`);
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
