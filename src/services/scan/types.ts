/**
 * What `engine.scan` takes and gives (src/services/scan/scan.ts): items of text in, the passages of the exact
 * datasets they hold out, one hit per passage of at least `minWords` words.
 */
import { DOCUMENT_SPAN_FIELDS, type DocumentSpans } from '../../datasets/types.js';

/** One text to scan: a model output, a document. The same shape as a dataset document (`{ id, text }`). */
export interface ScanItem {
  readonly id: string;
  readonly text: string;
}

/** How a passage was reused, as compare says (`ExactMatch.reuse`; a summary counts as a paraphrase). */
export type ScanReuse = 'verbatim' | 'edited' | 'paraphrase';

/**
 * One passage of an item found in an exact dataset: the item's id, the dataset and document, the passage's span in
 * the item's text (the query: `text.slice(query_start, query_end)` is the passage) and in the document's text as
 * indexed (UTF-16 code units), its words and how it was reused. As a JSON line (`trainprint scan`, the queue's
 * export) it has exactly these fields in this order: `id`, `dataset_id`, `document_id`, `query_start`, `query_end`,
 * `source_start`, `source_end`, `words`, `kind`.
 */
export interface ScanHit extends DocumentSpans {
  /** The item's id. */
  readonly id: string;
  /** Whitespace-separated words of the item's text inside [query_start, query_end). */
  readonly words: number;
  readonly kind: ScanReuse;
}

/** The fields of a {@link ScanHit} in the hit line's order (the columns of the scan queue's hits table). */
export const SCAN_HIT_FIELDS = [
  'id',
  ...DOCUMENT_SPAN_FIELDS,
  'words',
  'kind',
] as const satisfies readonly (keyof ScanHit)[];

/** Options of `engine.scan` and `engine.scanItem`. */
export interface ScanOptions {
  /** The exact datasets to scan against. @default every exact dataset loaded (that `account` may search) */
  readonly datasets?: readonly string[];
  /** Shortest passage reported, in whitespace-separated words of the item (1–100,000). @default 50 */
  readonly minWords?: number;
  /**
   * Report reworded passages too (`kind: 'paraphrase'`): the content-word pair candidates, the near-duplicate
   * lookup and the aligned passages' backgrounds are searched as analyze does, several times slower.
   * @default false (verbatim and edited copies only)
   */
  readonly paraphrase?: boolean;
  /** The account scanning: only the datasets every account shares and its own (as `SearchOptions.account`). */
  readonly account?: string;
  /** Aborting rejects the scan with `signal.reason` (an AbortError by default), as fetch does. */
  readonly signal?: AbortSignal;
  /**
   * Aborting ends `engine.scan` before its next item, without rejecting: every hit of the items before is yielded,
   * none of an item after, and the generator returns the summary of the items done (a caller that aborts it from
   * `onProgress` stops right after that item, as a source that stops does).
   */
  readonly stop?: AbortSignal;
  /**
   * Let `engine.scan` read up to 64 items (or 64 Ki UTF-16 units of text) of a generator or stream before the first
   * of them is reported, to look them up together (an array's items are read so always): for a source whose items do
   * not depend on what the scan has done so far. A source stopped from `onProgress` reads on; `stop` ends the scan
   * at the item. @default false
   */
  readonly readAhead?: boolean;
  /** Called after each item (keep it cheap: it runs once per item). */
  readonly onProgress?: (progress: ScanProgress) => void;
}

/**
 * How far a scan is: items read, their UTF-8 bytes, hits found, and the items not searched because they hold fewer
 * than `minWords` words (they cannot hold a hit).
 */
export interface ScanProgress {
  readonly items: number;
  readonly bytes: number;
  readonly hits: number;
  readonly skipped: number;
}

/** The end of a scan (the generator's return value): its progress and the milliseconds it took. */
export interface ScanSummary extends ScanProgress {
  readonly ms: number;
}
