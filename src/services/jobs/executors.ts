/**
 * The executor table of the job model: what one item of each registered type runs (./registry.ts). The one runner
 * (./runner.ts) looks an item's executor up here by its job's type, whichever backend the job came from — so a scan
 * item of the PostgreSQL queue and of an HTTP job run the same code and give the same result shape.
 */
import type { JobEngine, JobExecutor, JobExecutorOptions } from './job-type.js';
import { BUILT_IN_JOB_TYPES, type JobTypeRegistry } from './registry.js';

/**
 * One executor per job type; a type without one cannot run in this process (its jobs fail with NOT_SUPPORTED and
 * the reason in `unsupported`).
 * @example const table: JobExecutors = { executors: { scan: (item) => scan(item) }, unsupported: {} }
 */
export interface JobExecutors {
  readonly executors: Readonly<Record<string, JobExecutor>>;
  /** Why a type has no executor here. */
  readonly unsupported: Readonly<Record<string, string>>;
}

/**
 * The executor table of `engine` for the types of `registry` (the built-in ones by default), each built by its
 * type's module (`executor`) from the engine and `options`.
 * @example const runner = new JobRunner({ jobs, ...jobExecutors(engine, { work: { sliceMs: 3 } }) })
 */
export function jobExecutors(
  engine: JobEngine,
  options: JobExecutorOptions = {},
  registry: JobTypeRegistry = BUILT_IN_JOB_TYPES,
): JobExecutors {
  const executors: Record<string, JobExecutor> = {};
  const unsupported: Record<string, string> = {};
  for (const [name, type] of registry) {
    const run = type.executor({ engine, options });
    if (typeof run === 'string') unsupported[name] = run;
    else executors[name] = run;
  }
  return { executors, unsupported };
}
