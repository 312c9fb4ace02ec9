/**
 * The whole library, in one module: every name of the layers below the outer ring that a user or the outer ring
 * may use. Internal — not a package export. The public entries re-export their parts of it (`src/index.ts`, the
 * main entry `trainprint`; `src/entries/<name>.ts`, the sub-entries `trainprint/<name>`), and the outer ring
 * (src/http, src/node, src/cli, src/cli.ts, src/starter, src/client) imports it, as the dependency rules ask
 * (.dependency-cruiser.cjs, docs/architecture.md).
 *
 * Why one module: tsup builds it as the one self-contained bundle (dist/library.js, dist/library.cjs) that every
 * entry imports, so each class (Engine, KnowledgeBase, TrainprintError, …) exists once in a process and
 * `instanceof` holds whichever entry a value came from; the entries themselves are files of re-exports.
 *
 * @example
 * // inside the package only (an outer-ring module); users import 'trainprint' or 'trainprint/<name>'
 * import { createEngine, KeyStore } from '../library.js'
 */

// Engine
export { Engine } from './engine.js';
export { createDatasetFingerprinter, createEngine } from './create-engine.js';
export type { EngineOptions } from './engine-options.js';
export { Corpus } from './corpus/corpus.js';
export type { CorpusOptions, FingerprintedDocuments } from './corpus/corpus.js';
export { DatasetFingerprinter } from './corpus/dataset-fingerprints.js';
export { SnapshotStream } from './datasets/snapshot-stream.js';
export type { SnapshotPatch, SnapshotStreamOptions } from './datasets/snapshot-stream.js';
export type { DatasetFingerprinterOptions, FingerprintBatch } from './corpus/dataset-fingerprints.js';
export type {
  SearchOptions,
  SearchResult,
  DatasetCoverage,
  PortraitMembership,
  DescriptorLinks,
  DetailedSearch,
  DatasetSearchDetail,
  SliceOptions,
  PrepareOptions,
  DatasetSupplier,
  DatasetProvenance,
  DatasetImportOptions,
  DatasetLoadOptions,
} from './corpus/types.js';
export {
  MAX_THREADS,
  OFFLOAD_MIN_UNITS,
  resultReceived,
  resultToSend,
  worthOffloading,
  workToRun,
} from './corpus/work.js';
export type { Offload, PureWork, WorkResult } from './corpus/work.js';
export type {
  DatasetDescriptor,
  DatasetDocument,
  DatasetStats,
  SearchMatch,
  ExactMatch,
  PortraitMatch,
  PortraitArticle,
  PortraitHit,
  NearMatch,
  RemoteMatch,
  SourceMatch,
} from './datasets/types.js';
// the null a portrait's runs are read against (engine.measureBackground)
export { DEFAULT_PORTRAIT_BACKGROUND } from './datasets/background.js';
export type { PortraitBackground } from './datasets/background.js';
export type { ChainNull } from './datasets/chain-null.js';
// remote corpora: the types and the public endpoints only; their code loads when a remote dataset is added
export { PUBLIC_ENDPOINTS } from './corpus/remote-types.js';
export type {
  RemoteDatasetConfig,
  RemoteCorpusReport,
  RemoteOutcome,
  RemoteHealth,
  RemoteEngineKind,
  RemoteSearch,
  RemoteSearchable,
  RemoteSearchOptions,
  TransportOptions,
} from './corpus/remote-types.js';
export {
  REMOTE_INDEXES,
  DEFAULT_REMOTE_INDEXES,
  remoteIndex,
  publicRemoteCorpora,
} from './services/kb/remote-indexes.js';
export type { RemoteIndex, PublicRemoteCorporaOptions } from './services/kb/remote-indexes.js';
export type {
  ExactStorage,
  StoredDatasetInfo,
  StoredBatch,
  StoredDocument,
  StoredLookup,
  StoredPostings,
  StoredDocumentsRequest,
  StoredDocuments,
  FetchedDocument,
} from './datasets/stored.js';

// Fingerprints, compare, sketches and errors: everything `trainprint/fingerprint` exports (its `createEngine`, the
// fingerprint-only engine, is shadowed by the full one above; it stays available as `createFingerprintEngine`)
export * from './fingerprint-entry.js';

// Analysis: its request, options, progress and result (types), then its constants and helpers
export type * from './services/analyze/types.js';
export type { AnalysisRetention } from './services/analyze/retention.js';
export type { StoredAnalysis } from './services/analyze/service.js';
export { estimateShare, type ShareEstimate, type ShareSample } from './corpus/share.js';
export { ANALYZE_MAX_BYTES, EVIDENCE_METHOD } from './services/analyze/analyze.js';
export { ANALYZE_MAX_FILE_BYTES } from './services/analyze/files.js';
export {
  contentTypeOfFile,
  untypedFileReason,
  FILE_CONTENT_TYPES,
  TEXT_FILE_TYPES,
  type FileContentType,
} from './services/analyze/file-types.js';
export { CALIBRATION, datasetConfidence } from './services/analyze/calibration.js';
// the work report and the signed evidence bundle of an analysis, and the bundle's offline verification
export * from './services/report/index.js';
export {
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  MATCH_SCHEMA,
  REMOTE_REPORT_SCHEMA,
  SUPPLIED_BY,
} from './services/analyze/schema.js';
export { extractText, CONTENT_TYPES } from './text/index.js';
// files (EPUB, PDF, DOCX): their text, sections and pages; the readers load on demand
export { extractDocument } from './services/analyze/files.js';
export type { DocumentOffload } from './services/analyze/files.js';
export * from './formats/types.js';
// evidence sources of the caller's (engine.addEvidenceSource)
export type { EvidenceSource, EvidenceSourceDescriptor, SourceFindings, SourcePassage } from './corpus/source.js';
export type { ContentType, ExtractedParts, ExtractedText } from './text/index.js';

// Registry, score, monitors, store
export type { RegisterOptions, RegisterWorkRequest, RegisterWorkResult, Work } from './services/registry/works.js';
export type { Receipt } from './services/registry/receipts.js';
// the score's request, options and result (and its tier), as types
export type * from './services/score/types.js';
export { CHUNK_WORDS, BOOTSTRAP_RESAMPLES } from './services/score/score.js';
// the tier's reason codes, listed once for the OpenAPI document (the outer ring's, not a public name)
export { TIER_REASON_CODES } from './services/score/tier.js';
// scan: items against the exact datasets (engine.scan)
export type {
  ScanHit,
  ScanItem,
  ScanOptions,
  ScanProgress,
  ScanReuse,
  ScanSummary,
} from './services/scan/index.js';
// the hit line's fields in order: the scan queue's table holds them (the outer ring's, not a public name)
export { SCAN_HIT_FIELDS } from './services/scan/index.js';
// for the outer ring only: a scan's minWords when none is given (the file scan's and the scan queue's), and the
// contract of a scan's options (the file scan reads its options through it before it loads anything)
export { DEFAULT_MIN_WORDS, SCAN_OPTIONS_REQUEST } from './services/scan/schema.js';
// the accounts service: keys, OAuth clients and tokens, plans, usage, idempotency, back-off, availability
export * from './services/accounts/index.js';
export * from './services/jobs/index.js';
export { migrateStore } from './services/migrations/index.js';
export type { MigrationReport } from './services/migrations/index.js';
export { sha256Hex } from './fingerprint/sha256.js';
export * from './services/monitors/index.js';
export * from './services/market/index.js';
export * from './services/memorization/index.js';
export * from './models/index.js';
export { MemoryStore } from './store/memory.js';
// the store's key scan options (trainprint/datasets names them ScanOptions too; the main entry's ScanOptions are
// engine.scan's)
export type { Store, Transaction, BatchOp, ScanOptions as StoreScanOptions } from './store/types.js';
export { binomialUpperTail, wilsonInterval } from './stats/binomial.js';

// Knowledge base
export { KnowledgeBase, knowledgeBase } from './services/kb/index.js';
export type { KnowledgeBaseSource, EntryMapping } from './services/kb/index.js';
export type {
  KbDataset,
  KbModel,
  KbModelDataset,
  KbModelFact,
  KbProvider,
  ModelLink,
  Disclosure,
  Modality,
} from './services/kb/types.js';
export { FACTORS, factorInfo, factorTable } from './services/kb/factors.js';
export type { FactorCode, FactorInfo, FactorCategory } from './services/kb/factors.js';
export { resolveJurisdiction, jurisdictionTable, EU_MEMBERS, SUBDIVISIONS } from './services/kb/jurisdictions.js';
export type { Jurisdiction, JurisdictionFacts } from './services/kb/jurisdictions.js';
export { DEALS } from './services/kb/deals.js';
export type { LicensingDeal, DealKind, DealSource } from './services/kb/deals.js';

// Reference packs (portrait datasets of real public text with their provenance)
export * from './packs/index.js';
export {
  isInternalHost,
  isInternalAddress,
  defaultModelHosts,
  egressFetch,
  refusedResolution,
} from './net/egress.js';
export type { HostResolver, ResolvedHost } from './net/egress.js';

// for the outer ring only (no entry exports it): an option that is a positive integer, checked one way everywhere; whether
// a string holds no lone surrogate (a JSON body's strings)
export { isWellFormed, positiveInt } from './util/validate.js';
// for the outer ring only: a wait that an abort ends
export { sleep } from './util/timers.js';
// for the outer ring only: the chunks of a body or a file in one array
export { concatBytes } from './util/bytes.js';
// for the outer ring only: the id a dataset file declares, read before the file is loaded under it
export { declaredDatasetId } from './datasets/snapshot.js';
// for the outer ring only: a request body its full validator accepted, so the operation does not check it again (one
// module instance with the operations' check, which is why the HTTP adapter takes it from here)
export {
  SCHEMA_WORDS,
  exactlyOne,
  markSchemaChecked,
  oneOfRefusal,
  schemaRefusal,
  type SchemaNode,
  readThrough,
  type RequestContract,
  within,
} from './util/schema-check.js';
// for the outer ring only: each operation's request contract, which the routes read their requests through
export { REQUESTS } from './services/requests.js';
export { MARKET_REQUESTS } from './services/market/schema.js';
// for the outer ring only: whether a fetch error is a failed connection (the server's model fetch wraps it as one type)
export { connectionFailed } from './models/openai.js';
// for the outer ring only: the JSON Schema fragments the services' request schemas share with the HTTP API's
export {
  declarations,
  idPattern,
  int0,
  intIn,
  jurisdiction,
  modelId,
  object,
  pageLimit,
  partialObject,
  prefixedId,
  workHash,
  workId,
  workType,
  DATASET_REF_PATTERN,
} from './util/json-schema.js';
export { DATASET_ID_PATTERN, SERVED_DOCUMENTS } from './datasets/descriptor.js';
export { SCORE_REQUEST_SCHEMA } from './services/score/schema.js';
export { MODEL_SPEC_SCHEMA, REFERENCE_SET_ID } from './services/memorization/schemas.js';
export { MEMORIZATION_LIMITS, SERVER_CAPS } from './services/memorization/limits.js';
export type { IntLimit } from './services/memorization/limits.js';
// for the on-demand files built on the library only (dist/memorization-work.js, market-work.js): the modules they share
// with it (tsup.config.ts)
export { ON_DEMAND_SHARED } from './on-demand-shared.js';
