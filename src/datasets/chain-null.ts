/**
 * The null of a pack's kind for its chains: how long a chain real documents of the same kind that are *not* in the
 * pack reach, measured, and the chance of a query's chain under it.
 *
 * **Why.** A chain's own chance (./portrait.ts `locateRuns`) treats each agreeing hit as a chance agreement, which
 * is right for natural text of another kind and wrong for a formula of the pack's own kind. A reference pack is a
 * sample of a larger corpus (one dump part of Wikipedia, a few hundred of Project Gutenberg's books), and a formula
 * that thousands of articles of the corpus share ("In fiscal 2019, the station was used by an average of", "she
 * studied at the American Academy of Dramatic Arts in") may have one or two holders in the sample: too few to be
 * stored as common (./common.ts), enough for an invented article in the same house style to chain 4–6 agreeing hits
 * on it, a chance of 10⁻⁵ by the chain's own model. Non-member documents of the pack's kind show how often that
 * happens: they hold the formulas and none of the pack's text but what the corpus shares.
 *
 * **The model** (a geometric tail, as the background's runs: ./background.ts). Over the non-member documents' F
 * query fingerprints, chains of at least {@link NULL_MIN_CHAIN} agreeing hits start at a rate `start` per
 * fingerprint, and a chain of k agreeing hits reaches k + 1 with probability `extend`, pooled over k = 4 … 7 so that the few long chains real shared text gives (an article copied into another) do not
 * decide it; both as the upper ends of their 95 % Wilson intervals, `extend` with 10 pseudo-chains at 0.5. A query of m fingerprints then shows a chain of at least r agreeing
 * hits by formula with chance at most
 *
 *     null(r) = min(1, m · start · extend^(r − 3))
 *
 * and a chain's chance is the larger of its own and this: it lifts the confidence only past what the kind's
 * formulas reach at the search's alpha. A pack without a measured chain null keeps its chains' own chance. How to
 * measure one: bench/chain-null.mjs and docs/packs.md.
 */
import { TrainprintError } from '../errors.js';

/** How long the chains of non-member documents of a pack's kind reach (see the module comment). */
export interface ChainNull {
  /** Chains of at least 3 agreeing hits per query fingerprint, upper end of its 95 % interval. */
  readonly start: number;
  /** P(a chain of k agreeing hits reaches k + 1), pooled over k = 4 … 7, upper end of its 95 % interval. */
  readonly extend: number;
  /** What it was measured on. */
  readonly measured_on: {
    /** The non-member documents in words: their source (repository, commit, part) and how they were kept out. */
    readonly corpus: string;
    readonly texts: number;
    /** Query fingerprints looked up. */
    readonly fingerprints: number;
    /** Chains of at least 3 agreeing hits found. */
    readonly chains: number;
    /** The most agreeing hits of one chain. */
    readonly longest: number;
    /** YYYY-MM-DD. */
    readonly date: string;
  };
}

/** Agreeing hits from which a chain counts (the locator's shortest chain). */
const NULL_MIN_CHAIN = 3;

/**
 * The chance of a chain of `r` agreeing hits in a query of `m` fingerprints under the chain null `n`.
 * @example chainNullChance(4, 35, { start: 2e-4, extend: 0.6 } as ChainNull) // 0.0042
 */
export function chainNullChance(r: number, m: number, n: ChainNull): number {
  return r < NULL_MIN_CHAIN ? 1 : Math.min(1, m * n.start * n.extend ** (r - NULL_MIN_CHAIN));
}

/** Check a chain null read from a file or given by a caller (INVALID_INPUT naming where). */
export function checkChainNull(v: unknown, where: string): ChainNull {
  const o = v as ChainNull;
  if (![o?.start, o?.extend].every((x) => x === +x && x > 0 && x <= 1) || typeof o.measured_on?.corpus !== 'string')
    throw new TrainprintError('INVALID_INPUT', `${where}: not a chain null (docs/packs.md)`);
  return { start: o.start, extend: o.extend, measured_on: { ...o.measured_on } };
}
