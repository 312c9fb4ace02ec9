/**
 * One search of the loaded datasets, as the kinds' steps share it (./search-exact.ts, ./search-portrait.ts): the
 * query's fingerprints and content-word pairs, asked for once, and what each dataset adds — its matches, coverage
 * and detail, and for exact datasets the candidates the second stage aligns (./corpus.ts runs the two stages).
 */
import type { Core } from '../core/abi.js';
import type { ExactSearch, ExactSearchable } from '../datasets/exact.js';
import type { TrainprintError } from '../errors.js';
import type { NearMatch, PortraitHit, SearchMatch } from '../datasets/types.js';
import type { Fingerprint } from '../types.js';
import { PAUSE, type Pause } from '../util/steps.js';
import { alignSteps, mergeAligned, type AlignBudget, type AlignmentJob, type PairLookup } from './alignment.js';
import type { ContentPairs } from './content-pairs.js';
import type { PairIndex, QueryPostings } from './content-words.js';
import { tokenCoverage } from './coverage.js';
import type { DatasetCoverage, DatasetSearchDetail, DetailedSearch, SearchResult } from './types.js';
import type { PureWork } from './work.js';

/** The options of one search, checked (src/corpus/types.ts SearchOptions). */
export interface LocalSearchOptions {
  readonly minTokens: number;
  readonly alpha: number;
  readonly near: number;
  readonly portraitHits: boolean;
  /** Candidates aligned at most (0: no alignment). */
  readonly limit: number;
  /** Reworded reuse searched too (SearchOptions.reworded): pair candidates, near duplicates, paraphrases. */
  readonly reworded: boolean;
  /** Fewest distinct exact hits in a candidate's best region for it to be aligned (SearchOptions.candidateHits). */
  readonly candidateHits: number;
  /** Candidates aligned with synonyms (SearchOptions.synonyms). */
  readonly synonyms: boolean;
  /** Candidates that a copy explains settled by comparing words, before the aligner (SearchOptions.copiesFirst). */
  readonly copiesFirst: boolean;
  /** Each dataset's coverage of the query measured for the result (SearchOptions.coverage). */
  readonly coverage: boolean;
}

/** The state of one search (see the module comment). */
export interface LocalSearch {
  readonly query: string;
  readonly options: LocalSearchOptions;
  /** The query's fingerprint with the exact datasets' parameters. */
  readonly fp: Fingerprint;
  /** Portrait window → the query winnowed with it. */
  readonly winnowed: Map<number, Fingerprint>;
  readonly matches: SearchMatch[];
  readonly nearMatches: NearMatch[];
  readonly coverage: Record<string, DatasetCoverage>;
  readonly portraitRuns: PortraitHit[];
  readonly details: Map<string, DatasetSearchDetail>;
  /** The alignment's candidates, across exact datasets. */
  readonly jobs: AlignmentJob[];
  /** Each exact dataset searched (or what the query fetched of a stored one), with its search. */
  readonly exact: Array<{ d: ExactSearchable; r: ExactSearch }>;
  readonly searched: Map<string, ExactSearchable>;
  /** The query's content-word pairs (asked for once). */
  pairsOfQuery(): ContentPairs;
  /**
   * Each exact dataset's content-word pair index as its search has read it; {@link pairIndexes} gives it where the
   * search has not (an in-memory dataset's is built then).
   */
  readonly indexes: Map<ExactSearchable, PairIndex>;
  /** How each exact dataset searched gives its content-word pair index (./search-exact.ts sets it). */
  readonly pairIndexes: Map<ExactSearchable, () => PairIndex>;
  /** Where the query's pairs sit in each index, looked up once for candidates and backgrounds. */
  readonly postings: Map<ExactSearchable, QueryPostings>;
  pairIndexOf(d: ExactSearchable): PairIndex;
  postingsOf(d: ExactSearchable): QueryPostings;
}

/** A step of a search that waits for a stored dataset's database: only the async search can take it. */
export interface Fetch {
  readonly kind: 'fetch';
  /** What the sync search throws instead (NOT_SUPPORTED, naming the dataset and where it is kept). */
  notSynchronous(): TrainprintError;
  /** The fetch: what the search then reads of the dataset. */
  run(): Promise<ExactSearchable>;
}

/**
 * The second stage and the result: the strongest candidates aligned with the query (./alignment.ts), their passages
 * replacing the seed matches of their datasets; then every match sorted and the near duplicates after them.
 */
export function* alignedResultSteps(
  core: Core,
  s: LocalSearch,
  budget: AlignBudget,
  now: () => number,
): Generator<Pause | PureWork, DetailedSearch, unknown> {
  const pairsOf: PairLookup = {
    query: s.pairsOfQuery,
    holderOf: (d, doc) => {
      const index = s.pairIndexOf(d),
        at = s.postingsOf(d);
      return (i) => index.holdsAt(at, i, doc);
    },
  };
  const { aligned, evidence, report } = yield* alignSteps(
    core,
    s.query,
    s.jobs,
    s.options.limit,
    budget,
    pairsOf,
    now,
    s.options.reworded,
    s.options.synonyms,
    s.options.copiesFirst,
  );
  const { details, matches, fp } = s;
  for (const { d, r } of s.exact) {
    const id = d.descriptor.id;
    const found = evidence.get(id);
    if (found)
      details.set(id, { ...(details.get(id) as Extract<DatasetSearchDetail, { kind: 'exact' }>), aligned: found });
    const own = mergeAligned(r.matches, aligned.get(id), (docId) => d.documentIndex(docId));
    if (s.options.coverage) s.coverage[id] = tokenCoverage(own, fp);
    // one at a time: a spread passes every match as an argument, and a repetitive query has hundreds of thousands
    // (a 2 MB text of one sentence repeated: RangeError, maximum call stack size exceeded)
    for (const m of own) matches.push(m);
    yield PAUSE;
  }
  // Longest first, each passage's words weighed by its score (a verbatim copy of MIT's 163 words before BSL-1.0's
  // looser alignment of 165 at 0.63); among equally long passages (one passage copied into many documents) the one
  // whose words are most alike first (BSD-3-Clause before BSD-3-Clause-HP, whose "the HP" and "THE AUTHOR" the
  // alignment bridges: 95 % of the words in shared runs), then the document the match covers most completely — the share of the
  // document's characters the content's passage shows, times its score: the short document that is mostly this
  // passage is the likelier original than the long one quoting it. The content's side counts, not the document's: a
  // document span that runs over words the content lacks (JSON's "The Software shall be used for Good, not Evil."
  // inside MIT's text) covers no more of it.
  // once per match (a comparison asks it again and again; its document lookup is not free)
  const covers = new Map<SearchMatch, number>();
  const cover = (m: SearchMatch): number => {
    let c = covers.get(m);
    if (c === undefined) {
      const d = m.document_id === null ? undefined : s.searched.get(m.dataset_id);
      const at = d ? d.documentIndex(m.document_id!) : -1;
      const shown = Math.min(m.query_end - m.query_start, (m.source_end ?? 0) - (m.source_start ?? 0));
      c = d && at >= 0 ? (m.score * shown) / d.document(at).chars : 0;
      covers.set(m, c);
    }
    return c;
  };
  // the share of the passage's words in runs the document shares (1 for a copy word for word)
  const alike = (m: SearchMatch): number => (m.kind === 'exact' ? m.similarity : 1);
  matches.sort(
    (a, b) =>
      b.tokens * b.score - a.tokens * a.score ||
      alike(b) - alike(a) ||
      cover(b) - cover(a) ||
      a.query_start - b.query_start,
  );
  s.nearMatches.sort((a, b) => b.score - a.score);
  for (const m of s.nearMatches) matches.push(m);
  const result: SearchResult = { matches, coverage: s.coverage, query_tokens: fp.token_count, alignment: report };
  return {
    result: s.options.portraitHits ? { ...result, portrait_hits: s.portraitRuns } : result,
    details,
    fingerprint: fp,
  };
}
