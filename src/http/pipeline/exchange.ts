/**
 * One request on its way through the handler's steps (src/http/handler.ts): its id, the headers that every answer
 * to it carries, what it holds that must be given back however it ends, and {@link Exchange.finish}, the one way
 * out. Hono's `Context` plays the same part for its middleware.
 */
import type { FileLimit } from '../multipart.js';
import { jsonResponse, type ErrorOutcome } from '../respond.js';
import type { StatusMonitor } from '../status.js';

/**
 * The request, what the steps learnt of it, and how its answer is finished.
 * @example
 * const x = new Exchange(request, status)
 * try { return x.finish(jsonResponse(200, { success: true })) } finally { x.release() }
 */
export class Exchange {
  /** The client's `X-Request-Id` when it is a sane token, else a new one: on every answer, and in 5xx bodies. */
  readonly requestId: string;
  /** The matched route's operation id: what a 5xx is recorded under on the status page. */
  operation = 'unmatched';
  /** The matched route's path template (`/api/v1/works/{work_id}`): what a 500 is logged under. */
  route = '';
  /**
   * Headers for the answer, whatever it turns out to be: `Allow`, `WWW-Authenticate`, `RateLimit-*`,
   * `Retry-After`. A step that refuses the request replaces them with its own; the plan's charge sets
   * `RateLimit-*`, which every later answer keeps.
   */
  headers: Record<string, string> = {};
  /** Gives back what the route's `beforeBody` reserved (an account's dataset allowance). */
  releaseAllowance: (() => void) | undefined;
  /** Gives back the request's place among the large requests running at once. */
  releaseLarge: (() => void) | undefined;
  /** Gives back the request's place among its account's uploads in flight (src/http/uploads.ts). */
  releaseUpload: (() => void) | undefined;
  /** The caller's plan's largest file, on the routes that take files (src/http/pipeline/files.ts). */
  fileLimit: FileLimit | undefined;
  /**
   * What an `Idempotency-Key` covers when it is not the body as read: a multipart form's fields and file, without
   * the boundary, which changes each time the same form is sent.
   */
  idempotencyBytes: Uint8Array | undefined;

  constructor(
    readonly request: Request,
    private readonly status: Pick<StatusMonitor, 'recordRequest' | 'recordServerError'>,
  ) {
    this.requestId = requestIdOf(request);
    status.recordRequest();
  }

  /**
   * The answer as sent: the collected headers and the request id added, no body for HEAD; a 5xx is recorded.
   * @example return x.finish(errorOutcome(new TrainprintError('NOT_FOUND', 'no route /x'), x.requestId))
   */
  finish(r: Response | ErrorOutcome): Response {
    const res = r instanceof Response ? r : jsonResponse(r.status, r.body);
    if (res.status >= 500)
      this.status.recordServerError(res.status, r instanceof Response ? 'HTTP' : r.code, this.operation);
    const h = new Headers(res.headers);
    for (const [k, v] of Object.entries(this.headers)) h.set(k, v);
    h.set('x-request-id', this.requestId);
    if (this.request.method === 'HEAD') {
      void res.body?.cancel().catch(() => undefined);
      return new Response(null, { status: res.status, statusText: res.statusText, headers: h });
    }
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers: h });
  }

  /**
   * Gives back what the request held, once it has been answered (or failed).
   * @example try { … } finally { x.release() }
   */
  release(): void {
    this.releaseAllowance?.();
    this.releaseLarge?.();
    this.releaseUpload?.();
  }
}

/** The client's X-Request-Id when it is a sane token, else a new one. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  if (given !== null && /^[A-Za-z0-9._:-]{1,128}$/.test(given)) return given;
  return `req_${Array.from(globalThis.crypto.getRandomValues(new Uint8Array(12)), (x) => x.toString(16).padStart(2, '0')).join('')}`;
}
