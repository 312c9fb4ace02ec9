/**
 * Per-section coverage of a file's analysis (src/services/analyze/sections.ts): known answers of the pure function
 * (overlapping matches, a match across a section boundary, empty sections, a dataset without matches, a sampled remote
 * corpus), agreement with a character-by-character oracle on random spans, and `analyze` of a book (DOCX, EPUB, PDF)
 * whose second chapter an exact dataset holds — that chapter covered, the others not — and of an unpublished essay
 * that neither the datasets nor the reference packs hold, covered nowhere.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import type { Engine } from '../../src/engine.js';
import { type CoveredSpan, searchedDatasetIds, sectionCoverage } from '../../src/services/analyze/sections.js';
import { buildDocx, buildEpub, type Chapter, persuasion } from '../fixtures/documents.js';
import { buildPdf, layoutBook } from '../fixtures/pdf.js';
import { book } from '../fixtures/texts/index.js';
import { prng } from '../reference/core.js';

/** A text of `n` characters ('ab ab ab …'), cut into sections at `cuts`. */
function doc(n: number, cuts: number[]) {
  const text = 'ab '.repeat(Math.ceil(n / 3)).slice(0, n);
  const bounds = [0, ...cuts, n];
  const sections = bounds.slice(0, -1).map((start, i) => ({ title: `S${i + 1}`, start, end: bounds[i + 1] }));
  return { text, sections };
}
const span = (dataset_id: string, query_start: number, query_end: number): CoveredSpan => ({
  dataset_id,
  query_start,
  query_end,
});

describe('sectionCoverage', () => {
  it('counts overlapping matches once', () => {
    const [s] = sectionCoverage(doc(100, []), [span('d', 10, 30), span('d', 20, 50), span('d', 45, 50)], ['d']);
    expect(s.coverage).toEqual({ d: 0.4 }); // [10, 50): 40 of 100 characters
  });

  it('splits a match that crosses a section boundary between the two sections', () => {
    const r = sectionCoverage(doc(100, [50]), [span('d', 40, 70)], ['d']);
    expect(r.map((s) => s.coverage.d)).toEqual([0.2, 0.4]); // 10 of 50, 20 of 50
    // a match over a whole section and into both neighbours
    const three = sectionCoverage(doc(90, [30, 60]), [span('d', 20, 75)], ['d']);
    expect(three.map((s) => s.coverage.d)).toEqual([0.3333, 1, 0.5]);
  });

  it('gives an empty section no words and no coverage, and a text without sections no entries', () => {
    const d = doc(20, [10]);
    const r = sectionCoverage(
      { text: d.text, sections: [...d.sections, { title: 'empty', start: 20, end: 20 }] },
      [span('d', 0, 20)],
      ['d'],
    );
    expect(r.map((s) => [s.words, s.coverage.d])).toEqual([
      [4, 1],
      [4, 1],
      [0, 0],
    ]);
    expect(sectionCoverage({ text: '', sections: [] }, [span('d', 0, 5)], ['d'])).toEqual([]);
  });

  it('lists every searched dataset, 0 for one without matches, in the order given; other datasets are left out', () => {
    const r = sectionCoverage(doc(100, [50]), [span('a', 0, 25), span('zzz', 0, 100), span('a', 60, 60)], ['b', 'a']);
    expect(r.map((s) => s.coverage)).toEqual([
      { b: 0, a: 0.5 },
      { b: 0, a: 0 },
    ]);
    expect(Object.keys(r[0].coverage)).toEqual(['b', 'a']);
    expect(r[0]).toMatchObject({ title: 'S1', start: 0, end: 50, words: 17 });
  });

  it("takes a sampled remote corpus's coverage from its sections' found / passages, not from its spans", () => {
    const remote = [
      {
        dataset_id: 'pile',
        sampling: {
          sections: [
            { section: 1, passages: 3, found: 2 },
            { section: 2, passages: 0, found: 0 },
          ],
        },
      },
      { dataset_id: 'web' }, // searched passage by passage: its spans count
    ];
    const matches = [span('pile', 0, 90), span('web', 0, 45)];
    const r = sectionCoverage(doc(90, [30, 60]), matches, searchedDatasetIds([], remote), remote);
    expect(r.map((s) => s.coverage)).toEqual([
      { pile: 0, web: 1 }, // no passage drawn from section 0: 0
      { pile: 0.6667, web: 0.5 },
      { pile: 0, web: 0 },
    ]);
  });

  it('a sampled search cut short: a section none of whose passages was asked has no coverage (unknown), not 0', () => {
    // section 0's passages were all among those the deadline left unasked; section 2's were asked and not found
    const sampling = {
      skipped: 5,
      sections: [
        { section: 0, passages: 0, found: 0 },
        { section: 1, passages: 2, found: 1 },
        { section: 2, passages: 3, found: 0 },
      ],
    };
    const cut = [{ dataset_id: 'pile', outcome: 'deadline_reached' as const, samples: 5, sampling }];
    const r = sectionCoverage(doc(90, [30, 60]), [], searchedDatasetIds([], cut), cut);
    expect(r.map((s) => s.coverage)).toEqual([{}, { pile: 0.5 }, { pile: 0 }]);
    // the same counts from a search that asked everything it could (a section too short to draw from): 0, as before
    const whole = [{ ...cut[0], outcome: 'searched' as const }];
    expect(sectionCoverage(doc(90, [30, 60]), [], ['pile'], whole).map((s) => s.coverage)).toEqual([
      { pile: 0 },
      { pile: 0.5 },
      { pile: 0 },
    ]);
    // cut short with nothing left unasked (every passage drawn was asked): 0
    const asked = [{ ...cut[0], sampling: { ...sampling, skipped: 0 } }];
    expect(sectionCoverage(doc(90, [30, 60]), [], ['pile'], asked)[0].coverage).toEqual({ pile: 0 });
  });

  it('agrees with a character-by-character count on random spans', () => {
    const rnd = prng(46);
    const int = (n: number) => Math.floor(rnd() * n);
    for (let round = 0; round < 200; round++) {
      const n = 1 + int(400);
      const cuts = [...new Set(Array.from({ length: int(6) }, () => int(n)))].sort((a, b) => a - b);
      const d = doc(n, cuts);
      const ids = ['x', 'y', 'z'];
      const matches = Array.from({ length: int(12) }, () => {
        const start = int(n);
        return span(ids[int(3)], start, Math.min(n, start + int(120)));
      });
      const r = sectionCoverage(d, matches, ids);
      for (const [i, s] of d.sections.entries()) {
        for (const id of ids) {
          let inside = 0;
          for (let c = s.start; c < s.end; c++)
            if (matches.some((m) => m.dataset_id === id && m.query_start <= c && c < m.query_end)) inside++;
          const expected = s.end > s.start ? Math.round((inside / (s.end - s.start)) * 1e4) / 1e4 : 0;
          expect(r[i].coverage[id], `round ${round}, section ${i}, ${id}`).toBe(expected);
        }
        expect(r[i].words).toBe(d.text.slice(s.start, s.end).split(/\s+/).filter(Boolean).length);
      }
    }
  });

  it('names each searched dataset once, the evidence first', () => {
    expect(
      searchedDatasetIds([{ dataset_id: 'a' }, { dataset_id: 'r' }], [{ dataset_id: 'r' }, { dataset_id: 'q' }]),
    ).toEqual(['a', 'r', 'q']);
  });

  it('leaves out a remote corpus that answered nothing (no coverage of 0 for a corpus not searched)', () => {
    const remote = [
      { dataset_id: 'down', outcome: 'unreachable' as const, samples: 0 },
      { dataset_id: 'late', outcome: 'deadline_reached' as const, samples: 12 },
      { dataset_id: 'ok', outcome: 'searched' as const, samples: 0 },
    ];
    expect(searchedDatasetIds([{ dataset_id: 'a' }], remote)).toEqual(['a', 'late', 'ok']);
  });
});

describe('analyze of a file: per-section coverage', () => {
  const CHAPTERS = persuasion(3);
  let engine: Engine;
  beforeAll(async () => {
    // the reference packs too: the natural negative below must be covered by none of them either
    engine = await createEngine({ packs: 'default' });
    await engine.addDataset({ id: 'chapter-two' }, [{ id: 'persuasion-2', text: CHAPTERS[1].text }]);
    // a dataset the book shares nothing with: listed in every section, at 0
    await engine.addDataset({ id: 'caesar' }, [{ id: 'julius-caesar', text: book('shakespeare-caesar') }]);
  });

  const files = {
    docx: () => buildDocx(CHAPTERS),
    epub: () => buildEpub(CHAPTERS),
    pdf: () => {
      const laid = layoutBook('Persuasion', CHAPTERS);
      return buildPdf(laid.pages, { outline: laid.chapters, title: 'Persuasion' });
    },
  };
  for (const [format, build] of Object.entries(files) as Array<[keyof typeof files, () => Uint8Array]>) {
    it(`${format}: covers the chapter a dataset holds and no other, as the result and its text recompute`, async () => {
      const r = await engine.analyze({ content: build(), content_type: format, include_text: true });
      const x = r.extraction!;
      const sections = r.sections!;
      expect(sections.map(({ title, start, end }) => ({ title, start, end }))).toEqual(x.sections);
      expect(sections.reduce((n, s) => n + s.words, 0)).toBe(x.words);
      const ids = searchedDatasetIds(r.evidence.datasets, r.remote_corpora);
      expect(ids).toEqual(expect.arrayContaining(['chapter-two', 'caesar', 'pack:gutenberg']));
      const chapter2 = sections.find((s) => s.title === 'Chapter 2')!;
      expect(chapter2.coverage['chapter-two']).toBeGreaterThanOrEqual(0.98);
      for (const s of sections) {
        expect(Object.keys(s.coverage)).toEqual(ids);
        expect(s.coverage.caesar).toBe(0);
        if (s !== chapter2) expect(s.coverage['chapter-two'], s.title).toBe(0);
      }
      // what a reader of the result recomputes from it and the extracted text
      expect(sectionCoverage({ text: x.text!, sections: x.sections }, r.matches, ids, r.remote_corpora)).toEqual(
        sections,
      );
    });
  }

  it('covers nothing of a text no dataset holds (an unpublished essay), in any dataset', async () => {
    const essay = readFileSync(new URL('../fixtures/texts/unpublished-essay.txt', import.meta.url), 'utf8');
    const paragraphs = essay.split(/\n\s*\n/).slice(1);
    const third = Math.ceil(paragraphs.length / 3);
    const parts: Chapter[] = [0, 1, 2].map((i) => ({
      title: `Part ${i + 1}`,
      text: paragraphs.slice(i * third, (i + 1) * third).join('\n\n'),
    }));
    const r = await engine.analyze({ content: buildDocx(parts), content_type: 'docx' });
    expect(r.sections!.map((s) => s.title)).toEqual(expect.arrayContaining(['Part 1', 'Part 2', 'Part 3']));
    const ids = searchedDatasetIds(r.evidence.datasets, r.remote_corpora);
    expect(ids.length).toBeGreaterThanOrEqual(6); // the four packs and the two datasets
    for (const s of r.sections!) expect(s.coverage).toEqual(Object.fromEntries(ids.map((id) => [id, 0])));
  });
});
