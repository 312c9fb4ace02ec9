/**
 * The scan service loaded on its first use (./on-demand.ts): the plan of a scan, the lookups that settle an item
 * without a search, and the hits made of a search's matches (./scan.ts). A file of its own in the package
 * (dist/scan-work.js, built on the library), so a program that never scans carries none of it.
 *
 * @example
 * const { createScanService } = await import('./operations.js')
 */
export { createScanService } from './scan.js';
