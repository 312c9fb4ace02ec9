/**
 * The scan alone, in one module: the scan engine (src/scan-engine.ts) and the names of the layers below the outer
 * ring that a file scan's modules take from the library module (src/node/scan/run.ts and what it imports: the input
 * readers, the datasets' loader, the checkpoint, the thread pool). Internal — not a package export.
 *
 * Why: `trainprint scan` on one thread runs src/node/scan/alone.ts, which tsup builds as dist/scan-files.js with this
 * module in place of the library module (tsup.config.ts), so such a process compiles neither the services it never
 * calls nor their tables. Each name here is the library module's name for the same thing (the build fails on a name
 * that the file scan imports and this module lacks); a class here is a second copy of the library's, which the CLI
 * tells by what it holds (TrainprintError's registered symbol, src/errors.ts), not by `instanceof`.
 *
 * @example
 * // inside the package only (src/node/scan/alone.ts)
 * import { createScanEngine } from '../../scan-library.js'
 */
export { createScanEngine, ScanEngine } from './scan-engine.js';
export { TrainprintError, MESSAGES } from './errors.js';
export type { ErrorCode } from './errors.js';
export { MAX_THREADS } from './corpus/work.js';
export type { DatasetDocument } from './datasets/types.js';
export { positiveInt } from './util/validate.js';
export { concatBytes } from './util/bytes.js';
export { readThrough } from './util/schema-check.js';
export { DEFAULT_MIN_WORDS, SCAN_OPTIONS_REQUEST } from './services/scan/schema.js';
export type { ScanHit, ScanItem } from './services/scan/types.js';
export { ANALYZE_MAX_FILE_BYTES, extractDocument } from './services/analyze/files.js';
