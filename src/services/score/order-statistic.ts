/**
 * A score's per-dataset value over chunks (./score.ts, steps 3 and 4): the chunks' chances c₍₁₎ ≤ … ≤ c₍ₙ₎ combine as
 * order statistics, chance = min(1, n · minⱼ P(Binomial(n, c₍ⱼ₎) ≥ j)), then calibrated and multiplied by the link
 * certainty — once over the work's chunks, and once for each of the bootstrap's 1,000 resamples of them.
 *
 * A resample is a multiset of the work's chunks, so every number it needs is one of a few: its sorted chances are the
 * chunks' chances in one fixed order, each repeated as often as the chunk was drawn, and each tail
 * P(Binomial(n, c) ≥ j) is one of at most n × n (a chunk's chance, a rank). They are kept once computed, and the
 * calibrated value is kept per dataset chance: a resample costs its n draws and one walk over the chunks, where
 * sorting its chances and summing a binomial tail per rank cost ≈ 20 ms of a 100 ms score of 5–40 chunks. The numbers
 * are those of the plain computation (test/reference/order-statistic.ts), bit for bit: the same functions of the
 * same arguments.
 */
import type { DatasetStats } from '../../datasets/types.js';
import { binomialUpperTail } from '../../stats/binomial.js';
import { datasetConfidence } from '../analyze/calibration.js';
import { countedStrength, countsAsEvidence } from '../policy/evidence-policy.js';
import { MAX_STRENGTH } from '../policy/kinds/index.js';
import { mulberry32 } from '../../util/random.js';

/** Bootstrap resamples. */
export const BOOTSTRAP_RESAMPLES = 1000;

/** One linked dataset's value over some chunks: its order-statistic chance, strength, confidence and value. */
export interface DatasetValue {
  readonly chance: number;
  readonly strength: number;
  readonly confidence: number;
  readonly value: number;
}

/** What a dataset with no checkable chunk among those counted gives: nothing. */
const NOTHING: DatasetValue = Object.freeze({ chance: 1, strength: 0, confidence: 0, value: 0 });

/** A linked dataset as the value reads it: the kind of its calibration and the certainty of its link. */
export interface ValuedDataset {
  readonly kind: DatasetStats['kind'];
  readonly certainty: number;
}

/** Tables of tails up to this many chunks (n × n numbers: 2 MiB); a longer work keeps its tails in a Map. */
const TABLE_CHUNKS = 512;

/**
 * The value of one linked dataset over multisets of a work's chunks: `chances[i]` and `flagged[i]` are chunk i's
 * chance and whether it shows a checkable match; `workWords` is what the calibration reads.
 * @example
 * const v = new ChunkValues(chances, flagged, { kind: 'exact', certainty: 0.9 }, 2_000)
 * v.over(new Int32Array(chances.length).fill(1)) // the value over every chunk once
 */
export class ChunkValues {
  /** Chunk numbers by ascending chance (equal chances in chunk order); those of chance ≥ 1 left out. */
  readonly #order: Int32Array;
  /** P(Binomial(n, chance of order[r]) ≥ j) at [(j − 1) · n + r]; NaN until computed. */
  readonly #table: Float64Array | null;
  readonly #tails = new Map<number, number>();
  /** The value per order-statistic chance (with some checkable chunk: it then depends on the chance alone). */
  readonly #byChance = new Map<number, DatasetValue>();

  constructor(
    readonly chances: Float64Array,
    readonly flagged: Uint8Array,
    readonly dataset: ValuedDataset,
    readonly workWords: number,
  ) {
    const n = chances.length;
    const below = Array.from({ length: n }, (_, i) => i).filter((i) => chances[i] < 1);
    this.#order = Int32Array.from(below.sort((a, b) => chances[a] - chances[b] || a - b));
    this.#table = n <= TABLE_CHUNKS ? new Float64Array(n * n).fill(Number.NaN) : null;
  }

  /**
   * The value over the multiset of chunks that holds chunk i `counts[i]` times (n in all: every chunk once, or one
   * resample).
   */
  over(counts: Int32Array): DatasetValue {
    const { chances, flagged } = this;
    const n = chances.length;
    // the policy (src/services/policy): a dataset none of whose chunks shows a checkable match gives nothing
    let shown = 0;
    for (let i = 0; i < n; i++) shown += flagged[i] * counts[i];
    if (shown === 0) return NOTHING;
    const order = this.#order;
    let best = 1,
      j = 0;
    for (let r = 0; r < order.length; r++) {
      for (let c = counts[order[r]]; c > 0; c--) best = Math.min(best, this.#tail(++j, r));
    }
    const chance = Math.min(1, n * best);
    let value = this.#byChance.get(chance);
    if (value === undefined) this.#byChance.set(chance, (value = this.#valueAt(shown, chance)));
    return value;
  }

  /** P(Binomial(n, c) ≥ j) for c the chance of the chunk at rank r. */
  #tail(j: number, r: number): number {
    const n = this.chances.length;
    const at = (j - 1) * n + r;
    const table = this.#table;
    let p = table === null ? this.#tails.get(at) : table[at];
    if (p === undefined || Number.isNaN(p)) {
      p = binomialUpperTail(j, n, this.chances[this.#order[r]]);
      if (table === null) this.#tails.set(at, p);
      else table[at] = p;
    }
    return p;
  }

  /** The value at order-statistic `chance` with `shown` > 0 checkable chunks (`shown` decides nothing further). */
  #valueAt(shown: number, chance: number): DatasetValue {
    const strength = chance <= 0 ? MAX_STRENGTH : Math.min(MAX_STRENGTH, -Math.log10(chance));
    // ... and one whose matches are no stronger than chance gives nothing either
    const finding = { checkable: shown, found: shown, strength };
    if (!countsAsEvidence(finding)) return { chance, strength, confidence: 0, value: 0 };
    const { kind, certainty } = this.dataset;
    const confidence = datasetConfidence(kind, countedStrength(finding), 0.5, this.workWords).p;
    return { chance, strength, confidence, value: confidence * certainty };
  }
}

/**
 * The score's percentile bootstrap over chunks, seeded (by work_hash and model): the same inputs, the same interval.
 * Each resample draws n chunks with replacement; its value is the best of the datasets' values over it.
 * @example bootstrapInterval(values, chances.length, seed) // { ci: [0.91, 0.97], resamples: 1000, seed }
 */
export function bootstrapInterval(
  values: readonly ChunkValues[],
  n: number,
  seed: number,
): { ci: [number, number]; resamples: number; seed: number } {
  const rnd = mulberry32(seed);
  const boots = new Float64Array(n === 0 ? 0 : BOOTSTRAP_RESAMPLES);
  const counts = new Int32Array(n);
  for (let b = 0; b < boots.length; b++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[Math.floor(rnd() * n)]++;
    let v = 0;
    for (const d of values) v = Math.max(v, d.over(counts).value);
    boots[b] = v;
  }
  boots.sort();
  const ci: [number, number] =
    n === 0 ? [0, 0] : [boots[Math.floor(0.025 * (boots.length - 1))], boots[Math.ceil(0.975 * (boots.length - 1))]];
  return { ci, resamples: boots.length, seed };
}
