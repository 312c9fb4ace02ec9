/**
 * Request and result of `engine.analyze` — the service's shape (success, analysis_id,
 * fingerprint, confidence, potential_matches, estimated_revenue, attribution_sources,
 * risk_assessment, next_steps) plus the extension fields (matches, coverage, evidence,
 * limitations, …). The JSON Schema in ./schema.ts describes the same result; a test checks
 * every result against it and docs/analyze.md's field reference against both. Exports the public types of analyze
 * and only those: the library module (src/library.ts) re-exports it whole.
 */
import type { ContentType } from '../../text/index.js';
import type { FromSchema } from '../../util/schema-check.js';
import type { ANALYZE_REQUEST_SCHEMA } from './schema.js';
import type { DatasetStats } from '../../datasets/types.js';
import type { DatasetCoverage, DatasetSupplier, SliceOptions } from '../../corpus/types.js';
import type { RemoteCorpusReport } from '../../corpus/remote-types.js';
import type { AlignedChance, ChanceEvidence } from '../policy/kinds/index.js';
import type { UnansweredCorpus } from '../policy/search-scope.js';

export type { Declarations, WorkType } from '../../types.js';
import type { WorkType } from '../../types.js';
import type { DocumentExtraction, DocumentFormat } from '../../formats/types.js';
import type { AnalyzeProgress } from './progress.js';
import type { SectionCoverage } from './sections.js';
import type { AnalyzedMatch } from './shared-text.js';
export type { AnalyzeProgress } from './progress.js';

/**
 * `analyze` request: derived from its JSON Schema ({@link ANALYZE_REQUEST_SCHEMA}), the one definition that the
 * library's check, the HTTP validation and the OpenAPI document all use. `content`: the text (1 character to
 * 10 MiB of UTF-8); `content_type`: `'text'`, `'markdown'` or `'html'` (markup is reduced to its readable text;
 * spans point into `content`), or a file — `'epub'`, `'pdf'`, `'docx'` — whose `content` is its bytes (a
 * `Uint8Array`, or base64 with `content_encoding: 'base64'` as JSON carries it; spans point into the extracted text,
 * `extraction` says how it was extracted); `metadata.jurisdiction`: an ISO 3166 code (`US`, `DE`, `EU`, `US-CA` …).
 */
export type AnalyzeRequest = Omit<FromSchema<typeof ANALYZE_REQUEST_SCHEMA>, 'content'> & {
  readonly content: string | Uint8Array;
};

/**
 * How a file's text was extracted (`analyze` of an EPUB, PDF or DOCX): its format, size and sections, pages for a
 * PDF, and the text itself when the request asked for it (`include_text: true`).
 */
export interface AnalysisExtraction extends Omit<DocumentExtraction, 'text'> {
  /** The extracted text every span of the result points into (`include_text: true` only). */
  readonly text?: string;
  /** The file's size in bytes. */
  readonly bytes: number;
}

/** Options of `analyze` (not part of the service request). */
export interface AnalyzeOptions extends SliceOptions {
  /**
   * Prior probability that a query shares text with a dataset, used to turn the calibrated
   * likelihood ratio into a probability. The calibration is fitted at 0.5 (balanced dev
   * queries); lower it when most texts you analyse are not expected to be in the datasets.
   * @default 0.5
   */
  readonly prior?: number;
  /** Only these datasets. @default all loaded */
  readonly datasets?: readonly string[];
  /**
   * How many candidate documents are aligned with the content (the search's `candidates`, docs/datasets.md):
   * fewer bound the work of a query with many candidates; 0 reports seed matches only. @default 50
   */
  readonly candidates?: number;
  /**
   * Work budget of the alignment stage in characters aligned (the search's `alignBudgetChars`); once spent, the
   * result says `alignment_budget_exhausted` in its limitations. Work, not time: the same content gives the same
   * analysis under any load. @default 33554432
   */
  readonly alignBudgetChars?: number;
  /**
   * Time limit of the alignment stage in ms (the search's `alignBudgetMs`), a safety net behind the work budget;
   * when it stops the alignment, the result says `alignment_time_limit_reached` (and `alignment_budget_exhausted`)
   * in its limitations. @default 30000
   */
  readonly alignBudgetMs?: number;
  /**
   * Search the remote corpora the engine has (`addRemoteDataset`): false keeps the content on this machine (so does
   * the request's `search_remote: false`). @default true
   */
  readonly remote?: boolean;
  /**
   * Told how far the analysis has got: its phase and the remote corpora's calls against their budgets (at most every
   * 100 ms while they run, once more at `done`), for a progress bar.
   */
  readonly onProgress?: (progress: AnalyzeProgress) => void;
  /** Cancels the remote corpora's calls in flight (a server passes the request's signal). */
  readonly signal?: AbortSignal;
  /**
   * Whose analysis this is (the HTTP service passes the account): it searches the datasets every account shares
   * and that owner's own (`supplied_by: 'account'`), never another account's, and it counts against the owner's
   * cap of stored analyses (`createEngine({ analyses: { maxPerOwner } })`). @default none: every dataset; only the
   * time to live applies
   */
  readonly owner?: string;
  /**
   * The largest file (`content_type` `epub`, `pdf`, `docx`) taken, in bytes: a larger one is PAYLOAD_TOO_LARGE before
   * it is extracted (the HTTP service passes the account's plan's `fileBytes`). @default ANALYZE_MAX_FILE_BYTES (64 MiB)
   */
  readonly maxFileBytes?: number;
}

/** One model that the evidence links the content to. */
export interface AttributionSource {
  /** Provider display name, e.g. "EleutherAI". */
  readonly provider: string;
  /** `provider/model_name`, e.g. `eleutherai/pythia-6.9b`. */
  readonly model: string;
  /**
   * 0..100, like the top-level `confidence` (1 decimal): 100 × dataset confidence × link certainty. The
   * top-level `confidence` is the first source's.
   */
  readonly confidence: number;
  /** 95 % interval of `confidence` (0..100). */
  readonly confidence_ci_95: readonly [number, number];
  /** Display name of the training dataset, e.g. "The Pile". */
  readonly training_dataset: string;
  /** Knowledge-base id of that dataset (`the-pile`), or null when the link is declared by model only. */
  readonly kb_dataset: string | null;
  /** The loaded dataset whose matches are the evidence. */
  readonly dataset_id: string;
  /** `'kb'`: the model's documentation names the dataset; `'declared'`: the dataset descriptor lists the model. */
  readonly link: 'kb' | 'declared';
  /**
   * Who supplied the dataset: `shipped` (a reference pack of the package), `operator` (whoever runs the service)
   * or `account` (the asking account's own upload).
   */
  readonly supplied_by: DatasetSupplier;
  /**
   * True when which corpus the dataset samples is a declaration of whoever loaded it (the operator's or an account's
   * datasets); false for a shipped reference pack (its sources are documented with it) and a public remote index
   * (the knowledge base itself links it to its corpus).
   */
  readonly declared: boolean;
  /** Probability that the model trained on the dataset, from documentation alone. */
  readonly link_certainty: number;
  /** Why that certainty. */
  readonly link_reason: string;
  readonly disclosure: 'full' | 'partial' | 'undisclosed' | 'declared';
  /** Where the link comes from (model card, paper). */
  readonly citations: readonly string[];
}

/** How one dataset's confidence was computed: the chance statistic (./evidence.ts) and its calibration. */
export interface DatasetEvidence extends ChanceEvidence {
  readonly dataset_id: string;
  readonly kind: DatasetStats['kind'];
  /** Who supplied the dataset (as {@link AttributionSource.supplied_by}). */
  readonly supplied_by: DatasetSupplier;
  readonly kb_dataset: string | null;
  readonly declared_models: readonly string[];
  /** Passage matches (exact or portrait). */
  readonly matches: number;
  /** Distinct source documents among the matches (exact). */
  readonly documents: number;
  readonly near_duplicates: number;
  /**
   * Matches a person can check (spans, a near-duplicate document, a portrait's run of the content's words; not a
   * remote corpus's boilerplate): without one, the dataset's strength does not count and it gives no source.
   */
  readonly checkable: number;
  /**
   * Checkable matches of text the work quotes (`matches[].role: 'quotation'`): counted in `checkable` only with
   * `quotations: 'count'`.
   */
  readonly quoted?: number;
  /**
   * Whether the evidence counts: something checkable, with a chance of at most 0.05 (a match no stronger than
   * unrelated text shows is a stock phrase, `match_within_chance`). Only then does the strength enter `confidence`
   * and the dataset give attribution sources.
   */
  readonly counted: boolean;
  /** Share of the content's tokens inside matches. */
  readonly coverage: number;
  /** Longest match, in tokens. */
  readonly longest_run: number;
  /** Calibrated probability that the content shares text with the dataset. */
  readonly confidence: number;
  readonly confidence_ci_95: readonly [number, number];
  /** Exact datasets with aligned passages: their content-word counts and chance (in `chance` too). */
  readonly aligned?: AlignedChance;
}

/** The service's risk levels. */
export type RiskLevel = 'none' | 'low' | 'medium' | 'high' | 'critical';

/** Revenue estimate basis (method: docs/jurisdictions-and-revenue.md, "Revenue estimate"). */
export interface RevenueBasis {
  readonly method: 'per_title_36m' | 'per_word_amortised' | 'none';
  readonly work_type: WorkType;
  /** How the work type was chosen. */
  readonly work_type_source: 'metadata' | 'length' | 'form';
  /** Ids of the public deals behind the rate: rows of `DEALS` (src/services/kb/deals.ts), e.g. 9 = HarperCollins. */
  readonly deal_ids: readonly number[];
  readonly rate: { readonly low: number; readonly mid: number; readonly high: number; readonly unit: string } | null;
  readonly quantity: number;
  readonly unit: string;
  readonly term_months: number;
  /** Per provider: P(used) low / mid / high (the attribution interval and point). */
  readonly providers: ReadonlyArray<{ readonly provider: string; readonly p_used: readonly [number, number, number] }>;
  readonly low: number | null;
  readonly mid: number | null;
  readonly high: number | null;
}

import type { CorpusEvidence } from '../policy/evidence-policy.js';

/** `analyze` result. */
export interface AnalysisResult {
  readonly success: true;
  readonly analysis_id: string;
  /** The content's fingerprint id (see `engine.fingerprint`). */
  readonly fingerprint: string;
  /** 0..100: the best-supported attribution source's confidence × 100 (0 with none). */
  readonly confidence: number;
  /**
   * Its 95 % interval (0..100): the source's, or [0, 0] without one; its upper end raised to the most a remote corpus
   * that was asked and did not answer could have shown (`evidence.unanswered_corpora`: 100 × the calibration's
   * highest confidence × its most certain model link), and [0, 100] where nothing was searched.
   */
  readonly confidence_ci_95: readonly [number, number];
  /**
   * Distinct sources of reuse among the matches: documents with a match outside shared text, plus one per passage
   * that many documents of a dataset share (see `matches[].shared_documents`); a portrait counts once.
   */
  readonly potential_matches: number;
  /** The strongest corpus evidence, whether or not a model is linked to it: what `confidence` rests on, or why not. */
  readonly corpus_evidence: CorpusEvidence;
  readonly estimated_revenue: {
    readonly monthly: number | null;
    readonly currency: 'USD';
    readonly basis: RevenueBasis;
  };
  readonly attribution_sources: AttributionSource[];
  readonly risk_assessment: {
    readonly level: RiskLevel;
    readonly factors: string[];
    /** The weight behind the level, 0..1, and its parts. */
    readonly score: number;
    readonly jurisdiction: string | null;
    readonly base_weight: number;
    readonly modifiers: ReadonlyArray<{ readonly code: string; readonly delta: number }>;
    readonly attribution_scale: number;
    /**
     * With `metadata.author` only: the work's own public-domain status in the jurisdiction, from the author's year
     * of death where the knowledge base has it and the jurisdiction's term where it holds one (life + 70 years in
     * the EU and EEA, the UK and Switzerland); `unknown` otherwise, with `rule` saying why.
     */
    readonly public_domain?: {
      readonly status: 'public_domain' | 'in_copyright' | 'unknown';
      /** The author as the knowledge base names them; null when it does not know the name. */
      readonly author: string | null;
      readonly author_died: number | null;
      /** The first year (from 1 January) the work is public domain there; null without a term. */
      readonly public_domain_from: number | null;
      /** The term and the law that sets it, or why the status is unknown. */
      readonly rule: string;
    };
  };
  readonly next_steps: {
    readonly register_content: '/api/v1/content/register';
    readonly setup_monitoring: '/api/v1/monitors/create';
  };
  /**
   * Fields for `POST /api/v1/content/register` taken from the analysis request's metadata; only when given. Apart from
   * `next_steps`, whose every value is a path.
   */
  readonly register_prefill?: { readonly title?: string; readonly author?: string };
  // ---- extensions
  readonly content_type: ContentType | DocumentFormat;
  /** A file's extraction (`content_type` `epub`, `pdf`, `docx` only): spans point into its text. */
  readonly extraction?: AnalysisExtraction;
  /** Files only: per section of `extraction.sections`, its words and each searched dataset's coverage of it. */
  readonly sections?: SectionCoverage[];
  /** `metadata.title` of the request, when given. */
  readonly title?: string;
  /** `metadata.author` of the request, when given. */
  readonly author?: string;
  readonly work_hash: string;
  readonly tokens: number;
  readonly matches: AnalyzedMatch[];
  readonly coverage: Record<string, DatasetCoverage>;
  readonly evidence: {
    readonly method: string;
    readonly datasets: DatasetEvidence[];
    readonly calibration: { readonly id: string; readonly prior: number };
    readonly combination: string;
    /**
     * How the text the work quotes was counted (the request's `quotations`): `exclude` leaves quotations out of
     * `checkable` and so out of `confidence`; `count` counts them. Absent from results made before quotations were
     * told apart (they counted every match).
     */
    readonly quotations?: 'exclude' | 'count';
    /**
     * The version of the quotation rule the roles were read with (src/services/analyze/quotations.ts
     * `QUOTATION_RULE`); absent from results read by the first (English marks and attributions, no `share`).
     */
    readonly quotation_rule?: number;
    /**
     * The remote corpora asked that did not answer (`remote_corpora[].outcome` not `searched`, `budget_exhausted` or
     * `deadline_reached`), each with the most certain model link through which it could have named a source (`model`
     * null and `link_certainty` 0: linked to none). `confidence_ci_95`'s upper end covers what they could have shown.
     * Absent when every corpus asked answered, and from results made before.
     */
    readonly unanswered_corpora?: UnansweredCorpus[];
  };
  readonly limitations: string[];
  /** Every remote corpus consulted — the content was sent to its endpoint — and how its search went (empty: none). */
  readonly remote_corpora: RemoteCorpusReport[];
  readonly created_at: string;
}
