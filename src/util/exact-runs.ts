/**
 * The library's one finder of exact word runs: two sequences of word ids (equal words, equal ids), an index of the
 * k-grams of one of them, and the runs the other shares with it, found from the k-grams they share and extended
 * while the words agree. Its three uses read it three ways:
 * - the aligner (src/align/verbatim.ts): bigrams, the first 64 positions of each, runs taken greedily, longest first
 *   from left to right ({@link greedyRuns});
 * - the scan's copies (src/align/copies.ts): 4-grams, the first 16 positions of each, walked from over small edits;
 * - extraction (`RunIndex`, src/services/memorization/text.ts): 4-grams, every position, every maximal run
 *   ({@link maximalRuns}).
 *
 * The index is typed arrays: an open-addressing table of k-grams (each checked word by word, no hash trusted) and
 * each k-gram's positions, ascending, in one array (CSR). A k-gram holding a negative id (a word the other text
 * lacks) is not indexed: it can match nothing.
 */

/** A shared run: `length` words from `a` of the queried sequence equal to those from `b` of the indexed one. */
export interface ExactRun {
  readonly a: number;
  readonly b: number;
  readonly length: number;
}

/** The smallest power of two ≥ 2n (at least 16): a table of n keys at most half full. */
function tableSize(n: number): number {
  let size = 16;
  while (size < 2 * n) size *= 2;
  return size;
}

/** The hash of the k ids from i of `w`. */
function gramHash(w: Int32Array, i: number, k: number): number {
  let h = Math.imul(0x811c9dc5 ^ w[i], 0x9e3779b1);
  h = Math.imul(h ^ w[i + 1], 0x9e3779b1);
  for (let n = 2; n < k; n++) h = Math.imul(h ^ w[i + n], 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  return h ^ (h >>> 15);
}

/**
 * The k-grams of `ids[from .. to)` with their positions: for each, the first `cap` positions, ascending.
 * @example
 * const index = new GramIndex(Int32Array.of(5, 6, 7, 5, 6), 2)
 * const key = index.key(Int32Array.of(5, 6), 0) // ≥ 0: the bigram (5, 6) is there
 * index.positions(key) // [0, 3]
 */
export class GramIndex {
  /** Distinct k-grams indexed. */
  readonly size: number;
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Each key's first position: its ids are `ids[first .. first + k)`. */
  private readonly first: Int32Array;
  /** Key id → its positions, `pos[off[id] .. off[id + 1])`. */
  private readonly off: Uint32Array;
  private readonly pos: Uint32Array;

  constructor(
    readonly ids: Int32Array,
    readonly k: number,
    cap = Number.POSITIVE_INFINITY,
    readonly from = 0,
    readonly to = ids.length,
  ) {
    const n = Math.max(0, to - from - k + 1);
    const size = tableSize(n);
    const slots = new Int32Array(size).fill(-1);
    const mask = size - 1;
    const first = new Int32Array(n);
    // each position's key (-1: a k-gram with a negative id, not indexed)
    const idAt = new Int32Array(n);
    let keys = 0;
    // the last negative id before the k-gram's end (one read a position, not k)
    let negative = from - 1;
    for (let m = from; m < from + k - 1 && m < to; m++) if (ids[m] < 0) negative = m;
    for (let j = from; j + k <= to; j++) {
      if (ids[j + k - 1] < 0) negative = j + k - 1;
      if (negative >= j) {
        idAt[j - from] = -1;
        continue;
      }
      const slot = probe(slots, first, ids, mask, k, ids, j);
      let id = slots[slot];
      if (id < 0) {
        id = slots[slot] = keys++;
        first[id] = j;
      }
      idAt[j - from] = id;
    }
    const off = new Uint32Array(keys + 1);
    for (let j = 0; j < n; j++) if (idAt[j] >= 0 && off[idAt[j] + 1] < cap) off[idAt[j] + 1]++;
    for (let id = 0; id < keys; id++) off[id + 1] += off[id];
    const fill = off.slice(0, keys);
    const pos = new Uint32Array(off[keys]);
    for (let j = 0; j < n; j++) {
      const id = idAt[j];
      if (id >= 0 && fill[id] < off[id + 1]) pos[fill[id]++] = from + j;
    }
    this.size = keys;
    this.slots = slots;
    this.mask = mask;
    this.first = first;
    this.off = off;
    this.pos = pos;
  }

  /** The key of the k ids from i of `w` (another sequence of the same ids), -1 when not indexed. */
  key(w: Int32Array, i: number): number {
    return this.slots[probe(this.slots, this.first, this.ids, this.mask, this.k, w, i)];
  }

  /** Where the positions of `key` start in {@link at} (0 for -1: none). */
  start(key: number): number {
    return key < 0 ? 0 : this.off[key];
  }

  /** Where the positions of `key` end in {@link at}. */
  end(key: number): number {
    return key < 0 ? 0 : this.off[key + 1];
  }

  /** The n-th position of the index (keys' positions lie in [{@link start}, {@link end})). */
  at(n: number): number {
    return this.pos[n];
  }

  /** The positions of `key`, ascending (a copy: for tests and small uses). */
  positions(key: number): number[] {
    return Array.from(this.pos.subarray(this.start(key), this.end(key)));
  }
}

/** The slot of the k ids from i of `w` in a table of keys: their key's, or the empty one where it would go. */
function probe(
  slots: Int32Array,
  first: Int32Array,
  ids: Int32Array,
  mask: number,
  k: number,
  w: Int32Array,
  i: number,
): number {
  let s = gramHash(w, i, k) & mask;
  for (; slots[s] >= 0; s = (s + 1) & mask) {
    const at = first[slots[s]];
    let n = 0;
    while (n < k && ids[at + n] === w[i + n]) n++;
    if (n === k) break;
  }
  return s;
}

/**
 * Runs of at least `minRun` words (≥ k), taken greedily from left to right in `a[a0 .. a1)`: at each word, the
 * longest run from it among the indexed positions (the first found on a tie), extended no further than the index's
 * end; a run taken, the next starts after it. Flat triples [a0, b0, length, …] (the aligner's form).
 * @example greedyRuns(Int32Array.of(1, 2, 3, 9), new GramIndex(Int32Array.of(0, 1, 2, 3), 2), 3) // [0, 1, 3]
 */
export function greedyRuns(a: Int32Array, index: GramIndex, minRun: number, a0 = 0, a1 = a.length): number[] {
  const b = index.ids,
    b1 = index.to,
    k = index.k;
  const runs: number[] = [];
  for (let p = a0; p + k <= a1; ) {
    const key = index.key(a, p);
    const to = index.end(key);
    let best = 0,
      bq = -1;
    for (let n = index.start(key); n < to; n++) {
      const q = index.at(n);
      let len = k;
      while (p + len < a1 && q + len < b1 && a[p + len] === b[q + len]) len++;
      if (len > best) {
        best = len;
        bq = q;
      }
    }
    if (best >= minRun) {
      runs.push(p, bq, best);
      p += best;
    } else p++;
  }
  return runs;
}

/**
 * Every maximal run (not extendable either way) that `a` shares with the indexed sequence through one of its
 * k-grams, of at least `minRun` words, once each: longest first, then by its start in `a`, then in the order found
 * (its start in `a` of the k-gram that found it, then in the indexed sequence).
 * @example maximalRuns(Int32Array.of(7, 1, 2, 3), new GramIndex(Int32Array.of(1, 2, 3), 2), 2) // [{ a: 1, b: 0, length: 3 }]
 */
export function maximalRuns(a: Int32Array, index: GramIndex, minRun: number): ExactRun[] {
  const b = index.ids,
    k = index.k;
  const found: ExactRun[] = [];
  const seen = new Set<number>();
  for (let i = 0; i + k <= a.length; i++) {
    const key = index.key(a, i);
    const to = index.end(key);
    for (let n = index.start(key); n < to; n++) {
      // the start of the maximal run through (i, j)
      let x = i,
        y = index.at(n);
      while (x > 0 && y > 0 && a[x - 1] === b[y - 1]) {
        x--;
        y--;
      }
      const start = x * (b.length + 1) + y;
      if (seen.has(start)) continue;
      seen.add(start);
      let len = 0;
      while (x + len < a.length && y + len < b.length && a[x + len] === b[y + len]) len++;
      if (len >= minRun) found.push({ a: x, b: y, length: len });
    }
  }
  return found.sort((r, s) => s.length - r.length || r.a - s.a);
}
