/**
 * Values msgpack writes in one byte (nil, booleans, −32…127) are encoded to one shared array each
 * (src/store/memory.ts): an index of 100,000 entries of `1` holds one array, not 100,000; every value still reads back
 * as written, from every key, and a value read back is still a copy the caller may change.
 */
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue, MemoryStore } from '../../src/store/memory.js';

describe('one-byte values', () => {
  it('are one shared array each, and read back as written', () => {
    for (const v of [null, true, false, 0, 1, 127, -1, -32]) {
      const a = encodeValue(v);
      expect(a.byteLength).toBe(1);
      expect(encodeValue(v)).toBe(a);
      expect(decodeValue(a)).toBe(v);
    }
    // two bytes or more: an array of its own each time
    expect(encodeValue(128)).not.toBe(encodeValue(128));
    expect(encodeValue([1])).not.toBe(encodeValue([1]));
  });

  it('read back right from many keys of a store, beside other values', async () => {
    const store = new MemoryStore();
    const values = [1, 2, true, null, 'x', [1], 1, -5];
    await store.batch(values.map((value, i) => ({ type: 'put', key: `k/${i}`, value })));
    expect((await store.scan('k/')).map(([, v]) => v)).toEqual(values);
    await store.put('k/0', 7);
    expect(await store.get('k/6')).toBe(1);
    expect(await store.get('k/0')).toBe(7);
    await store.close();
  });
});
