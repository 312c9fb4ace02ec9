/**
 * The file scan of `trainprint scan` (the CLI's src/cli/scan.ts imports it): ./run.ts with the scan engine
 * (src/scan-engine.ts) on one thread, and the loop of each of its worker threads (./thread.ts; dist/scan-worker.js
 * imports it from here). tsup builds this module as dist/scan-files.js with src/scan-library.ts in place of the
 * library module, so the process compiles the scan's code and not the whole library (≈ two thirds of its bytes). The
 * hits are the same: the same scan service over the same datasets (test/unit/scan-engine.test.ts).
 */
import { createScanEngine } from '../../scan-library.js';
import type { ScanWorkerData } from './protocol.js';
import { scanFilesWith, type ScanFilesOptions, type ScanFilesResult } from './run.js';
import { serveScanThread, type ScanThreadPort } from './thread.js';

export type { ScanFilesOptions, ScanFilesProgress, ScanFilesResult } from './run.js';

/**
 * `scanFiles` (trainprint/node) on the scan engine: the same options, hits, checkpoints and result.
 * @throws (rejects) as `scanFiles`
 * @example
 * const r = await scanFilesAlone({ datasets: ['books.tpds'], inputs: ['outputs.jsonl'], out: 'hits.jsonl' })
 */
export function scanFilesAlone(options: ScanFilesOptions): Promise<ScanFilesResult> {
  return scanFilesWith(createScanEngine, options);
}

/**
 * A worker thread of a file scan (`scanFiles` or `trainprint scan` with `threads` > 1) on the scan engine: the
 * batches its pool sends on `port`, scanned against the datasets of `data` (./thread.ts).
 * @example serveScanWorker(parentPort, workerData) // in dist/scan-worker.js
 */
export function serveScanWorker(port: ScanThreadPort, data: ScanWorkerData): void {
  serveScanThread(port, data, createScanEngine);
}
