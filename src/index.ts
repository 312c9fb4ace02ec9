/**
 * trainprint — training-data attribution engine with a WebAssembly fingerprint core.
 *
 * The main entry: the engine, its errors, the requests and results of its methods, and the few helpers its users
 * call. The rest of the library is in sub-entries by concern — `trainprint/datasets`, `trainprint/text`,
 * `trainprint/kb`, `trainprint/evidence`, `trainprint/accounts`, `trainprint/jobs`, `trainprint/models`,
 * `trainprint/memorization`, `trainprint/market`, `trainprint/monitors`, `trainprint/packs` — which re-export the same bundle (dist/library.js),
 * so a class is one class whichever entry it is imported from.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * const engine = await createEngine()
 * const a = await engine.fingerprint(textA)
 * const b = await engine.fingerprint(textB)
 * engine.similarity(a, b) // { jaccard, containment_a, containment_b, minhash_jaccard, simhash_distance }
 */

// The engine and its factories
export {
  Engine,
  createEngine,
  createDatasetFingerprinter,
  DatasetFingerprinter,
  FingerprintEngine,
  createFingerprintEngine,
  CORE_BUILDS,
  type EngineOptions,
  type FingerprintEngineOptions,
  type DatasetFingerprinterOptions,
  type FingerprintBatch,
  type CoreVariant,
  type SimdChoice,
  type AnalysisRetention,
} from './library.js';

// Errors: one table of codes, each with its message and HTTP status
export { TrainprintError, isTrainprintError, MESSAGES, HTTP_STATUS, type ErrorCode } from './library.js';

// Fingerprints, sketches, similarity and compare (the fingerprint engine's methods)
export {
  sha256Hex,
  shingleCount,
  paramsId,
  resolveOptions,
  HASH_ID,
  jaccardEstimate,
  hammingDistance,
  MembershipFilter,
  PASSAGE_KINDS,
  type Fingerprint,
  type ShingleSet,
  type WinnowSet,
  type Similarity,
  type FingerprintOptions,
  type ResolvedOptions,
  type MinhashOptions,
  type MinhashMode,
  type MembershipFilterOptions,
  type CompareOptions,
  type Comparison,
  type CompareLimitation,
  type AlignedSpan,
  type ComparedSpan,
  type PassageKind,
} from './library.js';

// Datasets: what the engine's dataset methods take and return (the rest: trainprint/datasets)
export {
  SnapshotStream,
  type DatasetDescriptor,
  type DatasetDocument,
  type DatasetStats,
  type DatasetProvenance,
  type DatasetLoadOptions,
  type DatasetImportOptions,
  type FingerprintedDocuments,
  type SearchOptions,
  type SearchResult,
  type SliceOptions,
  type SearchMatch,
  type ExactMatch,
  type PortraitMatch,
  type PortraitHit,
  type NearMatch,
  type RemoteMatch,
  type SourceMatch,
  type EvidenceSource,
  type SourceFindings,
  type SnapshotStreamOptions,
  type PortraitBackground,
  type RemoteDatasetConfig,
  type ExactStorage,
} from './library.js';

// Analysis
export {
  ANALYZE_MAX_BYTES,
  ANALYZE_MAX_FILE_BYTES,
  type AnalyzeRequest,
  type AnalysisExtraction,
  type AnalyzeOptions,
  type AnalysisResult,
  type AnalyzeProgress,
  type StoredAnalysis,
  type AttributionSource,
  type DatasetEvidence,
  type RevenueBasis,
  type RiskLevel,
  type WorkType,
  type Declarations,
  type ContentType,
} from './library.js';

// Registry and score
export type {
  RegisterOptions,
  RegisterWorkRequest,
  RegisterWorkResult,
  Work,
  Receipt,
  ScoreOptions,
  ScoreRequest,
  ScoreResult,
  Tier,
  TierReason,
  TierReasonCode,
  ChunkEvidence,
  ScoreDatasetEvidence,
} from './library.js';

// Scan: a stream of items against the exact datasets (engine.scan; its options and summary: trainprint/datasets)
export type { ScanHit } from './library.js';

// Monitors and their webhooks (what a receiver checks a delivery with)
export {
  WebhookDeliverer,
  verifySignature,
  SIGNATURE_HEADER,
  EVENT_HEADER,
  DELIVERY_HEADER,
  type WebhookEvent,
  type CreateMonitorRequest,
  type Monitor,
  type MonitorEvent,
  type MonitorEventType,
  type MonitorModelState,
} from './library.js';

// What the engine's marketplace, memorization and knowledge-base methods return (the rest: trainprint/market,
// trainprint/memorization, trainprint/kb)
export {
  Marketplace,
  Memorization,
  factorInfo,
  factorTable,
  type KbModel,
  type KbProvider,
  type KbDataset,
  type FactorCode,
  type FactorInfo,
} from './library.js';

// The store the engine keeps its records in (the contract's details: trainprint/datasets)
export { MemoryStore, type Store } from './library.js';

// Helpers most programs call: a model to probe (trainprint/models has the others), the default reference packs
// in a browser (trainprint/packs has the rest)
export { createOpenAICompatibleModel, type TargetModel, loadDefaultPacksFromUrl } from './library.js';
