/**
 * `trainprint/datasets` — datasets and where they are kept: the corpus the engine searches and the details of its
 * search, snapshot streams, datasets kept in a database (the `ExactStorage` contract), remote corpora, the work an
 * index build hands to threads, the `Store` contract with its in-memory store and the store's migrations. The
 * names the engine's own dataset methods take and return are in the main entry too.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { MemoryStore, migrateStore } from 'trainprint/datasets'
 * const store = new MemoryStore()
 * const report = await migrateStore(store) // brings an older store's records up to date
 * const engine = await createEngine({ store })
 */
export {
  Corpus,
  createDatasetFingerprinter,
  DatasetFingerprinter,
  SnapshotStream,
  DEFAULT_PORTRAIT_BACKGROUND,
  OFFLOAD_MIN_UNITS,
  worthOffloading,
  PUBLIC_ENDPOINTS,
  MemoryStore,
  migrateStore,
  type CorpusOptions,
  type FingerprintedDocuments,
  type DatasetFingerprinterOptions,
  type FingerprintBatch,
  type SnapshotPatch,
  type SnapshotStreamOptions,
  // what the corpus's search and loading take and return
  type SearchOptions,
  type SearchResult,
  type DatasetCoverage,
  type PortraitMembership,
  type DescriptorLinks,
  type DetailedSearch,
  type DatasetSearchDetail,
  type SliceOptions,
  type PrepareOptions,
  type DatasetSupplier,
  type DatasetProvenance,
  type DatasetImportOptions,
  type DatasetLoadOptions,
  type DatasetDescriptor,
  type DatasetDocument,
  type DatasetStats,
  type SearchMatch,
  type ExactMatch,
  type PortraitMatch,
  type PortraitArticle,
  type PortraitHit,
  type NearMatch,
  type RemoteMatch,
  type SourceMatch,
  type PortraitBackground,
  type ChainNull,
  // evidence sources of the caller's (engine.addEvidenceSource)
  type EvidenceSource,
  type EvidenceSourceDescriptor,
  type SourceFindings,
  type SourcePassage,
  // the work an index build hands to threads
  type Offload,
  type PureWork,
  type WorkResult,
  // remote corpora (their code loads when a remote dataset is added)
  type RemoteDatasetConfig,
  type RemoteCorpusReport,
  type RemoteOutcome,
  type RemoteHealth,
  type RemoteEngineKind,
  type RemoteSearch,
  type RemoteSearchable,
  type RemoteSearchOptions,
  type TransportOptions,
  // exact datasets kept in a database
  type ExactStorage,
  type StoredDatasetInfo,
  type StoredBatch,
  type StoredDocument,
  type StoredLookup,
  type StoredPostings,
  type StoredDocumentsRequest,
  type StoredDocuments,
  type FetchedDocument,
  // the store of the registry, analyses, monitors, accounts and the marketplace
  type Store,
  type Transaction,
  type BatchOp,
  // engine.scan's items, options, hits, progress and summary
  type ScanHit,
  type ScanItem,
  type ScanOptions as EngineScanOptions,
  type ScanProgress,
  type ScanReuse,
  type ScanSummary,
  type StoreScanOptions,
  type StoreScanOptions as ScanOptions,
  type MigrationReport,
} from '../library.js';
