/**
 * `trainprint/evidence` — what an answer's figures are computed with, so they can be checked: the method id and the
 * calibration that turn a dataset's evidence into a confidence, the binomial and Wilson statistics, the score's
 * chunking and bootstrap constants, the JSON Schemas of the `analyze` request and result, and an analysis's work
 * report (HTML) and signed evidence bundle — of a stored analysis with the account's extractions and catalogue audits of
 * its text (`evidenceRecord`, `signedEvidence`) — with its offline verification (docs/works.md).
 *
 * @example
 * import { CALIBRATION, wilsonInterval } from 'trainprint/evidence'
 * CALIBRATION.id // the calibration an analysis's `evidence.calibration.id` names
 * wilsonInterval(12, 40) // [low, high]: the 95 % interval of a proportion of 12 in 40
 */
export {
  EVIDENCE_METHOD,
  CALIBRATION,
  datasetConfidence,
  binomialUpperTail,
  wilsonInterval,
  CHUNK_WORDS,
  BOOTSTRAP_RESAMPLES,
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  MATCH_SCHEMA,
  REMOTE_REPORT_SCHEMA,
  SUPPLIED_BY,
  renderWorkReport,
  buildEvidenceBundle,
  reportRecord,
  signedAnalysis,
  evidenceRecord,
  signedEvidence,
  recordWithExtractions,
  verifyEvidenceBundle,
  analysisResultProblem,
  evidenceBundleProblem,
  loadReportKey,
  publicKeyOf,
  verifyEd25519,
  REPORT_KEY_RECORD,
  canonicalJson,
  transcriptDigest,
  TRAINPRINT_VERSION,
  EVIDENCE_BUNDLE_FORMAT,
  estimateShare,
  stripGeometry,
  extractionStrip,
} from '../library.js';
export type {
  ExtractionStripInput,
  Strip,
  StripBox,
  StripEdge,
  StripMark,
  StripSection,
  ShareEstimate,
  ShareSample,
  WorkReportInput,
  BundleOptions,
  SigningEngine,
  EvidenceEngine,
  BundleVerification,
  VerifyOptions,
  ReportKey,
  ReportPublicKey,
  AnalysisRecordInput,
  BundleEngine,
  BundleRemoteIndex,
  BundleSignature,
  BundleTranscript,
  EvidenceBundle,
  TranscriptCall,
  VerifyCheck,
  VerifyResult,
} from '../library.js';
