/**
 * The engine's face over its loaded datasets: a {@link FingerprintEngine} with a {@link Corpus}, whose dataset
 * operations (add, attach, copy, search, export, import, remote corpora, the pure work of analyze and compare) it
 * hands to the corpus. The {@link Engine} (engine.ts) builds the services over it; a composition root like it.
 */
import type { Core } from './core/abi.js';
import type { CoreVariant } from './core/load.js';
import { Corpus, type CorpusOptions, type FingerprintedDocuments } from './corpus/corpus.js';
import type { RemoteDatasetConfig } from './corpus/remote-types.js';
import type { EvidenceSource } from './corpus/source.js';
import type {
  DatasetDeclaration,
  DatasetImportOptions,
  DatasetLoadOptions,
  DatasetProvenance,
  DocumentSource,
  SearchOptions,
  SearchResult,
  SliceOptions,
} from './corpus/types.js';
import { runWork, type PureWork, type WorkResult } from './corpus/work.js';
import type { PortraitBackground } from './datasets/background.js';
import type { SnapshotStream, SnapshotStreamOptions } from './datasets/snapshot-stream.js';
import type { ExactStorage } from './datasets/stored.js';
import type { DatasetDescriptor, DatasetStats } from './datasets/types.js';
import { FingerprintEngine } from './fingerprint-engine.js';
import { openRemoteCorpus } from './remote-corpus.js';
import type { Store } from './store/types.js';

/**
 * A fingerprint engine with the loaded reference datasets: the dataset operations of the {@link Engine}, each handed
 * to {@link Corpus} (the details are there).
 */
export class DatasetEngine extends FingerprintEngine {
  /** The store of the registry, analyses, monitors, events, deliveries and the marketplace. */
  readonly store: Store;
  /** The loaded reference datasets (what `addDataset`, `search` … work on). */
  readonly corpus: Corpus;

  /** @internal the {@link Engine}'s constructor calls it; `corpus`: the corpus's links and change hook */
  constructor(core: Core, variant: CoreVariant, store: Store, corpus: Pick<CorpusOptions, 'links' | 'onChange'>) {
    super(core, variant);
    this.store = store;
    this.corpus = new Corpus({ core: () => this.assertLive(), variant, ...corpus });
  }

  /**
   * {@inheritDoc Corpus.addDataset}
   * @example
   * await engine.addDataset({ id: 'books' }, [{ id: 'persuasion', text }])
   * await engine.addDataset({ id: 'alice-uploads' }, docs, { supplied_by: 'account', account: 'alice' }) // alice's alone
   */
  addDataset(
    descriptor: DatasetDescriptor,
    documents: DocumentSource,
    options?: DatasetLoadOptions,
  ): Promise<DatasetStats> {
    return this.corpus.addDataset(descriptor, documents, options);
  }
  /** {@inheritDoc Corpus.provenance} @example engine.datasetProvenance('pack:gutenberg').supplied_by // 'shipped' */
  datasetProvenance(id: string): DatasetProvenance {
    return this.corpus.provenance(id);
  }
  /**
   * {@inheritDoc Corpus.addFingerprintedDocuments}
   * @example await engine.addFingerprintedDocuments({ id: 'books' }, [{ documents, fingerprints: fingerprinter.fingerprint(texts) }])
   */
  addFingerprintedDocuments(
    descriptor: DatasetDescriptor,
    batches: Iterable<FingerprintedDocuments> | AsyncIterable<FingerprintedDocuments>,
  ): Promise<DatasetStats> {
    return this.corpus.addFingerprintedDocuments(descriptor, batches);
  }
  /** {@inheritDoc Corpus.datasets} @example engine.datasets({ account: 'alice' }).map((d) => d.id) */
  datasets(options?: { readonly account?: string }): DatasetStats[] {
    return this.corpus.datasets(options);
  }
  /** {@inheritDoc Corpus.attachDataset} @example await engine.attachDataset(await openPostgresDataset({ url, id })) */
  attachDataset(storage: ExactStorage): Promise<DatasetStats> {
    return this.corpus.attachDataset(storage);
  }
  /** {@inheritDoc Corpus.copyDataset} @example await engine.copyDataset('books', 'books-pg') */
  copyDataset(from: string, to: string): Promise<DatasetStats> {
    return this.corpus.copyDataset(from, to);
  }
  /** {@inheritDoc Corpus.finalizeDataset} @example engine.finalizeDataset('books-portrait').index_bytes */
  finalizeDataset(id: string): DatasetStats {
    return this.corpus.finalizeDataset(id);
  }
  /** {@inheritDoc Corpus.attachEvidenceSource} @example engine.addEvidenceSource(quotes) // searched by analyze, score, monitors */
  addEvidenceSource(source: EvidenceSource, load?: DatasetLoadOptions): DatasetStats {
    return this.corpus.attachEvidenceSource(source, load);
  }
  /** {@inheritDoc Corpus.removeDataset} @example engine.removeDataset('books') // true */
  removeDataset(id: string): boolean {
    return this.corpus.removeDataset(id);
  }
  /** {@inheritDoc Corpus.search} @example engine.search(suspect).matches[0] */
  search(text: string | Uint8Array, options?: SearchOptions): SearchResult {
    return this.corpus.search(text, options);
  }
  /** {@inheritDoc Corpus.searchAsync} @example const { matches } = await engine.searchAsync(suspect) */
  searchAsync(text: string | Uint8Array, options?: SearchOptions, run?: SliceOptions): Promise<SearchResult> {
    return this.corpus.searchAsync(text, options, run);
  }
  /** {@inheritDoc Corpus.exportDataset} @example const bytes = engine.exportDataset('books') */
  exportDataset(id: string): Uint8Array {
    return this.corpus.exportDataset(id);
  }
  /** {@inheritDoc Corpus.exportDatasetStream} @example for (const piece of engine.exportDatasetStream('books').pieces()) write(piece) */
  exportDatasetStream(id: string, options?: SnapshotStreamOptions): SnapshotStream {
    return this.corpus.exportDatasetStream(id, options);
  }
  /** {@inheritDoc Corpus.documentText} @example engine.documentText('spdx-licenses', 'MIT')?.slice(0, 11) */
  documentText(datasetId: string, documentId: string): string | null {
    return this.corpus.documentText(datasetId, documentId);
  }
  /** {@inheritDoc Corpus.exportContentIndex} @example await writeFile('books.tpci', await engine.exportContentIndex('books')) */
  exportContentIndex(id: string): Promise<Uint8Array> {
    return this.corpus.exportContentIndex(id);
  }
  /** {@inheritDoc Corpus.importContentIndex} @example await engine.importContentIndex('books', bytes) */
  importContentIndex(id: string, bytes: Uint8Array): Promise<void> {
    return this.corpus.importContentIndex(id, bytes);
  }
  /** {@inheritDoc Corpus.importDataset} @example await engine.importDataset(bytes) */
  importDataset(bytes: Uint8Array, options?: DatasetImportOptions): Promise<DatasetStats> {
    return this.corpus.importDataset(bytes, options);
  }
  /**
   * {@inheritDoc Corpus.measureBackground}
   * @example await engine.measureBackground('my-books', essays, { corpus: '400 newspaper essays of 2024' })
   */
  measureBackground(
    id: string,
    texts: Iterable<string> | AsyncIterable<string>,
    options: { readonly corpus: string; readonly date?: string },
  ): Promise<PortraitBackground> {
    return this.corpus.measureBackground(id, texts, options);
  }
  /** {@inheritDoc Corpus.declareDataset} @example engine.declareDataset('my-crawl', { kb_dataset: 'common-crawl' }) */
  declareDataset(id: string, declaration: DatasetDeclaration): DatasetStats {
    return this.corpus.declareDataset(id, declaration);
  }

  /**
   * Do one piece of the pure work of analyze and compare on this engine's core (sync): what an {@link Offload}
   * runs on another thread (the worker pool of `trainprint/node` runs it on an engine of its own).
   * @throws as the work does (compare: INVALID_INPUT, INVALID_OPTIONS)
   * @example engine.runWork({ kind: 'compare', a: 'one text', b: 'another text' }).similarity
   */
  runWork<W extends PureWork>(work: W): WorkResult<W> {
    return runWork(this.assertLive(), work);
  }

  /**
   * Add a web-scale training corpus searched through an engine's API: an index of infini-gram (token-level: The
   * Pile, Dolma, RedPajama, C4, DCLM, the OLMo-2 mixes at api.infini-gram.io) or infini-gram mini (character-level:
   * Common Crawl snapshots, DCLM, the Pile at api.infini-gram-mini.io), or a self-hosted engine's. From then on
   * analyze, `searchAsync`, score and monitors send the text to that endpoint (docs/remote-corpora.md says what is
   * sent); their results list each remote corpus consulted and how it went. A public index gets its knowledge-base
   * dataset (and so its models) from the knowledge base; for another, give `kb_dataset`. Nothing is sent here.
   * @throws (rejects) INVALID_OPTIONS (a bad field), ALREADY_EXISTS (the id is taken), NOT_FOUND (an unknown
   *   `kb_dataset` or model)
   * @example
   * await engine.addRemoteDataset({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' })
   * await engine.addRemoteDataset({ id: 'cc', kind: 'infini-gram-mini', index: 'v2_cc_2025-30' })
   */
  async addRemoteDataset(config: RemoteDatasetConfig): Promise<DatasetStats> {
    const remote = await openRemoteCorpus(config, { core: () => this.assertLive(), store: this.store });
    return this.corpus.attachRemoteDataset(remote);
  }

  /** Release the instance and the datasets; later calls throw ENGINE_DISPOSED. */
  override dispose(): void {
    super.dispose();
    this.corpus.clear();
  }
}
