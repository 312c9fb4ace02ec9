/**
 * The scan queue (Node only): scans spread over workers that share one PostgreSQL — the job model's store jobs on
 * the PostgreSQL store. See ./queue.ts.
 */
export { exportHits, jobDatasets, jobResults, openScanQueue, ScanQueue } from './queue.js';
export type { EnqueueOptions, EnqueueResult, ScanQueueOptions, WorkOptions, WorkSummary } from './queue.js';
export type * from './types.js';
