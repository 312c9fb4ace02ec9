/**
 * The `analyze` job type: an item is an `AnalyzeRequest`, its result the `AnalysisResult` of `engine.analyze`. An item
 * is read through `ANALYZE_REQUEST` at submission, before the charge, within the plan's file limit: refused for what
 * the request is refused for when sent alone (`include_text` on text, blank content …).
 */
import type { AnalysisResult, AnalyzeRequest } from '../../analyze/types.js';
import { attachToJob } from '../attached.js';
import type { JobClaim } from '../types.js';
import { ANALYZE_REQUEST } from '../../analyze/request.js';
import { readThrough } from '../../../util/schema-check.js';
import { defineJobType, type JobEngine } from '../job-type.js';
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
    (item, claim, signal, slice) =>
      analyzedOnce(engine, claim, slice?.index, () =>
        engine.analyze(item as AnalyzeRequest, {
          owner: claim.job.account,
          maxFileBytes: fileLimit(claim),
          signal,
          ...options.work,
        }),
      ),
});

/** Where a job's item records the analysis it stored: `job-analysis/<job>/<index>` → its analysis id. */
const ITEM_ANALYSIS = 'job-analysis/';

/**
 * An item's analysis, stored once whatever the runs of its chunk: a chunk's results are written when the whole chunk
 * ends, so a chunk run again (its process stopped or killed) would store its finished items' analyses a second time,
 * as analyses of the account no result names. The item's analysis id is kept as it is stored and read back on a
 * second run. The records go with the job (./attached.ts); the analyses stay the account's, as a finished job's do.
 * @example await analyzedOnce(engine, claim, 3, () => engine.analyze(request, { owner }))
 */
async function analyzedOnce(
  engine: JobEngine,
  claim: JobClaim,
  index: number | undefined,
  run: () => Promise<unknown>,
): Promise<unknown> {
  const { store } = engine;
  if (index === undefined || store === undefined || engine.getAnalysis === undefined) return run();
  const key = `${ITEM_ANALYSIS}${claim.job.id}/${index}`;
  const id = await store.get(key);
  if (typeof id === 'string') {
    const kept = await engine.getAnalysis(id, { owner: claim.job.account }).catch(() => undefined);
    if (kept !== undefined) return kept;
  }
  const result = (await run()) as AnalysisResult;
  await attachToJob(store, claim.job.id, `${ITEM_ANALYSIS}${claim.job.id}/`);
  await store.put(key, result.analysis_id);
  return result;
}
