/**
 * Remote corpus datasets: what `engine.addRemoteDataset` takes, and what a search of one gives — the matches,
 * the counts behind its evidence, and a report of what was asked of whom.
 */
import type { RemoteMatch } from '../datasets/types.js';

/** How a transport behaves; every member has a default. */
export interface TransportOptions {
  /** Per call, the whole request and body. @default 10_000 */
  readonly timeoutMs?: number;
  /** Retries after the first attempt of a call (429, 5xx, network errors, timeouts). @default 3 */
  readonly maxRetries?: number;
  /** Back-off base: the n-th retry waits up to `retryBaseMs · 2^(n−1)` (full jitter). @default 250 */
  readonly retryBaseMs?: number;
  /** Cap on one wait, `Retry-After` included; a longer `Retry-After` ends the call as rate limited. @default 10_000 */
  readonly maxRetryDelayMs?: number;
  /** Calls in flight per endpoint in this process. @default 8 */
  readonly concurrency?: number;
  /** Calls started per second per endpoint in this process (a token bucket). @default 150 */
  readonly ratePerSecond?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default setTimeout */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
}

/** Closest sampling of an infini-gram search, in tokens: texts longer than the budget covers are sampled more sparsely. */
export const MIN_STRIDE_TOKENS = 16;
/** Words of an infini-gram mini tile, its closest sampling. */
export const TILE_WORDS = 10;

/**
 * The widest sampling at which a 60-word copy (≈ 80 tokens, 6 tiles) still gets ≥ 3 samples: the spacing the
 * targets are measured at (a 2,000-word text within its budget). Sparser sampling — a text longer than its
 * budget covers — is a limitation of the result (`remote_corpus_sampled`).
 */
export const FULL_COVERAGE_STRIDE: Readonly<Record<'tokens' | 'words', number>> = Object.freeze({
  tokens: 24,
  words: 12,
});

/** The engines this client speaks to. */
export type RemoteEngineKind = 'infini-gram' | 'infini-gram-mini';

/** The public endpoints of the two engines. */
export const PUBLIC_ENDPOINTS: Readonly<Record<RemoteEngineKind, string>> = Object.freeze({
  'infini-gram': 'https://api.infini-gram.io/',
  'infini-gram-mini': 'https://api.infini-gram-mini.io/',
});

/**
 * A remote corpus to search (`engine.addRemoteDataset`). Only `id`, `kind` and `index` are required; a public
 * index of the knowledge base gets its `kb_dataset` from there.
 * @example { id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' }
 */
export interface RemoteDatasetConfig extends TransportOptions {
  /** Stable id, 1–200 characters (the `dataset_id` of its matches). */
  readonly id: string;
  /** Which engine's API the endpoint speaks. */
  readonly kind: RemoteEngineKind;
  /** The engine's URL. @default the public service of `kind` (api.infini-gram.io, api.infini-gram-mini.io) */
  readonly endpoint?: string;
  /** The index name the API takes, e.g. `v4_piletrain_llama`, `v2_cc_2025-30`. */
  readonly index: string;
  /** The knowledge-base dataset the index's corpus is. @default the knowledge base's entry for a public index; none for others */
  readonly kb_dataset?: string;
  /** Models documented to have trained on this corpus (`provider/model`), beyond what the knowledge base links. */
  readonly models?: readonly string[];
  readonly name?: string;
  /**
   * Calls one search may make, every request to the engine counted (document fetches too): at most
   * `min(maxCalls, 50 + words / 10)` for a text of `words` words (250 for 2,000 words, 400 from 3,500); a work of
   * more than 22 words per call (8,800 at the default) is searched by sampling its passages with all of them
   * (docs/works.md). @default 400
   */
  readonly maxCalls?: number;
  /**
   * The whole search, all calls together: its samples stop at 70 % of it, the documents of what they found are
   * fetched in the rest, and a search the deadline cut short keeps what it found (`deadline_reached`). @default 25_000
   */
  readonly deadlineMs?: number;
  /** A span that occurs at least this often in the corpus is boilerplate: shown, left out of the evidence. @default 1000 */
  readonly boilerplate_count?: number;
  /** How long answers kept in the store stay valid (monitors, scores). @default 30 */
  readonly cacheDays?: number;
}

/** How a remote corpus's part of a search ended. */
export type RemoteOutcome =
  | 'searched'
  | 'unreachable'
  | 'rate_limited'
  | 'budget_exhausted'
  | 'deadline_reached'
  | 'rejected'
  | 'invalid_response'
  | 'cancelled';

/** What a search asked of one remote corpus, and how it went. Every remote corpus consulted has one. */
export interface RemoteCorpusReport {
  readonly dataset_id: string;
  readonly engine: RemoteEngineKind;
  /** Origin and path of the endpoint the text was sent to. */
  readonly endpoint: string;
  readonly index: string;
  readonly outcome: RemoteOutcome;
  /** A sentence on a failure (the endpoint and status, never the text sent). */
  readonly message: string | null;
  /** Calls made (retries included) and answers taken from the cache instead. */
  readonly calls: number;
  readonly cached: number;
  /** The budget of this search. */
  readonly budget: number;
  readonly ms: number;
  /**
   * Places of the text tested (sampled suffixes or tiles) and how far apart, in tokens (infini-gram) or words (mini):
   * the planned stride, or, for a search cut short before it asked every planned place, the widest gap between the
   * places it asked (src/remote/search.ts `spacingAsked`).
   */
  readonly samples: number;
  readonly sampled_every: number;
  readonly unit: 'tokens' | 'words';
  /** Document windows fetched and aligned. */
  readonly documents: number;
  readonly matches: number;
  /**
   * A digest of every answer the search used: `sha256` is the SHA-256 of one line `request answer` (each the SHA-256
   * of that call's JSON) per call, sorted; the list itself is kept with the stored analysis (its evidence bundle).
   */
  readonly transcript: { readonly calls: number; readonly sha256: string };
  /** A long work searched by sampling its passages (docs/works.md): what was drawn, found and estimated. */
  readonly sampling?: RemoteSampling;
}

/**
 * Whether a remote corpus's search measured nothing: it did not end `searched` and no sample was answered (the
 * endpoint down, every call rate-limited or refused). Such a corpus has no evidence either way — no chance, no
 * confidence, no coverage — only its report's outcome and limitation code; a search cut short after some answers keeps
 * what they measured. A report without `samples` (a bare `{ dataset_id }`) counts as measured.
 * @example unmeasured({ outcome: 'unreachable', samples: 0 }) // true
 * @example unmeasured({ outcome: 'deadline_reached', samples: 40 }) // false
 */
export function unmeasured(r: { readonly outcome?: RemoteOutcome; readonly samples?: number }): boolean {
  return r.samples === 0 && r.outcome !== 'searched';
}

/**
 * The counts behind a remote corpus's evidence (services/analyze/evidence.ts reads them with the statistics of an
 * exact dataset: samples as the places tested, each passage's samples as a chain of hits, the aligned passages'
 * content-word pairs against the background of their window). Boilerplate passages and their samples are left out.
 */
/**
 * How a long work was searched by sampling: `passages` of `passage_words` words drawn across it (stratified by
 * section, seeded by `seed`, the SHA-256 of its text), `found` of them in the corpus, and the share of the work the
 * corpus holds with its 95 % interval (src/corpus/share.ts: recomputable from these fields and the measured
 * `sensitivity` of the search on planted passages).
 */
export interface RemoteSampling {
  readonly method: 'stratified_passages';
  readonly passages: number;
  readonly passage_words: number;
  readonly found: number;
  /**
   * Found passages whose documents were fetched; of those, the ones their document holds (aligned over at least
   * 20 words: they count) and the ones it does not even hold the stretch found in (the engine contradicts itself).
   * Absent from results of versions that did not fetch them. `refuted`: of the fetched, the ones whose document holds
   * the stretch found and not the work's word on either side of it (only what was asked: a chance find, not
   * verified; an engine that reports the reversed control windows found is `invalid_response`, with no share); absent
   * from results of versions that did not count them. `unchecked`: of the fetched, the ones neither verified nor
   * shown not to hold the passage (the document holds the stretch found with the work's words beside it, but aligns
   * with too little of the passage to verify it): no evidence either way — the share counts them at the rate of the
   * checked ones and its interval runs from none of them held to all of them (src/corpus/share.ts); absent from
   * results of versions that counted them as not held.
   */
  readonly documents?: {
    readonly fetched: number;
    readonly verified: number;
    readonly contradicted: number;
    readonly refuted?: number;
    readonly unchecked?: number;
  };
  /** Passages the fetched documents show the corpus holds, searched as the sample was, and found: the detection rate. */
  readonly detection?: { readonly hits: number; readonly trials: number };
  /**
   * The estimate and its 95 % interval. `ci_rule: 'joint'`: one interval for the product of the sample's rates
   * (src/corpus/share.ts `verifiedShare`); absent from results of versions that multiplied each rate's own bound.
   */
  readonly share: { readonly estimate: number; readonly ci_95: readonly [number, number]; readonly ci_rule?: 'joint' };
  /** Planted passages the search finds, of those tried, over the corpus forms measured (kept for reference). */
  readonly sensitivity: { readonly hits: number; readonly trials: number };
  /** The same in the form it finds least: the detection rate's lower end where this run measured none. */
  readonly sensitivity_worst: { readonly hits: number; readonly trials: number };
  /** Passages of texts in no corpus the search finds, of those tried. */
  readonly false_found: { readonly hits: number; readonly trials: number };
  /** First 16 hex digits of the SHA-256 of the work's text: the draw's seed (the same work, the same passages). */
  readonly seed: string;
  /** Passages planned but not asked (the deadline): the sample is the ones asked. */
  readonly skipped: number;
  /** Per stratum (a section of the work, in order): passages drawn and found. */
  readonly sections: ReadonlyArray<{ readonly section: number; readonly passages: number; readonly found: number }>;
}

export interface RemoteSearch {
  /** The places tested, in query order: where each sample's match ends (UTF-16) and whether it hit. */
  readonly samples: { readonly at: Uint32Array; readonly hit: Uint8Array };
  /** The evidence passages (not boilerplate): query span and content-word counts. */
  readonly passages: ReadonlyArray<{
    readonly query_start: number;
    readonly query_end: number;
    /** Distinct sampled content-word pairs of the query span, and how many the source passage holds. */
    readonly pairs: number;
    readonly shared: number;
    /** Share of the query's pairs outside every passage that the passage's document window holds. */
    readonly background: number;
    /** Which window (document) it was aligned in, 0-based. */
    readonly window: number;
  }>;
  /** Distinct sampled content-word pairs of the whole query. */
  readonly queryPairs: number;
  readonly matches: RemoteMatch[];
  readonly report: RemoteCorpusReport;
  /** Every answer used, as request and answer digests, in the order `report.transcript.sha256` hashes them. */
  readonly transcript: ReadonlyArray<{ readonly request: string; readonly answer: string }>;
}

/** How one search runs. */
export interface RemoteSearchOptions {
  /** Cancels the calls in flight and ends the search (`cancelled`). */
  readonly signal?: AbortSignal;
  /** Keep the answers in the engine's store as well (monitors and scores re-check the same work). @default false */
  readonly persist?: boolean;
  /** Calls this search may make, below the dataset's own limit. @default from the text's length */
  readonly maxCalls?: number;
  /**
   * The work's sections (a file's chapters), UTF-16 spans of the text: a long work's passages are drawn from each in
   * proportion to its length. @default the text in ten equal parts
   */
  readonly sections?: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  /** Told the calls made and the budget: at the start and after every call. */
  readonly onCall?: (calls: number, budget: number) => void;
}

/** Health of a remote corpus's endpoint as this process saw it (`/status`). */
export interface RemoteHealth {
  readonly dataset_id: string;
  readonly engine: RemoteEngineKind;
  readonly endpoint: string;
  readonly index: string;
  /** `ok`: the last call was answered; `degraded`: calls fail now and then; `down`: the last calls got no answer; `unknown`: no call yet. */
  readonly state: 'ok' | 'degraded' | 'down' | 'unknown';
  /** Calls this corpus made since the process started (retries once; cancelled ones not), and those that failed. */
  readonly calls: number;
  readonly failures: number;
  readonly last_ok_at: string | null;
  readonly last_failure_at: string | null;
  readonly last_failure: RemoteOutcome | null;
  /** Median latency of the last 100 answered calls, ms. */
  readonly p50_ms: number | null;
}

/** What a remote dataset is to the corpus: its descriptor and stats, its search and its health. */
export interface RemoteSearchable {
  readonly config: RemoteDatasetConfig & { readonly endpoint: string };
  stats(): import('../datasets/types.js').DatasetStats;
  search(text: string, options?: RemoteSearchOptions): Promise<RemoteSearch>;
  health(): RemoteHealth;
}
