/** Seeded random text generators for property tests: every script and edge the normaliser meets. */
import { prng } from '../../reference/core.js';

const POOLS: Array<[number, number]> = [
  [0x61, 0x7a],
  [0x41, 0x5a],
  [0x30, 0x39], // ASCII letters/digits
  [0x20, 0x2f],
  [0x3a, 0x40], // ASCII punctuation and space
  [0xc0, 0xff], // Latin-1 letters
  [0x391, 0x3c9], // Greek
  [0x410, 0x44f], // Cyrillic
  [0x5d0, 0x5ea],
  [0x627, 0x64a], // Hebrew, Arabic (RTL)
  [0x300, 0x36f], // combining marks
  [0x4e00, 0x4fff],
  [0x3040, 0x30ff],
  [0xac00, 0xad00], // CJK, kana, Hangul
  [0xff01, 0xff5e], // fullwidth forms
  [0xfb00, 0xfb06], // ligatures
  [0x1f300, 0x1f64f],
  [0x1f3fb, 0x1f3ff], // emoji + skin tones (surrogate pairs)
  [0x1d400, 0x1d7ff], // mathematical alphanumerics (NFKC folds them)
  [0x1cc00, 0x1ccff],
  [0x10d40, 0x10d8f], // recent code points (Unicode 16)
  [0x2000, 0x206f], // general punctuation, incl. ZWSP/ZWJ and soft-hyphen-like format chars
];
const SPECIAL = [
  '\u00a0',
  '\u2019',
  '\u201c',
  '\u201d',
  '\u2014',
  '\u00b7',
  '\u00d7',
  '\u3000',
  '\u00ad',
  '\u200d',
  '\u200b',
  '\ufeff',
  '\u2028',
  '\t',
  '\n',
  'ß',
  'ẞ',
  'İ',
  'ς',
  'ﬁ',
  '¼',
  'Ⅻ',
  '①',
  'e\u0301',
  '\u1100\u1161',
];

/** A random string of about `len` code points mixing all pools; seeded and reproducible. */
export function randomText(seed: number, len: number, asciiBias = 0.5): string {
  const rnd = prng(seed);
  let s = '';
  for (let i = 0; i < len; i++) {
    const r = rnd();
    if (r < asciiBias) {
      s += rnd() < 0.18 ? ' ' : String.fromCharCode(0x61 + ((rnd() * 26) | 0));
    } else if (r < asciiBias + 0.05) {
      s += SPECIAL[(rnd() * SPECIAL.length) | 0];
    } else {
      const [lo, hi] = POOLS[(rnd() * POOLS.length) | 0];
      s += String.fromCodePoint(lo + ((rnd() * (hi - lo + 1)) | 0));
    }
  }
  return s;
}

const WORDS =
  'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there had all one been has more their if will would who so no'.split(
    ' ',
  );

/** Random English-like prose of `n` words (ASCII), seeded. */
export function randomWords(seed: number, n: number): string[] {
  const rnd = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(rnd() < 0.7 ? WORDS[(rnd() * WORDS.length) | 0] : Math.floor(rnd() * 1e9).toString(36));
  }
  return out;
}
