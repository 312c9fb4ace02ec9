/**
 * The work report and the evidence bundle of an analysis: the HTML page (./render-html.ts), the signed bundle
 * (./bundle.ts) with the engine's Ed25519 report key (./sign.ts), and its offline verification (./verify.ts).
 */
export type { WorkReportInput } from './render-html.js';
export { buildEvidenceBundle } from './bundle.js';
export { reportRecord, signedAnalysis } from './analysis-report.js';
export type { SigningEngine } from './analysis-report.js';
export { evidenceRecord, recordWithExtractions, signedEvidence } from './evidence-record.js';
export type { EvidenceEngine } from './evidence-record.js';
export type { BundleOptions } from './bundle.js';
export { renderWorkReport, verifyEvidenceBundle } from './on-demand.js';
export { analysisResultProblem, evidenceBundleProblem } from './result-shape.js';
export type { BundleVerification, VerifyOptions } from './verify.js';
export { loadReportKey, publicKeyOf, verifyEd25519, REPORT_KEY_RECORD } from './sign.js';
export type { ReportKey, ReportPublicKey } from './sign.js';
export { canonicalJson } from './canonical.js';
export { transcriptDigest } from './transcripts.js';
export { TRAINPRINT_VERSION } from './version.js';
export { extractionStrip, stripGeometry } from './strip-svg.js';
export type { ExtractionStripInput, Strip, StripBox, StripEdge, StripMark, StripSection } from './strip-svg.js';
// the bundle's format id and types: all of types.ts
export * from './types.js';
