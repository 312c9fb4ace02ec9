/**
 * JSON Schemas of the works registry (`/api/v1/content/…`): receipts, works, registration, the
 * account's work list; and `Deleted`, the answer of every DELETE route.
 */
import { ANALYZE_REQUEST_SCHEMA } from '../../library.js';
import {
  bool,
  dateTime,
  declarations,
  int0,
  jurisdiction,
  nullable,
  object,
  ok,
  page,
  pageLimit,
  partialObject,
  resourceSchemas,
  str,
  strings,
  strOrNull,
  workHash,
  workId,
  workType,
} from './kit.js';

/** A work's content types: analyze's, the text types and the files (`epub`, `pdf`, `docx`). */
const contentType = { enum: ANALYZE_REQUEST_SCHEMA.properties.content_type.enum };

export const RECEIPT_SCHEMA = object({
  version: { const: 1 },
  alg: { const: 'HMAC-SHA256' },
  key_id: str,
  work_hash: workHash,
  owner: str,
  registered_at: dateTime,
  signature: str,
});

const WORK_PROPS = {
  work_id: workId,
  work_hash: workHash,
  fingerprint: str,
  owner: str,
  title: strOrNull,
  author: strOrNull,
  work_type: nullable(workType),
  content_type: nullable(contentType),
  declarations,
  tokens: int0,
  has_text: bool,
  registered_at: dateTime,
  receipt: RECEIPT_SCHEMA,
  conflicting_claims: strings,
} as const;

/** The work's own fields in a registration: top-level, or under `metadata` in the analyze request's shape. */
const WORK_FIELDS_IN = {
  title: { type: 'string', minLength: 1, maxLength: 1000 },
  author: { type: 'string', minLength: 1, maxLength: 1000 },
  work_type: workType,
  declarations,
} as const;

/**
 * `POST /api/v1/content/register`: the caller's account is the owner. The work's fields come top-level or, in the analyze
 * request's shape, under `metadata` (the same field in both places is refused).
 */
export const REGISTER_REQUEST_SCHEMA = partialObject({
  content: {
    type: 'string',
    minLength: 1,
    description:
      'The work (at most 10 MiB of UTF-8), or a file\'s bytes in base64 with `content_encoding: "base64"` (at most ' +
      "the plan's `fileBytes`; or a multipart upload); or give `fingerprint`",
  },
  content_type: {
    ...contentType,
    description: 'How to read `content`: a file (`epub`, `pdf`, `docx`) is kept as its extracted text. Default `text`',
  },
  content_encoding: ANALYZE_REQUEST_SCHEMA.properties.content_encoding,
  fingerprint: object({ fingerprint: { type: 'string', pattern: '^tp1:[0-9a-f]{32}$' }, work_hash: workHash }),
  ...WORK_FIELDS_IN,
  metadata: partialObject({
    ...WORK_FIELDS_IN,
    jurisdiction: {
      ...jurisdiction,
      description: 'Refused with a reason: a registration has no jurisdiction (score and monitors take one)',
    },
  }),
});

export const REGISTER_RESULT_SCHEMA = ok({
  ...WORK_PROPS,
  created: { type: 'boolean', description: 'False when the account had already registered this work_hash' },
});
/** A registered work (`owner` is the account that registered it), one in a body, a page of them. */
export const [WORK_SCHEMA, WORK_RESPONSE_SCHEMA, WORK_LIST_SCHEMA] = resourceSchemas(WORK_PROPS, 'works', page);
export const WORK_LIST_QUERY_SCHEMA = partialObject({ after: workId, limit: pageLimit });
export const VERIFY_RECEIPT_REQUEST_SCHEMA = object({
  receipt: { type: 'object', description: 'A receipt as returned by register' },
});
export const VERIFY_RECEIPT_RESULT_SCHEMA = ok({ valid: bool });
export const DELETED_SCHEMA = ok({ id: str, deleted: { const: true } });
