/**
 * Calibrated dataset confidence: P(the content shares text with the dataset | what was found), in two parts fitted
 * per dataset kind on natural negatives and on positives of every length (bench/eval-calibration.mjs; protocol and
 * provenance in the generated file and docs/analyze.md):
 *
 * - **no checkable evidence** (strength 0, src/services/policy): the floor — the share of texts of that length in a
 *   dataset that show nothing checkable (short texts often do; long ones rarely), measured per length bucket and
 *   non-increasing in length, one step per bucket;
 * - **checkable evidence**: σ(a + b·min(strength, cap)), never below the floor (more evidence never lowers it).
 *
 * The fits are made at a 50 % prior; `prior` moves them as Bayes' rule does (the fitted part is the log likelihood
 * ratio). The 95 % interval is the fit's own uncertainty (delta method; Wilson for the floor), wide where the data
 * was thin.
 */
import type { DatasetStats } from '../../datasets/types.js';
import { logisticInterval, sigmoid } from '../../stats/logistic.js';
import { evidenceKind } from '../policy/kinds/index.js';
import { CALIBRATION, type FloorPoint } from './calibration.generated.js';

export { CALIBRATION };

/** The word count the floor is read at when a caller gives none. */
const DEFAULT_WORDS = 400;

/**
 * Calibrated probability and 95 % interval for a dataset of `kind` (read with its kind's fit) at evidence
 * `strength` (0: nothing checkable), for content of `words` word tokens.
 * @example
 * datasetConfidence('exact', 0, 0.5, 1500)   // nothing checkable in 1,500 words: { p: ≈ 0, … }
 * datasetConfidence('portrait', 20)          // a long run of the content's words in the portrait: { p: ≈ 1, … }
 */
export function datasetConfidence(
  kind: DatasetStats['kind'],
  strength: number,
  prior = 0.5,
  words: number = DEFAULT_WORDS,
): { p: number; lo: number; hi: number } {
  // each kind names its fit: a remote corpus's chance is the exact statistic over the engine's counts, read with
  // the exact fit (bench/remote-corpus.mjs measures it on remote cases), as an evidence source's is
  const fit = CALIBRATION.kinds[evidenceKind(kind).fit];
  const offset = logit(prior);
  const floor = floorAt(fit.floor, words, offset);
  if (!(strength > 0)) return floor;
  const evidence = logisticInterval(fit.evidence, Math.min(strength, CALIBRATION.strength_cap), offset);
  return evidence.p >= floor.p ? evidence : floor;
}

/**
 * The largest upper end {@link datasetConfidence} gives a dataset of `kind` at any evidence, for content of `words`
 * words: what a corpus that was not searched could at most have shown. The upper end of the fitted curve is
 * σ(a + b·s + offset + z·√v(s)) with v quadratic in s, convex in s, so over (0, cap] it is largest at an end; with the
 * floor (no evidence) the three values bound every strength.
 * @example highestConfidence('remote', 0.5, 400) // ≈ 1
 */
export function highestConfidence(kind: DatasetStats['kind'], prior = 0.5, words: number = DEFAULT_WORDS): number {
  const ends = [0, Number.MIN_VALUE, CALIBRATION.strength_cap];
  return Math.max(...ends.map((s) => datasetConfidence(kind, s, prior, words).hi));
}

/** The floor for content of `words` words: the step of its length bucket, moved by `offset` (the prior). */
function floorAt(points: readonly FloorPoint[], words: number, offset: number): { p: number; lo: number; hi: number } {
  const f = points.find((q) => q.below === null || words < q.below) ?? points[points.length - 1];
  const at = (p: number) => sigmoid(logit(p) + offset);
  return { p: at(f.p), lo: at(f.lo), hi: at(f.hi) };
}

/** ln(p / (1 − p)), finite at 0 and 1. */
function logit(p: number): number {
  const q = Math.min(1 - 1e-12, Math.max(1e-12, p));
  return Math.log(q / (1 - q));
}
