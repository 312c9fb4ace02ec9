/**
 * Requests and results of the memorization operations (`Memorization`). Fields that travel as
 * JSON are snake_case; spans are UTF-16 offsets into the texts named.
 */
import type { RiskLevel, WorkType } from '../analyze/types.js';
import type { FactorCode } from '../kb/factors.js';
import type { AccessLevel, TargetModel } from '../../models/types.js';
import type { RegisterWorkRequest } from '../registry/works.js';
import type { ScoreResult } from '../score/types.js';

// ------------------------------------------------------------------ register-work, reference sets

/** `registerWork`: track an already registered work, or register one now. */
export interface TrackWorkRequest {
  /** A work of the registry (`wk_…`). Exactly one of `work_id` and `work`. */
  readonly work_id?: string;
  /** Register this work first (`engine.registerWork`), then track it. */
  readonly work?: RegisterWorkRequest;
  /**
   * Generate canary (trap) sequences for the holder to embed in the work before publishing,
   * plus never-published controls of the same kind: later, a model that scores the canaries as
   * more likely than the controls saw them (Meeus et al. 2024, arXiv 2402.09363). Their evidence
   * says traps need to be long and repeated (≈ 100 times) in the published text to be detectable.
   */
  readonly canaries?: { readonly count: number; readonly words?: number; readonly controls?: number };
}

/** A canary sequence: embed `text` verbatim in the published work (the more copies the better). */
export interface Canary {
  readonly id: string;
  readonly text: string;
}

/** A tracked work (`mem/work/<work_id>`). */
export interface TrackedWork {
  readonly work_id: string;
  readonly work_hash: string;
  readonly title: string | null;
  readonly tracked_at: string;
  /** Sequences to embed before publishing. */
  readonly canaries: Canary[];
  /** Never-published sequences of the same kind: keep them private; they are the canaries' matched non-members. */
  readonly controls: Canary[];
  readonly canary_words: number;
}

/**
 * How a reference (non-member) set was made, as declared by whoever added it:
 * - `randomized_split`: members and non-members were assigned at random from one pool (e.g. chapters
 *   withheld at random from publication, or canary controls). The only matched design.
 * - `post_cutoff`: published after the model's training cutoff — the model cannot have seen it,
 *   but time alone can separate it from older text (`distribution_shift_risk`).
 * - `unverified`: anything else, e.g. texts passed directly (`distribution_shift_risk`).
 */
export type ReferenceBasis = 'randomized_split' | 'post_cutoff' | 'unverified';

/** `addReferenceSet` request. */
export interface ReferenceSetRequest {
  /** 1–200 characters. */
  readonly id: string;
  /** The non-member documents (each one document: chunks never span two). */
  readonly texts: readonly string[];
  readonly basis: ReferenceBasis;
  readonly description?: string;
  /** With `post_cutoff`: the earliest publication date of the texts (ISO 8601). */
  readonly published_after?: string;
}

/** A stored reference set (`mem/refset/<id>`), without its texts. */
export interface ReferenceSetInfo {
  readonly id: string;
  readonly basis: ReferenceBasis;
  readonly description: string | null;
  readonly published_after: string | null;
  readonly documents: number;
  readonly tokens: number;
  readonly created_at: string;
}

// ------------------------------------------------------------------ extract

/** What the operations read a work from: a registered work, or a text. */
export type WorkInput =
  | { readonly work_id: string; readonly text?: undefined }
  | { readonly text: string; readonly work_id?: undefined };

/** `extract` request. */
export type ExtractRequest = WorkInput & {
  readonly model: TargetModel;
  /** Words of the work given as the prompt. @default 50 */
  readonly prefix_tokens?: number;
  /** Words of the true continuation compared. @default 64 */
  readonly continuation_tokens?: number;
  /** Prefixes, at evenly spaced positions of the work. @default 16 */
  readonly prefixes?: number;
  /** Model tokens requested per generation. @default 2 × continuation_tokens */
  readonly max_tokens?: number;
  /** Model calls in flight. @default 4 */
  readonly concurrency?: number;
};

/** A verbatim run of the output in the work. */
export interface VerbatimSpan {
  /** Word tokens. */
  readonly tokens: number;
  /** Span in the model output. */
  readonly output_start: number;
  readonly output_end: number;
  /** Span in the work's text. */
  readonly work_start: number;
  readonly work_end: number;
}

/** One prefix → greedy continuation. */
export interface ExtractionAttempt {
  readonly index: number;
  /** The prompt's span in the work. */
  readonly prefix_start: number;
  readonly prefix_end: number;
  readonly prefix_tokens: number;
  /** Span in the work of the true continuation compared. */
  readonly continuation_start: number;
  readonly continuation_end: number;
  /** Words of the true continuation compared (fewer than asked at the end of the work). */
  readonly continuation_tokens: number;
  /** The model's continuation as returned. */
  readonly output: string;
  /** Leading words of the output equal to the true continuation (Carlini et al.'s exact-continuation length). */
  readonly exact_continuation_tokens: number;
  /** The longest run of the output found verbatim anywhere in the work (≥ 8 words), or null. */
  readonly longest_match: VerbatimSpan | null;
  /** `longest_match` has ≥ 50 words: verbatim extraction verified. */
  readonly verified: boolean;
  /** The output is a refusal (./refusal.ts) and does not continue the work: left out of the extractable share. */
  readonly refused?: true;
}

/** `extract` result. */
export interface ExtractionResult {
  readonly work_id: string | null;
  readonly model: string;
  readonly access: AccessLevel;
  readonly prefix_tokens: number;
  readonly continuation_tokens: number;
  readonly attempts: ExtractionAttempt[];
  readonly summary: {
    readonly attempts: number;
    /** Attempts the model refused: they show nothing of the work, and the share and mean leave them out. */
    readonly refusals: number;
    readonly verified: number;
    /** Attempts (not refused) whose output reproduced their whole true continuation, with a Wilson 95 % interval. */
    readonly extractable: { readonly count: number; readonly share: number; readonly ci_95: readonly [number, number] };
    /** Longest verbatim run over all attempts, in words. */
    readonly longest_match_tokens: number;
    readonly mean_exact_continuation_tokens: number;
  };
  readonly factors: FactorCode[];
  readonly limitations: FactorCode[];
  readonly method: string;
}

// ------------------------------------------------------------------ probe

/** The non-member side of a probe. */
export type ProbeReference = { readonly reference_set: string } | { readonly texts: readonly string[] };

/** `probe` request. */
export type ProbeRequest = (
  | WorkInput
  | { readonly texts: readonly string[]; readonly work_id?: undefined; readonly text?: undefined }
) & {
  readonly model: TargetModel;
  readonly reference: ProbeReference;
  /**
   * A model that cannot have seen the work (released before it was written, or trained on disclosed
   * data without it), best of the same family or data as `model`. With it, every chunk is scored by
   * both and the verdict rests on the calibrated loss (difficulty calibration): wording that any
   * model finds predictable no longer reads as membership.
   */
  readonly reference_model?: TargetModel;
  /** Words per chunk. @default 128 */
  readonly chunk_tokens?: number;
  /** Fewest chunks on each side for a verdict. @default 20 */
  readonly min_chunks?: number;
  /** Fewest reference documents for a verdict (the test's variance is between documents). @default 5 */
  readonly min_reference_documents?: number;
  /** Share of lowest-probability tokens for Min-K% and Min-K%++. @default 0.2 */
  readonly k?: number;
  /** Family-wise significance level (Holm over the statistics). @default 0.01 */
  readonly alpha?: number;
  /** Model calls in flight. @default 4 */
  readonly concurrency?: number;
};

/**
 * `calibrated_loss`: the target's negative log-likelihood per character minus the reference
 * model's (present with `reference_model` only).
 */
export type ProbeStatisticName = 'loss' | 'zlib_ratio' | 'min_k' | 'min_k_plus_plus' | 'calibrated_loss';

/** One statistic, computed the same way on both sets. */
export interface ProbeStatistic {
  readonly name: ProbeStatisticName;
  /** Members tend to have `lower` loss / zlib ratio and `higher` Min-K% / Min-K%++. */
  readonly member_direction: 'lower' | 'higher';
  /** Min-K%++ from top-k alternatives instead of the full distribution. */
  readonly approximate: boolean;
  /**
   * Whether the verdict tests this statistic: all four without a reference model, only
   * `calibrated_loss` with one (the others are then description).
   */
  readonly in_verdict: boolean;
  readonly suspect: {
    readonly chunks: number;
    readonly documents: number;
    readonly mean: number;
    readonly median: number;
  };
  readonly reference: {
    readonly chunks: number;
    readonly documents: number;
    readonly mean: number;
    readonly median: number;
  };
  /**
   * Rank AUC over chunk pairs: P(a work chunk looks more member-like than a reference chunk),
   * 0.5 = no difference. An effect size, not a per-chunk classifier.
   */
  readonly auc: number;
  /** 95 % interval of the AUC (cluster-robust over reference documents; see `auc_ci_method`). */
  readonly auc_ci_95: readonly [number, number];
  readonly auc_ci_method: 'delong' | 'clustered';
  /**
   * Mann–Whitney U over chunks (one-sided, members more likely). Descriptive only: chunks of one
   * document are correlated, so this p is too small when the sets differ by document (it is not
   * used for the verdict).
   */
  readonly mann_whitney: { readonly u: number; readonly p_value: number | null; readonly method: 'exact' | 'normal' };
  /**
   * The verdict's test: one-sided pooled t-test on the per-document means (suspect documents vs
   * reference documents; with one suspect document, is it outside the reference documents' spread).
   */
  readonly document_test: {
    readonly t: number;
    readonly df: number;
    readonly p_value: number;
    /** Holm-adjusted over the statistics in the verdict; null for a statistic outside it. */
    readonly p_holm: number | null;
    readonly mean_difference: number;
    readonly ci_95: readonly [number, number];
  } | null;
  readonly significant: boolean;
}

/** Per-chunk values (reproducibility; never a per-chunk membership claim). */
export interface ProbeChunk {
  readonly document: number;
  readonly start: number;
  readonly end: number;
  /** Scored tokens (the model's own tokens). */
  readonly scored_tokens: number;
  readonly loss: number;
  readonly zlib_ratio: number;
  readonly min_k: number;
  readonly min_k_plus_plus: number | null;
  /** NLL per character, target minus reference model; null without a reference model. */
  readonly calibrated_loss: number | null;
}

export type ProbeVerdict = 'significant' | 'not_significant' | 'insufficient_data' | 'not_applicable';

/** `probe` result. */
export interface ProbeResult {
  readonly work_id: string | null;
  readonly model: string;
  readonly access: AccessLevel;
  /** The model that calibrates the loss, or null. */
  readonly reference_model: { readonly id: string; readonly access: AccessLevel } | null;
  /** What Min-K%++ rests on: the full distribution (exact), top-k (approximate) or nothing. */
  readonly distribution: 'full' | 'top_k' | 'none';
  readonly verdict: ProbeVerdict;
  /** One paragraph saying what the verdict does and does not mean. */
  readonly statement: string;
  readonly reference: {
    readonly source: 'reference_set' | 'texts';
    readonly id: string | null;
    readonly basis: ReferenceBasis;
    readonly matched: boolean;
  };
  readonly chunk_tokens: number;
  readonly k: number;
  readonly alpha: number;
  readonly min_chunks: number;
  readonly min_reference_documents: number;
  readonly n_chunks: { readonly suspect: number; readonly reference: number };
  readonly n_documents: { readonly suspect: number; readonly reference: number };
  readonly statistics: ProbeStatistic[];
  readonly chunks: { readonly suspect: ProbeChunk[]; readonly reference: ProbeChunk[] };
  readonly factors: FactorCode[];
  readonly limitations: FactorCode[];
  readonly method: string;
}

// ------------------------------------------------------------------ compare

/** `compare` request: a model output against registered works. */
export interface CompareOutputRequest {
  readonly output: string;
  /** Only these works. @default every registered work with text (up to `limit`) */
  readonly work_ids?: readonly string[];
  /** Shortest verbatim run reported, in words. @default 8 */
  readonly min_tokens?: number;
  /** Most works examined. @default 1000 */
  readonly limit?: number;
}

/** A passage of the output that is close to the work but not a verbatim run (engine.compare). */
export interface NearSpan {
  readonly output_start: number;
  readonly output_end: number;
  readonly work_start: number;
  readonly work_end: number;
  /** tf-idf cosine of the two passages. */
  readonly score: number;
}

/** One work's matches. */
export interface WorkComparison {
  readonly work_id: string;
  readonly title: string | null;
  readonly verbatim: VerbatimSpan[];
  readonly near: NearSpan[];
  readonly longest_verbatim_tokens: number;
  /** Share of the output's words inside verbatim runs. */
  readonly verbatim_share: number;
}

/** `compare` result. */
export interface CompareOutputResult {
  readonly output_tokens: number;
  /** Works with any match, longest verbatim run first. */
  readonly works: WorkComparison[];
  readonly examined: number;
  readonly factors: FactorCode[];
  readonly limitations: FactorCode[];
}

// ------------------------------------------------------------------ traps

/** Canaries vs their never-published controls. */
export interface TrapResult {
  readonly canaries: number;
  readonly controls: number;
  /** P(a canary's loss is lower than a control's): 0.5 = no difference. */
  readonly auc: number;
  readonly auc_ci_95: readonly [number, number];
  /** One-sided Mann–Whitney (canaries and controls are independent random sequences: a randomized design). */
  readonly p_value: number;
  readonly detected: boolean;
  readonly canary_loss: number;
  readonly control_loss: number;
}

// ------------------------------------------------------------------ assess

/** `assess` request. */
export interface AssessRequest {
  readonly work_id: string;
  readonly model: TargetModel;
  /** Knowledge-base id of the model (`provider/model`), for corpus evidence through `engine.score`. */
  readonly kb_model?: string;
  /** ISO 3166 code (as `score`). */
  readonly jurisdiction?: string;
  /** Extraction settings, or false to skip. @default {} */
  readonly extract?: Omit<ExtractRequest, 'model' | 'work_id' | 'text'> | false;
  /** Probe settings with the reference, or false to skip. Without it, no probe is run. */
  readonly probe?: Omit<ProbeRequest, 'model' | 'work_id' | 'text' | 'texts'> | false;
  /** Test the work's canaries when it has any and the model gives log-probabilities. @default true */
  readonly traps?: boolean;
  /** Significance level of the trap test. @default 0.01 */
  readonly trap_alpha?: number;
}

/** Strength of the memorization evidence, strongest first. */
export type EvidenceTier = 'confirmed' | 'strong' | 'moderate' | 'inconclusive';

/** `assess` result (`mem/assessment/<id>`). */
export interface Assessment {
  readonly assessment_id: string;
  readonly created_at: string;
  readonly work: {
    readonly work_id: string;
    readonly work_hash: string;
    readonly title: string | null;
    readonly owner: string;
    readonly work_type: WorkType;
    readonly tokens: number;
  };
  readonly model: { readonly id: string; readonly access: AccessLevel; readonly kb_model: string | null };
  readonly jurisdiction: string | null;
  readonly level: RiskLevel;
  readonly evidence_tier: EvidenceTier;
  readonly risk: {
    readonly score: number;
    readonly base_weight: number;
    readonly modifiers: Array<{ readonly code: FactorCode; readonly delta: number }>;
    readonly attribution_low: number;
    readonly attribution_scale: number;
  };
  /** Evidence, jurisdiction and modifier codes that fired. */
  readonly factors: FactorCode[];
  /** What could not be checked, or why a number is weak. */
  readonly limitations: FactorCode[];
  readonly summary: string[];
  /** `engine.score` for `kb_model` (its `legal_risk` left out: `risk` above is the assessment's). */
  readonly corpus: Omit<ScoreResult, 'legal_risk'> | null;
  readonly extraction: ExtractionResult | null;
  readonly probe: ProbeResult | null;
  readonly traps: TrapResult | null;
}
