/**
 * The scan queue (Node only): scans spread over workers that share one PostgreSQL, on pg-boss. See ./queue.ts.
 */
export { openScanQueue, ScanQueue } from './queue.js';
export type { ScanQueueOptions } from './queue.js';
export type { EnqueueOptions, EnqueueResult } from './enqueue.js';
export { jobDatasets } from './worker.js';
export type { WorkOptions, WorkSummary } from './worker.js';
export { startBoss } from './boss.js';
export type { StartBossOptions } from './boss.js';
export type * from './types.js';
