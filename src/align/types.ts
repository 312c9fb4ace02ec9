/**
 * The shapes the aligner's stages share: an aligned passage's spans and the resolved options. Kept apart from
 * compare.ts, which runs the stages, so the stages (edges, passages, verbatim) import them without importing it.
 */

/** One aligned passage: `a.slice(a_start, a_end)` was reused as `b.slice(b_start, b_end)`. */
export interface AlignedSpan {
  readonly a_start: number;
  readonly a_end: number;
  readonly b_start: number;
  readonly b_end: number;
  /** tf-idf cosine of the two passages (0..1); 1 for a verbatim passage found by the exact-run detector. */
  readonly score: number;
  /** Set on a passage of the summary mode: `a`'s side condenses `b`'s (the `summary` kind of reuse.ts). */
  readonly summary?: true;
}

/** Options with defaults filled in. */
export interface ResolvedCompareOptions {
  readonly seedCosine: number;
  readonly seedDice: number;
  readonly maxGap: number;
  readonly validation: number;
  readonly minLength: number;
  readonly minRunWords: number;
  readonly minSentenceWords: number;
  readonly verbatimRun: number;
  readonly verbatimShare: number;
  readonly minSeeds: number;
  readonly singleSeedCosine: number;
  readonly obfuscatedSeedCosine: number;
  readonly obfuscatedSeedDice: number;
  readonly extendShare: number;
  readonly synonyms: boolean;
}
