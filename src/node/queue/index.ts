/**
 * The scan queue (Node only): scans spread over workers that share one PostgreSQL, on pg-boss. See ./queue.ts.
 */
export { jobDatasets, openScanQueue, ScanQueue } from './queue.js';
export type { EnqueueOptions, EnqueueResult, ScanQueueOptions, WorkOptions, WorkSummary } from './queue.js';
export { startBoss } from './boss.js';
export type { StartBossOptions } from './boss.js';
export type {
  JobDataset,
  JobScanOptions,
  QueueHit,
  QueueItem,
  QueueReuse,
  QueueScanner,
  ScanJobState,
  ScanJobStatus,
} from './types.js';
