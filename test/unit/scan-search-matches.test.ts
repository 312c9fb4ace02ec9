/**
 * The searches a scan runs do only what its hit lines read, and give the same matches. A search for copies alone
 * (`reworded` false) reads each kept passage's shared runs from the core's tokens of its two sides
 * (src/align/passage-runs.ts) instead of normalising the sides again: its matches — every field, and so the scan's
 * hit lines — must be those of the same search with every passage normalised again (the module replaced by one
 * that always declines), on planted copies whole, edited, cut short at an output's edge (what reaches the aligner),
 * and with curly quotes, dashes and no-break spaces in them (what the walk's own runs leave to this path). And a
 * search told not to measure its coverage (`coverage: false`, as a scan asks) gives the same matches.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ScanHit, SearchOptions } from '../../src/index.js';
import { candidateHits } from '../../src/services/scan/scan.js';
import { archive, plantedOutputs, prng } from '../fixtures/scan-plant.js';

const docs = archive();

/** Planted outputs, then the same with punctuation outside ASCII in the passages, then short copies at an edge. */
function outputs(): Array<{ id: string; text: string }> {
  const rnd = prng(4711);
  const planted = plantedOutputs(docs, 40, 4712);
  const texts = planted.map((p) => p.text);
  for (const p of planted) {
    const passage = p.text
      .slice(p.query_start, p.query_end)
      .split(' ')
      .map((w) => {
        const r = rnd();
        return r < 0.05 ? `\u201c${w}\u201d` : r < 0.08 ? `${w}\u2014` : r < 0.1 ? `${w}\u2019s` : w;
      })
      .join(rnd() < 0.5 ? ' ' : '\u00a0');
    texts.push(p.text.slice(0, p.query_start) + passage + p.text.slice(p.query_end));
  }
  for (let i = 0; i < 30; i++) {
    const words = docs[(i * 7) % docs.length].text.split(/\s+/);
    const len = 22 + Math.floor(rnd() * 25),
      at = Math.floor(rnd() * (words.length - len));
    const copy = words.slice(at, at + len).join(i % 2 ? ' ' : '\u00a0');
    const host = planted[i].text.slice(0, planted[i].query_start) || 'An output of no source at all, written anew.';
    texts.push(i % 3 === 0 ? `${copy} ${host}` : `${host} ${copy}`);
  }
  return texts.map((text, i) => ({ id: `out-${i}`, text }));
}

/** What one build of the engine gives: every item's search matches and the scan's hits, at 50 and at 20 words. */
async function run(declined: boolean) {
  vi.resetModules();
  const calls = { asked: 0, answered: 0 };
  vi.doMock('../../src/align/passage-runs.js', async (original) => {
    const real = await original<typeof import('../../src/align/passage-runs.js')>();
    return {
      passageRuns: (...args: Parameters<typeof real.passageRuns>) => {
        calls.asked++;
        const runs = declined ? null : real.passageRuns(...args);
        if (runs !== null) calls.answered++;
        return runs;
      },
    };
  });
  const { createEngine } = await import('../../src/index.js');
  const engine = await createEngine();
  try {
    await engine.addDataset({ id: 'arch' }, docs);
    const items = outputs();
    const matches: unknown[] = [];
    const hits: ScanHit[] = [];
    for (const minWords of [50, 20]) {
      const options: SearchOptions = {
        ...{ datasets: ['arch'], remote: false, reworded: false },
        ...{ candidateHits: candidateHits(minWords), synonyms: false, copiesFirst: true },
      };
      for (const item of items)
        matches.push((await engine.corpus.searchDetailedAsync(item.text, options)).result.matches);
      for await (const h of engine.scan(items, { minWords })) hits.push(h);
    }
    return { matches, hits, calls };
  } finally {
    engine.dispose();
    vi.doUnmock('../../src/align/passage-runs.js');
  }
}

describe("a search for copies alone: passages' runs from the core's tokens", () => {
  afterAll(() => vi.resetModules());

  it('gives the matches and hit lines of the same search with every passage normalised again', async () => {
    const lean = await run(false);
    const full = await run(true);
    expect(lean.matches).toEqual(full.matches);
    expect(lean.hits).toEqual(full.hits);
    // both paths were taken: passages the walk's runs leave, answered from the core's tokens, and the hits varied
    expect(full.calls.asked).toBeGreaterThan(50);
    expect(full.calls.answered).toBe(0);
    expect(lean.calls.answered).toBeGreaterThan(50);
    expect(lean.hits.length).toBeGreaterThan(100);
    expect(lean.hits.some((h) => h.kind === 'edited')).toBe(true);
  }, 180_000);
});

describe('a search without its coverage', () => {
  it('gives the same matches, an empty coverage, and refuses a coverage that is not a boolean', async () => {
    vi.resetModules();
    const { createEngine, isTrainprintError } = await import('../../src/index.js');
    const engine = await createEngine();
    try {
      await engine.addDataset({ id: 'arch' }, docs);
      const options: SearchOptions = { datasets: ['arch'], remote: false, reworded: false, copiesFirst: true };
      let covered = 0;
      for (const item of outputs().slice(0, 40)) {
        const full = (await engine.corpus.searchDetailedAsync(item.text, options)).result;
        const bare = (await engine.corpus.searchDetailedAsync(item.text, { ...options, coverage: false })).result;
        expect(bare.matches).toEqual(full.matches);
        expect(bare.coverage).toEqual({});
        if (full.coverage.arch?.share > 0) covered++;
      }
      expect(covered).toBeGreaterThan(30);
      const err = await engine.corpus
        .searchDetailedAsync('a text', { coverage: 'no' as never })
        .catch((e: unknown) => e);
      expect(isTrainprintError(err) && err.code).toBe('INVALID_OPTIONS');
    } finally {
      engine.dispose();
    }
  }, 60_000);
});
