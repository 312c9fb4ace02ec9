/**
 * The one table of factor codes: every snake_case code that `analyze`, `score` and the
 * memorization probes may emit, what it means and where it comes from. A result lists the codes
 * that fired, so a reader can see why a level or a confidence is what it is and what could not
 * be checked. Sources: ../shared/reference/attribution-science.md (§3–§4: what attribution can
 * and cannot claim) and licensing-and-law.md (§5–§6: jurisdiction layers and risk weights).
 */

/** What a code is about. */
export type FactorCategory =
  /** Evidence found in indexed reference data. */
  | 'evidence'
  /** How a finding links to models (documentation, declarations). */
  | 'attribution'
  /** What could not be checked, or why a number is weak. */
  | 'limitation'
  /** A legal fact of the jurisdiction (licensing-and-law.md §6, base codes). */
  | 'jurisdiction'
  /** A work-specific modifier of the risk weight (licensing-and-law.md §6, modifiers). */
  | 'risk_modifier';

/** One row of the table. */
export interface FactorInfo {
  readonly code: string;
  readonly category: FactorCategory;
  readonly meaning: string;
  /** Where the rule or fact comes from. */
  readonly source: string;
}

const SCIENCE = 'attribution-science.md §3–§4';
const LAW6 = 'licensing-and-law.md §6';

const ROWS = [
  // ---- evidence
  ['verbatim_overlap', 'evidence', 'A passage of the content occurs in an indexed reference dataset (exact match, spans in both texts).', 'engine.search, exact datasets'],
  ['long_verbatim_run', 'evidence', 'A matched passage covers ≥ 50 words: the length of the 50-token extractable-memorization criterion (Carlini et al. 2023).', 'arXiv 2202.07646; ' + SCIENCE],
  ['multiple_independent_runs', 'evidence', 'Three or more separate passages of the content match the same dataset.', 'engine.search'],
  ['near_duplicate', 'evidence', 'The whole content is a near-duplicate of an indexed document (estimated Jaccard of word 5-gram sets ≥ the near threshold).', 'engine.search, MinHash-LSH'],
  ['portrait_membership', 'evidence', 'The content\'s n-grams are in a portrait dataset more often than the filter\'s false-positive rate allows by chance (p < 0.001), or a run of hits is reported as a match.', 'engine.search, portrait datasets'],
  ['exact_match_in_open_corpus', 'evidence', 'The text is found in an open corpus that a model documents training on: the strongest statement corpus access allows.', SCIENCE],
  ['verbatim_extraction_verified', 'evidence', 'A model reproduced a span of the work verbatim (≥ 50 words) when prompted with its prefix.', 'arXiv 2202.07646; ' + SCIENCE],
  ['trap_sequence_detected', 'evidence', 'A canary/trap sequence embedded in the work behaves as seen by the model.', 'arXiv 2402.09363; ' + SCIENCE],
  // ---- attribution
  ['dataset_disclosed_by_provider', 'attribution', 'The matched dataset is named in the model\'s own documentation (model card, paper).', 'kb-models-datasets.json'],
  ['dataset_component_of_disclosed', 'attribution', 'The matched dataset is a documented component of a dataset the model names (e.g. Books3 in The Pile).', 'kb-models-datasets.json; dataset papers'],
  ['partial_disclosure', 'attribution', 'A linked model discloses only part of its training data; the link rests on the named part.', 'kb-models-datasets.md §1'],
  ['training_data_undisclosed', 'limitation', 'Models whose training data is undisclosed (e.g. openai/gpt-4, anthropic/claude-opus-4) cannot be linked by corpus evidence; only behavioural probes apply to them.', 'kb-models-datasets.md §1; ' + SCIENCE],
  ['model_training_data_undisclosed', 'limitation', 'The target model discloses no training data, so no corpus evidence can link it.', SCIENCE],
  ['dataset_excluded_by_provider', 'attribution', 'A model documents having removed the matched dataset (e.g. "The Pile (without Books3)"), so it is not linked.', 'kb-models-datasets.json'],
  ['declared_dataset_link', 'attribution', 'The link from an indexed dataset to a knowledge-base dataset or to models is the user\'s declaration, not a fact the library checked.', 'dataset descriptor (kb_dataset, models)'],
  ['no_documented_model_link', 'attribution', 'Evidence was found in a dataset that no model documents training on and no declaration links to a model.', 'knowledge base'],
  // ---- limitations
  ['no_datasets_loaded', 'limitation', 'No reference dataset is loaded, so no corpus evidence could be looked for.', 'engine.datasets()'],
  ['no_indexed_dataset_match', 'limitation', 'Nothing in the loaded reference datasets matched. That is not evidence of non-use: the datasets are samples and training corpora are mostly closed.', SCIENCE + ' (cannot claim "not trained on")'],
  ['reference_sample_only', 'limitation', 'The indexed datasets are samples of the corpora they stand for; text missing from them may still be in the full corpus.', 'Data Portraits practice; ' + SCIENCE],
  ['short_text_low_power', 'limitation', 'Too little text for strong evidence either way: fewer than 50 words, or below a probe\'s minimum number of chunks or reference documents.', SCIENCE + ' §4.1'],
  ['portrait_no_positions', 'limitation', 'A portrait says that passages are in its corpus, not in which document or where.', 'src/datasets/portrait.ts'],
  ['paraphrase_not_detectable', 'limitation', 'Corpus matching finds copies and light edits, not paraphrases (LLM paraphrases of indexed passages: recall 0.44 on the dev data).', 'bench/results/eval-retrieval.json'],
  ['model_datasets_not_indexed', 'limitation', 'None of the loaded datasets samples a training dataset of the target model (by the knowledge base or a declaration), so no corpus evidence about it could be looked for.', 'knowledge base; dataset descriptors'],
  ['work_text_not_registered', 'limitation', 'The work was registered by fingerprint only; without its text it cannot be split into chunks and searched.', 'registerWork'],
  ['no_model_probe', 'limitation', 'No model was queried: this analysis uses reference corpora and documentation only (memorization probes are separate operations).', SCIENCE],
  ['no_logprob_access', 'limitation', 'The target model exposes no log-probabilities, so likelihood statistics (loss, zlib, Min-K%) cannot be computed.', SCIENCE + ' §3'],
  ['distribution_shift_risk', 'limitation', 'The reference (non-member) set may differ from the work in time or domain, which alone can separate them.', 'arXiv 2406.16201; ' + SCIENCE],
  ['calibrated_on_constructed_queries', 'limitation', 'Confidences are calibrated on constructed dev queries at a 50 % prior (members = transformed passages of indexed documents; non-members = clean same-genre passages).', 'bench/eval-calibration.mjs'],
  ['jurisdiction_unspecified', 'limitation', 'No jurisdiction was given; the risk uses the neutral base weight 0.5.', LAW6],
  ['jurisdiction_not_in_table', 'limitation', 'The jurisdiction is a valid ISO 3166 code that the risk table has no facts for; the neutral base weight 0.5 is used.', LAW6],
  ['no_market_anchor', 'limitation', 'No public licence price exists for this content type (e.g. code); no revenue figure is given.', 'licensing-and-law.md §3.1'],
  ['low_confidence_rate', 'limitation', 'The rate rests on a single public quote (text per word), so the revenue figure is an order of magnitude only.', 'licensing-and-law.md §3.3'],
  ['opt_out_after_model_release', 'limitation', 'The declared opt-out dates from after the release of every linked model, so it cannot have applied to their training.', LAW6],
  // ---- jurisdiction facts (base codes of licensing-and-law.md §6)
  ['tdm_exception_with_opt_out', 'jurisdiction', 'Commercial text and data mining is allowed unless the rightholder reserved it in a machine-readable way (DSM Directive Art. 4).', 'Directive (EU) 2019/790 Art. 4; ' + LAW6],
  ['training_summary_required', 'jurisdiction', 'General-purpose AI providers must publish a summary of training content (AI Act Art. 53(1)(d)).', 'Regulation (EU) 2024/1689 Art. 53; ' + LAW6],
  ['memorization_is_reproduction', 'jurisdiction', 'Memorization in model weights was held to be a reproduction; infringing outputs are actionable (GEMA v OpenAI).', 'LG München I 42 O 14139/24; ' + LAW6],
  ['no_commercial_tdm_exception', 'jurisdiction', 'The TDM exception covers non-commercial research only (CDPA s29A).', 'CDPA s29A; ' + LAW6],
  ['territorial_training_location', 'jurisdiction', 'Training done abroad may be outside the reach of local copyright (Getty v Stability).', '[2025] EWHC 2863 (Ch); ' + LAW6],
  ['fair_use_case_by_case', 'jurisdiction', 'Training is judged as fair use case by case; courts have split.', 'Bartz v. Anthropic; Kadrey v. Meta; Thomson Reuters v. Ross; ' + LAW6],
  ['statutory_damages_available', 'jurisdiction', 'Statutory damages of $750–$30,000 per work (up to $150,000 if wilful) are available.', '17 U.S.C. § 504(c); ' + LAW6],
  ['pending_litigation', 'jurisdiction', 'Cases on AI training are pending there, so the law may change.', LAW6],
  ['training_data_disclosure_required', 'jurisdiction', 'Developers must disclose training data (California AB 2013, in force 1 Jan 2026).', 'Cal. Bus. & Prof. Code § 22757.20; ' + LAW6],
  ['tdm_exception_commercial', 'jurisdiction', 'A TDM/computational analysis exception covers commercial training.', 'Japan Art. 30-4; Singapore s244; ' + LAW6],
  ['enjoyment_purpose_exception', 'jurisdiction', 'Uses aimed at enjoying the expression (imitation, RAG reproduction) fall outside the exception.', 'ACA General Understanding (2024); ' + LAW6],
  ['lawful_access_required', 'jurisdiction', 'The exception requires lawful access to the works.', 'Singapore Copyright Act 2021 s244; ' + LAW6],
  ['contract_override_prohibited', 'jurisdiction', 'The exception cannot be excluded by contract.', 'Singapore Copyright Act 2021 s244; ' + LAW6],
  ['fair_use_guidance_permissive', 'jurisdiction', 'Government guidance treats training as generally fair use (non-binding).', 'Israel MoJ opinion (Dec 2022); ' + LAW6],
  ['government_guidelines', 'jurisdiction', 'Government guidelines on fair use for AI training exist.', 'Korea MCST/KCC guidelines (26 Feb 2026); ' + LAW6],
  ['lawful_source_required', 'jurisdiction', 'Training data must come from lawful sources and respect IP rights.', 'China Interim Measures (2023) Art. 7; ' + LAW6],
  ['no_tdm_exception', 'jurisdiction', 'There is no text and data mining exception.', LAW6],
  ['collective_licensing_proposed', 'jurisdiction', 'Paid or collective licensing for AI training is under study.', 'Australia AG statement (26 Oct 2025); ' + LAW6],
  ['statutory_licence_proposed', 'jurisdiction', 'A mandatory licence with statutory royalties for AI training is proposed.', 'India DPIIT working paper (8 Dec 2025); ' + LAW6],
  // ---- risk modifiers (licensing-and-law.md §6)
  ['tdm_opt_out_declared', 'risk_modifier', 'The holder declared a TDM/AI-training opt-out: +0.20 in the EU and its members, +0.05 elsewhere.', 'DSM Art. 4(3); AI Act Art. 53(1)(c); ' + LAW6],
  ['pirated_source_dataset', 'risk_modifier', 'The content is linked to a model through a dataset documented as pirated (e.g. Books3): +0.25 in the US, +0.15 elsewhere.', 'Bartz v. Anthropic; ' + LAW6],
  ['verbatim_memorization', 'risk_modifier', 'A model reproduces a long verbatim span of the work: +0.20 (+0.30 in DE).', 'GEMA v OpenAI; ' + LAW6],
  ['output_substitution_risk', 'risk_modifier', 'Model outputs compete with the work: +0.10.', 'Kadrey v. Meta; ' + LAW6],
  ['licensing_market_exists', 'risk_modifier', 'Public licence prices exist for this content type (books, news, articles): +0.05.', 'licensing-and-law.md §1; ' + LAW6],
  ['non_commercial_research_use', 'risk_modifier', 'Research-only model by a research organisation: −0.25.', 'DSM Art. 3; ' + LAW6],
  ['lawfully_acquired_copy', 'risk_modifier', 'The provider documents a licensed or purchased source: −0.15.', 'Bartz v. Anthropic; ' + LAW6],
  ['training_outside_jurisdiction', 'risk_modifier', 'Training documented elsewhere: −0.20 (GB).', 'Getty v Stability; ' + LAW6],
  ['attribution_uncertain', 'risk_modifier', 'The lower end of the attribution confidence interval is below 0.5, so the risk weight is scaled by it.', LAW6],
] as const satisfies ReadonlyArray<readonly [string, FactorCategory, string, string]>;

/** Every factor code. */
export type FactorCode = (typeof ROWS)[number][0];

/** The table, keyed by code. */
export const FACTORS: Readonly<Record<FactorCode, FactorInfo>> = Object.freeze(
  Object.fromEntries(ROWS.map(([code, category, meaning, source]) => [code, Object.freeze({ code, category, meaning, source })])) as Record<FactorCode, FactorInfo>,
);

/**
 * The table row of a code.
 * @example
 * factorInfo('reference_sample_only').category // 'limitation'
 */
export function factorInfo(code: FactorCode): FactorInfo {
  return FACTORS[code];
}

/** Every row, in table order. */
export function factorTable(): FactorInfo[] {
  return ROWS.map(([code]) => FACTORS[code]);
}
