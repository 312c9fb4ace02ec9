/**
 * A stored value holding a large array (a job's catalogue) is encoded with turns of the event loop
 * (src/store/memory.ts, encodeValueSliced / encodeBatchSliced): byte for byte what encodeValue writes, at every header
 * size of the levels written by hand, with the same refusals naming the same paths.
 */
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import { decodeValue, encodeBatch, encodeBatchSliced, encodeValue, encodeValueSliced } from '../../src/store/memory.js';

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

const works = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `w${i}`, text: `word${i} `.repeat(i % 7) }));

describe('encodeValueSliced', () => {
  it('writes the bytes of encodeValue for a job item of a catalogue, at every array and map header size', async () => {
    for (const n of [1024, 65_535, 65_536]) {
      // a job's chunk: an array of items, each an object whose `works` is the large array; map 16 past 15 members
      const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`m${i}`, i % 2 ? `v${i}` : [i, null]]));
      const value = [{ works: works(n), model: { base_url: 'http://x', model: 'm' }, budget_calls: 2000, ...many }];
      const bytes = await encodeValueSliced(value);
      expect(same(bytes, encodeValue(value))).toBe(true);
      expect(decodeValue(bytes)).toEqual(value);
    }
  });

  it('equals encodeValue on random values (property, seeded), large arrays in their first levels or not', async () => {
    let a = 7;
    const next = (n: number) => {
      a = (Math.imul(a, 1_103_515_245) + 12_345) >>> 0;
      return a % n;
    };
    const leaf = (): unknown =>
      [() => `s${next(1000)}é`, () => next(1 << 20) - 5, () => next(1000) / 7, () => next(2) === 0, () => null][
        next(5)
      ]();
    const small = (): unknown =>
      next(3) ? leaf() : Object.fromEntries(Array.from({ length: next(20) }, (_, i) => [`k${i}`, leaf()]));
    const large = () => Array.from({ length: 1024 + next(80) }, small);
    const value = (level: number): unknown => {
      const pick = next(4);
      if (pick === 0 || level >= 4) return large();
      if (pick === 1) return small();
      if (pick === 2) return Array.from({ length: next(4) }, () => value(level + 1));
      return Object.fromEntries(Array.from({ length: next(18) }, (_, i) => [`m${i}`, value(level + 1)]));
    };
    for (let run = 0; run < 40; run++) {
      const v = value(0);
      expect(same(await encodeValueSliced(v), encodeValue(v))).toBe(true);
    }
  });

  it('turns the event loop while it encodes 100,000 works', async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      const value = [{ works: works(100_000) }];
      const bytes = await encodeValueSliced(value);
      expect(turns).toBeGreaterThan(0);
      expect(same(bytes, encodeValue(value))).toBe(true);
    } finally {
      clearInterval(tick);
    }
  });

  it('refuses what encodeValue refuses, naming the same path', async () => {
    const bad = works(2000) as Array<Record<string, unknown>>;
    bad[1500] = { id: 'x', text: undefined };
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as TrainprintError).detail;
      }
      return null;
    };
    const expected = refusal(() => encodeValue({ works: bad }));
    expect(expected).toMatch(/\.works\[1500\]\.text is undefined/);
    await expect(encodeValueSliced({ works: bad })).rejects.toThrow(expected as string);
    class Work {}
    await expect(encodeValueSliced({ works: works(1024), at: [new Work()] })).rejects.toThrow(
      /\.at\[0\] is an instance/,
    );
    await expect(encodeValueSliced([works(1024), JSON.parse('{"__proto__": 1}')])).rejects.toBeInstanceOf(
      TrainprintError,
    );
  });
});

describe('encodeBatchSliced', () => {
  it('is encodeBatch: the same ops and bytes, large values or not', async () => {
    const ops = [
      { type: 'put' as const, key: 'a', value: 1 },
      { type: 'put' as const, key: 'job-items/1', value: [{ works: works(3000) }] },
      { type: 'delete' as const, key: 'b' },
    ];
    const sliced = await encodeBatchSliced(ops);
    const whole = encodeBatch(ops);
    expect(sliced.map((o) => [o.type, o.key])).toEqual(whole.map((o) => [o.type, o.key]));
    for (const [i, o] of sliced.entries())
      if (o.type === 'put') expect(same(o.value, (whole[i] as { value: Uint8Array }).value)).toBe(true);
    await expect(encodeBatchSliced([{ type: 'put', key: '', value: [works(1024)] }])).rejects.toThrow(/empty/);
  });
});
