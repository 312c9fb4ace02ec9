/**
 * compare on whole books: texts far past the old 500,000-character bound align through seeded regions
 * (src/align/regions.ts) with the spans the sentence-level method gives, and the stages rewritten to stay
 * near-linear (typed hash tables, grouped overlap resolution, incremental edge growing) keep their exact
 * results. Timings are not asserted here: bench/compare-books.mjs measures them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import type { Core } from '../../src/core/abi.js';
import {
  ALL_PAIRS_LIMIT,
  alignSpans,
  alignSpansScoped,
  compareTexts,
  resolveCompareOptions,
} from '../../src/align/compare.js';
import { PairTable } from '../../src/align/key-table.js';
import { rangeCosine, resolveOverlaps, type Frag } from '../../src/align/passages.js';
import { prepare, sentences, TermDict } from '../../src/align/prepare.js';
import { seededRegions } from '../../src/align/regions.js';
import { idfWeights, postings, seedsOfPairs, seedsReference, vectors, type Vectors } from '../../src/align/seeds.js';
import { prng } from '../reference/core.js';
import { aliceEditions, book } from '../fixtures/texts/index.js';

let core: Core;
beforeAll(async () => {
  core = ((await createEngine()) as unknown as { assertLive(): Core }).assertLive();
});

const DEFAULTS = resolveCompareOptions(undefined);

/** Whole paragraphs of `text` from the first paragraph break after `from`, at least `chars` long. */
function paragraphsAt(text: string, from: number, chars: number): { start: number; end: number } {
  const start = text.indexOf('\n\n', from) + 2;
  let end = text.indexOf('\n\n', start + chars);
  if (end < 0) end = text.length;
  return { start, end: text.slice(start, end).trimEnd().length + start };
}

/** [first, last) word character of text[start, end): where a span over those words starts and must reach. */
function wordExtent(text: string, start: number, end: number): [number, number] {
  const words = [...text.slice(start, end).matchAll(/[\p{L}\p{N}]+/gu)];
  const last = words[words.length - 1];
  return [start + words[0].index, start + last.index + last[0].length];
}

/** The span covers exactly the words of text[start, end) (closing punctuation after the last one allowed). */
function expectWordsOf(text: string, s0: number, s1: number, start: number, end: number): void {
  const [w0, w1] = wordExtent(text, start, end);
  expect(s0).toBe(w0);
  expect(s1).toBeGreaterThanOrEqual(w1);
  expect(s1).toBeLessThanOrEqual(end);
}

/** Share of [s0, s1) covered by [t0, t1). */
const covered = (s0: number, s1: number, t0: number, t1: number): number =>
  Math.max(0, Math.min(s1, t1) - Math.max(s0, t0)) / (s1 - s0);

describe('whole books', () => {
  it('identical texts far past 500,000 characters: similarity 1, one span over everything', () => {
    const text = [book('austen-persuasion'), book('chesterton-thursday'), book('milton-paradise')].join('\n\n');
    expect(text.length).toBeGreaterThan(1_000_000);
    const r = compareTexts(core, text, text);
    expect(r.similarity).toBe(1);
    expect(r.spans).toHaveLength(1);
    const s = r.spans[0];
    expectWordsOf(text, s.a_start, s.a_end, 0, text.length);
    expect(s).toMatchObject({ b_start: s.a_start, b_end: s.a_end, score: 1 });
  });

  // a: Persuasion and Paradise Lost (about 0.9 MB) with two passages pasted in at paragraph breaks, one
  // of The Man Who Was Thursday verbatim, one of Alice with about one word in twelve changed; b: Thursday,
  // Julius Caesar, Blake and Alice (about 0.6 MB). Far more sentence pairs than ALL_PAIRS_LIMIT.
  const source = [
    book('chesterton-thursday'),
    book('shakespeare-caesar'),
    book('blake-poems'),
    aliceEditions().current,
  ].join('\n\n');
  const base = `${book('austen-persuasion')}\n\n${book('milton-paradise')}`;
  const verbatim = paragraphsAt(source, 150_000, 2_500);
  const edited = paragraphsAt(source, source.length - 60_000, 2_000);
  const rnd = prng(3);
  const editedText = source
    .slice(edited.start, edited.end)
    .replace(/[a-z]{4,}/g, (w) => (rnd() < 0.08 ? 'something' : w));
  const cut1 = base.indexOf('\n\n', 150_000) + 2,
    cut2 = base.indexOf('\n\n', 400_000) + 2;
  const a =
    base.slice(0, cut1) +
    source.slice(verbatim.start, verbatim.end) +
    '\n\n' +
    base.slice(cut1, cut2) +
    editedText +
    '\n\n' +
    base.slice(cut2);
  const at1 = cut1,
    at2 = cut2 + (verbatim.end - verbatim.start) + 2;

  it('a pair of 1.5 MB in all: the two pasted passages are found, with their spans on both sides', () => {
    expect(cut1).toBeGreaterThan(150_000);
    expect(cut2).toBeGreaterThan(400_000);
    const dict = new TermDict();
    expect(sentences(prepare(a, dict, 3)) * sentences(prepare(source, dict, 3))).toBeGreaterThan(ALL_PAIRS_LIMIT);
    const r = compareTexts(core, a, source);
    expect(r.spans).toHaveLength(2);
    const [first, second] = r.spans;
    expectWordsOf(a, first.a_start, first.a_end, at1, at1 + verbatim.end - verbatim.start);
    expectWordsOf(source, first.b_start, first.b_end, verbatim.start, verbatim.end);
    expect(covered(at2, at2 + editedText.length, second.a_start, second.a_end)).toBeGreaterThan(0.95);
    expect(covered(second.a_start, second.a_end, at2, at2 + editedText.length)).toBeGreaterThan(0.95);
    expect(covered(edited.start, edited.end, second.b_start, second.b_end)).toBeGreaterThan(0.95);
    expect(covered(second.b_start, second.b_end, edited.start, edited.end)).toBeGreaterThan(0.95);
  });

  it('a long text against a short one, either way round: the passage they share', () => {
    const short = `A note on the sources.\n\n${source.slice(verbatim.start, verbatim.end)}\n\nThat is all.`;
    const longFirst = alignSpans(core, a, short, DEFAULTS);
    expect(longFirst).toHaveLength(1);
    expectWordsOf(a, longFirst[0].a_start, longFirst[0].a_end, at1, at1 + verbatim.end - verbatim.start);
    const shortFirst = alignSpans(core, short, a, DEFAULTS);
    expect(
      shortFirst.map((s) => ({ ...s, a_start: s.b_start, a_end: s.b_end, b_start: s.a_start, b_end: s.a_end })),
    ).toEqual(longFirst);
  });

  it('two unrelated books: no span', () => {
    const r = compareTexts(core, base, source);
    expect(r.spans).toEqual([]);
    expect(r.similarity).toBe(0);
  });
});

describe('seeded regions score like the kernel', () => {
  const rnd = prng(11);
  const vocab = Array.from({ length: 80 }, (_, i) => `w${i}ord`);
  const text = (n: number): string =>
    Array.from({ length: n }, (_, i) => vocab[Math.floor(rnd() * vocab.length)] + (i % 9 === 8 ? '. ' : ' ')).join('');

  it('every pair as a candidate: the same seeds as the reference, bit for bit', () => {
    for (let round = 0; round < 10; round++) {
      const dict = new TermDict();
      const pa = prepare(text(60 + round * 40), dict, 3),
        pb = prepare(text(50 + round * 30), dict, 3);
      const idf = idfWeights(pa, pb, dict.size);
      const va = vectors(pa, idf),
        vb = vectors(pb, idf);
      const Sa = sentences(pa),
        Sb = sentences(pb);
      const rowOff = Uint32Array.from({ length: Sa + 1 }, (_, i) => i * Sb);
      const cols = Uint32Array.from({ length: Sa * Sb }, (_, k) => k % Sb);
      const got = seedsOfPairs(va, vb, { rowOff, cols }, 0.2, 0.2);
      const ref = seedsReference(va, postings(vb, dict.size), vb, 0.2, 0.2);
      expect([...got.a]).toEqual([...ref.a]);
      expect([...got.b]).toEqual([...ref.b]);
      expect([...got.cos]).toEqual([...ref.cos]);
    }
  });

  it('candidates are sorted, distinct and inside the texts', () => {
    const dict = new TermDict();
    const s = book('shakespeare-caesar');
    const pa = prepare(s.slice(0, 60_000), dict, 3),
      pb = prepare(s.slice(30_000, 90_000), dict, 3);
    const { rowOff, cols } = seededRegions(pa, pb, { margin: 4 });
    expect(rowOff.length).toBe(sentences(pa) + 1);
    expect(cols.length).toBeGreaterThan(0);
    for (let i = 0; i < sentences(pa); i++) {
      for (let k = rowOff[i]; k < rowOff[i + 1]; k++) {
        expect(cols[k]).toBeLessThan(sentences(pb));
        if (k > rowOff[i]) expect(cols[k]).toBeGreaterThan(cols[k - 1]);
      }
    }
    // the shared half of the play is scored in full along its diagonal, not the whole product
    expect(cols.length).toBeLessThan((sentences(pa) * sentences(pb)) / 2);
    const spans = alignSpansScoped(core, s.slice(0, 60_000), s.slice(30_000, 90_000), DEFAULTS, 'regions');
    expect(spans).toEqual(alignSpansScoped(core, s.slice(0, 60_000), s.slice(30_000, 90_000), DEFAULTS, 'all-pairs'));
  });
});

describe('near-linear stages keep their results', () => {
  it('PairTable: dense ids, lookups, no confusion of (x, y) with (y, x)', () => {
    const t = new PairTable(5000);
    const rnd = prng(5);
    const seen = new Map<string, number>();
    for (let k = 0; k < 5000; k++) {
      const x = Math.floor(rnd() * 300),
        y = Math.floor(rnd() * 300);
      const id = t.add(x, y);
      const key = `${x},${y}`;
      if (!seen.has(key)) seen.set(key, seen.size);
      expect(id).toBe(seen.get(key));
    }
    expect(t.size).toBe(seen.size);
    for (const [key, id] of seen) {
      const [x, y] = key.split(',').map(Number);
      expect(t.get(x, y)).toBe(id);
      if (!seen.has(`${y},${x}`)) expect(t.get(y, x)).toBe(-1);
    }
  });

  /** The overlap resolution as first written: one loop over all passages, restarted after each change. */
  function resolveAllAtOnce(
    frags: Frag[],
    cosOf: (a0: number, a1: number, b0: number, b1: number) => number,
    sideBySide: number,
  ): Frag[] {
    const ov = (x0: number, x1: number, y0: number, y1: number): boolean => x0 <= y1 && y0 <= x1;
    let changed = true;
    while (changed) {
      changed = false;
      frags.sort((x, y) => x.a0 - y.a0 || x.b0 - y.b0);
      outer: for (let i = 0; i < frags.length; i++) {
        for (let j = i + 1; j < frags.length; j++) {
          const x = frags[i],
            y = frags[j];
          const oa = ov(x.a0, x.a1, y.a0, y.a1),
            ob = ov(x.b0, x.b1, y.b0, y.b1);
          if (!oa && !ob) continue;
          if (oa && ob) {
            const a0 = Math.min(x.a0, y.a0),
              a1 = Math.max(x.a1, y.a1);
            const b0 = Math.min(x.b0, y.b0),
              b1 = Math.max(x.b1, y.b1);
            frags[i] = { a0, a1, b0, b1, seeds: [...x.seeds, ...y.seeds], cos: cosOf(a0, a1, b0, b1) };
            frags.splice(j, 1);
          } else {
            const [x0, x1, y0, y1] = oa ? [x.a0, x.a1, y.a0, y.a1] : [x.b0, x.b1, y.b0, y.b1];
            if ((Math.min(x1, y1) - Math.max(x0, y0) + 1) / Math.min(x1 - x0 + 1, y1 - y0 + 1) < sideBySide) continue;
            const wx = x.cos * (x.a1 - x.a0 + 1 + x.b1 - x.b0 + 1),
              wy = y.cos * (y.a1 - y.a0 + 1 + y.b1 - y.b0 + 1);
            frags.splice(wx >= wy ? j : i, 1);
          }
          changed = true;
          break outer;
        }
      }
    }
    return frags;
  }

  it('overlaps resolved group by group = resolved all at once (random passages, with and without side by side)', () => {
    const rnd = prng(9);
    const S = 400;
    // one term per sentence, so a passage's cosine is that of its sentence ranges
    const vec = (): Vectors => ({
      off: Uint32Array.from({ length: S + 1 }, (_, i) => i),
      terms: Uint32Array.from({ length: S }, (_, i) => i % 37),
      weights: new Float64Array(S).fill(1),
      norms: new Float64Array(S).fill(1),
      sizes: new Uint32Array(S).fill(1),
    });
    const va = vec(),
      vb = vec();
    for (let round = 0; round < 30; round++) {
      const frags: Frag[] = Array.from({ length: 5 + Math.floor(rnd() * 60) }, (_, k) => {
        const a0 = Math.floor(rnd() * (S - 20)),
          b0 = Math.floor(rnd() * (S - 20));
        return { a0, a1: a0 + Math.floor(rnd() * 12), b0, b1: b0 + Math.floor(rnd() * 12), seeds: [k], cos: rnd() };
      });
      const cosOf = (a0: number, a1: number, b0: number, b1: number): number => rangeCosine(va, a0, a1, vb, b0, b1);
      for (const sideBySide of [0, 0.5]) {
        const want = resolveAllAtOnce(
          frags.map((f) => ({ ...f })),
          cosOf,
          sideBySide,
        );
        expect(
          resolveOverlaps(
            frags.map((f) => ({ ...f })),
            va,
            vb,
            sideBySide,
          ),
        ).toEqual(want);
      }
    }
  });
});
