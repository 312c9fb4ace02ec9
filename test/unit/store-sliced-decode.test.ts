/**
 * A large stored value (a job's catalogue item) is decoded with turns of the event loop (src/store/memory.ts,
 * decodeValueSliced, from the msgpack headers read by src/store/encoding.ts): the value decodeValue gives, at every
 * header size, binaries copied; each value's end found from its headers; cut or corrupt bytes refused.
 */
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import { containerHead, valueEnd } from '../../src/store/encoding.js';
import { decodeValue, decodeValueSliced, encodeValue } from '../../src/store/memory.js';

const works = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `w${i}`, text: `word${i % 97} `.repeat(60), n: i * 1_000_003 }));

/** Scalars of every msgpack width: fixint, ints 8–64, floats, strings of each length form, binaries, nil, booleans. */
const scalars = [
  0,
  127,
  128,
  255,
  256,
  65_535,
  65_536,
  2 ** 32,
  2 ** 53 - 1,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32_768,
  -32_769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  -(2 ** 53) + 1,
  0.5,
  -1.25e300,
  Number.MIN_VALUE,
  null,
  true,
  false,
  '',
  'a',
  'x'.repeat(31),
  'x'.repeat(32),
  'y'.repeat(255),
  'y'.repeat(256),
  'z'.repeat(65_535),
  'z'.repeat(65_536),
  'é—😀',
  Uint8Array.of(),
  Uint8Array.of(1, 2, 3),
  new Uint8Array(256).fill(7),
  new Uint8Array(65_536).fill(9),
];

describe('valueEnd', () => {
  it('finds the end of each value from its headers, inside a larger buffer too', () => {
    const values = [
      ...scalars,
      [],
      {},
      Array.from({ length: 16 }, (_, i) => i),
      Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, [i, { a: 'b' }]])),
      { works: works(3) },
    ];
    for (const v of values) {
      const bytes = encodeValue(v);
      expect(valueEnd(bytes, 0)).toBe(bytes.byteLength);
      const padded = new Uint8Array(bytes.byteLength + 3);
      padded.set(bytes, 2);
      expect(valueEnd(padded, 2)).toBe(bytes.byteLength + 2);
    }
    expect(containerHead(encodeValue([1, 2]), 0)).toEqual({ kind: 'array', size: 2, headerBytes: 1 });
    expect(containerHead(encodeValue('s'), 0)).toBeUndefined();
  });

  it('throws when the bytes end before the value does', () => {
    const bytes = encodeValue({ a: 'x'.repeat(100) });
    expect(() => valueEnd(bytes.subarray(0, bytes.byteLength - 1), 0)).toThrow(RangeError);
    expect(() => valueEnd(Uint8Array.of(0xc1), 0)).toThrow(RangeError);
  });
});

describe('decodeValueSliced', () => {
  it('gives the value decodeValue gives for a job item of a catalogue, at every array and map header size', async () => {
    for (const n of [20_000, 65_536]) {
      const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`m${i}`, i % 2 ? `v${i}` : [i, null]]));
      const value = [{ works: works(n), model: { base_url: 'http://x', model: 'm' }, scalars, ...many }];
      const bytes = encodeValue(value);
      expect(bytes.byteLength).toBeGreaterThan(1 << 20);
      const decoded = await decodeValueSliced(bytes);
      expect(decoded).toEqual(decodeValue(bytes));
      expect(decoded).toEqual(value);
    }
  });

  it('decodes a map of 65,536 members and an array of maps, binaries copied out of the stored bytes', async () => {
    const wide = Object.fromEntries(Array.from({ length: 65_536 }, (_, i) => [`member ${i}`, i]));
    const value = { wide, rows: Array.from({ length: 5_000 }, (_, i) => ({ i, bin: new Uint8Array(200).fill(i) })) };
    const bytes = encodeValue(value);
    const decoded = (await decodeValueSliced(bytes)) as typeof value;
    expect(decoded).toEqual(value);
    decoded.rows[0].bin[0] = 99;
    expect(decodeValue(bytes)).toEqual(value);
  });

  it('turns the event loop while it decodes 100,000 works', async () => {
    const bytes = encodeValue([{ works: works(100_000) }]);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const decoded = (await decodeValueSliced(bytes).finally(() => clearInterval(ticker))) as Array<{
      works: unknown[];
    }>;
    expect(decoded[0].works).toHaveLength(100_000);
    expect(ticks).toBeGreaterThan(2);
  });

  it('refuses cut bytes and bytes past the value (STORE_CORRUPT)', async () => {
    const bytes = encodeValue([{ works: works(20_000) }]);
    const past = new Uint8Array(bytes.byteLength + 1);
    past.set(bytes);
    for (const bad of [bytes.subarray(0, bytes.byteLength - 5), past]) {
      const error = await decodeValueSliced(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TrainprintError);
      expect((error as TrainprintError).code).toBe('STORE_CORRUPT');
    }
  });
});
