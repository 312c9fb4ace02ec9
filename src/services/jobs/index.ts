/**
 * Durable catalogue jobs: many items of one type (analyze, score, scan) submitted at once, run in chunks by the
 * runners of every process on the store, results one per item in item order (src/services/jobs/service.ts).
 */
export {
  createJobService,
  JobService,
  CLAIM_SCAN_JOBS,
  JOB_CHUNK_ITEMS,
  JOB_MAX_ATTEMPTS,
  JOB_RETENTION_MS,
} from './service.js';
export type { JobServiceOptions } from './service.js';
export { DEFAULT_JOB_ITEM_TIMEOUT_MS, JobRunner, jobError } from './runner.js';
export type { JobExecutor, JobRunnerOptions } from './runner.js';
export { JOB_TYPES } from './types.js';
export type {
  JobClaim,
  JobError,
  JobInfo,
  JobResult,
  JobResultPage,
  JobState,
  JobSubmission,
  JobType,
} from './types.js';
