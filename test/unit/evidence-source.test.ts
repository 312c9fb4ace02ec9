/**
 * Evidence sources (src/corpus/source.ts): a kind of evidence the engine does not ship, added with one registration
 * line. The toy source below — a fixed list of passages found word for word — lives in this file only; registered,
 * it is searched by analyze, score and monitors and read by the same evidence policy as the shipped kinds.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import type { Engine } from '../../src/engine.js';
import type { EvidenceSource, SourceFindings, SourcePassage } from '../../src/corpus/source.js';
import { TrainprintError } from '../../src/errors.js';
import { ANALYSIS_RESULT_SCHEMA } from '../../src/services/analyze/schema.js';
import { book } from '../fixtures/texts/index.js';
import { passageAt } from '../reference/core.js';

// ---------------------------------------------------------------- the toy source (its whole module)

/**
 * A fixed list of passages, found where the query holds one word for word. Its null: unrelated text holds a given
 * run of w words by chance at most once in 10^(w/2) places (a deliberately rough bound for a toy), so k passages
 * found among the query's m places have chance ≤ min(1, m · Σ 10^(−w/2)).
 */
function passageList(id: string, passages: Readonly<Record<string, string>>, models: string[]): EvidenceSource {
  const wordsOf = (s: string) => s.split(/\s+/).filter(Boolean).length;
  return {
    descriptor: { id, kind: 'passage-list', name: 'Toy passages', models },
    stats: () => ({
      documents: Object.keys(passages).length,
      tokens: Object.values(passages).reduce((n, p) => n + wordsOf(p), 0),
    }),
    search(query): SourceFindings {
      const found: SourcePassage[] = [];
      for (const [document_id, text] of Object.entries(passages)) {
        const at = query.indexOf(text);
        if (at < 0) continue;
        const tokens = wordsOf(text);
        found.push({
          document_id,
          query_start: at,
          query_end: at + text.length,
          source_start: 0,
          source_end: text.length,
          tokens,
        });
      }
      const places = Math.max(1, wordsOf(query));
      const chance = Math.min(1, places * found.reduce((s, p) => s + 10 ** (-p.tokens / 2), 0));
      return {
        passages: found,
        tested: places,
        found: found.length,
        background_rate: 0,
        runs: found.length,
        chance: found.length === 0 ? 1 : chance,
      };
    },
  };
}

// ---------------------------------------------------------------- the engine with it

const MODEL = 'meta/llama-7b';
const passage = passageAt(book('blake-poems'), 4_000, 60).text;
const work = `${passageAt(book('chesterton-thursday'), 9_000, 300).text} ${passage} ${passageAt(book('chesterton-thursday'), 20_000, 300).text}`;
const unrelated = passageAt(book('milton-paradise'), 12_000, 600).text;
const validResult = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(
  ANALYSIS_RESULT_SCHEMA,
);

describe('an evidence source of the caller', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
  });

  it('is seen by monitors, analyze and score once registered with one line', async () => {
    const w = await engine.registerWork({ content: work, owner: 'alice' });
    const monitor = await engine.createMonitor({ work_id: w.work_id, models: [MODEL] });
    expect(await engine.evaluateMonitors()).toEqual([]); // nothing loaded yet: nothing found

    const stats = engine.addEvidenceSource(passageList('toy', { 'blake-60': passage }, [MODEL])); // the registration

    expect(stats).toMatchObject({
      id: 'toy',
      kind: 'source',
      documents: 1,
      tokens: 60,
      source: { kind: 'passage-list' },
    });
    expect(engine.datasets().map((d) => d.id)).toContain('toy');

    // analyze: the passage with its spans, the source's evidence by the policy, the model it declares
    const r = await engine.analyze({ content: work, content_type: 'text' });
    expect(validResult(r), JSON.stringify(validResult.errors)).toBe(true);
    const m = r.matches.find((x) => x.dataset_id === 'toy')!;
    expect(m).toMatchObject({ kind: 'source', document_id: 'blake-60', tokens: 60, reuse: 'verbatim' });
    expect(work.slice(m.query_start, m.query_end)).toBe(passage);
    const ev = r.evidence.datasets.find((d) => d.dataset_id === 'toy')!;
    expect(ev).toMatchObject({ kind: 'source', counted: true, matches: 1, checkable: 1 });
    expect(ev.chance).toBeLessThan(1e-20);
    expect(r.attribution_sources.map((s) => [s.dataset_id, s.model, s.link])).toContainEqual([
      'toy',
      MODEL,
      'declared',
    ]);
    expect(r.confidence).toBeGreaterThanOrEqual(50);
    expect(r.risk_assessment.factors).toContain('verbatim_overlap');

    // unrelated text: nothing found, nothing claimed
    const none = await engine.analyze({ content: unrelated, content_type: 'text' });
    expect(none.matches).toEqual([]);
    expect(none.confidence).toBe(0);
    expect(none.evidence.datasets.find((d) => d.dataset_id === 'toy')).toMatchObject({ counted: false, chance: 1 });

    // score: the chunk that holds the passage is flagged in the declared dataset of the model
    const s = await engine.score({ work_hash: w.work_hash, target_model: MODEL, jurisdiction: 'US' });
    expect(s.score).toBeGreaterThan(0);
    expect(s.evidence.datasets).toContainEqual(expect.objectContaining({ dataset_id: 'toy', kind: 'source' }));
    expect(s.evidence.matches).toContainEqual(expect.objectContaining({ dataset_id: 'toy', kind: 'source' }));

    // monitors: adding the source re-evaluated the monitor, which found the work's passage
    await engine.evaluateMonitors();
    const events = await engine.listEvents({ monitor_id: monitor.monitor_id });
    expect(events.map((e) => e.type)).toContain('match.found');

    expect(engine.removeDataset('toy')).toBe(true);
    expect(engine.datasets().map((d) => d.id)).not.toContain('toy');
  });

  it('is searched asynchronously only, and a source that answers nonsense is a typed error naming it', async () => {
    engine.addEvidenceSource(passageList('toy2', { p: passage }, []));
    expect(() => engine.search(work, { datasets: ['toy2'] })).toThrow(/evidence source/);
    expect((await engine.searchAsync(work, { datasets: ['toy2'] })).matches).toHaveLength(1);

    const liar: EvidenceSource = {
      descriptor: { id: 'liar', kind: 'broken' },
      stats: () => ({ documents: 0, tokens: 0 }),
      search: (q) => ({
        passages: [
          { document_id: 'x', query_start: 0, query_end: q.length + 5, source_start: 0, source_end: 1, tokens: 3 },
        ],
        tested: 1,
        found: 1,
        background_rate: 0,
        runs: 1,
        chance: 0,
      }),
    };
    engine.addEvidenceSource(liar);
    const err = await engine.analyze({ content: work, content_type: 'text' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainprintError);
    expect(err).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/evidence source "liar"/) });
    engine.removeDataset('liar');

    expect(() => engine.addEvidenceSource({ descriptor: { id: 'toy2', kind: 'x' } } as EvidenceSource)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => engine.addEvidenceSource(passageList('toy2', {}, []))).toThrow(
      expect.objectContaining({ code: 'ALREADY_EXISTS' }),
    );
    expect(() => engine.addEvidenceSource(passageList('toy3', {}, ['no/such-model']))).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
    expect(() => engine.finalizeDataset('toy2')).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
  });
});
