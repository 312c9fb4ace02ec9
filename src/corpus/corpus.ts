/**
 * The corpus: the reference datasets loaded in one engine (exact indexes and portraits), with
 * add/remove/import/export, search and their descriptors. Each dataset owns its own instance of
 * the WebAssembly core (its memory is freed with it); queries are fingerprinted on the engine's.
 */
import { Core } from '../core/abi.js';
import { compileCore, type CoreVariant } from '../core/load.js';
import { CANDIDATE_MIN_HITS, chainGap, ExactDataset, type ExactSearchable } from '../datasets/exact.js';
import { checkPortraitBackground, type PortraitBackground } from '../datasets/background.js';
import { CREATE_DATASET_REQUEST, DECLARE_DATASET_REQUEST, DOCUMENT_ID } from '../datasets/descriptor.js';
import { PORTRAIT_ALPHA, PortraitDataset } from '../datasets/portrait.js';
import { decodeDataset, decodeDatasetLazily, encodeDataset, type ExactDatasetData } from '../datasets/snapshot.js';
import { SnapshotStream, type ExactDatasetSource, type SnapshotStreamOptions } from '../datasets/snapshot-stream.js';
import type { ExactStorage } from '../datasets/stored.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import {
  fingerprintCore,
  toText,
  withShingleHashes,
  withShingleHashesOfTexts,
  type ShingleHashesOfTexts,
} from '../fingerprint/fingerprint.js';
import { olderNormalizer, resolveOptions } from '../fingerprint/options.js';
import {
  batchDocument,
  checkBatch,
  DATASET_PARAMS,
  NEAR_MINHASH,
  type FingerprintBatch,
} from './dataset-fingerprints.js';
import type { Fingerprint } from '../types.js';
import type { ContentPairs } from './content-pairs.js';
import type { PairIndex } from './content-words.js';
import { tokenCoverage } from './coverage.js';
import type {
  DescriptorLinks,
  DetailedSearch,
  SearchOptions,
  SearchResult,
  DatasetDeclaration,
  DatasetImportOptions,
  DatasetLoadOptions,
  DatasetProvenance,
  DocumentSource,
  PrepareOptions,
  SliceOptions,
} from './types.js';
import { checkAccount, provenanceOf, Provenances } from './provenance.js';
import { checkSchema, invalidField, readThrough, SCHEMA_WORDS } from '../util/schema-check.js';
import { DEFAULT_SLICE_MS, type Pause, turnOf } from '../util/steps.js';
import { anySignal } from '../util/signals.js';
import { knownOptions } from '../util/known-options.js';
import { StoredExactDataset } from './stored.js';
import { alignedResultSteps, type Fetch, type LocalSearch } from './local-search.js';
import { EXACT_SIZE, EXACT_WINDOW } from './search-exact.js';
import { type EvidenceSource, checkEvidenceSource } from './source.js';
import { mergeSourceMatches, SourceSet, type SourcesFound } from './source-set.js';
import { type RemoteSearchable, unmeasured } from './remote-types.js';
import { MAX_THREADS, pairsIn, runWork, worthOffloading, type PureWork } from './work.js';
import { type DatasetLoad, type LoadedDataset, notAPortrait } from './loaded.js';
import { decodeContentIndex, encodeContentIndex } from './content-index-file.js';
import { MemoryExact } from './memory-exact.js';
import { MemoryPortrait } from './memory-portrait.js';

/** What a {@link Corpus} is built from. */
export interface CorpusOptions {
  /** The engine's live core (throws ENGINE_DISPOSED once the engine is disposed). */
  readonly core: () => Core;
  /** Which build of the core new datasets instantiate. */
  readonly variant: CoreVariant;
  /** Checks the knowledge-base ids a descriptor declares. */
  readonly links: DescriptorLinks;
  /** Called after a dataset was added, grown, imported, sealed, declared or removed. */
  readonly onChange?: (datasetId: string) => void;
}

/** Every member of {@link SearchOptions}: the compiler holds the list to the interface, and a search refuses others. */
const SEARCH_OPTION_KEYS = Object.keys({
  account: true,
  datasets: true,
  minTokens: true,
  alpha: true,
  near: true,
  portraitHits: true,
  candidates: true,
  alignBudgetChars: true,
  alignBudgetMs: true,
  remote: true,
  signal: true,
  persistRemote: true,
  sections: true,
  onRemoteCall: true,
  reworded: true,
  synonyms: true,
  candidateHits: true,
  copiesFirst: true,
  coverage: true,
} satisfies Record<keyof SearchOptions, true>);

/**
 * The loaded reference datasets and their search.
 *
 * @example
 * const corpus = engine.corpus
 * await corpus.addDataset({ id: 'books' }, [{ id: 'persuasion', text }])
 * corpus.search(suspect).matches[0] // { dataset_id: 'books', document_id: 'persuasion', … }
 */
export class Corpus {
  /** The loaded datasets, each as the corpus asks it (./loaded.ts: in memory, portraits, in a database). */
  private readonly sets = new Map<string, LoadedDataset>();
  private readonly core: () => Core;
  private readonly variant: CoreVariant;
  private readonly links: DescriptorLinks;
  private readonly changed: (datasetId: string) => void;
  /**
   * Remote corpora (`attachRemoteDataset`) and evidence sources (`attachEvidenceSource`): searched by the async
   * search only, beside the loaded datasets.
   */
  private readonly remotes: SourceSet;
  /** Who supplied each dataset: an account's own are searched for that account only. */
  private readonly provenances = new Provenances();
  /** Content digests made (`datasetDigest`), with the document count they were made at. */
  private readonly digests = new WeakMap<object, { documents: number; digest: Promise<string> }>();
  /** Which of a query's shingles an index holds ({@link exactShinglesFound}): one buffer, grown, for every query. */
  private hitScratch = new Uint8Array(0);

  constructor(options: CorpusOptions) {
    this.core = options.core;
    this.variant = options.variant;
    this.links = options.links;
    this.changed = options.onChange ?? (() => undefined);
    this.remotes = new SourceSet(options.links);
  }

  /**
   * Attach a remote corpus (made by `openRemoteDataset` of src/remote; `engine.addRemoteDataset` makes it from a
   * configuration): searched by `searchAsync`, analyze, score and monitors beside the loaded datasets. The sync
   * `search` refuses it (the network cannot be waited for synchronously; `remote: false` leaves it out).
   * @throws ALREADY_EXISTS (a dataset with this id), NOT_FOUND (a declared knowledge-base id unknown here)
   * @example corpus.attachRemoteDataset(openRemoteDataset({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' }, deps))
   */
  attachRemoteDataset(remote: RemoteSearchable): DatasetStats {
    this.assertLive();
    const stats = this.remotes.add({ remote }, (id) => this.sets.has(id));
    this.changed(stats.id);
    return stats;
  }

  /**
   * Attach an evidence source of the caller's (src/corpus/source.ts): searched by `searchAsync`, analyze, score and
   * monitors beside the loaded datasets, its findings read by the same evidence policy. The sync `search` refuses
   * it. Who supplied it is recorded as for a loaded dataset (`supplied_by`, default the operator).
   * @throws INVALID_OPTIONS (not an evidence source), ALREADY_EXISTS (a dataset with this id), NOT_FOUND (a
   *   declared knowledge-base id unknown here)
   * @example corpus.attachEvidenceSource({ descriptor: { id: 'quotes', kind: 'passage-list' }, stats, search })
   */
  attachEvidenceSource(source: EvidenceSource, load: DatasetLoadOptions = {}): DatasetStats {
    this.assertLive();
    checkEvidenceSource(source);
    const provenance = provenanceOf(load);
    const stats = this.remotes.add({ source }, (id) => this.sets.has(id));
    this.provenances.set(stats.id, provenance);
    this.changed(stats.id);
    return stats;
  }

  /**
   * The remote corpora attached, for their health (`/status`).
   * @example corpus.remoteDatasets().map((r) => r.health().state)
   */
  remoteDatasets(): RemoteSearchable[] {
    return this.remotes.remotes();
  }

  /** NOT_SUPPORTED for operations on a remote corpus's data, which stays with its engine. */
  private refuseRemote(id: string, what: string): void {
    if (this.remotes.has(id)) {
      const kind = this.remotes.isRemote(id) ? 'a remote corpus' : 'an evidence source';
      throw new TrainprintError('NOT_SUPPORTED', `dataset "${id}" is ${kind}: ${what} works on loaded datasets only`);
    }
  }

  /**
   * Add a reference dataset (or more documents to an existing one). `documents` may be any
   * Iterable or AsyncIterable of `{ id, text, meta? }`. Async; resolves to the dataset's stats.
   *
   * - `kind: 'exact'` (default): winnowed fingerprints stored with their spans (where a match is),
   *   and each document's one-permutation MinHash signature (k = 128, seed 0, over all its word
   *   5-grams) in an LSH index of 32 bands × 4 rows, for near-duplicate documents (`search`).
   * - `kind: 'portrait'`: only the distinct winnowed fingerprints, in a membership filter at
   *   1.2 bytes per stored n-gram (≈ 4.7 % of the corpus bytes at the default `window: 8`); a
   *   search says *which query passages* are in the corpus, not where. Adding more documents
   *   later rebuilds the open filter from the kept keys (exactly sized); `finalizeDataset` seals
   *   it and frees the kept keys. See src/datasets/portrait.ts for the statistics and what length is
   *   reliably reported (≈ 30 words at `window: 8`; ≥ 16 words with `window: 3`, ≈ 10.6 % of corpus bytes).
   *
   * @throws INVALID_INPUT naming the field (a descriptor refused by its contract, CREATE_DATASET_REQUEST; a bad
   *   document), INVALID_OPTIONS (kind/window differ from the existing dataset's), NOT_FOUND (an unknown `kb_dataset`
   *   or model), ALREADY_EXISTS (a document id already in the dataset)
   * @example
   * await corpus.addDataset({ id: 'gutenberg-sample', models: ['example/model-1'] }, [{ id: 'alice', text }])
   * await corpus.addDataset({ id: 'books-portrait', kind: 'portrait' }, books)
   * // { index_bytes, fingerprints, fpr, … }
   */
  async addDataset(
    descriptor: DatasetDescriptor,
    documents: DocumentSource,
    load?: DatasetLoadOptions,
  ): Promise<DatasetStats> {
    const core = this.core();
    const checked = readDescriptor(descriptor, this.links);
    const provenance = provenanceOf(load);
    if (
      documents === null ||
      typeof documents !== 'object' ||
      (!(Symbol.iterator in documents) && !(Symbol.asyncIterator in documents))
    ) {
      throw new TrainprintError('INVALID_INPUT', 'documents must be an Iterable or AsyncIterable of { id, text }');
    }
    const ds = await this.openDataset(checked, provenance);
    return this.loadInto(ds, core, async (loading) => {
      let at = 0;
      for await (const doc of documents as AsyncIterable<DatasetDocument>) {
        checkDocument(doc, at);
        const added = loading.add(doc, toText(doc.text));
        if (added) await added; // a dataset in memory adds at once
        at++;
      }
    });
  }

  /**
   * One load of `ds` fed by `feed`: a failure aborts it (what came before is kept, as {@link DatasetLoad.abort}
   * says) and is thrown; else its end makes what it gathered searchable. Resolves to the dataset's stats.
   */
  private async loadInto(
    ds: LoadedDataset,
    core: Core,
    feed: (loading: DatasetLoad) => Promise<void>,
  ): Promise<DatasetStats> {
    const loading = ds.load(core);
    try {
      await feed(loading);
    } catch (e) {
      await loading.abort();
      throw e;
    }
    await loading.end();
    this.changed(ds.descriptor.id);
    return ds.stats();
  }

  /**
   * Like {@link addDataset}, with the fingerprints already made (by `createDatasetFingerprinter`,
   * typically in worker threads): each batch's documents are added in order with the fingerprints
   * of the same position. The result is the dataset `addDataset` builds from the same documents.
   *
   * @throws INVALID_INPUT (bad document, a batch whose params are not this dataset's, or whose
   *   shape does not match its documents), and what {@link addDataset} throws
   * @example
   * const fingerprinter = await createDatasetFingerprinter({ kind: 'exact' })
   * const docs = [{ id: 'alice', text }]
   * await corpus.addFingerprintedDocuments({ id: 'books' }, [{ documents: docs, fingerprints: fingerprinter.fingerprint([text]) }])
   */
  async addFingerprintedDocuments(
    descriptor: DatasetDescriptor,
    batches: Iterable<FingerprintedDocuments> | AsyncIterable<FingerprintedDocuments>,
  ): Promise<DatasetStats> {
    const core = this.core();
    if (
      batches === null ||
      typeof batches !== 'object' ||
      (!(Symbol.iterator in batches) && !(Symbol.asyncIterator in batches))
    ) {
      throw new TrainprintError(
        'INVALID_INPUT',
        'batches must be an Iterable or AsyncIterable of { documents, fingerprints }',
      );
    }
    const ds = await this.openDataset(readDescriptor(descriptor, this.links), provenanceOf(undefined));
    return this.loadInto(ds, core, async (loading) => {
      let at = 0;
      for await (const { documents, fingerprints } of batches as AsyncIterable<FingerprintedDocuments>) {
        if (!Array.isArray(documents)) {
          throw new TrainprintError('INVALID_INPUT', "a batch's documents must be an array");
        }
        checkBatch(fingerprints, documents.length);
        if (fingerprints.params !== ds.params) {
          const made = JSON.stringify(fingerprints.params);
          throw new TrainprintError(
            'INVALID_INPUT',
            `fingerprints made with params ${made}, dataset "${descriptor.id}" has ${JSON.stringify(ds.params)}`,
          );
        }
        for (let i = 0; i < documents.length; i++, at++) {
          const doc = documents[i];
          checkDocument(doc, at);
          const added = loading.addFingerprinted(doc, toText(doc.text), batchDocument(fingerprints, i));
          if (added) await added; // a dataset in memory adds at once
        }
      }
    });
  }

  /**
   * Attach an exact dataset kept in a database (an {@link ExactStorage}: `createPostgresDataset` or
   * `openPostgresDataset` of `trainprint/node`), async. It is searched like a loaded one by
   * `searchAsync`, analyze and score (the sync `search` refuses it: a database cannot be waited for
   * synchronously), and `addDataset`/`addFingerprintedDocuments` with its id append documents to it.
   * Detach it with `removeDataset` (its tables stay); closing the storage is the caller's.
   * @throws (rejects) ALREADY_EXISTS (a dataset with this id is loaded), SNAPSHOT_INCOMPATIBLE
   *   (fingerprints of other params), NOT_FOUND (a declared KB id unknown here), and what the storage
   *   rejects with (STORE_UNAVAILABLE)
   * @example
   * import { createPostgresDataset } from 'trainprint/node'
   * await corpus.attachDataset(await createPostgresDataset({ url, id: 'books' }))
   */
  async attachDataset(storage: ExactStorage): Promise<DatasetStats> {
    this.assertLive();
    const methods = ['info', 'append', 'finishLoad', 'lookup', 'documents'] as const;
    if (!storage || typeof storage !== 'object' || methods.some((m) => typeof storage[m] !== 'function')) {
      throw new TrainprintError('INVALID_INPUT', `a stored dataset must implement ${methods.join(', ')}`);
    }
    const info = await storage.info();
    if (info.params !== '' && info.params !== DATASET_PARAMS) {
      const got = JSON.stringify(info.params);
      const want = JSON.stringify(DATASET_PARAMS);
      const older = olderNormalizer(info.params, DATASET_PARAMS);
      throw new TrainprintError(
        'SNAPSHOT_INCOMPATIBLE',
        `dataset "${storage.id}" has params ${got}, expected ${want}${older}`,
      );
    }
    readDescriptor(info.descriptor, this.links);
    if (this.sets.has(info.descriptor.id) || this.remotes.has(info.descriptor.id)) {
      throw new TrainprintError('ALREADY_EXISTS', `dataset "${info.descriptor.id}" is already loaded`);
    }
    const ds = new StoredExactDataset(storage, info);
    this.sets.set(ds.descriptor.id, ds);
    this.changed(ds.descriptor.id);
    return ds.stats();
  }

  /**
   * Copy a loaded in-memory exact dataset into an attached stored one, after its documents (async): the
   * documents with their texts, metadata and signatures, then the fingerprints. Copied into an empty stored
   * dataset, the documents keep their numbers, so both give the same search results.
   * @throws (rejects) NOT_FOUND, INVALID_OPTIONS (`from` is not an in-memory exact dataset, `to` not a stored
   *   one, or they differ in keep_text), ALREADY_EXISTS (a document id already stored), STORE_UNAVAILABLE
   * @example
   * await corpus.importDataset(bytes)   // 'books', in memory
   * await corpus.attachDataset(await createPostgresDataset({ url, id: 'books-pg' }))
   * await corpus.copyDataset('books', 'books-pg')
   */
  async copyDataset(from: string, to: string): Promise<DatasetStats> {
    this.assertLive();
    this.refuseRemote(from, 'copying');
    this.refuseRemote(to, 'copying');
    const source = this.sets.get(from);
    const target = this.sets.get(to);
    if (!source) throw new TrainprintError('NOT_FOUND', `no dataset "${from}"`);
    if (!target) throw new TrainprintError('NOT_FOUND', `no dataset "${to}"`);
    const read = source.copySource();
    const into = target.copyTarget();
    if (source.keepsText !== into.keepsText) {
      const differ = `dataset "${from}" has keep_text ${source.keepsText}, "${to}" ${into.keepsText}`;
      throw new TrainprintError('INVALID_OPTIONS', differ);
    }
    try {
      await into.copyFrom(read(), pairsIn(this.core()));
    } catch (e) {
      await into.finishLoad().catch(() => undefined);
      throw e;
    }
    await into.finishLoad();
    this.changed(to);
    return into.stats();
  }

  /** The dataset the checked `descriptor` names: the loaded one (kind, window and keep_text must agree), or a new one. */
  private async openDataset(descriptor: DatasetDescriptor, provenance: DatasetProvenance): Promise<LoadedDataset> {
    this.refuseRemote(descriptor.id, 'adding documents');
    let ds = this.sets.get(descriptor.id);
    if (ds) {
      ds.checkJoin(descriptor);
      return ds;
    }
    const core2 = await Core.create(await compileCore(this.variant));
    ds =
      descriptor.kind === 'portrait'
        ? new MemoryPortrait(new PortraitDataset(core2, descriptor))
        : new MemoryExact(new ExactDataset(core2, descriptor, DATASET_PARAMS), this.core);
    this.sets.set(descriptor.id, ds);
    this.provenances.set(descriptor.id, provenance);
    return ds;
  }

  /**
   * The datasets loaded in this engine, with their stats (sync). With `account`, only those that account may
   * search: the ones every account shares and its own.
   * @example corpus.datasets().map((d) => `${d.id}: ${d.documents} documents`)
   * @example corpus.datasets({ account: 'alice' }) // shared datasets and alice's uploads, not bob's
   */
  datasets(options: { readonly account?: string } = {}): DatasetStats[] {
    this.assertLive();
    const account = options?.account === undefined ? undefined : checkAccount(options.account, 'account');
    const all = [...[...this.sets.values()].map((d) => d.stats()), ...this.remotes.stats()];
    return account === undefined ? all : all.filter((d) => this.provenances.visibleTo(d.id, account));
  }

  /**
   * Seal a portrait dataset (sync): its open filter joins the chain and the fingerprints kept
   * for rebuilding are dropped, so it holds only its filters (1.2 B per stored n-gram). Documents
   * added later go into a new filter. An exact dataset sorts the documents added since its last search into its
   * index (what its next search or export would do first), so that its stats are those of the index as a file or
   * a later load holds it, not of the staging arrays. Returns the stats.
   * @throws NOT_FOUND
   * @example corpus.finalizeDataset('books-portrait').index_bytes
   */
  finalizeDataset(id: string): DatasetStats {
    this.assertLive();
    this.refuseRemote(id, 'finalizing');
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    d.finalize();
    return d.stats();
  }

  /**
   * Measure how unrelated natural text hits a portrait (async): its background, the null its runs of hits are read
   * against (src/datasets/background.ts). Give it texts that are **not** in the dataset — several genres, in the
   * portrait's language, the more the better (the reference packs: 1.2 M words) — and say in `corpus` what they
   * are. The result is kept in the dataset's descriptor (and its exported file) and returned.
   * @throws (rejects) NOT_FOUND, INVALID_OPTIONS (not a portrait; `corpus` not a string of 1–2000 characters),
   *   INVALID_INPUT (a text that is not a string, or texts without a fingerprint)
   * @example
   * await corpus.measureBackground('my-books', essays, { corpus: '400 newspaper essays of 2024, none in my-books' })
   */
  async measureBackground(
    id: string,
    texts: Iterable<string> | AsyncIterable<string>,
    options: { readonly corpus: string; readonly date?: string },
  ): Promise<PortraitBackground> {
    this.assertLive();
    const d = this.sets.get(id);
    if (!d && !this.remotes.has(id)) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    if (!d) throw notAPortrait(id);
    const background = await d.measureBackground(this.core(), texts, options);
    this.changed(id);
    return background;
  }

  /**
   * Drop a dataset and free its memory (sync). Returns false when there was none with this id.
   * @example corpus.removeDataset('gutenberg-sample') // true
   */
  removeDataset(id: string): boolean {
    this.assertLive();
    const removed = this.sets.delete(id) || this.remotes.delete(id);
    if (removed) {
      this.provenances.delete(id);
      this.changed(id);
    }
    return removed;
  }

  /**
   * Who supplied a loaded dataset (sync): shipped with the package, the operator's, or an account's own.
   * @throws NOT_FOUND when no dataset has this id
   * @example corpus.provenance('pack:gutenberg') // { supplied_by: 'shipped', account: null }
   */
  provenance(id: string): DatasetProvenance {
    if (!this.sets.has(id) && !this.remotes.has(id)) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    return this.provenances.get(id);
  }

  /**
   * Whether `account` may search (and see) dataset `id`: one every account shares, or its own.
   * @example corpus.visibleTo('uploads', 'bob') // false when alice uploaded it
   */
  visibleTo(id: string, account: string): boolean {
    return this.provenances.visibleTo(id, account);
  }

  /**
   * `options` with `account` resolved into the datasets that account may search: all it may see when none are
   * named; a named one it may not see is NOT_FOUND, as if it were not loaded.
   */
  private scoped(options: SearchOptions): SearchOptions {
    if (options === null || typeof options !== 'object' || options.account === undefined) return options;
    const account = checkAccount(options.account, 'account');
    if (options.datasets !== undefined) {
      if (Array.isArray(options.datasets)) {
        for (const id of options.datasets) {
          if (!this.provenances.visibleTo(id, account)) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
        }
      }
      return options;
    }
    const ids = [...this.sets.keys(), ...this.remotes.ids()];
    return { ...options, datasets: ids.filter((id) => this.provenances.visibleTo(id, account)) };
  }

  /**
   * Find passages of `text` that occur in the loaded datasets (sync): each match has spans in
   * the query and in the source document; `coverage` gives, per dataset, the share of the query's
   * tokens inside matches and the longest matched run. An exact match spans its matched
   * shingles, from the first to the last; it is reported when that covers at least `minTokens`
   * query words (default 8: two shared winnowed 5-grams at least 4 words apart — one shared
   * 5-gram alone is common phrasing, not evidence). Any shared run of ≥ 12 words shares at least
   * one fingerprint (the winnowing guarantee), but needs ≈ 15–20 words to show two.
   * Portrait datasets give matches with `kind: 'portrait'`, `document_id`/`source_*` null: the runs of
   * consecutive hits among the query's winnowed fingerprints that its evidence rests on, when the chance of
   * runs that strong in unrelated text — under the portrait's measured background — is ≤ `alpha` (default
   * 1e-4 per query and dataset; src/datasets/background.ts). Scattered hits never become matches.
   *
   * Near-duplicate documents (exact datasets only), in addition to the passage matches: the
   * query's one-permutation MinHash (k = 128) over all its word 5-grams is looked up in each
   * dataset's LSH index (32 bands × 4 rows); every document sharing a band whose estimated
   * Jaccard similarity of 5-gram sets is ≥ `near` (default 0.5) gives one match `{ kind: 'near',
   * query_start: 0, query_end: query length, source_start: 0, source_end: document length,
   * tokens: query tokens, score: the estimate }`, listed after the passage matches. LSH makes a
   * document a candidate with probability 1 − (1 − J⁴)³²: 0.23 at J = 0.3, 0.87 at 0.5, 0.99 at
   * 0.6, 0.9998 at 0.7 — so near-duplicates below J ≈ 0.5 are reported only sometimes, whatever
   * `near` says. Word edits cost more than they seem: 5 % of the words substituted one by one
   * leave J ≈ 0.95⁵ / (2 − 0.95⁵) ≈ 0.63 (each edit breaks five 5-grams), the same 5 % in runs
   * of five words J ≈ 0.83 (src/datasets/exact.ts has the S-curve). Near matches do not count in `coverage` (they say the documents are alike, not
   * which words are shared).
   *
   * @throws INVALID_INPUT, INVALID_OPTIONS (`minTokens`, `alpha`, `near` out of range),
   *   NOT_FOUND (an unknown dataset id in `datasets`), NOT_SUPPORTED (a dataset kept in a database is
   *   searched: use {@link searchAsync})
   * @example
   * const { matches, coverage } = corpus.search(suspectText)
   * matches[0]
   * // { dataset_id, document_id, query_start, query_end, source_start, source_end, kind: 'exact', tokens, score }
   * corpus.search(otherEdition, { near: 0.7 }).matches.filter((m) => m.kind === 'near')
   * // [{ kind: 'near', document_id, score: 0.98, … }]
   */
  search(text: string | Uint8Array, options: SearchOptions = {}): SearchResult {
    return this.searchDetailed(toText(text), options).result;
  }

  /**
   * {@link search}, async: every dataset, those kept in a database (`attachDataset`) too, in slices of
   * `sliceMs` between which the event loop serves others (the result is the same as `search`'s).
   * @throws (rejects) as {@link search}, and STORE_UNAVAILABLE when a stored dataset's database cannot be
   *   reached
   * @example const { matches } = await corpus.searchAsync(suspectText)
   */
  async searchAsync(
    text: string | Uint8Array,
    options: SearchOptions = {},
    run: SliceOptions = {},
  ): Promise<SearchResult> {
    return (await this.searchDetailedAsync(toText(text), options, run)).result;
  }

  /**
   * Build now what the first search of each dataset would build before it could start: the sorted exact indexes
   * and their near-duplicate tables, and the content-word pair index of each exact dataset that keeps text (tens
   * of seconds for a dataset of 50 M fingerprints), in slices of `sliceMs` like a search. With `offload` (a
   * worker pool), the content-word index of a large dataset is made in batches on its threads and this one
   * (src/corpus/pair-build.ts): the same index. A server calls it when it starts, and reports itself ready once
   * it is done; a search that arrives meanwhile shares the build. Documents added later are indexed again by
   * the next search (or the next call).
   * @throws (rejects) INVALID_OPTIONS for a bad `sliceMs`
   * @example await corpus.prepareSearch({ offload: pool }) // the first search is as fast as the next
   */
  async prepareSearch(run: PrepareOptions = {}): Promise<void> {
    const sliceMs = run.sliceMs ?? DEFAULT_SLICE_MS;
    if (typeof sliceMs !== 'number' || !(sliceMs >= 0))
      throw new TrainprintError('INVALID_OPTIONS', 'sliceMs must be a number ≥ 0');
    const threads = Math.floor(run.offload?.threads ?? 1);
    const lanes = threads >= 1 ? Math.min(threads, MAX_THREADS) : 1; // a worker pool has 1..MAX_THREADS
    for (const d of [...this.sets.values()]) {
      if (this.sets.get(d.descriptor.id) !== d) continue; // removed meanwhile
      await d.prepareSearch({ sliceMs, offload: run.offload, lanes });
    }
  }

  /**
   * `search` with the per-dataset counts behind it (for the evidence statistics of analyze and
   * score): exact datasets give their chains' hit counts, portraits their runs.
   */
  searchDetailed(query: string, options: SearchOptions = {}): DetailedSearch {
    const core = this.core();
    options = this.scoped(options);
    const remote =
      options !== null && typeof options === 'object' ? this.remotes.targets(options.datasets, options.remote) : [];
    if (remote.length > 0) {
      const [id] = remote;
      throw new TrainprintError(
        'NOT_SUPPORTED',
        this.remotes.isRemote(id)
          ? `dataset "${id}" is a remote corpus and cannot be searched ` +
              'synchronously: use searchAsync (analyze and score do), or leave it out (option remote: false)'
          : `dataset "${id}" is an evidence source and cannot be searched synchronously: use searchAsync ` +
              '(analyze and score do), or leave it out (option datasets)',
      );
    }
    const steps = this.searchSteps(core, query, options, () => performance.now());
    for (let input: unknown; ; ) {
      const step = steps.next(input);
      if (step.done) return step.value;
      const work = step.value;
      if (work.kind === 'fetch') throw work.notSynchronous();
      input = work.kind === 'pause' ? undefined : runWork(core, work);
    }
  }

  /** The exact datasets `datasets` name, when every one of them is held in memory; else null. */
  private memoryExactSets(datasets: readonly string[]): ExactDataset[] | null {
    const targets: ExactDataset[] = [];
    for (const id of datasets) {
      const d = this.sets.get(id);
      if (!(d instanceof MemoryExact)) return null;
      targets.push(d.dataset);
    }
    return targets;
  }

  /**
   * How many of the query's word 5-grams the indexes of the exact datasets `datasets` hold, the query's UTF-8
   * length, and `runs`: the query spans (UTF-16 [start, end), in order) of the runs of found 5-grams no two of which
   * are further apart than a seed chain bridges — every seed match of these datasets lies inside one. Sync; null when
   * one of them is not an exact dataset in memory (one kept in a database, a portrait, an evidence source, an unknown
   * id): only a search can tell then. A query none of whose 5-grams they hold has no seed match in them and no
   * candidate to align, so a search for copies (`reworded: false`) finds nothing there: what a scan asks of each item
   * before it searches, at the cost of the hashing and the lookups alone. `words`: the query's words (runs of
   * characters outside `\s`) counted up to `minWords`; a query of fewer is not looked up (`found` 0).
   * @example corpus.exactShinglesFound('A short answer that copies nothing.', ['books']) // { found: 0, byteLength: 35, runs: [], words: 0 }
   */
  exactShinglesFound(
    query: string,
    datasets: readonly string[],
    minWords = 0,
  ): { found: number; byteLength: number; runs: Array<[number, number]>; words: number } | null {
    this.assertLive();
    const targets = this.memoryExactSets(datasets);
    if (targets === null) return null;
    // the hashes are a view of this corpus's core; each dataset looks them up in its own
    const lookUp = (hashes: BigUint64Array, byteLength: number, span: ShingleSpan, words: number) => {
      const runs: Array<[number, number]> = [];
      // an item of too few words is not searched: no lookups
      if (words < minWords) return { found: 0, byteLength, runs, words };
      if (this.hitScratch.length < hashes.length) this.hitScratch = new Uint8Array(Math.max(hashes.length, 1024));
      const hitAt = this.hitScratch.subarray(0, hashes.length);
      hitAt.fill(0);
      let found = 0;
      for (const d of targets) found += d.shinglesFound(hashes, hitAt);
      // most items of a scan hold none: no runs to read
      if (found === 0) return { found, byteLength, runs, words };
      foundRuns(hitAt, (first, last) => runs.push(span(first, last)));
      return { found, byteLength, runs, words };
    };
    return withShingleHashes(this.core(), query, COPY_SEARCH_OPTIONS, lookUp, minWords);
  }

  /**
   * {@link exactShinglesFound} of each of `queries`, in one pass of the tokenizer and one look-up per dataset for
   * them all (src/fingerprint/fingerprint.ts, withShingleHashesOfTexts): the same answers, in the same order, for a
   * scan's batch of short items, whose calls one by one cost more than their hashing. Null where it would be null
   * for one query (a dataset not in memory), and where one pass cannot stand for them (a query the tokenizer
   * refuses): ask query by query then.
   * @example corpus.exactShinglesFoundOfMany(['A short answer.', 'Another one.'], ['books'], 50)?.map((r) => r.found) // [0, 0]
   */
  exactShinglesFoundOfMany(
    queries: readonly string[],
    datasets: readonly string[],
    minWords = 0,
  ): Array<{ found: number; byteLength: number; runs: Array<[number, number]>; words: number }> | null {
    this.assertLive();
    const targets = this.memoryExactSets(datasets);
    if (targets === null) return null;
    const lookUp = (b: ShingleHashesOfTexts) => {
      const n = queries.length;
      const m = b.hashes.length;
      const found = new Uint32Array(n);
      // per dataset, which shingles it holds (a shingle two datasets hold counts twice, as in exactShinglesFound)
      if (this.hitScratch.length < 2 * m) this.hitScratch = new Uint8Array(Math.max(2 * m, 1024));
      const hitAt = this.hitScratch.subarray(0, m);
      const hitHere = this.hitScratch.subarray(m, 2 * m);
      hitAt.fill(0);
      for (const d of targets) {
        hitHere.fill(0);
        if (d.shinglesFound(b.hashes, hitHere) === 0) continue;
        // the found ones, each counted to its query (an item of too few words is not looked up: none of its)
        for (let k = hitHere.indexOf(1), i = 0; k >= 0; k = hitHere.indexOf(1, k + 1)) {
          while (b.from[i + 1] <= k) i++;
          if (b.words[i] < minWords) continue;
          found[i]++;
          hitAt[k] = 1;
        }
      }
      const out: Array<{ found: number; byteLength: number; runs: Array<[number, number]>; words: number }> = [];
      for (let i = 0; i < n; i++) {
        const runs: Array<[number, number]> = [];
        const words = b.words[i];
        const byteLength = b.byteLength[i];
        if (words < minWords || found[i] === 0) {
          out.push({ found: 0, byteLength, runs, words });
          continue;
        }
        foundRuns(hitAt.subarray(b.from[i], b.from[i + 1]), (first, last) => runs.push(b.span(i, first, last)));
        out.push({ found: found[i], byteLength, runs, words });
      }
      return out;
    };
    return withShingleHashesOfTexts(this.core(), queries, COPY_SEARCH_OPTIONS, lookUp, minWords);
  }

  /**
   * {@link searchDetailed} in slices, for a host whose event loop serves others meanwhile: it gives the
   * loop a turn (a macrotask) whenever `sliceMs` of work have passed since the last — between datasets,
   * between alignment candidates and passages — and the pure pieces (the query's fingerprints and
   * content-word pairs) go to `offload` when given and the query is long enough to pay for it
   * ({@link worthOffloading}). The result is the same as `searchDetailed`'s: the
   * same steps run in the same order, and the alignment budget counts only this search's own time.
   * Datasets added or removed while it is paused may or may not be searched.
   * @throws (rejects) as {@link searchDetailed}
   * @example const { result } = await corpus.searchDetailedAsync(text, {}, { sliceMs: 3 })
   */
  async searchDetailedAsync(
    query: string,
    options: SearchOptions = {},
    run: SliceOptions = {},
  ): Promise<DetailedSearch> {
    const core = this.core();
    options = this.scoped(options);
    const sliceMs = run.sliceMs ?? DEFAULT_SLICE_MS;
    if (typeof sliceMs !== 'number' || !(sliceMs >= 0))
      throw new TrainprintError('INVALID_OPTIONS', 'sliceMs must be a number ≥ 0');
    let paused = 0; // time spent waiting (for the loop or another thread): not this search's own work
    const waited = async <T>(wait: Promise<T>): Promise<T> => {
      const at = performance.now();
      try {
        return await wait;
      } finally {
        paused += performance.now() - at;
        sliceStart = performance.now();
      }
    };
    let sliceStart = performance.now();
    // an account's searches take their turns of the event loop as one, beside other accounts' (ownerTurn)
    const turn = turnOf(typeof options?.account === 'string' ? options.account : undefined);
    // the remote corpora and evidence sources are asked at once, while the local search runs
    const remoteTargets =
      options !== null && typeof options === 'object' && typeof query === 'string'
        ? this.remotes.targets(options.datasets, options.remote)
        : [];
    // (made only for the remote calls: a search of the loaded datasets alone, a scan's, makes none)
    const stop = remoteTargets.length > 0 ? new AbortController() : null;
    const remote =
      stop !== null
        ? this.remotes.search(remoteTargets, query, {
            signal: options?.signal ? anySignal([options.signal, stop.signal]) : stop.signal,
            persist: options.persistRemote === true,
            sections: options.sections,
            onRemoteCall: options.onRemoteCall,
          })
        : null;
    remote?.catch(() => undefined); // awaited below; a local failure must not leave it unhandled meanwhile
    const steps = this.searchSteps(core, query, options, () => performance.now() - paused);
    let utf8: Uint8Array | undefined;
    for (let input: unknown; ; ) {
      let step: IteratorResult<Pause | PureWork | Fetch, DetailedSearch>;
      try {
        step = steps.next(input);
      } catch (e) {
        stop?.abort(); // the local search failed: the remote calls end too
        throw e;
      }
      if (step.done) {
        const found = utf8 ? { ...step.value, utf8 } : step.value;
        return remote ? withSources(found, await remote) : found;
      }
      input = undefined;
      const work = step.value;
      if (work.kind === 'pause') {
        if (performance.now() - sliceStart >= sliceMs) await waited(turn());
      } else if (work.kind === 'fetch') {
        input = await waited(work.run());
      } else if (run.offload && worthOffloading(work)) {
        input = await waited(run.offload.run(work));
      } else {
        if (performance.now() - sliceStart >= sliceMs) await waited(turn());
        input =
          run.keepUtf8 === true && work.kind === 'fingerprint' && work.text === query && utf8 === undefined
            ? fingerprintCore(
                core,
                query,
                work.options,
                (raw) => {
                  utf8 = raw.slice();
                },
                work.columns,
              ).fp
            : runWork(core, work);
      }
    }
  }

  /**
   * The search as steps: it pauses where a sliced search may yield, and asks for each pure piece of
   * work (the caller runs it and passes the result back in `next`). `now` is the alignment budget's clock.
   */
  private *searchSteps(
    core: Core,
    query: string,
    options: SearchOptions,
    now: () => number,
  ): Generator<Pause | PureWork | Fetch, DetailedSearch, unknown> {
    if (options === null || typeof options !== 'object')
      throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
    knownOptions(options, SEARCH_OPTION_KEYS);
    const minTokens = options.minTokens ?? DEFAULT_MIN_TOKENS;
    if (!Number.isInteger(minTokens) || minTokens < 1)
      throw new TrainprintError('INVALID_OPTIONS', 'minTokens must be a positive integer');
    const alpha = options.alpha ?? PORTRAIT_ALPHA;
    if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1))
      throw new TrainprintError('INVALID_OPTIONS', 'alpha must be a number in (0, 1)');
    const near = options.near ?? DEFAULT_NEAR;
    if (typeof near !== 'number' || !(near > 0 && near <= 1))
      throw new TrainprintError('INVALID_OPTIONS', 'near must be a number in (0, 1]');
    const portraitHits = options.portraitHits ?? false;
    if (typeof portraitHits !== 'boolean')
      throw new TrainprintError('INVALID_OPTIONS', 'portraitHits must be a boolean');
    const limit = options.candidates ?? DEFAULT_CANDIDATES;
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_CANDIDATES)
      throw new TrainprintError('INVALID_OPTIONS', `candidates must be an integer in 0..${MAX_CANDIDATES}`);
    const budgetMs = options.alignBudgetMs ?? DEFAULT_ALIGN_BUDGET_MS;
    if (typeof budgetMs !== 'number' || !(budgetMs >= 0 && budgetMs <= MAX_ALIGN_BUDGET_MS))
      throw new TrainprintError('INVALID_OPTIONS', `alignBudgetMs must be a number in 0..${MAX_ALIGN_BUDGET_MS}`);
    const budgetChars = options.alignBudgetChars ?? DEFAULT_ALIGN_BUDGET_CHARS;
    if (!Number.isSafeInteger(budgetChars) || budgetChars < 0)
      throw new TrainprintError('INVALID_OPTIONS', 'alignBudgetChars must be an integer ≥ 0');
    let targets = [...this.sets.values()];
    if (options.datasets !== undefined) {
      if (!Array.isArray(options.datasets))
        throw new TrainprintError('INVALID_OPTIONS', 'datasets must be an array of dataset ids');
      targets = options.datasets
        .filter((id) => !this.remotes.has(id))
        .map((id) => {
          const d = this.sets.get(id);
          if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
          return d;
        });
    }
    const candidateHits = options.candidateHits ?? CANDIDATE_MIN_HITS;
    if (!Number.isInteger(candidateHits) || candidateHits < 1)
      throw new TrainprintError('INVALID_OPTIONS', 'candidateHits must be a positive integer');
    const reworded = options.reworded ?? true;
    if (typeof reworded !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'reworded must be a boolean');
    const synonyms = options.synonyms ?? true;
    if (typeof synonyms !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'synonyms must be a boolean');
    const copiesFirst = options.copiesFirst ?? false;
    if (typeof copiesFirst !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'copiesFirst must be a boolean');
    const coverage = options.coverage ?? true;
    if (typeof coverage !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'coverage must be a boolean');
    const fp = (yield {
      kind: 'fingerprint',
      text: query,
      options: reworded ? SEARCH_OPTIONS : COPY_SEARCH_OPTIONS,
      // every exact search looks the hashes up, and reads the spans as soon as one document has a hit: both at once
      columns: { hashes: true, spans: true },
    }) as Fingerprint;
    // the query's content-word pairs, wherever they will be needed (candidates, backgrounds): asked for once
    const needsPairs = reworded && limit > 0 && targets.some((d) => d.keepsText);
    let asked = needsPairs ? ((yield { kind: 'pairs', text: query }) as ContentPairs) : undefined;
    const s: LocalSearch = {
      query,
      options: {
        minTokens,
        alpha,
        near,
        portraitHits,
        limit,
        reworded,
        candidateHits,
        synonyms,
        copiesFirst,
        coverage,
      },
      fp,
      winnowed: new Map(),
      matches: [],
      nearMatches: [],
      coverage: {},
      portraitRuns: [],
      details: new Map(),
      jobs: [],
      exact: [],
      searched: new Map(),
      pairsOfQuery: () => (asked ??= pairsIn(core)(query)),
      // an in-memory dataset's index is built on its first search, a stored one's is what the query fetched of it
      indexes: new Map(),
      pairIndexes: new Map(),
      postings: new Map(),
      pairIndexOf: (d) => s.indexes.get(d) ?? pairIndexOf(s, d),
      postingsOf: (d) => {
        let at = s.postings.get(d);
        if (!at) s.postings.set(d, (at = s.pairIndexOf(d).postings(s.pairsOfQuery())));
        return at;
      },
    };
    for (const d of targets) yield* d.searchSteps(s);
    return yield* alignedResultSteps(core, s, { chars: budgetChars, ms: budgetMs }, now);
  }

  /**
   * The text of a document as indexed (sync): what its matches' `source_start`/`source_end` point into.
   * `null` when the dataset keeps no text (a portrait, or an exact dataset with `keep_text: false`).
   * @throws NOT_FOUND (no such dataset or document)
   * @example corpus.documentText('spdx-licenses', 'MIT')?.slice(0, 11) // 'MIT License'
   */
  documentText(datasetId: string, documentId: string): string | null {
    this.assertLive();
    this.refuseRemote(datasetId, 'reading document texts (a remote match carries its source passage)');
    const d = this.sets.get(datasetId);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${datasetId}"`);
    return d.documentText(documentId);
  }

  /**
   * A dataset as bytes (sync): msgpack with a versioned header, the parameter id and a checksum.
   * @throws NOT_FOUND
   * @example const bytes = corpus.exportDataset('gutenberg-sample')
   */
  exportDataset(id: string): Uint8Array {
    this.assertLive();
    this.refuseRemote(id, 'exporting');
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    return encodeDataset(d.toData());
  }

  /**
   * A dataset as a {@link SnapshotStream} (sync): the bytes of {@link exportDataset} in pieces, the
   * index read a chunk at a time, so writing it to a file needs memory for one chunk, not for a copy
   * of the index (`buildDatasetFile` writes with it). Write every piece in order, then the patch at
   * its offset; do not add documents to the dataset until the pieces are consumed (CONFLICT).
   * `options.crc32` checksums with another CRC-32 implementation (Node's native `zlib.crc32`).
   * @throws NOT_FOUND, INVALID_OPTIONS
   * @example
   * const stream = corpus.exportDatasetStream('gutenberg-sample')
   * for (const piece of stream.pieces()) file.write(piece)
   * const { offset, bytes } = stream.patch() // write bytes at offset
   */
  exportDatasetStream(id: string, options?: SnapshotStreamOptions): SnapshotStream {
    this.assertLive();
    this.refuseRemote(id, 'exporting');
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    return new SnapshotStream(d.toSource(), options);
  }

  /**
   * Load a dataset exported by `exportDataset` (async). A truncated, corrupted or incompatible
   * file is refused with SNAPSHOT_INCOMPATIBLE; an id already loaded with ALREADY_EXISTS.
   * With `into`, an exact dataset's file is appended to that attached stored dataset instead (its
   * documents after the stored ones; into an empty one, with the file's document numbers, so both search
   * alike); the file's descriptor is not used, the stored one's is.
   * @throws (rejects) SNAPSHOT_INCOMPATIBLE, ALREADY_EXISTS, NOT_FOUND (`into` is not loaded),
   *   INVALID_OPTIONS (`into` is not a stored dataset, or the file holds a portrait), STORE_UNAVAILABLE
   * @example
   * const stats = await corpus.importDataset(bytes)
   * await corpus.importDataset(bytes, { into: 'books' })   // 'books': a dataset kept in PostgreSQL
   */
  async importDataset(bytes: Uint8Array, options: DatasetImportOptions = {}): Promise<DatasetStats> {
    this.assertLive();
    if (options === null || typeof options !== 'object') {
      throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
    }
    const background =
      options.background === undefined ? undefined : checkPortraitBackground(options.background, 'options.background');
    const provenance = provenanceOf({ supplied_by: options.supplied_by, account: options.account });
    const into = options.into === undefined ? undefined : this.sets.get(options.into);
    if (options.into !== undefined && !into) throw new TrainprintError('NOT_FOUND', `no dataset "${options.into}"`);
    const target = into?.copyTarget();
    // in memory, an exact dataset's texts are decoded when first aligned; a database copies them all
    if (options.adopt !== undefined && typeof options.adopt !== 'boolean') {
      throw new TrainprintError('INVALID_OPTIONS', 'options.adopt must be a boolean');
    }
    const data = target ? decodeDataset(bytes, { kind: 'any' }) : decodeDatasetLazily(bytes, { adopt: options.adopt });
    if (data.descriptor.kind === 'exact' && data.params !== DATASET_PARAMS) {
      throw new TrainprintError(
        'SNAPSHOT_INCOMPATIBLE',
        `params mismatch: snapshot has ${JSON.stringify(data.params)}, expected ${JSON.stringify(DATASET_PARAMS)}` +
          olderNormalizer(data.params, DATASET_PARAMS),
      );
    }
    if (target) {
      if ('filters' in data) throw new TrainprintError('INVALID_OPTIONS', 'a portrait cannot be stored in a database');
      checkPostings(data);
      try {
        await target.copyFrom(asSource(data), pairsIn(this.core()));
      } catch (e) {
        await target.finishLoad().catch(() => undefined);
        throw e;
      }
      await target.finishLoad();
      this.changed(target.descriptor.id);
      return target.stats();
    }
    if (this.sets.has(data.descriptor.id))
      throw new TrainprintError('ALREADY_EXISTS', `dataset "${data.descriptor.id}" is already loaded`);
    checkLinks(this.links, data.descriptor);
    const core2 = await Core.create(await compileCore(this.variant));
    if (background && !('filters' in data))
      throw new TrainprintError('INVALID_OPTIONS', 'background is an option of portrait files only');
    let ds: LoadedDataset;
    if ('filters' in data) {
      const portrait = PortraitDataset.fromData(core2, data);
      if (background) portrait.setBackground(background);
      ds = new MemoryPortrait(portrait);
    } else ds = new MemoryExact(ExactDataset.fromData(core2, data), this.core);
    this.sets.set(ds.descriptor.id, ds);
    this.provenances.set(ds.descriptor.id, provenance);
    this.changed(ds.descriptor.id);
    return ds.stats();
  }

  /**
   * The content-word pair index of an exact dataset in memory that keeps its texts, as bytes (async): the index its
   * reworded searches look candidates up in, built now if no search has built it yet. A later process that loads the
   * same dataset hands it back with {@link importContentIndex}, and its first reworded search does not build it
   * again (for 5 MB of kept text that build is about 0.25 s of CPU). The file names the dataset's content digest
   * and how its pairs were made, so it is refused by a dataset of other documents and by a library that pairs words
   * otherwise.
   * @throws (rejects) NOT_FOUND (no such dataset), NOT_SUPPORTED (not an exact dataset in memory that keeps its texts)
   * @example await writeFile('books.tpci', await corpus.exportContentIndex('books'))
   */
  async exportContentIndex(id: string): Promise<Uint8Array> {
    const d = this.contentIndexed(id);
    const digest = await this.datasetDigest(id);
    return encodeContentIndex(d.contentIndex(), digest);
  }

  /**
   * Hands an exact dataset in memory the content-word pair index that {@link exportContentIndex} wrote for it
   * (async), so that no search builds it. The file is checked first: its checksum, that it was made for this
   * dataset's documents (its content digest and count) and the way this library pairs words, and that its postings
   * are in order and inside the documents.
   * @throws (rejects) NOT_FOUND, NOT_SUPPORTED (as exportContentIndex), SNAPSHOT_INCOMPATIBLE (not such a file,
   *   corrupted, or made for other documents or by a library that pairs words otherwise), INVALID_INPUT (not bytes)
   * @example await corpus.importContentIndex('books', new Uint8Array(await readFile('books.tpci')))
   */
  async importContentIndex(id: string, bytes: Uint8Array): Promise<void> {
    const d = this.contentIndexed(id);
    if (!(bytes instanceof Uint8Array)) throw new TrainprintError('INVALID_INPUT', 'bytes must be a Uint8Array');
    const digest = await this.datasetDigest(id);
    d.adoptContentIndex(decodeContentIndex(bytes, { digest, chars: d.documentChars() }));
  }

  /** The exact dataset in memory `id` that keeps its texts, which a content-word pair index is made of. */
  private contentIndexed(id: string): MemoryExact {
    this.assertLive();
    this.refuseRemote(id, 'a content index');
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    if (!(d instanceof MemoryExact) || !d.keepsText)
      throw new TrainprintError(
        'NOT_SUPPORTED',
        `dataset "${id}" has no content index of its own: it is made of the texts an exact dataset in memory keeps`,
      );
    return d;
  }

  /**
   * Declare what a loaded dataset samples (sync): `kb_dataset` (a knowledge-base dataset id) and/or
   * `models` (KB model ids); `null` removes a declaration. Attributions derived from it are labelled
   * as declared. Kept in the dataset's descriptor (and in its exported file). Monitors re-evaluate.
   * @throws NOT_FOUND (unknown dataset, KB dataset or model), INVALID_INPUT naming the field (its contract's)
   * @example corpus.declareDataset('my-crawl', { kb_dataset: 'common-crawl' })
   */
  declareDataset(id: string, declaration: DatasetDeclaration): DatasetStats {
    this.assertLive();
    this.refuseRemote(id, 'declaring (a remote corpus is declared when it is added)');
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    d.checkDeclarable();
    const { kb_dataset, models } = readThrough(DECLARE_DATASET_REQUEST, declaration, undefined);
    const next = {
      kb_dataset: kb_dataset === undefined ? d.descriptor.kb_dataset : (kb_dataset ?? undefined),
      models: models === undefined ? d.descriptor.models : (models ?? undefined),
    };
    checkLinks(this.links, next);
    const { kb_dataset: _k, models: _m, ...rest } = d.descriptor;
    d.descriptor = {
      ...rest,
      ...(next.models === undefined ? {} : { models: next.models.map((m) => this.links.model(m)) }),
      ...(next.kb_dataset === undefined ? {} : { kb_dataset: this.links.dataset(next.kb_dataset) }),
    } as typeof d.descriptor;
    this.changed(id);
    return d.stats();
  }

  /**
   * The content digest of an exact dataset (hex SHA-256, src/corpus/digest.ts): the same for the same documents
   * whether built here, imported from a dataset file or attached from a database (read once there, kept until the
   * dataset grows).
   * @throws (rejects) NOT_FOUND (no such dataset), NOT_SUPPORTED (not an exact dataset), STORE_UNAVAILABLE
   * @example await corpus.datasetDigest('books') // '9d4e…' (64 hex digits)
   */
  async datasetDigest(id: string): Promise<string> {
    this.assertLive();
    this.refuseRemote(id, 'a digest');
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    const documents = d.stats().documents;
    const kept = this.digests.get(d);
    if (kept && kept.documents === documents) return kept.digest;
    const digest = d.digest();
    this.digests.set(d, { documents, digest });
    digest.catch(() => this.digests.delete(d));
    return digest;
  }

  /** The descriptor of a loaded dataset. @throws NOT_FOUND @example corpus.descriptor('books').kb_dataset */
  descriptor(id: string): DatasetDescriptor {
    const d = this.sets.get(id);
    if (!d && this.remotes.has(id)) return this.remotes.descriptor(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    return d.descriptor;
  }

  /** Throws ENGINE_DISPOSED once the engine is disposed. */
  private assertLive(): void {
    this.core();
  }

  /** Drop every dataset (the engine's dispose). */
  clear(): void {
    this.sets.clear();
    this.remotes.clear();
    this.provenances.clear();
  }
}

/** Two hits at least 4 words apart (measured: 0 false matches in 4,645 clean negatives, bench/eval-retrieval.mjs). */
const DEFAULT_MIN_TOKENS = 8;
/** Smallest estimated Jaccard similarity of a reported near-duplicate document. */
const DEFAULT_NEAR = 0.5;

/**
 * A local search's result with what the remote corpora and evidence sources found: their matches, coverage and
 * details, and the remote corpora's reports (a search that consulted none has no `remote`).
 */
function withSources(local: DetailedSearch, found: SourcesFound): DetailedSearch {
  const { matches, coverage } = local.result;
  const near = matches.filter((m) => m.kind === 'near');
  const merged = [
    ...mergeSourceMatches(
      matches.filter((m) => m.kind !== 'near'),
      [...found.matches.values()].flat(),
    ),
    ...near,
  ];
  const cov = { ...coverage };
  const details = new Map(local.details);
  for (const [id, detail] of found.details) {
    // a remote corpus that answered nothing was not searched: no detail, no coverage of 0 (its report says why)
    if (detail.kind === 'remote' && unmeasured(detail.search.report)) continue;
    cov[id] = tokenCoverage(found.matches.get(id)!, local.fingerprint);
    details.set(id, detail);
  }
  const remote = found.reports.length > 0 ? { remote: found.reports } : {};
  return { ...local, result: { ...local.result, matches: merged, coverage: cov, ...remote }, details };
}

/** Candidate documents aligned per search, and the most a caller may ask for. */
const DEFAULT_CANDIDATES = 50;
const MAX_CANDIDATES = 1000;
/**
 * The alignment's work budget: 2²³ characters aligned, about twice what a 200,000-character query edited every fourth
 * word aligns against five books (4.6 M characters with 27 candidates, 2.3–2.6 s on a loaded 2-core machine). It
 * decides the result.
 */
const DEFAULT_ALIGN_BUDGET_CHARS = 1 << 23;
/**
 * The alignment's time limit (ms), and the largest a caller may set (one minute): a safety net only, for a machine
 * so loaded that the work budget would take many times as long (the result then says so).
 */
const DEFAULT_ALIGN_BUDGET_MS = 30_000;
const MAX_ALIGN_BUDGET_MS = 60_000;
/** Queries: every shingle is looked up, so no winnowing; the same MinHash as the documents. */
const SEARCH_OPTIONS = resolveOptions({ minhash: NEAR_MINHASH, simhash: false, workHash: false, winnow: false });
/** The query's fingerprint of a search for copies only (`reworded: false`): no MinHash, as no near duplicate is looked up. */
const COPY_SEARCH_OPTIONS = resolveOptions({ minhash: false, simhash: false, workHash: false, winnow: false });
/** Furthest apart two found 5-grams of one run are (in shingles): what a seed chain bridges. */
const RUN_GAP = chainGap(EXACT_WINDOW, EXACT_SIZE);

/**
 * The runs of found shingles (`hitAt[k]` 1) no two of which are further apart than RUN_GAP, in order, each given to
 * `run` as its first and last shingle.
 */
function foundRuns(hitAt: Uint8Array, run: (first: number, last: number) => void): void {
  // from one found shingle to the next by indexOf: a loop over every shingle here runs as baseline code in a scan
  let first = hitAt.indexOf(1);
  for (let last = first; first >= 0; ) {
    const next = hitAt.indexOf(1, last + 1);
    if (next < 0 || next - last > RUN_GAP) {
      run(first, last);
      first = next;
    }
    last = next;
  }
}

/** The query span of shingles first … last (withShingleHashes's reader). */
type ShingleSpan = (first: number, last: number) => [number, number];

/** A batch for {@link Corpus.addFingerprintedDocuments}: documents and their fingerprints, same order. */
export interface FingerprintedDocuments {
  readonly documents: readonly DatasetDocument[];
  readonly fingerprints: FingerprintBatch;
}

/** What `ExactDataset.fromData` checks of a file beyond its decoding: postings inside their documents. */
function checkPostings(data: ExactDatasetData): void {
  for (let i = 0; i < data.keys.length; i++) {
    if (data.postEnd[i] > data.docs[data.postDoc[i]].chars) {
      throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `posting ${i} ends past its document`);
    }
  }
}

/** A decoded exact dataset as an export source (its columns read in place). */
function asSource(data: ExactDatasetData): ExactDatasetSource {
  const chunked = <T extends BigUint64Array | Uint32Array>(a: T) => ({
    length: a.length,
    read: (from: number, to: number) => a.subarray(from, to) as T,
  });
  return {
    ...data,
    keys: chunked(data.keys),
    postDoc: chunked(data.postDoc),
    postStart: chunked(data.postStart),
    postEnd: chunked(data.postEnd),
  };
}

/** A document's id is {@link DOCUMENT_ID} (INVALID_INPUT naming it: `documents[3].id`, as over HTTP). */
function checkDocument(doc: DatasetDocument, at: number): void {
  if (!doc || typeof doc !== 'object') invalidField(`documents[${at}]`, SCHEMA_WORDS.object);
  checkSchema(DOCUMENT_ID, doc.id, `documents[${at}].id`);
}

/** `d` read through its contract ({@link CREATE_DATASET_REQUEST}), its declarations naming knowledge-base entries. */
function readDescriptor(d: DatasetDescriptor, links: DescriptorLinks): DatasetDescriptor {
  const descriptor = readThrough(CREATE_DATASET_REQUEST, d, undefined);
  checkLinks(links, descriptor);
  return descriptor;
}

/**
 * A descriptor's declarations must name knowledge-base entries: `kb_dataset` a curated dataset
 * id, `models` KB model ids (NOT_FOUND otherwise, naming the unknown id).
 */
function checkLinks(
  links: DescriptorLinks,
  d: { readonly kb_dataset?: string; readonly models?: readonly string[] },
): void {
  if (d.kb_dataset !== undefined) links.dataset(d.kb_dataset);
  for (const m of d.models ?? []) links.model(m);
}

/** How the search of `s` gives dataset `d`'s content-word pair index (set when `d` was searched: ./search-exact.ts). */
function pairIndexOf(s: LocalSearch, d: ExactSearchable): PairIndex {
  const index = s.pairIndexes.get(d);
  if (!index) throw new TrainprintError('INTERNAL', `dataset "${d.descriptor.id}" was not searched`);
  return index();
}
