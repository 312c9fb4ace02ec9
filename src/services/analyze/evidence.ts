/**
 * Evidence strength per dataset: how likely it is that the query shares this much text with a
 * dataset by chance, in closed form from what `search` counted. Calibration (./calibration.ts)
 * then turns that strength into a probability.
 *
 * **Exact datasets.** The query's m word 5-grams are looked up among the dataset's winnowed
 * fingerprints. Under the null hypothesis "this text was written independently of the dataset",
 * a query 5-gram is found only through common phrasing, at a background rate q: measured on the
 * query itself, outside its matches (hits there ÷ 5-grams there), and never below
 * {@link BACKGROUND_FLOOR}. A match is a chain of c hits spread over ℓ consecutive query 5-grams,
 * so its chance is π = P(Binomial(ℓ, q) ≥ c) per place it could start. With the matches sorted by
 * π, the chance of seeing j chains each at least as dense as the j-th anywhere among the m
 * places is P(Poisson(m·π₍ⱼ₎) ≥ j); the dataset's chance is the smallest of these over j, times
 * the number of chains (Bonferroni):
 *
 *     chance = min(1, K · minⱼ P(Poisson(m · π₍ⱼ₎) ≥ j))
 *
 * One long verbatim run (j = 1) and many short ones (a mosaic, large j) are both covered. The
 * model ignores that a chain's hits also sit on one diagonal of one document (which chance
 * rarely does), so it is conservative; it treats hits as independent, which stock phrases are
 * not — the floor on q and the calibration absorb that.
 *
 * **Portraits.** Runs of consecutive hits only, against the portrait's measured background — how often unrelated
 * natural text starts and continues runs of hits in it (src/datasets/background.ts): with π(r) = a · c₁ · cₜ^(r−2)
 * the chance that a run of r fingerprints starts at a place, chance = min(1, K · minⱼ P(Poisson(m · π₍ⱼ₎) ≥ j)) over
 * the K runs of at least two fresh fingerprints. The query's scattered hit count is shown
 * (coverage.membership) but is not evidence: unrelated text of any length shares common phrases with a large corpus.
 *
 * **Aligned passages** (exact datasets that keep text, see src/corpus/alignment.ts). Reuse with word
 * edits or rewording keeps few exact 5-grams, so its seed chance is weak; the aligned passages carry
 * their own evidence: a passage's query span holds ℓ distinct sampled pairs of nearby content words, of
 * which its source span holds h. Under the null, the passage shares pairs with its document no more often
 * than the rest of the query shares them with the whole document: q_d, the share of the query's pairs
 * outside the aligned spans that the document holds (≥ 0.02; 0.25 with under 10 pairs outside; a text on
 * the same topic shares pairs everywhere, a reused passage far more inside its span). A passage's chance is π = P(Binomial(ℓ, q_d) ≥ h)
 * per place, with the query's M pairs as places, combined over passages as the exact chains are and
 * multiplied by the documents aligned (the aligner looked at each):
 *
 *     aligned chance = min(1, D · P · minⱼ P(Poisson(M · π₍ⱼ₎) ≥ j))      (P passages, D documents)
 *
 * The dataset's chance is then min(1, 2 · min(seed chance, aligned chance)) (Bonferroni over the two).
 *
 * **Remote corpora** (infini-gram indexes, src/remote/search.ts): the same two statistics over what the engine's
 * counts give. The places tested are the sampled places of the query (a suffix-match length every few tokens, or
 * a found tile of words); a hit is a corpus match of ≥ 12 tokens ending there (or a tile found), q the hit rate of
 * the samples outside every passage — measured on the query against this corpus, so a web-scale corpus, where
 * more of any text occurs by chance, gives a higher q and weaker evidence for the same passage. Each aligned
 * passage's samples are its chain; its content-word pairs count against the background of the document window it
 * was aligned in. Passages whose span occurs ≥ `boilerplate_count` times in the corpus are left out, samples and
 * all: text that many documents share says nothing about this one.
 *
 * Strength = −log₁₀(chance), capped at {@link MAX_STRENGTH}.
 */
import type { RemoteOutcome, RemoteSearch } from '../../corpus/remote-types.js';
import type { FactorCode } from '../kb/factors.js';
import type { DatasetSearchDetail } from '../../corpus/types.js';
import { binomialUpperTail, poissonUpperTail } from '../../stats/binomial.js';
import { round6 } from '../../util/round.js';

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

/** Closed-form chance of a dataset's search result (see the module comment). */
export function chanceEvidence(detail: DatasetSearchDetail): ChanceEvidence & { aligned?: AlignedChance } {
  if (detail.kind === 'portrait') return portraitChance(detail.search);
  if (detail.kind === 'remote') return remoteChance(detail.search);
  const seeds = exactChance(detail.search);
  if (detail.aligned.passages.length === 0) return seeds;
  const aligned = alignedChance(detail.aligned);
  const chance = Math.min(1, 2 * Math.min(seeds.chance, aligned.chance));
  return { ...seeds, runs: seeds.runs + aligned.passages.length, chance, strength: strengthOf(chance), aligned };
}

/**
 * A remote corpus's chance (src/remote/search.ts gives the counts), in the form of an exact dataset's: its samples
 * are the places tested, each evidence passage's samples a chain of hits, and its aligned passages' content-word
 * pairs are counted against their document window's background. With `range` (a UTF-16 span of the query), only
 * the samples inside it and the passages that overlap it: a chunk's part of a search of the whole work (score).
 */
export function remoteChance(
  s: RemoteSearch,
  range?: readonly [number, number],
): ChanceEvidence & { aligned?: AlignedChance } {
  const [from, to] = range ?? [0, Infinity];
  const keep: number[] = [];
  for (let i = 0; i < s.samples.at.length; i++) if (s.samples.at[i] > from && s.samples.at[i] <= to) keep.push(i);
  const hitAt = Uint8Array.from(keep, (i) => s.samples.hit[i]);
  const at = keep.map((i) => s.samples.at[i]);
  const passages = s.passages.filter((p) => p.query_start < to && from < p.query_end);
  const chains = passages
    .map((p) => {
      let first = -1,
        shingles = 0,
        hits = 0;
      at.forEach((x, k) => {
        if (x <= p.query_start || x > p.query_end) return;
        if (first < 0) first = k;
        shingles++;
        hits += hitAt[k];
      });
      return { first: Math.max(0, first), shingles, hits };
    })
    .filter((c) => c.shingles > 0);
  let hits = 0;
  for (const h of hitAt) hits += h;
  const seeds = exactChance({ tested: hitAt.length, hits, hitAt, chains });
  if (passages.length === 0) return seeds;
  const aligned = alignedChance({
    documents: new Set(passages.map((p) => p.window)).size,
    queryPairs: s.queryPairs,
    passages: passages.map((p) => ({ pairs: p.pairs, shared: p.shared, background: p.background })),
  });
  const chance = Math.min(1, 2 * Math.min(seeds.chance, aligned.chance));
  return { ...seeds, runs: seeds.runs + aligned.passages.length, chance, strength: strengthOf(chance), aligned };
}

function alignedChance(e: Extract<DatasetSearchDetail, { kind: 'exact' }>['aligned']): AlignedChance {
  // the rate as reported (6 decimals), so that the chance is recomputable from the result
  const M = Math.max(1, e.queryPairs);
  const pis = e.passages.map((p) => binomialUpperTail(p.shared, p.pairs, round6(p.background))).sort((x, y) => x - y);
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

/** What the exact statistic reads of a search: places tested, hits, the hit of each place, the chains. */
type ChainCounts = Pick<
  Extract<DatasetSearchDetail, { kind: 'exact' }>['search'],
  'tested' | 'hits' | 'hitAt' | 'chains'
>;

function exactChance(s: ChainCounts): ChanceEvidence {
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
  let outsideHits = 0;
  for (let i = 0; i < m; i++) outsideHits += s.hitAt[i] & (covered[i] ^ 1);
  const outside = m - inShingles;
  const q = Math.min(0.5, Math.max(BACKGROUND_FLOOR, outside > 0 ? outsideHits / outside : 0));
  const pis = kept.map((c) => binomialUpperTail(c.hits, c.shingles, q)).sort((x, y) => x - y);
  let best = 1;
  for (let j = 1; j <= pis.length; j++) best = Math.min(best, poissonUpperTail(j, m * pis[j - 1]));
  const chance = pis.length === 0 ? 1 : Math.min(1, pis.length * best);
  return { tested: m, found: s.hits, background_rate: q, runs: pis.length, chance, strength: strengthOf(chance) };
}

type Chain = Extract<DatasetSearchDetail, { kind: 'exact' }>['search']['chains'][number];

/** Chains that do not overlap in the query, the strongest first (most hits, then the shortest span). */
function independentChains(chains: readonly Chain[]): Chain[] {
  const order = chains.slice().sort((a, b) => b.hits - a.hits || a.shingles - b.shingles || a.first - b.first);
  const kept: Chain[] = [];
  for (const c of order) {
    if (kept.every((k) => c.first + c.shingles <= k.first || k.first + k.shingles <= c.first)) kept.push(c);
  }
  return kept;
}

function portraitChance(s: Extract<DatasetSearchDetail, { kind: 'portrait' }>['search']): ChanceEvidence {
  // runs only, against the portrait's measured background (src/datasets/background.ts): scattered hits are the
  // common phrases of the language and never enter the chance
  return {
    tested: s.tested,
    found: s.hits,
    background_rate: s.run_start,
    runs: s.evidence_runs,
    chance: s.chance,
    strength: strengthOf(s.chance),
  };
}

/** The limitation code of a remote corpus's outcome other than `searched` (analyze and score list it). */
export function remoteLimitation(outcome: Exclude<RemoteOutcome, 'searched'>): FactorCode {
  return REMOTE_OUTCOME_CODE[outcome];
}
const REMOTE_OUTCOME_CODE: Readonly<Record<Exclude<RemoteOutcome, 'searched'>, FactorCode>> = {
  unreachable: 'remote_corpus_unreachable',
  rate_limited: 'remote_corpus_rate_limited',
  budget_exhausted: 'remote_corpus_budget_exhausted',
  deadline_reached: 'remote_corpus_deadline_reached',
  rejected: 'remote_corpus_error',
  invalid_response: 'remote_corpus_error',
  cancelled: 'remote_corpus_cancelled',
};

function strengthOf(chance: number): number {
  // chance 1 is strength 0, not −0 (−log₁₀ 1)
  return chance <= 0 ? MAX_STRENGTH : chance >= 1 ? 0 : Math.min(MAX_STRENGTH, -Math.log10(chance));
}
