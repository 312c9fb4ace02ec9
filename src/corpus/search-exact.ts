/**
 * An exact dataset's part of a search — in memory (src/datasets/exact.ts) or kept in a database (./stored.ts: what
 * the query's keys hit is fetched first, then searched by the same code): its seed matches and their chains, its
 * near-duplicate documents, and its candidates for the second stage, documents with hits or with shared pairs of
 * content words (./content-words.ts), which ./alignment.ts aligns with the query.
 */
import type { AlignedEvidence } from './types.js';
import { ExactDataset, type ExactSearchable } from '../datasets/exact.js';
import { PAUSE, type Pause } from '../util/steps.js';
import { withPairCandidates } from './alignment.js';
import type { PairCandidate } from './content-words.js';
import type { Fetch, LocalSearch } from './local-search.js';
import { ExactSlice, type StoredExactDataset } from './stored.js';
import type { PureWork } from './work.js';

/** Shingle size and winnowing window of the exact datasets (DATASET_PARAMS). */
export const EXACT_SIZE = 5;
export const EXACT_WINDOW = 8;
/** An exact dataset's alignment evidence before the second stage has aligned anything. */
export const NOTHING_ALIGNED: AlignedEvidence = Object.freeze({ documents: 0, queryPairs: 0, passages: [] });

/** Search exact dataset `d` for the query of `s`, adding its seed matches, near duplicates and candidates to `s`. */
export function* searchExactSteps(
  d: ExactDataset | StoredExactDataset,
  s: LocalSearch,
): Generator<Pause | PureWork | Fetch, void, unknown> {
  const id = d.descriptor.id;
  const { fp, query } = s;
  const { minTokens, limit, near, reworded, candidateHits } = s.options;
  const pairs = reworded && limit > 0 && d.keepsText ? s.pairsOfQuery() : null;
  // a stored dataset: what the query's keys hit is fetched first, then searched as in memory
  const x: ExactSearchable =
    d instanceof ExactDataset
      ? d
      : ((yield {
          kind: 'fetch',
          dataset: d,
          run: () =>
            d.prepare({
              fp,
              pairs,
              window: EXACT_WINDOW,
              size: EXACT_SIZE,
              minTokens,
              limit,
              candidateHits,
              queryChars: query.length,
            }),
        }) as ExactSlice);
  s.searched.set(id, x);
  const r =
    x instanceof ExactDataset
      ? yield* x.searchSteps(fp, EXACT_WINDOW, EXACT_SIZE, minTokens)
      : x.search(fp, EXACT_WINDOW, EXACT_SIZE, minTokens);
  yield PAUSE;
  const nearFound = reworded ? x.searchNear(fp.minhash!, near, query.length, fp.token_count) : [];
  s.nearMatches.push(...nearFound);
  let pairCandidates: PairCandidate[] | null = null;
  if (pairs && x instanceof ExactSlice) pairCandidates = x.pairCandidates;
  else if (pairs) {
    if (x instanceof ExactDataset) {
      const index = yield* s.contentIndexSteps(x);
      s.indexes.set(x, index);
      s.postings.set(x, yield* index.postingSteps(pairs));
    }
    pairCandidates = yield* s.pairIndexOf(x).candidateSteps(pairs, s.postingsOf(x));
  }
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
