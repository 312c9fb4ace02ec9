/** The messages between `scanFiles` (./run.ts, ./pool.ts) and its worker threads (./worker.ts). */
import type { ScanItem } from '../../library.js';

/** What a worker is started with. */
export interface ScanWorkerData {
  readonly datasets: readonly string[];
  readonly minWords: number;
  readonly paraphrase: boolean;
}

/** A batch of items to scan. */
export interface ScanBatch {
  readonly seq: number;
  readonly items: readonly ScanItem[];
}

/** A batch scanned: its hit lines in order, and its counts — or the error that stopped it. */
export type ScanBatchReply =
  | {
      readonly seq: number;
      readonly lines: string;
      readonly hits: number;
      readonly bytes: number;
      readonly skipped: number;
    }
  | { readonly seq: number; readonly error: { readonly code: string; readonly message: string } };

/** What a worker says once: its engine and datasets are ready, or could not be made. */
export type ScanWorkerStatus =
  | { readonly ready: true }
  | { readonly failed: { readonly code: string; readonly message: string } };
