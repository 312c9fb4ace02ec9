/**
 * Cursor pagination over one record prefix with a filter: pages through the ordered keys until the
 * page is full, so a filtered page holds `limit` items whenever that many exist after the cursor.
 */
import type { ScanOptions } from '../../store/types.js';

/** Items on a page of a list call that gives no `limit`. */
export const PAGE_DEFAULT = 100;

/** Anything with an ordered prefix scan: the store or an {@link Op}. */
export interface Scanner {
  scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>>;
}

/**
 * Items under `prefix` (keys `prefix + id`) after id `after` that pass `keep`, at most `limit`;
 * `next` is the id to pass as `after` for the next page, or null at the end. With `load`, the prefix is an index
 * whose values name the records (`load` reads one; undefined skips it).
 * @example
 * const { items, next } = await scanPage<Listing>(store, 'market/listing/', undefined, 100, (l) => l.status === 'active')
 */
export async function scanPage<T>(
  from: Scanner,
  prefix: string,
  after: string | undefined,
  limit: number,
  keep: (item: T) => boolean,
  options: { load?: (value: unknown) => Promise<T | undefined> } = {},
): Promise<{ items: T[]; next: string | null }> {
  const items: T[] = [];
  const ids: string[] = [];
  let cursor = after === undefined ? undefined : prefix + after;
  for (;;) {
    const page = await from.scan(prefix, { after: cursor, limit: limit + 1 });
    for (const [key, value] of page) {
      // an index entry whose record is gone (deleted since) is skipped like a filtered one
      const item = options.load === undefined ? (value as T) : await options.load(value);
      if (item === undefined || !keep(item)) continue;
      items.push(item);
      ids.push(key.slice(prefix.length));
      if (items.length > limit) break;
    }
    if (items.length > limit || page.length < limit + 1) break;
    cursor = page[page.length - 1][0];
  }
  const more = items.length > limit;
  if (more) items.length = limit;
  return { items, next: more ? ids[limit - 1] : null };
}
