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

  it('encoded a piece at a time (nested too), refuse a lone surrogate on either side of a cut with the same error', async () => {
    const text = stringOf('ab cé 漢字😀\n', 300_001);
    const value = { a: text, b: [1, text.slice(7), { c: stringOf('😀', 70_000) }], d: 'short' };
    expect(Buffer.from(await encodeValueSliced(value)).equals(Buffer.from(encodeValue(value)))).toBe(true);
    expect(Buffer.from(await encodeValueSliced([text])).equals(Buffer.from(msgpack.encode([text])))).toBe(true);
    // lone halves just before, at and after a piece's cut (65,536 units), and at the ends
    for (const at of [0, 65_535, 65_536, 65_537, 131_071, 199_999]) {
      for (const half of ['\ud800', '\udc00']) {
        const s = `${stringOf('a', at)}${half}${stringOf('b', 200_000 - at)}`;
        const sync = (() => {
          try {
            encodeValue({ x: [s] });
          } catch (e) {
            return e;
          }
        })() as Error;
        expect(sync, `${at} ${JSON.stringify(half)}`).toMatchObject({ code: 'INVALID_INPUT' });
        await expect(encodeValueSliced({ x: [s] }), `${at} ${JSON.stringify(half)}`).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: sync.message,
        });
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
