/**
 * The job types, registered: one module each (./types/<name>.ts, see ./job-type.ts) and one line here. The `JobType`
 * union, `JOB_TYPES`, the HTTP checks and the OpenAPI schema of a submission (src/http/schemas/jobs.ts) and the
 * executor table (./executors.ts) derive from this table.
 */
import { TrainprintError } from '../../errors.js';
import type { JobTypeDefinition } from './job-type.js';
import { ANALYZE_JOB } from './types/analyze.js';
import { AUDIT_JOB } from './types/audit.js';
import { EXTRACT_JOB } from './types/extract.js';
import { SCAN_JOB } from './types/scan.js';
import { SCORE_JOB } from './types/score.js';

// biome-ignore lint/suspicious/noExplicitAny: each type's item is its own; the table holds them all
type AnyJobType = JobTypeDefinition<any>;

/** The built-in types, in the order the documentation lists them. */
const BUILT_IN = {
  analyze: ANALYZE_JOB,
  score: SCORE_JOB,
  scan: SCAN_JOB,
  extract: EXTRACT_JOB,
  audit: AUDIT_JOB,
} as const satisfies Record<string, AnyJobType>;

/**
 * A built-in job type: `analyze` (an `AnalyzeRequest`), `score` (a `ScoreRequest`), `scan` (`{ id, text }`),
 * `extract` (an extraction of a whole work from a model) or `audit` (a catalogue audit under one call budget).
 * @example const t: JobType = 'analyze'
 */
export type JobType = keyof typeof BUILT_IN;

/**
 * The built-in job types, in the order the documentation lists them.
 * @example JOB_TYPES.includes('scan') // true
 */
export const JOB_TYPES: readonly JobType[] = Object.freeze(Object.keys(BUILT_IN) as JobType[]);

/**
 * Job types by name: the built-in ones and a host's own.
 * @example jobTypeRegistry().get('scan')?.chunkItems
 */
export type JobTypeRegistry = ReadonlyMap<string, AnyJobType>;

/** The built-in registry (made once). */
export const BUILT_IN_JOB_TYPES: JobTypeRegistry = new Map(Object.entries(BUILT_IN));

/**
 * The registry of the built-in types and `extra` (a host's own, {@link defineJobType}).
 * @throws INVALID_OPTIONS when a name is taken twice
 * @example createHandler(engine, { jobTypes: [upper] }) // jobTypeRegistry([upper]) inside
 */
export function jobTypeRegistry(extra: readonly AnyJobType[] = []): JobTypeRegistry {
  if (extra.length === 0) return BUILT_IN_JOB_TYPES;
  const out = new Map(BUILT_IN_JOB_TYPES);
  for (const t of extra) {
    if (out.has(t.name)) throw new TrainprintError('INVALID_OPTIONS', `job type ${t.name} is registered twice`);
    out.set(t.name, t);
  }
  return out;
}

/**
 * The plan units a job's items are charged at submission: each item's type's `units` (one by default; an extract or
 * audit item one per `EXTRACT_CALLS_PER_UNIT` calls of its budget).
 * @example jobUnits('scan', items) // items.length
 */
export function jobUnits(type: string, items: readonly unknown[], registry = BUILT_IN_JOB_TYPES): number {
  const units = registry.get(type)?.units;
  return units ? items.reduce((n: number, item) => n + units(item), 0) : items.length;
}

export { jobResultSummary } from './descriptions.js';
