/**
 * The two-stage search (src/corpus/alignment.ts, src/corpus/content-words.ts): candidate documents
 * from exact hits and content-word pairs, aligned with the query; reuse kinds; datasets that keep no
 * text; snapshots that carry the texts.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { PARAPHRASE_ALPHA, reuseKind, sharedRuns } from '../../src/corpus/alignment.js';
import { contentPairs, PAIR_SAMPLE } from '../../src/corpus/content-pairs.js';
import { ContentWordIndex } from '../../src/corpus/content-words.js';
import type { ExactMatch } from '../../src/datasets/types.js';
import {
  NO_CONTROL_BACKGROUND,
  fieldBackground,
  neighbourBackground,
  PAIR_BACKGROUND_FLOOR,
  pairSet,
  SETTLED_ROOM,
  settles,
} from '../../src/corpus/alignment.js';
import { normalize } from '../../src/text/normalize.js';
import { binomialUpperTail, poissonUpperTail } from '../../src/stats/binomial.js';
import { book } from '../fixtures/texts/index.js';
import { obfuscate } from '../fixtures/obfuscate.js';
import { PARAGRAPH_START, REWORDED, SAME_SUBJECT } from '../fixtures/reworded.js';

const persuasion = book('austen-persuasion');
const thursday = book('chesterton-thursday');
const caesar = book('shakespeare-caesar');

/** A passage of ~`chars` characters of `text` from `at`, cut at white space. */
function passage(text: string, at: number, chars: number): { text: string; start: number; end: number } {
  const start = text.indexOf(' ', at) + 1;
  const end = text.indexOf(' ', start + chars);
  return { text: text.slice(start, end), start, end };
}

const filler = (n: number): string => caesar.slice(20_000, 20_000 + n);

/** A document's sampled pairs as fieldBackground reads them. */
const pairsOf = (text: string) => ({ pairs: contentPairs(text), length: text.length });

/** Each sentence of `text` with its words in reverse order: the same content-word pairs, none of its word order. */
const reversedSentences = (text: string): string =>
  text
    .split(/(?<=[.!?;:])\s+/)
    .map(
      (x) =>
        `${x
          .replace(/[.!?;:]$/, '')
          .split(/\s+/)
          .reverse()
          .join(' ')}.`,
    )
    .join(' ');

describe('two-stage search', () => {
  it('aligns a heavily edited passage: right document, query and source spans, kind edited or paraphrase', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [
      { id: 'persuasion', text: persuasion },
      { id: 'thursday', text: thursday },
    ]);
    const src = passage(persuasion, 150_000, 2500);
    const copy = obfuscate(src.text, 7);
    const before = filler(1500);
    const query = `${before}\n\n${copy}\n\n${filler(800)}`;
    const seedsOnly = engine.search(query, { candidates: 0 });
    const r = engine.search(query);
    expect(r.alignment.aligned).toBeGreaterThanOrEqual(1);
    const hits = r.matches.filter(
      (m): m is ExactMatch => m.kind === 'exact' && m.document_id === 'persuasion' && m.aligned,
    );
    expect(hits.length).toBeGreaterThanOrEqual(1);
    const qs = before.length + 2,
      qe = qs + copy.length;
    let covered = 0;
    for (const m of hits) covered += Math.max(0, Math.min(qe, m.query_end) - Math.max(qs, m.query_start));
    expect(covered / copy.length).toBeGreaterThan(0.8);
    // the source spans lie in the copied passage (with a sentence of slack)
    for (const m of hits) {
      expect(m.source_start).toBeGreaterThanOrEqual(src.start - 300);
      expect(m.source_end).toBeLessThanOrEqual(src.end + 300);
      expect(['edited', 'paraphrase']).toContain(m.reuse);
      expect(m.similarity).toBeLessThan(0.95);
    }
    // seeds alone cover much less of the copy
    const seedCover = seedsOnly.matches
      .filter((m) => m.kind === 'exact' && m.document_id === 'persuasion')
      .reduce((a, m) => a + Math.max(0, Math.min(qe, m.query_end) - Math.max(qs, m.query_start)), 0);
    expect(seedCover).toBeLessThan(covered);
    engine.dispose();
  });

  it('a verbatim quote is one aligned verbatim passage with exact edges', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [{ id: 'thursday', text: thursday }]);
    const src = passage(thursday, 60_000, 1200);
    const before = filler(600);
    const r = engine.search(`${before} ${src.text} ${filler(400)}`);
    const m = r.matches.find((x): x is ExactMatch => x.kind === 'exact' && x.aligned)!;
    expect(m).toBeDefined();
    expect(m.reuse).toBe('verbatim');
    expect(m.similarity).toBe(1);
    expect(thursday.slice(m.source_start, m.source_end)).toContain(src.text.slice(50, 1000));
    engine.dispose();
  });

  it('a probe settles only verbatim passages that end well inside its window, in both texts', () => {
    const w = { q0: 1000, q1: 3000, s0: 5000, s1: 7000 };
    const inside = { a_start: 1000 + SETTLED_ROOM, a_end: 3000 - SETTLED_ROOM, b_start: 5400, b_end: 6600, score: 1 };
    expect(settles([inside], w, 10_000, 10_000)).toBe(true);
    expect(settles([{ ...inside, score: 0.97 }], w, 10_000, 10_000)).toBe(false); // edited: may run on
    expect(settles([{ ...inside, a_start: 1000 + SETTLED_ROOM - 1 }], w, 10_000, 10_000)).toBe(false);
    expect(settles([{ ...inside, a_end: 3000 - SETTLED_ROOM + 1 }], w, 10_000, 10_000)).toBe(false);
    expect(settles([{ ...inside, b_start: 5000 }], w, 10_000, 10_000)).toBe(false);
    expect(settles([{ ...inside, b_end: 6900 }], w, 10_000, 10_000)).toBe(false);
    expect(settles([inside, { ...inside, score: 0.5 }], w, 10_000, 10_000)).toBe(false); // every passage
    // the start or end of a text leaves room enough: nothing lies beyond it
    expect(settles([{ ...inside, b_start: 5000, b_end: 7000 }], w, 10_000, 7000)).toBe(false);
    expect(settles([{ ...inside, b_start: 0, b_end: 7000 }], { ...w, s0: 0 }, 10_000, 7000)).toBe(true);
  });

  it('a copy running on edited past its probe window is widened; a settled copy beside an edited one comes once', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [{ id: 'persuasion', text: persuasion }]);
    // verbatim, then the text that follows it in the book edited: one passage of both
    const copied = passage(persuasion, 40_000, 700),
      edited = passage(persuasion, copied.end, 2400);
    const before = filler(1500);
    const query = `${before} ${copied.text} ${obfuscate(edited.text, 3)} ${filler(900)}`;
    const m = engine.search(query).matches.filter((x): x is ExactMatch => x.kind === 'exact' && x.aligned);
    const overlap = (x: ExactMatch) =>
      Math.max(0, Math.min(x.source_end, edited.end) - Math.max(x.source_start, edited.start));
    const covered = m.reduce((a, x) => a + overlap(x), 0);
    expect(covered / (edited.end - edited.start)).toBeGreaterThan(0.7);
    // a copy (settled by its probe) and an edited passage 2,500 characters on, in both texts: the edited
    // passage's widened window takes in the copy's probe, which is aligned again with it, not reported twice
    const far = passage(persuasion, copied.end + 2500, 2400);
    const two = `${before} ${copied.text} ${filler(1300)} ${obfuscate(far.text, 5)} ${filler(900)}`;
    const spans = engine
      .search(two)
      .matches.filter((x): x is ExactMatch => x.kind === 'exact' && x.aligned)
      .sort((x, y) => x.query_start - y.query_start);
    expect(spans.length).toBeGreaterThanOrEqual(2);
    for (let k = 1; k < spans.length; k++) expect(spans[k].query_start).toBeGreaterThanOrEqual(spans[k - 1].query_end);
    engine.dispose();
  });

  it('keep_text: false keeps fingerprints only: seed matches, and the search says which dataset could not align', async () => {
    const engine = await createEngine();
    const stats = await engine.addDataset({ id: 'lean', keep_text: false }, [{ id: 'persuasion', text: persuasion }]);
    expect(stats.text_bytes).toBeUndefined();
    const query = `${filler(500)} ${passage(persuasion, 80_000, 1500).text}`;
    const r = engine.search(query);
    expect(r.alignment.without_text).toEqual(['lean']);
    expect(r.matches.filter((m) => m.kind === 'exact').every((m) => (m as ExactMatch).aligned === false)).toBe(true);
    const a = await engine.analyze({ content: query, content_type: 'text' });
    expect(a.limitations).toContain('alignment_unavailable');
    // datasets that is not an array: the typed refusal, never a TypeError
    for (const datasets of ['lean', {}] as never[]) {
      expect(() => engine.search(query, { datasets })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
      await expect(engine.searchAsync(query, { datasets })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    }
    // a mistyped option (minToken, dataset) is refused by name, never searched with the defaults
    for (const typo of [{ minToken: 1000 }, { dataset: ['nope'] }] as never[]) {
      const named = {
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining(`unknown option "${Object.keys(typo)[0]}"`),
      };
      expect(() => engine.search(query, typo)).toThrow(expect.objectContaining(named));
      await expect(engine.searchAsync(query, typo)).rejects.toMatchObject(named);
    }
    await expect(engine.addDataset({ id: 'lean', keep_text: true }, [])).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    // a descriptor field of the other kind is refused by the descriptor's contract, naming it
    await expect(engine.addDataset({ id: 'x', kind: 'portrait', keep_text: true }, [])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      cause: { field: 'keep_text' },
    });
    engine.dispose();
  });

  it("documentText: the text a match's source span points into; null without kept text; NOT_FOUND", async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [{ id: 'persuasion', text: persuasion }]);
    await engine.addDataset({ id: 'lean', keep_text: false }, [{ id: 'persuasion', text: persuasion }]);
    await engine.addDataset({ id: 'portrait', kind: 'portrait' }, [{ id: 'persuasion', text: persuasion }]);
    const { text } = passage(persuasion, 80_000, 300);
    const m = engine.search(`${filler(200)} ${text}`, { datasets: ['books'] }).matches[0] as ExactMatch;
    const source = engine.documentText('books', 'persuasion')!;
    expect(source.slice(m.source_start, m.source_end).split(/\s+/).slice(0, 20)).toEqual(
      text.split(/\s+/).slice(0, 20),
    );
    expect(engine.documentText('lean', 'persuasion')).toBeNull();
    expect(engine.documentText('portrait', 'persuasion')).toBeNull();
    expect(() => engine.documentText('books', 'emma')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => engine.documentText('nope', 'persuasion')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    engine.dispose();
  });

  it('snapshots carry the texts: an imported dataset aligns as the original does', async () => {
    const engine = await createEngine();
    const stats = await engine.addDataset({ id: 'books' }, [{ id: 'persuasion', text: persuasion }]);
    expect(stats.text_bytes).toBe(stats.bytes);
    const query = `${filler(700)}\n\n${obfuscate(passage(persuasion, 200_000, 2000).text, 3)}`;
    const original = engine.search(query);
    const other = await createEngine();
    await other.importDataset(engine.exportDataset('books'));
    expect(other.search(query).matches).toEqual(original.matches);
    engine.dispose();
    other.dispose();
  });

  it('the candidate limit and the time budget bound the work, and say so', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [
      { id: 'persuasion', text: persuasion },
      { id: 'thursday', text: thursday },
    ]);
    const query = `${passage(persuasion, 10_000, 1500).text}\n\n${passage(thursday, 10_000, 1500).text}`;
    const one = engine.search(query, { candidates: 1 });
    expect(one.alignment).toMatchObject({ candidates: 2, aligned: 1, limit: 1, budget_exhausted: false });
    const none = engine.search(query, { alignBudgetMs: 0 });
    expect(none.alignment.budget_exhausted).toBe(true);
    expect(none.matches.some((m) => m.kind === 'exact' && (m as ExactMatch).aligned)).toBe(false);
    for (const bad of [-1, 1.5, 10_000]) expect(() => engine.search(query, { candidates: bad })).toThrow(/candidates/);
    for (const bad of [-1, Number.NaN, 1e9])
      expect(() => engine.search(query, { alignBudgetMs: bad })).toThrow(/alignBudgetMs/);
    engine.dispose();
  });

  it('analyze takes the same bounds: candidates and alignBudgetMs', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [
      { id: 'persuasion', text: persuasion },
      { id: 'thursday', text: thursday },
    ]);
    const content = `${passage(persuasion, 10_000, 1500).text}\n\n${passage(thursday, 10_000, 1500).text}`;
    const request = { content, content_type: 'text' as const };
    const aligned = (r: { evidence: { datasets: ReadonlyArray<{ aligned?: { documents: number } }> } }) =>
      r.evidence.datasets[0]?.aligned?.documents ?? 0;
    expect(aligned(await engine.analyze(request))).toBe(2);
    expect(aligned(await engine.analyze(request, { candidates: 1 }))).toBe(1);
    expect(aligned(await engine.analyze(request, { candidates: 0 }))).toBe(0);
    const cut = await engine.analyze(request, { alignBudgetMs: 0 });
    expect(cut.limitations).toContain('alignment_budget_exhausted');
    await expect(engine.analyze(request, { candidates: -1 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(engine.analyze(request, { alignBudgetMs: Number.NaN })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    engine.dispose();
  });
});

describe('evidence from aligned passages', () => {
  it('an edited copy with few exact 5-grams left gets its strength from the aligned passages, recomputable from the counts', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [
      { id: 'persuasion', text: persuasion },
      { id: 'thursday', text: thursday },
    ]);
    const content = `${filler(900)}\n\n${obfuscate(passage(persuasion, 120_000, 3000).text, 5)}\n\n${filler(600)}`;
    const withAlignment = await engine.analyze({ content, content_type: 'text' });
    const e = withAlignment.evidence.datasets[0];
    expect(e.aligned).toBeDefined();
    const a = e.aligned!;
    expect(a.passages.length).toBeGreaterThanOrEqual(1);
    expect(a.passages.every((p) => p.shared <= p.pairs)).toBe(true);
    expect(a.passages.every((p) => p.background_rate >= PAIR_BACKGROUND_FLOOR && p.background_rate < 0.2)).toBe(true);
    // the dataset chance is the Bonferroni of the two statistics, so never above twice the aligned one
    expect(e.chance).toBeLessThanOrEqual(Math.min(1, 2 * a.chance) * 1.000001);
    expect(e.strength).toBeGreaterThan(6);
    // recomputed from the counts in the result
    const M = a.query_pairs;
    const pis = a.passages.map((p) => binomialUpperTail(p.shared, p.pairs, p.background_rate)).sort((x, y) => x - y);
    let best = 1;
    pis.forEach((pi, j) => {
      best = Math.min(best, poissonUpperTail(j + 1, M * pi));
    });
    expect(a.chance).toBeCloseTo(Math.min(1, a.documents * pis.length * best), 12);
    engine.dispose();
  });
});

describe('background rate of aligned documents', () => {
  it("is the share of the query's distinct pairs outside the document's passages that the document holds", async () => {
    const engine = await createEngine();
    const docs = [
      { id: 'persuasion', text: persuasion },
      { id: 'thursday', text: thursday },
    ];
    await engine.addDataset({ id: 'books' }, docs);
    // two documents aligned in one query, each with its own passages; filler repeated so pairs recur, and a few
    // words of a passage again after it (their pairs count where they recur outside the passage)
    const rest = filler(1500),
      quoted = passage(thursday, 50_000, 2000).text;
    const content =
      `${rest}\n\n${obfuscate(passage(persuasion, 120_000, 3000).text, 5)}\n\n${rest}\n\n` +
      `${quoted}\n\n${filler(700)} ${quoted.slice(0, quoted.indexOf(' ', 90))} ${caesar.slice(40_000, 40_500)}`;
    const r = await engine.analyze({ content, content_type: 'text' });
    const q = contentPairs(content);
    const byDoc = new Map<string, ExactMatch[]>();
    for (const m of r.matches) {
      if (m.kind === 'exact' && m.aligned) byDoc.set(m.document_id!, [...(byDoc.get(m.document_id!) ?? []), m]);
    }
    expect(byDoc.size).toBe(2);
    const rates = r.evidence.datasets[0].aligned!.passages.map((p) => p.background_rate);
    for (const [docId, spans] of byDoc) {
      const holds = new Set(contentPairs(docs.find((d) => d.id === docId)!.text).hashes);
      const outside = new Set<number>();
      q.hashes.forEach((h, i) => {
        if (!spans.some((m) => m.query_start < q.ends[i] && q.starts[i] < m.query_end)) outside.add(h);
      });
      const held = [...outside].filter((h) => holds.has(h)).length;
      expect(outside.size).toBeGreaterThan(100);
      expect(rates).toContainEqual(expect.closeTo(Math.max(PAIR_BACKGROUND_FLOOR, held / outside.size), 4));
    }
    engine.dispose();
  });
});

describe('background of a query that is one passage', () => {
  it("is measured on the source passage's neighbours: a reworded paragraph is found, a paragraph on the subject is not", async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [
      { id: 'persuasion', text: persuasion },
      { id: 'thursday', text: thursday },
    ]);
    const r = await engine.analyze({ content: REWORDED, content_type: 'text' });
    const found = r.matches.filter((m): m is ExactMatch => m.kind === 'exact' && m.document_id === 'persuasion');
    expect(found).toHaveLength(1);
    const [m] = found;
    expect(m.reuse).toBe('paraphrase');
    // the source span is the paragraph the query rewords
    expect(m.source_start).toBeLessThan(PARAGRAPH_START + 300);
    expect(m.source_end).toBeGreaterThan(PARAGRAPH_START + 300);
    // the whole query is the passage: its background is that of the passage's neighbours, recomputed here
    const [p] = r.evidence.datasets[0].aligned!.passages;
    const q = normalize(REWORDED.slice(m.query_start, m.query_end));
    const rate = neighbourBackground(pairSet(q), persuasion, { b_start: m.source_start, b_end: m.source_end });
    // ... or the other document's, where its stretch on the subject shares more (fieldBackground)
    const field = fieldBackground(pairSet(q), m.source_end - m.source_start, [pairsOf(thursday)]);
    expect(p.background_rate).toBeCloseTo(Math.max(rate, field), 6);
    expect(rate).toBeLessThan(NO_CONTROL_BACKGROUND / 2);
    expect(p.shared / p.pairs).toBeGreaterThan(3 * rate);
    const subject = await engine.analyze({ content: SAME_SUBJECT, content_type: 'text' });
    expect(subject.matches.filter((x) => x.kind === 'exact')).toEqual([]);
    engine.dispose();
  });

  it('fieldBackground: the largest share held by a stretch of another aligned document; 0 with none', () => {
    const words = (seed: number, n: number): string =>
      Array.from({ length: n }, (_, i) => `w${String((i * 7919 + seed * 104729) % 5000).padStart(4, '0')}x`).join(' ');
    const passage = words(2, 120);
    const len = passage.length;
    const q = pairSet(normalize(passage));
    // another document holding the passage's words between unrelated text: all its pairs, in one of its stretches
    expect(fieldBackground(q, len, [pairsOf(`${words(7, 300)} ${passage} ${words(8, 300)}`)])).toBeGreaterThan(0.9);
    // other documents sharing nothing, or none at all: no field background
    expect(fieldBackground(q, len, [pairsOf(words(4, 600)), pairsOf(words(5, 50))])).toBe(0);
    expect(fieldBackground(q, len, [])).toBe(0);
    // half of its words in one stretch of another document: about half its pairs, the most of the documents
    const halfText = `${words(6, 200)} ${passage.slice(0, passage.length >> 1)}`;
    const half = fieldBackground(q, len, [pairsOf(words(9, 400)), pairsOf(halfText)]);
    expect(half).toBeGreaterThan(0.3);
    expect(half).toBeLessThan(0.7);
    // a stretch is as long as the source passage: its words spread over twice that length are never all in one
    const spread = passage
      .split(' ')
      .map((w, i) => `${w} ${words(10 + i, 1)}`)
      .join(' ');
    expect(fieldBackground(q, len, [pairsOf(spread)])).toBeLessThan(0.7);
    expect(fieldBackground(q, 2 * len, [pairsOf(spread)])).toBeGreaterThan(fieldBackground(q, len, [pairsOf(spread)]));
  });

  it('a reworded paragraph whose words another aligned document holds in part is reported; the field weighs its evidence', async () => {
    // the other document: a novel with half of the query's sentences in it, words reversed (the same content-word
    // pairs, in no order the query has): the vocabulary of the passage in another text, beside its true source
    const half = REWORDED.indexOf('Luckily');
    const other = `${thursday.slice(0, 100_000)}\n\n${reversedSentences(REWORDED.slice(0, half))}\n\n${thursday.slice(100_000, 200_000)}`;
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [{ id: 'persuasion', text: persuasion }]);
    await engine.addDataset({ id: 'field' }, [{ id: 'other', text: other }]);
    const r = await engine.analyze({ content: REWORDED, content_type: 'text' });
    const [m] = r.matches.filter((x): x is ExactMatch => x.kind === 'exact' && x.document_id === 'persuasion');
    expect(m.reuse).toBe('paraphrase');
    const q = pairSet(normalize(REWORDED.slice(m.query_start, m.query_end)));
    const span = { b_start: m.source_start, b_end: m.source_end };
    const neighbours = neighbourBackground(q, persuasion, span);
    const field = fieldBackground(q, m.source_end - m.source_start, [pairsOf(other)]);
    const books = r.evidence.datasets.find((d) => d.dataset_id === 'books')!.aligned!;
    const [p] = books.passages;
    // reported: its shared pairs are beyond its own document's background (the source's neighbours) ...
    expect(binomialUpperTail(p.shared, p.pairs, neighbours)).toBeLessThanOrEqual(PARAPHRASE_ALPHA);
    // ... though not beyond the other document's stretch, which its evidence is weighed against
    expect(field).toBeGreaterThan(2 * neighbours);
    expect(p.background_rate).toBeCloseTo(field, 6);
    expect(binomialUpperTail(p.shared, p.pairs, p.background_rate)).toBeGreaterThan(PARAPHRASE_ALPHA);
    engine.dispose();
  });

  it('a passage whose words another aligned document holds as much counts nothing beyond chance', async () => {
    const other = `${thursday.slice(0, 100_000)}\n\n${reversedSentences(REWORDED)}\n\n${thursday.slice(100_000, 200_000)}`;
    const chanceOf = async (datasets: Array<{ id: string; text: string }>) => {
      const engine = await createEngine();
      for (const d of datasets) await engine.addDataset({ id: d.id }, [d]);
      const r = await engine.analyze({ content: REWORDED, content_type: 'text' });
      engine.dispose();
      const books = r.evidence.datasets.find((d) => d.dataset_id === 'persuasion')!.aligned!;
      expect(r.matches.some((x) => x.kind === 'exact' && x.document_id === 'persuasion')).toBe(true);
      return books.chance;
    };
    // alone, the reworded paragraph is strong evidence of the book; beside a text that holds all its words, none
    expect(await chanceOf([{ id: 'persuasion', text: persuasion }])).toBeLessThan(1e-3);
    const beside = await chanceOf([
      { id: 'persuasion', text: persuasion },
      { id: 'other', text: other },
    ]);
    expect(beside).toBeGreaterThan(PARAPHRASE_ALPHA);
  });

  it('reading the other documents for the field background counts against the work budget, and says so', async () => {
    const half = REWORDED.indexOf('Luckily');
    const other = `${thursday.slice(0, 100_000)}\n\n${reversedSentences(REWORDED.slice(0, half))}\n\n${thursday.slice(100_000, 200_000)}`;
    const engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [
      { id: 'persuasion', text: persuasion },
      { id: 'other', text: other },
    ]);
    const whole = engine.search(REWORDED);
    expect(whole.alignment).toMatchObject({ aligned: 2, budget_exhausted: false });
    // the paraphrase of Persuasion is all the query: its field background read the other document, counted in the work
    // (the other document's passage leaves half the query to measure its own background on: it reads no field)
    const fieldChars = other.length;
    expect(whole.alignment.aligned_chars).toBeGreaterThan(fieldChars);
    // a budget that the aligning of the candidates spends: both aligned, neither read, and the search says so
    const aligning = whole.alignment.aligned_chars - fieldChars;
    const cut = engine.search(REWORDED, { alignBudgetChars: aligning });
    expect(cut.alignment).toMatchObject({ aligned: 2, aligned_chars: aligning, budget_exhausted: true });
    expect(cut.alignment.time_limit_reached).toBe(false);
    // the passages are reported as before: their own documents' backgrounds decide that
    const listed = (r: typeof whole) => r.matches.filter((m) => m.kind === 'exact').map((m) => m.document_id);
    expect(listed(cut)).toEqual(listed(whole));
    const analyzed = await engine.analyze({ content: REWORDED, content_type: 'text' }, { alignBudgetChars: aligning });
    expect(analyzed.limitations).toContain('alignment_budget_exhausted');
    engine.dispose();
  });

  it('neighbourBackground: the larger share held by the text just before or after; the prior with no neighbour', () => {
    const words = (seed: number, n: number): string =>
      Array.from({ length: n }, (_, i) => `w${String((i * 7919 + seed * 104729) % 5000).padStart(4, '0')}x`).join(' ');
    // words of one length: each neighbour, as long as the source, is one of these stretches
    const before = words(1, 120),
      source = words(2, 120),
      after = words(3, 120);
    const text = `${before} ${source} ${after}`;
    const span = { b_start: before.length + 1, b_end: before.length + 1 + source.length };
    // a query passage made of the text after the source: all its pairs are held there
    expect(neighbourBackground(pairSet(normalize(after)), text, span)).toBe(1);
    // a query passage sharing nothing with either neighbour: the floor
    expect(neighbourBackground(pairSet(normalize(words(4, 120))), text, span)).toBe(PAIR_BACKGROUND_FLOOR);
    // the source passage is the whole document: nothing to measure on
    expect(neighbourBackground(pairSet(normalize(after)), source, { b_start: 0, b_end: source.length })).toBe(
      NO_CONTROL_BACKGROUND,
    );
    // half of the query from the text before: about half its pairs
    const half = neighbourBackground(
      pairSet(normalize(`${before.slice(0, before.length >> 1)} ${words(5, 60)}`)),
      text,
      span,
    );
    expect(half).toBeGreaterThan(0.3);
    expect(half).toBeLessThan(0.7);
  });
});

describe('content-word pairs', () => {
  it('are order-free within reach, drop stop words, and sample the same pairs on both sides', () => {
    const a = contentPairs(
      'The quick brown fox jumps over the lazy dog near the river bank today, while the old ' +
        'farmer watches his sheep graze on the green hill above the quiet village',
    );
    const b = contentPairs(
      'Today, near the bank of the river, the lazy dog was jumped over by a quick brown fox; ' +
        'above the quiet village, on the green hill, the sheep graze and the old farmer watches',
    );
    for (const h of a.hashes) expect(h % PAIR_SAMPLE).toBe(0);
    const shared = [...a.hashes].filter((h) => b.hashes.includes(h));
    expect(shared.length).toBeGreaterThan(0);
    expect(contentPairs('the of and a to in').hashes.length).toBe(0);
  });

  it('find a reworded document among unrelated ones', () => {
    const docs = [persuasion.slice(0, 40_000), thursday.slice(0, 40_000), caesar.slice(0, 40_000)];
    const index = ContentWordIndex.build([...docs, null]);
    expect(index.documents).toBe(4);
    const query = obfuscate(thursday.slice(10_000, 14_000), 11, 2);
    const found = index.candidates(contentPairs(query));
    expect(found[0].doc).toBe(1);
    expect(found[0].regions[0].source_start).toBeGreaterThan(9_000);
  });

  it('count a pair the query repeats as one place of the document', () => {
    // sampled pairs (one in PAIR_SAMPLE is kept) of two words each, from a list of content words
    const words = 'harbour lighthouse keeper watched grey northern sea storm lantern cliff tide gull rope anchor'.split(
      ' ',
    );
    const sampled: string[] = [];
    for (let i = 0; i < words.length && sampled.length < 3; i++) {
      for (let j = 0; j < words.length && sampled.length < 3; j++) {
        const two = `${words[i]} ${words[j]}`;
        if (i !== j && contentPairs(two).hashes.length === 1 && !sampled.some((p) => p.includes(words[i])))
          sampled.push(two);
      }
    }
    expect(sampled.length).toBe(3);
    const filler = (k: number): string => `qqa${k} qqb${k} qqc${k}`; // content words no document holds
    const doc = sampled.map((p, k) => `${p} ${filler(k)}`).join(' ');
    const index = ContentWordIndex.build([doc]);
    // one pair of the document, found by five stretches of the query: one place, no region of five hits
    const repeated = Array.from({ length: 5 }, (_, k) => `${sampled[0]} ${filler(10 + k)}`).join(' ');
    expect(index.candidates(contentPairs(repeated))).toEqual([]);
    // three distinct pairs in three places of the document are a candidate
    const distinct = sampled.map((p, k) => `${p} ${filler(20 + k)}`).join(' ');
    expect(index.candidates(contentPairs(distinct)).map((c) => c.hits)).toEqual([3]);
  });

  it('postings are found once per query and answer "does this document hold pair i"', () => {
    const docs = [persuasion.slice(0, 20_000), thursday.slice(0, 20_000)];
    const index = ContentWordIndex.build(docs);
    const q = contentPairs(thursday.slice(5_000, 7_000));
    const at = index.postings(q);
    const own = contentPairs(docs[1]);
    for (let i = 0; i < q.hashes.length; i++) {
      expect(index.holdsAt(at, i, 1)).toBe(own.hashes.includes(q.hashes[i]));
      expect(index.holdsAt(at, i, 0)).toBe(contentPairs(docs[0]).hashes.includes(q.hashes[i]));
    }
  });
});

describe('reuse kinds', () => {
  it('known answers', () => {
    expect(sharedRuns('one two three four', 'one two three four')).toEqual({ tokens: 4, similarity: 1 });
    expect(sharedRuns('one two three x five six seven', 'one two three y five six seven').similarity).toBeCloseTo(
      6 / 7,
    );
    expect(sharedRuns('alpha beta gamma', 'gamma beta alpha').similarity).toBe(0);
    expect(reuseKind(1)).toBe('verbatim');
    expect(reuseKind(0.95)).toBe('verbatim');
    expect(reuseKind(0.6)).toBe('edited');
    expect(reuseKind(0.2)).toBe('paraphrase');
  });
});
