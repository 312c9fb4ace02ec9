/** `scanFiles` of trainprint/node: the file scan (./run.ts) with the library's Engine on one thread. */
import { createEngine } from '../../library.js';
import { scanFilesWith, type ScanFilesOptions, type ScanFilesResult } from './run.js';

/**
 * Scan input files against datasets into a file of hit lines (./run.ts's module comment).
 * @throws (rejects) INVALID_OPTIONS, INVALID_INPUT (an unreadable input or dataset, a checkpoint of another scan),
 *   NOT_FOUND, as the scan does
 * @example
 * import { scanFiles } from 'trainprint/node'
 * const r = await scanFiles({ datasets: ['books.tpds'], inputs: ['outputs.jsonl'], out: 'hits.jsonl', threads: 2 })
 */
export function scanFiles(options: ScanFilesOptions): Promise<ScanFilesResult> {
  return scanFilesWith(createEngine, options);
}
