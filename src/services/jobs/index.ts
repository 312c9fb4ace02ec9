/** The exports of the one job model (./types.ts says what it is): whole modules but for the types' own. */
export * from './types.js';
export * from './service.js';
export * from './runner.js';
export * from './executors.js';
export * from './job-type.js';
export * from './registry.js';
// a job type's name and its words are the submission's rules' and defineJobType's, no export of their own
export { JOB_REQUEST, JOB_REQUEST_SHAPE, type JobRequest, type JobRequestContext } from './request.js';
export * from './start.js';
export * from './held-models.js';
export { ItemHandedBack } from './hand-back.js';
export { neutralSummary } from './result-lines.js';
export * from './types/scan.js';
export type { ExtractJobItem } from './types/extract.js';
export type { AuditJobItem } from './types/audit.js';
export { EXTRACT_CALLS_PER_UNIT, HAND_BACK_RETRY_MS } from './types/model-items.js';
