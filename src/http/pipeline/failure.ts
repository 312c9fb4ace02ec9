/**
 * The answer to a request that a step refused or that failed: the error envelope with the status of its code
 * (src/http/respond.ts), 499 when the client has gone, 503 when the engine was disposed under the request.
 */
import { TrainprintError } from '../../library.js';
import { errorOutcome } from '../respond.js';
import type { Exchange } from './exchange.js';

/** The status of a request whose client closed the connection first (nginx's convention; no client sees it). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Step, in place of the rest: the finished error answer to `err`. Unexpected errors (500 `INTERNAL`) go to
 * the handler's `onError` with the request id; the client sees neither.
 * @example
 * try { … } catch (err) { return await answerFailure(x, err, options) }
 */
export async function answerFailure(
  x: Exchange,
  err: unknown,
  hooks: { readonly onError?: (error: unknown, requestId: string) => void },
): Promise<Response> {
  const { request } = x;
  // a body nobody read is dropped, not left waiting (the Node bridge then closes the connection)
  if (!request.bodyUsed) await request.body?.cancel().catch(() => undefined);
  // the client went away (mid-body, or while the answer was prepared): nobody reads an answer, and it is no
  // fault of the service — 499 in the logs (nginx's "client closed request"), never a 5xx on the status page
  if (request.signal?.aborted) return x.finish(new Response(null, { status: CLIENT_CLOSED_REQUEST }));
  const out = errorOutcome(shutdownAware(err), x.requestId);
  if (out.code === 'INTERNAL') hooks.onError?.(err, x.requestId); // a method of the options: `this` is them
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
