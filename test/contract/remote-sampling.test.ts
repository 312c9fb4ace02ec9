/**
 * A long work against a remote corpus by sampling (src/remote/sampling.ts), on the fixture engine: a novel
 * (Persuasion, 24 chapters, committed public-domain text) against indexes that hold none, half or all of its chapters,
 * hard-wrapped as the Gutenberg file is or reflowed. The share's interval must cover the true share, the found
 * passages must come back with exact spans, the draw must repeat, and the budget must hold.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTokenIndex, startInfiniGramServer, type InfiniGramServer } from '../fixtures/infini-gram/index.mjs';
import { createEngine, type AnalysisResult, type Engine, type RemoteMatch } from '../../src/index.js';
import { resetEndpoints, sharedCache } from '../../src/remote/index.js';
import { DETECTION_DESIGN_EFFECT, drawPassages, sampledSearch } from '../../src/remote/sampling.js';
import { estimateShare } from '../../src/corpus/share.js';
import { searchedDatasetIds, sectionCoverage } from '../../src/services/analyze/sections.js';
import { buildEpub, persuasion } from '../fixtures/documents.js';

const RAW = readFileSync(new URL('../fixtures/texts/gutenberg/austen-persuasion.txt', import.meta.url), 'utf8');
/** The chapters as the file has them: hard-wrapped lines, a blank line between paragraphs. */
const WRAPPED = RAW.split(/^(?=Chapter \d+\s*$)/m)
  .slice(1)
  .map((c) => c.replace(/\r/g, '').trim());
/** The same chapters reflowed: each paragraph on one line. */
const reflow = (c: string) =>
  c
    .split(/\n{2,}/)
    .map((p) => p.replace(/\s*\n\s*/g, ' '))
    .join('\n\n');
const REFLOWED = WRAPPED.map(reflow);
const words = (t: string) => (t.match(/\S+/g) ?? []).length;

/** The work: its chapters joined, and their spans. */
function book(chapters: readonly string[]) {
  let text = '';
  const sections: Array<{ start: number; end: number }> = [];
  for (const c of chapters) {
    if (text) text += '\n\n';
    sections.push({ start: text.length, end: text.length + c.length });
    text += c;
  }
  return { text, sections };
}

const QUICK = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 } as const;
/** 400 calls (the default): a 83,000-word novel is sampled (more than 30 words per call). */
const MAX_CALLS = 400;

describe('sampled search of a long work', () => {
  let server: InfiniGramServer;
  // which chapters each index holds (every other chapter: half), and in which line form
  const held = { none: [] as number[], half: WRAPPED.map((_, i) => i).filter((i) => i % 2 === 0) };
  beforeAll(async () => {
    // documents of another book beside the chapters (the indexer wants at least one per shard)
    const caesar = readFileSync(new URL('../fixtures/texts/gutenberg/shakespeare-caesar.txt', import.meta.url), 'utf8');
    const filler = [0, 1, 2, 3].map((k) => ({
      text: caesar.slice((k * caesar.length) / 4, ((k + 1) * caesar.length) / 4),
    }));
    const index = (chapters: readonly string[], ids: readonly number[]) =>
      buildTokenIndex({ documents: [...filler, ...ids.map((i) => ({ text: chapters[i] }))], tokenizer: 'llama' });
    server = await startInfiniGramServer({
      kind: 'infini-gram',
      indexes: {
        none: index(WRAPPED, held.none),
        half_wrapped: index(WRAPPED, held.half),
        half_reflowed: index(REFLOWED, held.half),
      },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  async function analyze(index: string, text: string): Promise<{ r: AnalysisResult; engine: Engine }> {
    const engine = await createEngine({
      remoteCorpora: [
        { id: 'remote', kind: 'infini-gram', endpoint: server.url, index, maxCalls: MAX_CALLS, ...QUICK },
      ],
    });
    const r = await engine.analyze({ content: text, content_type: 'text' });
    return { r, engine };
  }
  const trueShare = (ids: readonly number[]) =>
    ids.reduce((t, i) => t + words(WRAPPED[i]), 0) / WRAPPED.reduce((t, c) => t + words(c), 0);

  it('samples a novel: more than 30 words per call of the budget', () => {
    expect(sampledSearch(words(book(REFLOWED).text), MAX_CALLS)).toBe(true);
    expect(sampledSearch(2000, 400)).toBe(false);
  });

  for (const [form, index, chapters] of [
    ['reflowed work, hard-wrapped corpus', 'half_wrapped', REFLOWED],
    ['hard-wrapped work, reflowed corpus', 'half_reflowed', WRAPPED],
    ['reflowed work, reflowed corpus', 'half_reflowed', REFLOWED],
  ] as const) {
    it(`half the chapters held (${form}): the interval covers the true share, passages with exact spans`, async () => {
      sharedCache.clear();
      resetEndpoints();
      const { text } = book(chapters);
      const { r, engine } = await analyze(index, text);
      try {
        const report = r.remote_corpora[0];
        expect(report.calls).toBeLessThanOrEqual(MAX_CALLS);
        expect(['searched', 'deadline_reached'], report.message ?? '').toContain(report.outcome);
        const s = report.sampling!;
        expect(s.method).toBe('stratified_passages');
        const truth = trueShare(held.half);
        expect(Math.abs(s.share.estimate - truth)).toBeLessThanOrEqual(0.12);
        expect(s.share.ci_95[0]).toBeLessThanOrEqual(truth + 0.02);
        expect(s.share.ci_95[1]).toBeGreaterThanOrEqual(truth - 0.02);
        const rates = {
          sensitivity: s.sensitivity,
          sensitivityWorst: s.sensitivity_worst,
          falseFound: s.false_found,
          fetched: s.documents!.fetched,
          verified: s.documents!.verified,
          unchecked: s.documents!.unchecked,
          detectionDesignEffect: DETECTION_DESIGN_EFFECT,
          detection: s.detection,
        };
        if (process.env.TRAINPRINT_DEBUG_SAMPLING)
          console.log(form, truth, JSON.stringify({ ...s, sections: undefined }));
        expect(s.share.ci_rule).toBe('joint');
        expect({ estimate: s.share.estimate, ci_95: s.share.ci_95 }).toEqual(
          estimateShare({ passages: s.passages, found: s.found, ...rates }),
        );
        // the found passages come back as matches with spans in the work, in held chapters only
        const remote = r.matches.filter((m): m is RemoteMatch => m.kind === 'remote');
        expect(remote.length).toBeGreaterThan(5);
        const { sections } = book(chapters);
        for (const m of remote) {
          const chapter = sections.findIndex((c) => c.start <= m.query_start && m.query_start < c.end);
          expect(held.half).toContain(chapter);
          // the spans hold the same words on both sides (line breaks aside)
          expect(m.similarity).toBeGreaterThanOrEqual(0.9);
          const norm = (t: string) => t.replace(/\s+/g, ' ').trim().split(' ').slice(0, 12).join(' ');
          expect(norm(m.source_text.slice(m.source_start, m.source_end))).toBe(
            norm(text.slice(m.query_start, m.query_end)),
          );
        }
        // the corpus links to no model here: the dataset's confidence is the evidence
        expect(r.evidence.datasets.find((d) => d.dataset_id === 'remote')!.confidence).toBeGreaterThanOrEqual(0.5);
      } finally {
        engine.dispose();
      }
    }, 120_000);
  }

  it('none held: the interval’s upper end ≤ 0.1, confidence < 50, no match', async () => {
    sharedCache.clear();
    resetEndpoints();
    const { r, engine } = await analyze('none', book(REFLOWED).text);
    try {
      const s = r.remote_corpora[0].sampling!;
      expect(s.found).toBe(0);
      expect(s.share.ci_95[1]).toBeLessThanOrEqual(0.1);
      expect(r.confidence).toBeLessThan(50);
      expect(r.matches.filter((m) => m.kind === 'remote')).toHaveLength(0);
    } finally {
      engine.dispose();
    }
  }, 120_000);

  it('the same work draws the same passages: a second analysis answers from the cache with the same result', async () => {
    sharedCache.clear();
    resetEndpoints();
    const { text } = book(REFLOWED);
    const first = await analyze('half_wrapped', text);
    const second = await analyze('half_wrapped', text);
    try {
      const [a, b] = [first.r.remote_corpora[0], second.r.remote_corpora[0]];
      expect(b.sampling).toEqual(a.sampling);
      expect(b.transcript).toEqual(a.transcript);
      expect(b.calls).toBe(0);
      expect(b.cached).toBe(a.calls);
      expect(second.r.matches).toEqual(first.r.matches);
    } finally {
      first.engine.dispose();
      second.engine.dispose();
    }
  }, 120_000);

  for (const [form, index, chapters] of [
    ['reflowed passages, a hard-wrapped corpus', 'half_wrapped', REFLOWED],
    ['hard-wrapped passages, a reflowed corpus', 'half_reflowed', WRAPPED],
  ] as const) {
    it(`full search of a 2,400-word text: ${form} are found with their spans`, async () => {
      sharedCache.clear();
      resetEndpoints();
      // 200 words of a chapter the corpus does not hold, then 30 words of one it holds in the other line form, ×8
      const plain = REFLOWED[1].split(/(?<=\S)\s+(?=\S)/);
      let text = '';
      const planted: Array<[number, number]> = [];
      for (let k = 0; k < 8; k++) {
        text += `${plain.slice(k * 200, (k + 1) * 200).join(' ')}\n\n`;
        const held = chapters[2 * k];
        let from = held.indexOf(' ', Math.floor(held.length / 2)) + 1,
          to = from;
        for (let w = 0; w < 30; w++) to = held.indexOf(' ', to + 1);
        planted.push([text.length, text.length + to - from]);
        text += `${held.slice(from, to)}\n\n`;
        from = 0;
      }
      const { r, engine } = await analyze(index, text);
      try {
        expect(r.remote_corpora[0].sampling).toBeUndefined();
        const remote = r.matches.filter((x): x is RemoteMatch => x.kind === 'remote');
        // a match of at least two thirds of the passage, inside it (give or take a word)
        const found = planted.filter(([a, b]) =>
          remote.some(
            (m) =>
              m.query_start >= a - 20 &&
              m.query_end <= b + 20 &&
              Math.min(b, m.query_end) - Math.max(a, m.query_start) >= (2 / 3) * (b - a),
          ),
        );
        // (without asking again across line breaks: 2 and 5 of 8)
        expect(found.length).toBeGreaterThanOrEqual(6);
      } finally {
        engine.dispose();
      }
    }, 120_000);
  }

  it('cut short by its deadline: a chapter none of whose passages was asked has no coverage (unknown), not 0', async () => {
    // 300 ms a call, 3 s: sampling stops at 2.1 s with a few dozen of the 149 passages drawn asked, in a seeded random
    // order, so that some of the 24 chapters had none asked; they read a coverage of 0, as a chapter searched and clean
    server.setLatency(300);
    const engine = await createEngine({
      remoteCorpora: [
        {
          id: 'remote',
          kind: 'infini-gram',
          endpoint: server.url,
          index: 'none',
          maxCalls: MAX_CALLS,
          deadlineMs: 3000,
          ...QUICK,
        },
      ],
    });
    try {
      sharedCache.clear();
      resetEndpoints();
      const r = await engine.analyze({ content: buildEpub(persuasion(24)), content_type: 'epub', include_text: true });
      const report = r.remote_corpora[0];
      const sampling = report.sampling!;
      expect(report.outcome).toBe('deadline_reached');
      expect(sampling.skipped).toBeGreaterThan(0);
      expect(sampling.sections).toHaveLength(r.sections!.length);
      const unasked = sampling.sections.filter((s) => s.passages === 0).map((s) => s.section);
      expect(unasked.length, 'chapters none of whose passages was asked').toBeGreaterThan(0);
      r.sections!.forEach((s, i) => {
        expect('remote' in s.coverage, s.title).toBe(!unasked.includes(i));
        if (!unasked.includes(i)) expect(s.coverage.remote, s.title).toBe(0);
      });
      const x = r.extraction!;
      const ids = searchedDatasetIds(r.evidence.datasets, r.remote_corpora);
      expect(sectionCoverage({ text: x.text!, sections: x.sections }, r.matches, ids, r.remote_corpora)).toEqual(
        r.sections,
      );
    } finally {
      engine.dispose();
      server.setLatency(0);
    }
  }, 60_000);

  it('draws passages per section in proportion to its words, never overlapping, seeded', () => {
    const { text, sections } = book(REFLOWED);
    const a = drawPassages(text, sections, 120, '0123456789abcdef');
    expect(drawPassages(text, sections, 120, '0123456789abcdef')).toEqual(a);
    expect(drawPassages(text, sections, 120, 'fedcba9876543210')).not.toEqual(a);
    expect(a.length).toBe(120);
    for (let i = 1; i < a.length; i++) expect(a[i].q0).toBeGreaterThanOrEqual(a[i - 1].q1);
    const total = words(text);
    sections.forEach((s, i) => {
      const n = a.filter((p) => p.section === i).length;
      expect(Math.abs(n - (120 * words(text.slice(s.start, s.end))) / total)).toBeLessThanOrEqual(1);
      for (const p of a.filter((x) => x.section === i)) expect(p.q0 >= s.start && p.q1 <= s.end).toBe(true);
    });
  });
});
