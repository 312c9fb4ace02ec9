/**
 * What the page needs from whatever does the analysis. Today one implementation: the engine
 * running in this browser (engine-backend.ts, hosted in a worker by worker.ts and reached
 * through worker-backend.ts). The HTTP mode (the served `/api/v1` with an API key) will be a
 * second implementation of the same interface, so every method is async and every value is
 * plain data (it crosses a worker boundary today and the network tomorrow).
 */
import type { AnalysisResult, AnalyzeRequest, Comparison, DatasetStats, FactorInfo, KbDataset } from '../src/index.js';
import type { Assessment } from '../src/entries/memorization.js';
import type { AnalysisProgress, DocumentFormat } from './files.js';

export type { AnalysisResult, AnalyzeRequest, Assessment, Comparison, DatasetStats, FactorInfo, KbDataset };
export type { AnalysisProgress, DocumentFormat };

/** What the page asks of one analysis beside the request. */
export interface AnalyzeCallOptions {
  /**
   * Called as the analysis goes on (the served API's background analysis, polled), with `null` until the server
   * reports. A backend that cannot report never calls it.
   */
  readonly onProgress?: (progress: AnalysisProgress | null) => void;
}

/** An OpenAI-compatible model endpoint (`trainprint model serve`, vLLM, …). */
export interface ModelEndpoint {
  /** With the version path, e.g. `http://127.0.0.1:8000/v1`. */
  readonly base_url: string;
  /** The `model` field of its requests. */
  readonly model: string;
  readonly api_key?: string;
}

/** What the memorization view asks: one work, the model under test, non-member text of the same kind. */
export interface MemorizationRequest {
  readonly work: string;
  readonly title?: string;
  readonly model: ModelEndpoint;
  /** A model that cannot have seen the work: the probe's loss is calibrated by it. */
  readonly reference_model?: ModelEndpoint;
  /** Non-member documents, one text each. */
  readonly reference_texts: readonly string[];
  /** Whether the reference documents were set apart at random from the work's own pool (a matched reference). */
  readonly randomized_split: boolean;
  readonly chunk_tokens: number;
  readonly min_chunks: number;
}

/** An assessment and its self-contained HTML report. */
export interface MemorizationOutcome {
  readonly assessment: Assessment;
  readonly html: string;
}

/** A searchable dataset as the page shows it. */
export interface DatasetInfo extends DatasetStats {
  /** Whether `sourceText` can return its documents' text (exact datasets keep positions, not text). */
  readonly has_text: boolean;
  /** Who supplied it, where the backend says (the in-browser engine does; the served API's list does not). */
  readonly supplied_by?: 'shipped' | 'operator' | 'account';
}

export interface BackendInfo {
  readonly kind: 'browser' | 'http';
  /** Shown in the header, e.g. "In-browser engine (WebAssembly, SIMD)". */
  readonly label: string;
  /** Largest `content` analyze accepts, in UTF-8 bytes. */
  readonly analyzeBytes: number;
  /** Largest EPUB, PDF or DOCX file analyze accepts, in bytes. */
  readonly fileBytes: number;
  /** Whether `declare` is available. */
  readonly canDeclare: boolean;
  readonly datasets: DatasetInfo[];
}

export interface Backend {
  /** Resolves once the backend can answer (engine compiled, starter dataset loaded). */
  ready(): Promise<BackendInfo>;
  /**
   * A text, or a file: `content` its bytes with `content_type` `epub`, `pdf` or `docx` (the backend sends them as
   * it must). `options.onProgress` is a function, so it stays on this side of a worker: only the served API reports.
   */
  analyze(request: AnalyzeRequest, options?: AnalyzeCallOptions): Promise<AnalysisResult>;
  /** Why files of `format` cannot be analysed here (a sentence for the page), or null when they can. */
  fileRefusal(format: DocumentFormat): Promise<string | null>;
  compare(a: string, b: string): Promise<Comparison>;
  /** Loads an index file (`trainprint index build`, `engine.exportDataset`) and returns it. */
  loadIndex(bytes: Uint8Array): Promise<DatasetInfo>;
  /** Declares (or with `null`, withdraws) the knowledge-base dataset a loaded dataset samples. */
  declare(datasetId: string, kbDataset: string | null): Promise<DatasetInfo>;
  datasets(): Promise<DatasetInfo[]>;
  kbDatasets(): Promise<KbDataset[]>;
  /** The factor code table (meaning and source of every risk/evidence/limitation code). */
  factors(): Promise<FactorInfo[]>;
  /** A source document's text, when the backend has it; `null` otherwise. */
  sourceText(datasetId: string, documentId: string): Promise<string | null>;
  /** Registers the work, keeps the reference texts as a reference set, assesses and renders the report. */
  assessMemorization(request: MemorizationRequest): Promise<MemorizationOutcome>;
  /**
   * What models wrote out of the analysed text, as the service keeps it for the account (its extract jobs' results
   * over the same text, which the analysis's evidence bundle signs): none where the backend keeps no extractions.
   */
  modelExtractions(analysisId: string): Promise<unknown[]>;
}

/** Method names callable through the worker (worker.ts) — every method of {@link Backend}. */
export const BACKEND_METHODS = [
  'ready',
  'analyze',
  'fileRefusal',
  'compare',
  'loadIndex',
  'declare',
  'datasets',
  'kbDatasets',
  'factors',
  'sourceText',
  'assessMemorization',
  'modelExtractions',
] as const satisfies ReadonlyArray<keyof Backend>;
export type BackendMethod = (typeof BACKEND_METHODS)[number];

/**
 * A failure as plain data, so it survives a worker boundary (structured clone drops an Error's
 * own fields) and can be built from an HTTP error body alike. `code` is a TrainprintError code
 * where there is one, or one of the page's own: `EMPTY_INPUT`, `FILE_TOO_LARGE`, `UNSUPPORTED` (this backend cannot
 * do it), `UNSUPPORTED_FILE` (a file of a kind the page does not read).
 */
export class BackendError extends Error {
  override readonly name = 'BackendError';
  readonly code: string;
  readonly detail: string | undefined;
  constructor(code: string, message: string, detail?: string) {
    super(message);
    this.code = code;
    this.detail = detail;
  }
}

export interface SerializedError {
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
}

/** Any thrown value → plain data (TrainprintError keeps its code and detail). */
export function serializeError(e: unknown): SerializedError {
  if (e && typeof e === 'object') {
    const o = e as { code?: unknown; message?: unknown; detail?: unknown };
    const message = typeof o.message === 'string' ? o.message : String(e);
    return {
      code: typeof o.code === 'string' ? o.code : 'INTERNAL',
      message,
      ...(typeof o.detail === 'string' ? { detail: o.detail } : {}),
    };
  }
  return { code: 'INTERNAL', message: String(e) };
}
