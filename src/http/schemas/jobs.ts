/**
 * The schemas of the catalogue jobs (`/api/v1/jobs`, src/http/routes/catalogue-jobs.ts): the submission, a job's
 * status, and one line of its results.
 */
import { JOB_REQUEST_SHAPE, type JobTypeRegistry } from '../../library.js';
import type { JsonSchema } from '../context.js';
import { dateTime, dateTimeOrNull, int0, nextCursor, partialObject, prefixedId } from './kit.js';

const JOB_ID = prefixedId('job', 32);

/**
 * `POST /api/v1/jobs` for the types of `registry`: the type and the items, each item checked against its type's
 * schema (`allOf` of one `if type … then items …` per type, the type's module's own schema), a type's `options` its
 * module's. A JSON-lines body names its type in the query: its items are checked by the submission's rules
 * (`JOB_REQUEST`).
 * @example new Validator(jobRequestSchema(BUILT_IN_JOB_TYPES)).validate({ type: 'scan', items: [{ id: 'a', text: '…' }] }).valid // true
 */
export function jobRequestSchema(registry: JobTypeRegistry): JsonSchema {
  const types = [...registry.values()];
  const withOptions = types.filter((t) => t.optionsSchema !== undefined);
  return {
    title: 'JobRequest',
    type: 'object',
    required: ['items'],
    additionalProperties: false,
    properties: {
      type: {
        enum: [...registry.keys()],
        description:
          `What runs on each item: ${types.map((t) => t.summary).join(', ')}; ` +
          "`model.api_key` is held in the server's memory, never stored or echoed. " +
          'Required here or as the query parameter `type` (a JSON-lines body has only the query)',
      },
      items: {
        ...(JOB_REQUEST_SHAPE.properties as Record<string, JsonSchema>).items,
        description:
          "The items, at most the plan's `jobItems` (Free 100, Pro 10,000, Scale and Enterprise 100,000), each " +
          "of its type's schema",
      },
      ...(withOptions.length === 0
        ? {}
        : { options: withOptions.length === 1 ? withOptions[0].optionsSchema : { type: 'object' } }),
    },
    allOf: types.map((t) => ({
      if: { required: ['type'], properties: { type: { const: t.name } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, plain data never awaited
      then: {
        properties: {
          items: { items: t.itemSchema },
          ...(t.optionsSchema && withOptions.length > 1 ? { options: t.optionsSchema } : {}),
        },
      },
    })),
  };
}

/**
 * The query of `POST /api/v1/jobs` for the types of `registry`.
 * @example jobSubmitQuerySchema(BUILT_IN_JOB_TYPES) // { type: { enum: ['analyze', …] } }
 */
export function jobSubmitQuerySchema(registry: JobTypeRegistry): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: {
        enum: [...registry.keys()],
        description: 'The job type, for a JSON-lines body (a JSON body may say it instead)',
      },
    },
  };
}

const ERROR = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string' }, message: { type: 'string' } },
} as const;

const STATUS_PROPERTIES = {
  job_id: JOB_ID,
  type: { type: 'string', description: 'The job type (`type` of the submission)' },
  state: {
    enum: ['queued', 'running', 'done', 'failed', 'cancelled'],
    description:
      '`queued` (no item started), `running`, `done` (every item has its result), `failed` (this server cannot run ' +
      'the type: `error` says why), `cancelled` (`DELETE`: items not started never run)',
  },
  total: { ...int0, description: 'Items submitted' },
  done: { ...int0, description: 'Items with a result, failed ones included; never decreases' },
  failed: { ...int0, description: 'Items whose result is an error' },
  created: dateTime,
  started: { ...dateTimeOrNull, description: 'When the first chunk was claimed; null while queued' },
  finished: { ...dateTimeOrNull, description: 'When the job became done, failed or cancelled' },
  eta_seconds: {
    type: ['number', 'null'],
    minimum: 0,
    description: 'Seconds the other items take at the rate so far; null before the first result and once finished',
  },
  status_url: { type: 'string', description: 'This status (`GET`; `DELETE` cancels), relative to the API base URL' },
  results_url: { type: 'string', description: 'The results as JSON lines (`GET`), relative to the API base URL' },
  error: { ...ERROR, description: '`failed` only' },
  notice: {
    type: 'string',
    description:
      "The submission's 202 only, for items sent with `model.api_key`: the key is held in the accepting process's " +
      'memory only, so a restart before they finish fails them naming `model.api_key` (resubmit with the key)',
  },
} as const;

/** The fields every status has: all but `error` (a failed job's only) and `notice` (a submission's only). */
const STATUS_REQUIRED = Object.keys(STATUS_PROPERTIES).filter((k) => k !== 'error' && k !== 'notice');

/**
 * A success body of the job routes, named `title`: `success: true` and `properties`, of which `required` (and
 * `success`) are required; no other members.
 */
function successBody(title: string, required: readonly string[], properties: Record<string, JsonSchema>) {
  return {
    title,
    type: 'object',
    required: ['success', ...required],
    additionalProperties: false,
    properties: { success: { const: true }, ...properties },
  };
}

/**
 * The status of a job: `GET /api/v1/jobs/{job_id}`, and the 202 of its submission.
 * @example new Validator(JOB_STATUS_RESPONSE_SCHEMA).validate(await res.json()).valid // true
 */
export const JOB_STATUS_RESPONSE_SCHEMA = successBody('Job', STATUS_REQUIRED, STATUS_PROPERTIES);

/**
 * `GET /api/v1/jobs`: a page of the account's jobs, newest first.
 * @example new Validator(JOB_LIST_RESPONSE_SCHEMA).validate(await res.json()).valid // true
 */
export const JOB_LIST_RESPONSE_SCHEMA: JsonSchema = successBody('JobList', ['jobs', 'next'], {
  jobs: {
    type: 'array',
    items: {
      type: 'object',
      required: STATUS_REQUIRED,
      additionalProperties: false,
      properties: STATUS_PROPERTIES,
    },
  },
  next: nextCursor,
});

/**
 * The query of `GET /api/v1/jobs`.
 * @example { after: 'job_…', limit: 20 }
 */
export const JOB_LIST_QUERY_SCHEMA = partialObject({
  after: { ...JOB_ID, description: 'The cursor: the jobs after this one (the `next` of the page before)' },
  limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Jobs per page; default 20' },
  owner: {
    type: 'string',
    enum: ['operator'],
    description:
      "`operator`: the operator's jobs (the command line's: `trainprint scan --queue`, `worker`, `jobs`) instead of " +
      "the account's; needs the `admin` scope",
  },
});

/**
 * The answer of `DELETE /api/v1/jobs/{job_id}`: the cancelled job's status, or `deleted: true` for a finished one.
 * @example { success: true, job_id: 'job_…', deleted: true }
 */
export const JOB_DELETE_RESPONSE_SCHEMA: JsonSchema = successBody('JobDeleted', ['job_id', 'deleted'], {
  ...STATUS_PROPERTIES,
  deleted: { type: 'boolean', description: 'true: the job and its results are gone; false: the job was cancelled' },
});

/**
 * One line of `GET /api/v1/jobs/{job_id}/results` (JSON lines): an item's result or its error, by its index.
 * @example { index: 0, success: true, result: { analysis_id: 'an_…' } }
 */
export const JOB_RESULT_LINE_SCHEMA: JsonSchema = {
  title: 'JobResultLine',
  type: 'object',
  required: ['index', 'success'],
  additionalProperties: false,
  properties: {
    index: { ...int0, description: "The item's place in the submission (0 first)" },
    success: { type: 'boolean' },
    result: {
      description:
        "`success: true`: what the item's request answers without the envelope — an analysis, a score, for a " +
        'scan `{ id, hits }`, for an extract the extraction (`nv_recall`, `calls`, `blocks`, the transcript), for an ' +
        'audit the audit record (per work a verdict, the catalogue share with its 95 % interval, calls, `audit_sha256`) ' +
        'with its first 500 works and `works_next`: null when the line holds every work, else the `after` of the rest ' +
        'at `GET /api/v1/jobs/{job_id}/results/{item}/works`',
    },
    error: { ...ERROR, description: "`success: false`: the error the item's request would have answered" },
  },
};

/**
 * The query of `GET /api/v1/jobs/{job_id}/results`.
 * @example { after: 99, limit: 100 }
 */
export const JOB_RESULTS_QUERY_SCHEMA = partialObject({
  after: { ...int0, description: 'The cursor: results of the items after this index (absent: from the first)' },
  limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Results per page; default 100' },
});

/**
 * The query of `GET /api/v1/jobs/{job_id}/results/{item}/works`.
 * @example { after: 500, limit: 1000 }
 */
export const AUDIT_WORKS_QUERY_SCHEMA = partialObject({
  after: { ...int0, description: 'The cursor: the works after the first `after` (absent: from the first)' },
  limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Works per page; default 100' },
});

/**
 * A page of an audit item's works: `GET /api/v1/jobs/{job_id}/results/{item}/works`.
 * @example { success: true, job_id: 'job_…', item: 0, audit_sha256: '…', total: 100000, works: [], next: 600 }
 */
export const AUDIT_WORKS_RESPONSE_SCHEMA: JsonSchema = successBody(
  'AuditWorksPage',
  ['job_id', 'item', 'audit_sha256', 'total', 'works', 'next'],
  {
    job_id: JOB_ID,
    item: { ...int0, description: "The audit item's index in its job" },
    audit_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "The audit's digest" },
    total: { ...int0, description: 'Works in the catalogue' },
    works: {
      type: 'array',
      description:
        "Works `after` … `after + limit − 1` of the catalogue, in its order, each as the audit's `works` holds it " +
        '(`id`, `verdict`, `words`, `tokens`, `nv_recall`, `blocks`, `probes`, `hits`, `calls`, `miss_probability` …)',
      items: { type: 'object' },
    },
    next: {
      type: ['integer', 'null'],
      description: 'The `after` of the next page; null on the last',
    },
  },
);
