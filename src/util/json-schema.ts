/**
 * Building blocks of JSON Schemas (2020-12) that the services' own request schemas share with the HTTP API's
 * (src/http/schemas/kit.ts re-exports them): an object shape, a bounded integer, generated ids and the work hash.
 * They carry what validation reads; the words the OpenAPI document shows of a field are the HTTP layer's
 * (src/http/docs/fields.ts), joined to these objects when the document is built.
 */

/**
 * A JSON Schema, as plain data.
 * @example const s: JsonSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** A count: an integer ≥ 0. */
export const int0 = { type: 'integer', minimum: 0 } as const;

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
 * An integer in `[minimum, maximum]`, with a description when given.
 * @example intIn(1, 16, 'Model calls in flight (default 4)')
 */
export function intIn(minimum: number, maximum: number, description?: string): JsonSchema {
  return { type: 'integer', minimum, maximum, ...(description ? { description } : {}) };
}

/**
 * Pattern of a generated id: a prefix, `_` and `hex` lowercase hex digits. The schemas and the path parameters of
 * the HTTP API take their patterns from here, so an id a response carries always fits the path that names it.
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

/** A work hash: `sha256:` and 64 lowercase hex digits. */
export const workHash = {
  type: 'string',
  pattern: '^sha256:[0-9a-f]{64}$',
  'x-pattern-hint': 'a work hash: "sha256:" then 64 lowercase hex digits (the work_hash of analyze or register)',
} as const;
/** A model of the knowledge base. */
export const modelId = {
  type: 'string',
  pattern: '^[A-Za-z0-9][\\w.-]*/[A-Za-z0-9][\\w.-]*$',
  'x-pattern-hint':
    '"provider/model_name" as the knowledge base names it (GET /api/v1/kb/models lists them), e.g. "eleutherai/pythia-6.9b"',
} as const;
/** An ISO 3166 jurisdiction. */
export const jurisdiction = {
  type: 'string',
  pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$',
  'x-pattern-hint': 'an ISO 3166 code such as "US", "DE", "EU", "US-CA" or "GB-SCT"',
} as const;

/**
 * An object schema whose members are all optional (a query, a patch, a request of alternatives); no other members.
 * @example partialObject({ after: workId, limit: pageLimit }) // object({ after: workId, limit: pageLimit }, ['after', 'limit'])
 */
export function partialObject(properties: Record<string, JsonSchema>): JsonSchema {
  return object(properties, Object.keys(properties));
}

/** Page size of the listing queries. */
export const pageLimit = { type: 'integer', minimum: 1, maximum: 1000 } as const;

/**
 * A reference dataset id as the path and monitors name it: also the ids of the shipped packs (`pack:gutenberg`). Ids an
 * account chooses have no `:`, so an account cannot take a name of that family.
 */
export const DATASET_REF_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$';

/** A work's kind. */
export const workType = { enum: ['book', 'article', 'news', 'code', 'other'] } as const;

/** What an owner declares of a work: an opt-out of text and data mining, and since when (an ISO 8601 date). */
export const declarations = {
  type: 'object',
  additionalProperties: false,
  properties: { tdm_opt_out: { type: 'boolean' }, since: { type: 'string' } },
} as const;
