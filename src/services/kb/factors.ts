/**
 * The one table of factor codes: every snake_case code that `analyze`, `score` and the
 * memorization probes may emit, what it means and where it comes from. A result lists the codes
 * that fired, so a reader can see why a level or a confidence is what it is and what could not
 * be checked. The `source` column cites the primary sources directly: the papers on membership
 * inference, memorization and corpus tracing (what attribution can and cannot claim), the model
 * cards and papers behind the knowledge base, and the statutes and court decisions behind the
 * jurisdiction codes. The risk weights and modifier magnitudes are this project's heuristic,
 * documented in docs/jurisdictions-and-revenue.md; they are not legal advice.
 */

/** What a code is about. */
export type FactorCategory =
  /** Evidence found in indexed reference data. */
  | 'evidence'
  /** How a finding links to models (documentation, declarations). */
  | 'attribution'
  /** What could not be checked, or why a number is weak. */
  | 'limitation'
  /** A legal fact of the jurisdiction (a base code of the risk table, see jurisdictions.ts). */
  | 'jurisdiction'
  /** A work-specific modifier of the risk weight (magnitudes: this project's heuristic). */
  | 'risk_modifier';

/** One row of the table. */
export interface FactorInfo {
  readonly code: string;
  readonly category: FactorCategory;
  readonly meaning: string;
  /** Where the rule or fact comes from. */
  readonly source: string;
}

// Citations used more than once (short form: authors, year, arXiv id; statute and article; court and year).
const CARLINI21 = 'Carlini et al. 2021 (arXiv:2012.07805)';
const CARLINI23 = 'Carlini et al. 2023 (arXiv:2202.07646)';
const PORTRAITS = 'Marone & Van Durme 2023, Data Portraits (arXiv:2303.03919)';
const TRAPS = 'Meeus et al. 2024, Copyright Traps (arXiv:2402.09363)';
const DUAN = 'Duan et al. 2024 (arXiv:2402.07841)';
const MINK = 'Shi et al. 2024, Min-K% (arXiv:2310.16789)';
const DI = 'Maini et al. 2024, LLM Dataset Inference (arXiv:2406.06443)';
const INFINIGRAM =
  'Liu et al. 2024, Infini-gram (arXiv:2401.17377); Xu et al. 2025, Infini-gram mini (arXiv:2506.12229)';
const OLMOTRACE = 'Liu et al. 2025, OLMoTrace (arXiv:2504.07096)';
const KB_DOCS = 'model cards and papers in the knowledge base (sources per model)';
const DSM = 'Directive (EU) 2019/790';
const AI_ACT = 'Regulation (EU) 2024/1689';
const BARTZ = 'Bartz v. Anthropic, No. 3:24-cv-05417-WHA (N.D. Cal. 2025)';
const KADREY = 'Kadrey v. Meta, No. 3:23-cv-03417-VC (N.D. Cal. 2025)';
const ROSS = 'Thomson Reuters v. Ross, No. 1:20-cv-613 (D. Del. 2025)';
const GEMA = 'GEMA v. OpenAI, LG München I, 42 O 14139/24 (2025)';
const GETTY = 'Getty Images v. Stability AI [2025] EWHC 2863 (Ch)';
const USCO3 = 'US Copyright Office, Copyright and AI Part 3 (2025)';
const SG_S244 = 'Singapore Copyright Act 2021 s244';
const AU_AG = 'Australia Attorney-General statement (26 Oct 2025)';
// The base weights and the modifier magnitudes are not taken from any source: they are this project's proposal.
const RISK_TABLE = "this project's heuristic, documented in docs/jurisdictions-and-revenue.md";
const HEURISTIC = "weight: this project's heuristic (docs/jurisdictions-and-revenue.md)";

const ROWS = [
  // ---- evidence
  [
    'verbatim_overlap',
    'evidence',
    'A passage of the content occurs in an indexed reference dataset (exact match, spans in both texts).',
    'engine.search, exact datasets',
  ],
  [
    'edited_reuse',
    'evidence',
    'A passage of the content was aligned with an indexed document and half or more of its words lie in word runs shared with it: a copy with word edits (`matches[].reuse` = `edited`).',
    'engine.search, alignment (Sanchez-Perez, Sidorov & Gelbukh, PAN 2014)',
  ],
  [
    'reworded_reuse',
    'evidence',
    'A passage of the content was aligned with an indexed document although fewer than half of its words lie in shared word runs: reworded, reordered or translated and back (`matches[].reuse` = `paraphrase`), or condensed from a longer source passage (`summary`).',
    'engine.search, alignment (Sanchez-Perez, Gelbukh & Sidorov, PAN 2015)',
  ],
  [
    'long_verbatim_run',
    'evidence',
    'A matched passage covers ≥ 50 words: the length of the 50-token extractable-memorization criterion (Carlini et al. 2023).',
    CARLINI23,
  ],
  [
    'multiple_independent_runs',
    'evidence',
    'Three or more separate passages of the content match the same dataset.',
    'engine.search',
  ],
  [
    'near_duplicate',
    'evidence',
    'The whole content is a near-duplicate of an indexed document (estimated Jaccard of word 5-gram sets ≥ the near threshold).',
    'engine.search, MinHash-LSH',
  ],
  [
    'portrait_membership',
    'evidence',
    "Runs of the content's consecutive words are in a portrait dataset, more and longer than unrelated natural text gives it (the portrait's measured background): each run is a match with its span in the content.",
    'engine.search, portrait datasets (' + PORTRAITS + ')',
  ],
  [
    'exact_match_in_open_corpus',
    'evidence',
    'The text is found in an open corpus that a model documents training on: the strongest statement corpus access allows.',
    PORTRAITS + '; Liu et al. 2024, Infini-gram (arXiv:2401.17377)',
  ],
  [
    'remote_corpus_match',
    'evidence',
    "A passage of the content occurs in a remote training corpus searched through its engine (an infini-gram index): found from the corpus's own counts and aligned with the document text the engine returned (`matches[].kind` = `remote`).",
    INFINIGRAM + '; ' + OLMOTRACE,
  ],
  [
    'remote_boilerplate',
    'evidence',
    'A passage matched in a remote corpus occurs there at least `boilerplate_count` times (licences, navigation text, quotations everyone repeats): it is shown (`boilerplate: true`) but left out of the evidence, because text that many documents share says nothing about this one.',
    OLMOTRACE + ' (spans of common text are dropped)',
  ],
  [
    'verbatim_extraction_verified',
    'evidence',
    'A model reproduced a span of the work verbatim (≥ 50 words) when prompted with its prefix.',
    CARLINI21 + '; ' + CARLINI23,
  ],
  [
    'trap_sequence_detected',
    'evidence',
    'A canary/trap sequence embedded in the work behaves as seen by the model.',
    TRAPS,
  ],
  // ---- attribution
  [
    'dataset_disclosed_by_provider',
    'attribution',
    "The matched dataset is named in the model's own documentation (model card, paper).",
    KB_DOCS,
  ],
  [
    'dataset_component_of_disclosed',
    'attribution',
    'The matched dataset is a documented component of a dataset the model names (e.g. Books3 in The Pile).',
    KB_DOCS + '; dataset papers (e.g. The Pile, Gao et al. 2020, arXiv:2101.00027)',
  ],
  [
    'partial_disclosure',
    'attribution',
    'A linked model discloses only part of its training data; the link rests on the named part.',
    KB_DOCS + ' (e.g. Llama 2, Touvron et al. 2023, arXiv:2307.09288 §2.1)',
  ],
  [
    'training_data_undisclosed',
    'limitation',
    'Models whose training data is undisclosed (e.g. openai/gpt-4, anthropic/claude-opus-4) cannot be linked by corpus evidence; only behavioural probes apply to them.',
    KB_DOCS + ' (e.g. GPT-4 Technical Report, arXiv:2303.08774); ' + CARLINI21 + '; ' + DUAN,
  ],
  [
    'model_training_data_undisclosed',
    'limitation',
    'The target model discloses no training data, so no corpus evidence can link it.',
    KB_DOCS + '; ' + DUAN,
  ],
  [
    'dataset_excluded_by_provider',
    'attribution',
    'A model documents having removed the matched dataset (e.g. "The Pile (without Books3)"), so it is not linked.',
    KB_DOCS + ' (e.g. the stabilityai/stablelm-3b-4e1t model card)',
  ],
  [
    'remote_corpus_component',
    'attribution',
    "A document matched in a remote corpus names its component in its metadata (e.g. the Pile's `pile_set_name` Books3), and the models are linked through that component.",
    'The Pile (Gao et al. 2020, arXiv:2101.00027) Table 1; RedPajama and Dolma dataset cards; ' + KB_DOCS,
  ],
  [
    'remote_crawl_after_model_release',
    'attribution',
    "The match is in a Common Crawl snapshot taken after the linked model's release: the text was on the web then, but only an earlier crawl could have been in its training data, so the link counts half.",
    'Common Crawl snapshot dates; ' + KB_DOCS,
  ],
  [
    'declared_dataset_link',
    'attribution',
    "The link from an indexed dataset to a knowledge-base dataset or to models is the user's declaration, not a fact the library checked.",
    'dataset descriptor (kb_dataset, models)',
  ],
  [
    'no_documented_model_link',
    'attribution',
    'Evidence was found in a dataset that no model documents training on and no declaration links to a model.',
    'knowledge base',
  ],
  [
    'corpus_evidence_without_model_link',
    'limitation',
    'The content is in a loaded dataset (strong evidence: a checkable match and confidence ≥ 50 %), but no model is documented or declared to have trained on that dataset, so `confidence` (that a model trained on it) stays 0; `corpus_evidence` gives the evidence.',
    'knowledge base; engine.search',
  ],
  [
    'shared_text',
    'evidence',
    'Some matches lie in passages that at least 4 documents of the dataset share (licence disclaimers, headers and footers, navigation text); each such passage counts once in `potential_matches`, and each match gives `shared_documents`.',
    'engine.search',
  ],
  [
    'quotes_known_text',
    'evidence',
    "The content quotes text a dataset holds: a match inside quotation marks, a block quote, an indented block or after an attribution (\"as Lincoln said\"), a passage the datasets hold in documents of several authors, or an unmarked one in another language than the text around it, in a work that is not mostly corpus text. It is shown with its source (`matches[].role: 'quotation'`) and, by default (`quotations: 'exclude'`), left out of `confidence`, which answers whether the work's own text was trained on; `quotations: 'count'` counts it.",
    'engine.analyze; the "exclude quotes" filter of similarity reports (Turnitin, iThenticate)',
  ],
  // ---- limitations
  [
    'scattered_common_phrases',
    'limitation',
    "The content's n-grams were found in a dataset only scattered, not as a passage a person could check: unrelated text of any length shares common phrases with a large corpus, so they are not evidence, and the dataset gives no attribution source.",
    'engine.search; ' + PORTRAITS,
  ],
  [
    'match_within_chance',
    'limitation',
    'A dataset matched a passage of the content, but the match is no stronger than what unrelated text shows (chance above 0.05: a stock phrase such as "return to the United States"): it is shown, not evidence, and the dataset gives no attribution source.',
    'engine.search; the chance of evidence.datasets[]',
  ],
  [
    'portrait_background_not_measured',
    'limitation',
    'A portrait searched has no measured background (how unrelated natural text hits it): its runs were read against the default one, the largest rates measured on the shipped packs. Measure it with `engine.measureBackground`.',
    'engine.search, portrait datasets',
  ],
  [
    'no_datasets_loaded',
    'limitation',
    'No reference dataset is loaded, so no corpus evidence could be looked for.',
    'engine.datasets()',
  ],
  [
    'no_indexed_dataset_match',
    'limitation',
    'Nothing in the loaded reference datasets matched. That is not evidence of non-use: the datasets are samples and training corpora are mostly closed.',
    'cannot claim "not trained on": ' + TRAPS + '; ' + CARLINI23,
  ],
  [
    'reference_sample_only',
    'limitation',
    'The indexed datasets are samples of the corpora they stand for; text missing from them may still be in the full corpus.',
    PORTRAITS,
  ],
  [
    'short_text_low_power',
    'limitation',
    "Too little text for strong evidence either way: fewer than 50 words, or below a probe's minimum number of chunks or reference documents.",
    MINK + ' (AUC rises with text length); ' + DI,
  ],
  [
    'alignment_unavailable',
    'limitation',
    'Some evidence comes from a dataset that keeps no text (a portrait, or an exact dataset with `keep_text: false` or from an older snapshot), so its passages could not be aligned: only exact runs are reported there, not edited or reworded reuse.',
    'engine.search',
  ],
  [
    'near_passages_not_compared',
    'limitation',
    "The output or a work is longer than compare's sentence alignment takes (500,000 characters): only verbatim runs were compared there, not edited or reworded passages.",
    'compare (model output against registered works)',
  ],
  [
    'alignment_budget_exhausted',
    'limitation',
    'The alignment stage spent its work budget (characters aligned, and read for field backgrounds) before all candidate documents were aligned or read; the rest report exact seed runs only, and a document left unread weighs in no field background (`SearchOptions.alignBudgetChars`). The budget is counted in work, so the same request gives the same answer.',
    'engine.search',
  ],
  [
    'alignment_time_limit_reached',
    'limitation',
    'The alignment stage reached its time limit, a safety net behind its work budget, before all candidate documents were aligned (the machine was too busy): the rest report exact seed runs only, and this answer may differ from one given on a less loaded machine (`SearchOptions.alignBudgetMs`).',
    'engine.search',
  ],
  [
    'portrait_no_positions',
    'limitation',
    'A portrait says that passages are in its corpus, not in which document or where.',
    'src/datasets/portrait.ts',
  ],
  [
    'paraphrase_not_detectable',
    'limitation',
    'Reworded reuse is found only where the rewording keeps nearby pairs of content words or exact 5-grams of the source (then it is aligned: `reuse` = `paraphrase` or `summary`); a free paraphrase or a summary that keeps neither is not found (LLM paraphrases of indexed arXiv passages analysed on their own: 0.91 found on the dev data; see docs/analyze.md, kinds of passage).',
    'bench/results/eval-paraphrase.json',
  ],
  [
    'remote_corpus_unreachable',
    'limitation',
    'A remote corpus did not answer (no connection, timeouts, server errors after retries, or the search deadline passed): its part of the evidence is missing or partial, which is not evidence of absence (`remote_corpora[].outcome`).',
    INFINIGRAM + ' (the services ask clients to retry; no uptime is guaranteed)',
  ],
  [
    'remote_corpus_rate_limited',
    'limitation',
    'A remote corpus refused calls for their rate (HTTP 429) after retries honouring Retry-After: its part of the evidence is missing or partial.',
    INFINIGRAM,
  ],
  [
    'remote_corpus_budget_exhausted',
    'limitation',
    "A remote corpus's search spent its call budget before it had asked everything it planned (retries count): its part of the evidence is partial.",
    'src/remote/search.ts (call budget, spacingAsked)',
  ],
  [
    'remote_corpus_deadline_reached',
    'limitation',
    "A remote corpus's search reached its deadline before it had asked everything it planned (the engine answered, slowly): what it found before is kept, with its documents fetched in the time its samples leave, and its part of the evidence is partial.",
    'src/remote/search.ts (deadline)',
  ],
  [
    'remote_corpus_error',
    'limitation',
    'A remote corpus refused the requests (an unknown index, a limit) or answered something its API does not document: its part of the evidence is missing.',
    INFINIGRAM,
  ],
  [
    'remote_corpus_cancelled',
    'limitation',
    'The request was cancelled while a remote corpus was being searched: its part of the evidence is partial.',
    'src/remote/search.ts',
  ],
  [
    'remote_corpus_sampled',
    'limitation',
    "A remote corpus's samples lie further apart than full coverage (`remote_corpora[].sampled_every`): the content is longer than its call budget samples at its closest spacing, or the search was cut short before it asked every place it planned; shorter copied passages may be missed there.",
    'src/remote/search.ts (call budget, spacingAsked)',
  ],
  [
    'model_datasets_not_indexed',
    'limitation',
    'None of the loaded datasets samples a training dataset of the target model (by the knowledge base or a declaration), so no corpus evidence about it could be looked for.',
    'knowledge base; dataset descriptors',
  ],
  [
    'work_text_not_registered',
    'limitation',
    'The work was registered by fingerprint only; without its text it cannot be split into chunks and searched.',
    'registerWork',
  ],
  [
    'no_model_probe',
    'limitation',
    'No model was queried: this analysis uses reference corpora and documentation only (memorization probes are separate operations).',
    DI + '; ' + CARLINI23,
  ],
  [
    'no_logprob_access',
    'limitation',
    'The target model exposes no log-probabilities, so likelihood statistics (loss, zlib, Min-K%) cannot be computed.',
    MINK + '; Zhang et al. 2024, Min-K%++ (arXiv:2404.02936)',
  ],
  [
    'model_refused_prompts',
    'limitation',
    "The model refused some of the extraction's prompts (`summary.refusals`): they show nothing of the work and are left out of the extractable share, so the extraction rests on the answers alone; a refusal is no evidence that the work was not memorized, since alignment can hide memorized text that other prompts bring out.",
    'Nasr et al. 2023, Scalable Extraction of Training Data from (Production) Language Models (arXiv:2311.17035)',
  ],
  [
    'distribution_shift_risk',
    'limitation',
    'The reference (non-member) set may differ from the work in time or domain, which alone can separate them.',
    'Das et al. 2024, Blind Baselines (arXiv:2406.16201); Meeus et al. 2025, SoK (arXiv:2406.17975)',
  ],
  [
    'calibrated_on_development_data',
    'limitation',
    'Confidences are calibrated at a 50 % prior on development data: natural English texts of a few genres in no dataset (70 to 100,000 words) and constructed positives (verbatim, edited, quoted and reworded excerpts); other languages, genres or web-scale portraits may differ.',
    'bench/eval-calibration.mjs; bench/eval-false-attribution.mjs',
  ],
  [
    'jurisdiction_unspecified',
    'limitation',
    'No jurisdiction was given; the risk uses the neutral base weight 0.5.',
    RISK_TABLE,
  ],
  [
    'jurisdiction_not_in_table',
    'limitation',
    'The jurisdiction is a valid ISO 3166 code that the risk table has no facts for; the neutral base weight 0.5 is used.',
    RISK_TABLE,
  ],
  [
    'no_market_anchor',
    'limitation',
    'No public licence price exists for this content type (e.g. code); no revenue figure is given.',
    'no per-unit price for code among the public licence deals (DEALS, docs/jurisdictions-and-revenue.md)',
  ],
  [
    'low_confidence_rate',
    'limitation',
    'The rate rests on a single public quote (text per word), so the revenue figure is an order of magnitude only.',
    'Defined.ai per-word price, Reuters, 5 Apr 2024 (DEALS id 17)',
  ],
  [
    'opt_out_after_model_release',
    'limitation',
    'The declared opt-out dates from after the release of every linked model, so it cannot have applied to their training.',
    DSM + ' Art. 4(3)',
  ],
  // ---- jurisdiction facts (base codes of the risk table, src/services/kb/jurisdictions.ts)
  [
    'tdm_exception_with_opt_out',
    'jurisdiction',
    'Commercial text and data mining is allowed unless the rightholder reserved it in a machine-readable way (DSM Directive Art. 4).',
    DSM + ' Art. 4',
  ],
  [
    'training_summary_required',
    'jurisdiction',
    'General-purpose AI providers must publish a summary of training content (AI Act Art. 53(1)(d)).',
    AI_ACT + ' Art. 53(1)(d)',
  ],
  [
    'memorization_is_reproduction',
    'jurisdiction',
    'Memorization in model weights was held to be a reproduction; infringing outputs are actionable (GEMA v OpenAI).',
    GEMA,
  ],
  [
    'no_commercial_tdm_exception',
    'jurisdiction',
    'The TDM exception covers non-commercial research only (CDPA s29A).',
    'CDPA 1988 s29A (UK)',
  ],
  [
    'territorial_training_location',
    'jurisdiction',
    'Training done abroad may be outside the reach of local copyright (Getty v Stability).',
    GETTY,
  ],
  [
    'fair_use_case_by_case',
    'jurisdiction',
    'Training is judged as fair use case by case; courts have split.',
    '17 U.S.C. § 107; ' + BARTZ + '; ' + KADREY + '; ' + ROSS + '; Korea Copyright Act Art. 35-5',
  ],
  [
    'statutory_damages_available',
    'jurisdiction',
    'Statutory damages of $750–$30,000 per work (up to $150,000 if wilful) are available.',
    '17 U.S.C. § 504(c)',
  ],
  [
    'pending_litigation',
    'jurisdiction',
    'Cases on AI training are pending there, so the law may change.',
    'e.g. NYT v. Microsoft & OpenAI, MDL No. 25-md-3143 (S.D.N.Y.); ANI v. OpenAI (Delhi High Court); Canadian news publishers v. OpenAI (Ontario Superior Court of Justice)',
  ],
  [
    'training_data_disclosure_required',
    'jurisdiction',
    'Developers must disclose training data (California AB 2013, in force 1 Jan 2026).',
    'California AB 2013 (2024), Cal. Bus. & Prof. Code § 22757.20',
  ],
  [
    'tdm_exception_commercial',
    'jurisdiction',
    'A TDM/computational analysis exception covers commercial training.',
    'Copyright Act of Japan Art. 30-4; ' + SG_S244,
  ],
  [
    'enjoyment_purpose_exception',
    'jurisdiction',
    'Uses aimed at enjoying the expression (imitation, RAG reproduction) fall outside the exception.',
    'Agency for Cultural Affairs (Japan), General Understanding on AI and Copyright (2024)',
  ],
  ['lawful_access_required', 'jurisdiction', 'The exception requires lawful access to the works.', SG_S244],
  ['contract_override_prohibited', 'jurisdiction', 'The exception cannot be excluded by contract.', SG_S244],
  [
    'fair_use_guidance_permissive',
    'jurisdiction',
    'Government guidance treats training as generally fair use (non-binding).',
    'Israel Ministry of Justice opinion on ML training (Dec 2022); Copyright Act 2007 s19',
  ],
  [
    'government_guidelines',
    'jurisdiction',
    'Government guidelines on fair use for AI training exist.',
    'Korea MCST/KCC guidelines on fair use for generative-AI training (26 Feb 2026); Copyright Act Art. 35-5',
  ],
  [
    'lawful_source_required',
    'jurisdiction',
    'Training data must come from lawful sources and respect IP rights.',
    'China, Interim Measures for the Management of Generative AI Services (2023) Art. 7',
  ],
  [
    'no_tdm_exception',
    'jurisdiction',
    'There is no text and data mining exception.',
    'national copyright law (CN, CA, AU, IN); ' + AU_AG,
  ],
  [
    'collective_licensing_proposed',
    'jurisdiction',
    'Paid or collective licensing for AI training is under study.',
    AU_AG,
  ],
  [
    'statutory_licence_proposed',
    'jurisdiction',
    'A mandatory licence with statutory royalties for AI training is proposed.',
    'India DPIIT working paper, Part 1 (8 Dec 2025)',
  ],
  // ---- risk modifiers (the legal ground is cited; the magnitudes are this project's heuristic)
  [
    'tdm_opt_out_declared',
    'risk_modifier',
    'The holder declared a TDM/AI-training opt-out: +0.20 in the EU and its members, +0.05 elsewhere.',
    DSM + ' Art. 4(3); ' + AI_ACT + ' Art. 53(1)(c); ' + HEURISTIC,
  ],
  [
    'pirated_source_dataset',
    'risk_modifier',
    'The content is linked to a model through a dataset documented as pirated (e.g. Books3): +0.25 in the US, +0.15 elsewhere.',
    BARTZ + '; ' + HEURISTIC,
  ],
  [
    'verbatim_memorization',
    'risk_modifier',
    'A model reproduces a long verbatim span of the work: +0.20 (+0.30 in DE).',
    GEMA + '; ' + HEURISTIC,
  ],
  [
    'output_substitution_risk',
    'risk_modifier',
    'Model outputs compete with the work: +0.10.',
    KADREY + '; ' + USCO3 + '; ' + HEURISTIC,
  ],
  [
    'licensing_market_exists',
    'risk_modifier',
    'Public licence prices exist for this content type (books, news, articles): +0.05.',
    'the public licence deals (DEALS); ' + ROSS + '; ' + USCO3 + '; ' + HEURISTIC,
  ],
  [
    'non_commercial_research_use',
    'risk_modifier',
    'Research-only model by a research organisation: −0.25.',
    DSM + ' Art. 3; CDPA 1988 s29A (UK); ' + HEURISTIC,
  ],
  [
    'lawfully_acquired_copy',
    'risk_modifier',
    'The provider documents a licensed or purchased source: −0.15.',
    BARTZ + '; ' + HEURISTIC,
  ],
  [
    'training_outside_jurisdiction',
    'risk_modifier',
    'Training documented elsewhere: −0.20 (GB).',
    GETTY + '; ' + HEURISTIC,
  ],
  [
    'public_domain_source',
    'risk_modifier',
    "All the evidence is in datasets of public-domain texts (Project Gutenberg's eBooks are public domain in the USA): the text is in a training corpus, which does not mean anyone holds a claim to it. Where the source is public domain the risk weight goes to 0 (−1) and no licensing revenue is estimated for it; elsewhere the code is listed without a weight: the copyright term of the author's country decides, check it.",
    'Project Gutenberg licence ("public domain in the United States"); 17 U.S.C. §§ 302–304 (terms)',
  ],
  [
    'public_domain_by_term',
    'risk_modifier',
    "The work is public domain in the jurisdiction by its own term: the request names its author, the knowledge base has the author's year of death, and the jurisdiction's term (life + 70 years to the end of the year: the EU and EEA, the UK, Switzerland; Japan, Canada and Australia, where authors who died before their terms grew keep life + 50 — Japan's wartime extensions for works of Allied nationals make it \"unknown\" while one could still run) ran out before the analysis. Nothing there is infringed by using it: the risk weight goes to 0 (−1). A translation or edition has a term of its own (its translator's, its editor's).",
    'Berne Convention art. 7(1); Directive 2006/116/EC art. 1(1), art. 8; CDPA 1988 s.12(2); URG (CH) art. 29(2)(b), art. 32; Copyright Act (JP) art. 51(2), art. 57, Act No. 108 of 2016, Act No. 302 of 1952; Copyright Act (CA) s. 6, S.C. 2022, c. 10; Copyright Act 1968 (AU) s. 33(2)',
  ],
  [
    'in_copyright_by_term',
    'risk_modifier',
    "By the author's year of death the work is still in copyright in the jurisdiction (life + 70 years to the end of the year; life + 50 in Japan, Canada and Australia for authors who died before their terms grew): listed without a weight.",
    'Directive 2006/116/EC art. 1(1), art. 8; CDPA 1988 s.12(2); URG (CH) art. 29(2)(b), art. 32; Copyright Act (JP) art. 51(2), art. 57, Act No. 108 of 2016, Act No. 302 of 1952; Copyright Act (CA) s. 6, S.C. 2022, c. 10; Copyright Act 1968 (AU) s. 33(2)',
  ],
  [
    'public_domain_status_unknown',
    'limitation',
    'Whether the work is public domain in the jurisdiction is unknown: the knowledge base has no year of death for the author, or no copyright term for the jurisdiction (US terms of works published before 1978 run from publication, which it does not hold), or no jurisdiction was given. The risk weight does not assume either way: check the term there.',
    'Berne Convention art. 7(1) (a minimum of life + 50 years; terms differ by country); 17 U.S.C. §§ 302–304',
  ],
  [
    'attribution_uncertain',
    'risk_modifier',
    'The lower end of the attribution confidence interval is below 0.5, so the risk weight is scaled by it.',
    RISK_TABLE,
  ],
] as const satisfies ReadonlyArray<readonly [string, FactorCategory, string, string]>;

/** Every factor code. */
export type FactorCode = (typeof ROWS)[number][0];

/** The table, keyed by code. */
export const FACTORS: Readonly<Record<FactorCode, FactorInfo>> = Object.freeze(
  Object.fromEntries(
    ROWS.map(([code, category, meaning, source]) => [code, Object.freeze({ code, category, meaning, source })]),
  ) as Record<FactorCode, FactorInfo>,
);

/**
 * The table row of a code.
 * @example
 * factorInfo('reference_sample_only').category // 'limitation'
 */
export function factorInfo(code: FactorCode): FactorInfo {
  return FACTORS[code];
}

/**
 * Every row, in table order.
 * @example factorTable().filter((f) => f.category === 'limitation').map((f) => f.code) // ['training_data_undisclosed', 'model_training_data_undisclosed', …]
 */
export function factorTable(): FactorInfo[] {
  return ROWS.map(([code]) => FACTORS[code]);
}
