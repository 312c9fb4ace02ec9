/**
 * The core's NFKC_Casefold (assembly/nfkc.ts: nfkcTokens) against the TypeScript reference (normalize): the word
 * tokens of the normalised text — the hash of each and its offsets mapped back — identical on random Unicode, prose
 * without spaces and the NormalizationTest vectors, in every build; the cases it hands back to the host (U+FFFD,
 * too little room, huge runs of marks, long changed words) are handed back.
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

/**
 * The core's word tokens of `text` as one region at UTF-16 offset `base` (nfkcTokens), hashed under `seed`, or null when
 * handed back.
 */
function tokensInCore(core: Core, text: string, base = 0, cap?: number, seed = 7n, checked = 0) {
  const bytes = encoder.encode(text);
  const room = cap ?? bytes.length + 2;
  const L = core.layout(1 << 20);
  const inPtr = L.take(bytes.length + 16);
  const startsPtr = L.take(room * 4);
  const endsPtr = L.take(room * 4);
  const hashesPtr = L.take(room * 8);
  L.commit();
  core.writeBytes(inPtr, bytes);
  const n = core.raw.nfkcTokens(inPtr, bytes.length, base, seed, startsPtr, endsPtr, hashesPtr, room, checked);
  if (n < 0) return null;
  return {
    starts: Array.from(core.u32(startsPtr, n)),
    ends: Array.from(core.u32(endsPtr, n)),
    hashes: Array.from(core.u64(hashesPtr, n)),
  };
}

/** What the reference says: the tokens of normalize(text).text, their offsets mapped back, XXH64 (`seed`) of each. */
function tokensRefOf(text: string, base = 0, seed = 7n) {
  const n = normalize(text);
  const t = tokensRef(n.text);
  return {
    starts: t.starts.map((s) => base + n.map[s]),
    ends: t.ends.map((e) => base + n.map[e]),
    hashes: t.starts.map((s, i) => xxh64Ref(encoder.encode(n.text.slice(s, t.ends[i])), seed)),
  };
}

/** The core's tokens equal the reference's (true), or the core hands the text back (false). */
function expectSame(core: Core, text: string): boolean {
  const got = tokensInCore(core, text);
  if (got === null) return false;
  expect(got, JSON.stringify(text.slice(0, 80))).toEqual(tokensRefOf(text));
  return true;
}

/** `texts` texts of up to `most` + 1 random `pieces` (seed `seed`): the core's tokens equal the reference's, each at its own base. */
function expectPiecesSame(core: Core, pieces: readonly string[], seed: number, texts: number, most: number): void {
  const rnd = prng(seed);
  for (let t = 0; t < texts; t++) {
    let text = '';
    for (let k = Math.floor(rnd() * most); k >= 0; k--) text += pieces[Math.floor(rnd() * pieces.length)];
    expect(tokensInCore(core, text, t), JSON.stringify(text)).toEqual(tokensRefOf(text, t));
  }
}

describe.each(BUILDS)('nfkcTokens, folding (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
    expect(core.raw.nfkcTokens(core.arenaBase, 0, 0, 0n, core.arenaBase, core.arenaBase, core.arenaBase, 1)).toBe(-1); // no tables yet
    expect(ensureTables(core, core.layout())).toBe(true);
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
    // 40 and 900 stacked marks: runs for the counting sort (the word stays under 2 KiB); a word of 3000 changed
    // marks is handed back, and so is a run too long for the scratch arrays
    const MARKS = ['\u0301', '\u0323', '\u0345', '\u05b0'];
    const marks = (k: number) => Array.from({ length: k }, (_, i) => MARKS[i % 4]).join('');
    expect(expectSame(core, `a${marks(40)}b ${'x'.repeat(100)}é${marks(900)}`)).toBe(true);
    expect(tokensInCore(core, `${'x'.repeat(1500)}é${marks(3000)}`)).toBeNull();
    expect(tokensInCore(core, `a${marks(5000)}`)).toBeNull();
  });

  it("reads an inert separator rewritten by findRegions (' ' + 0xFF bytes) as the separator it was", () => {
    const L = core.layout(1 << 20);
    const p = L.take(256);
    L.commit();
    // 'a\u3000bé' after the rewrite: U+3000 (3 bytes, 1 UTF-16 unit) became ' ' FF FF
    core.writeBytes(p, new Uint8Array([0x61, 0x20, 0xff, 0xff, 0x62, 0xc3, 0xa9]));
    const n = core.raw.nfkcTokens(p, 7, 0, 7n, p + 16, p + 32, p + 48, 4);
    const ref = tokensRefOf('a\u3000bé');
    expect(n).toBe(ref.hashes.length);
    expect([Array.from(core.u32(p + 16, n)), Array.from(core.u32(p + 32, n)), Array.from(core.u64(p + 48, n))]).toEqual(
      [ref.starts, ref.ends, ref.hashes],
    );
  });
});

describe.each(BUILDS)('nfkcTokens, tokens (%s)', (build) => {
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
    expectPiecesSame(core, PIECES, 77, 300, 40);
  });

  it('hashes a run of ideographs and kana under the seed of each call, seeds alternating', () => {
    // a run's 3-byte characters' hashes are looked up in records filled for one seed at a time
    const text = '中文的句子，日本語の文章。ひらがな「カタカナ」 ࠀ一丁龥鿿ꀀ\uFFEE 가 ｱ 中\n国';
    for (const seed of [7n, 0n, 0xffff_ffff_ffff_ffffn, 7n, 1n << 63n, 0n]) {
      expect(tokensInCore(core, text, 3, undefined, seed), String(seed)).toEqual(tokensRefOf(text, 3, seed));
    }
  });

  it('gives the tokens of normalize() on runs drawn from every 3-byte block, under seeds that change between texts', () => {
    // a run's one-character tokens are looked up in records of 64 code points, each filled on first use for the seed
    // of the call: code points from all of U+0800..U+FFFF (unassigned ones, compatibility ideographs U+F900.., fullwidth
    // and halfwidth forms, voicing marks that join the kana before them), astral ideographs (CJK Ext B) and ASCII
    const rnd = prng(91);
    const pick = (from: number, to: number) => from + Math.floor(rnd() * (to - from));
    const draws: (() => string)[] = [
      () => {
        const c = pick(0x800, 0x10000);
        return c >= 0xd800 && c < 0xe000 ? '中' : String.fromCharCode(c);
      },
      () => String.fromCharCode(pick(0x4e00, 0xa000)),
      () => String.fromCharCode(pick(0x3040, 0x3100)),
      () => String.fromCharCode(pick(0xf900, 0xfb00)),
      () => String.fromCharCode(pick(0xff00, 0xfff0)),
      () => ['\u3099', '\u309a', '\u0301'][pick(0, 3)],
      () => String.fromCodePoint(pick(0x20000, 0x2a6e0)),
      () => ['a', 'Z', '7', ' ', '\n', ',', '。', '、', '　'][pick(0, 9)],
    ];
    const seeds = [7n, 0n, 0xffff_ffff_ffff_ffffn, 0x9e37_79b1_85eb_ca87n];
    for (let t = 0; t < 120; t++) {
      let text = '';
      for (let k = pick(1, 400); k > 0; k--) text += draws[rnd() < 0.6 ? pick(0, 3) : pick(3, draws.length)]();
      const seed = seeds[t % seeds.length];
      const got = tokensInCore(core, text, t, undefined, seed);
      if (got === null) continue; // handed back (a U+FFFD drawn): what the host does with it is tested above
      expect(got, JSON.stringify(text.slice(0, 80))).toEqual(tokensRefOf(text, t, seed));
    }
  });

  it('gives the tokens of normalize() where the fast paths meet: separators in runs of ideographs, capitals, marks', () => {
    // code points that go out as they are or as their one mapping (ideographs, voiced kana, fullwidth and ASCII
    // punctuation, ideographic and no-break spaces, capitals, fullwidth letters), words of letters that need no
    // normalising (Cyrillic, Greek, Latin with diacritics, ASCII capitals) next to marks that make them fold with what
    // follows, astral ideographs and Hangul
    const PIECES = [
      '中',
      '文',
      'が',
      'か',
      '\u3099',
      'ガ',
      '，',
      '．',
      '。',
      '、',
      '「',
      '」',
      '　',
      ' ',
      '"',
      '.',
      'Ａ',
      'ａ',
      'П',
      'п',
      'Ё',
      'ё',
      'Σ',
      'ς',
      'ώ',
      'İ',
      'ﬁ',
      '·',
      '\u00a0',
      '\u0301',
      '\u0323',
      '\u0338',
      '=',
      '𠀋',
      'x',
      '7',
      '한',
      '\u1161',
      '—',
      '“',
      'ß',
      'é',
      'E\u0301',
      '㋿',
      'ｶﾞ',
      'москва',
      'Москва',
      'αθήνα',
      'żółw',
      'Xy',
      'façade',
      'ВНИМАНИЕ',
      'ΑΘΉΝΑ',
      'Ça',
      'ÅÆ',
    ];
    expectPiecesSame(core, PIECES, 83, 400, 60);
    // the tail of an inert separator rewritten by findRegions inside a run of ideographs ('中\u3000文' → 中 ' ' FF FF 文)
    const L = core.layout(1 << 20);
    const p = L.take(256);
    L.commit();
    core.writeBytes(p, new Uint8Array([0xe4, 0xb8, 0xad, 0x20, 0xff, 0xff, 0xe6, 0x96, 0x87, 0xef, 0xbc, 0x8c]));
    const n = core.raw.nfkcTokens(p, 12, 0, 7n, p + 16, p + 32, p + 48, 8);
    const ref = tokensRefOf('中\u3000文，');
    expect([Array.from(core.u32(p + 16, n)), Array.from(core.u32(p + 32, n)), Array.from(core.u64(p + 48, n))]).toEqual(
      [ref.starts, ref.ends, ref.hashes],
    );
  });

  it('gives the tokens of normalize() where a run of five 3-byte code points at once meets what it cannot take', () => {
    // the SIMD build takes five whole 3-byte code points a step when each stands alone or is skipped and its record is
    // the seed's: runs of ideographs and kana with, at every offset of such a step, a separator it steps over (3-byte,
    // 2-byte, ASCII), one it cannot (a voicing mark that joins the kana before it, a fullwidth letter, a capital, an
    // ellipsis, an astral ideograph), a code point of a block no run has met yet, and rooms that end inside a step
    const run = '吾輩は猫である名前はまだ無いどこで生れたかとんと見当がつかぬ何でも薄暗いじめじめした所で';
    const breaks = [
      '、',
      '。',
      '「',
      '　',
      '\u00b7',
      ' ',
      '\n',
      '.',
      '\u3099',
      'Ａ',
      'Ж',
      '…',
      '𠀋',
      '\uA4D0',
      'x',
      'ガ',
    ];
    const seeds = [7n, 0n, 0x9e37_79b1_85eb_ca87n];
    let t = 0;
    for (const b of breaks) {
      for (let at = 0; at <= 16; at++) {
        const text = `${run.slice(0, at)}${b}${run.slice(at)}${b}${run.slice(0, 7)}`;
        const seed = seeds[t++ % seeds.length];
        const want = tokensRefOf(text, t, seed);
        expect(tokensInCore(core, text, t, undefined, seed), JSON.stringify(text)).toEqual(want);
        // exactly the room its tokens take, and one short of it (handed back)
        expect(tokensInCore(core, text, t, want.starts.length, seed), JSON.stringify(text)).toEqual(want);
        expect(tokensInCore(core, text, t, want.starts.length - 1, seed), JSON.stringify(text)).toBeNull();
      }
    }
  });

  it('gives the tokens of normalize() on long runs of plain words of every length, capitals among them', () => {
    // words of letters that need no normalising (Cyrillic, Greek, Latin with diacritics, ASCII) are written a run at
    // a time (plainWords: 32 bytes of a word read a step, a word with capitals spelled folded first, the next word's
    // start read from the masks already made): thousands of words of 1 to 40 bytes, a third with a capital (ς, ß, İ,
    // ligatures, capitals that decompose, marks and ideographs now and then: the other paths between them), under
    // changing seeds, with the exact room and one short, then with a U+FFFD after them (handed back)
    const rnd = prng(29);
    const pick = (s: string) => [...s][Math.floor(rnd() * [...s].length)];
    const lower = [
      'абвгдежзийклмнопрстуфхцчшщъыьэюяё',
      'αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊΐ',
      'àâäçéèêëîïôöùûüÿñąćęłńóśźżő',
      'abcxyz0189',
    ];
    const upper = ['АБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЭЮЯ', 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ', 'ÀÂÄÇÈÊËÎÏÔÖÙÛÜÑĄĆĘŁŃŹŻ', 'ABCXYZ'];
    const rare = ['ς', 'ß', 'İ', 'ı', 'ﬁ', 'ſ', 'É', 'Ё', 'Ό', '\u0301', '中', 'Ａ', '\u00a0'];
    const seps = [' ', ' ', ' ', '\n', ', ', '. ', '\n     ', ' -- ', ' (', ') ', ' «', '» '];
    const word = () => {
      const a = Math.floor(rnd() * lower.length);
      let w = rnd() < 0.33 ? pick(upper[a]) : '';
      for (let k = 1 + Math.floor(rnd() * (a === 3 ? 30 : 16)); k > 0; k--)
        w += rnd() < 0.01 ? pick(rare.join('')) : pick(lower[a]);
      return rnd() < 0.02 ? w.toUpperCase() : w;
    };
    const seeds = [7n, 0n, 0xffff_ffff_ffff_ffffn, 0x9e37_79b1_85eb_ca87n];
    for (let t = 0; t < 24; t++) {
      const words: string[] = [];
      for (let k = 50 + Math.floor(rnd() * 3000); k > 0; k--) words.push(word(), seps[Math.floor(rnd() * seps.length)]);
      const text = words.join('').replace(/\s+$/, '');
      const seed = seeds[t % seeds.length];
      const want = tokensRefOf(text, t, seed);
      expect(tokensInCore(core, text, t, undefined, seed), `text ${t}`).toEqual(want);
      expect(tokensInCore(core, text, t, want.starts.length, seed), `text ${t}`).toEqual(want);
      expect(tokensInCore(core, text, t, want.starts.length - 1, seed), `text ${t}`).toBeNull();
      expect(tokensInCore(core, `${text} \ufffd`, t, undefined, seed)).toBeNull();
    }
  });

  it('folds the capitals of plain words at every byte of their first 32 and past them', () => {
    // a plain word of at most 32 bytes holding capitals is copied to the core's scratch 32 bytes at once and only
    // its capitals rewritten (the bits the word's scan found); a longer one is folded a byte at a time. Words of 1
    // to 24 letters (2-byte, with ASCII letters among them so a capital falls on even and odd bytes), with capitals
    // at every letter, one at a time, two, all of them, and capitals past the first 32 bytes only; now and then a
    // letter that is not plain (final sigma, ß, dotted I, a ligature, a fullwidth letter, a combining mark)
    const rnd = prng(31);
    const rare = ['ς', 'ß', 'İ', 'ﬁ', 'Ａ', 'ｚ', '\u0301', 'Ё', 'Ό'];
    const lower = ['абвгдежзийклмнопрстуфхцчшщъыьэюяёѓ', 'αβγδεζηθικλμνξοπρστυφχψωςάί', 'àâäçéèêëîïôöùûüÿñąćęłńóśźż'];
    const upper = ['АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯЁЃ', 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩΆΊ', 'ÀÂÄÇÉÈÊËÎÏÔÖÙÛÜŸÑĄĆĘŁŃÓŚŹŻ'];
    const pick = (s: string) => [...s][Math.floor(rnd() * [...s].length)];
    const texts: string[] = [];
    for (let len = 1; len <= 24; len++) {
      for (let cap = -3; cap < len; cap++) {
        const a = Math.floor(rnd() * lower.length);
        const letters = Array.from({ length: len }, () => (rnd() < 0.15 ? 'q' : pick(lower[a])));
        if (rnd() < 0.1) letters[Math.floor(rnd() * len)] = pick(rare.join(''));
        if (cap >= 0) letters[cap] = pick(upper[a]);
        if (cap === -1) for (let k = 0; k < len; k++) letters[k] = pick(upper[a]);
        if (cap === -2 && len > 1) letters[0] = letters[len - 1] = pick(upper[a]);
        if (cap === -3) for (let k = 17; k < len; k++) letters[k] = pick(upper[a]); // past 32 bytes when len > 16
        texts.push(letters.join(''));
      }
    }
    const seps = [' ', '. ', ', ', '\n'];
    for (let t = 0; t < 6; t++) {
      const order = texts.map((w) => [rnd(), w] as const).sort((x, y) => x[0] - y[0]);
      const text = order.map(([, w]) => w + seps[Math.floor(rnd() * seps.length)]).join('');
      expect(tokensInCore(core, text, t, undefined, BigInt(t)), `text ${t}`).toEqual(tokensRefOf(text, t, BigInt(t)));
    }
    for (const word of texts) expect(tokensInCore(core, word), word).toEqual(tokensRefOf(word));
  });

  it('takes U+FFFD as the reference does once the host has checked the text (no lone surrogate: checked = 1)', () => {
    expect(tokensInCore(core, 'ab\ufffdc', 0, undefined, 7n, 1)).toEqual(tokensRefOf('ab\ufffdc'));
    expect(tokensInCore(core, '中文\ufffd的', 3, undefined, 7n, 1)).toEqual(tokensRefOf('中文\ufffd的', 3));
    // beside what U+FFFD could join or break: marks (which it carries as a starter), letters that compose, capitals,
    // runs of ideographs and kana, words that need no normalising, inert separators' tails, expansions
    const PIECES = [
      '\ufffd',
      '\ufffd\u0301',
      '\ufffd\u3099',
      'e\u0301',
      'É',
      'ab',
      'Ж',
      'жж',
      '中',
      'が',
      '\u3099',
      '。',
      '…',
      '㋿',
      ' ',
      '\u00a0',
      '\u3000',
      'ＡＢ',
      '\u1100\u1161',
      '𠀀',
    ];
    const rnd = prng(4_242);
    for (let t = 0; t < 300; t++) {
      let text = '';
      for (let k = Math.floor(rnd() * 24); k >= 0; k--) text += PIECES[Math.floor(rnd() * PIECES.length)];
      const seed = t % 2 === 0 ? 7n : 0n;
      const got = tokensInCore(core, text, t, undefined, seed, 1);
      expect(got, JSON.stringify(text)).toEqual(tokensRefOf(text, t, seed));
      // and without the check, any U+FFFD is handed back
      if (text.includes('\ufffd')) expect(tokensInCore(core, text, t, undefined, seed, 0)).toBeNull();
    }
  });

  it('hands back U+FFFD, more tokens than its room, and a changed token over 2 KiB', () => {
    expect(tokensInCore(core, 'ab\ufffdc')).toBeNull();
    expect(tokensInCore(core, '㋿㋿', 0, 3)).toBeNull(); // 4 tokens ('令' '和' twice) from 6 bytes
    expect(tokensInCore(core, '㋿㋿', 0, 4)).toEqual(tokensRefOf('㋿㋿'));
    expect(tokensInCore(core, '中文的句子', 0, 4)).toBeNull(); // a run of ideographs, one token each
    expect(tokensInCore(core, '中文的句子', 0, 5)).toEqual(tokensRefOf('中文的句子'));
    expect(tokensInCore(core, '中，文。的句子', 0, 4)).toBeNull(); // separators between them take no room
    expect(tokensInCore(core, '中，文。的句子', 0, 5)).toEqual(tokensRefOf('中，文。的句子'));
    expect(tokensInCore(core, '中文\ufffd的')).toBeNull();
    expect(tokensInCore(core, `Ж${'ж'.repeat(1200)}`)).toBeNull(); // 2,402 bytes, the first one changed
    expect(tokensInCore(core, `${'ж'.repeat(1200)}Ж`)).toBeNull();
    expect(tokensInCore(core, 'ж'.repeat(5000))).toEqual(tokensRefOf('ж'.repeat(5000))); // unchanged: any length
  });
});
