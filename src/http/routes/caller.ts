/**
 * Who is calling, and the records of the caller a route may touch. Tenancy is data here: every
 * look-up passes the caller's account to the engine as the `owner`, so another account's record
 * answers 404 as if it were absent, and no route has to compare owners after the fact.
 */
import { planFileBytes, TrainprintError, type Work } from '../../library.js';
import type { Principal, RouteContext } from '../context.js';

/**
 * The authenticated caller of a route with a scope.
 * @example who(ctx).scopes.includes('admin')
 */
export function who(ctx: RouteContext): Principal {
  if (!ctx.principal) throw new TrainprintError('UNAUTHORIZED'); // unreachable: only public routes run without one
  return ctx.principal;
}

/**
 * The caller's account: the owner of everything it creates.
 * @example ctx.engine.listWorks({ owner: account(ctx) })
 */
export function account(ctx: RouteContext): string {
  return who(ctx).account;
}

/**
 * The work when the caller's account owns it, else 404 (another account's work does not exist for it).
 * @example const work = await ownWork(ctx, ctx.params.work_id)
 */
export function ownWork(ctx: RouteContext, workId: string): Promise<Work> {
  return ctx.engine.getWork(workId, { owner: account(ctx) });
}

/**
 * The caller's work with this `work_hash`, never another account's work with the same bytes; else 404.
 * @example const work = await ownWorkByHash(ctx, request.work_hash)
 */
export function ownWorkByHash(ctx: RouteContext, workHash: string): Promise<Work> {
  return ctx.engine.findWork(workHash, { owner: account(ctx) });
}

/**
 * The largest file the caller's plan takes (`fileBytes`), passed to the engine as `maxFileBytes`: the handler has held
 * the request to it already (413 naming the plan), and the engine's default may be smaller or larger than a plan's.
 * @example ctx.engine.analyze(body, { maxFileBytes: planFileLimit(ctx) })
 */
export function planFileLimit(ctx: RouteContext): number {
  return planFileBytes(ctx.services.plan(who(ctx).plan));
}
