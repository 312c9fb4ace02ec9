/**
 * The sliced search (`Corpus.searchDetailedAsync`, which analyze uses): the same result as the
 * synchronous `searchDetailed` — in slices, with every pause taken, and with the pure work of a long query
 * handed to an offload — while other macrotasks run in between.
 */
import { describe, expect, it, vi } from 'vitest';
import { ContentWordIndex } from '../../src/corpus/content-words.js';
import { createEngine, OFFLOAD_MIN_UNITS, TrainprintError, type Engine } from '../../src/library.js';
import type { DetailedSearch } from '../../src/corpus/types.js';
import { recordingOffload } from '../fixtures/offload.js';
import { book } from '../fixtures/texts/index.js';

const persuasion = book('austen-persuasion');
const thursday = book('chesterton-thursday');
const caesar = book('shakespeare-caesar');

/** Every `every`-th word of `text` replaced: edited reuse, which the alignment stage has to find. */
function edit(text: string, every: number): string {
  return text
    .split(' ')
    .map((w, i) => (i % every === 0 ? 'zzyzx' : w))
    .join(' ');
}

/** Exact and portrait datasets, and a query with verbatim, edited and unrelated stretches. */
async function setup(): Promise<{ engine: Engine; query: string }> {
  const engine = await createEngine();
  await engine.addDataset({ id: 'books' }, [
    { id: 'persuasion', text: persuasion },
    { id: 'thursday', text: thursday },
  ]);
  await engine.addDataset({ id: 'plays', kind: 'portrait' }, [{ id: 'caesar', text: caesar }]);
  const query = [
    caesar.slice(5_000, 9_000),
    persuasion.slice(30_000, 33_000),
    edit(thursday.slice(50_000, 56_000), 5),
    'An unrelated sentence about nothing in particular, written for this test alone.',
    persuasion.slice(120_000, 121_500),
  ].join('\n\n');
  return { engine, query };
}

/** A search as comparable JSON (its maps as entries, bigints as strings). */
function json(s: DetailedSearch): string {
  return JSON.stringify({ ...s, details: [...s.details] }, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
}

// a budget no test machine reaches: the budget is the one timing-dependent part of a search
const SEARCH = { alignBudgetMs: 60_000, portraitHits: true };

/**
 * A fresh engine of {@link setup} whose content-word index is not built yet, the search result it must give (from
 * another engine), and a count of the index builds (restore it when done).
 */
async function withBuildsCounted() {
  const { engine: reference, query } = await setup();
  const want = json(reference.corpus.searchDetailed(query, SEARCH));
  const { engine } = await setup();
  return { engine, query, want, builds: vi.spyOn(ContentWordIndex, 'buildSteps') };
}

describe('sliced search', () => {
  it('gives the synchronous result while other macrotasks run between its slices', async () => {
    const { engine, query } = await setup();
    const sync = engine.corpus.searchDetailed(query, SEARCH);
    expect(sync.result.matches.some((m) => m.kind === 'exact' && m.aligned)).toBe(true); // the alignment stage ran
    expect(sync.result.matches.some((m) => m.kind === 'portrait')).toBe(true);
    let ticks = 0;
    const tick = setInterval(() => ticks++, 0);
    try {
      const sliced = await engine.corpus.searchDetailedAsync(query, SEARCH, { sliceMs: 0 });
      expect(json(sliced)).toBe(json(sync));
      expect(ticks).toBeGreaterThan(0); // the event loop turned while it searched
    } finally {
      clearInterval(tick);
    }
  });

  it('gives the same result with the pure work offloaded, and runs in one go with sliceMs Infinity', async () => {
    const { engine, query: short } = await setup();
    const { offload, kinds } = await recordingOffload(); // another engine's core: what a worker thread has
    // a query of 32 Ki units or more sends its pure work to the offload; a shorter one keeps it in this thread
    const query = `${short}\n\n${thursday.slice(100_000, 120_000)}`;
    expect([short.length < OFFLOAD_MIN_UNITS, query.length >= OFFLOAD_MIN_UNITS]).toEqual([true, true]);
    expect(json(await engine.corpus.searchDetailedAsync(short, SEARCH, { offload }))).toBe(
      json(engine.corpus.searchDetailed(short, SEARCH)),
    );
    expect(kinds).toEqual([]);
    const sync = engine.corpus.searchDetailed(query, SEARCH);
    expect(json(await engine.corpus.searchDetailedAsync(query, SEARCH, { offload }))).toBe(json(sync));
    expect(kinds.sort()).toEqual(['fingerprint', 'fingerprint', 'pairs']); // the query's, the portrait's, the pairs
    let ticks = 0;
    const tick = setInterval(() => ticks++, 0);
    try {
      expect(json(await engine.corpus.searchDetailedAsync(query, SEARCH, { sliceMs: Infinity }))).toBe(json(sync));
      expect(ticks).toBe(0); // nothing else ran: the search before slicing
    } finally {
      clearInterval(tick);
    }
  });

  it('keeps the query as UTF-8 only when asked and fingerprinted in this thread (keepUtf8), the result unchanged', async () => {
    const { engine, query: short } = await setup();
    const query = `${short} Café “naïve” 😀 漢字`;
    const { offload } = await recordingOffload();
    const plain = await engine.corpus.searchDetailedAsync(query, SEARCH);
    expect(plain.utf8).toBeUndefined();
    const kept = await engine.corpus.searchDetailedAsync(query, SEARCH, { keepUtf8: true });
    expect(kept.utf8).toEqual(new TextEncoder().encode(query));
    const { utf8: _u, ...rest } = kept;
    expect(json(rest)).toBe(json(plain));
    // a long query's fingerprint goes to the offload: no bytes come back, the caller encodes them itself
    const long = `${query}\n\n${thursday.slice(100_000, 120_000)}`;
    expect((await engine.corpus.searchDetailedAsync(long, SEARCH, { keepUtf8: true, offload })).utf8).toBeUndefined();
  });

  it('analyze gives the same analysis sliced, offloaded and in one go', async () => {
    const { engine, query } = await setup();
    const { offload } = await recordingOffload();
    const strip = ({ analysis_id: _a, created_at: _c, ...rest }: Record<string, unknown>) => JSON.stringify(rest);
    const request = { content: query, content_type: 'text' as const };
    const once = strip({ ...(await engine.analyze(request, { sliceMs: Infinity })) });
    expect(strip({ ...(await engine.analyze(request, { sliceMs: 0 })) })).toBe(once);
    expect(strip({ ...(await engine.analyze(request, { offload })) })).toBe(once);
  });

  it('searches that arrive while the content-word index is being built share that build', async () => {
    const { engine, query, want, builds } = await withBuildsCounted();
    try {
      // four first searches at once, each pausing at every step: all of them wait on the one index
      const first = () => engine.corpus.searchDetailedAsync(query, SEARCH, { sliceMs: 0 });
      const all = await Promise.all([first(), first(), first(), first()]);
      expect(builds).toHaveBeenCalledTimes(1);
      for (const r of all) expect(json(r)).toBe(want);
      // documents added since: the next search builds it again, once
      await engine.addDataset({ id: 'books' }, [{ id: 'caesar', text: caesar }]);
      await Promise.all([first(), first()]);
      expect(builds).toHaveBeenCalledTimes(2);
    } finally {
      builds.mockRestore();
    }
  });

  it('prepareSearch builds what the first search would, so that the first search builds nothing', async () => {
    const { engine, query, want, builds } = await withBuildsCounted();
    try {
      await engine.corpus.prepareSearch({ sliceMs: 0 });
      expect(builds).toHaveBeenCalledTimes(1); // the one exact dataset that keeps text
      expect(json(await engine.corpus.searchDetailedAsync(query, SEARCH))).toBe(want);
      expect(builds).toHaveBeenCalledTimes(1);
      await engine.corpus.prepareSearch(); // nothing new: nothing built
      expect(builds).toHaveBeenCalledTimes(1);
      for (const sliceMs of [-1, Number.NaN]) {
        const e = await engine.corpus.prepareSearch({ sliceMs }).catch((x: unknown) => x);
        expect((e as TrainprintError).code).toBe('INVALID_OPTIONS');
      }
    } finally {
      builds.mockRestore();
    }
  });

  it('compare through runWork is engine.compare', async () => {
    const engine = await createEngine();
    const a = persuasion.slice(0, 20_000),
      b = persuasion.slice(10_000, 30_000);
    expect(engine.runWork({ kind: 'compare', a, b })).toEqual(engine.compare(a, b));
  });

  it('refuses a bad sliceMs with INVALID_OPTIONS', async () => {
    const { engine, query } = await setup();
    for (const sliceMs of [-1, Number.NaN, '10' as unknown as number]) {
      const e = await engine.corpus.searchDetailedAsync(query, {}, { sliceMs }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(TrainprintError);
      expect((e as TrainprintError).code).toBe('INVALID_OPTIONS');
    }
  });
});
