/**
 * Pairs of small non-negative integers → dense ids, in typed arrays (open addressing, linear probing).
 *
 * The alignment indexes content-word keys of texts with millions of tokens (regions.ts); a `Map` of
 * number keys to arrays costs about ten times the memory and time there, and packing two ids into one
 * number needs a bound on the ids that a long text can exceed.
 */

/** Largest load factor: the table is sized once, for the most pairs it will be given. */
const LOAD = 0.5;

/** A set of `(x, y)` pairs (each 0 ≤ x, y < 2^31), each with the dense id it was given when first added. */
export class PairTable {
  private readonly xs: Int32Array;
  private readonly ys: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Number of distinct pairs added so far (the next id). */
  size = 0;

  /**
   * @param capacity the most distinct pairs that will be added
   * @example
   * const t = new PairTable(2)
   * t.add(3, 4)   // 0
   * t.add(5, 6)   // 1
   * t.get(3, 4)   // 0
   * t.get(4, 3)   // -1
   */
  constructor(capacity: number) {
    let slots = 16;
    while (slots * LOAD < capacity) slots *= 2;
    this.slots = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
    this.xs = new Int32Array(Math.max(1, capacity));
    this.ys = new Int32Array(Math.max(1, capacity));
  }

  /** The id of `(x, y)`, adding the pair when new. */
  add(x: number, y: number): number {
    let h = hashPair(x, y) & this.mask;
    for (;;) {
      const id = this.slots[h];
      if (id < 0) break;
      if (this.xs[id] === x && this.ys[id] === y) return id;
      h = (h + 1) & this.mask;
    }
    const id = this.size++;
    this.slots[h] = id;
    this.xs[id] = x;
    this.ys[id] = y;
    return id;
  }

  /** The id of `(x, y)`, or -1 when it was never added. */
  get(x: number, y: number): number {
    let h = hashPair(x, y) & this.mask;
    for (;;) {
      const id = this.slots[h];
      if (id < 0 || (this.xs[id] === x && this.ys[id] === y)) return id;
      h = (h + 1) & this.mask;
    }
  }
}

/** A 32-bit mix of two integers (murmur3 finaliser over a multiplicative combination). */
function hashPair(x: number, y: number): number {
  let h = Math.imul(x, 0x9e3779b1) ^ Math.imul(y ^ 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}
