/**
 * The stores' msgpack encoding that keeps no memory (src/store/encoding.ts): a snapshot's pieces are byte for byte
 * msgpack's own encoding of `{ entries }` at every header size, with the stored values written from where they are;
 * the shared encoder drops the buffer it grew for a large value.
 */
import { Decoder, Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { KEEP_ENCODER_BYTES, ShrinkingEncoder, snapshotChunks } from '../../src/store/encoding.js';

/** Byte equality (vitest's toEqual walks a large Uint8Array element by element). */
const same = (a: unknown, b: Uint8Array): boolean => a instanceof Uint8Array && Buffer.from(a).equals(b);

const concat = (chunks: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
};

describe('snapshotChunks', () => {
  it('is msgpack’s encoding of { entries } at every string, bin and array header size', () => {
    const sizes = [0, 1, 31, 32, 255, 256, 65_535, 65_536, 70_000];
    const entries: Array<[string, Uint8Array]> = [];
    for (const [i, n] of sizes.entries()) {
      const key = `k/${'é'.repeat(Math.min(n, 40_000))}${i}`; // fixstr, str 8/16/32 (UTF-8 of 2 bytes a letter)
      entries.push([key, Uint8Array.from({ length: n }, (_, j) => (j * 7 + i) & 0xff)]);
    }
    for (const count of [0, 1, 9, 15, 16, 65_535, 65_536]) {
      const list = Array.from({ length: count }, (_, i) => entries[i % entries.length]);
      const small =
        count > 100
          ? list.map(([k], i): [string, Uint8Array] => [`${k.slice(0, 8)}${i}`, Uint8Array.of(i & 0xff)])
          : list;
      const expected = new Encoder().encode({ entries: small });
      expect(same(concat(snapshotChunks(small)), expected)).toBe(true);
    }
  });

  it('writes the stored values from where they are (no copies)', () => {
    const value = new Uint8Array(1 << 20).fill(7);
    const chunks = snapshotChunks([['a', value]]);
    expect(chunks.some((c) => c === value)).toBe(true);
    const decoded = new Decoder().decode(concat(chunks)) as { entries: Array<[string, Uint8Array]> };
    expect(decoded.entries.length).toBe(1);
    expect(decoded.entries[0][0]).toBe('a');
    expect(same(decoded.entries[0][1], value)).toBe(true);
  });
});

describe('snapshotChunks memory', () => {
  it('large values among small pieces cost no block each: the pieces beside the values hold about their own bytes', () => {
    const values = Array.from({ length: 200 }, (_, i) => new Uint8Array(100_000).fill(i));
    const chunks = snapshotChunks(values.map((v, i): [string, Uint8Array] => [`analysis-record/${i}`, v]));
    const own = new Set<Uint8Array>(values);
    const buffers = new Set(chunks.filter((c) => !own.has(c)).map((c) => c.buffer));
    const held = [...buffers].reduce((n, b) => n + b.byteLength, 0);
    const written = chunks.filter((c) => !own.has(c)).reduce((n, c) => n + c.byteLength, 0);
    expect(written).toBeLessThan(200 * 40);
    expect(held).toBeLessThan(2 * written + (1 << 20)); // at most one block beyond them
  });
});

describe('ShrinkingEncoder', () => {
  it('encodes as msgpack and drops the buffer it grew for a value over the limit', () => {
    const e = new ShrinkingEncoder();
    const fresh = e.heldBytes;
    expect(fresh).toBeGreaterThan(0); // read from msgpack's Encoder: a change there shows here
    expect(e.encode({ a: 1 })).toEqual(Uint8Array.of(0x81, 0xa1, 0x61, 0x01));
    const under = new Uint8Array(KEEP_ENCODER_BYTES / 2);
    expect(same(new Decoder().decode(e.encode(under)), under)).toBe(true);
    expect(e.heldBytes).toBeGreaterThan(KEEP_ENCODER_BYTES / 2); // kept: at most about twice the limit
    const large = new Uint8Array(KEEP_ENCODER_BYTES * 4).fill(3);
    expect(same(new Decoder().decode(e.encode(large)), large)).toBe(true);
    expect(e.heldBytes).toBe(fresh);
    expect(e.encode({ a: 1 })).toEqual(Uint8Array.of(0x81, 0xa1, 0x61, 0x01));
  });

  it('a failed call leaves no grown buffer either', () => {
    const e = new ShrinkingEncoder();
    const fresh = e.heldBytes;
    expect(() => e.encode([new Uint8Array(KEEP_ENCODER_BYTES * 2), () => 1])).toThrow();
    expect(e.heldBytes).toBe(fresh);
  });
});
