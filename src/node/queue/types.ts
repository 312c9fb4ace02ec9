/**
 * The types of the scan queue: the one thing a worker needs of an engine ({@link QueueScanner}: `Engine` is one) and
 * a dataset as a job names it. Items and hits are the scan's (`ScanItem`, `ScanHit` of `engine.scan`).
 */

import type { JobEngine } from '../../library.js';

/**
 * What a worker asks of the engine: the scan of one item — deterministic for the same datasets and options (the
 * queue's exactly-once rests on it) — and the identity of its datasets, as a job engine's. `Engine` is one.
 */
export interface QueueScanner extends Required<Pick<JobEngine, 'scanItem' | 'datasetDigest'>> {
  /** The loaded datasets. */
  datasets(): readonly { readonly id: string; readonly kind: string }[];
}

/** A dataset a job scans against, by id and content: a worker runs the job only where both match. */
export interface JobDataset {
  readonly id: string;
  readonly sha256: string;
}
