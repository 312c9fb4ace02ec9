/**
 * What an analysis searched: the local datasets (each searched one has an evidence entry) and how each remote
 * corpus's search ended — whether that is nothing, where a result can claim no absence of evidence, and what the
 * corpora that did not answer leave open: the interval of the analysis's confidence ({@link confidenceInterval}).
 */
import type { DatasetStats } from '../../datasets/types.js';
import { round1, round4 } from '../../util/round.js';
import { evidenceKind } from './kinds/index.js';

/** What an analysis searched: its local datasets and how each remote corpus's search ended. */
export interface SearchScope {
  readonly local: number;
  readonly remote: ReadonlyArray<{ readonly dataset_id: string; readonly outcome: string }>;
}

/** How a remote search ends that asked all or part of what it planned: anything else asked nothing answered. */
export const ANSWERED_OUTCOMES: ReadonlySet<string> = new Set(['searched', 'budget_exhausted', 'deadline_reached']);

/**
 * What an analysis searched, from its evidence entries (a local dataset searched has one; a remote corpus's is
 * counted by its outcome) and its remote corpora's outcomes.
 * @example searchScope(result.evidence.datasets, result.remote_corpora)
 */
export function searchScope(
  datasets: readonly { readonly kind: DatasetStats['kind'] }[],
  remote: SearchScope['remote'],
): SearchScope {
  return { local: datasets.filter((d) => !evidenceKind(d.kind).wholeText).length, remote };
}

/**
 * Whether nothing was searched: no local dataset, and no remote corpus that answered (one cut short by its budget or
 * deadline answered part of it). Then nothing is known either way: the headline claims no absence, and an analysis's
 * interval without a source is [0, 100], as a score's `ci_95` is where none of its model's datasets was searched.
 * @example searchedNothing({ local: 0, remote: [{ dataset_id: 'cc', outcome: 'unreachable' }] }) // true
 */
export function searchedNothing(scope: SearchScope): boolean {
  return scope.local === 0 && !scope.remote.some((r) => ANSWERED_OUTCOMES.has(r.outcome));
}

/**
 * A remote corpus that was asked and did not answer (its outcome is not in {@link ANSWERED_OUTCOMES}), with the most
 * certain link through which it could have named a source: a model the knowledge base says trained on its dataset
 * (or on a part of it its documents could name), at that link's certainty, or one its configuration declares (1).
 */
export interface UnansweredCorpus {
  readonly dataset_id: string;
  /** The model of that link; null where the corpus is linked to none (it can name no source). */
  readonly model: string | null;
  /** The link's certainty, 0..1 (0: linked to none). */
  readonly link_certainty: number;
}

/**
 * The remote corpora asked that did not answer, by id.
 * @example unansweredIds({ local: 1, remote: [{ dataset_id: 'cc', outcome: 'unreachable' }] }) // ['cc']
 */
export function unansweredIds(scope: SearchScope): string[] {
  return scope.remote.filter((r) => !ANSWERED_OUTCOMES.has(r.outcome)).map((r) => r.dataset_id);
}

/**
 * The interval of an analysis's `confidence` (0..100). A source's confidence is its dataset's calibrated confidence ×
 * its link's certainty, so a corpus that did not answer could have named a source of at most `highest` × the
 * certainty of its most certain link (`highest`: the largest upper end the calibration gives a dataset's confidence,
 * at full evidence) — on the sources' scale, `bound` = max over those corpora of round1(100 × round4(highest × c)),
 * 0 where none is linked. With a top source `[lo, max(hi, bound)]`; without one `[0, bound]`, or `[0, 100]` where
 * nothing was searched. Entries for corpora that answered are not counted.
 * @example
 * const scope = { local: 1, remote: [{ dataset_id: 'pile', outcome: 'unreachable' }] }
 * confidenceInterval(null, scope, [{ dataset_id: 'pile', model: 'eleutherai/gpt-j-6b', link_certainty: 0.9 }], 1) // [0, 90]
 */
export function confidenceInterval(
  top: readonly [number, number] | null,
  scope: SearchScope,
  unanswered: readonly UnansweredCorpus[],
  highest: number,
): [number, number] {
  const asked = new Set(unansweredIds(scope));
  let bound = 0;
  for (const u of unanswered)
    if (asked.has(u.dataset_id)) bound = Math.max(bound, round1(round4(highest * u.link_certainty) * 100));
  if (top) return [top[0], Math.max(top[1], bound)];
  return [0, searchedNothing(scope) ? 100 : bound];
}
