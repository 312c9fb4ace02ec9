/**
 * The file store's value files (src/store/value-file.ts): a retired file stays open until the reads pinned on it are
 * done, values next to each other are read together and each checked against its CRC-32.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskValue, readDiskValues, ValueFile } from '../../src/store/value-file.js';
import { crc32 } from '../../src/util/crc32.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trainprint-value-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bytesOf = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

async function fileWith(name: string, parts: Uint8Array[]): Promise<{ file: ValueFile; values: DiskValue[] }> {
  const path = join(dir, name);
  await writeFile(path, Buffer.concat(parts));
  const file = new ValueFile(name, await open(path, 'r'));
  let at = 0;
  const values = parts.map((p) => {
    const v = new DiskValue(file, at, p.length, crc32(p));
    at += p.length;
    return v;
  });
  return { file, values };
}

describe('ValueFile', () => {
  it('a retired file closes only once the reads pinned on it are done', async () => {
    const parts = [bytesOf(5000, 1), bytesOf(3, 2), bytesOf(200_000, 3)];
    const { file, values } = await fileWith('a', parts);
    const reading = readDiskValues(values); // pins synchronously
    const closed = file.retire();
    let isClosed = false;
    void closed.then(() => {
      isClosed = true;
    });
    expect(isClosed).toBe(false);
    const read = await reading;
    expect(read.map((b, i) => Buffer.from(b).equals(parts[i]))).toEqual(parts.map(() => true));
    await closed;
    expect(isClosed).toBe(true);
    expect(() => file.pin()).toThrow(/after its file was closed/);
  });

  it('reads values in any order and joins neighbours; each comes back equal to its bytes', async () => {
    const parts = Array.from({ length: 40 }, (_, i) => bytesOf(1 + ((i * 7919) % 70_000), i));
    const { file, values } = await fileWith('b', parts);
    const order = [...values.keys()].sort((x, y) => ((x * 13) % 40) - ((y * 13) % 40));
    const read = await readDiskValues(order.map((i) => values[i]));
    expect(read.map((b, k) => Buffer.from(b).equals(parts[order[k]]))).toEqual(order.map(() => true));
    const inOrder = await readDiskValues(values);
    expect(inOrder.map((b, i) => Buffer.from(b).equals(parts[i]))).toEqual(parts.map(() => true));
    await file.retire();
  });

  it('a value whose bytes changed is STORE_CORRUPT; its neighbours in the same read are not affected alone', async () => {
    const parts = [bytesOf(100, 1), bytesOf(100, 2)];
    const { file, values } = await fileWith('c', parts);
    const wrong = new DiskValue(file, values[1].offset, values[1].length, values[1].crc ^ 1);
    await expect(readDiskValues([values[0], wrong])).rejects.toThrow(/c: the value of 100 bytes at byte 100/);
    expect(Buffer.from((await readDiskValues([values[0]]))[0]).equals(parts[0])).toBe(true);
    await expect(readDiskValues([new DiskValue(file, 150, 100, 0)])).rejects.toThrow(
      /c: expected 100 bytes at byte 150, found 50 before the end of the file/,
    );
    await file.retire();
  });
});
