/**
 * The chance statistics the kinds of evidence share: how likely it is that a query shares this much text with a
 * dataset by chance, in closed form from what its search counted. Calibration (src/services/analyze/calibration.ts)
 * then turns that strength into a probability. Each kind's module says what its places, hits and chains are.
 *
 * **Chains.** The query's m places are looked up in the dataset. Under the null hypothesis "this text was written
 * independently of the dataset", a place is found only through common phrasing, at a background rate q: measured on
 * the query itself, outside its matches (hits there ÷ places there), and never below {@link BACKGROUND_FLOOR}. A
 * match is a chain of c hits spread over ℓ consecutive places, so its chance is π = P(Binomial(ℓ, q) ≥ c) per place
 * it could start. With the matches sorted by π, the chance of seeing j chains each at least as dense as the j-th
 * anywhere among the m places is P(Poisson(m·π₍ⱼ₎) ≥ j); the dataset's chance is the smallest of these over j, times
 * the number of chains (Bonferroni):
 *
 *     chance = min(1, K · minⱼ P(Poisson(m · π₍ⱼ₎) ≥ j))
 *
 * One long verbatim run (j = 1) and many short ones (a mosaic, large j) are both covered. The model ignores that a
 * chain's hits also sit on one diagonal of one document (which chance rarely does), so it is conservative; it
 * treats hits as independent, which stock phrases are not — the floor on q and the calibration absorb that.
 *
 * **Aligned passages.** Reuse with word edits or rewording keeps few exact 5-grams, so its seed chance is weak; the
 * aligned passages carry their own evidence: a passage's query span holds ℓ distinct sampled pairs of nearby
 * content words, of which its source span holds h. Under the null, the passage shares pairs with its document no
 * more often than the rest of the query shares them with the whole document: q_d, the share of the query's pairs
 * outside the aligned spans that the document holds (≥ 0.02; a text on the same topic shares pairs everywhere, a
 * reused passage far more inside its span). A query that is all passage leaves nothing outside: q_d is then measured
 * on the source span's neighbours and, for a reworded passage, on the other documents aligned with the query, the
 * field's vocabulary (src/corpus/alignment.ts neighbourBackground, fieldBackground; the neighbours alone decide
 * whether the passage is reported). A passage's chance is π = P(Binomial(ℓ, q_d) ≥ h) per place, with the query's
 * M pairs as places, combined over passages as the chains are and multiplied by the documents aligned (the aligner
 * looked at each):
 *
 *     aligned chance = min(1, D · P · minⱼ P(Poisson(M · π₍ⱼ₎) ≥ j))      (P passages, D documents)
 *
 * A dataset with both has chance min(1, 2 · min(seed chance, aligned chance)) (Bonferroni over the two).
 *
 * Strength = −log₁₀(chance), capped at {@link MAX_STRENGTH}.
 */
import type { AlignedEvidence } from '../../../corpus/types.js';
import type { ExactSearch } from '../../../datasets/exact.js';
import { binomialUpperTail, poissonUpperTail } from '../../../stats/binomial.js';
import { round6 } from '../../../util/round.js';

/** Lowest background hit rate assumed for an exact dataset's query 5-grams. */
export const BACKGROUND_FLOOR = 0.005;
/** Strength cap: −log₁₀ of the smallest chance reported. */
export const MAX_STRENGTH = 300;

/** The counts and the chance behind one dataset's evidence. */
export interface ChanceEvidence {
  /** Query 5-grams (exact) or winnowed fingerprints (portrait) looked up. */
  readonly tested: number;
  /** Of those, found in the dataset. */
  readonly found: number;
  /** Background rate used (exact: q, the query's hit rate outside its chains; portrait: a, the run start rate). */
  readonly background_rate: number;
  /** Chains (exact) or runs (portrait) the chance rests on. */
  readonly runs: number;
  /** Chance probability of evidence at least this strong under the null hypothesis. */
  readonly chance: number;
  /** −log₁₀(chance), capped at 300. */
  readonly strength: number;
}

/** The aligned passages' part of an exact dataset's evidence: their counts and chance. */
export interface AlignedChance {
  readonly documents: number;
  /** Distinct sampled content-word pairs of the query (M). */
  readonly query_pairs: number;
  /**
   * Per aligned passage: its query span's distinct sampled pairs (ℓ), how many its source span holds (h),
   * and the background rate q_d of its document.
   */
  readonly passages: ReadonlyArray<{
    readonly pairs: number;
    readonly shared: number;
    readonly background_rate: number;
  }>;
  readonly chance: number;
}

/** A kind's chance with, where it aligned passages, their part. */
export type KindChance = ChanceEvidence & { aligned?: AlignedChance };

/** The seed chains' chance and the aligned passages' combined (Bonferroni over the two); the seeds' alone without. */
export function withAligned(seeds: ChanceEvidence, aligned: AlignedEvidence): KindChance {
  if (aligned.passages.length === 0) return seeds;
  const a = alignedChance(aligned);
  const chance = Math.min(1, 2 * Math.min(seeds.chance, a.chance));
  return { ...seeds, runs: seeds.runs + a.passages.length, chance, strength: strengthOf(chance), aligned: a };
}

function alignedChance(e: AlignedEvidence): AlignedChance {
  // the rate as reported (6 decimals), so that the chance is recomputable from the result
  const M = Math.max(1, e.queryPairs);
  const pis = Float64Array.from(e.passages, (p) => binomialUpperTail(p.shared, p.pairs, round6(p.background))).sort();
  let best = 1;
  for (let j = 1; j <= pis.length; j++) best = Math.min(best, poissonUpperTail(j, M * pis[j - 1]));
  const chance = Math.min(1, e.documents * pis.length * best);
  return {
    documents: e.documents,
    query_pairs: e.queryPairs,
    passages: e.passages.map((p) => ({ pairs: p.pairs, shared: p.shared, background_rate: round6(p.background) })),
    chance,
  };
}

/** What the chain statistic reads of a search: places tested, hits, the hit of each place, the chains. */
export type ChainCounts = Pick<ExactSearch, 'tested' | 'hits' | 'hitAt' | 'chains'>;

/** The chains' chance (see the module comment). */
export function chainChance(s: ChainCounts): ChanceEvidence {
  const m = s.tested;
  // Independent runs: the same query passage found in several documents (a text copied across
  // the corpus) is one piece of evidence, not many — keep the most surprising chain of each
  // stretch of the query, greedily, so the kept chains do not overlap in the query.
  const kept = independentChains(s.chains);
  // the background: hits outside every chain, per query shingle outside every chain
  const covered = new Uint8Array(m);
  let inShingles = 0;
  for (const c of s.chains) {
    for (let i = c.first, e = Math.min(m, c.first + c.shingles); i < e; i++) {
      if (!covered[i]) {
        covered[i] = 1;
        inShingles++;
      }
    }
  }
  // read once: the searches' results come in several shapes, and a property read in the loop would be one of
  // many shapes ten thousand times a query (0.4 ms of a 10,000-word analyze)
  const hitAt = s.hitAt;
  let outsideHits = 0;
  for (let i = 0; i < m; i++) outsideHits += hitAt[i] & (covered[i] ^ 1);
  const outside = m - inShingles;
  const q = Math.min(0.5, Math.max(BACKGROUND_FLOOR, outside > 0 ? outsideHits / outside : 0));
  // a typed array sorted numerically: an array literal's sort deoptimized this function on every call whose
  // element kind differed from the last one's (none, doubles), 0.1–0.3 ms of a 10,000-word analyze
  const pis = Float64Array.from(kept, (c) => binomialUpperTail(c.hits, c.shingles, q)).sort();
  let best = 1;
  for (let j = 1; j <= pis.length; j++) best = Math.min(best, poissonUpperTail(j, m * pis[j - 1]));
  const chance = pis.length === 0 ? 1 : Math.min(1, pis.length * best);
  return { tested: m, found: s.hits, background_rate: q, runs: pis.length, chance, strength: strengthOf(chance) };
}

type Chain = ChainCounts['chains'][number];

/** Chains that do not overlap in the query, the strongest first (most hits, then the shortest span). */
function independentChains(chains: readonly Chain[]): Chain[] {
  const order = chains.slice().sort((a, b) => b.hits - a.hits || a.shingles - b.shingles || a.first - b.first);
  const kept: Chain[] = [];
  for (const c of order) {
    if (kept.every((k) => c.first + c.shingles <= k.first || k.first + k.shingles <= c.first)) kept.push(c);
  }
  return kept;
}

/** The evidence of counts a search already read its chance from (a portrait's runs, an evidence source's null). */
export function countedChance(
  tested: number,
  found: number,
  background_rate: number,
  runs: number,
  chance: number,
): ChanceEvidence {
  return { tested, found, background_rate, runs, chance, strength: strengthOf(chance) };
}

/** −log₁₀(chance), capped at {@link MAX_STRENGTH}; chance 1 is strength 0, not −0. */
export function strengthOf(chance: number): number {
  return chance <= 0 ? MAX_STRENGTH : chance >= 1 ? 0 : Math.min(MAX_STRENGTH, -Math.log10(chance));
}
