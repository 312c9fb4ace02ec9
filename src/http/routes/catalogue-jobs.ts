/**
 * Catalogue jobs over HTTP (`/api/v1/jobs`): many items of one type — analyze, score, scan, extract or audit — submitted at once and
 * run in the background by the host's job runner, or that of any process on the store (src/services/jobs/: this
 * module only submits and reads jobs), answered 202 with the
 * job; its status (`GET /api/v1/jobs/{job_id}`), its results as JSON lines in item order, paged with a cursor in the
 * `Link` header (`GET …/results?after=&limit=`), and `DELETE` (cancel a running job; delete a finished one).
 *
 * Plans: the items are charged to the account's daily limit when the job is submitted, all or none (429 as for any
 * call over the limit), and a job holds at most the plan's `jobItems` (413). Submission and polling are not charged
 * beyond that. Another account's job answers 404, as if absent.
 */
import {
  BUILT_IN_JOB_TYPES,
  jobUnits,
  planFileBytes,
  JOB_REQUEST,
  planJobItems,
  TrainprintError,
  type JobInfo,
  type JobRequest,
  type JobTypeDefinition,
  type JobTypeRegistry,
} from '../../library.js';
import type { BodyAllowance, Route, RouteContext, RouteExample } from '../context.js';
import { inGroup, MEDIA_TYPES, Reply } from '../context.js';
import { itemCounter } from '../body-items.js';
import { errorOutcome, jsonResponse } from '../respond.js';
import {
  JOB_DELETE_RESPONSE_SCHEMA,
  JOB_LIST_QUERY_SCHEMA,
  JOB_LIST_RESPONSE_SCHEMA,
  JOB_RESULT_LINE_SCHEMA,
  JOB_RESULTS_QUERY_SCHEMA,
  JOB_STATUS_RESPONSE_SCHEMA,
  jobRequestSchema,
  jobSubmitQuerySchema,
} from '../schemas/jobs.js';
import { account, ownWork, ownWorkByHash, who } from './caller.js';
import type { ModelSpec } from '../context.js';

const statusUrl = (id: string) => `/api/v1/jobs/${id}`;
const resultsUrl = (id: string) => `/api/v1/jobs/${id}/results`;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * A job as the API shows it (`GET /api/v1/jobs/{job_id}`), without the envelope.
 * @example const body = jobBody(await ctx.services.jobs.status(id, { owner })) // { job_id, type, state, … }
 */
export function jobBody(j: JobInfo): Record<string, unknown> {
  return {
    job_id: j.id,
    type: j.type,
    state: j.state,
    total: j.total,
    done: j.done,
    failed: j.failed,
    created: iso(j.created),
    started: iso(j.started),
    finished: iso(j.finished),
    eta_seconds: j.eta_ms === null ? null : Math.round(j.eta_ms / 100) / 10,
    status_url: statusUrl(j.id),
    results_url: resultsUrl(j.id),
    ...(j.error ? { error: j.error } : {}),
  };
}

/** The route's body limit, the largest job body of any plan: 64 MiB. */
const JOB_BODY_BYTES = 64 * 1024 * 1024;

/**
 * `POST /api/v1/jobs`, before its body is read: the body may be as large as the plan's `fileBytes` (the largest
 * upload it takes: Free 8 MiB, Pro 32, Scale 64; a larger declared length is 413 unread), and its items are counted
 * as it is read — 413 at the first item past the plan's `jobItems`, not after the whole body was parsed.
 */
async function jobBodyAllowance(ctx: RouteContext): Promise<BodyAllowance> {
  const principal = who(ctx);
  const plan = ctx.services.plan(principal.plan);
  const cap = planJobItems(plan);
  const media = (ctx.request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const what = `a job on plan "${principal.plan}" holds at most ${cap} items (jobItems)`;
  return {
    maxBodyBytes: Math.min(JOB_BODY_BYTES, planFileBytes(plan)),
    reason: `a job body on plan "${principal.plan}" is at most its fileBytes`,
    watch: itemCounter(media === MEDIA_TYPES.ndjson, cap, what),
  };
}

/** `POST /api/v1/jobs`. */
async function submitJob(ctx: RouteContext): Promise<Reply | Response> {
  const body = ctx.body as JobRequest;
  const principal = who(ctx);
  const plan = ctx.services.plan(principal.plan);
  const cap = planJobItems(plan);
  const named = { registry: ctx.services.jobTypes, namedType: ctx.query.type as string | undefined };
  JOB_REQUEST.rules(body, { ...named, plan: { name: principal.plan, jobItems: cap } });
  const type = named.registry.get((body.type ?? named.namedType) as string) as JobTypeDefinition<unknown>;
  // what the type prepares before the charge (an extract or audit item's model, built now and held once charged)
  const prepared = await type.prepare?.(body.items, {
    account: principal.account,
    plan: principal.plan,
    jobItems: cap,
    targetModel: (spec, field) => ctx.services.targetModel(spec as unknown as ModelSpec, field),
    ownWork: async (workId) => void (await ownWork(ctx, workId)),
    ownWorkByHash: async (workHash) => void (await ownWorkByHash(ctx, workHash)),
    maxFileBytes: planFileBytes(plan),
    store: ctx.engine.store,
    jobModels: ctx.services.jobModels,
    engine: ctx.engine,
    ...(body.options === undefined ? {} : { options: body.options }),
  });
  const units = jobUnits(type.name, body.items, ctx.services.jobTypes);
  const rate = await ctx.services.reserve(principal, units);
  if (!rate.allowed) {
    const what = units === body.items.length ? `${units} items` : `${body.items.length} items (${units} units)`;
    const err = new TrainprintError(
      'RATE_LIMITED',
      `${rate.limit} calls per UTC day on plan "${rate.plan}"; the job's ${what} would pass it ` +
        `(${rate.remaining} left); the window resets in ${rate.resetSeconds} s`,
    );
    const out = errorOutcome(err, '');
    return jsonResponse(out.status, out.body, { 'retry-after': String(rate.resetSeconds) });
  }
  const stored = prepared?.() ?? null;
  const job = await ctx.services.jobs.submit({
    account: principal.account,
    type: type.name,
    items: stored === null ? body.items : stored.items,
    ...(type.chunkItems === undefined ? {} : { chunkItems: type.chunkItems }),
    context: { max_file_bytes: planFileBytes(plan), ...(type.optionsSchema ? body.options : {}) },
  });
  stored?.bind(job.id);
  announce(ctx, job);
  const notice = stored?.notice === undefined ? {} : { notice: stored.notice };
  return new Reply({ ...jobBody(job), ...notice }, 202, { location: statusUrl(job.id) });
}

/** Tells the host's hook of a job submitted (a catalogue job, a `Prefer: respond-async` analysis). */
export function announce(ctx: RouteContext, job: JobInfo): void {
  try {
    ctx.services.jobSubmitted(job);
  } catch {
    // the host's hook: the job is stored (and charged) either way, and a runner finds it at its next poll
  }
}

/**
 * The account of the operator's jobs: those the command line submits to the job store (`trainprint scan --queue`,
 * `worker`, `jobs … --queue` without `--account`). No key is of this account; an `admin` key reads them.
 */
const OPERATOR_ACCOUNT = '';
const isAdmin = (ctx: RouteContext) => who(ctx).scopes.includes('admin');

/**
 * The owner whose jobs `GET /api/v1/jobs` lists: the caller's account, or the operator's with `?owner=operator`,
 * which needs the `admin` scope (403 `FORBIDDEN` otherwise, as a route of that scope answers).
 */
function listedOwner(ctx: RouteContext): string | Response {
  if (ctx.query.owner !== 'operator') return account(ctx);
  if (isAdmin(ctx)) return OPERATOR_ACCOUNT;
  const out = errorOutcome(
    new TrainprintError('FORBIDDEN', 'the operator\'s jobs (owner=operator) need scope "admin"'),
    '',
  );
  return jsonResponse(out.status, out.body, {
    'www-authenticate': 'Bearer realm="trainprint", error="insufficient_scope", scope="admin"',
  });
}

/**
 * The owner of the job a caller reads or ends: its own account's job, else, for an `admin` key, the operator's.
 * A key without the scope gets the 404 of any job not its own, so it learns nothing of the operator's.
 * @example const owner = await jobOwner(ctx, ctx.params.job_id) // 'acme', or '' for an admin reading the operator's
 */
export async function jobOwner(ctx: RouteContext, id: string): Promise<string> {
  const own = account(ctx);
  if (!isAdmin(ctx) || own === OPERATOR_ACCOUNT) return own;
  try {
    await ctx.services.jobs.status(id, { owner: own });
    return own;
  } catch (e) {
    if (e instanceof TrainprintError && e.code === 'NOT_FOUND') return OPERATOR_ACCOUNT;
    throw e;
  }
}

/**
 * `GET /api/v1/jobs/{job_id}` and its alias of the first background analyses: the account's job (or, for an admin
 * key, the operator's).
 */
export const jobStatus = async (ctx: RouteContext): Promise<Record<string, unknown>> =>
  jobBody(await ctx.services.jobs.status(ctx.params.job_id, { owner: await jobOwner(ctx, ctx.params.job_id) }));

/** A job id no account has: the one the examples of a 404 read. */
const UNKNOWN_JOB_ID = 'job_00000000000000000000000000000000';

/**
 * The example of a read of a job id the account does not have (`query` as the route takes it): its 404.
 * @example examples: [unknownJobExample('A job id the account does not have')]
 */
export function unknownJobExample(summary: string, query?: RouteExample['query']): RouteExample {
  return {
    name: 'unknown',
    summary,
    params: { job_id: UNKNOWN_JOB_ID },
    ...(query === undefined ? {} : { query }),
    status: 404,
    response: {
      success: false,
      error: {
        code: 'NOT_FOUND',
        message: `The requested item does not exist: no job ${UNKNOWN_JOB_ID} (finished jobs are kept 7 days)`,
      },
    },
  };
}

/** `GET /api/v1/jobs/{job_id}/results`: JSON lines, the next page's URL in `Link` while more may come. */
async function jobResults(ctx: RouteContext): Promise<Response> {
  const id = ctx.params.job_id;
  const limit = (ctx.query.limit as number | undefined) ?? 100;
  const after = ctx.query.after as number | undefined;
  const page = await ctx.services.jobs.results(id, { owner: await jobOwner(ctx, id), after, limit });
  const text = page.results.map((r) => `${JSON.stringify(r)}\n`).join('');
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' };
  if (page.next !== null) {
    const q = page.next < 0 ? `limit=${limit}` : `after=${page.next}&limit=${limit}`;
    headers.link = `<${resultsUrl(id)}?${q}>; rel="next"`;
  }
  return new Response(text, { status: 200, headers });
}

/** The job of the worked examples, as the submission answered it. */
const EXAMPLE_JOB = {
  success: true,
  job_id: 'job_7d2c4b1e9a8f40c3b5e6d7f8a9b0c1d2',
  type: 'scan',
  state: 'queued',
  total: 2,
  done: 0,
  failed: 0,
  created: '2025-06-02T09:30:00.000Z',
  started: null,
  finished: null,
  eta_seconds: null,
  status_url: '/api/v1/jobs/job_7d2c4b1e9a8f40c3b5e6d7f8a9b0c1d2',
  results_url: '/api/v1/jobs/job_7d2c4b1e9a8f40c3b5e6d7f8a9b0c1d2/results',
} as const;
const EXAMPLE_PARAMS = { job_id: EXAMPLE_JOB.job_id } as const;
const omitSuccess = ({ success: _, ...rest }: typeof EXAMPLE_JOB) => rest;

const JOBS_NOTE =
  'Items are charged to the daily limit when the job is submitted, all or none (a unit an item, unless its type ' +
  'says otherwise below); a job holds at most the ' +
  "plan's `jobItems` (Free 100, Pro 10,000, Scale and Enterprise 100,000). Jobs live in the store: with a durable " +
  'one (`serve --store DIR` or PostgreSQL) they survive a restart, and every `serve` process on one PostgreSQL store ' +
  'works on them; in the memory store (`serve` without `--store`) a restart loses them. An item that runs past the time limit ' +
  'of a job item (5 minutes by default) is stopped and its result is a `PAYLOAD_TOO_LARGE` error naming the limit; ' +
  "one account's jobs never take every runner of a process. A finished job and its results are kept 7 days.";

/** `POST /api/v1/jobs` for the job types of `registry`: its schemas and its documentation name them. */
function createJobRoute(registry: JobTypeRegistry): Route {
  const names = [...registry.keys()];
  return {
    method: 'POST',
    path: '/api/v1/jobs',
    operationId: 'createJob',
    tag: 'jobs',
    scope: 'analyze',
    summary: `Submit a catalogue job: many ${names.slice(0, -1).join(', ')} or ${names.at(-1)} items, run in the background`,
    description:
      `A JSON body \`{ "type": ${names.map((n) => `"${n}"`).join(' | ')}, "items": [...] }\` (a scan takes \`options\` ` +
      'too), or ' +
      'JSON lines (`Content-Type: application/x-ndjson`, one item per line) with `?type=`. Each item is checked ' +
      "against its type's request (422 naming `items[i].field`); the answer is **202** with the job's status and " +
      '`Location: status_url`. Poll `GET /api/v1/jobs/{job_id}`, read the results from `results_url`. ' +
      JOBS_NOTE +
      // what each type adds: its item, its model, its result
      [...registry.values()].map((t) => (t.description ? ` ${t.description}` : '')).join(''),
    body: 'json',
    ndjson: true,
    creates: true,
    metered: false,
    maxBodyBytes: JOB_BODY_BYTES,
    beforeBody: jobBodyAllowance,
    requestSchema: jobRequestSchema(registry),
    querySchema: jobSubmitQuerySchema(registry),
    responseSchema: JOB_STATUS_RESPONSE_SCHEMA,
    status: [202],
    errorCases: [
      {
        code: 'INVALID_INPUT',
        when: "no type, an item that its type does not take (`items[i].field`), an extract item's model host refused (`items[i].model.base_url`) or an endpoint option out of range (`items[i].model.temperature` …)",
      },
      { code: 'NOT_SUPPORTED', when: 'an `extract` or `audit` job on a server whose host holds no models for them' },
      {
        code: 'PAYLOAD_TOO_LARGE',
        when: "more items than the plan's `jobItems` (refused as the body is read, at the first one too many), an audit of more works than that, or a body over the plan's `fileBytes` (Free 8 MiB, Pro 32, Scale and Enterprise 64)",
      },
      { code: 'RATE_LIMITED', when: "the items would pass the plan's daily limit (nothing is charged then)" },
    ],
    examples: [
      {
        name: 'scan',
        summary: 'Two model outputs scanned against the exact datasets',
        body: {
          type: 'scan',
          items: [
            { id: 'out-1', text: 'Permission is hereby granted, free of charge, to any person obtaining a copy' },
            { id: 'out-2', text: 'A reply that quotes nothing.' },
          ],
          options: { min_words: 10 },
        },
        status: 202,
        response: EXAMPLE_JOB,
      },
    ],
    handler: submitJob,
  };
}

/** The rows that read and end a job: the same for every registry. */
const JOB_READ_ROUTES: readonly Route[] = inGroup('jobs', 'analyze', [
  {
    method: 'GET',
    path: '/api/v1/jobs',
    operationId: 'listJobs',
    summary: "The account's catalogue jobs, newest first",
    description:
      "A page of the account's jobs (every type, finished ones for as long as they are kept), newest first, each as " +
      '`GET /api/v1/jobs/{job_id}` shows it; `next` is the cursor of the next page (`?after=`), null on the last. ' +
      "With `?owner=operator`, an `admin` key lists the operator's jobs instead — those the command line submits " +
      'to the store (`trainprint scan --queue`, `worker`, `jobs … --queue` without `--account`) — paged the same ' +
      'way; an admin key also reads, cancels and deletes such a job by its id, which any other key finds absent ' +
      '(404). Not charged.',
    metered: false,
    querySchema: JOB_LIST_QUERY_SCHEMA,
    responseSchema: JOB_LIST_RESPONSE_SCHEMA,
    errorCases: [
      { code: 'FORBIDDEN', when: '`owner=operator` from a key without the `admin` scope' },
      { code: 'INVALID_INPUT', when: '`after` is no job of the account (of the operator with `owner=operator`)' },
    ],
    examples: [
      {
        name: 'listed',
        summary: "The account's jobs: the one submitted",
        after: ['createJob'],
        query: { limit: 20 },
        status: 200,
        response: { success: true, jobs: [omitSuccess(EXAMPLE_JOB)], next: null },
      },
    ],
    handler: async (ctx) => {
      const owner = listedOwner(ctx);
      if (owner instanceof Response) return owner;
      const { jobs, next } = await ctx.services.jobs.list({
        owner,
        after: ctx.query.after as string | undefined,
        limit: ctx.query.limit as number | undefined,
      });
      return { jobs: jobs.map(jobBody), next };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/jobs/{job_id}',
    operationId: 'getJob',
    summary: 'How far a catalogue job has got',
    description:
      "The state of the account's job (for an `admin` key, the operator's too), its counts (`done` never decreases) and the time left at the rate so " +
      'far. Polls are not charged.',
    metered: false,
    responseSchema: JOB_STATUS_RESPONSE_SCHEMA,
    errorCases: [
      {
        code: 'NOT_FOUND',
        when: "the account has no job with this id (another account's, the operator's for a key without `admin`, or deleted)",
      },
    ],
    examples: [
      {
        name: 'done',
        summary: 'The job of the submission, finished',
        after: ['createJob'],
        params: EXAMPLE_PARAMS,
        status: 200,
        response: {
          ...EXAMPLE_JOB,
          state: 'done',
          done: 2,
          started: '2025-06-02T09:30:00.020Z',
          finished: '2025-06-02T09:30:00.041Z',
        },
      },
    ],
    handler: jobStatus,
  },
  {
    method: 'GET',
    path: '/api/v1/jobs/{job_id}/results',
    operationId: 'getJobResults',
    summary: "A catalogue job's results, as JSON lines in item order",
    description:
      'One JSON line per item, `{ index, success, result | error }`, in item order from the item after `after`. ' +
      'While the job runs, a page stops before the first item without a result, so reading on never skips one. ' +
      'The next page is the `Link: <…?after=N&limit=M>; rel="next"` header: present while more may come (a full ' +
      'page, or a job still running — an empty page then means "poll again later"), absent at the end. Not charged.',
    metered: false,
    querySchema: JOB_RESULTS_QUERY_SCHEMA,
    responseSchema: JOB_RESULT_LINE_SCHEMA,
    responseType: 'ndjson',
    errorCases: [{ code: 'NOT_FOUND', when: 'the account has no job with this id' }],
    examples: [
      unknownJobExample('A job id the account does not have (the results are JSON lines, one per item)', {
        limit: 100,
      }),
    ],
    handler: jobResults,
  },
  {
    method: 'DELETE',
    path: '/api/v1/jobs/{job_id}',
    operationId: 'cancelJob',
    summary: 'Cancel a running catalogue job, or delete a finished one',
    description:
      "A queued or running job is **cancelled** and stays as this answer gives it (`deleted: false`, the job's status): " +
      'its results so far stay readable, no item starts once the cancel is seen (within a second), and no item still ' +
      'running adds a result. A finished job (done, failed or ' +
      'cancelled) is **deleted** with its results (`deleted: true`); so a second `DELETE` deletes what the first ' +
      'cancelled. Items charged are not given back.',
    metered: false,
    responseSchema: JOB_DELETE_RESPONSE_SCHEMA,
    errorCases: [{ code: 'NOT_FOUND', when: 'the account has no job with this id' }],
    examples: [
      {
        name: 'cancelled',
        summary: 'The running job cancelled: its results so far stay readable',
        after: ['createJob'],
        params: EXAMPLE_PARAMS,
        status: 200,
        response: {
          ...EXAMPLE_JOB,
          state: 'cancelled',
          started: '2025-06-02T09:30:00.020Z',
          finished: '2025-06-02T09:30:00.030Z',
          deleted: false,
        },
      },
    ],
    handler: async (ctx) => {
      const owner = await jobOwner(ctx, ctx.params.job_id);
      const r = await ctx.services.jobs.cancel(ctx.params.job_id, { owner });
      // an extract job's models (their keys) are not kept for items that never run again
      ctx.services.jobModels?.releaseJob(r.job.id);
      if (r.cancelled) return { ...jobBody(r.job), deleted: false };
      await ctx.services.jobs.delete(r.job.id, { owner });
      return { job_id: r.job.id, deleted: true };
    },
  },
]);

/**
 * The catalogue job routes, of the built-in job types, in the order of the document.
 * @example CATALOGUE_JOB_ROUTES.map((r) => r.operationId) // ['createJob', 'listJobs', 'getJob', 'getJobResults', 'cancelJob']
 */
export const CATALOGUE_JOB_ROUTES: readonly Route[] = [createJobRoute(BUILT_IN_JOB_TYPES), ...JOB_READ_ROUTES];

/**
 * `routes` with the submission of `registry`'s job types (a handler with types of its host's own; the rows that read
 * and end a job are the same for every registry), else as they are.
 * @example const routes = withJobTypes(ROUTES, jobTypeRegistry([upper]))
 */
export function withJobTypes(routes: readonly Route[], registry: JobTypeRegistry): Route[] {
  if (registry === BUILT_IN_JOB_TYPES) return [...routes];
  const own = createJobRoute(registry);
  return routes.map((r) => (r.operationId === own.operationId ? own : r));
}
