/** The ASCII/non-ASCII split used by the word pipeline (src/fingerprint/prepare.ts). */
import { describe, expect, it } from 'vitest';
import { normalize } from '../../src/fingerprint/normalize.js';
import { INERT_SEPARATORS, mapOffsets, prepareWords } from '../../src/fingerprint/prepare.js';
import { isTokenChar, toNFKCCasefold } from '../../src/unicode/nfkc-casefold.js';

function expand(cls: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < cls.length; i++) {
    const lo = cls.charCodeAt(i);
    if (cls[i + 1] === '-') { const hi = cls.charCodeAt(i + 2); for (let c = lo; c <= hi; c++) out.push(c); i += 2; } else out.push(lo);
  }
  return out;
}

describe('inert separators', () => {
  const chars = expand(INERT_SEPARATORS);

  it('each folds to a non-empty string without token characters', () => {
    expect(chars.length).toBeGreaterThan(60);
    for (const cp of chars) {
      const folded = toNFKCCasefold(String.fromCharCode(cp));
      expect(folded.length, `U+${cp.toString(16)}`).toBeGreaterThan(0);
      for (const ch of folded) expect(isTokenChar(ch.codePointAt(0)!), `U+${cp.toString(16)} → ${folded}`).toBe(false);
    }
  });

  it('each behaves exactly like an ASCII space before an ASCII character', () => {
    const before = ['a', 'Z', '7', '=', '<', ' ', '', 'é', 'e\u0301', '\u0301', '\u0338', '한', '\u1100', '日', 'ﬁ', '\u00ad', '\u2019'];
    const after = ['a', '1', ' ', '=', '>', ''];
    for (const cp of chars) {
      const x = String.fromCharCode(cp);
      for (const p of before) for (const s of after) {
        expect(normalize(p + x + s).text, `${JSON.stringify(p)} U+${cp.toString(16)} ${JSON.stringify(s)}`).toBe(normalize(p + ' ' + s).text);
      }
    }
  });
});

describe('prepareWords', () => {
  it('keeps pure ASCII as it is, with no segment table', () => {
    const p = prepareWords('Hello, World!');
    expect(p.text).toBe('Hello, World!');
    expect(p.segments).toBeNull();
  });

  it('replaces inert separators in place and normalises only non-ASCII regions', () => {
    const text = 'It\u2019s \u201cTHE\u201d caf\u00e9\u00a0Ｎｏ.\u20051';
    const p = prepareWords(text);
    const tokens = p.text.split(/[^A-Za-z0-9\u0080-\uffff]+/).filter(Boolean).map((t) => t.toLowerCase());
    expect(tokens).toEqual(normalize(text).text.split(' '));
  });

  it('maps token offsets back into the original', () => {
    const text = 'abc ÉCOLE, déjà-vu xyz';
    const p = prepareWords(text);
    const re = /[A-Za-z0-9\u0080-\uffff]+/g;
    const starts: number[] = [], ends: number[] = [];
    for (let m = re.exec(p.text); m; m = re.exec(p.text)) { starts.push(m.index); ends.push(m.index + m[0].length); }
    const s = Uint32Array.from(starts), e = Uint32Array.from(ends);
    mapOffsets(p, s, e);
    expect(Array.from(s, (x, i) => text.slice(x, e[i]))).toEqual(['abc', 'ÉCOLE', 'déjà', 'vu', 'xyz']);
  });
});
