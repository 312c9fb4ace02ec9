import { readFileSync } from 'node:fs';
import { prng } from '../reference/core.js';
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import { isAsciiOnly, normalize, normalizeFolded, NORMALIZER_ID } from '../../src/text/normalize.js';
import { isTokenChar, standsAlone, toNFKCCasefold, UNICODE_VERSION } from '../../src/text/nfkc-casefold.js';

interface Vector {
  part: string;
  c: [string, string, string, string, string];
  /** Expected fold of every column, or one per column where the fold is not closed (`closed: false`). */
  nfkc_cf: string | string[];
  closed: boolean;
}
interface Fixture {
  unicode: string;
  vectors: Vector[];
  cases: { input: string; nfkc_cf: string }[];
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/nfkc-vectors.json', import.meta.url), 'utf8')) as Fixture;

const POOLS: readonly string[] = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  '     ,.;:!?-\'"()[]\n\t',
  'àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿßÀÉÎÕÜ',
  'αβγδεζηθικλμνξοπρσςτυφχψωΑΒΓΔΣΊΰΐ',
  'абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВЁ',
  '日本語中文字漢字〆〇㐀𠀀𪜀',
  'ひらがなカタカナｶﾞｱｲｳ',
  '한국어가각\u1100\u1161\u11A8\u1112\u1161',
  '👍🏽😀🎉❤️\uFE0F🇫🇷',
  '\u0300\u0301\u0302\u0308\u0323\u0327\u0345\u035D\u05B0\u064B',
  'שלוםعربيةمرحبا',
  '\u00AD\u200B\u200C\u200D\u2060\uFEFF',
  'ＡＢＣａｂｃ１２３！',
  'ﬁﬂﬀﬃﬆǄǅǆĲ㎒①⑴½²ℌ℀',
  '\u{1E900}\u{1E922}\u{16EA0}\u{1E030}\u{1CCD6}\uA7C9\u{10570}',
];
const POOL_CHARS = POOLS.map((p) => Array.from(p));

function randomText(rand: () => number, length: number): string {
  let s = '';
  while (s.length < length) {
    const pool = POOL_CHARS[Math.floor(rand() * POOL_CHARS.length)]!;
    const run = 1 + Math.floor(rand() * 6);
    for (let i = 0; i < run; i++) s += pool[Math.floor(rand() * pool.length)];
  }
  return s;
}

function tokenSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let s = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i === text.length || text.charCodeAt(i) === 0x20) {
      if (i > s) spans.push([s, i]);
      s = i + 1;
    }
  }
  return spans;
}

describe('toNFKCCasefold', () => {
  it('uses the pinned Unicode version', () => {
    expect(UNICODE_VERSION).toBe('17.0.0');
    expect(fixture.unicode).toBe(UNICODE_VERSION);
    expect(NORMALIZER_ID).toBe('nfkccf-u17.0.0.t2');
  });

  it('folds NFKC-equivalent columns of NormalizationTest alike', () => {
    expect(fixture.vectors.length).toBeGreaterThan(300);
    for (const v of fixture.vectors) {
      const folded = v.c.map(toNFKCCasefold);
      const c4 = toNFKCCasefold(v.c[3]);
      // c2..c5 are always canonically ordered; c1 differs only around U+0345 (see `closed`).
      expect(folded.slice(1), v.c[0]).toEqual([c4, c4, c4, c4]);
      if (v.closed) expect(folded[0], v.c[0]).toBe(c4);
      else expect(folded[0]).not.toBe(c4);
    }
  });

  it('matches the generator reference fold for every vector and case', () => {
    for (const v of fixture.vectors) {
      const expected = typeof v.nfkc_cf === 'string' ? v.c.map(() => v.nfkc_cf) : v.nfkc_cf;
      expect(v.c.map(toNFKCCasefold), v.c[0]).toEqual(expected);
    }
    for (const { input, nfkc_cf } of fixture.cases) expect(toNFKCCasefold(input), input).toBe(nfkc_cf);
  });

  it('is idempotent', () => {
    const rand = prng(7);
    for (let i = 0; i < 200; i++) {
      const once = toNFKCCasefold(randomText(rand, 40));
      expect(toNFKCCasefold(once)).toBe(once);
    }
  });

  it('classifies code points', () => {
    expect(isTokenChar(0x61)).toBe(true);
    expect(isTokenChar(0x0301)).toBe(true);
    expect(isTokenChar(0x0661)).toBe(true);
    expect(isTokenChar(0x20)).toBe(false);
    expect(isTokenChar(0x1f44d)).toBe(false);
    expect(isTokenChar(0x110000)).toBe(false);
    expect(standsAlone(0x65e5)).toBe(true); // 日
    expect(standsAlone(0x20000)).toBe(true); // 𠀀
    expect(standsAlone(0x30c6)).toBe(true); // テ
    expect(standsAlone(0x306f)).toBe(true); // は
    expect(standsAlone(0x30fc)).toBe(true); // ー (Common, Script_Extensions Hiragana Katakana)
    expect(standsAlone(0x3099)).toBe(false); // combining voiced sound mark: marks never stand alone
    expect(standsAlone(0x3005)).toBe(true); // 々 (Han, Lm)
    expect(standsAlone(0x0e01)).toBe(true); // ก Thai
    expect(standsAlone(0x0e48)).toBe(false); // Thai tone mark (Mn)
    expect(standsAlone(0x0e50)).toBe(false); // ๐ Thai digit: numbers stay runs
    expect(standsAlone(0x0e81)).toBe(true); // ກ Lao
    expect(standsAlone(0x1780)).toBe(true); // ក Khmer
    expect(standsAlone(0x1000)).toBe(true); // က Myanmar
    expect(standsAlone(0x02bc)).toBe(false); // ʼ: Script_Extensions lists Latin too
    expect(standsAlone(0xac00)).toBe(false); // 가: Korean is written with spaces
    expect(standsAlone(0x61)).toBe(false);
    expect(standsAlone(0x3001)).toBe(false); // 、 is punctuation, a separator
  });
});

describe('normalize: known answers', () => {
  const text = (s: string): string => normalize(s).text;

  it.each([
    ['Straße', 'strasse'],
    ['ẞ', 'ss'],
    ['ﬁnance', 'finance'],
    ['ＡＢＣ１２３', 'abc123'],
    ['co\u00ADoperate', 'cooperate'],
    ['日本語テキスト', '日 本 語 テ キ ス ト'],
    ['Hello, World!', 'hello world'],
    ['', ''],
    ['  ...  ', ''],
    ['👍🏽 ok', 'ok'],
    ['\u1112\u1161', '하'],
    ['Ǆemal ĲSSEL', 'džemal ijssel'],
    ['x² + ½', 'x2 1 2'],
    ['İstanbul', 'i\u0307stanbul'],
  ])('%j → %j', (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  it('folds final and non-final sigma alike', () => {
    expect(text('ΣΊΣΥΦΟΣ')).toBe(text('σίσυφος'));
    expect(text('σίσυφος')).toBe('σίσυφοσ');
  });

  it('gives one text for canonically equivalent input', () => {
    expect(text('e\u0301')).toBe(text('é'));
    expect(text('e\u0301')).toBe('é');
    expect(text('\u212B')).toBe(text('å'));
  });

  it('makes every character of a script written without spaces a token of its own', () => {
    // Japanese: kanji and kana alike, so an edit costs the n-grams around one character, not a whole kana run
    expect(text('吾輩は猫である。名前はまだ無い。')).toBe('吾 輩 は 猫 で あ る 名 前 は ま だ 無 い');
    expect(text('コーヒー')).toBe('コ ー ヒ ー');
    // half-width katakana fold to full width, a voicing mark composes with its kana first
    expect(text('ｶﾞｯｺｳ')).toBe('ガ ッ コ ウ');
    expect(text('か\u3099')).toBe('が');
    // Chinese, traditional and simplified
    expect(text('學而時習之，不亦說乎？')).toBe('學 而 時 習 之 不 亦 說 乎');
    // Thai, Lao, Khmer, Myanmar: each letter alone, the marks after it one token; digits stay one number
    expect(text('ภาษาไทย ๒๕๖๗')).toBe('ภ า ษ า ไ ท ย ๒๕๖๗');
    expect(text('ア\u3099')).toBe('ア \u3099'); // no composite: the mark is a token after its kana
    expect(text('ที่')).toBe('ท \u0e35\u0e48');
    expect(text('ພາສາລາວ')).toBe('ພ າ ສ າ ລ າ ວ');
    expect(text('ភាសា')).toBe('ភ \u17b6 ស \u17b6');
    expect(text('မြန်မာ')).toBe('မ \u103c န \u103a မ \u102c');
    // mixed with spaced scripts: Latin, Korean and digits keep their words
    expect(text('東京Tower 2024年 한국어')).toBe('東 京 tower 2024 年 한국어');
  });

  it('keeps right-to-left words as tokens', () => {
    expect(text('שלום, עולם')).toBe('שלום עולם');
    expect(text('مرحبا بالعالم!')).toBe('مرحبا بالعالم');
  });

  it('takes the ASCII fast path to the same result as the general path', () => {
    const rand = prng(3);
    for (let i = 0; i < 100; i++) {
      let s = '';
      for (let j = 0; j < 80; j++) s += String.fromCharCode(Math.floor(rand() * 128));
      expect(isAsciiOnly(s)).toBe(true);
      // Appending a separator that is not ASCII forces the general path; it must not change the tokens.
      const general = normalize(s + '\u00A0');
      const ascii = normalize(s);
      expect(general.text).toBe(ascii.text);
      expect(Array.from(general.map)).toEqual(Array.from(ascii.map));
    }
    expect(isAsciiOnly('café')).toBe(false);
  });
});

describe('normalize: ASCII stretches between folded ones = folding everything', () => {
  /** Mostly ASCII prose with characters of the other pools sprinkled in, or runs of them, at `density`. */
  function sprinkled(rand: () => number, length: number, density: number): string {
    let s = '';
    while (s.length < length) {
      if (rand() < density) {
        const pool = POOL_CHARS[2 + Math.floor(rand() * (POOL_CHARS.length - 2))]!;
        for (let k = 1 + Math.floor(rand() * (rand() < 0.2 ? 200 : 3)); k > 0; k--)
          s += pool[Math.floor(rand() * pool.length)];
      } else {
        const pool = POOL_CHARS[Math.floor(rand() * 2)]!;
        for (let k = 1 + Math.floor(rand() * 12); k > 0; k--) s += pool[Math.floor(rand() * pool.length)];
      }
    }
    return s;
  }

  it('the same text and offset map on sprinkled, dense and long mixed text', () => {
    const rand = prng(11);
    for (let i = 0; i < 600; i++) {
      const density = [0.01, 0.05, 0.3, 0.9][i % 4]!;
      const text = sprinkled(rand, i % 50 === 0 ? 20_000 : Math.floor(rand() * 400), density);
      const fast = normalize(text),
        reference = normalizeFolded(text);
      expect(fast.text).toBe(reference.text);
      expect(Array.from(fast.map)).toEqual(Array.from(reference.map));
    }
    // a combining mark after an ASCII letter composes with it; a capital before a curly quote is folded
    for (const t of ['cafe\u0301 au lait', 'A\u0308B', 'Don’t STOP', 'x\uFB01y', '<\u0338', 'end’']) {
      expect(normalize(t)).toEqual(normalizeFolded(t));
    }
  });
});

describe('normalize: offset map', () => {
  it('maps an ASCII example exactly', () => {
    const { text, map } = normalize('  Hi, you!');
    expect(text).toBe('hi you');
    expect(Array.from(map)).toEqual([2, 3, 4, 6, 7, 8, 9]);
    expect(Array.from(normalize('...').map)).toEqual([0]);
  });

  it('maps expansions, compositions and surrogate pairs', () => {
    const a = normalize('ﬁx e\u0301t 𝐀');
    expect(a.text).toBe('fix ét a');
    expect(Array.from(a.map)).toEqual([0, 0, 1, 2, 3, 5, 6, 7, 9]);
  });

  function checkMap(original: string, ascii: boolean): void {
    const { text, map } = normalize(original);
    expect(map).toBeInstanceOf(Uint32Array);
    expect(map.length).toBe(text.length + 1);
    for (const v of map) expect(v).toBeLessThanOrEqual(original.length);
    let previousStart = 0;
    for (const [s, e] of tokenSpans(text)) {
      const start = map[s]!;
      const end = map[e]!;
      expect(start).toBeGreaterThanOrEqual(previousStart);
      expect(end).toBeGreaterThan(start);
      previousStart = start;
      const token = text.slice(s, e);
      const source = original.slice(start, end);
      if (ascii) expect(source.toLowerCase()).toBe(token);
      else expect(normalize(source).text.split(' '), `${JSON.stringify(original)} ${token}`).toContain(token);
    }
  }

  it('holds its invariants on random ASCII', () => {
    const rand = prng(1);
    for (let i = 0; i < 300; i++) {
      let s = '';
      const n = Math.floor(rand() * 60);
      for (let j = 0; j < n; j++) s += String.fromCharCode(32 + Math.floor(rand() * 95));
      checkMap(s, true);
    }
  });

  it('holds its invariants on random mixed scripts', () => {
    const rand = prng(2);
    for (let i = 0; i < 1000; i++) checkMap(randomText(rand, Math.floor(rand() * 50)), false);
  });
});

describe('normalize: errors and scale', () => {
  it('rejects lone surrogates, naming the index', () => {
    for (const [input, index] of [
      ['ab\uD800', 2],
      ['\uDC00x', 0],
      ['é\uD83Dz', 1],
      ['👍\uDE00', 2],
    ] as const) {
      let error: unknown;
      try {
        normalize(input);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TrainprintError);
      expect((error as TrainprintError).code).toBe('INVALID_INPUT');
      expect((error as TrainprintError).detail).toContain(`index ${index}`);
    }
  });

  it('rejects non-strings', () => {
    for (const bad of [42, null, undefined, {}, ['a'], new Uint8Array(1)]) {
      expect(() => normalize(bad as never)).toThrow(TrainprintError);
      expect(() => toNFKCCasefold(bad as never)).toThrow(/INVALID|not valid/);
    }
  });

  // a quadratic step would not finish 5 MB within the test's timeout (2 minutes); the speed itself is measured by
  // bench/fingerprint.mjs, not asserted here (a loaded machine would fail any fixed bound)
  it('handles 5 MB inputs (linear: a quadratic step would run past the timeout)', () => {
    const sentence = 'The quick brown fox, jumps over 13 lazy dogs. ';
    const ascii = sentence.repeat(Math.ceil(5e6 / sentence.length));
    const mixed = 'Ἀρχὴ ήμισυ παντός — Straße ﬁnance 日本語 👍🏽 e\u0301\u0323 한국어 '.repeat(Math.ceil(5e6 / 60));
    // Long runs of marks exercise canonical ordering, which must not go quadratic either.
    const marks = ('a' + '\u0301\u0323'.repeat(50) + ' ').repeat(Math.ceil(5e6 / 102));
    for (const input of [ascii, mixed, marks]) {
      const { text, map } = normalize(input);
      expect(map.length).toBe(text.length + 1);
      expect(map[text.length]).toBeLessThanOrEqual(input.length);
    }
  });
});
