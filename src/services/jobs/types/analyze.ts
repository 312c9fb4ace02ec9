/** The `analyze` job type: an item is an `AnalyzeRequest`, its result the `AnalysisResult` of `engine.analyze`. */
import type { AnalyzeRequest } from '../../analyze/types.js';
import { ANALYZE_REQUEST_SCHEMA } from '../../analyze/schema.js';
import { defineJobType } from '../job-type.js';
import { fileLimit } from './context.js';

/** See the module's documentation. */
export const ANALYZE_JOB = defineJobType<AnalyzeRequest>({
  name: 'analyze',
  summary: '`analyze` (an item is the body of `POST /api/v1/attribution/analyze`)',
  itemSchema: ANALYZE_REQUEST_SCHEMA,
  // as the request runs over HTTP: the job's account as owner, the plan's file limit, the item's signal
  executor:
    ({ engine, options }) =>
    (item, claim, signal) =>
      engine.analyze(item as AnalyzeRequest, {
        owner: claim.job.account,
        maxFileBytes: fileLimit(claim),
        signal,
        ...options.work,
      }),
});
