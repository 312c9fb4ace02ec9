/**
 * The walk of a scan's copies in the core (`copyWalk`, assembly/copywalk.ts, through `walkCopiesInCore`) against
 * its plain-TS reference (`walkCopies`, src/align/copy-walk.ts), in the three builds of the core: the same copies,
 * in the same order, on random windows of word ids — a document passage copied into the query with words replaced,
 * inserted and dropped, passages repeated, small vocabularies (many repeats), empty and one-word windows, long ones —
 * and each copy's words in shared runs equal to `runShare` of src/align/reuse.ts times its words.
 */
import { describe, expect, it } from 'vitest';
import { type QuerySpan, walkCopies, walkCopiesInCore } from '../../../src/align/copy-walk.js';
import { runShare } from '../../../src/align/reuse.js';
import { prng } from '../../reference/core.js';
import { BUILDS, coreOf } from '../abi/helpers.js';

interface Case {
  readonly Q: Int32Array;
  readonly S: Int32Array;
  readonly q: { readonly start: Uint32Array; readonly end: Uint32Array };
  readonly regions: QuerySpan[];
}

/** Query ids numbered by first sight; document words the query lacks −1 (as src/align/window-words.ts gives them). */
function number(query: number[], doc: number[]): { Q: Int32Array; S: Int32Array } {
  const ids = new Map<number, number>();
  const Q = Int32Array.from(query, (w) => {
    let id = ids.get(w);
    if (id === undefined) ids.set(w, (id = ids.size));
    return id;
  });
  return { Q, S: Int32Array.from(doc, (w) => ids.get(w) ?? -1) };
}

/** `passage` with up to `edits` words replaced, inserted (runs of 1–4) or dropped. */
function edit(rnd: () => number, passage: number[], edits: number, vocabulary: number): number[] {
  const out = passage.slice();
  for (let e = Math.floor(rnd() * (edits + 1)); e > 0 && out.length > 0; e--) {
    const at = Math.floor(rnd() * out.length);
    const what = rnd();
    if (what < 0.4) out[at] = Math.floor(rnd() * vocabulary);
    else if (what < 0.7)
      out.splice(at, 0, ...Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => Math.floor(rnd() * vocabulary)));
    else out.splice(at, 1 + Math.floor(rnd() * 3));
  }
  return out;
}

/** A random pair of windows and 0–4 regions of the query (word-aligned, or cut anywhere, or outside the words). */
function randomCase(seed: number): Case {
  const rnd = prng(seed);
  const vocabulary = rnd() < 0.3 ? 2 + Math.floor(rnd() * 6) : 50 + Math.floor(rnd() * 5000);
  const words = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * vocabulary));
  const long = rnd() < 0.1;
  const doc = words(long ? 2000 + Math.floor(rnd() * 3000) : Math.floor(rnd() * 300));
  const query: number[] = words(Math.floor(rnd() * 40));
  for (let p = Math.floor(rnd() * 3); p > 0; p--) {
    const from = Math.floor(rnd() * (doc.length + 1)),
      to = from + Math.floor(rnd() * (doc.length - from + 1));
    query.push(...edit(rnd, doc.slice(from, to), Math.floor(rnd() * 12), vocabulary), ...words(Math.floor(rnd() * 20)));
    if (rnd() < 0.2) query.push(...doc.slice(from, to)); // a passage twice
  }
  const { Q, S } = number(query, doc);
  const start = new Uint32Array(Q.length),
    end = new Uint32Array(Q.length);
  for (let i = 0, at = Math.floor(rnd() * 5); i < Q.length; i++) {
    start[i] = at;
    end[i] = at += 1 + Math.floor(rnd() * 9);
    at += 1 + Math.floor(rnd() * 3);
  }
  const last = Q.length > 0 ? end[Q.length - 1] : 0;
  const regions: QuerySpan[] = [];
  for (let r = Math.floor(rnd() * 5); r > 0; r--) {
    if (Q.length === 0 || rnd() < 0.2) {
      const a = Math.floor(rnd() * (last + 3));
      regions.push({ query_start: a, query_end: a + Math.floor(rnd() * (last + 3 - a)) });
      continue;
    }
    const i = Math.floor(rnd() * Q.length),
      j = i + Math.floor(rnd() * Math.min(120, Q.length - i));
    regions.push({ query_start: start[i], query_end: end[j] });
  }
  return { Q, S, q: { start, end }, regions };
}

describe.each(BUILDS)('the walk of copies in the core (%s) = the plain-TS walk', (build) => {
  it('on 3,000 random windows: edits, insertions, drops, repeats, empty and long windows', async () => {
    const core = await coreOf(build);
    let found = 0,
      none = 0;
    for (let t = 0; t < 3000; t++) {
      const { Q, S, q, regions } = randomCase(t);
      const want = walkCopies(Q, q, S, regions);
      const got = walkCopiesInCore(core, Q, q, S, regions);
      if (want === null) {
        expect(got, `case ${t}`).toBeNull();
        none++;
        continue;
      }
      expect(got, `case ${t}`).not.toBeNull();
      expect(
        got!.map(({ shared, ...c }) => c),
        `case ${t}`,
      ).toEqual(want);
      for (const c of got!) {
        const n = c.a1 - c.a0;
        expect(c.shared! / n, `case ${t}`).toBe(runShare(Q, c.a0, c.a1, S, c.b0, c.b1));
      }
      if (want.length > 0) found++;
    }
    // both outcomes are exercised, many times each
    expect(found).toBeGreaterThan(300);
    expect(none).toBeGreaterThan(300);
  });

  it('edge cases: no words, no regions, a copy of the whole document, one word', async () => {
    const core = await coreOf(build);
    const spans = (n: number) => ({
      start: Uint32Array.from({ length: n }, (_, i) => 2 * i),
      end: Uint32Array.from({ length: n }, (_, i) => 2 * i + 1),
    });
    const ids = (...w: number[]) => Int32Array.from(w);
    const cases: Case[] = [
      { Q: ids(), S: ids(), q: spans(0), regions: [] },
      { Q: ids(), S: ids(), q: spans(0), regions: [{ query_start: 0, query_end: 0 }] },
      { Q: ids(0, 1, 2, 3), S: ids(), q: spans(4), regions: [{ query_start: 0, query_end: 7 }] },
      { Q: ids(0), S: ids(0), q: spans(1), regions: [{ query_start: 0, query_end: 1 }] },
      {
        Q: ids(0, 1, 2, 3, 4, 5),
        S: ids(-1, 0, 1, 2, 3, 4, 5, -1),
        q: spans(6),
        regions: [{ query_start: 0, query_end: 11 }],
      },
      {
        Q: ids(0, 1, 2, 3, 4, 5),
        S: ids(0, 1, 2, 3, 4, 5),
        q: spans(6),
        regions: [
          { query_start: 2, query_end: 5 },
          { query_start: 6, query_end: 9 },
        ],
      },
      {
        Q: ids(0, 0, 0, 0, 0, 0, 0),
        S: ids(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        q: spans(7),
        regions: [{ query_start: 0, query_end: 13 }],
      },
    ];
    for (const [k, { Q, S, q, regions }] of cases.entries()) {
      const want = walkCopies(Q, q, S, regions);
      const got = walkCopiesInCore(core, Q, q, S, regions);
      expect(got?.map(({ shared, ...c }) => c) ?? null, `edge case ${k}`).toEqual(want);
    }
  });
});
