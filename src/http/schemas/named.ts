/**
 * Component names of every schema of the API: each of these objects becomes
 * `#/components/schemas/<name>` in the OpenAPI document (src/http/openapi.ts), and every place
 * that uses the same object a `$ref` to it. Kept apart from the schema modules so that the
 * marketplace and memorization schemas can build on the core ones without an import cycle.
 */
import type { JsonSchema } from '../context.js';
import { MARKETPLACE_SCHEMA_NAMES } from './marketplace.js';
import { MEMORIZATION_SCHEMA_NAMES } from './memorization.js';
import { CORE_SCHEMA_NAMES } from './index.js';

/**
 * Every named schema.
 * @example new Validator(NAMED_SCHEMAS.ScoreResult).validate(await res.json()).valid
 */
export const NAMED_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...CORE_SCHEMA_NAMES,
  ...MARKETPLACE_SCHEMA_NAMES,
  ...MEMORIZATION_SCHEMA_NAMES,
};
