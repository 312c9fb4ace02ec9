/**
 * An exact dataset's part of a search — in memory (src/datasets/exact.ts) or kept in a database (./stored.ts: what
 * the query's keys hit is fetched first, then searched by the same code): its seed matches and their chains, its
 * near-duplicate documents, and its candidates for the second stage, documents with hits or with shared pairs of
 * content words (./content-words.ts), which ./alignment.ts aligns with the query.
 */
import type { AlignedEvidence } from './types.js';
import type { ExactSearch, ExactSearchable } from '../datasets/exact.js';
import type { DatasetDescriptor } from '../datasets/types.js';
import type { Fingerprint } from '../types.js';
import { PAUSE, type Pause } from '../util/steps.js';
import { withPairCandidates } from './alignment.js';
import type { ContentPairs } from './content-pairs.js';
import type { PairCandidate, PairIndex } from './content-words.js';
import type { Fetch, LocalSearch } from './local-search.js';
import type { PureWork } from './work.js';

/** Shingle size and winnowing window of the exact datasets (DATASET_PARAMS). */
export const EXACT_SIZE = 5;
export const EXACT_WINDOW = 8;
/** An exact dataset's alignment evidence before the second stage has aligned anything. */
export const NOTHING_ALIGNED: AlignedEvidence = Object.freeze({ documents: 0, queryPairs: 0, passages: [] });

/**
 * How the search reads one exact dataset — in memory (./memory-exact.ts: the index itself) or kept in a database
 * (./stored.ts: `X` is what the query's keys hit, fetched first) — for {@link searchExactSteps}.
 */
export interface ExactSearchSide<X extends ExactSearchable> {
  readonly descriptor: DatasetDescriptor;
  readonly keepsText: boolean;
  /** What the search reads of the dataset for the query of `s` (`pairs`: its content-word pairs, if aligned). */
  open(s: LocalSearch, pairs: ContentPairs | null): Generator<Fetch, X, unknown>;
  /** The seed search: matches, chains and candidates of the query's fingerprint `fp`. */
  seedSteps(x: X, fp: Fingerprint, minTokens: number): Generator<Pause, ExactSearch, unknown>;
  /** The documents that share content-word pairs with the query: candidates of the second stage. */
  pairCandidateSteps(x: X, pairs: ContentPairs, s: LocalSearch): Generator<Pause, PairCandidate[] | null, unknown>;
  /** Its content-word pair index, where the alignment asks which documents hold a pair. */
  pairIndex(x: X): PairIndex;
}

/** Search exact dataset `d` for the query of `s`, adding its seed matches, near duplicates and candidates to `s`. */
export function* searchExactSteps<X extends ExactSearchable>(
  d: ExactSearchSide<X>,
  s: LocalSearch,
): Generator<Pause | PureWork | Fetch, void, unknown> {
  const id = d.descriptor.id;
  const { fp, query } = s;
  const { minTokens, limit, near, reworded, candidateHits } = s.options;
  const pairs = reworded && limit > 0 && d.keepsText ? s.pairsOfQuery() : null;
  const x = yield* d.open(s, pairs);
  s.searched.set(id, x);
  s.pairIndexes.set(x, () => d.pairIndex(x));
  const r = yield* d.seedSteps(x, fp, minTokens);
  yield PAUSE;
  const nearFound = reworded ? x.searchNear(fp.minhash!, near, query.length, fp.token_count) : [];
  for (const m of nearFound) s.nearMatches.push(m); // not a spread: there may be more than the stack takes
  const pairCandidates = pairs ? yield* d.pairCandidateSteps(x, pairs, s) : null;
  const exact = candidateHits > 2 ? r.candidates.filter((c) => c.hits >= candidateHits) : r.candidates;
  for (const candidate of withPairCandidates(exact, pairCandidates)) {
    s.jobs.push({ dataset: x, candidate });
  }
  s.exact.push({ d: x, r });
  s.details.set(id, { kind: 'exact', search: r, near: nearFound, aligned: NOTHING_ALIGNED });
  yield PAUSE;
}

/** Whether a loaded dataset is an exact one (positions and documents: what a scan searches). */
export const isExactDataset = (d: { readonly kind: string }): boolean => d.kind === 'exact';
