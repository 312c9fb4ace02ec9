/**
 * Request validation with @cfworker/json-schema: it interprets schemas instead of compiling them
 * to code, so it runs where `eval` and `new Function` are forbidden (Cloudflare Workers, pages with
 * a strict CSP) — Ajv's code generation does not. The same schema objects are served in the
 * OpenAPI document (src/http/openapi.ts): one source of truth.
 *
 * A failure becomes 422 `INVALID_INPUT` naming the field (`metadata.jurisdiction`,
 * `documents[2].text`) and the reason, taken from the validator's output units: in its
 * short-circuit mode the last unit is the innermost failure on the first failing path.
 */
import { Validator } from '@cfworker/json-schema';
import { oneOfRefusal, SCHEMA_WORDS, type SchemaNode, schemaRefusal, TrainprintError } from '../library.js';
import type { JsonSchema } from './context.js';
import { lengthPlan } from './validate-lengths.js';

/** Where a validated value came from (named in the error). */
export type Location = 'body' | 'query';

/**
 * A checker for `schema`: returns the value or throws INVALID_INPUT (HTTP 422) whose detail
 * names the field and whose `cause` carries `{ location, field, reason }` for the error body.
 *
 * @example
 * const check = compileValidator({ type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, 'body')
 * check({ a: 1 }) // throws: "a: must be a string"
 */
export function compileValidator(schema: JsonSchema, location: Location): (value: unknown) => unknown {
  const validator = new Validator(schema as never, '2020-12', true);
  // a value whose lengths hold for want of a count goes through the schema without its lengths (validate-lengths)
  const plan = lengthPlan(schema);
  const withoutLengths = plan && new Validator(plan.stripped as never, '2020-12', true);
  return (value) => {
    if (plan && withoutLengths && plan.lengthsHold(value) && withoutLengths.validate(value).valid) return value;
    const r = validator.validate(value);
    if (r.valid) return value;
    const { field, reason } = describe(r.errors, schema, value);
    // a body refused whole is named as the library names a request read through its contract (readThrough)
    // and names no field, as the library's refusal of a whole request names none (invalidField)
    const where = field === '' ? (location === 'body' ? 'the request' : 'the query') : field;
    const cause = field === '' ? { location, reason } : { location, field, reason };
    throw new TrainprintError('INVALID_INPUT', `${where}: ${reason}`, { cause });
  };
}

interface Unit {
  readonly keyword: string;
  readonly keywordLocation: string;
  readonly instanceLocation: string;
  readonly error: string;
}

/**
 * The innermost failure, as a dotted field path and a short reason; under a `oneOf`, the library's reading of which
 * form the value was meant for ({@link oneOfRefusal}), so that both doors name the same field.
 */
function describe(errors: readonly Unit[], schema: JsonSchema, value: unknown): { field: string; reason: string } {
  const choice = errors.find((u) => u.keyword === 'oneOf');
  if (choice) {
    const path = pointerSegments(choice.instanceLocation);
    const at = path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);
    const forms = nodeAt(schema, choice.keywordLocation) as SchemaNode[];
    const said = oneOfRefusal(forms, at, fieldName(path), '').cause as { field?: string; reason: string } | undefined;
    // a form whose keywords the library's check does not read (a type `null`) leaves it to the validator's words
    if (said && said.reason !== SCHEMA_WORDS.oneOf) return { field: said.field ?? '', reason: said.reason };
  }
  const leaf = errors[errors.length - 1];
  const path = pointerSegments(leaf.instanceLocation);
  switch (leaf.keyword) {
    case 'required':
      return { field: fieldName([...path, /"([^"]*)"/.exec(leaf.error)?.[1] ?? '?']), reason: SCHEMA_WORDS.required };
    case 'false':
    case 'uniqueItems':
    case 'oneOf':
      return { field: fieldName(path), reason: SCHEMA_WORDS[leaf.keyword] };
    default: {
      // worded as the library's own check words it, from the schema node holding the keyword (schemaRefusal)
      if (!Object.hasOwn(SCHEMA_WORDS, leaf.keyword))
        return { field: fieldName(path), reason: leaf.error.replace(/\.$/, '').toLowerCase() };
      const node = nodeAt(schema, leaf.keywordLocation.replace(/\/[^/]*$/, '')) as SchemaNode;
      return { field: fieldName(path), reason: schemaRefusal(leaf.keyword, node) };
    }
  }
}

/** `#/metadata/declarations/since` → ['metadata', 'declarations', 'since']. */
function pointerSegments(pointer: string): string[] {
  const p = pointer.replace(/^#/, '');
  if (p === '' || p === '/') return [];
  return p
    .slice(1)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** ['documents', '2', 'text'] → 'documents[2].text'. */
function fieldName(path: readonly string[]): string {
  let out = '';
  for (const s of path) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

/** The part of the schema at `location` (a pointer into the schema). */
function nodeAt(schema: JsonSchema, location: string): unknown {
  let node: unknown = schema;
  for (const s of pointerSegments(location)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[s];
  }
  return node;
}

/**
 * Query parameters as an object typed after `schema`'s properties: integers and numbers parsed
 * (when they look like numbers, else left as strings for the validator to name), booleans from
 * `true`/`false`, arrays from repeated parameters or commas. A non-array parameter given twice is
 * refused (INVALID_INPUT naming it).
 *
 * @example
 * coerceQuery(new URLSearchParams('limit=10'), { type: 'object', properties: { limit: { type: 'integer' } } }) // { limit: 10 }
 */
export function coerceQuery(params: URLSearchParams, schema: JsonSchema | undefined): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const all = params.getAll(name);
    const type = Object.hasOwn(props, name) ? props[name].type : undefined;
    // an own member whatever the name: `?__proto__=1` must reach the validator as an unknown parameter
    const set = (value: unknown) =>
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    if (type === 'array') {
      set(all.flatMap((v) => v.split(',')).filter((v) => v.length > 0));
      continue;
    }
    if (all.length > 1)
      throw new TrainprintError('INVALID_INPUT', `${name}: is given more than once`, {
        cause: { location: 'query', field: name, reason: 'is given more than once' },
      });
    const v = all[0];
    if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(v)) set(Number(v));
    else if (type === 'boolean' && (v === 'true' || v === 'false')) set(v === 'true');
    else set(v);
  }
  return out;
}
