/**
 * The answer to a request that a step refused or that failed: the error envelope with the status of its code
 * (src/http/respond.ts), 499 when the client has gone, 503 when the engine was disposed under the request. Every 500
 * leaves a trace for the operator: the handler's `onError`, by default one JSON line on stderr
 * ({@link logServerError}) — the client's body carries only the request id that finds it.
 */
import { TrainprintError } from '../../library.js';
import { errorOutcome } from '../respond.js';
import type { Exchange } from './exchange.js';

/** The status of a request whose client closed the connection first (nginx's convention; no client sees it). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Seconds a 503 without a wait of its own tells the client to wait (`Retry-After`). */
const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * Where a failed request was: its method, the matched route's path template ('' when none matched) and operation id.
 * @example const where: FailedRequest = { method: 'POST', route: '/api/v1/attribution/analyze', operation: 'analyze' }
 */
export interface FailedRequest {
  readonly method: string;
  readonly route: string;
  readonly operation: string;
}

/** What a handler is told of each 500: the error, the request id in the client's answer, and where it failed. */
export type ServerErrorHook = (error: unknown, requestId: string, where: FailedRequest) => void;

/**
 * The default trace of a 500: one JSON line on stderr with the time, the request id, the method and route, and the
 * error's class, code, message and stack (its causes' too, a few deep), so that an operator can find by its request
 * id what the client was told only by that id. Nothing of the request itself (headers, body, query) is written.
 * @example logServerError(new RangeError('Invalid string length'), 'req_1', { method: 'POST', route: '/api/v1/memorization/extract', operation: 'extract' })
 * // stderr: {"time":"…","level":"error","msg":"request failed: 500","request_id":"req_1",…,"error":{"class":"RangeError",…}}
 */
export function logServerError(error: unknown, requestId: string, where: FailedRequest): void {
  const line = {
    time: new Date().toISOString(),
    level: 'error',
    msg: 'request failed: 500',
    request_id: requestId,
    method: where.method,
    route: where.route || null,
    operation: where.operation,
    error: describeError(error, 3),
  };
  console.error(JSON.stringify(line)); // stderr in Node and Deno, the log of a Workers deployment
}

/** An error as the log line shows it: class, code, message, stack, and its cause (to `depth` levels). */
function describeError(error: unknown, depth: number): Record<string, unknown> {
  if (!(error instanceof Error)) return { class: typeof error, message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    class: error.constructor?.name || error.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: error.message,
    stack: error.stack ?? null,
    ...(error.cause !== undefined && depth > 0 ? { cause: describeError(error.cause, depth - 1) } : {}),
  };
}

/**
 * Step, in place of the rest: the finished error answer to `err`. Every 500 (`INTERNAL` and the engine's own 500
 * codes) goes to the handler's `onError` with the request id and where it failed, else to {@link logServerError};
 * the client sees only the id. A 503 says when to try again (`Retry-After`) when its step did not.
 * @example
 * try { … } catch (err) { return await answerFailure(x, err, options) }
 */
export async function answerFailure(
  x: Exchange,
  err: unknown,
  hooks: { readonly onError?: ServerErrorHook },
): Promise<Response> {
  const { request } = x;
  // a body nobody read is dropped, not left waiting (the Node bridge then closes the connection)
  if (!request.bodyUsed) await request.body?.cancel().catch(() => undefined);
  // the client went away (mid-body, or while the answer was prepared): nobody reads an answer, and it is no
  // fault of the service — 499 in the logs (nginx's "client closed request"), never a 5xx on the status page
  if (request.signal?.aborted) return x.finish(new Response(null, { status: CLIENT_CLOSED_REQUEST }));
  const out = errorOutcome(shutdownAware(err), x.requestId);
  if (out.status === 500) {
    const where = { method: request.method, route: x.route, operation: x.operation };
    try {
      if (hooks.onError)
        hooks.onError(err, x.requestId, where); // a method of the options: `this` is them
      else logServerError(err, x.requestId, where);
    } catch {
      // the operator's hook failed: the client's answer stays the same
    }
  }
  if (out.status === 503 && x.headers['retry-after'] === undefined)
    x.headers['retry-after'] = String(UNAVAILABLE_RETRY_SECONDS);
  return x.finish(out);
}

/**
 * A request that meets an engine disposed under it was cut by the server's shutdown: 503
 * SERVICE_UNAVAILABLE (send it again), as when the worker pool closes before its work is done — not a 500.
 */
function shutdownAware(err: unknown): unknown {
  return err instanceof TrainprintError && err.code === 'ENGINE_DISPOSED'
    ? new TrainprintError('SERVICE_UNAVAILABLE', 'the engine was disposed while the request ran', { cause: err })
    : err;
}
