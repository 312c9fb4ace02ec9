/**
 * A catalogue job's submission, read through its contract ({@link JOB_REQUEST}): its items, the type that runs them
 * (named in the request, or beside it: a JSON-lines body's query) and `options` for a type that takes them. What the
 * registry's schema says of each type's items and options is checked by the submitting door against that schema; the
 * rules here say what no schema can: the type named once, a known one, and options only where its type has any.
 */
import { object } from '../../util/json-schema.js';
import { contract, invalidField, schemaRefusal } from '../../util/schema-check.js';
import { MAX_PLAN_JOB_ITEMS } from '../accounts/plans.js';
import type { JobTypeRegistry } from './registry.js';

/**
 * A submission: `type` may be named beside it instead ({@link JobRequestContext}).
 * @example const request: JobRequest = { type: 'scan', items: [{ id: 'a', text: '…' }], options: { min_words: 10 } }
 */
export interface JobRequest {
  readonly type?: string;
  readonly items: readonly unknown[];
  readonly options?: Readonly<Record<string, unknown>>;
}

/** What a submission is read against: the types the host runs, and a type named beside the request. */
export interface JobRequestContext {
  readonly registry: JobTypeRegistry;
  /** The type named outside the request (the query of a JSON-lines body, whose lines are the items). */
  readonly namedType?: string;
}

/**
 * The shape of every submission, whatever the registry: at most {@link MAX_PLAN_JOB_ITEMS} items (a plan holds
 * fewer); the HTTP schema adds each type's item and options schemas (src/http/schemas/jobs.ts).
 */
export const JOB_REQUEST_SHAPE = object(
  {
    type: { type: 'string' },
    items: { type: 'array', minItems: 1, maxItems: MAX_PLAN_JOB_ITEMS, items: { type: 'object' } },
    options: { type: 'object' },
  },
  ['type', 'options'],
);

/**
 * The type named once (in the request or beside it, the same if both), a type of the registry, and `options` only for
 * a type that takes them.
 * @throws INVALID_INPUT naming `type` or `options`
 */
function jobRequestRules(request: JobRequest, { registry, namedType }: JobRequestContext): void {
  const name = request.type ?? namedType;
  if (name === undefined) invalidField('type', 'is required (in the body, or as ?type= for JSON lines)');
  if (request.type !== undefined && namedType !== undefined && request.type !== namedType)
    invalidField('type', 'the body and the query name different types');
  const type = registry.get(name);
  if (!type) invalidField('type', schemaRefusal('enum', { enum: [...registry.keys()] }));
  if (request.options !== undefined && !type.optionsSchema) {
    const takers = [...registry.values()].filter((t) => t.optionsSchema).map((t) => t.name);
    invalidField('options', `only a ${takers.join(' or ')} job takes options`);
  }
}

/**
 * A catalogue job's submission, written once: its shape ({@link JOB_REQUEST_SHAPE}) and its rules, which every door
 * that submits a job reads it through (`POST /api/v1/jobs`, whose validator checks the registry's schema first); once
 * they hold, `registry.get(request.type ?? namedType)` is the type.
 * @example JOB_REQUEST.rules({ items: [{ text: 'x' }] }, { registry: BUILT_IN_JOB_TYPES }) // INVALID_INPUT: type: is required …
 */
export const JOB_REQUEST = contract<JobRequest, JobRequestContext>('createJob', JOB_REQUEST_SHAPE, jobRequestRules);
