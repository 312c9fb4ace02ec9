/**
 * The types of the scan queue: what a job holds, what its status says, and the one thing a worker needs of an
 * engine ({@link QueueScanner}: `Engine` is one). Items and hits are the scan's (`ScanItem`, `ScanHit` of
 * `engine.scan`); a hit travels as one JSON line with exactly these fields in this order.
 */

import type { ScanHit, ScanItem, ScanOptions } from '../../library.js';

/** One input text of a scan (`ScanItem`): the same shape as a dataset document. */
export type QueueItem = ScanItem;
/** One hit (`ScanHit`): a block of at least `min_words` words of an item found in a dataset's document. */
export type QueueHit = ScanHit;

/** What a worker asks of the engine: the scan of one item, and the identity of its datasets. `Engine` is one. */
export interface QueueScanner {
  /** The hits of one item, deterministic for the same datasets and options (the queue's exactly-once rests on it). */
  scanItem(
    item: QueueItem,
    options?: Pick<ScanOptions, 'datasets' | 'minWords' | 'paraphrase' | 'signal'>,
  ): Promise<readonly QueueHit[]>;
  /** Hex SHA-256 of a loaded dataset's content. */
  datasetDigest(id: string): Promise<string>;
  /** The loaded datasets. */
  datasets(): readonly { readonly id: string; readonly kind: string }[];
}

/** A dataset a job scans against, by id and content. */
export interface JobDataset {
  readonly id: string;
  readonly sha256: string;
}

/** The scan options a job carries to every worker. */
export interface JobScanOptions {
  /** @default 50 */
  readonly min_words: number;
  /** @default false */
  readonly paraphrase: boolean;
}

/** A job's state: nothing started, under way, every item scanned, or stopped short (a chunk out of retries, cancelled, texts expired). */
export type ScanJobState = 'queued' | 'running' | 'done' | 'failed';

/** Where a job stands (`trainprint scan --queue … --status --json` prints it). */
export interface ScanJobStatus {
  readonly job: string;
  readonly state: ScanJobState;
  readonly items_done: number;
  /** Items enqueued so far: the job's size once `sealed`. */
  readonly items_total: number;
  readonly hits: number;
  readonly chunks_done: number;
  readonly chunks_total: number;
  readonly chunks_failed: number;
  /** Every chunk enqueued (the input was read to its end). */
  readonly sealed: boolean;
  readonly created: string;
  readonly exported: boolean;
  /** Why the job failed, when it did. */
  readonly error?: string;
}
