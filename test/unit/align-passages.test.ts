/**
 * Passage-level rules of compare's obfuscated mode (src/align/passages.ts): dominated seeds are dropped
 * before clustering, so that a weak topical seed beside a reused sentence does not stretch its passage,
 * passages grow by pairs of altered sentences next to their ends, and summaries align with what they condense.
 */
import { describe, expect, it } from 'vitest';
import { alignSpans, resolveCompareOptions, type AlignedSpan } from '../../src/align/compare.js';
import {
  dominantSeeds,
  growEdges,
  passageSupport,
  passagesOf,
  pruneEdges,
  rangeCosine,
  sentenceCosine,
  sharedEvidence,
  summaryPassages,
} from '../../src/align/passages.js';
import { prepare, TermDict } from '../../src/align/prepare.js';
import { idfWeights, MIN_IDF_SENTENCES, postings, seedsReference, vectors, type Seeds } from '../../src/align/seeds.js';
import { book } from '../fixtures/texts/index.js';
import { createEngine } from '../../src/index.js';

const seedsOf = (rows: [number, number, number][]): Seeds => ({
  a: Uint32Array.from(rows, (r) => r[0]),
  b: Uint32Array.from(rows, (r) => r[1]),
  cos: Float64Array.from(rows, (r) => r[2]),
  count: rows.length,
});

const pairs = (s: Seeds): string[] => Array.from({ length: s.count }, (_, k) => `${s.a[k]}-${s.b[k]}`);

describe('dominantSeeds', () => {
  it('drops a seed far weaker than the best seed of one of its sentences, keeps split sentences', () => {
    // sentence 325 of a reused as 6 and 7 of b (a split: similar cosines), and a topical seed 325-21
    const s = seedsOf([
      [324, 4, 0.6],
      [325, 6, 0.68],
      [325, 7, 0.54],
      [325, 21, 0.39],
      [326, 9, 0.77],
      [329, 18, 0.34],
      [329, 12, 0.62],
    ]);
    expect(pairs(dominantSeeds(s, 0.7))).toEqual(['324-4', '325-6', '325-7', '326-9', '329-12']);
  });

  it('a seed dominated on the other side goes too; ratio 0 keeps everything (same object)', () => {
    const s = seedsOf([
      [1, 5, 0.9],
      [2, 5, 0.4],
      [3, 6, 0.5],
    ]);
    expect(pairs(dominantSeeds(s, 0.7))).toEqual(['1-5', '3-6']);
    expect(dominantSeeds(s, 0)).toBe(s);
  });

  it('no seeds → no seeds', () => {
    expect(dominantSeeds(seedsOf([]), 0.7).count).toBe(0);
  });
});

describe('growEdges: the two sentences just outside one end join together when alike', () => {
  const o = resolveCompareOptions(undefined);
  const setup = (a: string, b: string) => {
    const dict = new TermDict();
    const pa = prepare(a, dict, o.minSentenceWords),
      pb = prepare(b, dict, o.minSentenceWords);
    const idf = idfWeights(pa, pb, dict.size);
    return { pa, pb, idf, va: vectors(pa, idf), vb: vectors(pb, idf) };
  };
  const A = [
    'Bakers in the old quarter rise before dawn to knead sourdough loaves.',
    'The mayor opened a museum of maritime history near the harbour wall.',
    'Fishermen mend their nets on the quay while gulls circle the boats.',
    'Tourists crowd the narrow lanes every summer looking for souvenirs.',
  ].join(' ');
  const B = [
    'Quantum processors need cryogenic cooling to keep qubits coherent.',
    'A harbour wall museum on maritime history was opened by the mayor, with model ships.',
    'Nets are mended on the quay by fishermen as gulls circle over boats.',
    'Rainfall records from the northern valleys show a drier decade.',
  ].join(' ');

  it('a passage seeded on its last sentences grows by the altered sentence pair before it', () => {
    const { pa, pb, idf, va, vb } = setup(A, B);
    const f = { a0: 2, a1: 2, b0: 2, b1: 2, seeds: [0], cos: sentenceCosine(va, 2, vb, 2) };
    expect(sentenceCosine(va, 1, vb, 1)).toBeGreaterThanOrEqual(0.15);
    expect(sentenceCosine(va, 3, vb, 3)).toBe(0);
    // extendShare near 1: only the pair rule can grow it
    const g = growEdges(f, pa, pb, idf, va, vb, 0.99);
    expect([g.a0, g.a1, g.b0, g.b1]).toEqual([1, 2, 1, 2]);
    expect(g.grownPairs).toBe(1);
  });

  it('sentenceCosine is the cosine of the two sentence vectors', () => {
    const { va, vb } = setup(A, A);
    expect(sentenceCosine(va, 1, vb, 1)).toBeCloseTo(1, 12);
    expect(sentenceCosine(va, 0, vb, 1)).toBe(0);
  });
});

describe('summary mode: a few sentences condensing a long passage align with all of it', () => {
  const sentencesOf = (t: string): string[] =>
    (t.replace(/\s+/g, ' ').match(/[^.!?]+[.!?]+/g) ?? []).map((s) => s.trim()).filter((s) => s.split(' ').length >= 8);
  const STOP = new Set(
    (
      'the a an of to and in that was is it he she her his had be as with for on at by not but ' +
      'which have this from all were been so they would could their there or'
    ).split(' '),
  );
  // 40 sentences of Persuasion; the summary keeps every 7th sentence, without its stop words and every
  // third word, so that consecutive summary sentences come from sentences 7 apart in the source
  const source = sentencesOf(book('austen-persuasion').slice(30_000, 39_000)).slice(0, 40).join(' ');
  const summary = sentencesOf(source)
    .filter((_, i) => i % 7 === 0)
    .map(
      (s) =>
        s
          .replace(/[.!?,;:"]/g, '')
          .split(' ')
          .filter((w, i) => !STOP.has(w.toLowerCase()) && i % 3 !== 2)
          .join(' ') + '.',
    )
    .join(' ');
  const filler = sentencesOf(book('chesterton-thursday').slice(20_000, 40_000));
  const suspect = `${filler.slice(0, 15).join(' ')}\n\n${summary}\n\n${filler.slice(15, 30).join(' ')}`;
  const s0 = suspect.indexOf(summary),
    s1 = s0 + summary.length;
  const covered = (spans: AlignedSpan[], lo: number, hi: number, onA: boolean): number => {
    let n = 0;
    for (const s of spans) {
      n += Math.max(0, Math.min(hi, onA ? s.a_end : s.b_end) - Math.max(lo, onA ? s.a_start : s.b_start));
    }
    return n / (hi - lo);
  };

  it('is found as one passage pair with the summary in a (the suspect), and nothing else is', () => {
    expect(summary.length * 10).toBeLessThan(source.length);
    const o = resolveCompareOptions(undefined);
    const ab = alignSpans(null, suspect, source, o, 'js');
    expect(ab).toHaveLength(1);
    expect(covered(ab, s0, s1, true)).toBeGreaterThan(0.9);
    expect(covered(ab, 0, source.length, false)).toBeGreaterThan(0.8);
    // the other way round (the summary in b) it is not looked for: what is found covers little of the source
    const ba = alignSpans(null, source, suspect, o, 'js');
    expect(covered(ba, 0, source.length, true)).toBeLessThan(0.5);
  });

  it("is reported by compare with kind 'summary' (whatever its shared runs), and in analyze as reuse 'summary'", async () => {
    const engine = await createEngine();
    const [span] = engine.compare(suspect, source).spans;
    expect(span).toMatchObject({ kind: 'summary' });
    expect(span.similarity).toBeLessThan(0.5);
    await engine.addDataset({ id: 'book' }, [{ id: 'persuasion', text: source }]);
    const r = await engine.analyze({ content: suspect, content_type: 'text' });
    const found = r.matches.filter((m) => m.kind === 'exact' && m.document_id === 'persuasion');
    expect(found.map((m) => (m.kind === 'exact' ? m.reuse : null))).toEqual(['summary']);
    engine.dispose();
  });

  it('summaryPassages: one long-versus-short passage pair; none between unrelated texts', () => {
    const o = resolveCompareOptions(undefined);
    const run = (a: string, b: string) => {
      const dict = new TermDict();
      const pa = prepare(a, dict, o.minSentenceWords),
        pb = prepare(b, dict, o.minSentenceWords);
      const idf = idfWeights(pa, pb, dict.size);
      const va = vectors(pa, idf),
        vb = vectors(pb, idf);
      const seeds = seedsReference(va, postings(vb, dict.size), vb, o.obfuscatedSeedCosine, o.obfuscatedSeedDice);
      return summaryPassages(seeds, passagesOf(seeds, va, vb, o), pa, pb, va, vb, o);
    };
    const found = run(suspect, source);
    expect(found).toHaveLength(1);
    expect(found[0].b1 - found[0].b0).toBeGreaterThan(4 * (found[0].a1 - found[0].a0));
    expect(run(source, suspect)).toEqual([]);
    expect(run(filler.join(' '), source)).toEqual([]);
  });

  it('a summary grows by next sentences too reworded to seed that still resemble the passage condensed', () => {
    const o = resolveCompareOptions(undefined);
    const dict = new TermDict();
    // a summary sentence before the seeded ones keeps a fifth of the words of source sentence 40: no seed,
    // but alike; the summary passage takes it in, and the source span takes in sentence 40
    const src = sentencesOf(book('austen-persuasion').slice(30_000, 45_000)).slice(0, 48);
    const lead = src[40]
      .replace(/[.!?,;:"]/g, '')
      .split(' ')
      .filter((w, i) => !STOP.has(w.toLowerCase()) && i % 5 === 0);
    const a =
      `${filler.slice(0, 6).join(' ')}\n\n${lead.join(' ')} and more besides. ${summary}\n\n` +
      filler.slice(6, 12).join(' ');
    const b = src.join(' ');
    const pa = prepare(a, dict, o.minSentenceWords),
      pb = prepare(b, dict, o.minSentenceWords);
    const idf = idfWeights(pa, pb, dict.size);
    const va = vectors(pa, idf),
      vb = vectors(pb, idf);
    const seeds = seedsReference(va, postings(vb, dict.size), vb, o.obfuscatedSeedCosine, o.obfuscatedSeedDice);
    const found = summaryPassages(seeds, passagesOf(seeds, va, vb, o), pa, pb, va, vb, o);
    expect(found).toHaveLength(1);
    const leadSentence = found[0].a0;
    expect(a.slice(pa.tokStart[pa.sentTok[leadSentence]]).startsWith(lead[0])).toBe(true);
    expect(pb.tokEnd[pb.sentTok[found[0].b1 + 1] - 1]).toBeGreaterThan(b.indexOf(src[40]));
  });

  it('two ordinary reused passages near each other are not a summary, however far apart in b', () => {
    const o = resolveCompareOptions(undefined);
    const dict = new TermDict();
    // a: sentences 0-4 and 20-24 of the source, lightly edited, back to back; b: all 25 (ratio > 2)
    const src = sentencesOf(source).slice(0, 25);
    const edit = (t: string) =>
      t
        .split(' ')
        .filter((_, i) => i % 5 !== 4)
        .join(' ');
    const a = `${filler.slice(0, 6).join(' ')}\n\n${[...src.slice(0, 5), ...src.slice(20, 25)].map(edit).join(' ')}`;
    const b = src.join(' ');
    const pa = prepare(a, dict, o.minSentenceWords),
      pb = prepare(b, dict, o.minSentenceWords);
    const idf = idfWeights(pa, pb, dict.size);
    const va = vectors(pa, idf),
      vb = vectors(pb, idf);
    const seeds = seedsReference(va, postings(vb, dict.size), vb, o.obfuscatedSeedCosine, o.obfuscatedSeedDice);
    expect(seeds.count).toBeGreaterThanOrEqual(8);
    expect(summaryPassages(seeds, [], pa, pb, va, vb, o)).toEqual([]);
  });
});

describe('pruneEdges: an outlying edge seed goes when the passage is more alike without it', () => {
  // a: four reused sentences, then three unrelated ones, then a sentence sharing a few topic words
  const reused = [
    'The harbour master logged every trawler that entered the bay before the winter storms arrived.',
    'Nets were dried on wooden racks along the quay while the gulls watched the boats come in.',
    'Salted herring was packed in barrels and shipped inland on the narrow railway each Tuesday.',
    'Children of the fishing families learned to mend rope before they could read or write.',
  ];
  const other = [
    'Quantum processors need cryogenic cooling to keep their qubits coherent for long.',
    'Rainfall records from the northern valleys show a markedly drier decade than before.',
    'Violin makers still argue about the varnish recipes of the old Cremona workshops.',
  ];
  const stray = 'Winter storms closed the railway to the bay, and the herring barrels waited.';
  const stray2 = 'Every Tuesday the railway carried barrels of salted fish from the quay.';
  const o = resolveCompareOptions(undefined);
  const A = [...reused, ...other, stray].join(' ');
  const B = [...reused, other[0], other[1], other[2], stray2].join(' ');
  const dict = new TermDict();
  const pa = prepare(A, dict, o.minSentenceWords),
    pb = prepare(B, dict, o.minSentenceWords);
  const idf = idfWeights(pa, pb, dict.size);
  const va = vectors(pa, idf),
    vb = vectors(pb, idf);
  // seeds 0-0 … 3-3 (the reused sentences) and 7-7 (the stray pair), as one cluster
  const seeds = seedsOf([
    [0, 0, 0.9],
    [1, 1, 0.9],
    [2, 2, 0.9],
    [3, 3, 0.9],
    [7, 7, 0.35],
  ]);
  const whole = { a0: 0, a1: 7, b0: 0, b1: 7, seeds: [0, 1, 2, 3, 4], cos: 0 };

  it('cuts the stray seed four sentences off the reused ones', () => {
    const f = pruneEdges({ ...whole, cos: rangeCosine(va, 0, 7, vb, 0, 7) }, seeds, va, vb);
    expect([f.a0, f.a1, f.b0, f.b1]).toEqual([0, 3, 0, 3]);
    expect(f.seeds).toEqual([0, 1, 2, 3]);
  });

  it('keeps a passage whose edge seed is near the others, or that has too few seeded sentences', () => {
    const near = seedsOf([
      [0, 0, 0.9],
      [1, 1, 0.9],
      [2, 2, 0.9],
      [3, 3, 0.9],
      [5, 5, 0.35],
    ]);
    const f = { a0: 0, a1: 5, b0: 0, b1: 5, seeds: [0, 1, 2, 3, 4], cos: rangeCosine(va, 0, 5, vb, 0, 5) };
    expect(pruneEdges(f, near, va, vb)).toBe(f);
    const few = seedsOf([
      [0, 0, 0.9],
      [1, 1, 0.9],
      [7, 7, 0.35],
    ]);
    const g = { a0: 0, a1: 7, b0: 0, b1: 7, seeds: [0, 1, 2], cos: rangeCosine(va, 0, 7, vb, 0, 7) };
    expect(pruneEdges(g, few, va, vb)).toBe(g);
  });
});

describe('sharedEvidence: shared words weighed by how rare they are in the pair', () => {
  const o = resolveCompareOptions(undefined);
  const run = (a: string, b: string, f: { a0: number; a1: number; b0: number; b1: number }) => {
    const dict = new TermDict();
    const pa = prepare(a, dict, o.minSentenceWords),
      pb = prepare(b, dict, o.minSentenceWords);
    return sharedEvidence({ ...f, seeds: [], cos: 0 }, pa, pb, idfWeights(pa, pb, dict.size));
  };
  // two texts on one subject: every sentence names the hospital network
  const A = [
    'Alexian Brothers Hospital Network offers continuing medical education courses.',
    'Alexian Brothers Hospital Network runs a behavioral health hospital.',
    'Alexian Brothers Hospital Network opened a rehabilitation hospital.',
    'Alexian Brothers Hospital Network employs nurses and physicians.',
  ].join(' ');
  const B = [
    'Physicians of Alexian Brothers Hospital Network rank among the best nearby.',
    'Alexian Brothers Hospital Network includes a medical center in Elk Grove.',
    'Alexian Brothers Hospital Network serves Hoffman Estates as well.',
    'Parking at Alexian Brothers Hospital Network is free for visitors.',
  ].join(' ');

  it('names running through both texts weigh almost nothing; words of one sentence each weigh 1', () => {
    expect(run(A, B, { a0: 0, a1: 3, b0: 0, b1: 3 })).toBeLessThan(6);
    const reused = 'Lighthouse keepers logged storms, shipwrecks, fog signals and lamp oil deliveries daily.';
    const A2 = A.replace('Alexian Brothers Hospital Network employs nurses and physicians.', reused);
    const B2 = B.replace('Parking at Alexian Brothers Hospital Network is free for visitors.', reused);
    // 11 content words found in just one sentence of each text: log(N / 2) / log N each, N = 8 sentences
    // floored at MIN_IDF_SENTENCES (16)
    const N = Math.max(8, MIN_IDF_SENTENCES);
    expect(run(A2, B2, { a0: 3, a1: 3, b0: 3, b1: 3 })).toBeCloseTo((11 * Math.log(N / 2)) / Math.log(N), 9);
  });
});

describe('passageSupport: seeded sentences plus the alike sentence pairs a passage grew by', () => {
  it('a lone seed grown by one alike pair has the support of two seeds; merging adds them up', () => {
    const seeds = seedsOf([
      [5, 9, 0.45],
      [8, 12, 0.6],
    ]);
    const lone = { a0: 5, a1: 5, b0: 9, b1: 9, seeds: [0], cos: 0.45 };
    expect(passageSupport(seeds, lone)).toBe(1);
    expect(passageSupport(seeds, { ...lone, a0: 4, b0: 8, grownPairs: 1 })).toBe(2);
    expect(passageSupport(seeds, { a0: 4, a1: 8, b0: 8, b1: 12, seeds: [0, 1], cos: 0.5, grownPairs: 1 })).toBe(3);
  });
});
