/**
 * The limits on a request's size: a declared `Content-Length` over the route's limit is refused before anything is
 * read (413), and a large body — or one that carries a document file, whatever its size — waits for its place among
 * the large requests running at once (503 with `Retry-After` when too many wait; src/http/large-work.ts).
 */
import { type Plan, planUploads, type Principal, TrainprintError } from '../../library.js';
import type { Route } from '../context.js';
import { LARGE_WORK_BYTES, LARGE_WORK_RETRY_SECONDS, type LargeWorkGate } from '../large-work.js';
import { MULTIPART } from '../multipart.js';
import { UPLOAD_RETRY_SECONDS, type UploadGate } from '../uploads.js';
import type { Exchange } from './exchange.js';
import { carriesDocument } from './files.js';
import type { RouteMatch } from './match.js';

/**
 * The request's `Content-Length` when it is a plain decimal number, else null (absent, chunked or malformed).
 * @example declaredLength(new Request('http://x/', { method: 'POST', body: 'abc' })) // 3
 */
export function declaredLength(request: Request): number | null {
  const v = request.headers.get('content-length');
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v.trim()) : null;
}

/**
 * The 413 of a body over `limit`.
 * @example throw tooLarge(1024, 'the plan allows 1 KiB more')
 */
export function tooLarge(limit: number, reason?: string): TrainprintError {
  return new TrainprintError(
    'PAYLOAD_TOO_LARGE',
    `the body is larger than ${limit} bytes${reason ? ` (${reason})` : ''}`,
  );
}

/**
 * Step: 413 for a body whose declared length is over the route's limit, before anything is read.
 * @example refuseDeclaredLength(x, found)
 */
export function refuseDeclaredLength(x: Exchange, found: RouteMatch): void {
  const declared = declaredLength(x.request);
  if (found.route.body && declared !== null && declared > found.compiled.maxBodyBytes)
    throw tooLarge(found.compiled.maxBodyBytes, found.compiled.maxBodyReason);
}

/**
 * Step: a request whose body, once read, has `bytes` (null for none) from 1 MiB on waits for its place among the
 * large requests, once; it holds it until the exchange is released. A full queue is 503 with `Retry-After` at once,
 * and so is a wait past the gate's `waitMs`.
 * @example
 * await holdLargeWork(x, gate, raw.length) // after the body is read: a slow body holds no place
 */
export async function holdLargeWork(x: Exchange, gate: LargeWorkGate, bytes: number | null): Promise<void> {
  if (x.releaseLarge !== undefined || bytes === null || bytes < LARGE_WORK_BYTES) return;
  try {
    x.releaseLarge = await gate.enter(x.request.signal);
  } catch (e) {
    x.headers['retry-after'] = String(LARGE_WORK_RETRY_SECONDS);
    throw e;
  }
}

/**
 * Whether a request uploads (src/http/uploads.ts): a body of 1 MiB or more, one streamed without a declared length
 * (`Transfer-Encoding`), or a multipart form on a route that takes files.
 * @example isUpload(request, found.route) // true for a 6 MB PDF sent as a form
 */
export function isUpload(request: Request, route: Pick<Route, 'body' | 'files'>): boolean {
  if (!route.body) return false;
  const declared = declaredLength(request);
  if (declared !== null) {
    if (declared >= LARGE_WORK_BYTES) return true;
  } else if (request.headers.get('transfer-encoding') !== null) return true;
  return route.files === true && (request.headers.get('content-type') ?? '').toLowerCase().startsWith(MULTIPART);
}

/**
 * Step: an upload of an account waits for one of its plan's places (`uploads`) before its body is read, and holds it
 * until the exchange is released; a full line or a long wait is 429 `RATE_LIMITED` with `Retry-After`.
 * @example await admitUpload(x, uploads, found.route, principal, env.services.plan)
 */
export async function admitUpload(
  x: Exchange,
  gate: UploadGate,
  route: Pick<Route, 'body' | 'files'>,
  principal: Principal | null,
  planOf: (name: string) => Plan | undefined,
): Promise<void> {
  if (principal === null || !isUpload(x.request, route)) return;
  const limit = { plan: principal.plan, uploads: planUploads(planOf(principal.plan)) };
  try {
    x.releaseUpload = await gate.enter(principal.account, limit, x.request.signal);
  } catch (e) {
    if (e instanceof TrainprintError && e.code === 'RATE_LIMITED')
      x.headers['retry-after'] = String(UPLOAD_RETRY_SECONDS);
    throw e;
  }
}

/**
 * Step: a request whose body carries a document file (EPUB, PDF, DOCX) takes a place among the large requests
 * whatever its size, once: a file of a few KB may make its extraction work up to the extraction's limits, so many
 * such small bodies at once would hold as much memory as as many large ones.
 * @example await holdDocumentWork(x, gate, body) // after the body is parsed
 */
export async function holdDocumentWork(x: Exchange, gate: LargeWorkGate, body: unknown): Promise<void> {
  if (carriesDocument(body)) await holdLargeWork(x, gate, LARGE_WORK_BYTES);
}
