/**
 * A passage's shared runs from the core's tokens of its two sides (src/align/passage-runs.ts) against `sharedRuns`
 * of the two sides normalised in JavaScript (src/align/reuse.ts), what a search for copies alone read before: where
 * the core's path answers, its tokens and similarity must be those; where it declines, the search normalises the
 * passages, so a decline is never wrong — but a passage whose words are all ASCII letters and digits (with curly
 * quotes, dashes or no-break spaces between them, as the scan's outputs have) must always be answered.
 */
import { describe, expect, it } from 'vitest';
import { passageRuns } from '../../../src/align/passage-runs.js';
import { sharedRuns, wordsOf } from '../../../src/align/reuse.js';
import type { AlignedSpan } from '../../../src/align/types.js';
import type { Core } from '../../../src/core/abi.js';
import { normalize } from '../../../src/text/normalize.js';
import { prng } from '../../reference/core.js';
import { BUILDS, coreOf } from '../abi/helpers.js';
import { randomText, randomWords } from './gen.js';

/** Outside ASCII between words (punctuation, a no-break space) and glued to them (an accent, a letter, a ligature). */
const BETWEEN = ['\u201c', '\u201d', '\u2014', '\u00a0', '\u2019', '\u2026'];
const GLUED = ['\u0301', '\u00e9', '\ufb01', '\u00ad', '\u00c9'];

/** Prose with capitals and punctuation, some of it outside ASCII, and now and then a word outside ASCII. */
function prose(seed: number, n: number, glued: number): string {
  const rnd = prng(seed);
  return randomWords(seed, n)
    .map((w) => {
      const r = rnd();
      let word = r < 0.15 ? w[0].toUpperCase() + w.slice(1) : r < 0.2 ? w.toUpperCase() : w;
      if (rnd() < glued) word = rnd() < 0.5 ? word + GLUED[(rnd() * GLUED.length) | 0] : GLUED[1] + word;
      const p = rnd();
      if (p < 0.08) return `${word},`;
      if (p < 0.16) return `${word}${BETWEEN[(rnd() * BETWEEN.length) | 0]}`;
      return p < 0.18 ? `(${word})` : word;
    })
    .join(rnd() < 0.5 ? ' ' : '\n');
}

/** A stretch of `t` from a random point to a random later one: cut anywhere, or at whole words (`words`). */
function cut(rnd: () => number, t: string, words: boolean): [number, number] {
  if (words) {
    const spans = [...t.matchAll(/\S+/g)].map((m) => [m.index, m.index + m[0].length]);
    if (spans.length === 0) return [0, 0];
    const i = Math.floor(rnd() * spans.length),
      j = i + Math.floor(rnd() * Math.min(spans.length - i, 150));
    return [spans[i][0], spans[j][1]];
  }
  const a = Math.floor(rnd() * (t.length + 1)),
    b = a + Math.floor(rnd() * (t.length - a + 1));
  return [a, b];
}

/** The reference, or null where a side cannot be normalised (a lone surrogate where a cut split a pair). */
function reference(query: string, text: string, s: AlignedSpan): { tokens: number; similarity: number } | null {
  try {
    return sharedRuns(query.slice(s.a_start, s.a_end), text.slice(s.b_start, s.b_end));
  } catch {
    return null;
  }
}

/** Whether every normalised word of both sides is ASCII letters and digits (what the core's path always answers). */
function asciiWords(query: string, text: string, s: AlignedSpan): boolean {
  try {
    const words = [
      ...wordsOf(normalize(query.slice(s.a_start, s.a_end))),
      ...wordsOf(normalize(text.slice(s.b_start, s.b_end))),
    ];
    return words.every((w) => /^[a-z0-9]+$/.test(w));
  } catch {
    return false;
  }
}

/** Passages of one query and document pair checked against the reference. */
function checkPair(
  core: Core,
  rnd: () => number,
  query: string,
  text: string,
  counts: { answered: number; ascii: number; asciiAnswered: number },
): void {
  for (let k = 0; k < 10; k++) {
    const words = rnd() < 0.7;
    const [a_start, a_end] = cut(rnd, query, words);
    const [b_start, b_end] = cut(rnd, text, words);
    const s: AlignedSpan = { a_start, a_end, b_start, b_end, score: 1 };
    const got = passageRuns(core, query, text, s);
    const want = reference(query, text, s);
    const where = `${JSON.stringify(query.slice(a_start, a_end))} / ${JSON.stringify(text.slice(b_start, b_end))}`;
    if (want === null) expect(got, where).toBeNull();
    else if (got !== null) {
      expect(got, where).toEqual(want);
      counts.answered++;
    }
    if (asciiWords(query, text, s)) {
      counts.ascii++;
      if (got !== null) counts.asciiAnswered++;
    }
  }
}

const span = (a_start: number, a_end: number, b_start: number, b_end: number): AlignedSpan => ({
  ...{ a_start, a_end, b_start, b_end },
  score: 1,
});

describe.each(BUILDS)(
  "a passage's runs from the core's tokens (%s) = its sides normalised in JavaScript",
  (build) => {
    it('on prose with punctuation and words outside ASCII, on random Unicode, cut anywhere or at words', async () => {
      const core = await coreOf(build);
      const rnd = prng(8401);
      const counts = { answered: 0, ascii: 0, asciiAnswered: 0 };
      for (let t = 0; t < 300; t++) {
        const kind = t % 3;
        const query = kind === 2 ? randomText(700 + t, 800, 0.7) : prose(t, 200, kind === 0 ? 0 : 0.06);
        // the document holds a stretch of the query, so that passages share runs of words
        const host = kind === 2 ? randomText(900 + t, 1200, 0.7) : prose(t + 5000, 150, kind === 0 ? 0 : 0.06);
        const from = Math.floor(rnd() * (query.length / 2));
        const text = `${host.slice(0, host.length / 2)} ${query.slice(from, from + 600)} ${host.slice(host.length / 2)}`;
        checkPair(core, rnd, query, text, counts);
      }
      expect(counts.answered).toBeGreaterThan(1500);
      // every passage of ASCII words is answered by the core's path (the path a scan's passages take)
      expect(counts.asciiAnswered).toBe(counts.ascii);
      expect(counts.ascii).toBeGreaterThan(800);
    });

    it('edge cases: empty and short passages, accents and ligatures, a form outside ASCII met twice', async () => {
      const core = await coreOf(build);
      const pairs: Array<[string, string, AlignedSpan]> = [
        ['The cat sat, on the mat.', 'A cat sat on the mat;', span(0, 0, 0, 0)],
        ['The cat sat, on the mat.', 'A cat sat on the mat;', span(4, 7, 2, 5)],
        ['The cat sat, on the mat.', 'A cat sat on the mat;', span(4, 11, 2, 9)],
        ['The cat sat, on the mat.', 'A cat sat on the mat;', span(0, 24, 0, 21)],
        ['\u201cThe cat\u2019s mat\u201d\u00a0\u2014 it sat', 'the cat s mat - it sat', span(0, 24, 0, 22)],
        ['cafe\u0301 au lait caf\u00e9', 'CAF\u00c9 au lait', span(0, 19, 0, 12)],
        ['\ufb01x the cat fix', 'fix the cat', span(0, 15, 0, 11)],
        ['x1 X1 1x 2024 \uff12\uff10\uff12\uff14', '2024 x1 x1', span(0, 18, 0, 10)],
      ];
      let answered = 0;
      for (const [query, text, s] of pairs) {
        const got = passageRuns(core, query, text, s);
        if (got === null) continue;
        expect(got, query).toEqual(reference(query, text, s));
        answered++;
      }
      expect(answered).toBeGreaterThanOrEqual(5);
      // a form outside ASCII letters and digits met twice in the query's side is left to the normaliser
      expect(passageRuns(core, 'caf\u00e9 caf\u00e9 noir', 'caf\u00e9 noir', span(0, 15, 0, 10))).toBeNull();
      // a side cut inside a surrogate pair is left to the normaliser, which reports it
      expect(passageRuns(core, 'a \u{1f600} b', 'a b', span(0, 3, 0, 3))).toBeNull();
    });
  },
  60_000,
);
