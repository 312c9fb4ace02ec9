/**
 * The file store's log record framed as chunks (src/store/log-record.ts): a large value written from its own bytes,
 * the chunks byte for byte the one-buffer record at every msgpack header size, and a store that writes such a record
 * reads it back after a restart (its recovery checks each record's CRC).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShrinkingEncoder } from '../../src/store/encoding.js';
import { frameRecord, frameRecordChunks } from '../../src/store/log-record.js';
import type { EncodedOp } from '../../src/store/memory.js';
import { openFileStore } from '../../src/store/node.js';

const encoder = new ShrinkingEncoder();
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const joined = (chunks: Uint8Array[]) => Buffer.concat(chunks);

describe('frameRecordChunks', () => {
  it('is frameRecord byte for byte around the own-chunk line and at every array header size', () => {
    for (const size of [0, 255, 256, 65_535, 65_536, 70_000, 1 << 20])
      for (const count of [1, 2, 15, 16, 17]) {
        const ops: EncodedOp[] = Array.from({ length: count }, (_, i) =>
          i % 3 === 2
            ? { type: 'delete', key: `gone/${i}` }
            : { type: 'put', key: `k/é/${i}`, value: bytes(i === 0 ? size : i * 100, i) },
        );
        const chunks = frameRecordChunks(count + size, ops, encoder);
        expect(joined(chunks).equals(Buffer.from(frameRecord(count + size, ops, encoder))), `${size} × ${count}`).toBe(
          true,
        );
        // a large value is its own chunk: the very bytes, not a copy
        if (size >= 65_536) expect(chunks.includes((ops[0] as { value: Uint8Array }).value)).toBe(true);
        else expect(chunks).toHaveLength(1);
      }
  });

  it('is frameRecord byte for byte for 65,536 ops, one of them large (array 32)', () => {
    const ops: EncodedOp[] = Array.from({ length: 65_536 }, (_, i) => ({ type: 'delete', key: `d${i}` }));
    ops[40_000] = { type: 'put', key: 'job/1', value: bytes(100_000, 3) };
    expect(joined(frameRecordChunks(9, ops, encoder)).equals(Buffer.from(frameRecord(9, ops, encoder)))).toBe(true);
  });
});

describe('a file store writing a large value', () => {
  it('reads it back after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-record-'));
    try {
      const works = Array.from({ length: 5000 }, (_, i) => ({ id: `w${i}`, text: `word${i} `.repeat(20) }));
      const first = await openFileStore(dir);
      await first.put('job/item', { works });
      await first.put('small', 1);
      await first.close();
      const again = await openFileStore(dir);
      expect(await again.get('job/item')).toEqual({ works });
      expect(await again.get('small')).toBe(1);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
