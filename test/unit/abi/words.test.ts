/** Raw-ABI tests of wordsAtLeast (assembly/words.ts) on the scalar, SIMD and debug builds, against `/\s+/`. */
import { describe, expect, it } from 'vitest';
import { BUILDS, coreOf, put } from './helpers.js';
import { prng, wordsAtLeastRef } from '../../reference/core.js';
import type { Core } from '../../../src/core/abi.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const count = (core: Core, s: string, n: number) => {
  const b = utf8(s);
  return core.raw.wordsAtLeast(put(core, b), b.length, n);
};

/** Every character JavaScript's `\s` matches. */
const SPACES = [
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];
/** Characters outside it, many with the same lead byte as a space or bytes one away from one's. */
const OTHERS = [
  'a',
  'Z',
  '0',
  '"',
  '\u0000',
  '\u001c',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a1',
  '\u009f',
  'é',
  '\u1681',
  '\u167f',
  '\u1780',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2010',
  '\u201c',
  '\u2027',
  '\u202a',
  '\u202e',
  '\u2030',
  '\u205e',
  '\u2060',
  '\u2e80',
  '\u3001',
  '\u3041',
  '\u2fff',
  '東',
  '\ufefe',
  '\ufffd',
  '\ud835\udc9c',
  '\ud83d\ude00',
];

describe.each(BUILDS)('wordsAtLeast (%s)', (build) => {
  it('counts the runs of characters outside \\s, up to n (known answers)', async () => {
    const core = await coreOf(build);
    const cases: Array<[string, number, number]> = [
      ['', 5, 0],
      ['   \n\t ', 5, 0],
      ['one', 5, 1],
      ['  one  two\tthree\nfour  ', 9, 4],
      ['one two three four', 2, 2],
      ['a\u00a0b\u2003c\u3000d\ufeffe\u2028f', 9, 6],
      ['a\u200bb \u201cc\u201d \u2014 d', 9, 4],
      ['x', 0, 0],
    ];
    for (const [s, n, want] of cases) {
      expect(count(core, s, n)).toBe(want);
      expect(wordsAtLeastRef(s, n)).toBe(want);
    }
  });

  it('agrees with /\\s+/ on 3,000 random strings of spaces and the characters around them', async () => {
    const core = await coreOf(build);
    const rnd = prng(58);
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];
    for (let k = 0; k < 3000; k++) {
      let s = '';
      for (let len = Math.floor(rnd() * 40); len > 0; len--) s += rnd() < 0.4 ? pick(SPACES) : pick(OTHERS);
      const n = Math.floor(rnd() * 12);
      expect(count(core, s, n)).toBe(wordsAtLeastRef(s, n));
    }
  });

  it('agrees with /\\s+/ on 2,000 long, mostly ASCII strings at every alignment (the eight-byte path)', async () => {
    const core = await coreOf(build);
    const rnd = prng(59);
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];
    const ascii = [
      'a',
      'b',
      'Z',
      '9',
      '!',
      '~',
      '\u001f',
      '\u007f',
      '\u0008',
      '\u000e',
      ' ',
      ' ',
      '\t',
      '\n',
      '\r',
      '\v',
      '\f',
    ];
    for (let k = 0; k < 2000; k++) {
      let s = '';
      for (let len = Math.floor(rnd() * 200); len > 0; len--)
        s += rnd() < 0.05 ? pick([...SPACES, ...OTHERS]) : pick(ascii);
      const n = Math.floor(rnd() * 60);
      const off = k % 8; // the text at every offset from an 8-byte boundary
      const b = utf8(s);
      const p = put(core, new Uint8Array(off + b.length).fill(0x61)) + off;
      core.writeBytes(p, b);
      expect(core.raw.wordsAtLeast(p, b.length, n)).toBe(wordsAtLeastRef(s, n));
    }
  });

  it('reads a lone surrogate as the encoder writes it (U+FFFD): a character of a word', async () => {
    const core = await coreOf(build);
    for (const s of ['a \ud800 b', '\udc00', 'x\ud800y z']) expect(count(core, s, 9)).toBe(wordsAtLeastRef(s, 9));
  });
});
