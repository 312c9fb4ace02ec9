/**
 * What the built-in job types say of their results — each type's name, `summarize` and `rows` (./lines/<name>.ts, the
 * part of ./types/<name>.ts that describes a result) — and `jobResultSummary`, the line of an item's result. Nothing
 * here imports the engine, the store or a schema: the web app reads these lines over a served API without loading
 * the library.
 */
import type { JobTypeDescription } from './job-type.js';
import { ANALYZE_LINES } from './lines/analyze.js';
import { AUDIT_LINES } from './lines/audit.js';
import { EXTRACT_LINES } from './lines/extract.js';
import { SCAN_LINES } from './lines/scan.js';
import { SCORE_LINES } from './lines/score.js';
import { neutralSummary } from './result-lines.js';
import type { JobResult } from './types.js';

export { neutralSummary };

/**
 * The built-in types' descriptions by name, in the order the documentation lists them.
 * @example BUILT_IN_JOB_DESCRIPTIONS.get('scan')?.rows?.noun // 'hits'
 */
export const BUILT_IN_JOB_DESCRIPTIONS: ReadonlyMap<string, JobTypeDescription> = new Map(
  [ANALYZE_LINES, SCORE_LINES, SCAN_LINES, EXTRACT_LINES, AUDIT_LINES].map((t) => [t.name, t]),
);

/**
 * One line of what an item of a job of type `type` found, for people: its type's `summarize` (a neutral line naming
 * the result's fields for a type without one, or not in `registry`), or a failed item's error.
 * @example jobResultSummary('scan', { index: 0, success: true, result: { id: 'a', hits: [] } }) // '0 hits'
 */
export function jobResultSummary(
  type: string,
  line: JobResult,
  registry: ReadonlyMap<string, JobTypeDescription> = BUILT_IN_JOB_DESCRIPTIONS,
): string {
  if (!line.success) return `${line.error.code}: ${line.error.message}`;
  const summarize = registry.get(type)?.summarize;
  return summarize ? summarize(line.result) : neutralSummary(line.result);
}
