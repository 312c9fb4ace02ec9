/**
 * The `analyze` job type: an item is an `AnalyzeRequest`, its result the `AnalysisResult` of `engine.analyze`. An item
 * is read through `ANALYZE_REQUEST` at submission, before the charge, within the plan's file limit: refused for what
 * the request is refused for when sent alone (`include_text` on text, blank content …).
 */
import type { AnalyzeRequest } from '../../analyze/types.js';
import { ANALYZE_REQUEST } from '../../analyze/request.js';
import { readThrough } from '../../../util/schema-check.js';
import { defineJobType } from '../job-type.js';
import { ANALYZE_LINES } from '../lines/analyze.js';
import { fileLimit } from './context.js';
import { checkEach } from './item-checks.js';

/** See the module's documentation. */
export const ANALYZE_JOB = defineJobType<AnalyzeRequest>({
  ...ANALYZE_LINES,
  summary: '`analyze` (an item is the body of `POST /api/v1/attribution/analyze`)',
  itemSchema: ANALYZE_REQUEST.served,
  prepare: checkEach((item, context) => readThrough(ANALYZE_REQUEST, item, { maxFileBytes: context.maxFileBytes })),
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
