/**
 * A catalogue job's submission ({@link JOB_REQUEST}): its items, their type (named in it, or beside it) and `options`.
 * A door checks items and options against the registry's schema; the rules say what no schema can.
 */
import { TrainprintError } from '../../errors.js';
import { object } from '../../util/json-schema.js';
import { checkSchema, contract, invalidField, type SchemaNode, schemaRefusal } from '../../util/schema-check.js';
import { MAX_PLAN_JOB_ITEMS } from '../accounts/plans.js';

/** A job type's name, and the words of its refusal (`defineJobType` takes these too). */
export const JOB_TYPE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
export const JOB_TYPE_NAME_WORDS = 'is 1-64 lowercase letters, digits, _ or -, starting with a letter';

/**
 * What the rules read of a registry (a `JobTypeRegistry` is one): written here, so that the job store, which reads a
 * submission through these rules, does not import the registry's types.
 */
type TypeNames = ReadonlyMap<
  string,
  { readonly name: string; readonly itemSchema: object; readonly optionsSchema?: unknown }
>;

/** A submission; `namedType` is a type named beside it (a JSON-lines body's `?type=`). @example { type: 'scan', items } */
export type JobRequest = {
  readonly type?: string;
  readonly items: readonly unknown[];
  readonly options?: Readonly<Record<string, unknown>>;
};
/**
 * The types a host runs, the type named beside the request, and the plan whose `jobItems` a job holds at most.
 * Without a registry (the job store's own door, `JobService`, which takes a host's types and leaves one it does not
 * run to its runner), a type's name as `defineJobType` takes it. @example { registry: BUILT_IN_JOB_TYPES }
 */
export type JobRequestContext = {
  readonly registry?: TypeNames;
  readonly namedType?: string;
  readonly plan?: { readonly name: string; readonly jobItems: number };
};

// an item is what its type's schema says (an object, for every type the HTTP API runs); the job store takes any
const ITEMS = { type: 'array', minItems: 1, maxItems: MAX_PLAN_JOB_ITEMS } as const;
/** Every submission's shape, whatever the registry (a plan holds fewer items); the HTTP schema adds each type's. */
export const JOB_REQUEST_SHAPE = object({ type: { type: 'string' }, items: ITEMS, options: { type: 'object' } }, [
  'type',
  'options',
]);

/**
 * The type named once (or the same twice), one of the registry's (without one, a type's name), `options` only for a
 * type that takes them, at most the plan's `jobItems` items (413), and the items of a request whose type is named
 * beside it (JSON lines' `?type=`) each of its type's schema: the request's own schema reaches them only by `type`.
 */
function jobRequestRules(request: JobRequest, { registry, namedType, plan }: JobRequestContext): void {
  const name = request.type ?? namedType;
  if (name === undefined) invalidField('type', 'is required (in the body, or as ?type= for JSON lines)');
  if (request.type !== undefined && namedType !== undefined && request.type !== namedType)
    invalidField('type', 'the body and the query name different types');
  if (!registry) {
    if (!JOB_TYPE_NAME.test(name)) invalidField('type', JOB_TYPE_NAME_WORDS);
    return;
  }
  const type = registry.get(name);
  if (!type) invalidField('type', schemaRefusal('enum', { enum: [...registry.keys()] }));
  if (request.options !== undefined && !type.optionsSchema) {
    const takers = [...registry.values()].filter((t) => t.optionsSchema).map((t) => t.name);
    invalidField('options', `only a ${takers.join(' or ')} job takes options`);
  }
  const n = request.items.length;
  if (plan && n > plan.jobItems) {
    const cap = `a job on plan "${plan.name}" holds at most ${plan.jobItems} items (jobItems)`;
    throw new TrainprintError('PAYLOAD_TOO_LARGE', `${cap}; this one has ${n}`);
  }
  if (request.type === undefined) for (const [i, item] of request.items.entries()) checkItem(type.itemSchema, item, i);
}

/** A 422 naming `items[i].field` (without a field, `items[i]`). */
export function itemError(i: number, field: string | undefined, reason: string): TrainprintError {
  const f = field === undefined ? `items[${i}]` : `items[${i}].${field}`;
  return new TrainprintError('INVALID_INPUT', `${f}: ${reason}`, { cause: { location: 'body', field: f, reason } });
}

/** An item against its type's schema: INVALID_INPUT naming `items[i]` or `items[i].field`, as a JSON body's says it. */
function checkItem(schema: object, item: unknown, i: number): void {
  try {
    checkSchema(schema as SchemaNode, item, 'the item');
  } catch (e) {
    const c = e instanceof TrainprintError ? (e.cause as { field?: string; reason?: string }) : undefined;
    if (c?.reason === undefined) throw e;
    throw itemError(i, c.field, c.reason);
  }
}

/**
 * A catalogue job's submission, written once; `POST /api/v1/jobs` reads it through these rules after its validator
 * checked the registry's schema. Once they hold, `registry.get(request.type ?? namedType)` is the type.
 * @example JOB_REQUEST.rules({ items }, { registry: BUILT_IN_JOB_TYPES }) // INVALID_INPUT: type: is required …
 */
export const JOB_REQUEST = contract<JobRequest, JobRequestContext>('createJob', JOB_REQUEST_SHAPE, jobRequestRules);
