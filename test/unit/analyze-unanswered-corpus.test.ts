/**
 * An analysis beside a remote corpus that is down: a local dataset was searched, the corpus was asked and did not
 * answer. Where the knowledge base (or the corpus's configuration) links the corpus to a model, a source could have
 * been named through it, so the interval's upper end is what that source could have reached, not a confident 0; a
 * corpus linked to no model adds nothing. The bundle's recomputation holds results to that rule, takes the forms of
 * results made before it, and refuses an upper end changed by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type RemoteDatasetConfig } from '../../src/index.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { knowledgeBase } from '../../src/services/kb/kb.js';
import { rederive } from '../../src/services/report/rederive.js';
import { resetEndpoints, sharedCache } from '../../src/remote/index.js';
import { passageAt } from '../reference/core.js';
import { closedPort } from '../fixtures/closed-port.js';
import { book } from '../fixtures/texts/index.js';

const CLEAN = passageAt(book('shakespeare-caesar'), 20_000, 400).text;
const COPIED = passageAt(book('austen-persuasion'), 120_000, 160).text;

const confidenceCheck = (r: AnalysisResult, text: string) =>
  rederive(r, text).checks.find((c) => c.name === 'confidence');
const withCi = (r: AnalysisResult, ci: [number, number]): AnalysisResult => ({ ...r, confidence_ci_95: ci });
/** The result as a version before the rule made it: no list of the corpora that did not answer. */
const madeBefore = (r: AnalysisResult, ci: [number, number]): AnalysisResult => {
  const { unanswered_corpora: _, ...evidence } = r.evidence;
  return { ...r, evidence, confidence_ci_95: ci };
};

let endpoint: string;
const engines: Engine[] = [];
/** An engine with a local Gutenberg sample (linked through the knowledge base) and one remote corpus that is down. */
async function engineBeside(remote: Omit<RemoteDatasetConfig, 'endpoint' | 'kind'>): Promise<Engine> {
  const engine = await createEngine({ remoteCorpora: [{ kind: 'infini-gram', endpoint, maxRetries: 0, ...remote }] });
  await engine.addDataset({ id: 'pg-sample', kb_dataset: 'project-gutenberg' }, [
    { id: 'austen-persuasion', text: book('austen-persuasion') },
  ]);
  engines.push(engine);
  return engine;
}

beforeAll(async () => {
  sharedCache.clear();
  resetEndpoints();
  endpoint = `http://127.0.0.1:${await closedPort()}/`;
});
afterAll(() => {
  for (const e of engines) e.dispose();
});

describe('a linked remote corpus that did not answer', () => {
  let pile: Engine;
  beforeAll(async () => {
    // a public index: the knowledge base's table gives its dataset, The Pile
    pile = await engineBeside({ id: 'pile', index: 'v4_piletrain_llama' });
  });

  it('no source: the interval reaches what its most certain model link allows, not a confident [0, 0]', async () => {
    const r = await pile.analyze({ content: CLEAN, content_type: 'text' });
    expect(r.remote_corpora.map((c) => c.outcome)).toEqual(['unreachable']);
    expect(r.evidence.datasets.map((d) => d.dataset_id)).toEqual(['pg-sample']);
    expect(r.attribution_sources).toEqual([]);
    // a fully disclosed model naming The Pile links at 0.95; full evidence reads ≈ 1 at the 0.5 prior: 95
    const [u] = r.evidence.unanswered_corpora ?? [];
    expect(u).toMatchObject({ dataset_id: 'pile', link_certainty: 0.95 });
    const linked = knowledgeBase().modelsTrainedOn('the-pile');
    expect(linked.find((l) => l.model.id === u.model)?.certainty).toBe(0.95);
    expect([r.confidence, r.confidence_ci_95]).toEqual([0, [0, 95]]);
    expect(r.limitations).toContain('remote_corpus_unreachable');
    expect(r.corpus_evidence.summary).toMatch(/^No corpus evidence: nothing a person could check/);
    expect(r.corpus_evidence.summary).toContain(
      `The upper end of confidence_ci_95 comes from a linked corpus that did not answer: "pile" (${u.model} trained on it).`,
    );

    expect(rederive(r, CLEAN).checks.filter((c) => !c.ok)).toEqual([]);
    // an upper end changed by hand, the confident [0, 0] or "unknown" [0, 100] does not verify
    for (const ci of [
      [0, 90],
      [0, 0],
      [0, 100],
    ] as [number, number][])
      expect(confidenceCheck(withCi(r, ci), CLEAN)?.ok).toBe(false);
    // nor a list that leaves the corpus out
    const unlisted = { ...r, evidence: { ...r.evidence, unanswered_corpora: [] } };
    expect(confidenceCheck(unlisted, CLEAN)?.detail).toMatch(/unanswered_corpora: the result lists \[\], its remote/);
    // a result made before the rule said [0, 0]: taken
    expect(confidenceCheck(madeBefore(r, [0, 0]), CLEAN)?.ok).toBe(true);
    expect(confidenceCheck(madeBefore(r, [0, 95]), CLEAN)?.ok).toBe(false);
  });

  it("with a top source: the source's lower end, the upper end raised to a declared model's link (1)", async () => {
    const declared = await engineBeside({ id: 'mine', index: 'x', models: ['eleutherai/pythia-6.9b'] });
    const r = await declared.analyze({ content: COPIED, content_type: 'text' });
    const [top] = r.attribution_sources;
    expect(top.dataset_id).toBe('pg-sample');
    expect(top.confidence_ci_95[1]).toBeLessThan(100);
    expect(r.evidence.unanswered_corpora).toEqual([
      { dataset_id: 'mine', model: 'eleutherai/pythia-6.9b', link_certainty: 1 },
    ]);
    expect(r.confidence).toBe(top.confidence);
    expect(r.confidence_ci_95).toEqual([top.confidence_ci_95[0], 100]);
    // the headline names the evidence found, so it claims no absence
    expect(r.corpus_evidence.summary).not.toContain('upper end');
    expect(rederive(r, COPIED).checks.filter((c) => !c.ok)).toEqual([]);
    expect(confidenceCheck(withCi(r, [...top.confidence_ci_95]), COPIED)?.ok).toBe(false);
    // made before: the source's interval
    expect(confidenceCheck(madeBefore(r, [...top.confidence_ci_95]), COPIED)?.ok).toBe(true);
  });
});

describe('a remote corpus linked to no model that did not answer', () => {
  it('can name no source: [0, 0] stays, listed with no model', async () => {
    const plain = await engineBeside({ id: 'plain', index: 'x' });
    const r = await plain.analyze({ content: CLEAN, content_type: 'text' });
    expect(r.remote_corpora.map((c) => c.outcome)).toEqual(['unreachable']);
    expect(r.evidence.unanswered_corpora).toEqual([{ dataset_id: 'plain', model: null, link_certainty: 0 }]);
    expect([r.confidence, r.confidence_ci_95]).toEqual([0, [0, 0]]);
    expect(r.corpus_evidence.summary).not.toContain('upper end');
    expect(rederive(r, CLEAN).checks.filter((c) => !c.ok)).toEqual([]);
    expect(confidenceCheck(withCi(r, [0, 95]), CLEAN)?.ok).toBe(false);
  });
});
