/**
 * The `score` job type: an item is a `ScoreRequest` (a work of the account by `work_hash`, or `content`), its result
 * the `ScoreResult` of `engine.score`.
 */
import { TrainprintError } from '../../../errors.js';
import type { ScoreRequest } from '../../score/types.js';
import { SCORE_REQUEST_SCHEMA } from '../../score/schema.js';
import { defineJobType } from '../job-type.js';
import { fileLimit } from './context.js';

/** See the module's documentation. */
export const SCORE_JOB = defineJobType<ScoreRequest>({
  name: 'score',
  summary: '`score` (the body of `POST /api/v1/attribution/score`)',
  itemSchema: SCORE_REQUEST_SCHEMA,
  executor:
    ({ engine, options }) =>
    async (item, claim, signal) => {
      const request = item as ScoreRequest;
      const owner = claim.job.account;
      if ((request.work_hash !== undefined) === (request.content !== undefined))
        throw new TrainprintError('INVALID_INPUT', 'give work_hash or content, one of them');
      // a work_hash must be the owner's
      if (request.work_hash !== undefined) await engine.findWork(request.work_hash, { owner });
      return engine.score(request, { ...options.work, owner, maxFileBytes: fileLimit(claim), signal });
    },
});
