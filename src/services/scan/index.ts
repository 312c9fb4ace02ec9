/** The scan service (`engine.scan`): items against the exact datasets, hits of at least `minWords` words. */
export { createScanService, countWords } from './scan.js';
export type { ScanCorpus, ScanService } from './scan.js';
export { SCAN_HIT_FIELDS } from './types.js';
export type { ScanHit, ScanItem, ScanOptions, ScanProgress, ScanReuse, ScanSummary } from './types.js';
