/**
 * trainprint — training-data attribution engine with a WebAssembly fingerprint core.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * const engine = await createEngine()
 * const a = await engine.fingerprint(textA)
 * const b = await engine.fingerprint(textB)
 * engine.similarity(a, b) // { jaccard, containment_a, containment_b, minhash_jaccard, simhash_distance }
 */

// Engine
export { createEngine, Engine } from './engine/engine.js';
export type { EngineOptions, SearchOptions, SearchResult, DatasetCoverage, PortraitMembership } from './engine/engine.js';
export type { DatasetDescriptor, DatasetDocument, DatasetStats, SearchMatch, ExactMatch, PortraitMatch, PortraitHit, NearMatch } from './index/types.js';
export type { CoreVariant, SimdChoice } from './engine/load.js';
export { CORE_BUILDS } from './engine/load.js';

// Fingerprints
export { normalize, isAsciiOnly, NORMALIZER_ID } from './fingerprint/normalize.js';
export type { Normalized } from './fingerprint/normalize.js';
export { paramsId, resolveOptions, HASH_ID } from './fingerprint/options.js';
export type { FingerprintOptions, ResolvedOptions } from './fingerprint/options.js';
export type { Fingerprint, ShingleSet, WinnowSet, Similarity } from './types.js';
export type { CompareOptions, Comparison, AlignedSpan } from './align/compare.js';

// Sketches
export { jaccardEstimate } from './sketch/minhash.js';
export { hammingDistance } from './sketch/simhash.js';
export { MembershipFilter } from './sketch/filter.js';
export type { MembershipFilterOptions } from './sketch/filter.js';
export type { MinhashOptions, MinhashMode } from './sketch/minhash.js';

// Analysis
export type { AnalyzeRequest, AnalyzeOptions, AnalysisResult, AttributionSource, DatasetEvidence, RevenueBasis, RiskLevel, WorkType, Declarations } from './analyze/types.js';
export { ANALYZE_MAX_BYTES } from './analyze/analyze.js';
export { CALIBRATION, datasetConfidence } from './analyze/calibration.js';
export { ANALYSIS_RESULT_SCHEMA, ANALYZE_REQUEST_SCHEMA, MATCH_SCHEMA } from './analyze/schema.js';
export { extractText, CONTENT_TYPES } from './content/index.js';
export type { ContentType, ExtractedText } from './content/index.js';

// Registry, score, monitors, store
export type { RegisterWorkRequest, RegisterWorkResult, Work } from './registry/works.js';
export type { Receipt } from './registry/receipts.js';
export type { ScoreRequest, ScoreResult, Tier, ChunkEvidence, ScoreDatasetEvidence } from './score/score.js';
export { CHUNK_WORDS, BOOTSTRAP_RESAMPLES } from './score/score.js';
export type { CreateMonitorRequest, Monitor, MonitorEvent, MonitorEventType, MonitorModelState } from './monitor/monitors.js';
export { WebhookDeliverer, signPayload, verifySignature, SIGNATURE_HEADER, EVENT_HEADER, DELIVERY_HEADER } from './monitor/webhook.js';
export type { Delivery, DeliveryAttempt, DeliveryState, WebhookDelivererOptions, WebhookEvent, WebhookSubscription } from './monitor/webhook.js';
export { Marketplace, createMarketplace, LISTING_TRANSITIONS, OFFER_TRANSITIONS, WORLDWIDE } from './market/index.js';
export type * from './market/types.js';
export * from './memorization/index.js';
export * from './models/index.js';
export { MemoryStore } from './store/memory.js';
export type { Store, Transaction, BatchOp, ScanOptions } from './store/types.js';
export { binomialUpperTail, wilsonInterval } from './stats/binomial.js';

// Knowledge base
export { KnowledgeBase, knowledgeBase } from './kb/index.js';
export type { KbDataset, KbModel, KbModelDataset, KbProvider, ModelLink, Disclosure, Modality } from './kb/types.js';
export { FACTORS, factorInfo, factorTable } from './kb/factors.js';
export type { FactorCode, FactorInfo, FactorCategory } from './kb/factors.js';
export { resolveJurisdiction, jurisdictionTable, EU_MEMBERS } from './kb/jurisdictions.js';
export type { Jurisdiction, JurisdictionFacts } from './kb/jurisdictions.js';

// Errors
export { TrainprintError, isTrainprintError, MESSAGES, HTTP_STATUS } from './errors.js';
export type { ErrorCode } from './errors.js';
