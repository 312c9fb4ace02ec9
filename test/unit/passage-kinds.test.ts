/**
 * The kind of every passage compare reports (src/align/reuse.ts): read off its two spans by the share of its
 * words in shared runs of ≥ 3 words (`similarity`), or `'summary'` from the aligner's summary mode
 * (test/unit/align-passages.test.ts). The examples are those of docs/compare.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { reuseKind, runsOf, sharedRuns } from '../../src/align/reuse.js';
import { createEngine, type Engine } from '../../src/index.js';
import { book } from '../fixtures/texts/index.js';

const persuasion = book('austen-persuasion');
const at = persuasion.indexOf('Mary need not have feared');
/** Persuasion, chapter 18: the paragraph on Anne hearing of Louisa's engagement. */
const PARAGRAPH = persuasion.slice(at, persuasion.indexOf('\n\n', at));
/** The paragraph with a dozen words changed. */
const EDITED =
  "Mary need not have feared her sister's being at all prepared for the news. She had never in her life been so " +
  'astonished. Captain Benwick and Louisa Musgrove! It was almost too wonderful to believe, and it was with the ' +
  'greatest effort that she could stay in the room, keep an air of calmness, and answer the common questions of the ' +
  'moment. Happily for her, they were few. Sir Walter wanted to know whether the Crofts travelled with four horses, ' +
  'and whether they were likely to be lodged in such a part of Bath as it might suit Miss Elliot and himself to ' +
  'visit; but had little curiosity beyond.';
/** The paragraph reworded the way a language model rewords (written for this test). */
const REWORDED =
  "Anne was not at all ready for the news, so Mary's worry on that point was needless: she had never been so " +
  'astonished in her whole life. Louisa Musgrove to marry Captain Benwick! It seemed almost too wonderful to ' +
  'believe, and it took her greatest effort to stay in the room, appear calm, and reply to the ordinary questions ' +
  'of the moment. Luckily, there were not many of them. Her father only asked whether the Crofts had travelled ' +
  'with four horses, and whether they would probably take lodgings in a part of Bath where Miss Elliot and he ' +
  'could suitably call on them; beyond that he showed little curiosity.';

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
});

describe('kinds of passage', () => {
  it('a copy is verbatim, an edited copy edited, a reworded paragraph paraphrase; each kind matches its similarity', () => {
    const cases = [
      [`An essay. ${PARAGRAPH.replace(/\s+/g, ' ')} The end.`, 'verbatim'],
      [EDITED, 'edited'],
      [REWORDED, 'paraphrase'],
    ] as const;
    for (const [a, kind] of cases) {
      const { spans } = engine.compare(a, PARAGRAPH);
      expect(spans).toHaveLength(1);
      const [s] = spans;
      expect(s.kind).toBe(kind);
      // the similarity is recomputed from the two spans, and gives the kind
      const { similarity } = sharedRuns(a.slice(s.a_start, s.a_end), PARAGRAPH.slice(s.b_start, s.b_end));
      expect(s.similarity).toBeCloseTo(similarity, 4);
      expect(reuseKind(s.similarity)).toBe(kind);
    }
  });

  it('reuseKind: thresholds at 0.95 and 0.5', () => {
    expect([0, 0.49, 0.5, 0.94, 0.95, 1].map(reuseKind)).toEqual([
      'paraphrase',
      'paraphrase',
      'edited',
      'edited',
      'verbatim',
      'verbatim',
    ]);
  });

  it('runsOf: passages shorter than a run count at their own length', () => {
    expect(runsOf(['word'], ['word'])).toEqual({ tokens: 1, similarity: 1 });
    expect(runsOf(['two', 'words'], ['two', 'words', 'more'])).toEqual({ tokens: 2, similarity: 1 });
    expect(runsOf(['two', 'words'], ['words', 'two'])).toEqual({ tokens: 2, similarity: 0 });
    expect(runsOf([], ['x'])).toEqual({ tokens: 0, similarity: 0 });
  });
});
