/**
 * compare (src/align/compare.ts) on short texts: identical texts (after normalisation) give one span
 * over both and similarity 1 at any length, and a near copy of a short text is still found — the
 * sentence statistics (idf over two sentences is 0) and the 40-word verbatim floor said 0 below about
 * 40 words. A reworded short passage is found too (idf counted over at least MIN_IDF_SENTENCES sentences).
 * Unrelated short texts, and short texts on one subject that share a few of its words, still give nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';

const WORDS = (
  'the quick brown fox jumps over a lazy dog while seven wizards quietly hex the jovial king beside an ' +
  'old river that runs north through green hills and dark forests where owls call at night under pale stars so ' +
  'travellers rest by warm fires telling long stories about distant lands'
).split(' ');

const textOf = (n: number): string => `${WORDS.slice(0, n).join(' ')}.`;

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
});

describe('compare: short texts', () => {
  for (const n of [1, 5, 20, 39, 41]) {
    it(`identical ${n}-word texts: similarity 1, one span covering both`, () => {
      const a = textOf(n);
      const r = engine.compare(a, a);
      expect(r.similarity).toBe(1);
      const copy = { score: 1, kind: 'verbatim', similarity: 1 };
      expect(r.spans).toEqual([{ a_start: 0, a_end: a.length, b_start: 0, b_end: a.length, ...copy }]);
      // identical after normalisation: case, spacing and punctuation do not matter
      const b = `  ${a.toUpperCase().replace(/ /g, '\n')}`;
      const r2 = engine.compare(a, b);
      expect(r2.similarity).toBe(1);
      expect(r2.spans).toEqual([{ a_start: 0, a_end: a.length, b_start: 2, b_end: b.length, ...copy }]);
    });
  }

  for (const n of [5, 20, 39, 41]) {
    it(`a ${n}-word text with one word changed is still one passage`, () => {
      const a = textOf(n);
      const words = WORDS.slice(0, n);
      words[n >> 1] = 'zebra';
      const b = `${words.join(' ')}.`;
      const r = engine.compare(a, b);
      expect(r.spans).toHaveLength(1);
      expect(r.similarity).toBeGreaterThanOrEqual(0.8);
    });
  }

  it('a reworded one-sentence passage (clauses moved, words replaced) is found as one span', () => {
    const a =
      'The committee will publish its annual report on regional water quality in early March, after the ' +
      'board has reviewed the findings.';
    const b =
      'After the board reviews its findings, the committee is to publish the yearly report on water quality ' +
      'in the region in early March.';
    const r = engine.compare(a, b);
    expect(r.spans).toHaveLength(1);
    expect(r.spans[0]).toMatchObject({ a_start: 0, b_start: 0 });
    expect(r.spans[0].a_end).toBeGreaterThan(a.length - 3);
    expect(r.spans[0].b_end).toBeGreaterThan(b.length - 3);
    expect(r.similarity).toBeGreaterThanOrEqual(0.8);
  });

  it('short texts on one subject sharing a few of its words give nothing', () => {
    const r = engine.compare(
      'The heart pumps blood through the arteries to every organ of the body.',
      'Doctors measure how fast the heart beats and how blood pressure changes in the arteries.',
    );
    expect(r.spans).toEqual([]);
    expect(r.similarity).toBe(0);
  });

  it('unrelated short texts, or ones sharing only a common phrase, give nothing', () => {
    expect(engine.compare('the cat sat on the mat.', 'a dog ran in the park.').similarity).toBe(0);
    const r = engine.compare('in the middle of the night the storm broke.', 'we met in the middle of town today.');
    expect(r.spans).toEqual([]);
  });
});
