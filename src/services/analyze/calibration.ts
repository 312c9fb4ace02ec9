/**
 * Calibrated dataset confidence: P(the content shares text with the dataset | evidence
 * strength) = σ(a + b·strength + logit(prior)), with (a, b) fitted per dataset kind by Platt
 * scaling on labelled dev queries (bench/eval-calibration.mjs; protocol and provenance in the
 * generated file and docs/analyze.md). The fit is made at a 50 % prior; `prior` moves it as Bayes'
 * rule does (the fitted part is the log likelihood ratio). The 95 % interval is the fit's own
 * uncertainty (delta method), so it is wide where the dev data had few queries.
 */
import { logisticInterval } from '../../stats/logistic.js';
import { CALIBRATION } from './calibration.generated.js';

export { CALIBRATION };

/**
 * Calibrated probability and 95 % interval for a dataset of `kind` at evidence `strength`.
 * @example
 * datasetConfidence('exact', 0)   // no evidence: { p: ≈ 0.05, … }
 * datasetConfidence('exact', 40)  // a long verbatim run: { p: ≈ 1, … }
 */
export function datasetConfidence(
  kind: 'exact' | 'portrait' | 'remote',
  strength: number,
  prior = 0.5,
): { p: number; lo: number; hi: number } {
  // a remote corpus's chance is the exact statistic over the engine's counts (evidence.ts): the exact fit, whose
  // fit on remote cases bench/remote-corpus.mjs measures
  const fit = CALIBRATION.kinds[kind === 'remote' ? 'exact' : kind];
  const offset = Math.log(prior / (1 - prior));
  return logisticInterval(fit, Math.min(strength, CALIBRATION.strength_cap), offset);
}
