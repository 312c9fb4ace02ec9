/**
 * Copies settled before the aligner (src/align/copies.ts, `SearchOptions.copiesFirst`, what a scan for copies asks
 * for): the walk's spans for copies with words replaced, inserted or dropped; null for what the aligner must
 * decide; and a scan gives the hits, spans and kinds that a scan aligning every candidate gives.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { copyRuns, copySpans } from '../../src/align/copies.js';
import { runsOf, wordsOf } from '../../src/align/reuse.js';
import type { AlignedSpan } from '../../src/align/types.js';
import { isAsciiOnly, normalize } from '../../src/text/normalize.js';
import { mulberry32 } from '../../src/util/random.js';
import { createEngine, type Engine, type ScanHit } from '../../src/index.js';
import { createScanService } from '../../src/services/scan/index.js';
import { archive, cleanOutputs, plantedOutputs } from '../fixtures/scan-plant.js';
import { copySpansReference } from '../reference/copy-spans.js';

const docs = archive();
const source = docs[3].text;
const words = source.split(/\s+/).filter(Boolean);
const host = cleanOutputs(1, 91)[0];

/** `host` with words [from, to) of the source planted after its first 300 characters, and the passage's span. */
function plant(passage: string[]): { query: string; start: number; end: number } {
  const at = host.indexOf(' ', 300);
  const text = passage.join(' ');
  return { query: `${host.slice(0, at)} ${text} ${host.slice(at + 1)}`, start: at + 1, end: at + 1 + text.length };
}

/** The whole of both texts as one window, and one region: the passage in the query, `s` in the source. */
const whole = (query: string) => [{ q0: 0, q1: query.length, s0: 0, s1: source.length }];
const spans = [...source.matchAll(/\S+/g)].map((m) => [m.index!, m.index! + m[0].length]);
const region = (start: number, end: number, from: number, to: number) => [
  { query_start: start, query_end: end, source_start: spans[from][0], source_end: spans[to - 1][1] },
];

/**
 * Words [from, to) of the source, `length[0]` to `length[0] + length[1]` of them, with fewer than `edits` edits: a
 * word replaced by one of `vocabulary`, one of it inserted, or (with `kinds` 3) a word dropped.
 */
function edited(
  pick: (n: number) => number,
  length: readonly [number, number],
  edits: number,
  vocabulary: readonly string[],
  kinds: 2 | 3,
): { passage: string[]; from: number; to: number } {
  const from = pick(words.length - 200),
    to = from + length[0] + pick(length[1]);
  const passage = words.slice(from, to);
  for (let e = pick(edits); e > 0; e--) {
    const at = pick(passage.length);
    const what = pick(kinds);
    if (what === 0) passage[at] = vocabulary[pick(vocabulary.length)];
    else if (what === 1) passage.splice(at, 0, vocabulary[pick(vocabulary.length)]);
    else passage.splice(at, 1);
  }
  return { passage, from, to };
}

/**
 * Checks the shared runs `copyRuns` holds for each of `found`: those of `runsOf` over the passages normalised again,
 * and held for every span whose passages are ASCII. Returns how many were held.
 */
function sameRuns(query: string, text: string, found: readonly AlignedSpan[] | null): number {
  let held = 0;
  for (const s of found ?? []) {
    const q = query.slice(s.a_start, s.a_end),
      t = text.slice(s.b_start, s.b_end);
    const runs = copyRuns.get(s);
    expect(runs !== undefined).toBe(isAsciiOnly(q) && isAsciiOnly(t));
    if (runs === undefined) continue;
    expect(runs).toEqual(runsOf(wordsOf(normalize(q)), wordsOf(normalize(t))));
    held++;
  }
  return held;
}

describe('copySpans', () => {
  it('gives a verbatim copy its span, first word to last, in both texts', () => {
    const passage = words.slice(40, 110);
    const { query, start, end } = plant(passage);
    const found = copySpans(query, source, whole(query), region(start, end, 40, 110));
    expect(found).toHaveLength(1);
    const [s] = found!;
    expect(query.slice(s.a_start, s.a_end).replace(/[^\p{L}\p{N}]+$/u, '')).toBe(
      passage.join(' ').replace(/[^\p{L}\p{N}]+$/u, ''),
    );
    expect(source.slice(s.b_start, s.b_end).split(/\s+/).join(' ')).toBe(query.slice(s.a_start, s.a_end));
    expect(s.score).toBe(1);
  });

  it('walks over a word replaced, one inserted and one dropped', () => {
    const passage = words.slice(40, 110);
    const edited = [...passage.slice(0, 15), 'really', ...passage.slice(16, 30), 'quite', ...passage.slice(30, 50)];
    edited.push(...passage.slice(51));
    const { query, start, end } = plant(edited);
    const found = copySpans(query, source, whole(query), region(start, end, 40, 110));
    expect(found).toHaveLength(1);
    const [s] = found!;
    expect(s.a_start).toBe(start);
    expect(s.a_end).toBeGreaterThanOrEqual(end - 1);
    expect(s.score).toBeLessThan(1);
    expect(s.score).toBeGreaterThan(0.9);
  });

  it('leaves to the aligner a short copy, a reworded one, and one that reaches its window short of the text', () => {
    const short = words.slice(40, 70);
    const a = plant(short);
    expect(copySpans(a.query, source, whole(a.query), region(a.start, a.end, 40, 70))).toBeNull();
    // every fourth word changed: more than a tenth replaced
    const passage = words.slice(40, 120);
    const reworded = passage.map((w, i) => (i % 4 === 3 ? 'changed' : w));
    const b = plant(reworded);
    expect(copySpans(b.query, source, whole(b.query), region(b.start, b.end, 40, 120))).toBeNull();
    const c = plant(passage);
    const cut = [{ q0: c.start + 100, q1: c.query.length, s0: 0, s1: source.length }];
    const r = region(c.start + 100, c.end, 60, 120);
    expect(copySpans(c.query, source, cut, r)).toBeNull();
  });

  it('finds the same copy in windows of 12,000 distinct words (a table of ids far past its first size)', () => {
    // 12,000 distinct made-up words around a copy of 70 words, on both sides
    const made = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i.toString(36)}`);
    const passage = words.slice(40, 110);
    const before = made('qa', 6000).join(' '),
      after = made('qb', 6000).join(' ');
    const query = `${before} ${passage.join(' ')} ${after}`;
    const text = `${made('sa', 6000).join(' ')} ${passage.join(' ')} ${made('sb', 6000).join(' ')}`;
    const qs = before.length + 1,
      qe = qs + passage.join(' ').length;
    const ss = text.indexOf(passage.join(' '));
    const window = [{ q0: 0, q1: query.length, s0: 0, s1: text.length }];
    const found = copySpans(query, text, window, [
      { query_start: qs, query_end: qe, source_start: ss, source_end: ss + qe - qs },
    ]);
    expect(found).toHaveLength(1);
    expect(found![0].a_start).toBe(qs);
    expect(found![0].b_start).toBe(ss);
    expect(found![0].score).toBe(1);
  });
  it('tells apart words whose hashes collide (FNV-1a: declinate and macallums, liquid and costarring)', () => {
    const passage = words.slice(40, 110);
    const inQuery = passage.slice(),
      inSource = passage.slice();
    inQuery[30] = 'declinate';
    inSource[30] = 'macallums';
    inQuery[50] = 'liquid';
    inSource[50] = 'costarring';
    const { query, start, end } = plant(inQuery);
    const text = `${words.slice(0, 40).join(' ')} ${inSource.join(' ')} ${words.slice(110, 200).join(' ')}`;
    const ss = words.slice(0, 40).join(' ').length + 1;
    const windows = [{ q0: 0, q1: query.length, s0: 0, s1: text.length }];
    const regions = [
      { query_start: start, query_end: end, source_start: ss, source_end: ss + inSource.join(' ').length },
    ];
    const found = copySpans(query, text, windows, regions);
    expect(found).toEqual(copySpansReference(query, text, windows, regions));
    expect(found).toHaveLength(1);
    expect(found![0].score).toBeCloseTo(1 - 2 / 70, 12);
  });
  it('gives what the walk over words as strings gives (the oracle), on 300 random edits and windows', () => {
    const random = mulberry32(58);
    const pick = (n: number) => Math.floor(random() * n);
    // words the source lacks too, some not ASCII (folded by the normaliser; one outside the BMP, two UTF-16 units)
    const vocabulary = ['really', 'quite', 'the', 'of', 'and', 'then', 'said', 'Straße', 'NAÏVE', '東京', '𝒜lice'];
    vocabulary.push(words[pick(words.length)]);
    let settled = 0,
      read = 0;
    for (let round = 0; round < 300; round++) {
      // a few words replaced, inserted or dropped, some close together (the walk's gaps), some not
      const { passage, from, to } = edited(pick, [30, 120], 8, vocabulary, 3);
      const { query, start, end } = plant(passage);
      // a window of the whole, or one cut inside the passage or the source
      const cut = pick(3);
      const windows =
        cut === 0
          ? whole(query)
          : [{ q0: cut === 1 ? start + pick(80) : 0, q1: query.length, s0: 0, s1: spans[to - 1][1] - pick(60) }];
      // the seed region from the passage's start, or from a later word (the walk then goes back over edits too)
      const skip = pick(2) * pick(passage.length >> 1);
      const qs = skip === 0 ? start : start + passage.slice(0, skip).join(' ').length + 1;
      const regions = region(qs, end, from, to);
      const found = copySpans(query, source, windows, regions);
      expect(found).toEqual(copySpansReference(query, source, windows, regions));
      if (found !== null) settled++;
      read += sameRuns(query, source, found);
    }
    // both kinds of answer were compared
    expect(settled).toBeGreaterThan(30);
    expect(settled).toBeLessThan(290);
    expect(read).toBeGreaterThan(10);
  });
  it('gives a copy the shared runs its passages give normalised again (punctuation, marks and digits about them)', () => {
    const random = mulberry32(83);
    const pick = (n: number) => Math.floor(random() * n);
    // words that end in closing punctuation and quotes, open with brackets, join letters and digits, and neighbours
    // outside ASCII: a combining mark after a word or after its full stop, a ligature, a fullwidth digit
    const odd = [
      'end.',
      'said,"',
      '(aside)',
      "it's",
      'x-ray',
      '3.14',
      'A1b2',
      'e\u0301',
      '."\u0301',
      'ﬁne',
      '１２',
      '—',
    ];
    let read = 0;
    for (let round = 0; round < 300; round++) {
      const { passage, from, to } = edited(pick, [40, 100], 6, odd, 2);
      const { query, start, end } = plant(passage);
      const found = copySpans(query, source, whole(query), region(start, end, from, to));
      read += sameRuns(query, source, found);
    }
    expect(read).toBeGreaterThan(10);
  });
});

describe('a scan with copies settled first', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset({ id: 'arch' }, docs);
  });

  it('gives the hits, spans and kinds of a scan that aligns every candidate', async () => {
    const seen: Array<boolean | undefined> = [];
    /** The corpus, its searches aligning every candidate (copiesFirst off). */
    const alignEvery = {
      datasets: (o?: { readonly account?: string }) => engine.corpus.datasets(o),
      searchDetailedAsync: (
        q: string,
        o: Parameters<Engine['corpus']['searchDetailedAsync']>[1],
        run?: { sliceMs?: number },
      ) => {
        seen.push(o?.copiesFirst);
        return engine.corpus.searchDetailedAsync(q, { ...o, copiesFirst: false }, run);
      },
      datasetDigest: (id: string) => engine.corpus.datasetDigest(id),
    };
    const planted = plantedOutputs(docs, 60, 77);
    const items = planted.map((p, i) => ({ id: `out-${i}`, text: p.text }));
    const fast: ScanHit[] = [],
      full: ScanHit[] = [];
    for await (const h of engine.scan(items)) fast.push(h);
    for await (const h of createScanService({ corpus: alignEvery }).scan(items)) full.push(h);
    expect(fast).toEqual(full);
    expect(fast.length).toBeGreaterThanOrEqual(60);
    expect(fast.some((h) => h.kind === 'edited')).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s === true)).toBe(true);
  }, 120_000);
});
