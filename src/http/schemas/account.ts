/**
 * JSON Schemas of the account routes: API keys (the caller's and the operators' `admin/keys`),
 * OAuth clients, the token request and response (form fields, RFC 6749 §4.4), the day's usage.
 */
import { SCOPES, type JsonSchema } from '../context.js';
import {
  bool,
  dateTime,
  dateTimeOrNull,
  int0,
  object,
  ok,
  prefixedId,
  resourceSchemas,
  str,
  strOrNull,
} from './kit.js';

const scopes = { type: 'array', items: { enum: [...SCOPES] }, minItems: 1, uniqueItems: true } as const;

/** Whether a credential (an API key, an OAuth client) is revoked, and when. */
const REVOCATION = { revoked: bool, revoked_at: dateTimeOrNull } as const;

/**
 * The answer of a credential's creation: its secret (`field`, of the `pattern`), shown this once, then the credential
 * as its info shows it.
 */
function createdWithSecret(field: string, pattern: string, info: Record<string, JsonSchema>): JsonSchema {
  return ok({ [field]: { type: 'string', pattern, description: 'Shown once; store it now' }, ...info });
}

const KEY_INFO_PROPS = {
  key_id: prefixedId('key', 16),
  name: strOrNull,
  prefix: { enum: ['tp_live_', 'tp_test_'] },
  last4: { type: 'string', pattern: '^[0-9A-Za-z]{4}$' },
  account: str,
  plan: str,
  scopes,
  mode: { enum: ['live', 'test'] },
  created_at: dateTime,
  expires_at: { ...dateTimeOrNull, description: 'When the key stops working; null: it does not expire' },
  ...REVOCATION,
} as const;
export const KEY_CREATED_SCHEMA = createdWithSecret('key', '^tp_(live|test)_[0-9A-Za-z]{32}$', KEY_INFO_PROPS);
export const [KEY_INFO_SCHEMA, KEY_RESPONSE_SCHEMA, KEY_LIST_SCHEMA] = resourceSchemas(KEY_INFO_PROPS, 'keys');

const CLIENT_INFO_PROPS = {
  client_id: prefixedId('tpc', 24),
  name: strOrNull,
  account: str,
  plan: str,
  scopes,
  created_at: dateTime,
  ...REVOCATION,
} as const;
export const CLIENT_CREATED_SCHEMA = createdWithSecret('client_secret', '^tp_cs_[0-9A-Za-z]{40}$', CLIENT_INFO_PROPS);
export const [CLIENT_INFO_SCHEMA, CLIENT_RESPONSE_SCHEMA, CLIENT_LIST_SCHEMA] = resourceSchemas(
  CLIENT_INFO_PROPS,
  'clients',
);

/** The token request (form fields, RFC 6749 §4.4.2 and §2.3.1). */
export const TOKEN_RESPONSE_SCHEMA = object({
  access_token: str,
  token_type: { const: 'Bearer' },
  expires_in: { type: 'integer', minimum: 1, maximum: 3600 },
  scope: str,
});

export const USAGE_SCHEMA = ok({
  account: str,
  plan: str,
  window: { const: 'day', description: 'Calendar day in UTC' },
  limit: { type: ['integer', 'null'], description: 'Calls per window; null: no limit' },
  used: int0,
  remaining: { type: ['integer', 'null'] },
  reset_at: dateTime,
  reset_seconds: int0,
});
