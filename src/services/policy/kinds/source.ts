/**
 * Evidence sources of the caller's (src/corpus/source.ts): the source measured its own null and gives its chance with
 * the counts behind it; the engine checked them and reads them as it reads an exact dataset's — its passages give the
 * spans of the source, its strength is read with the exact fit, its reuse gives the same factors.
 */
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { SourceMatch } from '../../../datasets/types.js';
import { countedChance } from './chance.js';
import { ALIGNED_EDGE_SLACK, type EvidenceKind, type MatchKind, PASSAGE_EVIDENCE } from './kind.js';

export const SOURCE: EvidenceKind<Extract<DatasetSearchDetail, { kind: 'source' }>> = {
  ...PASSAGE_EVIDENCE,
  synchronous: false,
  chance: ({ search: s }) => countedChance(s.tested, s.found, s.background_rate, s.runs, s.chance),
};

export const SOURCE_MATCH: MatchKind<SourceMatch> = {
  headlineWords: (m) => m.tokens,
  edgeSlack: ALIGNED_EDGE_SLACK,
  passage: true,
  sharedDocuments: false,
  run: (m) => (m.reuse === 'verbatim' ? m.tokens : 0),
  describe: (m, where) =>
    `a passage of ${m.tokens} words (${where}) is in document "${m.document_id}" of evidence source "${m.dataset_id}"`,
  document: (m) => `${m.dataset_id}\u0000${m.document_id}`,
  reprinted: () => false,
};
