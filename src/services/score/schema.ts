/**
 * JSON Schema of the `score` request: the body of `POST /api/v1/attribution/score` and an item of a `score` job
 * (src/services/jobs/types/score.ts). Its content members are analyze's (../analyze/schema.ts).
 */
import { jurisdiction, modelId, object, workHash } from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField } from '../../util/schema-check.js';
import { TrainprintError } from '../../errors.js';
import { exceedsUtf8Bytes } from '../analyze/analyze.js';
import { checkFile, fileLimitOption } from '../analyze/files.js';
import { ANALYZE_MAX_BYTES } from '../analyze/limits.js';
import { ANALYZE_REQUEST_SCHEMA, contentRules } from '../analyze/schema.js';
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
 * What the score's schema cannot say: exactly one of `work_hash` and `content`, content's members only with it, and the
 * content's own rules (analyze's {@link contentRules}): a file's pairing, base64 and size within `maxFileBytes` (its
 * bytes are not decoded here), a text within {@link ANALYZE_MAX_BYTES} of UTF-8.
 * @throws INVALID_INPUT naming the field; PAYLOAD_TOO_LARGE past the file limit or 10 MiB of text
 * @example scoreRules({ target_model, jurisdiction: 'US' }) // INVALID_INPUT: work_hash: is required (or give content)
 */
export function scoreRules(request: ScoreRequest, context?: ScoreContext): void {
  exactlyOne(request, ['work_hash', 'content']);
  if (request.work_hash === undefined) {
    contentRules(request);
    const file = checkFile(request, request.content, fileLimitOption(context?.maxFileBytes));
    if (!file && exceedsUtf8Bytes(request.content as string, ANALYZE_MAX_BYTES))
      throw new TrainprintError(
        'PAYLOAD_TOO_LARGE',
        `content is larger than ${ANALYZE_MAX_BYTES} UTF-8 bytes (10 MiB)`,
      );
    return;
  }
  const extra = CONTENT_MEMBERS.find((k) => request[k] !== undefined);
  if (extra) invalidField(extra, 'goes with content');
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
