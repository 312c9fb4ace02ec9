/**
 * Building blocks of the HTTP API's JSON Schemas (the route groups' modules beside this one):
 * small shared fragments, the id formats (shared with the path parameters of
 * src/http/routes/index.ts), the object shapes every schema uses, lists and cursor pages.
 */
import type { JsonSchema } from '../context.js';
import { object, prefixedId } from '../../library.js';

// the fragments the services' request schemas share (src/util/json-schema.ts)
export {
  declarations,
  idPattern,
  int0,
  intIn,
  jurisdiction,
  modelId,
  object,
  pageLimit,
  partialObject,
  prefixedId,
  workHash,
  workId,
  workType,
} from '../../library.js';

export const str = { type: 'string' } as const;
export const strOrNull = { type: ['string', 'null'] } as const;
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
export const contentType = { enum: ['text', 'markdown', 'html'] } as const;
export const tier = { enum: ['confirmed', 'strong', 'moderate', 'weak', 'inconclusive'] } as const;
export const riskLevel = { enum: ['none', 'low', 'medium', 'high', 'critical'] } as const;

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

/** `next` of a cursor page: the id to pass as `after`, or null on the last page. */
export const nextCursor = {
  type: ['string', 'null'],
  description: 'Pass as `after` for the next page; null on the last page',
} as const;

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
