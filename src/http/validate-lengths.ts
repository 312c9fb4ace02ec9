/**
 * A cheaper way past a schema's `minLength`/`maxLength` for a value that meets them. The validator counts every
 * string's code points for them, a character at a time — for a text field of a body just under 1 MiB, much of the
 * check's time. A string of at most `maxLength` UTF-16 units has at most that many code points (a code point is one
 * or two units), and one of at least twice `minLength` units has at least that many, so neither needs a count.
 *
 * Used only where it cannot change an answer: the lengths are taken out of a copy of the schema, and the copy's
 * validity and these bounds together equal the schema's only when no length keyword sits where the validity of a
 * part decides another's (under `anyOf`, `oneOf`, `not`, `if`, `$ref` and the like); else {@link lengthPlan} gives
 * `undefined` and the schema is checked as it is. A value the pre-check cannot pass is checked by the whole schema,
 * so a refusal and its sentence are the validator's own.
 */
import type { JsonSchema } from './context.js';

/** Keywords whose subschemas' validity decides something beyond their own location. */
const ENTANGLING = [
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$ref',
  '$dynamicRef',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  '$defs',
  'definitions',
] as const;

/** A schema without its length keywords, and the check of the lengths it had. */
export interface LengthPlan {
  readonly stripped: JsonSchema;
  /** True when every length bound in the schema holds for `value` (false: not known to, check it whole). */
  readonly lengthsHold: (value: unknown) => boolean;
}

/**
 * The plan for `schema`, or `undefined` where a length keyword sits under a keyword of {@link ENTANGLING} or
 * where the schema has none (nothing to save).
 * @example lengthPlan({ type: 'object', properties: { text: { type: 'string', maxLength: 5 } } })?.lengthsHold({ text: 'abc' }) // true
 */
export function lengthPlan(schema: JsonSchema): LengthPlan | undefined {
  if (!hasLength(schema) || entangled(schema)) return undefined;
  return { stripped: strip(schema) as JsonSchema, lengthsHold: (value) => holds(schema, value) };
}

function isSchema(node: unknown): node is Record<string, unknown> {
  return node !== null && typeof node === 'object' && !Array.isArray(node);
}

function hasLength(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasLength);
  if (!isSchema(node)) return false;
  if ('minLength' in node || 'maxLength' in node) return true;
  return Object.values(node).some(hasLength);
}

function entangled(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(entangled);
  if (!isSchema(node)) return false;
  for (const k of ENTANGLING) if (k in node && hasLength(node[k])) return true;
  // a reference's target is elsewhere in the schema, and old-style tuple `items` is a list: not walked, so not planned
  if ('$ref' in node || '$dynamicRef' in node || Array.isArray(node.items)) return true;
  return Object.values(node).some(entangled);
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (!isSchema(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'minLength' && k !== 'maxLength') out[k] = strip(v);
  return out;
}

/** Code points of `s`, as the validator counts them (a lone surrogate is one). */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/** The length bounds of `schema` and of the subschemas that apply to `value`'s parts (properties, items). */
function holds(schema: unknown, value: unknown): boolean {
  if (!isSchema(schema)) return true;
  if (typeof value === 'string') {
    const { minLength: min, maxLength: max } = schema;
    // the count only where UTF-16 units cannot settle it: more units than max, or fewer than twice min
    if (typeof max === 'number' && value.length > max) return false;
    if (typeof min === 'number' && value.length < 2 * min && codePoints(value) < min) return false;
    return true;
  }
  if (Array.isArray(value)) {
    const { prefixItems, items } = schema;
    const prefix = Array.isArray(prefixItems) ? prefixItems : [];
    for (let i = 0; i < value.length; i++) if (!holds(i < prefix.length ? prefix[i] : items, value[i])) return false;
    return true;
  }
  if (isSchema(value)) {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    for (const key of Object.keys(value)) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
      if (!holds(sub, value[key])) return false;
    }
  }
  return true;
}
