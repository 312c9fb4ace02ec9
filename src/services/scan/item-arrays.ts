/**
 * The key by which a source of scan items hands them over an array at a time (`engine.scan` with `readAhead`): a
 * module of its own, so that the on-demand scan service (dist/scan-work.js) and trainprint/node import it without the
 * rest of the scan's types.
 */
/**
 * The key of a source's items an array at a time: an async iterable of scan items that also has this method, returning
 * an async iterator of arrays of the same items in the same order, is read ahead an array at a time (`readAhead`)
 * instead of an item at a time. Why: a turn of the promise queue for each item of a file of short outputs was about
 * 1 % of a scan's CPU, and a file reader hands its items over in arrays anyway (trainprint/node's `scanFiles`). A
 * registered symbol, so that the library and its on-demand scan file name the same key.
 * @example const source = { [Symbol.asyncIterator]: () => items(), [SCAN_ITEM_ARRAYS]: () => arrays() }
 */
export const SCAN_ITEM_ARRAYS: unique symbol = Symbol.for('trainprint.scanItemArrays');

/** A source of scan items that hands them over an array at a time too ({@link SCAN_ITEM_ARRAYS}). */
export interface ScanItemArrays<T = unknown> {
  [SCAN_ITEM_ARRAYS](): AsyncIterator<readonly T[], unknown, undefined>;
}
