/** Inert separators and the region split used by the word pipeline (src/fingerprint/words.ts). */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { inertCodePoints } from '../../src/core/inert.js';
import { tokenizeWords, tokenSpans } from '../../src/fingerprint/words.js';
import { normalize } from '../../src/text/normalize.js';
import { isTokenChar, toNFKCCasefold } from '../../src/text/nfkc-casefold.js';

describe('inert separators', () => {
  const chars = inertCodePoints();

  it('each folds to a non-empty string without token characters', () => {
    expect(chars.length).toBeGreaterThan(60);
    for (const cp of chars) {
      const folded = toNFKCCasefold(String.fromCharCode(cp));
      expect(folded.length, `U+${cp.toString(16)}`).toBeGreaterThan(0);
      for (const ch of folded) expect(isTokenChar(ch.codePointAt(0)!), `U+${cp.toString(16)} → ${folded}`).toBe(false);
    }
  });

  it('each behaves exactly like an ASCII space before an ASCII character', () => {
    const before = [
      'a',
      'Z',
      '7',
      '=',
      '<',
      ' ',
      '',
      'é',
      'e\u0301',
      '\u0301',
      '\u0338',
      '한',
      '\u1100',
      '日',
      'ﬁ',
      '\u00ad',
      '\u2019',
    ];
    const after = ['a', '1', ' ', '=', '>', ''];
    for (const cp of chars) {
      const x = String.fromCharCode(cp);
      for (const p of before)
        for (const s of after) {
          expect(normalize(p + x + s).text, `${JSON.stringify(p)} U+${cp.toString(16)} ${JSON.stringify(s)}`).toBe(
            normalize(p + ' ' + s).text,
          );
        }
    }
  });
});

describe('word tokens with normaliser regions', () => {
  it('the core skips exactly the inert separators (its table matches INERT_RANGES)', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): import('../../src/core/abi.js').Core }).assertLive();
    const inert = new Set(inertCodePoints());
    const probe = [
      ...inert,
      0xa8,
      0xaa,
      0xad,
      0xb2,
      0xb4,
      0xb5,
      0xc0,
      0x2017,
      0x200b,
      0x2033,
      0x207f,
      0x2122,
      0x2211,
      0x3004,
      0x3005,
      0x4e00,
    ];
    for (const cp of probe) {
      const bytes = new TextEncoder().encode(`a${String.fromCharCode(cp)}b`);
      const L = core.layout();
      const p = L.take(bytes.length + 16),
        out = L.take(64);
      L.commit();
      core.writeBytes(p, bytes);
      const regions = core.raw.findRegions(p, bytes.length, out, 2);
      expect(regions, `U+${cp.toString(16)}`).toBe(inert.has(cp) ? 0 : 1);
    }
  });

  it('spans point into the original text, through inert separators and regions', async () => {
    const engine = await createEngine();
    const text = 'It\u2019s \u201cTHE\u201d caf\u00e9\u00a0Ｎｏ.\u20051 — ÉCOLE, déjà-vu a=\u0338b';
    const fp = await engine.fingerprint(text, {
      shingle: { unit: 'word', size: 1 },
      minhash: false,
      simhash: false,
      workHash: false,
    });
    const spans = Array.from(fp.shingles.starts, (s, i) => text.slice(s, fp.shingles.ends[i]));
    expect(spans).toEqual(['It', 's', 'THE', 'caf\u00e9', 'Ｎｏ', '1', 'ÉCOLE', 'déjà', 'vu', 'a', 'b']);
    expect(spans.length).toBe(normalize(text).text.split(' ').length);
  });

  it('a region whose U+FFFD are of the text itself goes back to the core (no region normalised here), as a string or bytes', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): import('../../src/core/abi.js').Core }).assertLive();
    const texts = [
      'a \ufffd b',
      'x\ufffdy',
      '\ufffd',
      'caf\u00e9\ufffd \u201cQ\u201d and 日本\ufffd語 Ж\ufffd\u0301 ＡＢＣ\ufffd, then plain words',
      `${'words '.repeat(30)}\ufffd\ufffd ${'more '.repeat(30)}e\u0301\ufffd`,
    ];
    for (const text of texts) {
      for (const input of [text, new TextEncoder().encode(text)]) {
        const got = core.guard(() => {
          const t = tokenizeWords(core, core.layout(), input);
          return { fixes: t.regionFixes.length, spans: tokenSpans(core, t) };
        });
        expect(got.fixes, JSON.stringify(text)).toBe(0);
        const spans = Array.from(got.spans.starts, (s, i) => normalize(text.slice(s, got.spans.ends[i])).text);
        expect(spans.join(' '), JSON.stringify(text)).toBe(normalize(text).text);
      }
    }
  });

  it('bytes and strings give the same shingle hashes; malformed UTF-8 is refused', async () => {
    const engine = await createEngine();
    const text = 'Straße “quoted” words, ＡＢＣ and 日本語 mixed with plain ASCII words for a while';
    const a = engine.shingleHashes(text);
    const b = engine.shingleHashes(new TextEncoder().encode(text));
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(Array.from(a)).toEqual(Array.from((await engine.fingerprint(text)).shingles.hashes));
    for (const bad of [
      [0xc3],
      [0xe2, 0x80],
      [0xed, 0xa0, 0x80],
      [0xc0, 0xaf],
      [0xf4, 0x90, 0x80, 0x80],
      [0x61, 0xff],
    ]) {
      expect(() => engine.shingleHashes(Uint8Array.from(bad))).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }),
      );
    }
  });
});
