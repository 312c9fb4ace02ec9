/**
 * A score's tier and why: the rule that decided it, what kept it from a higher tier, and what evidence would raise it.
 * The rules (docs/registry.md): `confirmed` needs a ≥ 50-word verbatim run (the 50-token extraction criterion of
 * Carlini et al. 2023, arXiv:2202.07646) in an exact dataset the model's documentation names (link certainty ≥ 0.85);
 * otherwise the bootstrap interval's lower bound decides — `strong` ≥ 80, `moderate` ≥ 50 — then `weak` when only the
 * point reaches 50, else `inconclusive`. Fewer than {@link MIN_CHUNKS_FOR_TIER} chunks give no interval worth the name,
 * so only `confirmed` or `inconclusive`.
 */

/** Word tokens per chunk. */
export const CHUNK_WORDS = 200;
/** Chunks below which only `confirmed` or `inconclusive` are given. */
export const MIN_CHUNKS_FOR_TIER = 3;
/** Words of a verbatim run that make exact evidence `confirmed`. */
export const CONFIRM_WORDS = 50;
/** Link certainty from which a documented dataset can confirm. */
export const CONFIRM_CERTAINTY = 0.85;

export type Tier = 'confirmed' | 'strong' | 'moderate' | 'weak' | 'inconclusive';

/** Every reason code a tier can give, in the order the OpenAPI document lists them. */
export const TIER_REASON_CODES = [
  'documented_verbatim_run',
  'interval_lower_bound_80',
  'interval_lower_bound_50',
  'only_point_reaches_50',
  'score_below_50',
  'too_few_chunks',
  'work_text_not_registered',
  'no_dataset_of_model',
  'no_match_in_model_datasets',
  'model_datasets_not_searched',
  'portrait_evidence_only',
  'no_long_verbatim_run',
  'long_run_link_not_documented',
] as const;

/** Why a tier was given, or what kept it from a higher one. */
export type TierReasonCode = (typeof TIER_REASON_CODES)[number];

/** One reason: a stable code and the sentence behind it. */
export interface TierReason {
  readonly code: TierReasonCode;
  readonly message: string;
}

/** The tier, the reasons (the deciding rule first) and what would raise it (empty for `confirmed`). */
export interface TierDecision {
  readonly tier: Tier;
  readonly reasons: TierReason[];
  readonly to_raise: string[];
}

/** What the tier rules read about one dataset linked to the model. */
export interface TierDataset {
  /** Its matches give the spans of the source (exact datasets, remote corpora, evidence sources; not portraits). */
  readonly positions: boolean;
  readonly link: 'kb' | 'declared';
  readonly certainty: number;
  /** Chunks with a match. */
  readonly flagged: number;
  /** Longest verbatim run over the chunks, in words. */
  readonly longest: number;
}

/** The inputs of the tier rules. */
export interface TierInput {
  readonly chunks: number;
  readonly hasText: boolean;
  /** Datasets of the model are loaded, but none could be searched (remote corpora that answered nothing). */
  readonly unsearched?: boolean;
  /** P(trained on part of the work), 0..1, and the bootstrap interval's bounds. */
  readonly point: number;
  readonly lower: number;
  readonly datasets: readonly TierDataset[];
}

const pct = (x: number): string => `${Math.round(x * 1000) / 10}`;

/**
 * Decide the tier and explain it.
 * @example decideTier({ chunks: 1, hasText: true, point: 0.95, lower: 0.95, datasets: [{ positions: false, link: 'kb', certainty: 0.9, flagged: 1, longest: 0 }] })
 *   // { tier: 'inconclusive', reasons: [{ code: 'too_few_chunks', … }, { code: 'portrait_evidence_only', … }], to_raise: [ … ] }
 */
export function decideTier(input: TierInput): TierDecision {
  const { chunks: n, point, lower, datasets } = input;
  const canConfirm = (d: TierDataset): boolean => d.positions && d.link === 'kb' && d.certainty >= CONFIRM_CERTAINTY;
  const reasons: TierReason[] = [];
  const raise: string[] = [];
  const say = (code: TierReasonCode, message: string, toRaise?: string) => {
    reasons.push({ code, message });
    if (toRaise) raise.push(toRaise);
  };
  if (datasets.some((d) => canConfirm(d) && d.longest >= CONFIRM_WORDS)) {
    say(
      'documented_verbatim_run',
      `A verbatim run of at least ${CONFIRM_WORDS} words of the work is in an exact dataset the model's documentation names (link certainty ≥ ${CONFIRM_CERTAINTY}).`,
    );
    return { tier: 'confirmed', reasons, to_raise: [] };
  }

  let tier: Tier;
  if (n < MIN_CHUNKS_FOR_TIER) {
    tier = 'inconclusive';
    if (n > 0) {
      say(
        'too_few_chunks',
        `The work gives ${n} chunk${n === 1 ? '' : 's'} of ${CHUNK_WORDS} words; an interval over chunks needs at least ${MIN_CHUNKS_FOR_TIER}, so only confirmed or inconclusive can be given.`,
        `Register more of the work's text (at least ${MIN_CHUNKS_FOR_TIER * CHUNK_WORDS} words), or find a verbatim run of ${CONFIRM_WORDS} words in an exact dataset the model's documentation names.`,
      );
    }
  } else if (lower >= 0.8) {
    tier = 'strong';
    say('interval_lower_bound_80', `The 95 % interval's lower bound is ${pct(lower)} (≥ 80).`);
  } else if (lower >= 0.5) {
    tier = 'moderate';
    say(
      'interval_lower_bound_50',
      `The 95 % interval's lower bound is ${pct(lower)} (≥ 50, < 80).`,
      "A lower bound of 80 — evidence in more of the work's chunks — gives strong.",
    );
  } else if (point >= 0.5) {
    tier = 'weak';
    say(
      'only_point_reaches_50',
      `The score is ${pct(point)} but the 95 % interval's lower bound is ${pct(lower)} (< 50): the evidence sits in few chunks.`,
      'Evidence spread over more chunks narrows the interval; a lower bound of 50 gives moderate.',
    );
  } else {
    tier = 'inconclusive';
    say('score_below_50', `The score is ${pct(point)} (< 50).`);
  }

  // what kept it from confirmed (and, for the weaker tiers, from anything)
  if (!input.hasText) {
    say(
      'work_text_not_registered',
      'The work was registered by its fingerprint only: there is no text to search.',
      'Register the work with its content.',
    );
  } else if (input.unsearched) {
    say(
      'model_datasets_not_searched',
      "The model's datasets could not be searched (remote_corpora[].outcome): no evidence either way.",
      'Score again when the remote corpora answer.',
    );
  } else if (datasets.length === 0) {
    say(
      'no_dataset_of_model',
      'No loaded dataset samples a training dataset of the model.',
      "Load a dataset that samples the model's training data: a reference pack, a remote corpus, or your own upload with its kb_dataset.",
    );
  } else if (datasets.every((d) => d.flagged === 0)) {
    say(
      'no_match_in_model_datasets',
      'No chunk matched in the datasets of the model that were searched.',
      'Only a match in a dataset of the model can raise it; a larger sample of its training data (e.g. a remote corpus) may find one.',
    );
  } else if (datasets.every((d) => d.flagged === 0 || !d.positions)) {
    say(
      'portrait_evidence_only',
      'Every match is in a portrait (a compact sample of a dataset): it can show membership, not verbatim spans, so it never confirms.',
      'An exact index of the same dataset (an exact pack or a remote corpus) can show the verbatim spans that confirm.',
    );
  } else if (datasets.some((d) => d.positions && d.longest >= CONFIRM_WORDS)) {
    say(
      'long_run_link_not_documented',
      `A verbatim run of ${CONFIRM_WORDS}+ words was found, but only in a dataset whose link to the model is declared or below certainty ${CONFIRM_CERTAINTY}.`,
      "A documented link (the model's own documentation naming the dataset) would confirm.",
    );
  } else {
    const longest = Math.max(...datasets.filter((d) => d.positions).map((d) => d.longest));
    say(
      'no_long_verbatim_run',
      `The longest verbatim run is ${longest} words (confirmed needs ${CONFIRM_WORDS}).`,
      `A verbatim run of ${CONFIRM_WORDS} words in an exact dataset the model's documentation names confirms.`,
    );
  }
  return { tier, reasons, to_raise: [...new Set(raise)] };
}
