/**
 * A long string stored as a value of its own (a registered work's text) is written by hand as msgpack's str 32
 * (src/store/memory.ts encodeLongString): the same bytes msgpack's own encoder writes, read back as written, a lone
 * surrogate still refused.
 */
import { Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue, encodeValueSliced, MemoryStore } from '../../src/store/memory.js';

const msgpack = new Encoder();
const ALPHABETS = ['a', 'é', '漢', '😀', 'ab cé 漢字😀\n'];
/** A string of exactly `units` UTF-16 units of `alphabet` repeated (a pair never cut in half). */
const stringOf = (alphabet: string, units: number): string => {
  let s = alphabet.repeat(Math.ceil(units / alphabet.length)).slice(0, units);
  if (/[\ud800-\udbff]$/.test(s)) s = `${s.slice(0, -1)}x`;
  return s;
};

describe('long strings in the store', () => {
  it('are the bytes msgpack writes, and read back as written', async () => {
    for (const alphabet of ALPHABETS) {
      for (const units of [65_535, 65_536, 65_537, 100_003, 400_000]) {
        const s = stringOf(alphabet, units);
        const at = `${JSON.stringify(alphabet)} × ${units} units`;
        const bytes = encodeValue(s);
        expect(Buffer.from(bytes).equals(Buffer.from(msgpack.encode(s))), at).toBe(true);
        expect(decodeValue(bytes), at).toBe(s);
        expect(Buffer.from(await encodeValueSliced(s)).equals(Buffer.from(bytes)), at).toBe(true);
      }
    }
  });

  it('round-trip through a store, and a lone surrogate is still INVALID_INPUT', async () => {
    const store = new MemoryStore();
    const text = stringOf('The quick brown fox. 漢字 😀 ', 1 << 20);
    await store.put('work-text/wk_1', text);
    expect(await store.get('work-text/wk_1')).toBe(text);
    const lone = `${stringOf('a', 70_000)}\ud800b`;
    await expect(store.put('work-text/wk_2', lone)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await store.get('work-text/wk_2')).toBeUndefined();
    await store.close();
  });
});
