/**
 * The `score` job type: an item is a `ScoreRequest` (a work of the account by `work_hash`, or `content`), its result
 * the `ScoreResult` of `engine.score`. An item is refused at submission, before the charge, for what the request is
 * refused for when sent alone: read through `SCORE_REQUEST` within the plan's file limit (one of `work_hash`, the
 * account's, or `content` and its own checks).
 */
import type { ScoreRequest } from '../../score/types.js';
import { SCORE_REQUEST } from '../../score/schema.js';
import { readThrough } from '../../../util/schema-check.js';
import { defineJobType } from '../job-type.js';
import { SCORE_LINES } from '../lines/score.js';
import { fileLimit } from './context.js';
import { checkEach } from './item-checks.js';

/** See the module's documentation. */
export const SCORE_JOB = defineJobType<ScoreRequest>({
  ...SCORE_LINES,
  summary: '`score` (the body of `POST /api/v1/attribution/score`)',
  itemSchema: SCORE_REQUEST.served,
  prepare: checkEach(async (item, context) => {
    const r = readThrough(SCORE_REQUEST, item, { maxFileBytes: context.maxFileBytes });
    if (r.work_hash !== undefined) await context.ownWorkByHash(r.work_hash);
  }),
  executor:
    ({ engine, options }) =>
    async (item, claim, signal) => {
      // read through SCORE_REQUEST at submission, and by engine.score
      const request = item as ScoreRequest;
      const owner = claim.job.account;
      // a work_hash must be the owner's
      if (request.work_hash !== undefined) await engine.findWork(request.work_hash, { owner });
      return engine.score(request, { ...options.work, owner, maxFileBytes: fileLimit(claim), signal });
    },
});
