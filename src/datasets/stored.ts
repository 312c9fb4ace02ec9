/**
 * Exact datasets whose index lives outside the engine, in a database that can grow past one machine's
 * memory: what such a storage keeps and answers ({@link ExactStorage}). The PostgreSQL one is
 * `createPostgresDataset` of `trainprint/node` (src/store/postgres/dataset.ts); the corpus searches it
 * through src/corpus/stored.ts with the same code as an in-memory {@link ExactDataset}, so the same
 * documents give the same results.
 *
 * A storage keeps, per document: its number (0, 1, … in the order added, as in memory), id, sizes,
 * metadata, MinHash signature and (unless `keep_text: false`) its text; and three posting lists: the
 * winnowed fingerprints (hash → document, span), the sampled content-word pairs of the kept texts
 * (pair hash → document, offset; src/corpus/content-words.ts) and the LSH band keys of the signatures
 * (band key → document). A query is answered in two requests: {@link ExactStorage.lookup} (all three
 * lists for the query's keys) and {@link ExactStorage.documents} (the documents the first one found).
 */
import type { DatasetDescriptor, DocInfo } from './types.js';

/** What a storage says of its dataset. */
export interface StoredDatasetInfo {
  readonly descriptor: DatasetDescriptor & { readonly kind: 'exact' };
  /** The params id of the fingerprints stored (an exact dataset's), recorded by the first batch; '' before. */
  readonly params: string;
  readonly documents: number;
  readonly tokens: number;
  /** UTF-8 bytes of the documents. */
  readonly bytes: number;
  /** Winnowed fingerprints stored (postings). */
  readonly fingerprints: number;
  /** UTF-8 bytes of the texts kept for alignment. */
  readonly text_bytes: number;
  /** Bytes the storage takes for the posting lists and their indexes (not the documents' texts). */
  readonly index_bytes: number;
  /** The kind of storage. */
  readonly storage: 'postgres';
}

/** One document to store. */
export interface StoredDocument extends DocInfo {
  /** Its one-permutation MinHash signature (NEAR_K values). */
  readonly minhash: Uint32Array;
  /** Its text as indexed, or null when the dataset keeps none. */
  readonly text: string | null;
}

/**
 * Documents to append and posting rows, with absolute document numbers. `first` is the number of the
 * first of `documents` and must be the stored document count (CONFLICT otherwise: another writer
 * appended meanwhile). A batch may carry rows only (documents stored by an earlier batch).
 */
export interface StoredBatch {
  /** The params id of the batch's fingerprints: every batch of a dataset has the same (PARAMS_MISMATCH). */
  readonly params: string;
  readonly first: number;
  readonly documents: readonly StoredDocument[];
  readonly fingerprints: {
    readonly doc: Uint32Array;
    readonly hash: BigUint64Array;
    readonly start: Uint32Array;
    readonly end: Uint32Array;
  };
  readonly pairs: { readonly doc: Uint32Array; readonly hash: Uint32Array; readonly offset: Uint32Array };
  readonly bands: { readonly doc: Uint32Array; readonly key: Float64Array };
}

/** The keys one query looks up; each list without repeats. */
export interface StoredLookup {
  readonly shingles: BigUint64Array;
  readonly pairs: Uint32Array;
  /**
   * Most postings returned per pair: a pair held by more documents is too common to make a candidate,
   * so only that fact matters (it still counts in {@link StoredDocumentsRequest.commonPairs}).
   */
  readonly pairCap: number;
  readonly bands: Float64Array;
}

/** The postings found; `at` is the position of the key in the lookup's list. */
export interface StoredPostings {
  readonly shingles: {
    readonly at: Uint32Array;
    readonly doc: Uint32Array;
    readonly start: Uint32Array;
    readonly end: Uint32Array;
  };
  readonly pairs: { readonly at: Uint32Array; readonly doc: Uint32Array; readonly offset: Uint32Array };
  readonly bands: { readonly at: Uint32Array; readonly doc: Uint32Array };
}

/** The documents a query needs. */
export interface StoredDocumentsRequest {
  /** Their ids and sizes. */
  readonly docs: Uint32Array;
  /** Of those, the ones whose signatures are needed. */
  readonly signatures: Uint32Array;
  /** Of those, the ones whose texts are needed (the documents to align). */
  readonly texts: Uint32Array;
  /** Pair hashes held by too many documents to look up in full: which of `texts` hold them. */
  readonly commonPairs: Uint32Array;
}

/** One document a query needs, with what was asked of it. */
export interface FetchedDocument {
  readonly info: DocInfo;
  readonly minhash?: Uint32Array;
  /** Present when asked: the text, or null when the dataset keeps none. */
  readonly text?: string | null;
}

/** What {@link ExactStorage.documents} found. */
export interface StoredDocuments {
  readonly docs: ReadonlyMap<number, FetchedDocument>;
  /** The (common pair, document) pairs that exist among those asked for. */
  readonly holds: { readonly pair: Uint32Array; readonly doc: Uint32Array };
}

/**
 * An exact dataset kept by a database. Every method rejects with STORE_UNAVAILABLE when the database
 * cannot be reached and STORE_CLOSED once the storage is closed.
 * @example
 * const storage: ExactStorage = await createPostgresDataset({ url, id: 'books' })   // trainprint/node
 * await engine.attachDataset(storage)
 */
export interface ExactStorage {
  /** The dataset id. */
  readonly id: string;
  /** Where it is kept, for messages: never with a password. */
  readonly label: string;
  info(): Promise<StoredDatasetInfo>;
  /**
   * Appends a batch in one transaction.
   * @throws ALREADY_EXISTS (a document id), CONFLICT (`first`), PARAMS_MISMATCH (`params`)
   */
  append(batch: StoredBatch): Promise<void>;
  /** After a load: builds what lookups need (indexes) where missing, and refreshes the planner's statistics. */
  finishLoad(): Promise<StoredDatasetInfo>;
  lookup(query: StoredLookup): Promise<StoredPostings>;
  documents(request: StoredDocumentsRequest): Promise<StoredDocuments>;
}
