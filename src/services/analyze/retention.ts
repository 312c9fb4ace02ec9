/**
 * How long stored analyses stay: a time to live (default 30 days) and caps per owner (default 10,000
 * analyses and 256 MiB of kept text; the HTTP service's owner is the account), so the store does not grow
 * with every call. The byte cap is what bounds an owner's share of a memory or file store, which hold every
 * value in the process's memory: by count alone 10,000 analyses of 10 MiB each would be 100 GiB.
 *
 * Layout beside `analysis/<id>`:
 *   `analysis-due/<expires ISO>/<id>`             → { id, owner_key, extra }: what to delete at expiry
 *   `analysis-owner/<owner>/<created ISO>/<n>/<id>` → the due key (oldest first: what the cap drops; n orders
 *                                                  the analyses of one service made in the same millisecond)
 *   `analysis-owner-count/<owner>`                → how many the owner has
 *   `analysis-owner-bytes/<owner>`                → the bytes of text they keep ({@link keptBytes})
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
  /**
   * Bytes of kept text per owner: the analysed texts (UTF-8) and the remote corpora's transcripts of its analyses
   * ({@link keptBytes}); a new one beyond it deletes the oldest (never the new one: an owner may be one analysis
   * over). @default 268_435_456 (256 MiB)
   */
  readonly maxBytesPerOwner?: number;
  /** The clock, in ms since the epoch (tests move it). @default Date.now */
  readonly now?: () => number;
}

/** {@link AnalysisRetention} with its defaults applied and checked. */
export interface RetentionRules {
  readonly ttlMs: number;
  readonly maxPerOwner: number;
  readonly maxBytesPerOwner: number;
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
  /** Its kept text, in bytes ({@link keptBytes}). */
  readonly bytes: number;
}

/** What is deleted with an analysis when it expires or is pushed out by its owner's cap. */
interface DueRecord {
  readonly id: string;
  readonly owner_key: string | null;
  readonly extra: readonly string[];
  /** Its kept text in bytes (absent in records stored before the byte cap: counted as 0). */
  readonly bytes?: number;
}

const DAY_MS = 86_400_000;
const DUE = 'analysis-due/';
const OWNER = 'analysis-owner/';
const OWNER_COUNT = 'analysis-owner-count/';
const OWNER_BYTES = 'analysis-owner-bytes/';
/** The default of {@link AnalysisRetention.maxBytesPerOwner}: 256 MiB. */
export const ANALYSIS_MAX_BYTES_PER_OWNER = 256 * 1024 * 1024;

/**
 * The bytes an analysis keeps beside its result, counted against its owner's byte cap: its text as UTF-8 and
 * the characters of its remote transcripts.
 * @example keptBytes({ utf8: new Uint8Array(10), transcripts: { c: [{ request: 'ab', answer: 'cd' }] } }) // 14
 */
export function keptBytes(record: {
  readonly utf8: Uint8Array;
  readonly transcripts: Readonly<Record<string, ReadonlyArray<{ readonly request: string; readonly answer: string }>>>;
}): number {
  let n = record.utf8.byteLength;
  for (const calls of Object.values(record.transcripts)) for (const c of calls) n += c.request.length + c.answer.length;
  return n;
}

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
  const maxBytesPerOwner = options?.maxBytesPerOwner ?? ANALYSIS_MAX_BYTES_PER_OWNER;
  const now = options?.now ?? Date.now;
  if (typeof ttlDays !== 'number' || !(ttlDays > 0) || !Number.isFinite(ttlDays)) {
    throw new TrainprintError('INVALID_OPTIONS', `analyses.ttlDays must be a positive number, got ${String(ttlDays)}`);
  }
  if (!Number.isSafeInteger(maxPerOwner) || maxPerOwner < 1) {
    const got = String(maxPerOwner);
    throw new TrainprintError('INVALID_OPTIONS', `analyses.maxPerOwner must be a positive integer, got ${got}`);
  }
  if (!Number.isSafeInteger(maxBytesPerOwner) || maxBytesPerOwner < 1) {
    const got = String(maxBytesPerOwner);
    throw new TrainprintError('INVALID_OPTIONS', `analyses.maxBytesPerOwner must be a positive integer, got ${got}`);
  }
  if (typeof now !== 'function') throw new TrainprintError('INVALID_OPTIONS', 'analyses.now must be a function');
  return { ttlMs: ttlDays * DAY_MS, maxPerOwner, maxBytesPerOwner, now };
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
  const { id, createdMs, bytes } = made;
  const ownerKey = owner === undefined ? null : ownerKeyOf(owner, made);
  const dueKey = `${DUE}${new Date(createdMs + rules.ttlMs).toISOString()}/${id}`;
  const due: DueRecord = { id, owner_key: ownerKey, extra: [...extra], bytes };
  const ops: BatchOp[] = [{ type: 'put', key: dueKey, value: due }];
  if (ownerKey !== null) ops.push({ type: 'put', key: ownerKey, value: dueKey });
  return ops;
}

/**
 * Counts the bytes an analysis of `owner` keeps ({@link keptBytes}) before its batch is written: a deletion (the
 * owner's cap, the time to live, in any process) can only meet an analysis whose bytes are already counted, so the
 * count never drops below what is kept. Resolves to the owner's bytes after the step (0 without an owner).
 * {@link releaseBytes} takes them off again when the batch fails.
 * @example const bytes = await countBytes(store, made, 'acme'); await store.batch(ops); await retainAfter(…, bytes)
 */
export async function countBytes(store: Store, made: Made, owner: string | undefined): Promise<number> {
  if (owner === undefined || made.bytes <= 0) return 0;
  return add(store, `${OWNER_BYTES}${encodeURIComponent(owner)}`, made.bytes);
}

/** Takes an analysis's counted bytes off its owner's count again: its batch failed. Never rejects. */
export async function releaseBytes(store: Store, made: Made, owner: string | undefined): Promise<void> {
  if (owner === undefined || made.bytes <= 0) return;
  const key = `${OWNER_BYTES}${encodeURIComponent(owner)}`;
  await store.transaction((tx) => takeOff(tx, key, made.bytes)).catch(() => {});
}

/**
 * Keeps the store within the rules once an analysis of `owner` is stored (its {@link retentionOps} written, its
 * bytes counted by {@link countBytes}, which resolved to `bytes`): counts it, deletes the owner's oldest beyond
 * the caps, and deletes expired analyses of anyone.
 *
 * Why not one transaction with the analysis: a transaction serialises against every other write of every
 * process sharing the store, and reads under that lock; here the common call is one atomic counter step
 * ({@link Store.increment}, lock-free in the PostgreSQL store) and transactions run only when there is
 * something to delete. Each deletion decrements the counts inside its transaction. A crash between the
 * analysis's batch and its count leaves the owner one analysis beyond the cap until a later one is dropped.
 * @example await store.batch(ops); await retainAfter(store, rules, sweeper, made, 'acme', bytes)
 */
export async function retainAfter(
  store: Store,
  rules: RetentionRules,
  sweeper: Sweeper,
  made: Made,
  owner: string | undefined,
  bytes = 0,
): Promise<void> {
  if (owner !== undefined) {
    const counted = await add(store, `${OWNER_COUNT}${encodeURIComponent(owner)}`, 1);
    if (counted > rules.maxPerOwner || bytes > rules.maxBytesPerOwner) {
      await trim(store, rules, owner, ownerKeyOf(owner, made));
    }
  }
  await sweeper.sweep(store, rules);
}

/** Adds `by` to the count at `key` (one atomic step where the store has it); resolves to the new count. */
async function add(store: Store, key: string, by: number): Promise<number> {
  if (store.increment) return (await store.increment(key, by)).value;
  return store.transaction(async (tx) => {
    const value = counterValue(key, await tx.get(key)) + by;
    tx.put(key, value);
    return value;
  });
}

/** Oldest analyses read per step of a {@link trim}. */
const TRIM_PAGE = 64;

/**
 * Deletes the owner's oldest analyses down to both caps — and below each by a hundredth of it, so that an
 * owner at a cap does not run a transaction on every call (never below the count cap for caps under 100).
 */
async function trim(store: Store, rules: RetentionRules, owner: string, justStored: string): Promise<void> {
  const prefix = ownerPrefix(owner);
  const countKey = `${OWNER_COUNT}${encodeURIComponent(owner)}`;
  const bytesKey = `${OWNER_BYTES}${encodeURIComponent(owner)}`;
  await store.transaction(async (tx) => {
    let count = counterValue(countKey, await tx.get(countKey));
    let bytes = counterValue(bytesKey, await tx.get(bytesKey));
    if (count <= rules.maxPerOwner && bytes <= rules.maxBytesPerOwner) return; // another call trimmed first
    const countTo = rules.maxPerOwner - Math.floor(rules.maxPerOwner / 100);
    const bytesTo = rules.maxBytesPerOwner - Math.floor(rules.maxBytesPerOwner / 100);
    const over = () => count > countTo || bytes > bytesTo;
    // oldest first; never the one just stored (a clock that did not move can sort it first)
    let after: string | undefined;
    for (;;) {
      const page = await tx.scan(prefix, { limit: TRIM_PAGE, ...(after === undefined ? {} : { after }) });
      const older = page.filter(([k]) => k !== justStored);
      if (older.length === 0) return; // only the one just stored is left: it stays, over the byte cap
      for (const [key, due] of older) {
        after = key;
        bytes -= await drop(tx, due as string);
        count--;
        if (!over()) return;
      }
    }
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

/** Deletes one analysis and everything recorded with it; resolves to the bytes it took off its owner's count. */
async function drop(tx: Transaction, dueKey: string): Promise<number> {
  const due = (await tx.get(dueKey)) as DueRecord | undefined;
  tx.delete(dueKey);
  if (!due) return 0;
  tx.delete(`analysis/${due.id}`);
  tx.delete(`analysis-by/${due.id}`); // its owner (./service.ts)
  for (const key of due.extra) tx.delete(key);
  if (due.owner_key === null) return 0;
  if ((await tx.get(due.owner_key)) === undefined) return 0; // already dropped
  tx.delete(due.owner_key);
  const owner = due.owner_key.slice(OWNER.length, due.owner_key.indexOf('/', OWNER.length));
  await takeOff(tx, `${OWNER_COUNT}${owner}`, 1);
  const bytes = Number.isSafeInteger(due.bytes) && (due.bytes as number) > 0 ? (due.bytes as number) : 0;
  return bytes > 0 ? takeOff(tx, `${OWNER_BYTES}${owner}`, bytes) : 0;
}

/** Subtracts `by` from the count at `key` (deleted at 0); resolves to what it took off. */
async function takeOff(tx: Transaction, key: string, by: number): Promise<number> {
  const count = counterValue(key, await tx.get(key));
  if (count > by) tx.put(key, count - by);
  else tx.delete(key);
  return Math.min(count, by);
}
