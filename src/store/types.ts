/**
 * The storage contract every durable part of trainprint uses (registry, analyses, monitors, event
 * and delivery logs, later the marketplace): a small async key-value store with ordered prefix
 * scans, atomic batches and serialised transactions.
 *
 * Keys are strings, ordered by plain JS string comparison (UTF-16 code units); by convention
 * `kind/…` (e.g. `work/<id>`, `analysis/<id>`). Values are anything @msgpack/msgpack encodes:
 * null, booleans, numbers, strings, Uint8Array, arrays and plain objects (no undefined, no
 * bigint, no class instances). A value read back is a fresh copy: mutating it never changes the
 * store.
 */

/** One operation of an atomic batch. */
export type BatchOp =
  | { readonly type: 'put'; readonly key: string; readonly value: unknown }
  | { readonly type: 'delete'; readonly key: string };

/** Options of {@link Store.scan}. */
export interface ScanOptions {
  /** Only keys strictly greater than this (cursor pagination). */
  readonly after?: string;
  /** At most this many entries. @default all */
  readonly limit?: number;
}

/** What {@link Store.increment} did: the count after the call, and whether it added. */
export interface Increment {
  readonly value: number;
  readonly applied: boolean;
}

/** Reads and writes inside a {@link Store.transaction}: applied atomically when the callback resolves. */
export interface Transaction {
  /** Sees the transaction's own writes. */
  get(key: string): Promise<unknown | undefined>;
  put(key: string, value: unknown): void;
  delete(key: string): void;
  scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>>;
}

/** The store. Every method is async; writes resolve only once durable (file store: after fsync). */
export interface Store {
  get(key: string): Promise<unknown | undefined>;
  put(key: string, value: unknown): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Entries whose key starts with `prefix`, in key order. */
  scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>>;
  /** All or nothing, also across a crash. */
  batch(ops: readonly BatchOp[]): Promise<void>;
  /**
   * Run `fn` with exclusive access: transactions (and every other write) are serialised in
   * arrival order, so a read-modify-write inside one cannot interleave with another. The writes
   * are applied as one atomic batch when `fn` resolves; if it throws, nothing is written and the
   * error is rethrown.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T>;
  /**
   * Add `by` (a positive integer) to the count at `key` (0 when absent) in one atomic step, unless
   * the result would pass `max`: then nothing changes and `applied` is false. Exact across
   * concurrent callers (and, in the PostgreSQL store, across processes: one SQL statement). A key
   * holding anything but a non-negative integer is INVALID_INPUT. Optional: a store without it is
   * driven through {@link Store.transaction}. Not ordered with a caller's unawaited writes to the
   * same key in every store: await those first.
   * @example await store.increment('usage/acme/2026-03-01', 1, 100) // { value: 1, applied: true }
   */
  increment?(key: string, by: number, max?: number): Promise<Increment>;
  /**
   * `value` checked and encoded now, with a turn of the event loop every few ms, as a token that a later put of this
   * store (alone, in a batch or in a transaction) writes as those bytes: a long text's encoding then holds neither a
   * transaction nor the thread in one step (the 10 MB text of a registered work: 20–35 ms). The same errors as a put of
   * `value`, raised here. Optional: a store without it is given the value itself.
   * @example const text = await (store.prepare?.(longText) ?? longText); await store.transaction((tx) => tx.put('work-text/1', text))
   */
  prepare?(value: unknown): Promise<unknown>;
  /** Flush and release (the file store releases its lock). Later calls reject with STORE_CLOSED. */
  close(): Promise<void>;
}
