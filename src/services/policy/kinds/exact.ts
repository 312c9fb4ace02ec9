/**
 * Exact datasets (in memory or kept in PostgreSQL): the query's word 5-grams looked up among the dataset's winnowed
 * fingerprints are the places, a match's seed hits its chain (./chance.ts), and the passages aligned with the
 * documents' text carry their own content-word evidence. Their matches give spans in the source documents; near
 * duplicates are whole documents like the query.
 */
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { ExactMatch, NearMatch } from '../../../datasets/types.js';
import { chainChance, withAligned } from './chance.js';
import { ALIGNED_EDGE_SLACK, type EvidenceKind, type MatchKind, PASSAGE_EVIDENCE } from './kind.js';

export const EXACT: EvidenceKind<Extract<DatasetSearchDetail, { kind: 'exact' }>> = {
  ...PASSAGE_EVIDENCE,
  synchronous: true,
  chance: (detail) => withAligned(chainChance(detail.search), detail.aligned),
};

export const EXACT_MATCH: MatchKind<ExactMatch> = {
  headlineWords: (m) => m.tokens * m.score,
  edgeSlack: ALIGNED_EDGE_SLACK,
  passage: true,
  sharedDocuments: true,
  run: (m) => m.tokens,
  describe: (m, where) =>
    `a passage of ${m.tokens} words (${where}) matches document "${m.document_id}"${m.reuse === 'verbatim' ? '' : ` (${m.reuse})`}`,
  document: (m) => `${m.dataset_id}\u0000${m.document_id}`,
  // an analysis counts the documents of the dataset whose matches cover the passage (src/services/analyze/shared-text.ts)
  reprinted: (m) => ((m as { readonly shared_documents?: number }).shared_documents ?? 1) >= 2,
};

/** Estimated Jaccard from which a near-duplicate is the whole content: the document is nearly all of it. */
export const WHOLE_CONTENT = 0.9;

export const NEAR_MATCH: MatchKind<NearMatch> = {
  headlineWords: (m) => (m.score < WHOLE_CONTENT ? 0 : m.tokens),
  edgeSlack: ALIGNED_EDGE_SLACK,
  passage: false,
  sharedDocuments: false,
  run: () => 0,
  describe: (m) =>
    `${m.score < WHOLE_CONTENT ? 'much of the content is like' : 'the whole content is a near-duplicate of'} document "${m.document_id}" (estimated Jaccard ${m.score.toFixed(2)})`,
  document: () => null,
  reprinted: () => false,
};
