/**
 * Analyses answered before they finish: `POST /api/v1/attribution/analyze` with `Prefer: respond-async`
 * (RFC 7240 §4.1) is answered 202 with a job id and the URL of its status as soon as the request is checked, and
 * the analysis goes on in the serving process; `GET /api/v1/attribution/jobs/{job_id}` reports its phase and the
 * remote corpus calls made so far (the analysis's progress callback) and, once it is done, the id of the analysis,
 * stored as every analysis is (`GET /api/v1/attribution/analyses/{analysis_id}` reads it). A long work — a book
 * searched in remote corpora takes minutes — then needs no connection held open for minutes.
 *
 * Jobs live in the memory of the process that took the request, one table per handler: a job is the account's
 * (another account's id answers 404, as if absent); an account has at most {@link MAX_RUNNING_JOBS} running, and one
 * more is refused with 429; a finished job is kept {@link FINISHED_JOB_TTL_MS} and then forgotten (its analysis is
 * not). A process that restarts forgets its jobs, and behind several processes (`serve --workers N`) a poll that
 * reaches another process answers 404: there, send the request without the preference.
 */
import {
  TrainprintError,
  type AnalysisResult,
  type AnalyzeOptions,
  type AnalyzeProgress,
  type AnalyzeRequest,
} from '../../library.js';
import type { JsonSchema, Route, RouteContext, RouteServices } from '../context.js';
import { Reply } from '../context.js';
import { errorOutcome } from '../respond.js';
import { idPattern } from '../schemas/kit.js';
import { account, planFileLimit } from './caller.js';

/**
 * Background analyses an account may have running at once; one more is refused with 429.
 * @example if (running >= MAX_RUNNING_JOBS) throw new TrainprintError('RATE_LIMITED', '…')
 */
export const MAX_RUNNING_JOBS = 2;
/**
 * How long a finished job's status is kept (ms); its analysis stays as long as the store keeps analyses.
 * @example if (now - job.finishedAt > FINISHED_JOB_TTL_MS) table.delete(job.id)
 */
export const FINISHED_JOB_TTL_MS = 15 * 60_000;
/** Finished jobs kept per account at most (the oldest are forgotten first), so a busy account's table stays small. */
const MAX_FINISHED_JOBS = 100;

/** The phases an analysis reports, in order. */
const PHASES = ['extracting', 'local', 'remote', 'done'] as const;

/** A background analysis. */
interface Job {
  readonly id: string;
  readonly account: string;
  state: 'running' | 'done' | 'failed';
  progress: AnalyzeProgress | null;
  analysisId?: string;
  error?: { code: string; message: string };
  finishedAt?: number;
}

/** The jobs of one handler, by id (insertion order is start order). */
type JobTable = Map<string, Job>;

/** One table per handler: its `services` object is made once by `createHandler` and passed to every route. */
const TABLES = new WeakMap<RouteServices, JobTable>();

function tableOf(services: RouteServices): JobTable {
  let t = TABLES.get(services);
  if (!t) TABLES.set(services, (t = new Map()));
  return t;
}

/** Forgets the finished jobs past their time, and an account's oldest finished ones beyond the cap. */
function sweep(table: JobTable, now: number): void {
  const finished = new Map<string, number>();
  for (const [id, job] of table) {
    if (job.finishedAt === undefined) continue;
    if (now - job.finishedAt > FINISHED_JOB_TTL_MS) {
      table.delete(id);
      continue;
    }
    finished.set(job.account, (finished.get(job.account) ?? 0) + 1);
  }
  for (const [id, job] of table) {
    const n = finished.get(job.account) ?? 0;
    if (job.finishedAt === undefined || n <= MAX_FINISHED_JOBS) continue;
    table.delete(id);
    finished.set(job.account, n - 1);
  }
}

/**
 * Whether the request's `Prefer` header (RFC 7240) holds the `respond-async` preference: preferences are separated by
 * commas, a preference's name is case-insensitive and may carry a value or parameters.
 * @example prefersAsync(new Request('http://x', { headers: { prefer: 'wait=10, respond-async' } })) // true
 */
export function prefersAsync(request: Request): boolean {
  const header = request.headers.get('prefer');
  if (header === null) return false;
  return header.split(',').some((p) => p.split(/[;=]/)[0].trim().toLowerCase() === 'respond-async');
}

/** `job_` + 32 random hex digits (WebCrypto, every runtime). */
function newJobId(): string {
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return `job_${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

/** The status URL of a job, relative to the API's base URL (as `next_steps` are). */
const statusUrl = (id: string) => `/api/v1/attribution/jobs/${id}`;
/** The URL of a stored analysis, relative to the API's base URL. */
const resultUrl = (id: string) => `/api/v1/attribution/analyses/${id}`;

/**
 * Starts the request's analysis in the background and answers 202 with its job; 429 when the account already has
 * {@link MAX_RUNNING_JOBS} running. The analysis is the account's, as a synchronous one is, but no client's
 * disconnect cancels it: the request that started it has been answered.
 */
function startJob(ctx: RouteContext): Reply {
  const table = tableOf(ctx.services);
  sweep(table, ctx.now());
  const owner = account(ctx);
  const running = [...table.values()].filter((j) => j.account === owner && j.state === 'running').length;
  if (running >= MAX_RUNNING_JOBS)
    throw new TrainprintError(
      'RATE_LIMITED',
      `the account already has ${running} analyses running in the background (at most ${MAX_RUNNING_JOBS}): ` +
        'poll their status and start this one when one has finished',
    );
  const job: Job = { id: newJobId(), account: owner, state: 'running', progress: null };
  table.set(job.id, job);
  // a copy: the callback's object is the engine's
  const onProgress = ({ phase, calls, budget, corpora }: AnalyzeProgress): void => {
    job.progress = { phase, calls, budget, corpora };
  };
  // the options of the synchronous request (src/http/routes/attribution.ts), less the request's signal (its client
  // has its answer and goes away), plus the progress callback
  const options: AnalyzeOptions = { owner, maxFileBytes: planFileLimit(ctx), ...ctx.services.work, onProgress };
  ctx.engine.analyze(ctx.body as AnalyzeRequest, options).then(
    (result: AnalysisResult) => {
      job.state = 'done';
      job.analysisId = result.analysis_id;
      if (job.progress) job.progress = { ...job.progress, phase: 'done' };
      job.finishedAt = ctx.now();
    },
    (err: unknown) => {
      // the error as the synchronous request would have answered it: a 5xx code with its generic sentence only
      const { code, message } = errorOutcome(err, job.id).body.error;
      job.state = 'failed';
      job.error = { code, message };
      job.finishedAt = ctx.now();
    },
  );
  const url = statusUrl(job.id);
  return new Reply({ job_id: job.id, status_url: url }, 202, {
    location: url,
    'preference-applied': 'respond-async',
  });
}

/** The status of the caller's job, or 404 (another account's job is not found either). */
async function jobStatus(ctx: RouteContext): Promise<Record<string, unknown>> {
  const table = tableOf(ctx.services);
  sweep(table, ctx.now());
  const job = table.get(ctx.params.job_id);
  if (!job || job.account !== account(ctx))
    throw new TrainprintError(
      'NOT_FOUND',
      `no job ${ctx.params.job_id} (finished jobs are kept ${FINISHED_JOB_TTL_MS / 60_000} minutes)`,
    );
  return {
    job_id: job.id,
    state: job.state,
    progress: job.progress,
    ...(job.analysisId ? { analysis_id: job.analysisId, result_url: resultUrl(job.analysisId) } : {}),
    ...(job.error ? { error: job.error } : {}),
  };
}

// ------------------------------------------------------------------ schemas

const JOB_ID_SCHEMA: JsonSchema = { type: 'string', pattern: idPattern('job', 32) };

/** The progress member of a job's status. */
const JOB_PROGRESS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['phase', 'calls', 'budget', 'corpora'],
  additionalProperties: false,
  properties: {
    phase: {
      enum: [...PHASES],
      description: "`extracting` a file's text, searching the `local` datasets, the `remote` corpora, `done`",
    },
    calls: { type: 'integer', minimum: 0, description: 'Remote corpus calls made so far, all corpora together' },
    budget: {
      type: 'integer',
      minimum: 0,
      description: "The sum of the searched corpora's call budgets; 0 when no remote corpus is searched",
    },
    corpora: { type: 'integer', minimum: 0, description: 'Remote corpora searched' },
  },
};

/**
 * The 202 answer of `POST /api/v1/attribution/analyze` with `Prefer: respond-async`.
 * @example new Validator(ANALYSIS_ACCEPTED_SCHEMA).validate({ success: true, job_id, status_url }).valid // true
 */
export const ANALYSIS_ACCEPTED_SCHEMA: JsonSchema = {
  title: 'AnalysisAccepted',
  type: 'object',
  required: ['success', 'job_id', 'status_url'],
  additionalProperties: false,
  properties: {
    success: { const: true },
    job_id: JOB_ID_SCHEMA,
    status_url: {
      type: 'string',
      description: 'Where the job is polled (`GET`), relative to the API base URL; also the `Location` header',
    },
  },
};

/**
 * The body of `GET /api/v1/attribution/jobs/{job_id}`.
 * @example new Validator(JOB_STATUS_SCHEMA).validate(await res.json()).valid // true
 */
export const JOB_STATUS_SCHEMA: JsonSchema = {
  title: 'AnalysisJob',
  type: 'object',
  required: ['success', 'job_id', 'state', 'progress'],
  additionalProperties: false,
  properties: {
    success: { const: true },
    job_id: JOB_ID_SCHEMA,
    state: { enum: ['running', 'done', 'failed'] },
    progress: {
      oneOf: [JOB_PROGRESS_SCHEMA, { type: 'null' }],
      description: 'How far the analysis has got; null until it first reports',
    },
    analysis_id: { type: 'string', pattern: idPattern('an', 32), description: '`done` only' },
    result_url: {
      type: 'string',
      description: '`done` only: the stored analysis (`GET`), relative to the API base URL',
    },
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      description: '`failed` only: the error the request would have answered without the preference',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

// ------------------------------------------------------------------ rows

const ASYNC_NOTE =
  '**Answered before the analysis ends.** With the header `Prefer: respond-async` (RFC 7240), the request is ' +
  'checked as usual and answered **202** `{ job_id, status_url }` (`Location: status_url`, ' +
  '`Preference-Applied: respond-async`); the analysis goes on in the serving process and is stored as usual. ' +
  'Poll `GET /api/v1/attribution/jobs/{job_id}` for its phase and remote calls, then read the result from its ' +
  `\`result_url\`. An account has at most ${MAX_RUNNING_JOBS} analyses running this way; one more is refused with ` +
  '429 `RATE_LIMITED`. A client going away does not cancel such an analysis.';

/** The analyze row, with the `Prefer: respond-async` answer beside the synchronous one. */
function withAsyncAnswer(r: Route): Route {
  const sync = r.handler;
  return {
    ...r,
    description: r.description ? `${r.description}\n\n${ASYNC_NOTE}` : ASYNC_NOTE,
    status: [...(r.status ?? [200]), 202],
    responseSchema: { title: 'AnalyzeResponse', oneOf: [r.responseSchema, ANALYSIS_ACCEPTED_SCHEMA] },
    errorCases: [
      ...(r.errorCases ?? []),
      {
        code: 'RATE_LIMITED',
        when: `with \`Prefer: respond-async\`: the account already has ${MAX_RUNNING_JOBS} analyses running in the background`,
      },
    ],
    handler: async (ctx) => (prefersAsync(ctx.request) ? startJob(ctx) : sync(ctx)),
  };
}

/** `GET /api/v1/attribution/jobs/{job_id}`, documented in its row. */
const JOB_STATUS_ROUTE: Route = {
  method: 'GET',
  path: '/api/v1/attribution/jobs/{job_id}',
  operationId: 'getAnalysisJob',
  tag: 'attribution',
  scope: 'analyze',
  summary: 'How far an analysis started with `Prefer: respond-async` has got',
  // polling is part of one analysis, already charged: a client polling every second must not spend its plan
  metered: false,
  responseSchema: JOB_STATUS_SCHEMA,
  description:
    'The state of a background analysis of the account (`POST /api/v1/attribution/analyze` with ' +
    '`Prefer: respond-async`): `running`, with `progress` — the phase (`extracting`, `local`, `remote`, `done`), ' +
    "the remote corpus calls made and the sum of the corpora's call budgets — once the analysis reports it; " +
    '`done`, with `analysis_id` and `result_url` (`GET` it: the analysis is stored as every analysis is); or ' +
    '`failed`, with the `error` the request would have answered without the preference. Jobs are kept in the ' +
    'memory of the process that took the request: a finished job is forgotten after 15 minutes, and a ' +
    'restarted process knows none. Polls are not charged to the plan.',
  errorCases: [
    {
      code: 'NOT_FOUND',
      when: "the account has no job with this id (another account's job, one finished more than 15 minutes ago, or one of another process)",
    },
  ],
  examples: [
    {
      name: 'unknown',
      summary: 'A job id this server does not know (finished jobs are forgotten after 15 minutes)',
      params: { job_id: 'job_00000000000000000000000000000000' },
      status: 404,
      response: {
        success: false,
        error: {
          code: 'NOT_FOUND',
          message: 'no job job_00000000000000000000000000000000 (finished jobs are kept 15 minutes)',
        },
      },
    },
  ],
  handler: jobStatus,
};

/**
 * The rows with background analyses: the analyze row answers `Prefer: respond-async` with a job, and the job's
 * status route follows the stored-analysis route (the order of the OpenAPI document).
 * @example export const ROUTES = withBackgroundAnalyses(withDocs([...ATTRIBUTION_ROUTES]))
 */
export function withBackgroundAnalyses(rows: readonly Route[]): Route[] {
  const out: Route[] = [];
  for (const r of rows) {
    out.push(r.operationId === 'analyze' ? withAsyncAnswer(r) : r);
    if (r.operationId === 'getAnalysis') out.push(JOB_STATUS_ROUTE);
  }
  return out;
}
