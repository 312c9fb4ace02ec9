/**
 * Search options and results of a {@link Corpus}: what `engine.search` takes and returns, and the
 * per-dataset counts behind a result that the evidence statistics of analyze and score read.
 */
import type { PortraitBackground } from '../datasets/background.js';
import type { ExactSearch } from '../datasets/exact.js';
import type { PortraitSearch } from '../datasets/portrait.js';
import type {
  DatasetDescriptor,
  DatasetDocument,
  DatasetStats,
  NearMatch,
  PortraitHit,
  SearchMatch,
} from '../datasets/types.js';
import type { Fingerprint } from '../types.js';
import type { RemoteCorpusReport, RemoteSearch } from './remote-types.js';
import type { SourceSearch } from './source.js';
import type { Offload } from './work.js';

/**
 * Who supplied a loaded dataset. `shipped`: a reference pack or the starter dataset of the package; `operator`:
 * whoever runs the engine (code, CLI flags, an admin key over HTTP) — the default; `account`: an account of the
 * service, for its own use: only that account's analyses, scores and monitors search it (see
 * {@link SearchOptions.account}), so no account can change what another is told.
 */
export type DatasetSupplier = 'shipped' | 'operator' | 'account';

/** Who supplied a dataset, and for which account (`supplied_by: 'account'` only). */
export interface DatasetProvenance {
  readonly supplied_by: DatasetSupplier;
  /** The account the dataset belongs to; null unless `supplied_by` is `account`. */
  readonly account: string | null;
}

/**
 * How a new dataset is recorded (`addDataset`, `importDataset`): who supplied it. Applies when the dataset is
 * created; documents added later keep it. @default { supplied_by: 'operator' }
 */
export interface DatasetLoadOptions {
  readonly supplied_by?: DatasetSupplier;
  /** Required with `supplied_by: 'account'` (1–256 characters), refused otherwise. */
  readonly account?: string;
}

/** Options of {@link Corpus.importDataset} (`engine.importDataset`). */
export interface DatasetImportOptions extends DatasetLoadOptions {
  /** Append an exact dataset's file to this attached stored dataset instead of loading it as a new one. */
  readonly into?: string;
  /**
   * A portrait file only: its measured background (src/datasets/background.ts), replacing the one the file holds;
   * the reference packs' are listed in their index.
   */
  readonly background?: PortraitBackground;
  /**
   * The caller hands `bytes` over and will neither read nor change them again: a dataset loaded into memory may then
   * keep them and use them in place (an exact dataset's columns and its texts, decoded when first aligned) instead of
   * copying them — no fresh pages for a file's size at import, and the whole file kept while the dataset is loaded.
   * @default false (the loaded dataset shares no memory with `bytes`)
   */
  readonly adopt?: boolean;
}

/** Options of {@link Corpus.search} (`engine.search`). */
export interface SearchOptions {
  /**
   * The account searching: only the datasets every account shares (shipped, operator) and this account's own
   * are searched; another account's datasets are as if not loaded (naming one in `datasets` is NOT_FOUND).
   * @default every dataset (a caller that is not a service of several accounts)
   */
  readonly account?: string;
  /** Only these datasets. @default all loaded */
  readonly datasets?: readonly string[];
  /** Shortest exact passage reported, in query words covered by its matched shingles. @default 8 */
  readonly minTokens?: number;
  /**
   * Portrait datasets: largest chance, per query and dataset, of runs of hits as strong as the ones reported, in
   * unrelated text under the portrait's measured background (src/datasets/background.ts). On 3,420 natural texts
   * in no pack (70 to 100,000 words) none had a match at 1e-4 (3 at 1e-3); a 40-word quotation in 400 words is
   * reported 91 % of the time at 1e-4, 34 % at 1e-6 (bench/eval-false-attribution.mjs).
   * @default 1e-4
   */
  readonly alpha?: number;
  /**
   * Exact datasets: smallest estimated Jaccard similarity (of word 5-gram sets, MinHash-LSH) for
   * a whole indexed document to be reported as a near duplicate of the whole query (`kind:
   * 'near'`, one match per document, in addition to the passage matches). In (0, 1]. The LSH
   * bands (32 × 4) find a document with probability 0.23 at J = 0.3, 0.87 at 0.5, 0.99 at 0.6,
   * so values below ≈ 0.5 catch only some of the documents that similar.
   * @default 0.5
   */
  readonly near?: number;
  /**
   * Also return every run of portrait hits, reportable or not (`portrait_hits`): the raw
   * membership evidence, for a caller who wants to see the single hits that winnowing guarantees
   * for every shared run of ≥ window + 4 words. @default false
   */
  readonly portraitHits?: boolean;
  /**
   * Exact datasets that keep text: how many candidate documents (across datasets, strongest
   * first) are aligned with the query by the compare algorithm; their seed matches are replaced
   * by the aligned passages (spans of edited and reworded reuse, with `reuse` and `similarity`).
   * 0 turns alignment off. Candidates are documents with ≥ 2 distinct exact hits within 256
   * query words, or ≥ 3 shared pairs of nearby content words in one stretch (≥ 1 per 20 query
   * pairs). @default 50
   */
  readonly candidates?: number;
  /**
   * Work budget of the alignment stage, in characters aligned (the query's and the document's windows, summed) and
   * read for the field background of a query that is all passage (each other aligned document's text, once): once
   * spent, the remaining candidates keep their seed matches, documents left unread weigh in no field background,
   * and `alignment.budget_exhausted` is true (a limitation in analyze and score). Counted in work, not time, so the same search gives the same result on
   * any machine and under any load. @default 8388608 (2²³; a 200,000-character query edited every fourth word aligns 4.6 M)
   */
  readonly alignBudgetChars?: number;
  /**
   * Time limit of the alignment stage in milliseconds, a safety net behind `alignBudgetChars`: when the clock
   * stops the alignment first, `alignment.time_limit_reached` is true as well (a limitation in analyze and
   * score: the result then depends on the machine's speed). @default 30000
   */
  readonly alignBudgetMs?: number;
  /**
   * Search the remote corpora too (`addRemoteDataset`; the async search only: the sync one refuses them). false
   * keeps the text on this machine. @default true
   */
  readonly remote?: boolean;
  /** Cancels the calls to remote corpora in flight; their reports then say `cancelled`. */
  readonly signal?: AbortSignal;
  /** Keep the remote corpora's answers in the engine's store as well (scores and monitors re-check works). @default false */
  readonly persistRemote?: boolean;
  /**
   * The text's sections (a file's chapters), UTF-16 spans: a remote corpus searches a long work by passages drawn
   * from each in proportion to its length. @default none: the text in equal parts
   */
  readonly sections?: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  /** Told each remote corpus's calls and budget as its search goes (a progress display). */
  readonly onRemoteCall?: (dataset_id: string, calls: number, budget: number) => void;
  /**
   * @internal Reworded reuse (what `engine.scan` turns off unless asked for paraphrases): false leaves out what
   * only serves it — the content-word pair candidates, the near-duplicate lookup (and the query's MinHash), and
   * the pair backgrounds of aligned passages, whose paraphrase and summary passages are dropped. Copies (verbatim,
   * edited) are found as with true. @default true
   */
  readonly reworded?: boolean;
  /**
   * @internal Whether candidates are aligned with synonyms (what `engine.scan` turns off unless asked for
   * paraphrases): a synonym swap lets a reworded sentence meet its source, and a scan for copies keeps none; without
   * it the first alignment of a process does not wait for the WordNet table (0.25–0.5 s of CPU in a fresh process)
   * and no pair is swapped. The copies' spans and kinds are those with true (a unit test; a scan of 10,000 outputs
   * of bench/scan-cli.mjs's mix gave the same hits byte for byte); their similarity may differ in the third
   * decimal. @default true
   */
  readonly synonyms?: boolean;
  /**
   * @internal Fewest distinct exact hits in a document's best region for it to be aligned (`engine.scan` asks for
   * what a copy of its shortest passage would show; chance candidates, a common phrase or two, are not aligned and
   * keep their seed matches). @default 2
   */
  readonly candidateHits?: number;
  /**
   * @internal Whether a candidate whose seed regions a copy explains — its words equal to the document's in order,
   * a few replaced, inserted or dropped at most — takes that copy's spans from a walk along the words
   * (src/align/copies.ts) instead of the aligner (what `engine.scan` asks for unless asked for paraphrases: in a fresh process the
   * aligner's code runs unoptimised for its first hundred or so alignments, most of a scan's time on outputs that
   * copy). What the walk cannot explain is aligned as before. @default false
   */
  readonly copiesFirst?: boolean;
  /**
   * @internal Whether the result tells how much of the query each dataset's matches cover (`coverage`): a caller that
   * reads the matches alone (`engine.scan`) turns it off, and `coverage` is then empty — a loop over the query's
   * tokens per dataset that a scan of 50 MB of outputs paid ≈ 0.9 % of its main thread's instructions for
   * (callgrind). The matches are the same. @default true
   */
  readonly coverage?: boolean;
}

/**
 * The counts behind the aligned passages of one dataset, for the evidence statistics: per passage,
 * the distinct sampled content-word pairs of its query span, how many of them its source span holds, and
 * the background rate of its document.
 */
export interface AlignedEvidence {
  /** Documents of the dataset aligned with the query. */
  readonly documents: number;
  /** Distinct sampled content-word pairs of the whole query. */
  readonly queryPairs: number;
  /** `background`: the rate at which the rest of the query shares pairs with the passage's document. */
  readonly passages: ReadonlyArray<{ readonly pairs: number; readonly shared: number; readonly background: number }>;
}

/** What the alignment stage of a search did (see `SearchOptions.candidates`). */
export interface AlignmentReport {
  /** Candidate documents found, across the exact datasets searched. */
  readonly candidates: number;
  /** Of those, aligned with the query. */
  readonly aligned: number;
  /** The `candidates` option: most documents aligned. */
  readonly limit: number;
  /** The `alignBudgetChars` option: characters the alignment may align. */
  readonly budget_chars: number;
  /**
   * Characters aligned (query and document windows, summed) and read for field backgrounds: the work done, the
   * same on every run.
   */
  readonly aligned_chars: number;
  /**
   * True when the work budget (or the time limit) stopped the alignment before `limit` candidates, or left an
   * aligned document unread for a field background.
   */
  readonly budget_exhausted: boolean;
  /** The `alignBudgetMs` option: the time limit. */
  readonly budget_ms: number;
  /** True when the time limit, not the work budget, stopped it: this result depends on the machine's speed. */
  readonly time_limit_reached: boolean;
  /** Datasets with candidates that keep no text (`keep_text: false` or an older snapshot): seed matches only. */
  readonly without_text: readonly string[];
}

/**
 * Hit count of a portrait search against how often unrelated natural text hits the portrait: `p_value` =
 * P(X ≥ hits) for X ~ BetaBinomial(tested, background_rate, ρ), with the rate and the between-text dispersion ρ of
 * the portrait's measured background (src/datasets/background.ts). It counts scattered hits — overlaps too short
 * to be a match, and the common phrases of the language, which are real members of any large corpus — so it is
 * shown for the record and never evidence on its own: the evidence is read from runs of consecutive hits.
 */
export interface PortraitMembership {
  readonly tested: number;
  readonly hits: number;
  /** tested × background_rate: the hits unrelated text gives on average. */
  readonly expected: number;
  /** The filter's false-positive rate. */
  readonly fpr: number;
  /** Hits per fingerprint of unrelated natural text (the background's; at least `fpr`). */
  readonly background_rate: number;
  readonly p_value: number;
}

/** Per dataset: how much of the query the matches cover. */
export interface DatasetCoverage {
  /** Share of the query's tokens inside matches, 0..1. */
  readonly share: number;
  /** Longest match, in query tokens. */
  readonly longest_run: number;
  /** Portrait datasets only: the hit count against chance. */
  readonly membership?: PortraitMembership;
}

/** What one dataset's search found, with its counts (see {@link Corpus.searchDetailed}). */
export type DatasetSearchDetail =
  | {
      readonly kind: 'exact';
      readonly search: ExactSearch;
      readonly near: NearMatch[];
      /** The aligned passages' content-word evidence (none when nothing was aligned). */
      readonly aligned: AlignedEvidence;
    }
  | { readonly kind: 'portrait'; readonly search: PortraitSearch; readonly near: NearMatch[] }
  | { readonly kind: 'remote'; readonly search: RemoteSearch }
  | { readonly kind: 'source'; readonly search: SourceSearch };

/** Result of {@link Corpus.search} (`engine.search`). */
export interface SearchResult {
  /**
   * Matched passages (`kind: 'exact' | 'portrait'`), longest first, then the near-duplicate
   * documents (`kind: 'near'`, exact datasets), highest estimated Jaccard similarity first.
   */
  readonly matches: SearchMatch[];
  /** Per dataset id: share of the query's tokens inside matches (0..1) and the longest match in tokens. */
  readonly coverage: Record<string, DatasetCoverage>;
  /** Every run of portrait hits, in query order per dataset (only with `portraitHits: true`). */
  readonly portrait_hits?: PortraitHit[];
  /** Word tokens in the query. */
  readonly query_tokens: number;
  /** What the alignment stage did. */
  readonly alignment: AlignmentReport;
  /**
   * Every remote corpus the search consulted, with its outcome (`searched`, `unreachable`, `rate_limited`,
   * `budget_exhausted`, …), the calls it made and what was sent where; absent when none was.
   */
  readonly remote?: RemoteCorpusReport[];
}

/** Documents to add: any Iterable or AsyncIterable of `{ id, text, meta? }`. */
export type DocumentSource = Iterable<DatasetDocument> | AsyncIterable<DatasetDocument>;

export type { DatasetDeclaration } from '../datasets/types.js';

/** A search with the per-dataset counts behind it and the query's fingerprint (one pass over the query). */
export interface DetailedSearch {
  readonly result: SearchResult;
  readonly details: Map<string, DatasetSearchDetail>;
  readonly fingerprint: Fingerprint;
  /** The query as UTF-8, when `SliceOptions.keepUtf8` asked for it and its fingerprint was made in this thread. */
  readonly utf8?: Uint8Array;
}

/**
 * How a corpus checks and canonicalises the knowledge-base ids a descriptor declares, without
 * depending on the knowledge base itself (it sits above the corpus). Each throws NOT_FOUND for
 * an id it does not know.
 */
export interface DescriptorLinks {
  /** The canonical id of a knowledge-base dataset. */
  dataset(id: string): string;
  /** The canonical id of a knowledge-base model. */
  model(id: string): string;
}

/**
 * How `searchDetailedAsync` (and `analyze`) share the thread: the longest stretch of work between two
 * turns of the event loop, and where the pure pieces run.
 * @example await engine.analyze(request, { sliceMs: 3, offload })
 */
export interface SliceOptions {
  /** Work between two turns of the event loop (ms); 0 yields at every pause point. @default 3 */
  readonly sliceMs?: number;
  /** Runs the query's fingerprints and content-word pairs on another thread. @default in this thread */
  readonly offload?: Offload;
  /**
   * Keep the query's UTF-8 as the core's tokenizer wrote it (`DetailedSearch.utf8`), when its fingerprint is
   * made in this thread: a caller that needs the bytes (analyze's work hash and record) then encodes it once.
   * @default false
   */
  readonly keepUtf8?: boolean;
}

/**
 * How `Corpus.prepareSearch` runs: in slices of `sliceMs`, and with `offload`, the content-word index of a large
 * dataset is made in batches on its `threads` threads (default 1) as well as in the caller's.
 * @example await corpus.prepareSearch({ offload: createWorkerPool() }) // a WorkerPool says its threads
 */
export interface PrepareOptions {
  /** Work between two turns of the event loop (ms); 0 yields at every pause point. @default 3 */
  readonly sliceMs?: number;
  /** Threads that make batches of a content-word index. @default none: all in the caller's thread */
  readonly offload?: Offload & { readonly threads?: number };
}

/** The read side of a corpus that the evidence services use (a {@link Corpus} is one). */
export interface CorpusView {
  datasets(): DatasetStats[];
  descriptor(id: string): DatasetDescriptor;
  searchDetailed(query: string, options?: SearchOptions): DetailedSearch;
  searchDetailedAsync(query: string, options?: SearchOptions, run?: SliceOptions): Promise<DetailedSearch>;
  provenance(id: string): DatasetProvenance;
  visibleTo(id: string, account: string): boolean;
}
