/**
 * Analyses answered before they finish: `POST /api/v1/attribution/analyze` with `Prefer: respond-async`
 * (RFC 7240 §4.1) submits a one-item `analyze` job to the job store — the store, leases, runner and restarts of the
 * catalogue jobs (`/api/v1/jobs`, ./catalogue-jobs.ts) — and is answered 202 with the job as soon as the request is
 * checked. The job is polled and read as any job is: `GET /api/v1/jobs/{job_id}`, then its one result line
 * (`GET /api/v1/jobs/{job_id}/results`), whose `result` is the analysis the synchronous request answers (stored as
 * every analysis is). So a long work — a book searched in remote corpora takes minutes — needs no connection held
 * open, survives a restart of the server and is read from any process of `serve --workers N`.
 *
 * `GET /api/v1/attribution/jobs/{job_id}`, the status URL of the first background analyses, stays as an alias of
 * `GET /api/v1/jobs/{job_id}`.
 */
import { readThrough, REQUESTS } from '../../library.js';
import type { Route, RouteContext } from '../context.js';
import { Reply } from '../context.js';
import { JOB_STATUS_RESPONSE_SCHEMA } from '../schemas/jobs.js';
import { account, planFileLimit } from './caller.js';
import { announce, jobBody, jobStatus, unknownJobExample } from './catalogue-jobs.js';

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

/** Bytes in base64 (a multipart upload's file, stored in the job as a JSON body carries it). */
function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * The request's body as a job item: JSON, so a multipart upload's file bytes become base64 content, which the
 * analysis reads as the same bytes.
 */
function analyzeItem(body: Record<string, unknown>): Record<string, unknown> {
  return body.content instanceof Uint8Array
    ? { ...body, content: base64(body.content), content_encoding: 'base64' }
    : body;
}

/**
 * Submits the request's analysis as a one-item `analyze` job and answers 202 with the job, once it passed the checks
 * the synchronous request makes before its work (a refusal is the same answer). The request was charged as a
 * synchronous one is (one call); the job is the account's, and the plan's file limit goes with it. No client's
 * disconnect cancels it: the request that started it has been answered (`DELETE /api/v1/jobs/{job_id}` does).
 */
async function submitAnalysis(ctx: RouteContext): Promise<Reply> {
  // refused as the synchronous request is, before a job is stored: never a job that fails with that error
  readThrough(REQUESTS.analyze, ctx.body, { maxFileBytes: planFileLimit(ctx) });
  const job = await ctx.services.jobs.submit({
    account: account(ctx),
    type: 'analyze',
    items: [analyzeItem(ctx.body as Record<string, unknown>)],
    context: { max_file_bytes: planFileLimit(ctx) },
  });
  announce(ctx, job);
  const body = jobBody(job);
  return new Reply(body, 202, { location: body.status_url as string, 'preference-applied': 'respond-async' });
}

const ASYNC_NOTE =
  '**Answered before the analysis ends.** With the header `Prefer: respond-async` (RFC 7240), the request is ' +
  'checked and charged as usual and answered **202** with a one-item `analyze` job (`Location: status_url`, ' +
  '`Preference-Applied: respond-async`), run in the background from the job store as a catalogue job is: it ' +
  'survives a restart and any process of the server reads it. Poll `GET /api/v1/jobs/{job_id}`, then read the ' +
  'analysis from `results_url`: one JSON line whose `result` is what this request answers without the preference ' +
  '(stored as usual), or whose `error` is the error it would have answered. A client going away does not cancel ' +
  'such an analysis; `DELETE /api/v1/jobs/{job_id}` does.';

/** The analyze row, with the `Prefer: respond-async` answer beside the synchronous one. */
function withAsyncAnswer(r: Route): Route {
  const sync = r.handler;
  return {
    ...r,
    description: r.description ? `${r.description}\n\n${ASYNC_NOTE}` : ASYNC_NOTE,
    status: [...(r.status ?? [200]), 202],
    responseSchema: { title: 'AnalyzeResponse', oneOf: [r.responseSchema, JOB_STATUS_RESPONSE_SCHEMA] },
    handler: async (ctx) => (prefersAsync(ctx.request) ? submitAnalysis(ctx) : sync(ctx)),
  };
}

/** `GET /api/v1/attribution/jobs/{job_id}`: the status URL of the first background analyses, kept for their clients. */
const JOB_STATUS_ALIAS: Route = {
  method: 'GET',
  path: '/api/v1/attribution/jobs/{job_id}',
  operationId: 'getAnalysisJob',
  tag: 'attribution',
  scope: 'analyze',
  summary: 'A background analysis (`Prefer: respond-async`): an alias of `GET /api/v1/jobs/{job_id}`',
  metered: false,
  responseSchema: JOB_STATUS_RESPONSE_SCHEMA,
  description:
    'The job of an analysis started with `Prefer: respond-async`, as `GET /api/v1/jobs/{job_id}` shows it (that ' +
    'URL, the `status_url` of the 202 answer, is the one to poll): `queued`, `running`, `done`, `failed` or ' +
    "`cancelled`; once `done`, the analysis is the one line of `results_url`. Any of the account's jobs is read " +
    'here. Polls are not charged to the plan.',
  errorCases: [{ code: 'NOT_FOUND', when: "the account has no job with this id (another account's, or deleted)" }],
  examples: [unknownJobExample('A job id the account does not have')],
  handler: jobStatus,
};

/**
 * The rows with background analyses: the analyze row answers `Prefer: respond-async` with a job, and the alias of
 * the job's status follows the stored-analysis route (the order of the OpenAPI document).
 * @example export const ROUTES = withBackgroundAnalyses(withDocs([...ATTRIBUTION_ROUTES]))
 */
export function withBackgroundAnalyses(rows: readonly Route[]): Route[] {
  const out: Route[] = [];
  for (const r of rows) {
    out.push(r.operationId === 'analyze' ? withAsyncAnswer(r) : r);
    if (r.operationId === 'getAnalysis') out.push(JOB_STATUS_ALIAS);
  }
  return out;
}
