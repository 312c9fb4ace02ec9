/** File scans (`trainprint scan`): inputs against datasets into hit lines, on threads, with checkpoints. */
export { scanFiles } from './files.js';
export type { ScanFilesOptions, ScanFilesProgress, ScanFilesResult } from './run.js';
export { hitLine } from './output.js';
