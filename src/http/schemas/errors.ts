/**
 * The error bodies of the HTTP API: the envelope every route answers with, and the OAuth token
 * endpoint's own (RFC 6749 §5.2).
 */
import { object, str } from './kit.js';

/**
 * `{ success: false, error: { code, message, details? } }` — every error of the API except the OAuth token endpoint's.
 * @example new Validator(ERROR_ENVELOPE_SCHEMA).validate(await res.json()).valid
 */
export const ERROR_ENVELOPE_SCHEMA = object({
  success: { const: false },
  error: object(
    {
      code: { type: 'string', pattern: '^[A-Z][A-Z_]*$', description: 'Stable code (README "Error codes")' },
      message: str,
      details: {
        type: 'object',
        description:
          'Machine-readable context: e.g. `{ location, field, reason }` for 422, `{ allow }` for 405, `{ request_id }` for 500',
      },
    },
    ['details'],
  ),
});

/** RFC 6749 §5.2 error of the token endpoint. */
export const OAUTH_ERROR_SCHEMA = object(
  {
    error: {
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
      ],
    },
    error_description: str,
  },
  ['error_description'],
);
