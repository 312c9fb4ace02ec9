/** Checks {@link AlongsideRecords} and turns them into batch operations. */
import { TrainprintError } from '../errors.js';
import type { AlongsideRecord, AlongsideRecords, BatchOp } from './types.js';

/**
 * The `put` operations of `records` for the new record `id` (INVALID_OPTIONS for anything but an array of `{ key, value }` with a
 * non-empty key of at most 1,000 characters).
 * @example await store.batch([{ type: 'put', key: 'monitor/m1', value: m }, ...alongsideOps(records, 'm1')])
 */
export function alongsideOps(records: AlongsideRecords | undefined, id: string): BatchOp[] {
  if (records === undefined) return [];
  const list: unknown = typeof records === 'function' ? records(id) : records;
  if (!Array.isArray(list))
    throw new TrainprintError(
      'INVALID_OPTIONS',
      'records must be an array of { key, value } or a function returning one',
    );
  return (list as AlongsideRecord[]).map((r, i) => {
    if (r === null || typeof r !== 'object' || typeof r.key !== 'string' || r.key.length === 0 || r.key.length > 1000) {
      throw new TrainprintError(
        'INVALID_OPTIONS',
        `records[${i}] must be { key: a string of 1..1000 characters, value }`,
      );
    }
    return { type: 'put', key: r.key, value: r.value };
  });
}
