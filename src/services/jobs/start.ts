/**
 * `startJobRunner`: the one runner over a job store with the executor table of an engine — what `trainprint serve`
 * runs beside its HTTP handler, and what any host that takes jobs runs (the handler only submits and reads them).
 */
import type { Store } from '../../store/types.js';
import { jobExecutors } from './executors.js';
import type { JobEngine, JobExecutorOptions, JobTypeDefinition } from './job-type.js';
import { jobTypeRegistry } from './registry.js';
import { JobRunner, type JobRunnerOptions } from './runner.js';
import { createJobService } from './service.js';
import { beatModelHolder } from './hand-back.js';
import type { JobStore } from './types.js';

/**
 * Options of {@link startJobRunner}: the runner's (timing, fairness, item limit) and the executors' (work slicing,
 * the model of extract items; their journal is always kept in the engine's store).
 * @example startJobRunner(engine, { pollMs: 500, concurrency: 4, work: { offload: pool } })
 */
export interface StartJobRunnerOptions
  extends Omit<JobRunnerOptions, 'jobs' | 'executors' | 'unsupported'>,
    Omit<JobExecutorOptions, 'journalStore'> {
  /** The jobs to run. @default the engine's store's (`createJobService({ store: engine.store })`) */
  readonly jobs?: JobStore;
  /** The host's own job types, run beside the built-in ones (give the handler the same: `createHandler`'s `jobTypes`). */
  // biome-ignore lint/suspicious/noExplicitAny: each type's item is its own
  readonly jobTypes?: readonly JobTypeDefinition<any>[];
}

/**
 * A started runner of `engine`'s jobs: claims chunks of the store's jobs (those of every process on it) and runs
 * their items with {@link jobExecutors}. Stop it (`await runner.stop({ graceMs })`) before closing the store.
 * @example
 * const handler = createHandler(engine, { onJobSubmitted: () => runner.wake() })
 * const runner = startJobRunner(engine)
 * // … on shutdown
 * await runner.stop({ graceMs: 5000 })
 */
export function startJobRunner(
  engine: JobEngine & { readonly store: Store },
  options: StartJobRunnerOptions = {},
): JobRunner {
  const { jobs, work, model, jobModels, jobTypes, ...timing } = options;
  const runner = new JobRunner({
    ...timing,
    jobs: jobs ?? createJobService({ store: engine.store }),
    ...jobExecutors(engine, { work, model, jobModels, journalStore: engine.store }, jobTypeRegistry(jobTypes)),
  });
  runner.start();
  if (jobModels) {
    // the other processes on the store give this one the extract items whose models it holds while it beats (every
    // 5 s, read as gone 15 s after the last beat: not the chunk lease, so a killed process's items fail within 15 s)
    const beat = beatModelHolder(engine.store, jobModels.id);
    const stop = () => void beat.stop();
    runner.settled.then(stop, stop);
  }
  return runner;
}
