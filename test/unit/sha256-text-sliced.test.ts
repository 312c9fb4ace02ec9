/**
 * sha256HexOfTextSliced (src/fingerprint/sha256.ts): a long text hashed a piece at a time, with a pause between
 * pieces, gives the digest of the whole — pairs never cut between pieces, lone surrogates hashed as U+FFFD either way.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256HexOfTextSliced } from '../../src/fingerprint/sha256.js';
import { prng } from '../reference/core.js';

const PIECES = ['a', ' ', 'é', '漢', '😀', '\ud800', '\udc00', '\ud83d', '\ude00'];

describe('sha256HexOfTextSliced', () => {
  it('is the digest of the whole text, on every cut', async () => {
    const rand = prng(0x5a_a5);
    for (let c = 0; c < 60; c++) {
      let text = '';
      const units = Math.floor(rand() * 200);
      while (text.length < units) text += PIECES[Math.floor(rand() * PIECES.length)];
      let pauses = 0;
      const pieceUnits = 1 + Math.floor(rand() * 9);
      const got = await sha256HexOfTextSliced(text, () => void pauses++, pieceUnits);
      expect(got, JSON.stringify(text)).toBe(await sha256Hex(text));
      if (text.length > pieceUnits + 1) expect(pauses).toBeGreaterThan(0);
    }
    // a pair at each cut of pieces of two units
    const pairs = '😀'.repeat(50);
    expect(await sha256HexOfTextSliced(pairs, () => undefined, 2)).toBe(await sha256Hex(pairs));
    expect(await sha256HexOfTextSliced(`a${pairs}`, () => undefined, 2)).toBe(await sha256Hex(`a${pairs}`));
  });
});
