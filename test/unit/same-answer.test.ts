/**
 * The same request gives the same answer, byte for byte (the ids and times of one call aside), however the work
 * is sliced and however busy the machine: analyze and score run repeatedly — one at a time and several at once,
 * in one go, sliced at every pause and with the default slices — while worker threads burn every core. The
 * alignment's budget is counted in characters aligned, so even a budget that cuts the alignment short cuts it at
 * the same candidate every time. Nothing is timed: the assertions compare answers.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { knowledgeBase } from '../../src/services/kb/index.js';
import { book } from '../fixtures/texts/index.js';

/** Every `every`-th word replaced: edited reuse, which the alignment stage has to align. */
const edit = (text: string, every: number) =>
  text
    .split(' ')
    .map((w, i) => (i % every === 0 ? 'zzyzx' : w))
    .join(' ');

/** Fields that name one call or its time: each answer has its own. */
const PER_CALL = new Set(['analysis_id', 'created_at']);

/**
 * JSON of `value` without the {@link PER_CALL} fields: what must not differ (the datasets, documents and works an
 * answer names do).
 */
function comparable(value: unknown): string {
  return JSON.stringify(value, (k, v) => (PER_CALL.has(k) ? undefined : typeof v === 'bigint' ? String(v) : v));
}

/** `n` worker threads spinning on the CPU until terminated: a loaded machine inside this process's reach. */
function burners(n: number): Worker[] {
  return Array.from({ length: n }, () => new Worker('for (;;) {}', { eval: true }));
}

const BOOKS = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise', 'shakespeare-caesar'];

let engine: Engine;
let query: string;
let workHash: string;
let model: string;
let burning: Worker[] = [];
beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset(
    { id: 'pg', kb_dataset: 'project-gutenberg' },
    BOOKS.map((id) => ({ id, text: book(id) })),
  );
  // edited and verbatim passages of each book, with something unrelated between them: many candidates to align
  query = BOOKS.flatMap((id, k) => [
    edit(book(id).slice(20_000 + k * 7_000, 23_000 + k * 7_000), 5),
    book(id).slice(60_000, 61_200),
    'A paragraph written for this test alone, about the weather and nothing in any book.',
  ]).join('\n\n');
  workHash = (await engine.registerWork({ content: query, owner: 'same-answer' })).work_hash;
  model = knowledgeBase()
    .modelsTrainedOn('project-gutenberg')
    .find((l) => l.via.length === 1 && l.model.disclosure === 'full')!.model.id;
  burning = burners(Math.max(2, availableParallelism()));
});
afterAll(async () => {
  await Promise.all(burning.map((w) => w.terminate()));
});

/** Run `call` sequentially `rounds` times and `together` at once, each sliced three ways; every answer's JSON. */
async function answers(call: (sliceMs: number) => Promise<unknown>, rounds: number, together: number) {
  const out: string[] = [];
  for (let r = 0; r < rounds; r++) for (const sliceMs of [Infinity, 0, 3]) out.push(comparable(await call(sliceMs)));
  const at = await Promise.all(Array.from({ length: together }, (_, i) => call([Infinity, 0, 3][i % 3])));
  out.push(...at.map(comparable));
  return out;
}

describe('the same answer under CPU contention', () => {
  it('analyze: every answer the same, sliced or not, one at a time or four at once', async () => {
    const request = { content: query, content_type: 'text' as const };
    const all = await answers((sliceMs) => engine.analyze(request, { sliceMs }), 3, 4);
    const first = JSON.parse(all[0]);
    expect(first.matches.length).toBeGreaterThan(0);
    expect(first.limitations).not.toContain('alignment_time_limit_reached');
    expect(new Set(all).size).toBe(1);
  });

  it('score: every answer the same (each chunk chance too), sliced or not, one at a time or four at once', async () => {
    const request = { work_hash: workHash, target_model: model, jurisdiction: 'US' };
    const all = await answers((sliceMs) => engine.score(request, { sliceMs }), 3, 4);
    const first = JSON.parse(all[0]);
    expect(first.reused_share.flagged_chunks).toBeGreaterThan(0);
    expect(new Set(all).size).toBe(1);
  });

  it('a work budget that cuts the alignment short cuts it at the same candidate every time', async () => {
    const full = engine.search(query, { candidates: 1000 }).alignment;
    expect(full).toMatchObject({ budget_exhausted: false, time_limit_reached: false });
    expect(full.aligned).toBeGreaterThan(2);
    // a third of the characters the whole alignment takes: some candidates aligned, the rest seed matches only
    const budget = { candidates: 1000, alignBudgetChars: Math.floor(full.aligned_chars / 3) };
    const cut = await answers((sliceMs) => engine.searchAsync(query, budget, { sliceMs }), 2, 6);
    const first = JSON.parse(cut[0]);
    expect(first.alignment).toMatchObject({ budget_exhausted: true, time_limit_reached: false });
    expect(first.alignment.aligned).toBeGreaterThan(0);
    expect(first.alignment.aligned).toBeLessThan(full.aligned);
    expect(new Set(cut).size).toBe(1);
    // analyze says so among its limitations, every time
    const request = { content: query, content_type: 'text' as const };
    const analyses = await answers((sliceMs) => engine.analyze(request, { ...budget, sliceMs }), 1, 3);
    expect(JSON.parse(analyses[0]).limitations).toContain('alignment_budget_exhausted');
    expect(new Set(analyses).size).toBe(1);
  });

  it('the time limit, a safety net, is reported when it cuts: never a silently different answer', async () => {
    const request = { content: query, content_type: 'text' as const };
    const late = await engine.analyze(request, { alignBudgetMs: 0 });
    expect(late.limitations).toEqual(
      expect.arrayContaining(['alignment_budget_exhausted', 'alignment_time_limit_reached']),
    );
    expect(engine.search(query, { alignBudgetMs: 0 }).alignment).toMatchObject({
      budget_exhausted: true,
      time_limit_reached: true,
    });
    for (const bad of [-1, 1.5, Number.NaN, '1000'])
      expect(() => engine.search(query, { alignBudgetChars: bad as number })).toThrow(/alignBudgetChars/);
  });
});
