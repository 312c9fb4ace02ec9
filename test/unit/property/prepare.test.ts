/**
 * Differential test of the aligner's text preparation: `preparePair` (process-wide lexicon, per-pair dense ids)
 * against `prepare` with one `TermDict` per pair (the reference), on seeded random prose, Unicode and texts
 * that share words — the same token spans, ids, sentences and term counts, through a lexicon epoch change too.
 */
import { describe, expect, it } from 'vitest';
import { prepare, preparePair, TermDict } from '../../../src/align/prepare.js';
import { STOP_WORDS } from '../../../src/align/stem.js';
import { Lexicon, tokenize, TokenizedCache, TokenizedText, type Tokens } from '../../../src/align/tokens.js';
import { prng } from '../../reference/core.js';
import { randomText, randomWords } from './gen.js';

const CONTENT = (
  'connect connected connection connections running runs runner generalization generalizations ' +
  'happy happiness relational agreed agreement cats cat sitting Mat mats warm warmth'
).split(' ');
const MARKS = [' ', ' ', ' ', ' ', '. ', '! ', '? ', ', ', '.\n', '\n\n', '\nThe ', '… ', '.” '];

/** Prose of `n` words: stop words, inflected content words, seeded random words, sentence marks. */
function prose(seed: number, n: number): string {
  const rnd = prng(seed);
  const base = randomWords(seed, n);
  let out = '';
  for (let i = 0; i < n; i++) {
    out += rnd() < 0.4 ? CONTENT[(rnd() * CONTENT.length) | 0] : base[i];
    out += MARKS[(rnd() * MARKS.length) | 0];
  }
  return out;
}

function reference(a: string, b: string, min: number) {
  const dict = new TermDict();
  const pa = prepare(a, dict, min);
  const pb = prepare(b, dict, min);
  return { pa, pb, words: dict.size };
}

const plain = (x: object) =>
  JSON.parse(JSON.stringify(x, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v)));

describe('preparePair = prepare with one TermDict', () => {
  it('on random word texts sharing vocabulary, and on random Unicode', () => {
    const rnd = prng(20261123);
    for (let i = 0; i < 300; i++) {
      const a = i % 3 === 2 ? randomText(i, 1 + Math.floor(rnd() * 400)) : prose(i, 1 + Math.floor(rnd() * 120));
      const b =
        i % 4 === 0
          ? a
          : i % 5 === 0
            ? randomText(i + 1000, Math.floor(rnd() * 300))
            : prose(i + 1000, Math.floor(rnd() * 150));
      const min = 1 + (i % 4);
      expect(plain(preparePair(tokenize(a), tokenize(b), min))).toEqual(plain(reference(a, b, min)));
    }
  });

  it('on prose with sentence marks, line breaks and stop words', () => {
    const a = 'The cat sat on the mat. It was warm!\nAnd then?\n\nA new paragraph begins here, as they do.';
    const b = 'Cats sitting on mats: the warmth of it. “Quoted.” Then nothing.\nlower case goes on';
    for (const min of [1, 3, 5])
      expect(plain(preparePair(tokenize(a), tokenize(b), min))).toEqual(plain(reference(a, b, min)));
  });

  it('tokens of an older lexicon epoch are interned again', () => {
    const a = 'alpha beta gamma delta. epsilon zeta eta theta.';
    const ta = tokenize(a);
    const stale = { ...ta, epoch: ta.epoch - 1 };
    expect(plain(preparePair(stale, tokenize(a), 2))).toEqual(plain(reference(a, a, 2)));
  });
});

describe('Lexicon: one dense word id per form, found by the characters around it', () => {
  it('50,000 random forms (the table grows many times) against a Map, by word and by wordAt inside a text', () => {
    const lex = new Lexicon();
    const ref = new Map<string, number>();
    const rnd = prng(99);
    const forms = [...randomWords(5, 30_000), ...STOP_WORDS, ...CONTENT, 'é', 'ﬁ', '字', '😀x', 'a'];
    for (let i = 0; i < 20_000; i++) forms.push(Math.floor(rnd() * 1e9).toString(36));
    for (let round = 0; round < 2; round++) {
      for (const form of forms) {
        const id = round === 0 ? lex.word(form) : lex.wordAt(`<${form}>`, 1, form.length + 1);
        if (!ref.has(form)) ref.set(form, ref.size);
        expect(id).toBe(ref.get(form));
      }
    }
    expect(lex.words).toBe(ref.size);
    for (const [form, id] of [...ref].filter((_, i) => i % 97 === 0)) {
      expect(lex.termOf[id] === -1).toBe(STOP_WORDS.has(form));
    }
  });
});

describe('TokenizedText windows = tokenize of the slice', () => {
  const same = (a: Tokens, b: Tokens) => {
    expect(a.text).toBe(b.text);
    expect(Array.from(a.start)).toEqual(Array.from(b.start));
    expect(Array.from(a.end)).toEqual(Array.from(b.end));
    expect(Array.from(a.word)).toEqual(Array.from(b.word));
  };
  /** A cut at the white space at or before `at`, as the search cuts its windows (or anywhere, sometimes). */
  const cut = (text: string, at: number, anywhere: boolean) => {
    if (anywhere) return (text.charCodeAt(at) & 0xfc00) === 0xdc00 ? at - 1 : at; // never inside a surrogate pair
    for (let i = at; i > 0; i--) if (/\s/.test(text[i])) return i;
    return 0;
  };

  it('on long prose and on Unicode without spaces, windows cut at white space or anywhere', () => {
    const rnd = prng(7);
    for (let i = 0; i < 40; i++) {
      const text =
        i % 4 === 3 ? randomText(i, 3000 + Math.floor(rnd() * 20_000), 0.1) : prose(i, 500 + Math.floor(rnd() * 4000));
      const tt = new TokenizedText(text);
      for (let w = 0; w < 25; w++) {
        const anywhere = w % 5 === 4;
        let from = cut(text, Math.floor(rnd() * text.length), anywhere);
        let to = cut(text, Math.floor(rnd() * (text.length + 1)), anywhere);
        if (from > to) [from, to] = [to, from];
        same(tt.window(from, to), tokenize(text.slice(from, to)));
      }
      same(tt.window(0, text.length), tokenize(text));
    }
  });
});

describe('TokenizedCache', () => {
  it('gives a kept document again, a fresh one when its text changed, and holds at most its limit', () => {
    const cache = new TokenizedCache(10_000);
    const owner = {},
      other = {};
    const a = prose(1, 600),
      b = prose(2, 600);
    const first = cache.get(owner, 0, a);
    expect(cache.get(owner, 0, a)).toBe(first);
    expect(cache.get(other, 0, a)).not.toBe(first); // another dataset's document 0
    const changed = cache.get(owner, 0, b);
    expect(changed).not.toBe(first);
    expect(changed.text).toBe(b);
    // least recently used out first, the units never over the limit
    const rnd = prng(3);
    for (let d = 1; d < 60; d++) {
      cache.get(owner, d, prose(d, 100 + Math.floor(rnd() * 400)));
      expect(cache.units).toBeLessThanOrEqual(10_000);
    }
    expect(cache.get(owner, 0, b)).not.toBe(changed); // long since pushed out
    // a text over the limit is tokenized but not kept
    const huge = prose(9, 5000);
    expect(huge.length).toBeGreaterThan(10_000);
    expect(cache.get(owner, 99, huge)).not.toBe(cache.get(owner, 99, huge));
    // windows of a kept text are those of tokenize (the cache changes nothing else)
    const kept = cache.get(owner, 5, a);
    const w = kept.window(0, a.length);
    expect(Array.from(w.word)).toEqual(Array.from(tokenize(a).word));
  });
});
