import { describe, expect, it } from 'vitest';
import { mapTokens, textPieces, tokenBytes, tokenSpelling } from '../../src/remote/index.js';
import { retryAfter } from '../../src/remote/transport.js';
import { parseMetadata } from '../../src/remote/api.js';
import { callBudget, spacingAsked } from '../../src/remote/search.js';
import { spreadOrder } from '../../src/util/pool.js';
import { createTokenizer } from '../fixtures/infini-gram/index.mjs';

/** The substring each token maps to. */
const spans = (text: string, m: ReturnType<typeof mapTokens>) =>
  Array.from(m.starts, (s, k) => text.slice(s, m.ends[k]));

describe('token spellings', () => {
  it('tells SentencePiece, byte-level and plain tokens apart', () => {
    expect(tokenSpelling(['▁University', '▁of', '▁Washington'])).toBe('sentencepiece');
    expect(tokenSpelling(['<0xE2>', '<0x80>'])).toBe('sentencepiece');
    expect(tokenSpelling(['ĠUniversity', 'Ġof'])).toBe('byte-level');
    expect(tokenSpelling(['Call', 'me'])).toBe('plain');
  });

  it('reads a token as the bytes it stands for', () => {
    expect([...tokenBytes('▁of', 'sentencepiece')]).toEqual([0x20, 0x6f, 0x66]);
    expect([...tokenBytes('<0xE2>', 'sentencepiece')]).toEqual([0xe2]);
    expect([...tokenBytes('Ġof', 'byte-level')]).toEqual([0x20, 0x6f, 0x66]);
    expect([...tokenBytes('Ċ', 'byte-level')]).toEqual([0x0a]);
    expect([...tokenBytes('Ã©', 'byte-level')]).toEqual([0xc3, 0xa9]); // é
  });
});

describe("mapTokens: the server's tokens back to offsets in the caller's text", () => {
  it('maps the documented Llama-2 example', () => {
    const m = mapTokens('University of Washington', 0, [3014, 310, 7660], ['▁University', '▁of', '▁Washington']);
    expect(Array.from(m.starts)).toEqual([0, 10, 13]); // a token holds its word-start space
    expect(Array.from(m.ends)).toEqual([10, 13, 24]);
    expect(m.unmapped).toBe(0);
  });

  it('maps byte-fallback tokens of a multi-byte character onto the character (with an offset)', () => {
    // “ is E2 80 9C; é is C3 A9
    const text = '“café”';
    const tokens = ['▁', '<0xE2>', '<0x80>', '<0x9C>', 'caf', '<0xC3>', '<0xA9>', '<0xE2>', '<0x80>', '<0x9D>'];
    const m = mapTokens(
      text,
      100,
      tokens.map((_, i) => i),
      tokens,
    );
    expect(m.unmapped).toBe(0);
    expect(m.starts[1]).toBe(100); // the first byte of “
    expect(m.ends[3]).toBe(101);
    expect([m.starts[4], m.ends[4]]).toEqual([101, 104]);
    expect([m.starts[5], m.ends[6]]).toEqual([104, 105]); // é
  });

  it('maps GPT-2 tokens, with the space the server prepends taken as virtual', () => {
    const text = 'Call me Ishmael.\nSome years ago';
    const tokens = ['ĠCall', 'Ġme', 'ĠIsh', 'mael', '.', 'Ċ', 'Some', 'Ġyears', 'Ġago'];
    const m = mapTokens(
      text,
      0,
      tokens.map((_, i) => i),
      tokens,
    );
    expect(spans(text, m)).toEqual(['Call', ' me', ' Ish', 'mael', '.', '\n', 'Some', ' years', ' ago']);
  });

  it('gives a token it cannot place an empty span and counts it', () => {
    const m = mapTokens('abc def', 0, [1, 2, 3], ['▁abc', '▁XYZ', '▁def']);
    expect(m.unmapped).toBe(1);
    expect(spans('abc def', m)).toEqual(['abc', '', ' def']);
  });

  it('maps every token of the fixture tokenizers back onto the text they encoded (property, both spellings)', () => {
    const corpus =
      'The quick brown fox jumps over the lazy dog. Le café est fermé — “naïve” 東京 😀 tabs\tand\nnew lines.\n';
    for (const flavour of ['llama', 'gpt2'] as const) {
      const tok = createTokenizer(flavour, corpus.repeat(20), { vocabSize: 400 });
      let seed = 7;
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let trial = 0; trial < 60; trial++) {
        const words = corpus.split(' ');
        const from = Math.floor(rnd() * words.length),
          to = from + 1 + Math.floor(rnd() * 8);
        const text = words.slice(from, to).join(' ').trimEnd();
        if (text.trim() === '' || /^\s/.test(text)) continue;
        const ids = tok.encodeQuery(text);
        const m = mapTokens(text, 0, ids, tok.idsToTokens(ids) as string[]);
        expect(m.unmapped, `${flavour}: ${JSON.stringify(text)}`).toBe(0);
        // the spans tile the text in order: each starts where the previous ended (or after a virtual space)
        for (let k = 1; k < ids.length; k++) expect(m.starts[k]).toBeGreaterThanOrEqual(m.ends[k - 1] - 2);
        expect(m.ends[ids.length - 1]).toBe(text.length);
      }
    }
  });
});

describe('textPieces', () => {
  it('cuts at spaces into pieces of at most 900 characters that never hold " AND " or " OR "', () => {
    const text = 'Alpha beta gamma delta. '.repeat(100) + 'cats AND dogs OR birds ' + 'x'.repeat(2000) + ' end';
    const pieces = textPieces(text);
    let last = 0;
    for (const p of pieces) {
      const piece = text.slice(p.start, p.end);
      expect(p.start).toBeGreaterThanOrEqual(last);
      expect(piece.length).toBeLessThanOrEqual(900);
      expect(piece).not.toMatch(/\s(AND|OR)\s/);
      expect(piece).not.toMatch(/^\s|\s$/);
      last = p.end;
    }
    // every non-space character is in some piece
    const covered = new Uint8Array(text.length);
    for (const p of pieces) covered.fill(1, p.start, p.end);
    for (let i = 0; i < text.length; i++) if (!/\s/.test(text[i])) expect(covered[i]).toBe(1);
  });

  it('loses no token at a boundary: hard-wrapped and double-spaced text tokenized in pieces gives the whole text’s ids', () => {
    // a Llama tokenizer as the engines use (dummy prefix ▁, newline as <0x0A>, a second space a lone ▁): a piece
    // cut after a newline or a double space would lose that token; cut at a single space, the next piece's leading
    // ▁ stands for it (the server drops a query's leading lone ▁, as the real one strips id 29871)
    const words = 'the quiet harbour kept its lamps lit through the long winter of the flood'.split(' ');
    const rnd = (() => {
      let x = 7;
      return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    })();
    let text = '';
    for (let i = 0; i < 1400; i++) {
      const gap = i === 0 ? '' : rnd() < 0.12 ? '\n' : rnd() < 0.1 ? '  ' : ' ';
      text += gap + words[Math.floor(rnd() * words.length)];
    }
    const tok = createTokenizer('llama', text);
    const pieces = textPieces(text);
    expect(pieces.length).toBeGreaterThan(3);
    const joined = pieces.flatMap((p) => tok.encodeQuery(text.slice(p.start, p.end)));
    expect(joined).toEqual(tok.encodeQuery(text));
    for (const p of pieces.slice(1)) expect(text.slice(p.start - 2, p.start)).toMatch(/^\S $/);
  });

  it('keeps non-ASCII pieces short enough for the 500-token limit', () => {
    const pieces = textPieces('東京都'.repeat(400));
    for (const p of pieces) expect(p.end - p.start).toBeLessThanOrEqual(150);
  });
});

describe('small parts', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfter('3')).toBe(3000);
    expect(retryAfter(null)).toBeUndefined();
    expect(retryAfter('soon')).toBeUndefined();
    expect(retryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
  });

  it("parses the indexer's metadata string", () => {
    expect(
      parseMetadata('{"path": "a.jsonl", "linenum": 3, "metadata": {"meta": {"pile_set_name": "Books3"}}}\n'),
    ).toEqual({ path: 'a.jsonl', linenum: 3, metadata: { meta: { pile_set_name: 'Books3' } } });
    expect(parseMetadata('')).toBeNull();
    expect(parseMetadata('not json')).toBeNull();
    expect(parseMetadata('[1,2]')).toBeNull();
  });

  it('budgets 250 calls for 2,000 words and 1,000 for 10,000', () => {
    expect(callBudget(2000, 1000)).toBe(250);
    expect(callBudget(10_000, 1000)).toBe(1000);
    expect(callBudget(100_000, 1000)).toBe(1000);
    expect(callBudget(10, 1000)).toBe(51);
  });
});

describe('spacingAsked: how far apart the samples a search asked lie', () => {
  // 100 places every 16 tokens of a text of 1,616 tokens
  const planned = Array.from({ length: 100 }, (_, i) => 16 + 16 * i);

  it('is the planned stride when every planned place was asked, whatever else', () => {
    expect(spacingAsked(planned, 100, 1616, 16)).toBe(16);
    // piece samples between the planned places (closer than the stride): still the stride
    expect(spacingAsked([5, 16, 21, 32], 4, 40, 16)).toBe(16);
  });

  it("is the widest gap between the places asked, the text's ends counted as asked", () => {
    expect(spacingAsked([10, 30, 40], 4, 40, 10)).toBe(20);
    expect(spacingAsked([20, 30, 40], 4, 40, 10)).toBe(20); // the first place unasked: 0–20
    expect(spacingAsked([10, 20], 4, 40, 10)).toBe(20); // the last two unasked: 20 to the end
    expect(spacingAsked([], 4, 40, 10)).toBe(40);
    expect(spacingAsked([10, 20, 30], 4, 35, 10)).toBe(10); // cut short of a place 5 from the end: never below the stride
  });

  it('a search cut short in the spread order: the fewer asked, the wider, never below the mean gap', () => {
    const order = spreadOrder(planned.length);
    for (const [m, atMost] of [
      [64, 32],
      [50, 64],
      [25, 128],
      [8, 256],
    ] as const) {
      const asked = order
        .slice(0, m)
        .map((j) => planned[j])
        .sort((x, y) => x - y);
      const spacing = spacingAsked(asked, 100, 1616, 16);
      expect(spacing, `${m} of 100 asked`).toBeGreaterThanOrEqual(1616 / (m + 1));
      expect(spacing, `${m} of 100 asked`).toBeLessThanOrEqual(atMost);
    }
  });
});
