/**
 * The kind of every passage compare reports (src/align/reuse.ts): read off its two spans by the share of its
 * words in shared runs of ≥ 3 words (`similarity`), or `'summary'` from the aligner's summary mode
 * (test/unit/align-passages.test.ts). The examples are those of docs/compare.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { reuseKind, runShare, runsOf, sharedRuns } from '../../src/align/reuse.js';
import { createEngine, type Engine } from '../../src/index.js';
import { EDITED, PARAGRAPH, REWORDED } from '../fixtures/reworded.js';

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

  it('runShare equals a plain reference (3-word runs as strings in a Set) on random word sequences', () => {
    /** The measure as first written: runs of min(3, |q|) words joined as strings. */
    const reference = (q: number[], t: number[]): number => {
      if (q.length === 0) return 0;
      const run = Math.min(3, q.length);
      const grams = new Set<string>();
      for (let i = 0; i + run <= t.length; i++) grams.add(t.slice(i, i + run).join(' '));
      const covered = new Uint8Array(q.length);
      for (let i = 0; i + run <= q.length; i++)
        if (grams.has(q.slice(i, i + run).join(' '))) covered.fill(1, i, i + run);
      return covered.reduce((x, y) => x + y, 0) / q.length;
    };
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let trial = 0; trial < 400; trial++) {
      const vocab = 2 + rnd(12);
      const t = Array.from({ length: rnd(60) }, () => rnd(vocab));
      // q: pieces of t and random words
      const q: number[] = [];
      for (let len = rnd(50); q.length < len; ) {
        if (t.length > 0 && rnd(2) === 0) {
          const at = rnd(t.length);
          q.push(...t.slice(at, at + 1 + rnd(6)));
        } else q.push(rnd(vocab));
      }
      // inside larger arrays, at offsets, as compare calls it
      const pad = [99, 98, 97];
      const Q = Int32Array.from([...pad, ...q, ...pad]),
        T = Int32Array.from([...pad, ...pad, ...t, ...pad]);
      expect(runShare(Q, 3, 3 + q.length, T, 6, 6 + t.length)).toBeCloseTo(reference(q, t), 12);
    }
  });
});
