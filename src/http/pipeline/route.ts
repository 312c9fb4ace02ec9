/**
 * What a route's functions receive ({@link RouteContext}) and the last step: run the route's handler and wrap
 * its result in the success envelope, `{ success: true, ...result }`.
 */
import { Reply, type Principal, type Route, type RouteContext } from '../context.js';
import { forClients, jsonResponse } from '../respond.js';
import type { RouteMatch } from './match.js';

/** The parts of a route's context that are the handler's, the same for every request. */
export type RouteEnvironment = Pick<RouteContext, 'engine' | 'keys' | 'services' | 'now'>;

/**
 * The context of a route's `beforeBody` (no query, no body yet) or, given them, of its handler.
 * @example await route.beforeBody(routeContext(env, request, found, principal))
 */
export function routeContext(
  env: RouteEnvironment,
  request: Request,
  found: RouteMatch,
  principal: Principal | null,
  query: Readonly<Record<string, unknown>> = {},
  body: unknown = undefined,
): RouteContext {
  const { engine, keys, services, now } = env;
  return { engine, request, params: found.params, query, body, principal, keys, services, now };
}

/**
 * Step: run the route's handler and turn its result into a response.
 * @throws whatever the handler throws; a non-object result is a bug of the route (500 `INTERNAL`)
 * @example const res = await runRoute(found.route, ctx)
 */
export async function runRoute(route: Route, ctx: RouteContext): Promise<Response> {
  const result = await route.handler(ctx);
  if (result instanceof Response) return result;
  if (result instanceof Reply)
    return jsonResponse(result.status, { success: true, ...forClients(result.body) }, result.headers);
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    throw new Error(`route ${route.operationId} returned a non-object`); // a bug in the route: 500 INTERNAL
  }
  // a self-hosted remote engine's URL is the operator's, not the client's (src/http/respond.ts)
  return jsonResponse(route.status?.[0] ?? 200, { success: true, ...forClients(result as Record<string, unknown>) });
}
