/**
 * The route table, compiled once per handler, and the first step of every request: strip the base path, then
 * find the route of the path and method — 404, or 405 with `Allow`.
 */
import { TrainprintError } from '../../library.js';
import type { Method, Route } from '../context.js';
import { errorOutcome } from '../respond.js';
import { PATH_PARAMS } from '../routes/index.js';
import { compileValidator } from '../validate.js';
import type { Exchange } from './exchange.js';

/** A route with what matching and reading its requests need, prepared once. */
export interface CompiledRoute {
  readonly route: Route;
  readonly segments: ReadonlyArray<{ literal: string } | { param: string; re: RegExp }>;
  /** How many segments are parameters: of two matching routes, the one with fewer wins. */
  readonly paramCount: number;
  readonly checkBody?: (v: unknown) => unknown;
  readonly checkQuery?: (v: unknown) => unknown;
  /** The route's body limit: its own, else the handler's for dataset uploads, for file routes or for the rest. */
  readonly maxBodyBytes: number;
  /** What a 413 at that limit says of it (file routes: the plans' file limits). */
  readonly maxBodyReason?: string;
}

/** The table and the path it is served under (`baseUrl`'s path, without a trailing slash; '' for none). */
export interface Router {
  readonly table: readonly CompiledRoute[];
  readonly basePath: string;
}

/** The route a request is for, with its decoded path parameters. */
export interface RouteMatch {
  readonly compiled: CompiledRoute;
  readonly route: Route;
  readonly params: Record<string, string>;
  readonly url: URL;
  /** The request's path without the base path. */
  readonly path: string;
}

/**
 * Compiles the routes: their path patterns, validators and body limits (`maxFileBody` for the routes that take
 * files: the most any plan allows; each call's plan may allow less).
 * @throws INVALID_OPTIONS for two routes with the same method and path, or the same operation id
 * @example compileRoutes(ROUTES, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DATASET_BODY_BYTES)
 */
export function compileRoutes(
  routes: readonly Route[],
  maxBody: number,
  maxDatasetBody: number,
  maxFileBody: number = maxBody,
  maxFileBodyReason?: string,
): CompiledRoute[] {
  const seen = new Set<string>();
  return routes.map((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key) || seen.has(route.operationId))
      throw new TrainprintError('INVALID_OPTIONS', `duplicate route ${key} (${route.operationId})`);
    seen.add(key);
    seen.add(route.operationId);
    const segments = route.path
      .split('/')
      .slice(1)
      .map((s) => {
        const m = /^\{([^}]+)\}$/.exec(s);
        if (!m) return { literal: s };
        const p = PATH_PARAMS[m[1]];
        return { param: m[1], re: new RegExp(p ? p.pattern : '^[^/]+$') };
      });
    const dataset = route.path.startsWith('/api/v1/datasets') && route.body !== undefined;
    return {
      route,
      segments,
      paramCount: segments.filter((s) => 'param' in s).length,
      checkBody:
        route.body === 'json' && route.requestSchema ? compileValidator(route.requestSchema, 'body') : undefined,
      checkQuery: route.querySchema ? compileValidator(route.querySchema, 'query') : undefined,
      maxBodyBytes: route.maxBodyBytes ?? (dataset ? maxDatasetBody : route.files ? maxFileBody : maxBody),
      ...(route.files && route.maxBodyBytes === undefined && !dataset && maxFileBodyReason
        ? { maxBodyReason: maxFileBodyReason }
        : {}),
    };
  });
}

/**
 * Step: the route of the request — thrown 404 for a path outside the base path or without a route; the
 * finished 405 with `Allow` for a method the path does not take. Names the exchange's operation.
 * @example
 * const found = findRoute(x, router)
 * if (found instanceof Response) return found
 */
export function findRoute(x: Exchange, router: Router): RouteMatch | Response {
  const { request } = x;
  const url = new URL(request.url);
  let path = url.pathname;
  if (router.basePath) {
    if (path !== router.basePath && !path.startsWith(`${router.basePath}/`))
      throw new TrainprintError('NOT_FOUND', 'no such path');
    path = path.slice(router.basePath.length) || '/';
  }
  // HEAD is answered wherever GET is, without the body (RFC 9110 §9.3.2)
  const match = matchRoute(router.table, path, request.method === 'HEAD' ? 'GET' : request.method);
  if ('allow' in match) {
    // returned, not thrown: a 405 leaves the body as it is (only failures cancel it)
    x.headers = { allow: match.allow.join(', ') };
    const refusal = new TrainprintError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not allowed on ${path}; allowed: ${match.allow.join(', ')}`,
    );
    return x.finish(errorOutcome(refusal, x.requestId, { allow: match.allow }));
  }
  if (!match.route) throw new TrainprintError('NOT_FOUND', `no route ${path}`);
  x.operation = match.route.route.operationId;
  x.route = match.route.route.path;
  return { compiled: match.route, route: match.route.route, params: match.params, url, path };
}

/** The route for `path` and `method`: the most literal of the matching ones, or the methods the path allows. */
function matchRoute(
  table: readonly CompiledRoute[],
  path: string,
  method: string,
): { route: CompiledRoute; params: Record<string, string> } | { allow: Method[] } | { route: null } {
  const parts = path.split('/').slice(1);
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { route: null };
  }
  const hits: Array<{ route: CompiledRoute; params: Record<string, string> }> = [];
  for (const c of table) {
    if (c.segments.length !== decoded.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < decoded.length && ok; i++) {
      const s = c.segments[i];
      if ('literal' in s) ok = s.literal === parts[i];
      else if (s.re.test(decoded[i])) params[s.param] = decoded[i];
      else ok = false;
    }
    if (ok) hits.push({ route: c, params });
  }
  if (hits.length === 0) return { route: null };
  const same = hits.filter((h) => h.route.route.method === method);
  if (same.length === 0) {
    const allowed = new Set<Method>(hits.map((h) => h.route.route.method));
    if (allowed.has('GET')) allowed.add('HEAD' as Method);
    return { allow: [...allowed].sort() };
  }
  return same.sort((a, b) => a.route.paramCount - b.route.paramCount)[0];
}
