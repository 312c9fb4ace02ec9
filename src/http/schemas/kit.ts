/**
 * Building blocks of the HTTP API's JSON Schemas (the route groups' modules beside this one):
 * small shared fragments, the id formats (shared with the path parameters of
 * src/http/routes/index.ts), the object shapes every schema uses, lists and cursor pages.
 */
import type { JsonSchema } from '../context.js';

export const str = { type: 'string' } as const;
export const strOrNull = { type: ['string', 'null'] } as const;
export const int0 = { type: 'integer', minimum: 0 } as const;
export const num = { type: 'number' } as const;
export const num01 = { type: 'number', minimum: 0, maximum: 1 } as const;
export const bool = { type: 'boolean' } as const;
export const strings = { type: 'array', items: str } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
/** A timestamp, or null while the event has not happened. */
export const dateTimeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
export const code = { type: 'string', pattern: '^[a-z][a-z0-9_]*$' } as const;
export const codes = { type: 'array', items: code } as const;
export const pair = (item: JsonSchema) => ({ type: 'array', items: item, minItems: 2, maxItems: 2 }) as const;
export const workHash = {
  type: 'string',
  pattern: '^sha256:[0-9a-f]{64}$',
  'x-pattern-hint': 'a work hash: "sha256:" then 64 lowercase hex digits (the work_hash of analyze or register)',
} as const;
export const modelId = {
  type: 'string',
  pattern: '^[A-Za-z0-9][\\w.-]*/[A-Za-z0-9][\\w.-]*$',
  description: '`provider/model_name` of the knowledge base',
  'x-pattern-hint':
    '"provider/model_name" as the knowledge base names it (GET /api/v1/kb/models lists them), e.g. "eleutherai/pythia-6.9b"',
} as const;
export const jurisdiction = {
  type: 'string',
  pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$',
  description: 'ISO 3166: `US`, `DE`, `EU`, `US-CA`, `GB-SCT`',
  'x-pattern-hint': 'an ISO 3166 code such as "US", "DE", "EU", "US-CA" or "GB-SCT"',
} as const;
export const workType = { enum: ['book', 'article', 'news', 'code', 'other'] } as const;
export const contentType = { enum: ['text', 'markdown', 'html'] } as const;
export const tier = { enum: ['confirmed', 'strong', 'moderate', 'weak', 'inconclusive'] } as const;
export const riskLevel = { enum: ['none', 'low', 'medium', 'high', 'critical'] } as const;

/**
 * Pattern of a generated id: a prefix, `_` and `hex` lowercase hex digits. The schemas and the
 * path parameters (src/http/routes/index.ts `PATH_PARAMS`) take their patterns from here, so an id a
 * response carries always fits the path that names it.
 * @example idPattern('wk', 32) // '^wk_[0-9a-f]{32}$'
 */
export function idPattern(prefix: string, hex: number): string {
  return `^${prefix}_[0-9a-f]{${hex}}$`;
}

/**
 * The string schema of a generated id ({@link idPattern}).
 * @example prefixedId('lst', 32) // { type: 'string', pattern: '^lst_[0-9a-f]{32}$' }
 */
export function prefixedId(prefix: string, hex: number): { readonly type: 'string'; readonly pattern: string } {
  return { type: 'string', pattern: idPattern(prefix, hex) };
}

/** A work id. */
export const workId = prefixedId('wk', 32);
/** A monitor id. */
export const monitorId = prefixedId('mon', 32);
/** A marketplace listing id. */
export const listingId = prefixedId('lst', 32);
/** A marketplace offer id. */
export const offerId = prefixedId('ofr', 32);
/** A licence id. */
export const licenceId = prefixedId('lic', 32);
/** A memorization assessment id. */
export const assessmentId = prefixedId('ma', 32);

/**
 * `s` or null.
 * @example nullable(workType) // { oneOf: [workType, { type: 'null' }] }
 */
export function nullable(s: JsonSchema): JsonSchema {
  return { oneOf: [s, { type: 'null' }] };
}

/**
 * An integer in `[minimum, maximum]`, with a description when given.
 * @example intIn(1, 16, 'Model calls in flight (default 4)')
 */
export function intIn(minimum: number, maximum: number, description?: string): JsonSchema {
  return { type: 'integer', minimum, maximum, ...(description ? { description } : {}) };
}

/** Page size of the listing queries. */
export const pageLimit = { type: 'integer', minimum: 1, maximum: 1000 } as const;
/** `next` of a cursor page: the id to pass as `after`, or null on the last page. */
export const nextCursor = {
  type: ['string', 'null'],
  description: 'Pass as `after` for the next page; null on the last page',
} as const;

export const declarations = {
  type: 'object',
  additionalProperties: false,
  properties: { tdm_opt_out: bool, since: { type: 'string', description: 'ISO 8601 date' } },
} as const;

/**
 * An object schema: every listed property required unless named in `optional`; no other members.
 * @example object({ id: str, note: str }, ['note'])
 */
export function object(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

/**
 * An object schema whose members are all optional (a query, a patch, a request of alternatives); no other members.
 * @example partialObject({ after: workId, limit: pageLimit }) // object({ after: workId, limit: pageLimit }, ['after', 'limit'])
 */
export function partialObject(properties: Record<string, JsonSchema>): JsonSchema {
  return object(properties, Object.keys(properties));
}

/**
 * A success body: `success: true` and the fields.
 * @example ok({ valid: bool }) // { success: true, valid: boolean }
 */
export function ok(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return object({ success: { const: true }, ...properties }, optional);
}

/**
 * A success body holding one list: `{ success: true, <name>: [items] }`.
 * @example listOf('monitors', MONITOR_SCHEMA)
 */
export function listOf(name: string, items: JsonSchema): JsonSchema {
  return ok({ [name]: { type: 'array', items } });
}

/**
 * The three schemas of a resource: one item (`object`), the success body holding one (`ok`), and the success body
 * listing them under `listName` (`listOf`, or `page` for a cursor page). `optional` as `object` takes it.
 * @example export const [OFFER_SCHEMA, OFFER_RESPONSE_SCHEMA, OFFER_LIST_SCHEMA] = resourceSchemas(OFFER_PROPS, 'offers', page)
 */
export function resourceSchemas(
  properties: Record<string, JsonSchema>,
  listName: string,
  list: (name: string, items: JsonSchema) => JsonSchema = listOf,
  optional: readonly string[] = [],
): readonly [item: JsonSchema, response: JsonSchema, list: JsonSchema] {
  const item = object(properties, optional);
  return [item, ok(properties, optional), list(listName, item)];
}

/**
 * A success body holding one cursor page: `{ success: true, <name>: [items], next }`.
 * @example page('works', WORK_SCHEMA)
 */
export function page(name: string, items: JsonSchema): JsonSchema {
  return ok({ [name]: { type: 'array', items }, next: nextCursor });
}
