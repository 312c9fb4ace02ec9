/**
 * A JSON Schema as the one definition of a request: {@link FromSchema} derives its TypeScript type and
 * {@link checkSchema} checks a value against it at run time, with INVALID_INPUT naming the field. The subset is what
 * request schemas here use (object, string, boolean, number, integer, array, null and a list of these; enum, const,
 * oneOf, required, additionalProperties: false, minProperties, minLength, maxLength, pattern, minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum, items, minItems, maxItems, uniqueItems). An operation's request is read through its {@link RequestContract}: its
 * schema, then its `rules`, in one call ({@link readThrough}). The HTTP adapter validates its bodies with a full
 * validator instead and says so ({@link markSchemaChecked}), so that a request is validated once on its way in.
 */
import { TrainprintError } from '../errors.js';
import type { JsonSchema } from './json-schema.js';

/** The part of JSON Schema {@link checkSchema} understands. */
export interface SchemaNode {
  /** One type, or a list of which the value takes one (`['string', 'null']`). */
  readonly type?: SchemaType | readonly SchemaType[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly minProperties?: number;
  readonly items?: SchemaNode;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** The pattern in words, as the HTTP adapter says it too: "must be <hint>". */
  readonly 'x-pattern-hint'?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  /** Forms of which the value must match exactly one (a probe's reference: a set, or texts). */
  readonly oneOf?: readonly SchemaNode[];
}

/** The JSON types a schema names. */
type SchemaType = 'object' | 'string' | 'boolean' | 'number' | 'integer' | 'array' | 'null';

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ObjectOf<P, R> = Simplify<
  { readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]> } & {
    readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]>;
  }
>;

/**
 * The TypeScript type of values a schema (declared `as const`) accepts.
 * @example type Req = FromSchema<typeof ANALYZE_REQUEST_SCHEMA> // { readonly content: string; … }
 */
export type FromSchema<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly type: readonly (infer T)[] }
      ? OneOfTypes<T>
      : S extends { readonly type: 'null' }
        ? null
        : S extends { readonly type: 'string' }
          ? string
          : S extends { readonly type: 'boolean' }
            ? boolean
            : S extends { readonly type: 'number' | 'integer' }
              ? number
              : S extends { readonly type: 'array'; readonly items: infer I }
                ? readonly FromSchema<I>[]
                : S extends { readonly type: 'object'; readonly properties: infer P }
                  ? ObjectOf<P, S extends { readonly required: readonly (infer R)[] } ? R : never>
                  : unknown;

/** The values of each type of a list (`['integer', 'null']`: number | null). */
type OneOfTypes<T> = T extends unknown ? FromSchema<{ readonly type: T }> : never;

/** Values a full JSON Schema validator accepted, each with the schema object it checked them against. */
const CHECKED = new WeakMap<object, object>();

/**
 * Record that a full JSON Schema validator (the HTTP adapter's) accepted `value` against `schema`, so that the
 * operation taking it skips its own check of the same schema ({@link schemaChecked}). Only for a value nothing else
 * holds or changes afterwards (a body just parsed); a file's bytes stand for its base64 form, as the library takes them.
 * @example markSchemaChecked(ANALYZE_REQUEST_SCHEMA, body) // then schemaChecked(ANALYZE_REQUEST_SCHEMA, body) === true
 */
export function markSchemaChecked(schema: object, value: unknown): void {
  if (value !== null && typeof value === 'object') CHECKED.set(value, schema);
}

/**
 * Whether {@link markSchemaChecked} recorded `value` as accepted against this very schema object.
 * @example schemaChecked(ANALYZE_REQUEST_SCHEMA, { content: 'x' }) // false: nothing checked it
 */
export function schemaChecked(schema: object, value: unknown): boolean {
  return value !== null && typeof value === 'object' && CHECKED.get(value) === schema;
}

/**
 * A request's rule broken: INVALID_INPUT (HTTP 422) naming the field, as a schema's failure does (its `cause` as the
 * HTTP adapter's: a job item's error names `items[i].<field>`). A description of the whole value ('the request')
 * names no field: its `cause` has the reason alone, as the HTTP adapter's `details` of a body refused whole.
 * @example invalidField('works[3].id', '"a.txt" is repeated') // throws "works[3].id: \"a.txt\" is repeated"
 */
export function invalidField(field: string, reason: string): never {
  throw refusal(field, reason);
}
const refusal = (field: string, reason: string): TrainprintError =>
  new TrainprintError('INVALID_INPUT', `${field}: ${reason}`, {
    cause: /\s/.test(field) ? { reason } : { field, reason },
  });

/**
 * `run`'s refusals naming a field of the value at `field` (`work`): `title` becomes `work.title`, as the value's own
 * schema names it where a request holds it ({@link within}).
 * @example await fieldsWithin('work', () => registerWork(request.work)) // INVALID_INPUT "work.content: is blank"
 */
export async function fieldsWithin<T>(field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw within(field, e);
  }
}

/**
 * A refusal of a value (its `cause` a field and a reason, of any code) as the request holding it at `field` says it:
 * `title` becomes `work.title`, a refusal of the whole value names `work` itself; any other error as it is.
 * @example within('items[3]', refusalOf('text: must be a string')) // "items[3].text: must be a string"
 */
export function within(field: string, e: unknown): unknown {
  const c = e instanceof TrainprintError ? (e.cause as SchemaRefusal) : undefined;
  if (typeof c?.reason !== 'string' || !(c.field === undefined || typeof c.field === 'string')) return e;
  const at = c.field === undefined ? field : `${field}.${c.field}`;
  return new TrainprintError((e as TrainprintError).code, `${at}: ${c.reason}`, {
    cause: { field: at, reason: c.reason },
  });
}
type SchemaRefusal = { readonly field?: unknown; readonly reason?: unknown } | undefined;
/**
 * The rule no schema here says: exactly one of `names` given. None is INVALID_INPUT naming the first (the usual one),
 * several name the second given.
 * @example exactlyOne({ work_hash, content }, ['work_hash', 'content']) // content: give only one of work_hash, content
 */
export function exactlyOne(request: object, names: readonly string[]): void {
  const given = names.filter((n) => (request as Record<string, unknown>)[n] !== undefined);
  if (given.length === 1) return;
  const field = given.length === 0 ? names[0] : given[1];
  const others = names.filter((n) => n !== field).join(' or ');
  invalidField(field, given.length === 0 ? `is required (or give ${others})` : `give only one of ${names.join(', ')}`);
}
/**
 * How a schema's refusal is said, the same by {@link checkSchema} and the HTTP adapter's validator ("<field>: <words>"),
 * by the keyword that refuses: a bound broken (followed by the bound: "must be ≥ 1"), a value of another type (by the
 * type wanted: "must be a string"; a choice of types followed by them), a value an `enum` or `const` does not take
 * (followed by what it takes), a pattern not matched (followed by its hint or itself), a member missing, a member no
 * schema names (`false`: the schema that `additionalProperties: false` gives it), an item given twice, a value of
 * none or several of a `oneOf`'s forms. {@link schemaRefusal} joins the words to what the keyword names.
 * @example SCHEMA_WORDS.maximum // 'must be ≤'
 */
export const SCHEMA_WORDS: Readonly<Record<string, string>> = {
  minLength: 'must have at least this many characters:',
  maxLength: 'must have at most this many characters:',
  minItems: 'must have at least this many items:',
  maxItems: 'must have at most this many items:',
  minimum: 'must be ≥',
  maximum: 'must be ≤',
  exclusiveMinimum: 'must be >',
  exclusiveMaximum: 'must be <',
  minProperties: 'must have at least this many members:',
  maxProperties: 'must have at most this many members:',
  string: 'must be a string',
  boolean: 'must be true or false',
  number: 'must be a number',
  integer: 'must be an integer',
  object: 'must be an object',
  array: 'must be an array',
  null: 'must be null',
  required: 'is required',
  false: 'is not a known field',
  uniqueItems: 'must not repeat an item',
  oneOf: 'must match exactly one of its forms',
  type: 'must be of type',
  enum: 'must be one of',
  const: 'must be',
  pattern: 'must match',
  'x-pattern-hint': 'must be',
};
const show = (v: unknown): string => JSON.stringify(v);

/**
 * The words of a refusal by `keyword` of the schema node `s` that holds it, the same from {@link checkSchema} and the
 * HTTP adapter's validator: {@link SCHEMA_WORDS}' words, followed by what the keyword names (a bound, the values an
 * enum takes, a const, a choice of types); a pattern in the words its `x-pattern-hint` gives, else as written.
 * @example schemaRefusal('enum', { enum: ['completions', 'chat'] }) // 'must be one of "completions", "chat"'
 */
export function schemaRefusal(keyword: string, s: SchemaNode): string {
  const words = SCHEMA_WORDS[keyword];
  switch (keyword) {
    case 'type':
      return Array.isArray(s.type) ? `${words} ${s.type.join(' or ')}` : SCHEMA_WORDS[String(s.type)];
    case 'enum':
      return `${words} ${(s.enum ?? []).map(show).join(', ')}`;
    case 'const':
      return `${words} ${show(s.const)}`;
    case 'pattern':
      return s['x-pattern-hint'] ? `${SCHEMA_WORDS['x-pattern-hint']} ${s['x-pattern-hint']}` : `${words} ${s.pattern}`;
  }
  const bound = (s as Readonly<Record<string, unknown>>)[keyword];
  return typeof bound === 'number' ? `${words} ${bound}` : words;
}

/**
 * Check `value` against `schema`; throws INVALID_INPUT naming the first offending field (`where`
 * names the value itself, e.g. 'the request'). Returns the checked copy made by {@link readRequest}:
 * use it, not `value`, so the operation sees exactly what was checked.
 * @example checkSchema(ANALYZE_REQUEST_SCHEMA, { content: 'x' }, 'the request') // INVALID_INPUT: content_type is required …
 */
export function checkSchema<S extends SchemaNode>(schema: S, value: unknown, where: string): FromSchema<S> {
  const copy = readRequest(value, where);
  try {
    walk(schema, copy, '', where);
  } catch (cause) {
    // a value left as it was (not a plain object or array) may still throw when read
    if (cause instanceof TrainprintError) throw cause;
    throw unreadable(where, cause);
  }
  return copy as FromSchema<S>;
}

/** Deepest nesting {@link readRequest} copies (a cyclic request would otherwise never end). */
const MAX_REQUEST_DEPTH = 64;

/**
 * A request read once into a plain copy: plain objects (own enumerable string keys) and arrays are
 * copied, deeply; everything else (strings, numbers, functions, class instances such as Uint8Array)
 * is kept as it is. A getter or proxy trap that throws becomes INVALID_INPUT naming the field rather
 * than escaping as a raw error, and checks and operation then read the same values: a getter runs
 * once, so it cannot answer the check one thing and the operation another.
 * @throws INVALID_INPUT for a field that cannot be read, or nesting deeper than 64 levels (or a cycle).
 * @example
 * readRequest({ content: 'x', metadata: { title: 'T' } }, 'the request') // an equal, separate object
 * readRequest({ get metadata() { throw new Error('boom') } }, 'the request')
 * // throws TrainprintError INVALID_INPUT: metadata could not be read (boom)
 */
export function readRequest(value: unknown, where: string): unknown {
  // a field-like name ('webhook', 'options') prefixes its members as elsewhere ('webhook.url'); a
  // description ('the request') does not: its members are named bare ('content_type'), as checkSchema does
  return copyValue(value, /\s/.test(where) ? '' : where, where, 0);
}

function unreadable(name: string, cause: unknown): TrainprintError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new TrainprintError('INVALID_INPUT', `${name} could not be read (${why})`, { cause });
}

function copyValue(v: unknown, path: string, where: string, depth: number): unknown {
  if (v === null || typeof v !== 'object') return v;
  const name = path || where;
  let array: boolean;
  let plain: boolean;
  try {
    array = Array.isArray(v); // throws for a revoked proxy
    const proto: unknown = array ? null : Object.getPrototypeOf(v);
    plain = array || proto === Object.prototype || proto === null;
  } catch (cause) {
    throw unreadable(name, cause);
  }
  if (!plain) return v;
  if (depth >= MAX_REQUEST_DEPTH) invalidField(name, `nests deeper than ${MAX_REQUEST_DEPTH} levels (or is cyclic)`);
  const read = (k: string | number, at: string): unknown => {
    let x: unknown;
    try {
      x = (v as Record<string | number, unknown>)[k];
    } catch (cause) {
      throw unreadable(at, cause);
    }
    return copyValue(x, at, where, depth + 1);
  };
  let keys: string[];
  let length = 0;
  try {
    keys = array ? [] : Object.keys(v);
    if (array) length = (v as unknown[]).length;
  } catch (cause) {
    throw unreadable(name, cause);
  }
  if (array) return Array.from({ length }, (_, i) => read(i, `${name}[${i}]`));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const x = read(k, path ? `${path}.${k}` : k);
    // a JSON-parsed "__proto__" member is data: define it, never assign (that would set the prototype)
    if (k === '__proto__') {
      Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    } else out[k] = x;
  }
  return out;
}

// A string's length in JSON Schema is its number of characters, i.e. code points (JSON Schema Validation
// 2020-12 §6.3.1, RFC 8259 §7), not UTF-16 units: an emoji counts once, as the HTTP adapter's validator counts it.
// A string has at least half as many code points as UTF-16 units and at most as many, so most need no count.

/** Whether `v` has fewer than `n` code points. */
function codePointsBelow(v: string, n: number): boolean {
  return v.length < n || (v.length < 2 * n && codePoints(v) < n);
}

/** Whether `v` has more than `n` code points. */
function codePointsAbove(v: string, n: number): boolean {
  return v.length > 2 * n || (v.length > n && codePoints(v) > n);
}

function codePoints(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++, n++) {
    const c = v.charCodeAt(i);
    // a high surrogate followed by a low one is one code point; a lone surrogate counts as one
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** Whether `v` matches the schema `s` (a refusal is an answer; anything else thrown is not). */
function fits(s: SchemaNode, v: unknown, path: string, where: string): boolean {
  try {
    walk(s, v, path, where);
    return true;
  } catch (e) {
    if (e instanceof TrainprintError) return false;
    throw e;
  }
}

function walk(s: SchemaNode, v: unknown, path: string, where: string): void {
  const name = path || where;
  const refuse: (keyword: string) => never = (keyword) => invalidField(name, schemaRefusal(keyword, s));
  if (s.enum !== undefined && !s.enum.includes(v)) refuse('enum');
  if (s.const !== undefined && v !== s.const) refuse('const');
  if (s.oneOf && s.oneOf.filter((form) => fits(form, v, path, where)).length !== 1)
    throw oneOfRefusal(s.oneOf, v, path, where);
  // of a list of types, the one the value has (an integer is a number too: the first that fits)
  const type = Array.isArray(s.type) ? (s.type.find((t) => hasType(t, v)) ?? refuse('type')) : s.type;
  switch (type) {
    case 'null':
      if (v !== null) refuse('type');
      return;
    case 'string': {
      if (typeof v !== 'string') refuse('type');
      if (s.minLength !== undefined && codePointsBelow(v, s.minLength)) refuse('minLength');
      if (s.maxLength !== undefined && codePointsAbove(v, s.maxLength)) refuse('maxLength');
      if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) refuse('pattern');
      return;
    }
    case 'boolean':
      if (typeof v !== 'boolean') refuse('type');
      return;
    case 'number':
    case 'integer': {
      if (typeof v !== 'number' || !Number.isFinite(v) || (s.type === 'integer' && !Number.isInteger(v)))
        refuse('type');
      if (s.minimum !== undefined && v < s.minimum) refuse('minimum');
      if (s.maximum !== undefined && v > s.maximum) refuse('maximum');
      if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) refuse('exclusiveMinimum');
      if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) refuse('exclusiveMaximum');
      return;
    }
    case 'array':
      if (!Array.isArray(v)) refuse('type');
      if (s.minItems !== undefined && v.length < s.minItems) refuse('minItems');
      if (s.maxItems !== undefined && v.length > s.maxItems) refuse('maxItems');
      if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size < v.length) refuse('uniqueItems');
      if (s.items)
        v.forEach((x, i) => {
          walk(s.items!, x, `${name}[${i}]`, where);
        });
      return;
    case 'object': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse('type');
      const o = v as Record<string, unknown>;
      const props = s.properties ?? {};
      const allowed = Object.keys(props);
      const at = (k: string): string => (path ? `${path}.${k}` : k);
      if (s.minProperties !== undefined && Object.keys(o).length < s.minProperties) refuse('minProperties');
      if (s.additionalProperties === false)
        for (const k of Object.keys(o)) if (!allowed.includes(k)) invalidField(at(k), SCHEMA_WORDS.false);
      for (const k of s.required ?? []) if (o[k] === undefined) invalidField(at(k), SCHEMA_WORDS.required);
      for (const k of allowed) if (o[k] !== undefined) walk(props[k], o[k], at(k), where);
      return;
    }
  }
}

/**
 * Why `v` matches not exactly one of a `oneOf`'s forms, the same at both doors: one it fits none of is refused by the
 * form meant (taking its type, then knowing most of its members; the first of equals), naming the field within.
 * @example oneOfRefusal(reference.oneOf, { texts: 'x' }, 'reference', '') // "reference.texts: must be an array"
 */
export function oneOfRefusal(forms: readonly SchemaNode[], v: unknown, path: string, where: string): TrainprintError {
  const score = (f: SchemaNode) =>
    (typeof f.type === 'string' && f.type !== jsonType(v) && !(f.type === 'integer' && typeof v === 'number')
      ? 0
      : 1e6) + (jsonType(v) === 'object' ? Object.keys(v as object).filter((k) => f.properties?.[k]).length : 0);
  const meant = forms.reduce((a, b) => (score(b) > score(a) ? b : a));
  if (!forms.some((f) => fits(f, v, path, where)))
    try {
      walk(meant, v, path, where);
    } catch (e) {
      if (e instanceof TrainprintError) return e;
    }
  return refusal(path || where, SCHEMA_WORDS.oneOf);
}
const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** Whether `v` is of the JSON type `t` (an integer: a number without a fraction). */
const hasType = (t: string, v: unknown): boolean =>
  t === 'integer' ? Number.isInteger(v) : t === 'number' ? Number.isFinite(v) : jsonType(v) === t;

/**
 * One operation's request, written once: the JSON Schema of what every door takes (the library, an HTTP route, a job
 * item) and the named `rules` for what a schema cannot say (exactly one of two fields, distinct ids, a plan's caps),
 * each throwing INVALID_INPUT naming the field (or the status its kind has: 413 for a plan's cap). `served` is the
 * schema the HTTP API serves and a job item takes: `schema` itself, or `schema` tightened by the server's caps where a
 * server allows less than the library (written once, beside the caps).
 * @example const AUDIT_REQUEST: RequestContract<AuditRequestJson, AuditContext> = { operation: 'audit', schema, rules }
 */
export interface RequestContract<R, C = undefined> {
  readonly operation: string;
  readonly schema: JsonSchema;
  readonly served: JsonSchema;
  readonly rules: (request: R, context: C) => void;
}

/**
 * A {@link RequestContract} from its parts: `served` is `schema` itself unless a door serves it otherwise, and an
 * operation with nothing a schema cannot say has no rules.
 * @example const REPORT_REQUEST = contract<ReportRequest>('report', schema)
 */
export const contract = <R, C = undefined>(
  operation: string,
  schema: JsonSchema,
  rules: (request: R, context: C) => void = () => undefined,
  served: JsonSchema = schema,
): RequestContract<R, C> => ({ operation, schema, served, rules });

/**
 * The rule a schema's `minLength` cannot say: a text of more than white space, else INVALID_INPUT naming `field`.
 * @example notBlank(' ', 'output') // throws "output: is blank"
 */
export function notBlank(text: string | undefined, field: string): void {
  if (text?.trim() === '') invalidField(field, 'is blank');
}

/**
 * A request read through its contract, the one stop of its validation: checked against its schema (unless the HTTP
 * adapter's validator did so, {@link markSchemaChecked}), then by its rules; returns the checked copy.
 * @throws INVALID_INPUT naming the field; what the rules throw
 * @example const request = readThrough(AUDIT_REQUEST, value, { jobItems: 100 }) // works, budget_calls …
 */
export function readThrough<R, C>(contract: RequestContract<R, C>, value: unknown, context: C): R {
  const { schema, served } = contract;
  const checked = schemaChecked(schema, value) || schemaChecked(served, value);
  const request = (checked ? value : checkSchema(schema as SchemaNode, value, 'the request')) as R;
  contract.rules(request, context);
  return request;
}

/**
 * {@link readThrough} of a request whose `content` may be a file's bytes, the library's form of the base64 JSON
 * carries: the schema checks the rest (the bytes stand for a string), the rules see the bytes themselves.
 * @example readThroughFile(SCORE_REQUEST, { content: pdf, content_type: 'pdf', target_model, jurisdiction }, {})
 */
export function readThroughFile<R, C>(contract: RequestContract<R, C>, value: unknown, context: C): R {
  const read = readRequest(value, 'the request') as { content?: unknown } | null;
  const bytes = read?.content instanceof Uint8Array ? read.content : undefined;
  if (!bytes) return readThrough(contract, read, context);
  const shaped = checkSchema(contract.schema as SchemaNode, { ...read, content: '-' }, 'the request') as object;
  const request = { ...shaped, content: bytes } as R;
  contract.rules(request, context);
  return request;
}
