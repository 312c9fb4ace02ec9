/**
 * The core's NFKC_Casefold (assembly/nfkc.ts) against the TypeScript reference (normalize): normalised text and
 * offset map identical on random Unicode and on the NormalizationTest vectors, in every build; the cases it hands
 * back to the host (U+FFFD, rewritten separators, too little room, huge runs of marks) are handed back. Its token
 * form (nfkcTokens, what the fingerprint uses) gives exactly the tokens of that text: hashes and mapped offsets.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { ensureTables } from '../../../src/fingerprint/words.js';
import { normalize } from '../../../src/text/normalize.js';
import { prng, tokensRef, xxh64Ref } from '../../reference/core.js';
import { randomText } from '../property/gen.js';
import { BUILDS, coreOf } from './helpers.js';

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/nfkc-vectors.json', import.meta.url), 'utf8')) as {
  vectors: { c: string[] }[];
  cases: { input: string }[];
};
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The core's normalisation of `text`: { text, map } or null when it hands the text back. */
function inCore(core: Core, text: string, outCap?: number, mapCap?: number): { text: string; map: number[] } | null {
  const bytes = encoder.encode(text);
  const cap = outCap ?? bytes.length * 4 + 64;
  const L = core.layout(1 << 20); // past the pairs ensureTables put at the start of the arena
  const inPtr = L.take(bytes.length + 16);
  const outPtr = L.take(cap + 16);
  const mapPtr = L.take((cap + 1) * 4);
  L.commit();
  core.writeBytes(inPtr, bytes);
  const written = core.raw.nfkcUtf8(inPtr, bytes.length, outPtr, cap, mapPtr, mapCap ?? cap + 1);
  if (written < 0) return null;
  const out = decoder.decode(core.u8.slice(outPtr, outPtr + written));
  expect(core.raw.nfkcMapLength()).toBe(out.length + 1);
  return { text: out, map: Array.from(core.u32(mapPtr, out.length + 1)) };
}

function expectSame(core: Core, text: string): boolean {
  const got = inCore(core, text);
  if (got === null) return false;
  const ref = normalize(text);
  expect(got.text).toBe(ref.text);
  expect(got.map).toEqual(Array.from(ref.map));
  return true;
}

describe.each(BUILDS)('nfkcUtf8 (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
    expect(core.raw.nfkcUtf8(core.arenaBase, 0, core.arenaBase, 16, core.arenaBase, 17)).toBe(-1); // no tables yet
    expect(ensureTables(core, core.layout())).toBe(true);
  });

  it('matches normalize() on random Unicode (text and map)', () => {
    let handedBack = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const text = randomText(seed, 1 + ((seed * 37) % 3000), [0, 0.3, 0.8][seed % 3]);
      if (!expectSame(core, text)) {
        expect(text).toContain('\ufffd');
        handedBack++;
      }
    }
    expect(handedBack).toBeLessThan(40);
  });

  it('matches normalize() on the NormalizationTest vectors and fixture cases', () => {
    for (const v of fixture.vectors) {
      for (const c of v.c) expect(expectSame(core, `x ${c} ${c.toUpperCase()}y`)).toBe(true);
    }
    for (const c of fixture.cases) if (!c.input.includes('\ufffd')) expect(expectSame(core, c.input)).toBe(true);
  });

  it('matches normalize() around clusters, long runs of marks and Hangul', () => {
    const rnd = prng(9);
    const parts = [
      'é',
      'e\u0301',
      '\u0301',
      '\u0323',
      '\u0345',
      'a',
      ' ',
      'ᾳ\u0313',
      '\u1100\u1161\u11a8',
      '한',
      '\uac00\u11a8',
      'ﷺ',
      '日',
      'Ǆ',
      'İ',
      '\u{1d400}',
      'ｶﾞ',
      'ς',
      '=\u0338',
      '\u0f73',
      '\u0f75\u0f81',
      'ǖ',
      'Ǖ',
      'ñ',
      'ệ',
      '\u0344',
      '\u0340',
      'Å',
      '\u212b',
      'ώ',
      '\u1f71',
      'ﬁ',
      'б',
      'Б',
      'й',
      '\u0439\u0308',
    ];
    for (let t = 0; t < 60; t++) {
      let s = '';
      const n = 200 + Math.floor(rnd() * 3000);
      for (let i = 0; i < n; i++) s += parts[Math.floor(rnd() * parts.length)];
      expect(expectSame(core, s)).toBe(true);
    }
    // 40 and 3000 stacked marks: one run for the counting sort; then one too long for the scratch arrays
    const MARKS = ['\u0301', '\u0323', '\u0345', '\u05b0'];
    const marks = (k: number) => Array.from({ length: k }, (_, i) => MARKS[i % 4]).join('');
    expect(expectSame(core, `a${marks(40)}b ${'x'.repeat(1500)}é${marks(3000)}`)).toBe(true);
    expect(inCore(core, `a${marks(5000)}`)).toBeNull();
  });

  it('hands back U+FFFD and output that does not fit', () => {
    expect(inCore(core, 'ab\ufffdc')).toBeNull();
    expect(inCore(core, 'é'.repeat(100), 100)).toBeNull();
    expect(inCore(core, 'é'.repeat(100), 205)?.text).toBe('é'.repeat(100));
    // '日' 100 times: 199 UTF-16 units with the spaces, 200 map entries
    expect(inCore(core, '日'.repeat(100), undefined, 199)).toBeNull();
    expect(inCore(core, '日'.repeat(100), undefined, 202)?.map.length).toBe(200);
    const L = core.layout(1 << 20);
    const _p = L.take(256);
    L.commit();
  });

  it("reads an inert separator rewritten by findRegions (' ' + 0xFF bytes) as the separator it was", () => {
    const L = core.layout(1 << 20);
    const p = L.take(256);
    L.commit();
    // 'a\u3000bé' after the rewrite: U+3000 (3 bytes, 1 UTF-16 unit) became ' ' FF FF
    core.writeBytes(p, new Uint8Array([0x61, 0x20, 0xff, 0xff, 0x62, 0xc3, 0xa9]));
    const written = core.raw.nfkcUtf8(p, 7, p + 16, 32, p + 64, 33);
    const ref = normalize('a\u3000bé');
    expect(decoder.decode(core.u8.slice(p + 16, p + 16 + written))).toBe(ref.text);
    expect(Array.from(core.u32(p + 64, ref.text.length + 1))).toEqual(Array.from(ref.map));
  });
});

/** The core's word tokens of `text` as one region at UTF-16 offset `base` (nfkcTokens), or null when handed back. */
function tokensInCore(core: Core, text: string, base = 0, cap?: number) {
  const bytes = encoder.encode(text);
  const room = cap ?? bytes.length + 2;
  const L = core.layout(1 << 20);
  const inPtr = L.take(bytes.length + 16);
  const startsPtr = L.take(room * 4);
  const endsPtr = L.take(room * 4);
  const hashesPtr = L.take(room * 8);
  L.commit();
  core.writeBytes(inPtr, bytes);
  const n = core.raw.nfkcTokens(inPtr, bytes.length, base, 7n, startsPtr, endsPtr, hashesPtr, room);
  if (n < 0) return null;
  return {
    starts: Array.from(core.u32(startsPtr, n)),
    ends: Array.from(core.u32(endsPtr, n)),
    hashes: Array.from(core.u64(hashesPtr, n)),
  };
}

/** What the reference says: the tokens of normalize(text).text, their offsets mapped back, XXH64 seed 7 of each. */
function tokensRefOf(text: string, base = 0) {
  const n = normalize(text);
  const t = tokensRef(n.text);
  return {
    starts: t.starts.map((s) => base + n.map[s]),
    ends: t.ends.map((e) => base + n.map[e]),
    hashes: t.starts.map((s, i) => xxh64Ref(encoder.encode(n.text.slice(s, t.ends[i])), 7n)),
  };
}

describe.each(BUILDS)('nfkcTokens (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
    expect(ensureTables(core, core.layout())).toBe(true);
  });

  it('gives the tokens of normalize() on random Unicode: hashes and offsets (400 texts)', () => {
    let handedBack = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const text = randomText(seed, 1 + ((seed * 37) % 3000), [0, 0.3, 0.8][seed % 3]);
      const got = tokensInCore(core, text, seed);
      if (got === null) {
        expect(text).toContain('\ufffd');
        handedBack++;
        continue;
      }
      expect(got).toEqual(tokensRefOf(text, seed));
    }
    expect(handedBack).toBeLessThan(40);
  });

  it('gives the tokens of normalize() on prose without spaces, changed and unchanged code points mixed', () => {
    // ideographs (one token each), kana and Cyrillic runs (tokens of unchanged code points, hashed from the input),
    // capitals and fullwidth forms (changed: the token moves to the core's scratch), marks that compose, Hangul
    const PIECES =
      '中文的句子 日本語の文章 ひらがな カタカナ ﾊﾝｶｸ Москва москва ΑΘΗΝΑ é e\u0301 한국어 ＡＢＣ ， 。 ㋿ \u3099 ß İ 𠀋 😀'.split(
        ' ',
      );
    const rnd = prng(77);
    for (let t = 0; t < 300; t++) {
      let text = '';
      for (let k = Math.floor(rnd() * 40); k >= 0; k--) text += PIECES[Math.floor(rnd() * PIECES.length)];
      expect(tokensInCore(core, text, t), JSON.stringify(text)).toEqual(tokensRefOf(text, t));
    }
  });

  it('hands back U+FFFD, more tokens than its room, and a changed token over 2 KiB', () => {
    expect(tokensInCore(core, 'ab\ufffdc')).toBeNull();
    expect(tokensInCore(core, '㋿㋿', 0, 3)).toBeNull(); // 4 tokens ('令' '和' twice) from 6 bytes
    expect(tokensInCore(core, '㋿㋿', 0, 4)).toEqual(tokensRefOf('㋿㋿'));
    expect(tokensInCore(core, '中文的句子', 0, 4)).toBeNull(); // a run of ideographs, one token each
    expect(tokensInCore(core, '中文的句子', 0, 5)).toEqual(tokensRefOf('中文的句子'));
    expect(tokensInCore(core, `Ж${'ж'.repeat(1200)}`)).toBeNull(); // 2,402 bytes, the first one changed
    expect(tokensInCore(core, `${'ж'.repeat(1200)}Ж`)).toBeNull();
    expect(tokensInCore(core, 'ж'.repeat(5000))).toEqual(tokensRefOf('ж'.repeat(5000))); // unchanged: any length
  });
});
