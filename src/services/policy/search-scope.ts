/**
 * What an analysis searched: the local datasets (each searched one has an evidence entry) and how each remote
 * corpus's search ended — and whether that is nothing, where a result can claim no absence of evidence.
 */
import type { DatasetStats } from '../../datasets/types.js';
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
