/** The scan service (`engine.scan`): items against the exact datasets, hits of at least `minWords` words. */
export { createScanService } from './on-demand.js';
// whitespace-separated words of a span: one counter with the file readers' (src/formats/result.ts)
export { countWords } from '../../util/space.js';
export type { ScanCorpus, ScanService } from './scan.js';
export { SCAN_HIT_FIELDS } from './types.js';
export type { ScanHit, ScanItem, ScanOptions, ScanProgress, ScanReuse, ScanSummary } from './types.js';
