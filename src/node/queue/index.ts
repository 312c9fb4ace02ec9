/**
 * The scan queue (Node only): scans spread over workers that share one PostgreSQL — the job model's store jobs on
 * the PostgreSQL store. See ./queue.ts.
 */
export * from './queue.js';
export type * from './types.js';
