import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import type { Core } from '../../src/core/abi.js';
import { tokenizeWords, tokenSpans } from '../../src/fingerprint/words.js';
import { normalize } from '../../src/text/normalize.js';
import { mulberry32 as random } from '../../src/util/random.js';

// Mostly ideographs and kana, with what the normaliser changes or hands back among them: fullwidth and halfwidth
// forms, ideographic and inert spaces, ASCII words and numbers, capitals, marks, U+FFFD, astral ideographs.
const WIDE = [...'日本語紅樓夢のはカタ。、「」，！\u3000\u3005'];
const RARE = [
  'Ａ',
  'ｶ',
  'ﾞ',
  '\u2005',
  '\u00a0',
  ' ',
  '\n',
  'abc',
  'Word',
  '42',
  'é',
  'e\u0301',
  '\u0301',
  '\ufffd',
  '𠀋',
  'ß',
  '①',
  '㍿',
  'Ж',
  '.',
];

function wideText(next: () => number, length: number, rareShare: number): string {
  let s = '';
  while (s.length < length) {
    const pool = next() < rareShare ? RARE : WIDE;
    s += pool[Math.floor(next() * pool.length)];
  }
  return s;
}

/** The tokens of `input` (one region without the search when its text is wide enough): hashes and spans. */
function tokens(core: Core, input: string | Uint8Array): { hashes: bigint[]; starts: number[]; ends: number[] } {
  return core.guard(() => {
    const t = tokenizeWords(core, core.layout(), input);
    const spans = tokenSpans(core, t);
    return {
      hashes: Array.from(core.u64(t.hashesPtr, t.count)),
      starts: Array.from(spans.starts),
      ends: Array.from(spans.ends),
    };
  });
}

describe('text of ideographs and kana tokenised as one region', () => {
  it('gives the tokens of the normalised text, and the hashes of the same text given as bytes (searched for regions)', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): Core }).assertLive();
    const next = random(0x7470);
    let wide = 0;
    for (let i = 0; i < 400; i++) {
      const text = wideText(next, 1 + Math.floor(next() * 200), [0, 0.02, 0.05, 0.2][i % 4]);
      const bytes = new TextEncoder().encode(text);
      if (bytes.length >= 2.75 * text.length) wide++;
      const asString = tokens(core, text);
      // as many tokens as the normalised text holds (an expansion such as ㍿ gives several of one span)
      expect(asString.hashes.length, JSON.stringify(text)).toBe(normalize(text).text.split(' ').filter(Boolean).length);
      // bytes always take the region search: the same hashes and spans
      expect(asString, JSON.stringify(text)).toEqual(tokens(core, bytes));
    }
    // most of the texts took the one-region path (the rest the search)
    expect(wide).toBeGreaterThan(200);
  });

  it('a wide text the core hands back lays out only what the region search lays out', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): Core }).assertLive();
    // the room a call laid out, the input's included (bytes given the room a string's UTF-8 is given)
    const laidOut = (input: string | Uint8Array, bytesRoom: number) =>
      core.guard(() => {
        const L = core.layout();
        tokenizeWords(core, L, input, undefined, bytesRoom);
        return L.size;
      });
    laidOut('日本語', 0); // the first non-ASCII text decodes the normaliser's tables in its own layout
    const next = random(0x7471);
    for (let i = 0; i < 50; i++) {
      // U+FFFD among ideographs: the one region is handed back, and the search runs
      const text = `${wideText(next, 20 + Math.floor(next() * 300), 0)}\ufffd${wideText(next, 1 + Math.floor(next() * 50), 0)}`;
      const bytes = new TextEncoder().encode(text);
      expect(bytes.length).toBeGreaterThanOrEqual(2.75 * text.length);
      expect(laidOut(text, 0), JSON.stringify(text)).toBe(laidOut(bytes, text.length * 3));
    }
  });

  it('a lone surrogate in a wide text is still refused, at its index', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): Core }).assertLive();
    const text = `日本語の文章。${'紅樓夢'.repeat(20)}\ud800${'語'.repeat(10)}`;
    expect(() => tokens(core, text)).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('index 67') }),
    );
  });
});
