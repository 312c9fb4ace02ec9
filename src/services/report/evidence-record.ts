/**
 * The evidence record of a stored analysis — the analysis with what the account's jobs measured of the same text
 * (extractions, catalogue audits) — made one way for every door: the HTTP API's report and bundle routes and
 * `trainprint analyze --report/--bundle`. A record of files (`trainprint report --bundle`) is checked here too, so a
 * bundle signed outside the server holds only what measured the analysed text.
 */
import { TrainprintError } from '../../errors.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import type { CatalogueAuditResult } from '../memorization/audit.js';
import type { WorkExtractionResult } from '../memorization/extract-work.js';
import { catalogueAuditsOfText } from '../memorization/stored-audits.js';
import { workExtractions } from '../memorization/stored-extractions.js';
import { reportRecord, signedAnalysis, type SigningEngine } from './analysis-report.js';
import type { AnalysisRecordInput, EvidenceBundle } from './types.js';

/** What {@link evidenceRecord} reads: the engine's stored analyses and its store. */
export interface EvidenceEngine extends SigningEngine {
  getAnalysisRecord(id: string, options?: { readonly owner?: string }): Promise<AnalysisRecordInput>;
}

/**
 * A stored analysis of `owner` with the owner's extractions and catalogue audits of the same text (found by the
 * text's SHA-256, computed once and carried as `text_sha256` so the bundle does not hash the text again). An analysis
 * kept without its text has neither.
 * @throws NOT_FOUND when the owner has no such analysis
 * @example const record = await evidenceRecord(engine, analysisId, 'acme')
 */
export async function evidenceRecord(
  engine: EvidenceEngine,
  analysisId: string,
  owner?: string,
): Promise<AnalysisRecordInput> {
  const stored = reportRecord(await engine.getAnalysisRecord(analysisId, owner === undefined ? {} : { owner }));
  const textSha256 = typeof stored.text === 'string' && stored.text !== '' ? await sha256Hex(stored.text) : null;
  if (textSha256 === null) return stored;
  const account = owner ?? '';
  const [extractions, audits] = await Promise.all([
    workExtractions(engine.store, account, textSha256),
    catalogueAuditsOfText(engine.store, account, textSha256),
  ]);
  return withMeasurements({ ...stored, text_sha256: textSha256 }, extractions, audits);
}

/**
 * {@link evidenceRecord} signed as an evidence bundle by the engine's report key.
 * @example const { record, bundle } = await signedEvidence(engine, analysisId, 'acme')
 */
export async function signedEvidence(
  engine: EvidenceEngine,
  analysisId: string,
  owner?: string,
  now?: () => Date,
): Promise<{ record: AnalysisRecordInput; bundle: EvidenceBundle }> {
  return signedAnalysis(await evidenceRecord(engine, analysisId, owner), engine, now);
}

/**
 * A record with extractions read from elsewhere (`trainprint extract` results), each refused unless it measured the
 * record's text (its `text_sha256`). Audits come only from a store: an audit result lists its works by id, not by
 * their texts' digests, so only the store that kept it with its texts can say it measured this one.
 * @throws INVALID_INPUT naming the one that measured another text (or when the text is not at hand)
 * @example const record = await recordWithExtractions(reportRecord(stored), [extraction])
 */
export async function recordWithExtractions(
  record: AnalysisRecordInput,
  extractions: readonly WorkExtractionResult[],
): Promise<AnalysisRecordInput> {
  if (extractions.length === 0) return record;
  if (typeof record.text !== 'string')
    throw new TrainprintError('INVALID_INPUT', 'the analysed text is needed to bind extractions to it (--text FILE)');
  const textSha256 = record.text_sha256 ?? (await sha256Hex(record.text));
  extractions.forEach((x, i) => {
    if (x.text_sha256 !== textSha256)
      throw new TrainprintError(
        'INVALID_INPUT',
        `extraction ${i + 1} measured another text (SHA-256 ${x.text_sha256}, the analysed text's ${textSha256})`,
      );
  });
  return withMeasurements({ ...record, text_sha256: textSha256 }, extractions, []);
}

function withMeasurements(
  record: AnalysisRecordInput,
  extractions: readonly WorkExtractionResult[],
  audits: readonly CatalogueAuditResult[],
): AnalysisRecordInput {
  return {
    ...record,
    ...(extractions.length ? { model_extractions: [...(record.model_extractions ?? []), ...extractions] } : {}),
    ...(audits.length ? { catalogue_audits: [...(record.catalogue_audits ?? []), ...audits] } : {}),
  };
}
