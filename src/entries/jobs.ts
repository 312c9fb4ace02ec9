/**
 * `trainprint/jobs` — the job model: many items of one type run in chunks by every process on the engine's store,
 * charged by item to the account's plan (`JobStore`, its store backend `createJobService`, the one runner
 * `JobRunner` / `startJobRunner` and the executor table `jobExecutors`), and the job types — one definition each,
 * built in (`BUILT_IN_JOB_TYPES`) or a host's own (`defineJobType`, given to `createHandler` and `startJobRunner` as
 * `jobTypes`). A type describes itself: its item's schema, its documentation (`summary`, `description`) and a line
 * for each result (`summarize`, read through `jobResultSummary`).
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { defineJobType, startJobRunner } from 'trainprint/jobs'
 * const upper = defineJobType<{ text: string }>({
 *   name: 'upper',
 *   summary: '`upper` (`{ text }`, upper-cased)',
 *   summarize: (result) => (result as { text: string }).text,
 *   itemSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
 *   executor: () => async (item) => ({ text: (item as { text: string }).text.toUpperCase() }),
 * })
 * const engine = await createEngine()
 * const runner = startJobRunner(engine, { jobTypes: [upper] })
 */
export {
  createJobService,
  JobService,
  JobRunner,
  startJobRunner,
  createHeldJobModels,
  modelNotHeld,
  jobExecutors,
  scanExecutor,
  jobUnits,
  jobResultSummary,
  neutralSummary,
  EXTRACT_CALLS_PER_UNIT,
  HAND_BACK_RETRY_MS,
  ItemHandedBack,
  jobError,
  JOB_CHUNK_ITEMS,
  CLAIM_SCAN_JOBS,
  DEFAULT_JOB_ITEM_TIMEOUT_MS,
  JOB_MAX_ATTEMPTS,
  JOB_RETENTION_MS,
  JOB_TYPES,
  defineJobType,
  jobTypeRegistry,
  BUILT_IN_JOB_TYPES,
  SCAN_JOB,
  type JobServiceOptions,
  type StreamSubmitOptions,
  type JobTypeDefinition,
  type JobTypeDescription,
  type JobTypeRegistry,
  type JobTypeHost,
  type JobPrepareContext,
  type PreparedItems,
  type AuditJobItem,
  type JobExecutor,
  type JobExecutors,
  type JobExecutorOptions,
  type ItemSlice,
  type JobEngine,
  type ExtractJobItem,
  type StartJobRunnerOptions,
  type HeldJobModels,
  type StoredModelSpec,
  type JobStore,
  type ClaimWatch,
  type JobRunnerOptions,
  type JobClaim,
  type JobError,
  type JobInfo,
  type JobList,
  type JobResult,
  type JobResultPage,
  type JobState,
  type JobSubmission,
  type JobType,
} from '../library.js';
