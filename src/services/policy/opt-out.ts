/**
 * The opt-out rule, one place for analyze, score and assess: a work whose rights holder reserved text-and-data
 * mining (`tdm_opt_out`, e.g. under Art. 4(3) of Directive (EU) 2019/790) weighs on the risk of using it — unless
 * every model the answer is about was released before the year the reservation was made (`since`), in which case
 * the reservation cannot have applied to their training and the answer says so (`opt_out_after_model_release`).
 */
import type { FactorCode } from '../kb/factors.js';

/** How a work's opt-out bears on the models of an answer: none declared, it applies, or it came after them. */
export type OptOutStatus = 'none' | 'applies' | 'after_release';

/**
 * The opt-out status of an answer about models released in `releaseYears` (a model of unknown year counts as not
 * before; none at all: it applies), adding `opt_out_after_model_release` to `limitations` when it came after them.
 * @example
 * optOutStatus(true, 2023, [2021, 2022], limitations) // 'after_release'
 * optOutStatus(true, 2023, [2021, null], limitations) // 'applies'
 */
export function optOutStatus(
  optedOut: boolean,
  sinceYear: number | null,
  releaseYears: readonly (number | null)[],
  limitations: Set<FactorCode>,
): OptOutStatus {
  if (!optedOut) return 'none';
  const after =
    sinceYear !== null && releaseYears.length > 0 && releaseYears.every((year) => year !== null && year < sinceYear);
  if (!after) return 'applies';
  limitations.add('opt_out_after_model_release');
  return 'after_release';
}
