/**
 * The plain computation of a score's per-dataset value and its bootstrap (src/services/score/order-statistic.ts):
 * each resample's chances sorted and a binomial tail summed per rank, as the score computed them before the tails
 * were kept. The property test holds the kept-tails version to these numbers bit for bit.
 */
import type { DatasetStats } from '../../src/datasets/types.js';
import { binomialUpperTail } from '../../src/stats/binomial.js';
import { datasetConfidence } from '../../src/services/analyze/calibration.js';
import { countedStrength, countsAsEvidence } from '../../src/services/policy/evidence-policy.js';
import { MAX_STRENGTH } from '../../src/services/policy/kinds/index.js';
import { mulberry32 } from '../../src/util/random.js';

interface Dataset {
  readonly chances: Float64Array;
  readonly flagged: Uint8Array;
  readonly kind: DatasetStats['kind'];
  readonly certainty: number;
}

/** One dataset over the chunks `idx` (a chunk as often as it is listed). */
export function datasetValueOf(
  d: Dataset,
  idx: ArrayLike<number>,
  workWords: number,
): { chance: number; strength: number; confidence: number; value: number } {
  let shown = 0;
  for (const i of Array.from(idx)) shown += d.flagged[i];
  if (shown === 0) return { chance: 1, strength: 0, confidence: 0, value: 0 };
  const cs = Array.from(idx, (i) => d.chances[i]).sort((a, b) => a - b);
  let best = 1;
  for (let j = 1; j <= cs.length && cs[j - 1] < 1; j++)
    best = Math.min(best, binomialUpperTail(j, cs.length, cs[j - 1]));
  const chance = Math.min(1, cs.length * best);
  const strength = chance <= 0 ? MAX_STRENGTH : Math.min(MAX_STRENGTH, -Math.log10(chance));
  const finding = { checkable: shown, found: shown, strength };
  if (!countsAsEvidence(finding)) return { chance, strength, confidence: 0, value: 0 };
  const confidence = datasetConfidence(d.kind, countedStrength(finding), 0.5, workWords).p;
  return { chance, strength, confidence, value: confidence * d.certainty };
}

/** The percentile bootstrap over n chunks: 1,000 resamples drawn by mulberry32(seed), the best dataset's value each. */
export function bootstrapOf(
  datasets: readonly Dataset[],
  n: number,
  workWords: number,
  seed: number,
): [number, number] {
  const rnd = mulberry32(seed);
  const boots = new Float64Array(n === 0 ? 0 : 1000);
  const pick = new Int32Array(n);
  for (let b = 0; b < boots.length; b++) {
    for (let i = 0; i < n; i++) pick[i] = Math.floor(rnd() * n);
    let v = 0;
    for (const d of datasets) v = Math.max(v, datasetValueOf(d, pick, workWords).value);
    boots[b] = v;
  }
  boots.sort();
  return n === 0
    ? [0, 0]
    : [boots[Math.floor(0.025 * (boots.length - 1))], boots[Math.ceil(0.975 * (boots.length - 1))]];
}
