/**
 * Memorization risk: register-work (canaries), extract, probe, compare, assess, report.
 */
export { auditCatalogue, Memorization } from './memorization.js';
export { renderReport } from './report.js';
export type { ReportOptions } from './report.js';
// the public constants (VERIFY_TOKENS, MIN_RUN_TOKENS, HIT_WORDS, PROBE_*, CANARY_WORDS, MAX_CANARIES, TIER_ATTRIBUTION)
export * from './constants.js';
export { extractionTranscriptSha256 } from './digests.js';
export type { AuditWork, AuditedWork, CatalogueAuditRequest, CatalogueAuditResult } from './audit.js';
export type {
  ExtractWorkRequest,
  WorkExtractionResult,
  WorkSection,
  ExtractionCall,
  ExtractionPrices,
  SectionRecall,
} from './extract-work.js';
export { checkRecordedCall, isJournalKey, memoryExtractionJournal } from './extraction-journal.js';
export type { ExtractionJournal, RecordedCall } from './extraction-journal.js';
export { storeExtractionJournal, storeJournalPrefix } from './store-journal.js';
export type { StoreJournalScope } from './store-journal.js';
export { storeWorkExtraction, workExtractions, STORED_EXTRACTIONS_PER_TEXT } from './stored-extractions.js';
export {
  storeCatalogueAudit,
  catalogueAuditsOfText,
  catalogueAuditWorks,
  STORED_AUDITS_PER_TEXT,
} from './stored-audits.js';
export type { CatalogueAuditWorksPage } from './stored-audits.js';
export { PROMPT_VARIANTS } from './prompt-variants.js';
export type { PromptVariant } from './prompt-variants.js';
export { inOrderShare, NV_BLOCK_WORDS, MAX_GAP_WORDS } from './nv-blocks.js';
export type { NearVerbatimBlock } from './nv-blocks.js';
export { isRefusal } from './refusal.js';
export type {
  TrackWorkRequest,
  TrackedWork,
  Canary,
  ReferenceBasis,
  ReferenceSetRequest,
  ReferenceSetInfo,
  WorkInput,
  ExtractRequest,
  ExtractionAttempt,
  ExtractionResult,
  VerbatimSpan,
  ProbeReference,
  ProbeRequest,
  ProbeResult,
  ProbeStatistic,
  ProbeStatisticName,
  ProbeChunk,
  ProbeVerdict,
  CompareOutputRequest,
  CompareOutputResult,
  WorkComparison,
  NearSpan,
  TrapResult,
  AssessRequest,
  Assessment,
  EvidenceTier,
} from './types.js';
