/**
 * A request whose JSON Schema says everything about it (a listing's query, a receipt to verify): its contract has no
 * rules, and serves its schema unless a door takes only some members.
 */
import type { JsonSchema } from './json-schema.js';
import type { RequestContract } from './schema-check.js';

/**
 * The {@link RequestContract} of a request its schema says whole.
 * @example const LIST_WORKS_REQUEST = schemaOnly<{ after?: string; limit?: number }>('listWorks', LIST_WORKS_SCHEMA)
 */
export function schemaOnly<R>(operation: string, schema: JsonSchema, served = schema): RequestContract<R, undefined> {
  return { operation, schema, served, rules: noRules };
}

function noRules(): void {}
