/**
 * The score's public types: its request, options and result, with the tier and its reasons (./tier.ts). Exports
 * those and only those: the library module (src/library.ts) re-exports it whole. The scoring itself is ./score.ts.
 *
 * @example
 * import type { ScoreRequest, ScoreResult } from 'trainprint'
 * const request: ScoreRequest = { work_hash, target_model: 'meta/llama-7b', jurisdiction: 'US' }
 * const result: ScoreResult = await engine.score(request)
 */
import type { DatasetSupplier, SliceOptions } from '../../corpus/types.js';
import type { RemoteCorpusReport } from '../../corpus/remote-types.js';
import type { DatasetStats, SearchMatch } from '../../datasets/types.js';
import type { DocumentFormat } from '../../formats/types.js';
import type { ContentType } from '../../text/index.js';
import type { AnalysisExtraction } from '../analyze/types.js';
import type { RiskResult } from '../analyze/risk.js';
import type { FactorCode } from '../kb/factors.js';
import type { Tier, TierReason } from './tier.js';

export type { Tier, TierReason, TierReasonCode } from './tier.js';

/**
 * `score` request: the service's three parameters — a registered work by its `work_hash` (its kept text is scored),
 * the model and the place — or, instead of `work_hash`, the work itself as `content` (text, markup or a file, as
 * `analyze` takes it), scored as sent without being registered.
 */
export interface ScoreRequest {
  /** `sha256:` + 64 hex of a work registered from its content; or give `content`. */
  readonly work_hash?: string;
  /**
   * The work's text, or a file's bytes (`content_type` `epub`, `pdf`, `docx`: a `Uint8Array`, or base64 with
   * `content_encoding: 'base64'` as JSON carries it); or give `work_hash`.
   */
  readonly content?: string | Uint8Array;
  /** With `content`: how to read it, as analyze's. @default 'text' */
  readonly content_type?: ContentType | DocumentFormat;
  /** How `content` carries a file in JSON: `'base64'`. */
  readonly content_encoding?: 'base64';
  /** Files only: the extracted text in `extraction.text`. @default false */
  readonly include_text?: boolean;
  /** `provider/model_name`, a model of the knowledge base. */
  readonly target_model: string;
  /** ISO 3166: `US`, `US-CA`, `DE`, `GB`, `EU`, … */
  readonly jurisdiction: string;
}

/** One chunk's evidence (the best linked dataset for it). */
export interface ChunkEvidence {
  readonly index: number;
  /** UTF-16 span in the work's text. */
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** Any match in a dataset of the model. */
  readonly flagged: boolean;
  readonly dataset_id: string | null;
  readonly chance: number;
  readonly longest_run: number;
}

/** One linked dataset's part of the score. */
export interface ScoreDatasetEvidence {
  readonly dataset_id: string;
  readonly kind: DatasetStats['kind'];
  /** Who supplied the dataset: `shipped` (a reference pack), `operator` or `account` (the asking account's own). */
  readonly supplied_by: DatasetSupplier;
  readonly kb_dataset: string | null;
  readonly link: 'kb' | 'declared';
  readonly link_certainty: number;
  readonly link_reason: string;
  readonly flagged_chunks: number;
  readonly chance: number;
  readonly strength: number;
  /** Calibrated P(the work shares text with the dataset). */
  readonly confidence: number;
  /** confidence × link_certainty. */
  readonly value: number;
}

/** `score` result. */
export interface ScoreResult {
  /** The registered work's hash, or that of the content sent (its bytes as sent: a file's, or the text's UTF-8). */
  readonly work_hash: string;
  /** The registered work scored; null for content sent with the request. */
  readonly work_id: string | null;
  /**
   * A file sent as `content`: how its text was extracted (all of `extraction` of analyze); every span of the result
   * points into that text.
   */
  readonly extraction?: AnalysisExtraction;
  readonly target_model: string;
  readonly provider: string;
  /** 0..100: P(the model trained on at least part of the work) × 100. */
  readonly score: number;
  readonly tier: Tier;
  /** Why this tier: the deciding rule first, then what kept it from `confirmed` (stable codes with a sentence each). */
  readonly tier_reasons: TierReason[];
  /** What evidence would raise the tier (empty for `confirmed`). */
  readonly to_raise: string[];
  /** 95 % bootstrap interval of `score`. */
  readonly ci_95: readonly [number, number];
  /** Share of chunks with a match in the model's datasets, with its Wilson 95 % interval. */
  readonly reused_share: {
    readonly estimate: number;
    readonly ci_95: readonly [number, number];
    readonly flagged_chunks: number;
    readonly n_chunks: number;
  };
  readonly legal_risk: {
    readonly jurisdiction: string;
    readonly level: RiskResult['level'];
    readonly weight: number;
    readonly base_weight: number;
    readonly modifiers: RiskResult['modifiers'];
    readonly attribution_scale: number;
    readonly factors: FactorCode[];
  };
  /** Evidence and attribution codes that fired. */
  readonly factors: FactorCode[];
  /** What could not be checked. */
  readonly limitations: FactorCode[];
  /** Every remote corpus consulted for the work — its text was sent to the endpoint — and how its search went. */
  readonly remote_corpora: RemoteCorpusReport[];
  readonly evidence: {
    readonly method: string;
    readonly chunk_words: number;
    readonly datasets: ScoreDatasetEvidence[];
    readonly chunks: ChunkEvidence[];
    /**
     * What a person can check: the longest checkable matches of each flagged chunk (at most three per chunk and
     * dataset), spans in the work's registered text. A score above 0 always has at least one.
     */
    readonly matches: ScoreMatch[];
    readonly bootstrap: { readonly resamples: number; readonly seed: number };
    readonly calibration: string;
  };
}

/** How a score runs: its slices and offload (as analyze's), and whose score it is. */
export interface ScoreOptions extends SliceOptions {
  /**
   * The account asking: the score reads the datasets every account shares and this account's own, never another
   * account's (as analyze's `owner`). @default every dataset
   */
  readonly owner?: string;
  /**
   * The largest file sent as `content` (`epub`, `pdf`, `docx`), in bytes: a larger one is PAYLOAD_TOO_LARGE before it
   * is extracted (the HTTP service passes the account's plan's `fileBytes`). @default ANALYZE_MAX_FILE_BYTES (64 MiB)
   */
  readonly maxFileBytes?: number;
  /**
   * Stops the score: checked between chunks and passed to a file's extraction, the remote corpora and the evidence
   * sources; once it aborts the score rejects with its reason (as analyze and `fetch` do). Results are the same with
   * a signal that never fires as without one.
   */
  readonly signal?: AbortSignal;
}

/**
 * A match a score shows (its checkable evidence, src/services/policy): spans in the work's registered text and, for
 * exact datasets and remote corpora, in the source document.
 */
interface ScoreMatch {
  readonly chunk: number;
  readonly dataset_id: string;
  readonly kind: SearchMatch['kind'];
  readonly query_start: number;
  readonly query_end: number;
  readonly document_id: string | null;
  readonly source_start: number | null;
  readonly source_end: number | null;
  readonly tokens: number;
}
