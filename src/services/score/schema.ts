/**
 * JSON Schema of the `score` request: the body of `POST /api/v1/attribution/score` and an item of a `score` job
 * (src/services/jobs/types/score.ts). Its content members are analyze's (../analyze/schema.ts).
 */
import { jurisdiction, modelId, object, workHash } from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField } from '../../util/schema-check.js';
import { contentWithinLimits } from '../analyze/files.js';
import { ANALYZE_REQUEST_SCHEMA, contentRules } from '../analyze/schema.js';
import { knownJurisdiction } from '../kb/jurisdictions.js';
import type { ScoreRequest } from './types.js';

const CONTENT_IN = ANALYZE_REQUEST_SCHEMA.properties;

/**
 * `POST /api/v1/attribution/score` body: a registered work by its `work_hash`, or the work itself as `content` (text,
 * markup, or a file in base64 as analyze takes it; or a multipart upload); exactly one of the two.
 */
export const SCORE_REQUEST_SCHEMA = object(
  {
    work_hash: workHash,
    content: { type: 'string', minLength: 1 },
    content_type: CONTENT_IN.content_type,
    content_encoding: CONTENT_IN.content_encoding,
    include_text: CONTENT_IN.include_text,
    target_model: modelId,
    jurisdiction,
  },
  ['work_hash', 'content', 'content_type', 'content_encoding', 'include_text'],
);

/** The members that describe content sent: they go with `content`, never with a `work_hash`. */
const CONTENT_MEMBERS = ['content_type', 'content_encoding', 'include_text'] as const;

/** What the score's rules read besides the request: the largest file taken (a plan's; the default otherwise). */
export interface ScoreContext {
  readonly maxFileBytes?: number;
}

/**
 * What the score's schema cannot say: exactly one of `work_hash` and `content`, content's members only with it, the
 * content's own rules (analyze's {@link contentRules}, {@link contentWithinLimits} within the plan's file limit), a
 * jurisdiction the risk table knows.
 * @throws INVALID_INPUT naming the field; PAYLOAD_TOO_LARGE past the file limit or 10 MiB of text
 * @example scoreRules({ target_model, jurisdiction: 'US' }) // INVALID_INPUT: work_hash: is required (or give content)
 */
export function scoreRules(request: ScoreRequest, context?: ScoreContext): void {
  exactlyOne(request, ['work_hash', 'content']);
  if (request.work_hash === undefined) {
    contentRules(request);
    contentWithinLimits(request, context?.maxFileBytes);
  }
  const extra = request.content === undefined && CONTENT_MEMBERS.find((k) => request[k] !== undefined);
  if (extra) invalidField(extra, 'goes with content');
  knownJurisdiction(request.jurisdiction, 'jurisdiction');
}

/**
 * The score's request, written once: `engine.score`, `POST /api/v1/attribution/score` and a `score` job's item read
 * it through this ({@link SCORE_REQUEST_SCHEMA}, then {@link scoreRules} within the plan's file limit).
 * @example readThrough(SCORE_REQUEST, { work_hash, target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' }, {})
 */
export const SCORE_REQUEST = contract<ScoreRequest, ScoreContext | undefined>(
  'score',
  SCORE_REQUEST_SCHEMA,
  scoreRules,
);
