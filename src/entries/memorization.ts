/**
 * `trainprint/memorization` — the memorization operations of `engine.memorization`: register a work (with
 * canaries), extract, extractWork (how much of a whole work a model writes out), probe (a set-level membership test against reference documents), compare a model's output,
 * assess and report; their requests and results, and the constants they are measured with. The models they run
 * against are in `trainprint/models`.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { renderReport, type ProbeRequest } from 'trainprint/memorization'
 * const engine = await createEngine()
 * const { work_id } = await engine.memorization.registerWork({ work: { content: text, owner: 'acme' } })
 * const assessment = await engine.memorization.assess({ work_id, model })
 * const html = renderReport(assessment)
 */
export {
  Memorization,
  renderReport,
  VERIFY_TOKENS,
  MIN_RUN_TOKENS,
  PROBE_CHUNK_TOKENS,
  PROBE_MIN_CHUNKS,
  PROBE_MIN_REFERENCE_DOCUMENTS,
  CANARY_WORDS,
  MAX_CANARIES,
  TIER_ATTRIBUTION,
  HIT_WORDS,
  extractionTranscriptSha256,
  NV_BLOCK_WORDS,
  MAX_GAP_WORDS,
  inOrderShare,
  isRefusal,
  memoryExtractionJournal,
  storeExtractionJournal,
  storeJournalPrefix,
  storeWorkExtraction,
  workExtractions,
  STORED_EXTRACTIONS_PER_TEXT,
  checkRecordedCall,
  isJournalKey,
  PROMPT_VARIANTS,
  type ExtractionJournal,
  type StoreJournalScope,
  type RecordedCall,
  type PromptVariant,
  type ExtractWorkRequest,
  type WorkExtractionResult,
  type WorkSection,
  type ExtractionCall,
  type ExtractionPrices,
  type SectionRecall,
  type NearVerbatimBlock,
  type ReportOptions,
  type TrackWorkRequest,
  type TrackedWork,
  type Canary,
  type ReferenceBasis,
  type ReferenceSetRequest,
  type ReferenceSetInfo,
  type WorkInput,
  type ExtractRequest,
  type ExtractionAttempt,
  type ExtractionResult,
  type VerbatimSpan,
  type ProbeReference,
  type ProbeRequest,
  type ProbeResult,
  type ProbeStatistic,
  type ProbeStatisticName,
  type ProbeChunk,
  type ProbeVerdict,
  type CompareOutputRequest,
  type CompareOutputResult,
  type WorkComparison,
  type NearSpan,
  type TrapResult,
  type AssessRequest,
  type Assessment,
  type EvidenceTier,
} from '../library.js';
