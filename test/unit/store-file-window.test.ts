/**
 * The window the file store reads its files through while it opens (src/store/file-window.ts): every range comes back
 * equal to the file's bytes, whether it lies inside the window, crosses its edge or is longer than a window, and a
 * range longer than a window does not leave its buffer behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileWindow } from '../../src/store/file-window.js';
import { crc32 } from '../../src/util/crc32.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trainprint-file-window-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bytesOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + (i >> 8) * 7 + 3) & 0xff);

async function windowOn(name: string, bytes: Uint8Array, windowBytes: number): Promise<FileWindow> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  const file = await FileWindow.open(path, windowBytes);
  if (!file) throw new Error(`${path} did not open`);
  return file;
}

describe('FileWindow', () => {
  it('every range, read in a walk that moves forward, back and across the edge, equals the file', async () => {
    const content = bytesOf(1000);
    const file = await windowOn('walk', content, 64);
    expect(file.size).toBe(1000);
    // a fixed pseudo-random walk: ranges inside the window, crossing its edge, longer than it, at the file's end
    let state = 12345;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    for (let k = 0; k < 2000; k++) {
      const length = k % 50 === 0 ? 64 + next(200) : next(70);
      const offset = k % 7 === 0 ? 1000 - length : next(1000 - length + 1);
      const resident = file.at(offset, length) >= 0;
      const at = await file.load(offset, length);
      expect([
        offset,
        length,
        Buffer.from(file.bytes.subarray(at, at + length)).equals(content.subarray(offset, offset + length)),
      ]).toEqual([offset, length, true]);
      expect(file.at(offset, length)).toBe(at);
      // a range longer than a window has a buffer of its own only until a range is read from outside it
      if (length <= 64 && !resident) expect(file.bytes.length).toBeLessThanOrEqual(64);
    }
    await file.close();
  });

  it('a file smaller than a window is read in one piece; a range past its end is refused', async () => {
    const content = bytesOf(40);
    const file = await windowOn('small', content, 4096);
    const at = await file.load(10, 5);
    expect(Buffer.from(file.bytes.subarray(at, at + 5)).equals(content.subarray(10, 15))).toBe(true);
    expect(file.bytes.length).toBe(30); // from offset 10 to the end, not a whole window
    expect(file.at(0, 10)).toBe(-1);
    await expect(file.load(30, 11)).rejects.toThrow(RangeError);
    await expect(file.load(-1, 2)).rejects.toThrow(RangeError);
    await file.close();
  });

  it('crc() reads a window at a time and equals the CRC-32 of the range, continued from a given value', async () => {
    const content = bytesOf(5000);
    const file = await windowOn('crc', content, 100);
    for (const [offset, length] of [
      [0, 5000],
      [99, 2],
      [1, 4999],
      [4321, 0],
      [250, 1234],
    ]) {
      expect(await file.crc(offset, length, 77)).toBe(crc32(content.subarray(offset, offset + length), 77));
    }
    await file.close();
  });

  it('a missing file opens as undefined', async () => {
    expect(await FileWindow.open(join(dir, 'none'))).toBeUndefined();
  });
});
