/**
 * An analysis that searched nothing (no dataset loaded, no remote corpus that answered) knows nothing either way: its
 * headline claims no absence and its interval without a source is [0, 100], as a score's is where its model's
 * datasets were not searched; one that searched and found nothing reads [0, 0]. The bundle's recomputation holds each
 * to its rule (a result of the older rule, [0, 0] where nothing was searched, is taken too).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { rederive } from '../../src/services/report/rederive.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import { book } from '../fixtures/texts/index.js';

const TEXT = book('austen-persuasion').slice(20_000, 22_000);
const confidenceCheck = (r: AnalysisResult) => rederive(r, TEXT).checks.find((c) => c.name === 'confidence');

let bare: Engine;
let searched: Engine;
beforeAll(async () => {
  bare = await createEngine();
  searched = await createEngine();
  await loadStarterDataset(searched);
});

describe('an analysis that searched nothing', () => {
  it('reads confidence 0 with the interval [0, 100] and says nothing was searched', async () => {
    const r = await bare.analyze({ content: TEXT, content_type: 'text' });
    expect(r.attribution_sources).toEqual([]);
    expect([r.confidence, r.confidence_ci_95]).toEqual([0, [0, 100]]);
    expect(r.corpus_evidence.summary).toMatch(/^No corpus was searched, so this says nothing either way/);
    expect(r.limitations).toContain('no_datasets_loaded');
    expect(rederive(r, TEXT).checks.filter((c) => !c.ok)).toEqual([]);
    // the older rule's [0, 0] is taken there; any other interval is not
    expect(confidenceCheck({ ...r, confidence_ci_95: [0, 0] })?.ok).toBe(true);
    expect(confidenceCheck({ ...r, confidence_ci_95: [0, 50] })?.ok).toBe(false);
  });

  it('one that searched and found nothing reads [0, 0], and [0, 100] there does not verify', async () => {
    const r = await searched.analyze({ content: TEXT, content_type: 'text' });
    expect(r.attribution_sources).toEqual([]);
    expect(r.evidence.datasets.length).toBeGreaterThan(0);
    expect([r.confidence, r.confidence_ci_95]).toEqual([0, [0, 0]]);
    expect(r.corpus_evidence.summary).toMatch(/^No corpus evidence: nothing a person could check/);
    expect(confidenceCheck(r)?.ok).toBe(true);
    expect(confidenceCheck({ ...r, confidence_ci_95: [0, 100] })?.ok).toBe(false);
  });
});
