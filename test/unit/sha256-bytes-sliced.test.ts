/**
 * sha256HexOfBytesSliced (src/fingerprint/sha256.ts): a file's bytes hashed a piece at a time, with a pause between
 * pieces, give the digest of the whole on every cut, and the bytes are hashed where they lie (no copy is hashed instead).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256HexOfBytesSliced } from '../../src/fingerprint/sha256.js';
import { prng } from '../reference/core.js';

const reference = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('sha256HexOfBytesSliced', () => {
  it('is the digest of the whole, on every cut, with a pause between pieces', async () => {
    const rand = prng(0x3c_c3);
    for (let c = 0; c < 80; c++) {
      const bytes = new Uint8Array(Math.floor(rand() * 300));
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
      const pieceBytes = 1 + Math.floor(rand() * 64);
      let pauses = 0;
      const got = await sha256HexOfBytesSliced(bytes, () => void pauses++, pieceBytes);
      expect(got).toBe(reference(bytes));
      expect(got).toBe(await sha256Hex(bytes));
      // one pause after each piece of a sliced hash; none where the bytes fit one piece
      expect(pauses).toBe(bytes.length > pieceBytes ? Math.ceil(bytes.length / pieceBytes) : 0);
    }
  });

  it('hashes a view of a larger buffer by its own bytes, and awaits an asynchronous pause', async () => {
    const buffer = new Uint8Array(1000).map((_, i) => (i * 7) & 0xff);
    const view = buffer.subarray(100, 900);
    const order: string[] = [];
    const pause = () =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          order.push('pause');
          resolve();
        }, 0),
      );
    const got = await sha256HexOfBytesSliced(view, pause, 256);
    order.push('done');
    expect(got).toBe(reference(view));
    expect(order).toEqual(['pause', 'pause', 'pause', 'pause', 'done']);
  });

  it('is the empty input’s digest for no bytes', async () => {
    expect(await sha256HexOfBytesSliced(new Uint8Array(0), () => undefined, 4)).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });
});
