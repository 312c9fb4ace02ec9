/**
 * The honest headline of analyze: overwhelming corpus evidence in a dataset no model is linked to says so at the
 * top level (`corpus_evidence`, factor `corpus_evidence_without_model_link`) instead of a bare confidence 0, and
 * text that many documents share (licence disclaimers) counts once in `potential_matches`.
 */
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { SHARED_MIN_DOCUMENTS, sharedText } from '../../src/services/analyze/shared-text.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import { book } from '../fixtures/texts/index.js';

const licences = createRequire(import.meta.url)('spdx-license-list/spdx-full.json') as Record<
  string,
  { licenseText: string }
>;
let engine: Engine;
const NO_EVIDENCE =
  'No corpus evidence: nothing a person could check was found beyond chance (scattered common phrases, which any text shares with a large corpus, are not evidence).';

beforeAll(async () => {
  engine = await createEngine();
  await loadStarterDataset(engine); // SPDX licence texts: no model is documented to have trained on them
});

describe('analyze headline', () => {
  it('the MIT licence: overwhelming evidence, no model link, said at the top level; one source, not hundreds', async () => {
    const r = await engine.analyze({ content: licences.MIT.licenseText, content_type: 'text' });
    expect(r.confidence).toBe(0);
    expect(r.corpus_evidence.strongest).toMatchObject({ dataset_id: 'spdx-licenses', kind: 'exact' });
    expect(r.corpus_evidence.strongest!.strength).toBeGreaterThan(6);
    expect(r.corpus_evidence.linked_to_models).toBe(false);
    expect(r.corpus_evidence.summary).toMatch(/no model is documented or declared/);
    expect(r.limitations).toContain('corpus_evidence_without_model_link');
    // many licences share the disclaimer: those matches are shared text, counted once per passage
    const docs = new Set(r.matches.map((m) => m.document_id)).size;
    expect(docs).toBeGreaterThan(20);
    expect(r.potential_matches).toBeLessThan(docs);
    expect(r.potential_matches).toBeLessThanOrEqual(5);
    expect(r.risk_assessment.factors).toContain('shared_text');
    const mit = r.matches.find((m) => m.document_id === 'MIT' && m.kind === 'exact');
    expect(mit?.shared_documents).toBeGreaterThanOrEqual(1);
  });

  it('text outside every dataset: no evidence, no shared text, no headline limitation', async () => {
    const r = await engine.analyze({ content: book('austen-persuasion').slice(20_000, 22_000), content_type: 'text' });
    expect(r.corpus_evidence).toEqual({
      strongest: null,
      linked_to_models: false,
      // an absence of evidence says what was looked at
      summary: `${NO_EVIDENCE} Searched: 1 local dataset (samples of training corpora) only; no web-scale corpus was searched (remote corpora are off).`,
    });
    expect(r.potential_matches).toBe(0);
    expect(r.limitations).not.toContain('corpus_evidence_without_model_link');
  });

  it('scattered hits without a match are no evidence line (the reference packs, a text they do not hold)', async () => {
    const packed = await createEngine({ packs: 'default' });
    const r = await packed.analyze({
      content:
        'The committee met on Tuesday to discuss the budget for the new library, and after a long debate it was ' +
        'agreed that the roof would be repaired before the winter came and the books moved to the east wing.',
      content_type: 'text',
    });
    expect(r.matches).toEqual([]);
    // some common n-grams are in the packs' filters: counted, but said to be nothing beyond chance
    expect(r.evidence.datasets.some((d) => d.found > 0)).toBe(true);
    expect(r.corpus_evidence).toEqual({
      strongest: null,
      linked_to_models: false,
      summary: `${NO_EVIDENCE} Searched: 14 local datasets (samples of training corpora) only; no web-scale corpus was searched (remote corpora are off).`,
    });
    expect(r.limitations).toContain('scattered_common_phrases');
    expect(r.confidence).toBe(0);
    packed.dispose();
  });

  it('linked evidence says so', async () => {
    const e = await createEngine();
    const persuasion = book('austen-persuasion');
    await e.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, [{ id: 'persuasion', text: persuasion }]);
    const r = await e.analyze({ content: persuasion.slice(100_000, 101_500), content_type: 'text' });
    expect(r.corpus_evidence.linked_to_models).toBe(true);
    expect(r.confidence).toBeGreaterThan(50);
    expect(r.limitations).not.toContain('corpus_evidence_without_model_link');
    expect(r.potential_matches).toBe(1);
  });

  it('sharedText counts a passage matched by many documents once, and a document with its own match once', () => {
    const m = (doc: string, s: number, e: number) => ({
      dataset_id: 'd',
      document_id: doc,
      query_start: s,
      query_end: e,
      source_start: 0,
      source_end: e - s,
      kind: 'exact' as const,
      tokens: 10,
      score: 1,
      reuse: 'verbatim' as const,
      similarity: 1,
      aligned: false,
    });
    const docs = Array.from({ length: SHARED_MIN_DOCUMENTS + 2 }, (_, i) => m(`doc${i}`, 100, 200)); // a shared disclaimer
    const own = m('original', 0, 200); // one document matches far more than the disclaimer
    const r = sharedText([own, ...docs], 300);
    expect(r.shared).toEqual([false, ...docs.map(() => true)]);
    expect(r.shared_documents[1]).toBe(SHARED_MIN_DOCUMENTS + 3);
    expect(r.distinct_sources).toBe(2); // 'original' + the one shared passage
    const few = sharedText(docs.slice(0, SHARED_MIN_DOCUMENTS - 1), 300);
    expect(few.shared.every((x) => !x)).toBe(true);
    expect(few.distinct_sources).toBe(SHARED_MIN_DOCUMENTS - 1);
  });
});
