/**
 * The schemas of the catalogue jobs (`/api/v1/jobs`, src/http/routes/catalogue-jobs.ts): the submission, a job's
 * status, and one line of its results.
 */
import { JOB_TYPES, MAX_PLAN_JOB_ITEMS } from '../../library.js';
import type { JsonSchema } from '../context.js';
import { dateTime, dateTimeOrNull, int0, prefixedId } from './kit.js';

const JOB_ID = prefixedId('job', 32);
/** The job types a job over HTTP takes: every type (an extract item's model key stays in the accepting process). */
const HTTP_JOB_TYPES = [...JOB_TYPES];

/**
 * `POST /api/v1/jobs`: the type and the items (each checked against its type's request schema when submitted).
 * @example new Validator(JOB_REQUEST_SCHEMA).validate({ type: 'scan', items: [{ id: 'a', text: '…' }] }).valid // true
 */
export const JOB_REQUEST_SCHEMA: JsonSchema = {
  title: 'JobRequest',
  type: 'object',
  required: ['items'],
  additionalProperties: false,
  properties: {
    type: {
      enum: [...HTTP_JOB_TYPES],
      description:
        'What runs on each item: `analyze` (an item is the body of `POST /api/v1/attribution/analyze`), `score` (the ' +
        'body of `POST /api/v1/attribution/score`), `scan` (`{ id, text }`, scanned against the exact datasets) or ' +
        '`extract` (a whole-work extraction from a model service: `{ text | work_id, model, budget_calls?, … }`) or ' +
        '`audit` (a catalogue audit under one call budget: `{ works: [{ id, text }], model, budget_calls?, … }`); ' +
        "`model.api_key` is held in the server's memory, never stored or echoed. " +
        'Required here or as the query parameter `type` (a JSON-lines body has only the query)',
    },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_PLAN_JOB_ITEMS,
      items: { type: 'object' },
      description: "The items, at most the plan's `jobItems` (Free 100, Pro 10,000, Scale and Enterprise 100,000)",
    },
    options: {
      type: 'object',
      additionalProperties: false,
      description: '`scan` only: how the items are scanned',
      properties: {
        datasets: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 200 },
          maxItems: 100,
          description: 'The exact datasets to scan against; default every exact dataset loaded',
        },
        min_words: {
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          description: 'Shortest block reported, in words; default 50',
        },
        paraphrase: { type: 'boolean', description: 'Report reworded reuse too; default false' },
      },
    },
  },
};

/**
 * The query of `POST /api/v1/jobs`.
 * @example { type: 'analyze' }
 */
export const JOB_SUBMIT_QUERY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: {
      enum: [...HTTP_JOB_TYPES],
      description: 'The job type, for a JSON-lines body (a JSON body may say it instead)',
    },
  },
};

const ERROR = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string' }, message: { type: 'string' } },
} as const;

const STATUS_PROPERTIES = {
  job_id: JOB_ID,
  type: { enum: [...HTTP_JOB_TYPES] },
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
} as const;

/**
 * The status of a job: `GET /api/v1/jobs/{job_id}`, and the 202 of its submission.
 * @example new Validator(JOB_STATUS_RESPONSE_SCHEMA).validate(await res.json()).valid // true
 */
export const JOB_STATUS_RESPONSE_SCHEMA: JsonSchema = {
  title: 'Job',
  type: 'object',
  required: [
    'success',
    'job_id',
    'type',
    'state',
    'total',
    'done',
    'failed',
    'created',
    'started',
    'finished',
    'eta_seconds',
    'status_url',
    'results_url',
  ],
  additionalProperties: false,
  properties: { success: { const: true }, ...STATUS_PROPERTIES },
};

/**
 * The answer of `DELETE /api/v1/jobs/{job_id}`: the cancelled job's status, or `deleted: true` for a finished one.
 * @example { success: true, job_id: 'job_…', deleted: true }
 */
export const JOB_DELETE_RESPONSE_SCHEMA: JsonSchema = {
  title: 'JobDeleted',
  type: 'object',
  required: ['success', 'job_id', 'deleted'],
  additionalProperties: false,
  properties: {
    success: { const: true },
    ...STATUS_PROPERTIES,
    deleted: { type: 'boolean', description: 'true: the job and its results are gone; false: the job was cancelled' },
  },
};

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
        'audit the audit record (per work a verdict, the catalogue share with its 95 % interval, calls, `audit_sha256`)',
    },
    error: { ...ERROR, description: "`success: false`: the error the item's request would have answered" },
  },
};

/**
 * The query of `GET /api/v1/jobs/{job_id}/results`.
 * @example { after: 99, limit: 100 }
 */
export const JOB_RESULTS_QUERY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { ...int0, description: 'The cursor: results of the items after this index (absent: from the first)' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Results per page; default 100' },
  },
};
