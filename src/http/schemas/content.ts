/**
 * JSON Schemas of the works registry's answers (`/api/v1/content/…`): receipts, works, the account's work list; and
 * `Deleted`, the answer of every DELETE route. Its requests are the registry service's (src/services/registry/schema.ts).
 */
import { ANALYZE_REQUEST_SCHEMA } from '../../library.js';
import {
  bool,
  dateTime,
  declarations,
  int0,
  nullable,
  object,
  ok,
  page,
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

export const REGISTER_RESULT_SCHEMA = ok({
  ...WORK_PROPS,
  created: { type: 'boolean', description: 'False when the account had already registered this work_hash' },
});
/** A registered work (`owner` is the account that registered it), one in a body, a page of them. */
export const [WORK_SCHEMA, WORK_RESPONSE_SCHEMA, WORK_LIST_SCHEMA] = resourceSchemas(WORK_PROPS, 'works', page);
export const VERIFY_RECEIPT_RESULT_SCHEMA = ok({ valid: bool });
export const DELETED_SCHEMA = ok({ id: str, deleted: { const: true } });
