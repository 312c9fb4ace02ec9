/**
 * The one job model: a {@link JobStore} (the engine's store here; PostgreSQL with pg-boss in `trainprint/node`), the
 * one runner, and the executor table `{ analyze, score, scan, extract }` behind a narrow engine port
 * (docs/architecture.md, "Jobs").
 */
// the store backend: createJobService, JobService, its options and constants
export * from './service.js';
export { DEFAULT_JOB_ITEM_TIMEOUT_MS, JobRunner, jobError } from './runner.js';
export type { JobRunnerOptions } from './runner.js';
export { jobExecutors, scanExecutor, jobUnits, EXTRACT_CALLS_PER_UNIT, HAND_BACK_RETRY_MS } from './executors.js';
export { ItemHandedBack } from './hand-back.js';
export { startJobRunner } from './start.js';
export type { StartJobRunnerOptions } from './start.js';
export type {
  ExtractJobItem,
  ItemSlice,
  JobEngine,
  JobExecutor,
  JobExecutorOptions,
  JobExecutors,
} from './executors.js';
// the job model's types and JOB_TYPES: the whole of ./types.ts
export * from './types.js';
export { createHeldJobModels, modelNotHeld } from './held-models.js';
export type { HeldJobModels, StoredModelSpec } from './held-models.js';
