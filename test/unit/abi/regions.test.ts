/**
 * The region search (assembly/regions.ts: findRegions) of the SIMD build, which reads whole 64-byte blocks of
 * non-ASCII text, against the scalar build's, which walks every character of them: the same regions (byte and UTF-16
 * bounds), the same count when the records outrun their room, and the same rewritten inert separators, on texts whose
 * non-ASCII words lie at every offset of a block with ASCII gaps on either side of the merging distance; and the word
 * tokens of texts whose triggers follow ASCII stretches of several blocks, and of runs of wide characters over whole
 * blocks, against the reference.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { ensureTables, tokenizeWords } from '../../../src/fingerprint/words.js';
import { normalize } from '../../../src/text/normalize.js';
import { prng, tokensRef, xxh64Ref } from '../../reference/core.js';
import { BUILDS, coreOf } from './helpers.js';

const encoder = new TextEncoder();

/** findRegions on `bytes` with room for `cap` records: the count, the records written (words 0..5) and the bytes after. */
function regionsOf(core: Core, bytes: Uint8Array, cap: number) {
  const L = core.layout(1 << 20);
  const p = L.take(bytes.length + 64);
  const out = L.take(cap * 32 + 32);
  L.commit();
  core.writeBytes(p, bytes);
  const n = core.raw.findRegions(p, bytes.length, out, cap);
  const words = core.u32(out, Math.min(n, cap) * 8);
  const records = Array.from({ length: Math.min(n, cap) }, (_, r) => Array.from(words.subarray(r * 8, r * 8 + 6)));
  return { n, records, bytes: Array.from(core.u8.subarray(p, p + bytes.length)) };
}

// Words of 2-byte scripts (short and longer than the merging distance), CJK, an astral character, ASCII words and runs
// of every length around 32 bytes, separators ASCII and inert (before ASCII or not).
const PIECES = [
  'слово',
  'Москва',
  'достопримечательность',
  'превысокомногорассмотрительствующий',
  'λόγος',
  'Straße',
  'écoute',
  'żółw',
  'naïveté',
  '中文',
  '日本語の',
  '😀',
  'Vim',
  'a1',
  'x',
  ' ',
  ' ',
  ' ',
  '  ',
  '\n     ',
  ', ',
  '.',
  '-',
  '\u00a0',
  '\u00bb',
  '\u2014',
  '\u201c',
  '\u3001',
  '\u00d7',
];

/** An ASCII stretch of `n` bytes: words and spaces. */
function asciiRun(rnd: () => number, n: number): string {
  let s = '';
  while (s.length < n) s += rnd() < 0.2 ? ' ' : String.fromCharCode(97 + Math.floor(rnd() * 26));
  return s;
}

function randomMixed(rnd: () => number): string {
  let text = asciiRun(rnd, Math.floor(rnd() * 64)); // every alignment of what follows
  for (let k = 20 + Math.floor(rnd() * 300); k > 0; k--) {
    text += rnd() < 0.1 ? ` ${asciiRun(rnd, 20 + Math.floor(rnd() * 30))} ` : PIECES[Math.floor(rnd() * PIECES.length)];
  }
  return text;
}

describe('findRegions: SIMD blocks against the character walk', () => {
  let simd: Core;
  let scalar: Core;
  beforeAll(async () => {
    simd = await coreOf('core.simd.wasm');
    scalar = await coreOf('core.wasm');
  });

  it('finds the same regions and rewrites the same separators on 1,000 mixed-script texts', () => {
    const rnd = prng(2718);
    let regions = 0;
    for (let t = 0; t < 1000; t++) {
      const text = randomMixed(rnd);
      const bytes = encoder.encode(text);
      const want = regionsOf(scalar, bytes, bytes.length + 1);
      expect(regionsOf(simd, bytes, bytes.length + 1), JSON.stringify(text)).toEqual(want);
      regions += want.n;
    }
    expect(regions).toBeGreaterThan(2000); // the texts are not one region each: gaps over 32 bytes split them
  });

  it('counts the regions past its room the same way', () => {
    const rnd = prng(3141);
    for (let t = 0; t < 200; t++) {
      const text = randomMixed(rnd);
      const bytes = encoder.encode(text);
      expect(regionsOf(simd, bytes, 2), JSON.stringify(text)).toEqual(regionsOf(scalar, bytes, 2));
    }
  });
});

// Runs of wide characters longer than a block (ideographs, kana, CJK punctuation, two-byte words without spaces) ending
// in ASCII, an inert separator or an astral character at every offset: the SIMD build takes a block of 64 bytes of
// lead and continuation bytes whose next 4 bytes are non-ASCII too in one step.
const WIDE = [
  '中',
  '文',
  'の',
  'ガ',
  '、',
  '。',
  '，',
  '「',
  '」',
  '\u3000',
  '\u2014',
  '\u201c',
  '\u201d',
  'ж',
  'é',
  '\u00a0',
];
const WIDE_ENDS = ['', ' ', '\n', 'a', '1', '😀', '\u3000 ', '\u3001.', '\u201d ', '\u00a0x', '中 ', 'é,'];

function wideRuns(rnd: () => number): string {
  let text = asciiRun(rnd, Math.floor(rnd() * 64));
  for (let k = 1 + Math.floor(rnd() * 5); k > 0; k--) {
    for (let n = Math.floor(rnd() * 150); n > 0; n--) text += WIDE[Math.floor(rnd() * (rnd() < 0.7 ? 4 : WIDE.length))];
    text += WIDE_ENDS[Math.floor(rnd() * WIDE_ENDS.length)];
  }
  return text;
}

describe('findRegions: runs of wide characters over whole blocks', () => {
  it('finds the same regions and rewrites the same separators in the SIMD and scalar builds on 1,000 texts', async () => {
    const simd = await coreOf('core.simd.wasm');
    const scalar = await coreOf('core.wasm');
    const rnd = prng(1414);
    for (let t = 0; t < 1000; t++) {
      const text = wideRuns(rnd);
      const bytes = encoder.encode(text);
      const want = regionsOf(scalar, bytes, bytes.length + 1);
      expect(regionsOf(simd, bytes, bytes.length + 1), JSON.stringify(text)).toEqual(want);
    }
  });

  it('give the word tokens of the reference in every build', async () => {
    for (const file of BUILDS) {
      const core = await coreOf(file);
      const rnd = prng(1732);
      for (let t = 0; t < 300; t++) {
        const text = wideRuns(rnd);
        expect(coreTokensOf(core, text), `${file} ${JSON.stringify(text)}`).toEqual(tokensRefOf(text));
      }
    }
  });
});

// Long ASCII stretches — several 64-byte blocks, with spaces or one unbroken word — ending in a word that needs the
// normaliser, at every alignment: findRegions skips such stretches a block at a time and finds the start of the word
// that holds the trigger from the stretch's end.
const TRIGGERS = ['é', 'Москва', '中文', '=\u0338b', 'e\u0301', '😀', 'Ｎｏ', 'ÉCOLE', 'déjà-vu'];
const AFTER = ['', ' ', '\u00a0', '\u201d ', '. ', 'x', '\u2014'];

function asciiStretch(rnd: () => number): string {
  const n = Math.floor(rnd() * 400);
  if (rnd() < 0.3) return 'w'.repeat(n); // one word of up to six blocks
  let s = '';
  while (s.length < n)
    s += rnd() < 0.15 ? (rnd() < 0.5 ? ' ' : ', ') : String.fromCharCode(97 + Math.floor(rnd() * 26));
  return s;
}

function longAscii(rnd: () => number): string {
  let text = '';
  for (let k = 1 + Math.floor(rnd() * 6); k > 0; k--) {
    text += asciiStretch(rnd);
    if (rnd() < 0.5) text += 'q'.repeat(Math.floor(rnd() * 70)); // the trigger's word begins in the stretch
    text += TRIGGERS[Math.floor(rnd() * TRIGGERS.length)] + AFTER[Math.floor(rnd() * AFTER.length)];
  }
  return text + asciiStretch(rnd);
}

describe('word tokens after long ASCII stretches', () => {
  it('equal the reference (normalize, then split) in every build on 600 texts', async () => {
    for (const file of BUILDS) {
      const core = await coreOf(file);
      const rnd = prng(1618);
      for (let t = 0; t < 600; t++) {
        const text = longAscii(rnd);
        const got = tokenizeWords(core, core.layout(), text);
        const n = got.count;
        expect(got.regionFixes).toEqual([]);
        expect(
          {
            starts: Array.from(core.u32(got.startsPtr, n)),
            ends: Array.from(core.u32(got.endsPtr, n)),
            hashes: Array.from(core.u64(got.hashesPtr, n)),
          },
          `${file} ${JSON.stringify(text)}`,
        ).toEqual(tokensRefOf(text));
      }
    }
  });
});

// Short regions — an ASCII separator and one word — after ASCII stretches of every length 0..200: the stretch's last
// block read where it lies (its bytes past the stretch masked off) at every offset, and its tokens' hashes put off
// until a later stretch or the end; a region with a U+FFFD sends the call back to the host (tokenizeWords checks it
// and calls again from that region), which must find the hashes of the stretches before it written. The words take
// nfkcTokens's first step (a separator, then words that need no normalising) or fall back from it to the general loop.
const SHORT_WORDS = ['déjà', 'Über', 'ŻÓŁW', 'żółw', 'ÉCOLE', 'straße', 'e\u0301', 'x\ufffd', '中', 'ΛΟΓΟΣ', 'ﬁ'];

describe('word tokens of short regions after ASCII stretches of every length', () => {
  it('equal the reference in every build, a U+FFFD handed back to the host among them', async () => {
    for (const file of BUILDS) {
      const core = await coreOf(file);
      for (let gap = 0; gap <= 200; gap++) {
        let text = '';
        for (const [k, word] of SHORT_WORDS.entries()) text += `${'ab '.repeat(k + 1).slice(0, gap + k)} ${word}`;
        text += ` ${'z'.repeat(gap)}`;
        expect(coreTokensOf(core, text), `${file} ${JSON.stringify(text)}`).toEqual(tokensRefOf(text));
      }
    }
  });
});

/** The reference's word tokens of `text`: those of normalize(text).text, offsets mapped back, XXH64 (seed 0) of each. */
/** The core's tokens of `text` as the reference gives them: starts, ends and hashes. */
function coreTokensOf(core: Parameters<typeof tokenizeWords>[0], text: string) {
  const got = tokenizeWords(core, core.layout(), text);
  const n = got.count;
  return {
    starts: Array.from(core.u32(got.startsPtr, n)),
    ends: Array.from(core.u32(got.endsPtr, n)),
    hashes: Array.from(core.u64(got.hashesPtr, n)),
  };
}

function tokensRefOf(text: string) {
  const n = normalize(text);
  const t = tokensRef(n.text);
  return {
    starts: t.starts.map((s) => n.map[s]),
    ends: t.ends.map((e) => n.map[e]),
    hashes: t.starts.map((s, i) => xxh64Ref(encoder.encode(n.text.slice(s, t.ends[i])), 0n)),
  };
}

// An inert separator followed by ASCII inside a run of ideographs and kana (a full stop or a closing quote before a
// newline): findRegions rewrites it as ' ' + 0xFF bytes, which the tokenizer's run (aloneRun) steps over at no UTF-16
// unit; an ellipsis anywhere (three separators in NFKC) is stepped over too. Each at every offset of the SIMD build's
// five-code-point step, followed by what ends a paragraph or begins a word.
const RUN = '吾輩は猫である名前はまだ無いどこで生れたかとんと見当がつかぬ何でも薄暗いじめじめした所で';
const INERT_IN_RUN = ['。', '、', '」', '\u3000', '\u2026', '\u2025', '\u00b7', '\u00a0', '\u2014'];
const AFTER_INERT = ['\n', '\n「', '\r\n\u3000', 'a', '7', ' ', '.', '\u2026', ''];

// The same separators after words that the normaliser's other paths take (plainWords, fastRun): letters with
// diacritics, Cyrillic, Greek capitals, a word it folds, a mark.
const WORDS = ['déjà', 'Москва', 'ΑΘΗΝΑ', 'straße', 'e\u0301', 'Ｎｏ', 'x'];
const INERT_AFTER_WORD = ['\u00a0', '\u00ab', '\u00bb', '\u2019', '\u2014', '\u3001', '\u00b7\u00a0'];

describe('word tokens of runs of ideographs that hold rewritten inert separators and ellipses', () => {
  it('equal the reference after words of other scripts too, in every build', async () => {
    for (const file of BUILDS) {
      const core = await coreOf(file);
      for (const word of WORDS) {
        for (const sep of INERT_AFTER_WORD) {
          for (const after of AFTER_INERT) {
            const text = `${word}${sep}${after}${word} ${sep}${word}${sep}${after}`;
            expect(coreTokensOf(core, text), `${file} ${JSON.stringify(text)}`).toEqual(tokensRefOf(text));
          }
        }
      }
    }
  });

  it('equal the reference (normalize, then split) in runs of ideographs, in every build', async () => {
    for (const file of BUILDS) {
      const core = await coreOf(file);
      for (const sep of INERT_IN_RUN) {
        for (const after of AFTER_INERT) {
          for (let at = 0; at <= 16; at++) {
            const text = `${RUN.slice(0, at)}${sep}${after}${RUN.slice(at)}${sep}${after}${RUN.slice(0, 9)}${sep}${after}`;
            expect(coreTokensOf(core, text), `${file} ${JSON.stringify(text)}`).toEqual(tokensRefOf(text));
          }
        }
      }
    }
  });
});

describe('tokenizeRegions: a region whose U+FFFD the host has checked (record word [6])', () => {
  it('is handed back while word [6] is 0, whatever the room held before, and tokenised by the core once it is set', async () => {
    for (const file of BUILDS) {
      const core = await coreOf(file);
      expect(ensureTables(core, core.layout())).toBe(true);
      for (const text of [
        'plain \ufffd words',
        'caf\u00e9\ufffd and 中\ufffd文 \u201cq\u201d',
        `${'w '.repeat(40)}Ж\ufffd`,
      ]) {
        const bytes = encoder.encode(text);
        const L = core.layout(1 << 20);
        const p = L.take(bytes.length + 64);
        const cap = 8;
        const reg = L.take(cap * 32);
        const room = bytes.length + 2 * cap + 2;
        const [s, e, h, first] = [L.take(room * 4), L.take(room * 4), L.take(room * 8), L.take(cap * 8)];
        L.commit();
        core.writeBytes(p, bytes);
        core.u8.fill(0xff, reg, reg + cap * 32); // records written over room that held anything
        const n = core.raw.findRegions(p, bytes.length, reg, cap);
        expect(n).toBeGreaterThan(0);
        expect(core.raw.tokenizeRegions(p, bytes.length, 0n, reg, n, s, e, h, first, 0, 0), file).toBe(-1);
        for (let r = 0; r < n; r++) core.u32(reg + r * 32 + 24, 1)[0] = 1;
        const count = core.raw.tokenizeRegions(p, bytes.length, 0n, reg, n, s, e, h, first, 0, 0);
        const want = tokensRefOf(text);
        expect(
          {
            starts: Array.from(core.u32(s, count)),
            ends: Array.from(core.u32(e, count)),
            hashes: Array.from(core.u64(h, count)),
          },
          `${file} ${JSON.stringify(text)}`,
        ).toEqual(want);
      }
    }
  });
});
