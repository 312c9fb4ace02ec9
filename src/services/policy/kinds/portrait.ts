/**
 * Portraits: runs of consecutive hits only, against the portrait's measured background — how often unrelated
 * natural text starts and continues runs of hits in it (src/datasets/background.ts): with π(r) = a · c₁ · cₜ^(r−2)
 * the chance that a run of r fingerprints starts at a place, chance = min(1, K · minⱼ P(Poisson(m · π₍ⱼ₎) ≥ j)) over
 * the K runs of at least two fresh fingerprints. The query's scattered hit count is shown (coverage.membership) but
 * is not evidence: unrelated text of any length shares common phrases with a large corpus. A portrait keeps no
 * positions, so its evidence shows which passages of the query are in the dataset, never where.
 */
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { PortraitMatch } from '../../../datasets/types.js';
import { countedChance } from './chance.js';
import { type EvidenceKind, type MatchKind, runFactors } from './kind.js';

export const PORTRAIT: EvidenceKind<Extract<DatasetSearchDetail, { kind: 'portrait' }>> = {
  fit: 'portrait',
  positions: false,
  wholeText: false,
  synchronous: true,
  // runs only (the search computed their chance): scattered hits never enter it
  chance: ({ search: s }) => countedChance(s.tested, s.hits, s.run_start, s.evidence_runs, s.chance),
  always: (detail) => (detail.search.background_measured ? {} : { limitations: ['portrait_background_not_measured'] }),
  counted: (_, f) => ({
    factors: [...runFactors(f), 'portrait_membership'],
    limitations: ['portrait_no_positions', 'alignment_unavailable'],
  }),
  flaggedChunk: ['portrait_membership'],
  flaggedDataset: [],
};

export const PORTRAIT_MATCH: MatchKind<PortraitMatch> = {
  passage: true,
  sharedDocuments: false,
  run: () => 0,
  describe: (m, where) => `${m.tokens} consecutive words of the content (${where}) are in the portrait`,
};
