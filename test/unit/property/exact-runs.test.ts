/**
 * The one exact-run finder (src/util/exact-runs.ts) against the three it replaced (kept verbatim in
 * test/reference/run-finders-before.ts), on seeded random inputs: the aligner's greedy runs (`exactRuns`), the
 * scan's candidate positions per 4-word key (what `copySpans` walks from) and its spans, extraction's maximal runs
 * (`RunIndex`). Small alphabets and repetitive sequences, so that runs are common, ties happen and the caps on
 * positions per key (64 bigram positions, 16 key positions) are reached.
 */
import { describe, expect, it } from 'vitest';
import { copySpans } from '../../../src/align/copies.js';
import type { Prepared } from '../../../src/align/prepare.js';
import { exactRuns } from '../../../src/align/verbatim.js';
import { RunIndex } from '../../../src/services/memorization/text.js';
import { GramIndex, greedyRuns, maximalRuns } from '../../../src/util/exact-runs.js';
import { mulberry32 } from '../../../src/util/random.js';
import { copySpansReference } from '../../reference/copy-spans.js';
import { exactRunsBefore, KeyIndexBefore, RunIndexBefore } from '../../reference/run-finders-before.js';

/**
 * A sequence of ids: random over `alphabet` ids, or a copy of stretches of `from` (some ids changed), or one id
 * repeated with a few others (the caps' case).
 */
function sequence(rand: () => number, n: number, alphabet: number, from?: Int32Array): Int32Array {
  const out = new Int32Array(n);
  const kind = Math.floor(rand() * 3);
  for (let i = 0; i < n; ) {
    if (kind === 1 && from !== undefined && from.length > 0 && rand() < 0.6) {
      const at = Math.floor(rand() * from.length);
      const len = 1 + Math.floor(rand() * 60);
      for (let k = 0; k < len && i < n && at + k < from.length; k++)
        out[i++] = rand() < 0.03 ? Math.floor(rand() * alphabet) : from[at + k];
    } else out[i++] = kind === 2 && rand() < 0.8 ? 0 : Math.floor(rand() * alphabet);
  }
  return out;
}

const prepared = (tokWord: Int32Array) => ({ tokWord }) as unknown as Prepared;

describe('GramIndex', () => {
  it('finds each k-gram’s positions, ascending, the first `cap` of them; none for a k-gram with a negative id', () => {
    const index = new GramIndex(Int32Array.of(5, 6, 7, 5, 6, -1, 6, 5, 6), 2, 2);
    expect(index.positions(index.key(Int32Array.of(5, 6), 0))).toEqual([0, 3]); // the third (7) is past the cap
    expect(index.key(Int32Array.of(6, -1), 0)).toBe(-1);
    expect(index.key(Int32Array.of(6, 5), 0)).toBeGreaterThanOrEqual(0);
    expect(index.key(Int32Array.of(9, 9), 0)).toBe(-1);
    expect(index.positions(-1)).toEqual([]);
    expect(maximalRuns(Int32Array.of(7, 1, 2, 3), new GramIndex(Int32Array.of(1, 2, 3), 2), 2)).toEqual([
      { a: 1, b: 0, length: 3 },
    ]);
    expect(greedyRuns(Int32Array.of(1, 2, 3, 9), new GramIndex(Int32Array.of(0, 1, 2, 3), 2), 3)).toEqual([0, 1, 3]);
  });
});

describe('the one run finder gives what each of the three before it gave', () => {
  it('the aligner’s greedy runs (exactRuns): 600 seeded pairs, whole and in token ranges', () => {
    const rand = mulberry32(7301);
    let runs = 0;
    for (let t = 0; t < 600; t++) {
      const alphabet = [2, 3, 8, 40][t % 4];
      const V = sequence(rand, Math.floor(rand() * 400), alphabet);
      const W = sequence(rand, Math.floor(rand() * 400), alphabet, V);
      const K = 2 + Math.floor(rand() * 10);
      const pa = prepared(W),
        pb = prepared(V);
      let r: { ta0: number; ta1: number; tb0: number; tb1: number } | undefined;
      if (t % 2 === 1) {
        const ta0 = Math.floor(rand() * (W.length + 1)),
          tb0 = Math.floor(rand() * (V.length + 1));
        r = {
          ta0,
          ta1: ta0 + Math.floor(rand() * (W.length - ta0 + 1)),
          tb0,
          tb1: tb0 + Math.floor(rand() * (V.length - tb0 + 1)),
        };
      }
      const want = exactRunsBefore(pa, pb, K, r);
      expect(exactRuns(pa, pb, K, r), `case ${t}`).toEqual(want);
      runs += want.length / 3;
    }
    expect(runs).toBeGreaterThan(1000); // the cases find runs, not only none
  });

  it('the scan’s key positions (copies.ts): every 4-word key of 300 seeded query windows, the first 16 in order', () => {
    const rand = mulberry32(7302);
    let capped = 0;
    for (let t = 0; t < 300; t++) {
      const alphabet = [2, 4, 30][t % 3];
      const Q = sequence(rand, Math.floor(rand() * 300), alphabet);
      // the document's ids: the query's, or -1 for a word the query lacks
      const S = sequence(rand, Math.floor(rand() * 300), alphabet + 3, Q).map((id) => (id >= alphabet ? -1 : id));
      const before = new KeyIndexBefore(S);
      const after = new GramIndex(S, 4, 16);
      for (let i = 0; i + 4 <= Q.length; i++) {
        const want: number[] = [];
        for (let j = before.first(Q, i); j >= 0; j = before.next[j]) want.push(j);
        expect(after.positions(after.key(Q, i)), `case ${t}, key at ${i}`).toEqual(want);
        if (want.length === 16) capped++;
      }
    }
    expect(capped).toBeGreaterThan(100);
  });

  it('the scan’s spans (copySpans) where the copy’s keys recur about 16 times before it (the cap on positions)', () => {
    const rand = mulberry32(7303);
    const vocabulary = 'the of and a to in was he it that said she her you at with'.split(' ');
    const word = () => vocabulary[Math.floor(rand() * vocabulary.length)];
    const settled = { spans: 0, none: 0 };
    for (let t = 0; t < 60; t++) {
      const passage = Array.from({ length: 45 + Math.floor(rand() * 30) }, word);
      const copy = passage.slice();
      for (let e = Math.floor(rand() * 3); e > 0; e--) copy[4 + Math.floor(rand() * (copy.length - 4))] = 'replaced';
      // each half of the passage (overlapping by 4 words: every key of the passage is in one) among other words,
      // `repeats` times; then the passage: a key's copy is at its repeats + 1st position
      const repeats = 10 + Math.floor(rand() * 11);
      const mid = passage.length >> 1;
      const other = Array.from({ length: 8 }, () => 'elsewhere');
      const decoys = Array.from({ length: repeats }, () =>
        [...passage.slice(0, mid + 4), ...other, ...passage.slice(mid - 4), ...other].join(' '),
      );
      const doc = [...decoys, passage.join(' '), 'end of the document here'].join(' ');
      const lead = Array.from({ length: 30 }, () => 'before').join(' ');
      const query = `${lead} ${copy.join(' ')} ${Array.from({ length: 30 }, () => 'after').join(' ')}`;
      const q0 = lead.length + 1,
        s0 = doc.lastIndexOf(passage.join(' '));
      const regions = [
        { query_start: q0, query_end: q0 + copy.join(' ').length, source_start: s0, source_end: s0 + 10 },
      ];
      const windows = [{ q0: 0, q1: query.length, s0: 0, s1: doc.length }];
      const want = copySpansReference(query, doc, windows, regions);
      expect(copySpans(query, doc, windows, regions), `case ${t}`).toEqual(want);
      settled[want === null ? 'none' : 'spans']++;
    }
    expect(settled.spans).toBeGreaterThan(5);
    expect(settled.none).toBeGreaterThan(5);
  });

  it('extraction’s maximal runs (RunIndex): 600 seeded outputs against works, seeds 2 to 5', () => {
    const rand = mulberry32(7304);
    let runs = 0;
    for (let t = 0; t < 600; t++) {
      const alphabet = [2, 3, 10, 50][t % 4];
      const name = (id: number) => (id < alphabet ? `w${id}` : `out-only-${id}`);
      const work = Array.from(sequence(rand, Math.floor(rand() * 300), alphabet), name);
      const workIds = Int32Array.from(work, (w) => Number(w.slice(1)));
      const out = Array.from(sequence(rand, Math.floor(rand() * 300), alphabet + 2, workIds), name);
      const seed = 2 + Math.floor(rand() * 4);
      const minTokens = rand() < 0.5 ? undefined : 1 + Math.floor(rand() * 12);
      const want = new RunIndexBefore(work, seed).runs(out, minTokens);
      expect(new RunIndex(work, seed).runs(out, minTokens), `case ${t}`).toEqual(want);
      runs += want.length;
    }
    expect(runs).toBeGreaterThan(1000);
  });
});
