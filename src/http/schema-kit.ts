/**
 * Building blocks of the HTTP API's JSON Schemas (src/http/schemas.ts and the marketplace and
 * memorization schemas): small shared fragments and the two object shapes every schema uses.
 */
import type { JsonSchema } from './context.js';

export const str = { type: 'string' } as const;
export const strOrNull = { type: ['string', 'null'] } as const;
export const int0 = { type: 'integer', minimum: 0 } as const;
export const num = { type: 'number' } as const;
export const num01 = { type: 'number', minimum: 0, maximum: 1 } as const;
export const bool = { type: 'boolean' } as const;
export const strings = { type: 'array', items: str } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const code = { type: 'string', pattern: '^[a-z][a-z0-9_]*$' } as const;
export const codes = { type: 'array', items: code } as const;
export const pair = (item: JsonSchema) => ({ type: 'array', items: item, minItems: 2, maxItems: 2 }) as const;
export const workHash = { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' } as const;
export const modelId = { type: 'string', pattern: '^[A-Za-z0-9][\\w.-]*/[A-Za-z0-9][\\w.-]*$', description: '`provider/model_name` of the knowledge base' } as const;
export const jurisdiction = { type: 'string', pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$', description: 'ISO 3166: `US`, `DE`, `EU`, `US-CA`, `GB-SCT`' } as const;
export const workType = { enum: ['book', 'article', 'news', 'code', 'other'] } as const;
export const contentType = { enum: ['text', 'markdown', 'html'] } as const;
export const tier = { enum: ['confirmed', 'strong', 'moderate', 'weak', 'inconclusive'] } as const;
export const riskLevel = { enum: ['none', 'low', 'medium', 'high', 'critical'] } as const;
export const declarations = {
  type: 'object', additionalProperties: false,
  properties: { tdm_opt_out: bool, since: { type: 'string', description: 'ISO 8601 date' } },
} as const;

/**
 * An object schema: every listed property required unless named in `optional`; no other members.
 * @example object({ id: str, note: str }, ['note'])
 */
export function object(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

/**
 * A success body: `success: true` and the fields.
 * @example ok({ valid: bool }) // { success: true, valid: boolean }
 */
export function ok(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return object({ success: { const: true }, ...properties }, optional);
}

