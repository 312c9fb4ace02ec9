/**
 * An item's checks at submission, their errors naming the item (`items[i]…`): a job's items are checked before they
 * are charged with the checks their run makes, so that none is accepted, charged and then refused.
 */
import { TrainprintError } from '../../../errors.js';
import type { PreparedItems } from '../job-type.js';
import { itemError } from '../request.js';

/**
 * `check` run on item `i`, its error naming the item: `items[i]: …` (a field's error: `items[i].field`).
 * @example await itemChecked(0, () => checkAudit(item))
 */
export async function itemChecked(i: number, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (e) {
    if (!(e instanceof TrainprintError)) throw e;
    const c = e.cause as { field?: string; reason?: string } | undefined;
    if (e.code === 'INVALID_INPUT' && c?.field !== undefined && c.reason !== undefined)
      throw itemError(i, c.field, c.reason);
    throw new TrainprintError(e.code, `items[${i}]: ${e.detail ?? e.message}`, { cause: e.cause });
  }
}

/**
 * A type's preparation that only checks: `check` on each item (its error naming the item), the items stored as sent.
 * @example prepare: checkEach((item, context) => readThrough(ANALYZE_REQUEST, item, { maxFileBytes: context.maxFileBytes }))
 */
export function checkEach<I, C>(
  check: (item: I, context: C) => unknown,
): (items: readonly I[], context: C) => Promise<() => PreparedItems> {
  return async (items, context) => {
    for (let i = 0; i < items.length; i++) await itemChecked(i, () => check(items[i], context));
    return () => ({ items, bind: () => undefined });
  };
}
