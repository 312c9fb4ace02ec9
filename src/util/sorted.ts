/** Sorting and searching typed columns: shared by the indexes that keep (key, payload…) columns. */

/**
 * Strings in UTF-16 code-unit order (what `<` compares), the same in every runtime and locale (never localeCompare).
 * @example ['b', 'B', 'a'].sort(codeUnitOrder) // ['B', 'a', 'b']
 */
export const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * First position in the ascending `sorted` whose value is ≥ `value` (binary search): where `value`
 * is or would be inserted, and the count of smaller values. `from`/`to` narrow the search to a range
 * known to hold that position.
 * @example lowerBound(Uint32Array.of(1, 3, 3, 7), 3) // 1
 */
export function lowerBound(sorted: ArrayLike<number>, value: number, from = 0, to = sorted.length): number {
  let lo = from,
    hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * First position in the ascending `sorted` whose value is > `value`: the count of values ≤ `value`.
 * @example upperBound(Uint32Array.of(1, 3, 3, 7), 3) // 3
 */
export function upperBound(sorted: ArrayLike<number>, value: number, from = 0, to = sorted.length): number {
  let lo = from,
    hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Sort u32 `keys` ascending in place and permute every payload column with them, keeping the
 * original order among equal keys: a stable LSD radix sort in two 16-bit passes through scratch of
 * the same size (linear: a comparison sort of tens of millions of postings takes minutes).
 * @example
 * const keys = Uint32Array.of(5, 1, 5), docs = Uint32Array.of(0, 1, 2)
 * sortByKeyU32(keys, docs) // keys 1, 5, 5; docs 1, 0, 2
 */
export function sortByKeyU32(keys: Uint32Array, ...columns: Uint32Array[]): void {
  const n = keys.length;
  const from = [keys, ...columns];
  const to = from.map(() => new Uint32Array(n));
  // both passes' counts from one read of the keys
  const low = new Uint32Array(0x10000),
    high = new Uint32Array(0x10000);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    low[k & 0xffff]++;
    high[k >>> 16]++;
  }
  scatterPass(from, to, low, 0);
  scatterPass(to, from, high, 16);
}

/**
 * The first `n` keys and payload values of each column sorted by key into new arrays of length `n` (the
 * inputs, which may be longer, are used as scratch and left in no particular order), keeping the original
 * order among equal keys: a stable LSD radix sort in three 11-bit passes, whose odd count leaves the result
 * in the new arrays. For columns grown by doubling: no copy to cut them to size first.
 * @example
 * const keys = Uint32Array.of(5, 1, 5, 0), docs = Uint32Array.of(0, 1, 2, 0)
 * sortedByKeyU32(3, keys, docs) // [keys 1, 5, 5; docs 1, 0, 2]
 */
export function sortedByKeyU32(n: number, keys: Uint32Array, ...columns: Uint32Array[]): Uint32Array[] {
  const from = [keys, ...columns].map((a) => a.subarray(0, n));
  const to = from.map(() => new Uint32Array(n));
  const c0 = new Uint32Array(0x800),
    c1 = new Uint32Array(0x800),
    c2 = new Uint32Array(0x400);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    c0[k & 0x7ff]++;
    c1[(k >>> 11) & 0x7ff]++;
    c2[k >>> 22]++;
  }
  scatterPass(from, to, c0, 0);
  scatterPass(to, from, c1, 11);
  scatterPass(from, to, c2, 22);
  return to;
}

/**
 * One stable counting pass by the digit of `src[0]` at `shift` (of as many bits as `count` has buckets), with
 * their `count`s (made cursors here).
 */
function scatterPass(src: Uint32Array[], dst: Uint32Array[], count: Uint32Array, shift: number): void {
  const mask = count.length - 1;
  for (let b = 0, at = 0; b < count.length; b++) {
    const c = count[b];
    count[b] = at;
    at += c;
  }
  const k = src[0],
    kd = dst[0],
    n = k.length;
  // one and two payload columns (the common cases) get loops of their own: the generic one, with its inner loop
  // over the columns, is a third slower for one and half as fast for two
  if (src.length === 2) {
    const s1 = src[1],
      d1 = dst[1];
    for (let i = 0; i < n; i++) {
      const key = k[i];
      const at = count[(key >>> shift) & mask]++;
      kd[at] = key;
      d1[at] = s1[i];
    }
    return;
  }
  if (src.length === 3) {
    const s1 = src[1],
      d1 = dst[1],
      s2 = src[2],
      d2 = dst[2];
    for (let i = 0; i < n; i++) {
      const key = k[i];
      const at = count[(key >>> shift) & mask]++;
      kd[at] = key;
      d1[at] = s1[i];
      d2[at] = s2[i];
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const at = count[(k[i] >>> shift) & mask]++;
    for (let c = 0; c < src.length; c++) dst[c][at] = src[c][i];
  }
}

/** What {@link sortRangeBy} sorts: an array, or a typed array of indices. */
export interface SortableList<T> {
  [k: number]: T;
  readonly length: number;
}

/** Ranges up to this long are sorted by insertion, in place; longer ones by `Array.prototype.sort`. */
const INSERTION_SORT_MAX = 32;

/**
 * Sort `items[from, to)` in place by `compare`, stably (equal items keep their order), as `sort` would. Short
 * ranges are sorted by insertion: `Array.prototype.sort` copies its array into scratch on every call, and callers
 * that sort many short runs of hits (a few per candidate document) made that most of a search's garbage.
 * @example
 * const hits = [{ at: 5 }, { at: 1 }, { at: 3 }]
 * sortRangeBy(hits, (x, y) => x.at - y.at) // hits: at 1, 3, 5
 */
export function sortRangeBy<T>(
  items: SortableList<T>,
  compare: (x: T, y: T) => number,
  from = 0,
  to = items.length,
): void {
  if (to - from > INSERTION_SORT_MAX) {
    // a range in order already (an exact search's hits of one passage, by source offset) is left as it is: a
    // stable sort would not move it, and the copy and sort cost more than this pass
    let inOrder = from + 1;
    while (inOrder < to && compare(items[inOrder - 1], items[inOrder]) <= 0) inOrder++;
    if (inOrder >= to) return;
    const sorted = Array.from({ length: to - from }, (_, j) => items[from + j]).sort(compare);
    for (let k = 0; k < sorted.length; k++) items[from + k] = sorted[k];
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const x = items[i];
    let j = i - 1;
    while (j >= from && compare(items[j], x) > 0) {
      items[j + 1] = items[j];
      j--;
    }
    items[j + 1] = x;
  }
}

/**
 * Sort `a[from, to)` ascending in place: by insertion up to INSERTION_SORT_MAX values (a sentence's few terms),
 * the typed array's own sort beyond.
 * @example
 * const terms = Uint32Array.of(9, 5, 7, 1)
 * sortRangeU32(terms, 0, 3) // terms: 5, 7, 9, 1
 */
export function sortRangeU32(a: Uint32Array, from: number, to: number): void {
  if (to - from > INSERTION_SORT_MAX) {
    a.subarray(from, to).sort();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= from && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}
