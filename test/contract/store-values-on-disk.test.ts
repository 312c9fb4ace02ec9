/**
 * The file store's values kept on disk (src/store/value-file.ts): values of `valuesOnDiskFrom` bytes or more are read
 * back from the log or the snapshot, after compactions, while compactions replace the files, after a crash, and
 * damage to them is reported. The Store contract itself runs against this configuration in store.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileStore } from '../../src/store/node.js';
import { TrainprintError } from '../../src/errors.js';

let tmpRoot: string;
beforeAll(async () => {
  tmpRoot = await mkdtemp(join(tmpdir(), 'trainprint-disk-values-'));
});
afterAll(async () => {
  await rm(tmpRoot, { recursive: true, force: true });
});
let dirCount = 0;
const freshDir = (): string => join(tmpRoot, `s${dirCount++}`);

/** A value of about `bytes` bytes that says which key and version it is (a text, as analyses keep). */
function large(key: string, version: number, bytes: number): { key: string; version: number; text: string } {
  const line = `${key} version ${version}: the quick brown fox jumps over the lazy dog. `;
  return { key, version, text: line.repeat(Math.ceil(bytes / line.length)) };
}

const SIZES = [5_000, 70_000, 1_500_000, 200, 4_096];

describe('FileStore: values on disk', () => {
  it('reads large values back from the log, after compactions and after reopening', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 5 });
    const expected = new Map<string, unknown>();
    for (let i = 0; i < 23; i++) {
      const key = `analysis/${String(i % 9).padStart(2, '0')}`;
      const value = large(key, i, SIZES[i % SIZES.length]);
      await s.put(key, value);
      expected.set(key, value);
      expect(await s.get(key)).toEqual(value);
    }
    await s.batch([
      { type: 'put', key: 'analysis/small', value: 1 },
      { type: 'put', key: 'analysis/big', value: large('analysis/big', 0, 100_000) },
    ]);
    expected.set('analysis/small', 1);
    expected.set('analysis/big', large('analysis/big', 0, 100_000));
    const sorted = [...expected].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(await s.scan('analysis/')).toEqual(sorted);
    for (const [key, value] of expected) expect(await s.get(key)).toEqual(value);
    await s.close();
    for (const options of [{}, { valuesOnDiskFrom: 0 }, { valuesOnDiskFrom: Infinity }]) {
      const again = await openFileStore(dir, options);
      expect(await again.scan('analysis/')).toEqual(sorted);
      expect(await again.get('analysis/big')).toEqual(expected.get('analysis/big'));
      await again.close();
    }
  });

  it('a value read back is a fresh copy each time', async () => {
    const s = await openFileStore(freshDir());
    const value = { bytes: new Uint8Array(10_000).fill(7), list: [1, 2, 3] };
    await s.put('k', value);
    const a = (await s.get('k')) as typeof value;
    a.bytes[0] = 0;
    a.list.push(4);
    expect(await s.get('k')).toEqual(value);
    await s.close();
  });

  it('reads racing compactions see the committed values (the replaced files stay open for them)', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 2 });
    const keys = Array.from({ length: 12 }, (_, i) => `w/${String(i).padStart(2, '0')}`);
    for (const key of keys) await s.put(key, large(key, 0, 20_000));
    const versions = new Map(keys.map((k) => [k, 0]));
    const reads: Array<Promise<void>> = [];
    const writes: Array<Promise<void>> = [];
    for (let round = 1; round <= 30; round++) {
      // a scan and gets issued before the writes of this round: each sees a version at least as new as the last
      // acknowledged one, whichever files (old log, old snapshot, new snapshot) its values are read from
      const floor = new Map(versions);
      reads.push(
        s.scan('w/').then((entries) => {
          expect(entries.map(([k]) => k)).toEqual(keys);
          for (const [k, v] of entries) {
            const value = v as ReturnType<typeof large>;
            expect(value.version).toBeGreaterThanOrEqual(floor.get(k)!);
            expect(value).toEqual(large(k, value.version, 20_000));
          }
        }),
      );
      for (const key of keys.slice(round % 3, (round % 3) + 4)) {
        reads.push(
          s.get(key).then((v) => {
            const value = v as ReturnType<typeof large>;
            expect(value).toEqual(large(key, value.version, 20_000));
          }),
        );
      }
      const key = keys[round % keys.length];
      const version = round;
      writes.push(
        s.put(key, large(key, version, 20_000)).then(() => {
          versions.set(key, Math.max(versions.get(key)!, version));
        }),
      );
      if (round % 5 === 0) await Promise.all(writes);
    }
    await Promise.all([...writes, ...reads]);
    for (const key of keys) expect(((await s.get(key)) as ReturnType<typeof large>).version).toBe(versions.get(key));
    await s.close();
    const again = await openFileStore(dir);
    for (const key of keys)
      expect(((await again.get(key)) as ReturnType<typeof large>).version).toBe(versions.get(key));
    await again.close();
  });

  it('a scan that started before a compaction finishes reading from the replaced files', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 3 });
    const keys = ['a', 'b'];
    for (const key of keys) await s.put(key, large(key, 0, 3_000_000));
    // the scan's reads are issued now, on the log of generation 0; the put after it compacts (3 records), which
    // renames a new log over that one and retires it, likely while the scan is still reading
    const scan = s.scan('');
    await s.put('c', large('c', 0, 3_000_000));
    await s.put('d', 1); // written after the compaction
    expect((await stat(join(dir, 'store.log'))).size).toBeLessThan(4096 + 100); // a fresh log: the compaction ran
    expect(await scan).toEqual(keys.map((k) => [k, large(k, 0, 3_000_000)]));
    expect(await s.get('c')).toEqual(large('c', 0, 3_000_000));
    await s.close();
  });

  it('a scan in flight when the store closes finishes; close waits for its reads', async () => {
    const s = await openFileStore(freshDir());
    for (const key of ['a', 'b', 'c']) await s.put(key, large(key, 0, 2_000_000));
    const scan = s.scan('');
    await s.close();
    expect(await scan).toEqual(['a', 'b', 'c'].map((k) => [k, large(k, 0, 2_000_000)]));
  });

  it('reopens after a crash with large values: acknowledged ones intact, a torn large record dropped', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 4 });
    const written = new Map<string, unknown>();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const key = `k/${i}`;
        const value = large(key, i, 8_000 * (i + 1));
        written.set(key, value);
        return s.put(key, value);
      }),
    );
    // the files as a crash now would leave them (no close, maybe no checkpoint), with half of a large record appended
    const crashed = freshDir();
    await mkdir(crashed);
    for (const f of ['store.log', 'snapshot', 'MANIFEST']) {
      const bytes = await readFile(join(dir, f)).catch(() => undefined);
      if (bytes) await writeFile(join(crashed, f), bytes);
    }
    const other = await openFileStore(freshDir());
    await other.put('torn', large('torn', 0, 50_000));
    await other.close();
    await s.close();
    const log = await readFile(join(crashed, 'store.log'));
    const torn = await readFile(join(other.dir, 'store.log'));
    // a record of another log: its seq does not follow, and it is cut short: a torn write after the durable point
    await writeFile(join(crashed, 'store.log'), Buffer.concat([log, torn.subarray(4096, 4096 + 20_000)]));
    const again = await openFileStore(crashed);
    for (const [key, value] of written) expect(await again.get(key)).toEqual(value);
    expect(await again.get('torn')).toBeUndefined();
    await again.put('after', large('after', 0, 9_000));
    await again.close();
    const third = await openFileStore(crashed);
    expect(await third.get('after')).toEqual(large('after', 0, 9_000));
    expect((await third.scan('k/')).length).toBe(10);
    await third.close();
  });

  it('a large value deleted is gone from the files after the next compaction', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 3 });
    await s.put('keep', large('keep', 0, 10_000));
    await s.put('big', large('big', 0, 2_000_000));
    await s.put('x', 1); // third record: compaction (once it is acknowledged), the big value copied into the snapshot
    expect(await s.delete('big')).toBe(true); // written after the compaction
    expect((await stat(join(dir, 'snapshot'))).size).toBeGreaterThan(2_000_000);
    await s.put('y', 2);
    await s.put('z', 3); // third record of this log: compaction, the snapshot holds what is left
    await s.put('w', 4); // written after the compaction
    expect((await stat(join(dir, 'snapshot'))).size).toBeLessThan(20_000);
    expect((await stat(join(dir, 'store.log'))).size).toBeLessThan(4096 + 100);
    expect(await s.get('big')).toBeUndefined();
    expect(await s.get('keep')).toEqual(large('keep', 0, 10_000));
    await s.close();
  });

  it('damage to a value on disk is STORE_CORRUPT for the reads of that value only', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 2 });
    await s.put('a', large('a', 0, 10_000));
    await s.put('b', large('b', 0, 10_000)); // compaction: both in the snapshot
    await s.put('c', 1); // written after the compaction
    const snapshot = await readFile(join(dir, 'snapshot'));
    const at = snapshot.indexOf('a version 0') + 100; // inside a's text
    const file = await open(join(dir, 'snapshot'), 'r+');
    await file.write(Uint8Array.of(snapshot[at] ^ 0x01), 0, 1, at);
    await file.close();
    const error = await s.get('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrainprintError);
    expect((error as TrainprintError).code).toBe('STORE_CORRUPT');
    expect((error as Error).message).toMatch(/snapshot: the value of \d+ bytes at byte \d+ does not match its CRC-32/);
    await expect(s.scan('')).rejects.toThrow(/does not match its CRC-32/);
    expect(await s.get('b')).toEqual(large('b', 0, 10_000));
    await s.close();
    await expect(openFileStore(dir)).rejects.toThrow(/snapshot: CRC mismatch/);
  });

  it('after reopening, large values are read from the snapshot and the log, small ones from memory', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir, { compactEvery: 3 });
    await s.put('snap', large('snap', 0, 10_000));
    await s.put('small', 'tiny');
    await s.put('x', 1); // compaction once acknowledged
    await s.put('logged', large('logged', 0, 10_000)); // in the new log
    await s.close();
    const again = await openFileStore(dir, { compactEvery: 3 });
    for (const [file, key] of [
      ['snapshot', 'snap'],
      ['store.log', 'logged'],
      ['snapshot', 'small'],
    ]) {
      const bytes = await readFile(join(dir, file));
      const at = bytes.indexOf(key === 'small' ? 'tiny' : `${key} version 0`) + 2;
      const handle = await open(join(dir, file), 'r+');
      await handle.write(Uint8Array.of(bytes[at] ^ 0x01), 0, 1, at);
      await handle.close();
    }
    await expect(again.get('snap')).rejects.toThrow(/snapshot: the value .* does not match its CRC-32/);
    await expect(again.get('logged')).rejects.toThrow(/store\.log: the value .* does not match its CRC-32/);
    expect(await again.get('small')).toBe('tiny'); // read at open, kept in memory
    await again.close();
  });

  it('a file cut short under an open store is STORE_CORRUPT naming the bytes', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir);
    await s.put('a', large('a', 0, 10_000));
    const file = await open(join(dir, 'store.log'), 'r+');
    await file.truncate(4096 + 100);
    await file.close();
    await expect(s.get('a')).rejects.toThrow(/store\.log: expected \d+ bytes at byte \d+, found \d+ before the end/);
    await s.close();
  });

  it('valuesOnDiskFrom is validated', async () => {
    for (const bad of [-1, Number.NaN, '4096']) {
      const error = await openFileStore(freshDir(), { valuesOnDiskFrom: bad as number }).catch((e: unknown) => e);
      expect((error as TrainprintError).code).toBe('INVALID_OPTIONS');
    }
  });
});
