/** The exports of the one job model (./types.ts says what it is). */
// the store backend: createJobService, JobService, its options and constants
export * from './service.js';
export { DEFAULT_JOB_ITEM_TIMEOUT_MS, JobRunner, jobError } from './runner.js';
export type { JobRunnerOptions } from './runner.js';
export { jobExecutors } from './executors.js';
export type { JobExecutors } from './executors.js';
export { defineJobType } from './job-type.js';
export type {
  ItemSlice,
  JobEngine,
  JobExecutor,
  JobExecutorOptions,
  JobPrepareContext,
  JobTypeDefinition,
  JobTypeHost,
  PreparedItems,
} from './job-type.js';
export { BUILT_IN_JOB_TYPES, JOB_TYPES, jobTypeRegistry, jobUnits } from './registry.js';
export type { JobType, JobTypeRegistry } from './registry.js';
export { scanExecutor, SCAN_JOB } from './types/scan.js';
export type { ExtractJobItem } from './types/extract.js';
export type { AuditJobItem } from './types/audit.js';
export { EXTRACT_CALLS_PER_UNIT, HAND_BACK_RETRY_MS } from './types/model-items.js';
export { ItemHandedBack } from './hand-back.js';
export { startJobRunner } from './start.js';
export type { StartJobRunnerOptions } from './start.js';
// the job model's types: the whole of ./types.ts
export * from './types.js';
export { createHeldJobModels, modelNotHeld } from './held-models.js';
export type { HeldJobModels, StoredModelSpec } from './held-models.js';
