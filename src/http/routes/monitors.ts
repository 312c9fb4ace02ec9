/**
 * Routes of the monitors under `/api/v1/monitors/` (tag and scope `monitors`): watch a work of the
 * account against knowledge-base models, list, read, pause, resume and delete monitors, read their
 * events. A monitor is the account's: it watches only the account's works, its evaluations read
 * the datasets every account shares and the account's own, and another account's monitor answers
 * 404, as if absent.
 */
import { type Monitor, readThrough, REQUESTS } from '../../library.js';
import { type GroupRow, inGroup, Reply, type Route, type RouteContext } from '../context.js';
import { DELETED_SCHEMA } from '../schemas/content.js';
import * as S from '../schemas/monitors.js';
import { account, ownWork, ownWorkByHash } from './caller.js';
import { invalidField, notFound } from './refusals.js';

/**
 * The monitor rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example MONITOR_ROUTES.map((r) => r.operationId) // ['createMonitor', 'listMonitors', …]
 */
export const MONITOR_ROUTES: readonly Route[] = inGroup('monitors', 'monitors', [
  {
    method: 'POST',
    path: '/api/v1/monitors/create',
    operationId: 'createMonitor',
    creates: true,
    summary: 'Watch a work of the account against models; events go to the log and the webhook',
    body: 'json',
    requestSchema: REQUESTS.createMonitor.served,
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      // read through its contract before the work is looked up (its rules' 422 before a 404)
      const req = readThrough(REQUESTS.createMonitor, ctx.body, undefined);
      // the server's policy on where it delivers (internal addresses refused by default), beside the request's rules
      if (req.webhook !== undefined) {
        const refused = await ctx.services.checkWebhookUrl(new URL(req.webhook.url));
        if (refused !== null) invalidField('webhook.url', refused);
      }
      // a work_hash names the account's own work, never another account's work with the same bytes
      const work =
        req.work_id !== undefined ? await ownWork(ctx, req.work_id) : await ownWorkByHash(ctx, req.work_hash!);
      const { work_hash: _unused, ...rest } = req;
      // the account's monitor: its evaluations read the datasets every account shares and this account's own
      const m = await ctx.engine.createMonitor({ ...rest, work_id: work.work_id }, { owner: account(ctx) });
      return new Reply({ ...shownMonitor(ctx, m) }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/monitors',
    operationId: 'listMonitors',
    summary: "The account's monitors",
    querySchema: REQUESTS.listMonitors.served,
    responseSchema: S.MONITOR_LIST_SCHEMA,
    handler: async (ctx) => {
      const list = await ctx.engine.listMonitors({ ...(ctx.query as { work_id?: string }), owner: account(ctx) });
      const held = heldDatasets(ctx); // once for the list, not per monitor
      return { monitors: list.map((m) => shownMonitor(ctx, m, held)) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/monitors/{monitor_id}',
    operationId: 'getMonitor',
    summary: 'A monitor with its last evaluation per model',
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    handler: async (ctx) => shownMonitor(ctx, await ownMonitor(ctx)),
  },
  {
    method: 'DELETE',
    path: '/api/v1/monitors/{monitor_id}',
    operationId: 'deleteMonitor',
    summary: 'Delete a monitor (its events stay in the log)',
    responseSchema: DELETED_SCHEMA,
    handler: async (ctx) => {
      if (!(await ctx.engine.deleteMonitor(ctx.params.monitor_id, { owner: account(ctx) }))) {
        notFound(`no monitor "${ctx.params.monitor_id}"`);
      }
      return { id: ctx.params.monitor_id, deleted: true };
    },
  },
  monitorStateRoute('pause', 'Stop evaluating a monitor (no body)'),
  monitorStateRoute('resume', 'Evaluate a paused monitor again (no body)'),
  {
    method: 'GET',
    path: '/api/v1/monitors/{monitor_id}/events',
    operationId: 'listMonitorEvents',
    summary: 'Events of a monitor, oldest first',
    querySchema: REQUESTS.listEvents.served,
    responseSchema: S.EVENT_LIST_SCHEMA,
    handler: async (ctx) => {
      await ownMonitor(ctx);
      return {
        events: await ctx.engine.listEvents({
          monitor_id: ctx.params.monitor_id,
          ...(ctx.query as { limit?: number }),
        }),
      };
    },
  },
]);

// ------------------------------------------------------------------ helpers

/** `POST …/{monitor_id}/pause` or `…/resume`: the account's monitor with its new state (no body). */
function monitorStateRoute(action: 'pause' | 'resume', summary: string): GroupRow {
  return {
    method: 'POST',
    path: `/api/v1/monitors/{monitor_id}/${action}`,
    operationId: `${action}Monitor`,
    summary,
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      const options = { owner: account(ctx) };
      const id = ctx.params.monitor_id;
      const m = action === 'pause' ? ctx.engine.pauseMonitor(id, options) : ctx.engine.resumeMonitor(id, options);
      return shownMonitor(ctx, await m);
    },
  };
}

/**
 * A monitor as the API shows it: with `missing_datasets`, the datasets it is limited to that this server does not
 * hold now (dropped, or created through the API before a restart), so that a monitor that cannot see its dataset
 * says so instead of scoring 0 in silence.
 */
function shownMonitor(
  ctx: RouteContext,
  m: Monitor,
  held: ReadonlySet<string> = heldDatasets(ctx),
): Monitor & { missing_datasets: string[] } {
  return { ...m, missing_datasets: m.datasets === null ? [] : m.datasets.filter((id) => !held.has(id)) };
}

/** Ids of the datasets the caller's account searches now (the shared ones and its own). */
function heldDatasets(ctx: RouteContext): Set<string> {
  return new Set(ctx.engine.datasets({ account: account(ctx) }).map((d) => d.id));
}

/** The monitor of the path when the caller's account owns it, else 404. */
function ownMonitor(ctx: RouteContext): Promise<Monitor> {
  return ctx.engine.getMonitor(ctx.params.monitor_id, { owner: account(ctx) });
}
