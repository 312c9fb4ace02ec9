/** src/util/sorted.ts against the obvious references, on seeded random columns. */
import { describe, expect, it } from 'vitest';
import {
  lowerBound,
  sortByKeyU32,
  sortedByKeyU32,
  sortRangeBy,
  sortRangeU32,
  upperBound,
} from '../../src/util/sorted.js';
import { prng } from '../reference/core.js';

describe('sorted columns', () => {
  it('sortByKeyU32 is a stable sort by key carrying every column', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = prng(seed);
      const n = Math.floor(rnd() * 3000);
      const distinct = 1 + Math.floor(rnd() * (seed % 3 === 0 ? 5 : 2 ** 32 - 1));
      const keys = Uint32Array.from({ length: n }, () => Math.floor(rnd() * distinct) * Math.floor(2 ** 32 / distinct));
      const rows = Uint32Array.from({ length: n }, (_, i) => i);
      const other = rows.map((r) => r * 7);
      const order = Array.from(rows).sort((a, b) => keys[a] - keys[b] || a - b);
      const want = order.map((i) => keys[i]);
      // no payload, one (its own loop) and two columns
      const columns = [[], [rows], [rows, other]][seed % 3];
      sortByKeyU32(keys, ...columns);
      expect(Array.from(keys)).toEqual(want);
      if (columns.length > 0) expect(Array.from(rows)).toEqual(order);
      if (columns.length > 1) expect(Array.from(other)).toEqual(order.map((r) => r * 7));
    }
  });

  it('sortedByKeyU32 sorts the first n rows of longer columns stably into new arrays of length n', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = prng(100 + seed);
      const n = Math.floor(rnd() * 3000),
        spare = Math.floor(rnd() * 500);
      const distinct = 1 + Math.floor(rnd() * (seed % 3 === 0 ? 5 : 2 ** 32 - 1));
      const step = Math.floor(2 ** 32 / distinct);
      const keys = Uint32Array.from({ length: n + spare }, () => Math.floor(rnd() * distinct) * step);
      const rows = Uint32Array.from({ length: n + spare }, (_, i) => i);
      const order = Array.from(rows.subarray(0, n)).sort((a, b) => keys[a] - keys[b] || a - b);
      const want = order.map((i) => keys[i]);
      // one, two (their own loops) and three payload columns
      const times7 = rows.map((r) => r * 7),
        xor5 = rows.map((r) => r ^ 5);
      const columns = [[rows], [rows, times7], [rows, times7, xor5]][seed % 3];
      const [k, ...sorted] = sortedByKeyU32(n, keys, ...columns);
      expect(Array.from(k)).toEqual(want);
      expect(Array.from(sorted[0])).toEqual(order);
      if (sorted.length > 1) expect(Array.from(sorted[1])).toEqual(order.map((r) => r * 7));
      if (sorted.length > 2) expect(Array.from(sorted[2])).toEqual(order.map((r) => r ^ 5));
    }
  });

  it('sortRangeBy sorts a range in place and stably, as Array.prototype.sort does (short and long ranges)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = prng(seed);
      const n = Math.floor(rnd() * (seed % 4 === 0 ? 200 : 40));
      const items = Array.from({ length: n }, (_, id) => ({ key: Math.floor(rnd() * (1 + (seed % 7))), id }));
      // in order already (left as it is)
      if (seed % 5 === 0) items.sort((x, y) => x.key - y.key);
      const from = Math.floor(rnd() * (n + 1)),
        to = from + Math.floor(rnd() * (n - from + 1));
      const cmp = (x: { key: number }, y: { key: number }) => x.key - y.key;
      const want = [...items.slice(0, from), ...items.slice(from, to).sort(cmp), ...items.slice(to)];
      sortRangeBy(items, cmp, from, to);
      expect(items.map((x) => x.id)).toEqual(want.map((x) => x.id));
    }
  });

  it('sortRangeBy sorts a long range in order but for its last item', () => {
    const items = Array.from({ length: 100 }, (_, id) => ({ key: id >> 2, id }));
    items[99].key = -1;
    sortRangeBy(items, (x, y) => x.key - y.key, 0, 100);
    expect(items.map((x) => x.id)).toEqual([99, ...Array.from({ length: 99 }, (_, id) => id)]);
  });

  it('sortRangeU32 sorts a range of a typed column in place (short and long ranges), the rest untouched', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const rnd = prng(seed);
      const n = Math.floor(rnd() * (seed % 3 === 0 ? 150 : 40));
      const a = Uint32Array.from({ length: n }, () => Math.floor(rnd() * (seed % 2 ? 5 : 2 ** 32)));
      const from = Math.floor(rnd() * (n + 1)),
        to = from + Math.floor(rnd() * (n - from + 1));
      const want = [...a.slice(0, from), ...Array.from(a.slice(from, to)).sort((x, y) => x - y), ...a.slice(to)];
      sortRangeU32(a, from, to);
      expect(Array.from(a)).toEqual(want);
    }
  });

  it('lowerBound is the count of smaller values', () => {
    const rnd = prng(3);
    const a = Uint32Array.from({ length: 500 }, () => Math.floor(rnd() * 100)).sort();
    for (let v = -1; v <= 101; v++) expect(lowerBound(a, v)).toBe(a.filter((x) => x < v).length);
    for (let v = -1; v <= 101; v++) expect(upperBound(a, v)).toBe(a.filter((x) => x <= v).length);
    expect(upperBound([], 5)).toBe(0);
    expect(lowerBound([], 5)).toBe(0);
    expect(lowerBound(a, 50, 100, 200)).toBe(Math.min(200, Math.max(100, a.filter((x) => x < 50).length)));
  });
});
