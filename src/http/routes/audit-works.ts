/**
 * `GET /api/v1/jobs/{job_id}/results/{item}/works`: an audit item's works, page by page. A catalogue may hold
 * 100,000 works (a record of about 12 MB), so the item's result line holds the audit with its first 500 works and
 * `works_next`; every work is kept with the account's audits in pages (`storeCatalogueAudit`) and read here from
 * there (`catalogueAuditWorks`), never the whole catalogue in one response or one store value.
 */
import { catalogueAuditWorks, type CatalogueAuditResult, type JobResult } from '../../library.js';
import type { Route, RouteContext } from '../context.js';
import { AUDIT_WORKS_QUERY_SCHEMA, AUDIT_WORKS_RESPONSE_SCHEMA } from '../schemas/jobs.js';
import { jobOwner, unknownJobExample } from './catalogue-jobs.js';
import { notFound } from './refusals.js';

/** The audit item's result line, when the item ran and its audit was kept. @throws NOT_FOUND otherwise */
async function auditLine(ctx: RouteContext, id: string, item: number, owner: string): Promise<string> {
  const job = await ctx.services.jobs.status(id, { owner });
  if (job.type !== 'audit') notFound(`job ${id} is of type ${job.type}: only an audit item has works`);
  if (item >= job.total) notFound(`job ${id} has ${job.total} item${job.total === 1 ? '' : 's'}`);
  const page = await ctx.services.jobs.results(id, { owner, after: item - 1, limit: 1 });
  const line: JobResult | undefined = page.results[0];
  if (line?.index !== item) notFound(`item ${item} of job ${id} has no result yet`);
  const digest = line.success ? (line.result as Partial<CatalogueAuditResult> | null)?.audit_sha256 : undefined;
  if (digest === undefined) notFound(`item ${item} of job ${id} failed: it has no works`);
  return digest;
}

/** See the module's documentation. */
async function auditWorks(ctx: RouteContext): Promise<Record<string, unknown>> {
  const id = ctx.params.job_id;
  const item = Number(ctx.params.item);
  const owner = await jobOwner(ctx, id);
  const digest = await auditLine(ctx, id, item, owner);
  const after = (ctx.query.after as number | undefined) ?? 0;
  const limit = (ctx.query.limit as number | undefined) ?? 100;
  const page = await catalogueAuditWorks(ctx.engine.store, owner, digest, { after, limit });
  // kept by the run that wrote the line, unless the account's audits were cleared since
  if (!page) notFound(`the audit of item ${item} of job ${id} is no longer kept`);
  return {
    job_id: id,
    item,
    audit_sha256: digest,
    total: page.audit.catalogue.works,
    works: page.works,
    next: page.next,
  };
}

/**
 * The row of the route (src/http/routes/index.ts places it after the catalogue job rows).
 * @example AUDIT_WORKS_ROUTE.path // '/api/v1/jobs/{job_id}/results/{item}/works'
 */
export const AUDIT_WORKS_ROUTE: Route = {
  method: 'GET',
  path: '/api/v1/jobs/{job_id}/results/{item}/works',
  operationId: 'getJobAuditWorks',
  tag: 'jobs',
  scope: 'analyze',
  summary: "An audit item's works, page by page",
  description:
    "The works of an `audit` item's catalogue, in its order, `limit` (1–1000, default 100) after the first `after`: " +
    "each as the audit's `works` holds it (verdict, nv_recall, blocks, probes, hits, calls, the chance of a miss). The " +
    "item's result line (`results_url`) holds the audit with its first 500 works and `works_next`, the `after` of the " +
    'rest (null when the line holds every work): a catalogue of 100,000 works is read here, never in one response. ' +
    '`next` is the `after` of the next page, null on the last. Not charged.',
  metered: false,
  querySchema: AUDIT_WORKS_QUERY_SCHEMA,
  responseSchema: AUDIT_WORKS_RESPONSE_SCHEMA,
  errorCases: [
    {
      code: 'NOT_FOUND',
      when: 'the account has no such job, it is no audit job, the item has no result yet, or it failed (no works)',
    },
  ],
  examples: [unknownJobExample('A job id the account does not have', { limit: 100 })].map((e) => ({
    ...e,
    params: { ...e.params, item: '0' },
  })),
  handler: auditWorks,
};
