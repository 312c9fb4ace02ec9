/**
 * The postings' columns checked once, in one pass, where a dataset is decoded, and what that pass learned handed on to
 * the index that is then laid out from the same columns.
 *
 * Why: an import walks its 71,796 postings (the bench's archive) in loops that run once, interpreted or in baseline
 * code under the CLI's interrupt budget (src/cli/tiering.ts), where every step of a loop costs about as much as its
 * loads: the decode checked each posting's document and span and the keys' order in two loops, then the index checked
 * each span against its document's length and found the largest start and the longest span in a third. One loop that
 * does all of it runs in about half the CPU of the three, and the index skips its own for columns this pass vouched
 * for. A column that breaks any rule is refused by the same checks as before, in the same order, with the same
 * messages: the single pass only says whether all is well.
 */

import { LITTLE_ENDIAN } from '../util/bytes.js';

/** What the index's packing needs from the spans: the largest start and the longest span. */
export interface SpanExtent {
  readonly maxStart: number;
  readonly maxLength: number;
}

/** The columns one pass found well formed, each span within its document: keyed by the starts' column. */
interface Vouched extends SpanExtent {
  readonly postDoc: Uint32Array;
  readonly postEnd: Uint32Array;
  readonly docs: ReadonlyArray<{ readonly chars: number }>;
}

const vouched = new WeakMap<Uint32Array, Vouched>();

/** The postings' columns as a decoded snapshot holds them. */
export interface PostingColumnsData {
  readonly keys: BigUint64Array;
  readonly postDoc: Uint32Array;
  readonly postStart: Uint32Array;
  readonly postEnd: Uint32Array;
  readonly docs: ReadonlyArray<{ readonly chars: number }>;
}

/**
 * In one pass: whether every posting names a document, starts no later than it ends and ends within its document's
 * `chars`, and the keys ascend (as u32 halves, no BigInt); with the largest start and the longest span. Null when any
 * posting breaks a rule (the caller then runs the checks that name it), or the columns' lengths differ.
 * @example wellFormedSpans({ keys: new BigUint64Array([1n, 2n]), postDoc: new Uint32Array([0, 0]), postStart: new Uint32Array([0, 4]), postEnd: new Uint32Array([3, 9]), docs: [{ chars: 9 }] }) // { maxStart: 4, maxLength: 5 }
 */
export function wellFormedSpans(data: PostingColumnsData): SpanExtent | null {
  const { keys, postDoc, postStart, postEnd } = data;
  const n = keys.length;
  if (postDoc.length !== n || postStart.length !== n || postEnd.length !== n) return null;
  const chars = Float64Array.from(data.docs, (d) => d.chars);
  const docCount = chars.length;
  const halves = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
  const hi = LITTLE_ENDIAN ? 1 : 0;
  const lo = 1 - hi;
  let lastHigh = 0;
  let lastLow = 0;
  let maxStart = 0;
  let maxLength = 0;
  for (let i = 0; i < n; i++) {
    const doc = postDoc[i];
    const start = postStart[i];
    const end = postEnd[i];
    if (!(doc < docCount && start <= end && end <= chars[doc])) return null;
    const high = halves[2 * i + hi];
    const low = halves[2 * i + lo];
    if (high < lastHigh || (high === lastHigh && low < lastLow)) return null;
    lastHigh = high;
    lastLow = low;
    if (start > maxStart) maxStart = start;
    if (end - start > maxLength) maxLength = end - start;
  }
  return { maxStart, maxLength };
}

/**
 * Remember that `data`'s columns passed {@link wellFormedSpans} with `extent`, for {@link vouchedExtent}.
 * @example const extent = wellFormedSpans(data); if (extent) vouchSpans(data, extent)
 */
export function vouchSpans(data: PostingColumnsData, extent: SpanExtent): void {
  vouched.set(data.postStart, { ...extent, postDoc: data.postDoc, postEnd: data.postEnd, docs: data.docs });
}

/**
 * The extent {@link vouchSpans} recorded for exactly these columns and documents (the same arrays), or null: then
 * the caller checks them itself.
 * @example vouchedExtent(data)?.maxLength
 */
export function vouchedExtent(data: Omit<PostingColumnsData, 'keys'>): SpanExtent | null {
  const v = vouched.get(data.postStart);
  if (v === undefined || v.postDoc !== data.postDoc || v.postEnd !== data.postEnd || v.docs !== data.docs) return null;
  return v;
}
