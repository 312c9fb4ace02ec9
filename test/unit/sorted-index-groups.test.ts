/**
 * SortedIndex.applyAll (src/store/memory.ts), the group commit's write of many keys at once, against the obvious
 * reference (a Map, its keys sorted) and against applying the same writes one by one, on seeded random groups: new
 * keys at random places, overwrites, deletes of keys present and absent, a key put then deleted then put again within
 * one group.
 */
import { describe, expect, it } from 'vitest';
import { encodeValue, SortedIndex, type EncodedOp } from '../../src/store/memory.js';
import { prng } from '../reference/core.js';

/** A random group of writes over a small key space (so that groups hit keys already there), `n` of them. */
function randomGroup(rnd: () => number, n: number, space: number): EncodedOp[] {
  return Array.from({ length: n }, (): EncodedOp => {
    const key = `k/${Math.floor(rnd() * space)
      .toString(36)
      .padStart(4, '0')}`;
    return rnd() < 0.7 ? { type: 'put', key, value: encodeValue(Math.floor(rnd() * 1000)) } : { type: 'delete', key };
  });
}

const state = (index: SortedIndex, prefix = '') =>
  [...index.keysFrom(prefix)].map((k) => [k, Array.from((index.get(k) as Uint8Array | undefined) ?? [])]);

describe('SortedIndex.applyAll', () => {
  it('leaves the index as the reference map and as one write at a time do, over 40 seeded runs of groups', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = prng(seed);
      const grouped = new SortedIndex();
      const single = new SortedIndex();
      const reference = new Map<string, Uint8Array>();
      for (let g = 0; g < 12; g++) {
        // groups under and over the bulk threshold (64)
        const ops = randomGroup(rnd, Math.floor(rnd() * (g % 2 ? 40 : 900)), 1 + Math.floor(rnd() * 5000));
        grouped.applyAll(ops);
        for (const op of ops) {
          single.apply(op);
          if (op.type === 'put') reference.set(op.key, op.value);
          else reference.delete(op.key);
        }
        const want = [...reference.keys()].sort().map((k) => [k, Array.from(reference.get(k)!)]);
        expect(state(grouped)).toEqual(want);
        expect(state(single)).toEqual(want);
        expect(grouped.size).toBe(reference.size);
      }
    }
  });

  it('keeps prefix scans and `after` cursors right after a bulk merge', () => {
    const index = new SortedIndex();
    const ops: EncodedOp[] = [];
    for (let i = 999; i >= 0; i--)
      ops.push({ type: 'put', key: `t/${String(i).padStart(4, '0')}`, value: encodeValue(i) });
    ops.push({ type: 'put', key: 'a', value: encodeValue(0) }, { type: 'put', key: 'z', value: encodeValue(0) });
    index.applyAll(ops);
    expect([...index.keysFrom('t/', 't/0997')]).toEqual(['t/0998', 't/0999']);
    expect([...index.keysFrom('t/')].length).toBe(1000);
    index.applyAll(
      Array.from(
        { length: 500 },
        (_, i): EncodedOp => ({ type: 'delete', key: `t/${String(2 * i).padStart(4, '0')}` }),
      ),
    );
    expect([...index.keysFrom('t/')].slice(0, 3)).toEqual(['t/0001', 't/0003', 't/0005']);
    expect([...index.keysFrom('')].at(-1)).toBe('z');
  });

  it('a key put, deleted and put again within one group is there once', () => {
    const index = new SortedIndex();
    const filler = Array.from(
      { length: 100 },
      (_, i): EncodedOp => ({ type: 'put', key: `f${i}`, value: encodeValue(i) }),
    );
    index.applyAll([
      ...filler,
      { type: 'put', key: 'x', value: encodeValue(1) },
      { type: 'delete', key: 'x' },
      { type: 'put', key: 'x', value: encodeValue(2) },
      { type: 'delete', key: 'f3' },
      { type: 'put', key: 'f3', value: encodeValue(3) },
    ]);
    expect([...index.keysFrom('x')]).toEqual(['x']);
    expect([...index.keysFrom('f')].filter((k) => k === 'f3')).toEqual(['f3']);
    expect(index.size).toBe(101);
  });
});
