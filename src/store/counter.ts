/**
 * {@link Store.increment}'s argument checks and its read-check-write, shared by every store: the
 * memory and file stores run it in a transaction, the PostgreSQL store as one SQL statement with
 * the same rules.
 */
import { TrainprintError } from '../errors.js';
import type { Increment, Transaction } from './types.js';

/**
 * Throws INVALID_INPUT unless `by` is a positive safe integer and `max` (when given) a non-negative
 * safe integer. Returns the cap to apply. (The key is checked by the store, like every key.)
 * @example checkIncrement(1, undefined) // Number.MAX_SAFE_INTEGER
 */
export function checkIncrement(by: unknown, max: unknown): number {
  if (!Number.isSafeInteger(by) || (by as number) < 1) {
    throw new TrainprintError('INVALID_INPUT', `increment: by must be a positive integer, got ${String(by)}`);
  }
  if (max === undefined) return Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(max) || (max as number) < 0) {
    throw new TrainprintError('INVALID_INPUT', `increment: max must be a non-negative integer, got ${String(max)}`);
  }
  return max as number;
}

/**
 * The count a stored value holds: 0 for none, the value itself for a non-negative safe integer;
 * anything else is INVALID_INPUT (a counter key holding another record is a caller's mistake, not
 * something to overwrite).
 * @example counterValue('hits', undefined) // 0
 */
export function counterValue(key: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new TrainprintError('INVALID_INPUT', `increment: ${JSON.stringify(key)} holds something other than a count`);
}

/**
 * Adds `by` to the count at `key` inside `tx` unless that would pass `max`.
 * @example await store.transaction((tx) => incrementIn(tx, 'hits', 1, 100)) // { value: 1, applied: true }
 */
export async function incrementIn(tx: Transaction, key: string, by: number, max: number): Promise<Increment> {
  const count = counterValue(key, await tx.get(key));
  if (count + by > max) return { value: count, applied: false };
  tx.put(key, count + by);
  return { value: count + by, applied: true };
}
