/**
 * The file store opened a window at a time (src/store/file-window.ts): records and snapshot entries that cross a
 * window's edge or are longer than a window are replayed whole, and the recovery rules hold at a window's edge — a torn
 * record there is dropped alone, a damaged one with an intact record after it is STORE_CORRUPT. The windows are the
 * store's own (4 MiB), so these stores hold some tens of MB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileStore } from '../../src/store/node.js';
import { WINDOW_BYTES } from '../../src/store/file-window.js';
import { TrainprintError } from '../../src/errors.js';

let tmpRoot: string;
beforeAll(async () => {
  tmpRoot = await mkdtemp(join(tmpdir(), 'trainprint-windowed-open-'));
});
afterAll(async () => {
  await rm(tmpRoot, { recursive: true, force: true });
});
let dirCount = 0;
const freshDir = (): string => join(tmpRoot, `s${dirCount++}`);

/** A value of about `bytes` bytes that says which key it is. */
function large(key: string, bytes: number): { key: string; text: string } {
  const line = `${key}: the quick brown fox jumps over the lazy dog. `;
  return { key, text: line.repeat(Math.ceil(bytes / line.length)) };
}

const LOG_HEADER = 4096;

/** [start, end) of each log record. */
function recordSpans(log: Uint8Array): Array<[number, number]> {
  const dv = new DataView(log.buffer, log.byteOffset, log.byteLength);
  const out: Array<[number, number]> = [];
  for (let o = LOG_HEADER; o < log.length; o += 12 + dv.getUint32(o, true))
    out.push([o, o + 12 + dv.getUint32(o, true)]);
  return out;
}

const crossesEdge = ([start, end]: [number, number]) =>
  Math.floor(start / WINDOW_BYTES) !== Math.floor((end - 1) / WINDOW_BYTES);

async function scanAll(dir: string, options?: { valuesOnDiskFrom?: number }): Promise<Array<[string, unknown]>> {
  const s = await openFileStore(dir, options);
  const all = await s.scan('');
  await s.close();
  return all;
}

describe('FileStore: opened a window at a time', () => {
  it('records and snapshot entries across a window edge or longer than a window are read back whole', async () => {
    const dir = freshDir();
    const sizes = [1_500_000, 700_000, 5_000_000, 3_000, 2_500_000, WINDOW_BYTES - 40, 100, 1_200_000];
    const s = await openFileStore(dir, { compactEvery: 1_000 });
    const expected = new Map<string, unknown>();
    for (const [i, bytes] of sizes.entries()) {
      const key = `w/${i}`;
      await s.batch([
        { type: 'put', key, value: large(key, bytes) },
        { type: 'put', key: `small/${i}`, value: i },
      ]);
      expected.set(key, large(key, bytes));
      expected.set(`small/${i}`, i);
    }
    await s.delete('small/3');
    expected.delete('small/3');
    await s.close();
    const spans = recordSpans(await readFile(join(dir, 'store.log')));
    expect(spans.some(crossesEdge)).toBe(true);
    expect(spans.some(([start, end]) => end - start > WINDOW_BYTES)).toBe(true);
    const sorted = [...expected].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const valuesOnDiskFrom of [undefined, Infinity]) {
      expect([valuesOnDiskFrom, await scanAll(dir, { valuesOnDiskFrom })]).toEqual([valuesOnDiskFrom, sorted]);
    }
    // a compaction: the same values, now entries of one snapshot (one of them longer than a window)
    const c = await openFileStore(dir, { compactEvery: 1 });
    await c.put('after', 1);
    await c.close();
    expected.set('after', 1);
    const compacted = [...expected].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(recordSpans(await readFile(join(dir, 'store.log')))).toEqual([]); // all in the snapshot
    for (const valuesOnDiskFrom of [undefined, Infinity]) {
      expect([valuesOnDiskFrom, await scanAll(dir, { valuesOnDiskFrom })]).toEqual([valuesOnDiskFrom, compacted]);
    }
  });

  it('a byte changed in a snapshot past its first window is STORE_CORRUPT, and the open changes no file', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 3 });
    for (let i = 0; i < 3; i++) await s.put(`w/${i}`, large(`w/${i}`, 2_000_000));
    await s.close();
    const snapshot = await readFile(join(dir, 'snapshot'));
    expect(snapshot.length > WINDOW_BYTES + 1_000).toBe(true);
    const damaged = Uint8Array.from(snapshot);
    damaged[WINDOW_BYTES + 1_000] ^= 0x01; // inside a value, in the second window
    await writeFile(join(dir, 'snapshot'), damaged);
    const log = await readFile(join(dir, 'store.log'));
    const error = await openFileStore(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as TrainprintError).code).toBe('STORE_CORRUPT');
    expect((error as TrainprintError).message).toContain('snapshot: CRC mismatch');
    expect((await readFile(join(dir, 'snapshot'))).equals(damaged)).toBe(true);
    expect((await readFile(join(dir, 'store.log'))).equals(log)).toBe(true);
  });

  it('a torn record across a window edge is a torn tail: dropped alone, without error', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir);
    await s.put('a', large('a', WINDOW_BYTES - 600_000));
    await s.close();
    const before = await scanAll(dir);
    const log = await readFile(join(dir, 'store.log'));
    const again = await openFileStore(dir);
    await again.put('late', large('late', 1_500_000));
    await again.close();
    const frame = (await readFile(join(dir, 'store.log'))).subarray(log.length);
    const edge = WINDOW_BYTES - log.length; // where, in the late record, the second window begins
    expect(edge > 12 && edge < frame.length).toBe(true);
    for (const cut of [edge - 5, edge, edge + 1, frame.length - 1]) {
      await writeFile(join(dir, 'store.log'), Buffer.concat([log, frame.subarray(0, cut)]));
      expect([cut, await scanAll(dir)]).toEqual([cut, before]);
      expect((await readFile(join(dir, 'store.log'))).equals(log)).toBe(true); // only the torn part went
    }
  });

  it('a damaged record after the durable point with an intact record in the next window is STORE_CORRUPT', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir);
    await s.put('a', large('a', WINDOW_BYTES - 600_000));
    await s.close();
    const log = await readFile(join(dir, 'store.log'));
    const again = await openFileStore(dir);
    await again.put('late/1', large('late/1', 1_500_000));
    await again.put('late/2', large('late/2', 100_000));
    await again.close();
    // the first log's header still claims only 'a': both late records lie after its durable point
    const late = Uint8Array.from((await readFile(join(dir, 'store.log'))).subarray(log.length));
    const second = log.length + 12 + new DataView(late.buffer).getUint32(0, true);
    expect(second > WINDOW_BYTES).toBe(true);
    late[100] ^= 0x01; // inside the first late record's payload
    await writeFile(join(dir, 'store.log'), Buffer.concat([log, late]));
    const error = await openFileStore(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TrainprintError);
    expect((error as TrainprintError).code).toBe('STORE_CORRUPT');
    expect((error as TrainprintError).message).toContain(`an intact later record follows at byte ${second}`);
  });
});
