/**
 * utf8Length (src/fingerprint/fingerprint.ts): the runtime's count where it lends one (Node's Buffer.byteLength) and
 * the loop's agree with TextEncoder on every string, lone surrogates (3 bytes, as U+FFFD) and pairs (4) included, on
 * both sides of the length from which the runtime counts.
 */
import { describe, expect, it } from 'vitest';
import { utf8Length, utf8LengthHere } from '../../src/fingerprint/fingerprint.js';
import { prng } from '../reference/core.js';

const PIECES = ['a', ' ', 'é', 'ß', '漢', '😀', '\ud800', '\udc00', '\ud83d', '\ude00', '\u0800', '\u07ff', '\uffff'];
const encoder = new TextEncoder();

describe('utf8Length', () => {
  it('counts what TextEncoder writes, by the runtime and by the loop, lone surrogates and pairs included', () => {
    const rand = prng(0x7f_8a);
    for (let c = 0; c < 300; c++) {
      const units = c % 3 === 0 ? Math.floor(rand() * 40) : 900 + Math.floor(rand() * 400);
      let s = '';
      while (s.length < units) s += PIECES[Math.floor(rand() * PIECES.length)];
      const want = encoder.encode(s).length;
      expect(utf8Length(s), JSON.stringify(s.slice(0, 40))).toBe(want);
      expect(utf8LengthHere(s), JSON.stringify(s.slice(0, 40))).toBe(want);
    }
    expect(utf8Length('é😀')).toBe(6);
    expect(utf8Length('\ud800'.repeat(2000))).toBe(6000);
  });
});
