/**
 * The body of a request, around its reading (read-body.ts): the Content-Type (415), the route's check of what the
 * path names before a byte is read (`beforeBody`: 404, 403, or a smaller allowance — 413; a file route's plan: 413),
 * then decoding, parsing and validation (400 `MALFORMED_JSON`, 400 `MALFORMED_REQUEST` for a broken multipart form,
 * 422) — on the offload's thread for a large JSON body.
 */
import { markSchemaChecked, type Principal, TrainprintError } from '../../library.js';
import { MEDIA_TYPES, type Route } from '../context.js';
import { type JsonBodyOffload, parseJsonBody } from '../json-body.js';
import { nextMacrotask } from '../../util/steps.js';
import type { Exchange } from './exchange.js';
import { parseMultipartBody, MULTIPART } from '../multipart.js';
import { checkJsonFileSize, fileAllowance, fileLimitOf } from './files.js';
import { declaredLength, tooLarge } from './limits.js';
import type { CompiledRoute, RouteMatch } from './match.js';
import { routeContext, type RouteEnvironment } from './route.js';

/** Bodies from this size on are parsed in a turn of the event loop of their own (3–5 ms of work per MB). */
const LARGE_BODY_BYTES = 1 << 20;

/**
 * Step: 415 unless the Content-Type is the route's (and UTF-8 for text bodies), or multipart/form-data on a route
 * that takes files; the body is then dropped unread.
 * @example await checkMediaType(request, found.route.body, found.route.files)
 */
export async function checkMediaType(
  request: Request,
  kind: Route['body'],
  files?: true,
  ndjson?: true,
): Promise<void> {
  if (!kind) return;
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  const [media, ...paramsList] = type.split(';').map((s) => s.trim());
  if (files && media === MULTIPART) return; // its boundary is checked as it is parsed (400)
  if (ndjson && media === MEDIA_TYPES.ndjson && kind === 'json') {
    const cs = paramsList.find((p) => p.startsWith('charset='));
    if (cs === undefined || cs.slice(8).replace(/"/g, '') === 'utf-8') return;
  }
  const expected = MEDIA_TYPES[kind];
  const charset = paramsList
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (media !== expected || (kind !== 'binary' && charset !== undefined && charset !== 'utf-8')) {
    await request.body?.cancel().catch(() => undefined);
    const also = `${files ? ` or ${MULTIPART}` : ''}${ndjson ? ` or ${MEDIA_TYPES.ndjson} (UTF-8)` : ''}`;
    throw new TrainprintError(
      'UNSUPPORTED_MEDIA_TYPE',
      `send Content-Type: ${expected}${kind === 'binary' ? '' : ' (UTF-8)'}${also}`,
    );
  }
}

/** How large a body may be read, and why when it is less than the route's limit (the 413 says it). */
export interface BodyLimit {
  readonly bytes: number;
  readonly reason?: string;
  /** The route's watch on the body as it is read (BodyAllowance.watch). */
  readonly watch?: (chunk: Uint8Array) => void;
}

/**
 * Step: the route's `beforeBody` check, so that a large upload to a missing or foreign item is refused unread, and
 * the body limit it leaves: the route's, or less (what the account's plan has left, or takes as a file; a larger
 * declared length is 413 at once). What it reserved is given back when the exchange is released.
 * @example const limit = await checkBeforeBody(x, found, env, principal)
 */
export async function checkBeforeBody(
  x: Exchange,
  found: RouteMatch,
  env: RouteEnvironment,
  principal: Principal | null,
): Promise<BodyLimit> {
  const { route } = found;
  const limit = found.compiled.maxBodyBytes;
  if (route.files && principal) x.fileLimit = fileLimitOf(principal, env.services.plan);
  const allowance = route.beforeBody
    ? await route.beforeBody(routeContext(env, x.request, found, principal))
    : x.fileLimit && fileAllowance(x.request, x.fileLimit);
  x.releaseAllowance = allowance?.release;
  const watch = allowance?.watch;
  if (!allowance || allowance.maxBodyBytes >= limit)
    return { bytes: limit, reason: found.compiled.maxBodyReason, ...(watch ? { watch } : {}) };
  const declared = declaredLength(x.request);
  if (route.body && declared !== null && declared > allowance.maxBodyBytes)
    throw tooLarge(allowance.maxBodyBytes, allowance.reason);
  return { bytes: allowance.maxBodyBytes, reason: allowance.reason, ...(watch ? { watch } : {}) };
}

/**
 * Step: the body as the route takes it — validated JSON, `URLSearchParams` (form), bytes (binary), a multipart
 * upload as its JSON request (src/http/multipart.ts), or undefined for a route without one. A large JSON body is
 * parsed on the offload's thread where there is one, else here between two turns of the event loop, so that other
 * requests are answered meanwhile. A file over the caller's plan's limit is 413.
 * A large multipart form is read between the account's turns (`turn`).
 * @example const body = await decodeBody(x, found, raw, principal, offload)
 */
export async function decodeBody(
  x: Exchange,
  found: RouteMatch,
  raw: Uint8Array,
  principal: Principal | null,
  offload: JsonBodyOffload | null,
  turn?: () => Promise<void>,
): Promise<unknown> {
  const { route } = found;
  // the request's hash needs the body's bytes afterwards when it creates with an Idempotency-Key
  const keyed = route.creates === true && principal !== null && x.request.headers.get('idempotency-key') !== null;
  const type = x.request.headers.get('content-type') ?? '';
  if (route.files && type.toLowerCase().startsWith(MULTIPART)) {
    // a route open to everyone has no plan: its body limit bounds the file
    const limit = x.fileLimit ?? { plan: '', bytes: Number.POSITIVE_INFINITY };
    const form = await parseMultipartBody(raw, type, route.requestSchema, found.compiled.checkBody, limit, turn);
    if (keyed) x.idempotencyBytes = form.canonical();
    return checked(found, form.body);
  }
  const body = await decodeJsonOrOther(x, found, raw, offload, keyed);
  if (x.fileLimit) checkJsonFileSize(body, x.fileLimit);
  return checked(found, body);
}

/**
 * `body`, recorded as accepted against the route's schema where the route's validator checked it (here, on the
 * offload's thread or as a multipart form's fields): the operation it goes to does not check it again.
 */
function checked(found: RouteMatch, body: unknown): unknown {
  const schema = found.route.requestSchema;
  if (schema && found.compiled.checkBody) markSchemaChecked(schema, body);
  return body;
}

/**
 * The body of a route that is not a multipart upload, as {@link decodeBody} gives it; `keyed`: the bytes are needed
 * afterwards (an offload that takes them gets a copy).
 */
async function decodeJsonOrOther(
  x: Exchange,
  found: RouteMatch,
  raw: Uint8Array,
  offload: JsonBodyOffload | null,
  keyed: boolean,
): Promise<unknown> {
  const { route } = found;
  if (route.ndjson && isNdjson(x.request)) {
    if (raw.length >= LARGE_BODY_BYTES) await nextMacrotask();
    const body = { items: parseNdjsonBody(raw) };
    found.compiled.checkBody?.(body);
    return body;
  }
  if (raw.length >= LARGE_BODY_BYTES && route.body === 'json' && offload) {
    // decoding, parsing and checking 10 MB take tens of ms: done on the offload's thread, which may take the
    // bytes (a copy goes where an Idempotency-Key needs them afterwards, for the request's hash)
    const body = await offload.parseJson(keyed ? raw.slice() : raw, route.requestSchema);
    // the parsed body came into this thread as a copy (10 MB of text: 10–15 ms): a turn before what the request does next
    await nextMacrotask();
    return body;
  }
  // … or here, with a turn of the loop for the other requests before and after
  if (raw.length >= LARGE_BODY_BYTES) await nextMacrotask();
  const body = route.body ? parseBody(route.body, raw, found.compiled) : undefined;
  if (raw.length >= LARGE_BODY_BYTES) await nextMacrotask();
  return body;
}

/** Whether the request's body is JSON lines (`application/x-ndjson`). */
function isNdjson(request: Request): boolean {
  const media = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  return media === MEDIA_TYPES.ndjson;
}

/**
 * A JSON-lines body as its values: UTF-8, one JSON value per line (`\n` or `\r\n`), blank lines skipped; each
 * value checked as a JSON body is (depth, lone surrogates), a refusal naming the line and, in `details.field`, the
 * item as a JSON body's `items` would (`items[0].content`).
 * @throws MALFORMED_JSON naming the line, INVALID_INPUT
 * @example parseNdjsonBody(new TextEncoder().encode('{"a":1}\n{"a":2}\n')) // [{ a: 1 }, { a: 2 }]
 */
export function parseNdjsonBody(raw: Uint8Array): unknown[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
  } catch {
    throw new TrainprintError('MALFORMED_JSON', 'the body is not valid UTF-8');
  }
  const out: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    try {
      out.push(parseJsonBody(new TextEncoder().encode(line)));
    } catch (e) {
      if (!(e instanceof TrainprintError)) throw new TrainprintError('MALFORMED_JSON', `line ${i + 1}: not JSON`);
      throw new TrainprintError(e.code, `line ${i + 1}: ${e.detail ?? e.message}`, lineCause(e, out.length));
    }
  }
  return out;
}

/** A line's refusal naming its field within the item the line is (`items[2].content`), as a JSON body's would. */
function lineCause(e: TrainprintError, index: number): { cause: object } | undefined {
  const { field, reason } = (e.cause ?? {}) as { field?: unknown; reason?: unknown };
  if (typeof field !== 'string' || typeof reason !== 'string') return undefined;
  const item = `items[${index}]`;
  const named = field === '' || field.startsWith('[') ? `${item}${field}` : `${item}.${field}`;
  return { cause: { location: 'body', field: named, reason } };
}

function parseBody(kind: 'json' | 'form' | 'binary', raw: Uint8Array, c: CompiledRoute): unknown {
  if (kind === 'binary') {
    if (raw.length === 0)
      throw new TrainprintError('INVALID_INPUT', 'the body: must not be empty', {
        cause: { location: 'body', reason: 'must not be empty' },
      });
    return raw;
  }
  if (kind === 'json') return parseJsonBody(raw, c.checkBody);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
  } catch {
    throw new TrainprintError('MALFORMED_JSON', 'the body is not valid UTF-8');
  }
  return new URLSearchParams(text);
}
