/**
 * The store's check of a value before it is encoded: it names the path of the first part msgpack would not give back
 * unchanged (the path is written out only then), and lets every storable value through unchanged.
 */
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../../src/store/memory.js';

const messageOf = (value: unknown): string => {
  try {
    encodeValue(value);
  } catch (e) {
    expect(e).toMatchObject({ code: 'INVALID_INPUT' });
    // the error table's prefix, then the store's words
    return (e as Error).message.replace(/^The input is not valid: /, '');
  }
  throw new Error('no error');
};

describe('encodeValue checks', () => {
  it('names the path of the bad part, as in code', () => {
    expect(messageOf(undefined)).toBe('the stored value is undefined (use null, or leave the member out)');
    expect(messageOf({ a: [1, { b: undefined }] })).toBe(
      'the stored value.a[1].b is undefined (use null, or leave the member out)',
    );
    expect(messageOf([[0, 1n]])).toBe('the stored value[0][1] is a bigint');
    expect(messageOf({ x: { y: [new Date(0)] } })).toBe(
      'the stored value.x.y[0] is an instance of Date; only plain objects, arrays and Uint8Array are stored',
    );
    expect(messageOf({ ok: 'fine', s: ['a', '\ud800'] })).toBe(
      'the stored value.s[1] is a string with a lone surrogate',
    );
  });

  it('names the path after siblings that passed (the path is the bad part’s, not the last visited)', () => {
    const value = { first: { deep: [1, 2, { k: 'v' }] }, list: [{ a: 1 }, { a: 2 }, { a: () => 0 }] };
    expect(messageOf(value)).toBe('the stored value.list[2].a is a function');
  });

  it('names a member the decoder would refuse, and nesting past the limit', () => {
    expect(messageOf(JSON.parse('{"a":{"__proto__":1}}'))).toBe(
      'the stored value.a has an unstorable member name "__proto__"',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(messageOf(cyclic)).toMatch(/^the stored value(\.self)+ nests deeper than 100 levels \(or is cyclic\)$/);
  });

  it('stores every storable value unchanged, and a failed check leaves the next one clean', () => {
    expect(() => encodeValue({ a: [undefined] })).toThrow();
    const value = { a: [1, 'x', null, true, { b: new Uint8Array([1, 2]) }], c: { d: [[-1.5]] } };
    expect(decodeValue(encodeValue(value))).toEqual(value);
    expect(messageOf([{ z: undefined }])).toBe(
      'the stored value[0].z is undefined (use null, or leave the member out)',
    );
  });
});
