/**
 * A stored analysis as its work report (`renderWorkReport`) and evidence bundle take it, made one way for every door:
 * the HTTP API's `…/analyses/{id}/report` and `…/bundle`, and `trainprint analyze --report` (the engine's stored
 * record: the text the analysis read, a book's extracted once).
 */
import type { Store } from '../../store/types.js';
import { buildEvidenceBundle } from './bundle.js';
import { loadReportKey } from './sign.js';
import type { AnalysisRecordInput, EvidenceBundle } from './types.js';

/** Where a bundle's signature comes from: the engine's store (its report key) and the core variant that ran. */
export interface SigningEngine {
  readonly store: Store;
  readonly variant: 'scalar' | 'simd';
}

/**
 * A stored analysis as its report and bundle read it: an analysis stored before its text was kept with it has an empty
 * text for a result of some tokens — not at hand (null), so the page shows the source side only.
 * @example const record = reportRecord(await engine.getAnalysisRecord(id))
 */
export function reportRecord(stored: AnalysisRecordInput): AnalysisRecordInput {
  return { ...stored, text: stored.text === '' && stored.result.tokens > 0 ? null : stored.text };
}

/**
 * A stored analysis's record ({@link reportRecord}) and its evidence bundle, signed by the engine's report key.
 * @example const { record, bundle } = await signedAnalysis(await engine.getAnalysisRecord(id), engine)
 */
export async function signedAnalysis(
  stored: AnalysisRecordInput,
  engine: SigningEngine,
  now?: () => Date,
): Promise<{ record: AnalysisRecordInput; bundle: EvidenceBundle }> {
  const record = reportRecord(stored);
  const key = await loadReportKey(engine.store);
  const bundle = await buildEvidenceBundle(record, { key, variant: engine.variant, ...(now ? { now } : {}) });
  return { record, bundle };
}
