/**
 * `serve(handler, { port, host })`: a Fetch handler (`trainprint/http`'s `createHandler`) on
 * `node:http`. The request body streams into the handler (it counts bytes and can refuse an
 * oversized body before reading it all); the response body streams out with backpressure
 * (waiting for `drain`); a client that disconnects aborts the request's signal and cancels the
 * response stream. `GET /healthz` (the process serves) and `GET /readyz` (it can take traffic: 503 while it
 * drains or when `ready` says no) are answered before the handler, for load balancers.
 *
 * An answer given before the request body is read (401, 413, 429, 503) is never lost on the wire: a small rest of
 * the body is read and dropped and the connection kept; a large or unknown rest gets `Connection: close` and a
 * lingering close (the rest read and dropped for a bounded time, as nginx's `lingering_close`), because closing a
 * socket with unread input sends a TCP reset that can destroy the answer before the client reads it. Idle
 * keep-alive connections are kept longer than the `Keep-Alive: timeout` the server announces, so a client that
 * honours the announcement closes first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MESSAGES, TrainprintError } from '../library.js';
import { BodyPages, pastFreePieces } from './body-pages.js';
import { LingeringReads } from './linger.js';
import { UnreadRefusals } from './refusals.js';
import type { WorkerPool } from './offload.js';

/**
 * Options of {@link serve}.
 * @example await serve(handler, { port: 0, host: '127.0.0.1' }) // a free port
 */
export interface ServeOptions {
  /** TCP port; 0 picks a free one (read it from the returned `url`). @default 8787 */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' (use '0.0.0.0' to accept remote clients) */
  readonly host?: string;
  /**
   * The worker pool the handler offloads to (`createHandler(engine, { offload: pool })`): the server owns
   * it and closes it when it closes. @default none
   */
  readonly workers?: WorkerPool;
  /**
   * Whether the instance can take traffic, asked by `GET /readyz` (e.g. the store answers): false or a throw
   * is 503 with the reason. `GET /healthz` says only that the process serves. @default always ready
   */
  readonly ready?: () => boolean | Promise<boolean>;
  /**
   * How long an idle keep-alive connection is kept, in ms; `Keep-Alive: timeout` announces
   * {@link KEEP_ALIVE_MARGIN_MS} less, so that clients which honour it (undici, Node's fetch) close first and never
   * send on a connection the server is closing. @default 75000 (nginx's `keepalive_timeout`)
   */
  readonly keepAliveMs?: number;
  /**
   * The longest a request may take to arrive, headers and body, in ms (0: no bound of its own), answered 408
   * `REQUEST_TIMEOUT`. Node's default of 300 s cut bodies that met the handler's documented rate (4 KiB/s: a
   * 43 MiB upload takes three hours at that rate); the handler's own body deadlines bound a body instead (no byte
   * for 10 s, or less than 4 KiB/s on average after 10 s), and `headersTimeout` (60 s) the headers. @default 0
   */
  readonly requestTimeoutMs?: number;
}

/**
 * A running server.
 * @example
 * const server = await serve(handler)
 * await fetch(`${server.url}/api/v1/status`)
 * await server.close()
 */
export interface Server {
  /** `http://host:port` it listens on. */
  readonly url: string;
  readonly port: number;
  /**
   * Stop accepting connections, end the idle ones, wait until the requests in flight are answered, then close
   * its `workers`. With `drainMs`, first answer `GET /readyz` with 503 for that long while still serving, so a
   * load balancer takes the instance out before it stops listening.
   */
  close(options?: { readonly drainMs?: number }): Promise<void>;
}

/**
 * Serve a Fetch handler over HTTP/1.1.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { createHandler } from 'trainprint/http'
 * import { serve } from 'trainprint/node'
 * const server = await serve(createHandler(await createEngine()), { port: 8787 })
 * console.log(server.url) // http://127.0.0.1:8787
 * await server.close()
 * // long analyze and compare work off the request loop: a worker pool, closed with the server
 * const pool = createWorkerPool()
 * await serve(createHandler(engine, { offload: pool }), { workers: pool })
 */
export async function serve(
  handler: (request: Request) => Promise<Response>,
  options: ServeOptions = {},
): Promise<Server> {
  const port = options.port ?? 8787;
  const host = options.host ?? '127.0.0.1';
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (!Number.isInteger(keepAliveMs) || keepAliveMs < KEEP_ALIVE_MARGIN_MS + 1000)
    throw new TrainprintError('INVALID_OPTIONS', `keepAliveMs must be an integer ≥ ${KEEP_ALIVE_MARGIN_MS + 1000}`);
  const requestTimeoutMs = options.requestTimeoutMs ?? 0;
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 0)
    throw new TrainprintError('INVALID_OPTIONS', 'requestTimeoutMs must be an integer ≥ 0');
  const announced = `timeout=${Math.floor((keepAliveMs - KEEP_ALIVE_MARGIN_MS) / 1000)}`;
  let draining = false;
  const lingering = new LingeringReads();
  const refusals = new UnreadRefusals();
  const delayedRefusals = new Set<IncomingMessage>();
  // imported here, not at the top: a process that loads trainprint/node for anything else (a `trainprint scan`)
  // does not load node:http and node:net
  const { createServer } = await import('node:http');
  const { createHash } = await import('node:crypto');
  // the refusals are counted by a digest of the credentials, not the header itself: the table then holds no secret,
  // and each of its keys is 44 bytes where a header may be as long as node's header limit (16 KiB)
  const refusalKey = (authorization: string) => createHash('sha256').update(authorization).digest('base64');
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && (path === '/healthz' || path === '/readyz')) {
      void probe(path === '/healthz' ? null : draining ? 'draining' : options.ready, res, announced);
      return;
    }
    // counted per credentials: many honest clients may share an address (a proxy, a NAT), never a key
    const authorization = req.headers.authorization;
    if (authorization && declaredRest(req) > DRAIN_TO_KEEP_BYTES) {
      const key = refusalKey(authorization);
      const retryAfterS = refusals.retryAfterS(key);
      if (retryAfterS > 0) {
        refusals.record(key);
        refuseUnread(req, res, retryAfterS, lingering, delayedRefusals);
        return;
      }
    }
    const onRefusedUnread = authorization ? () => refusals.record(refusalKey(authorization)) : () => undefined;
    void bridge(handler, req, res, host, port, announced, lingering, onRefusedUnread);
  });
  // node closes an idle connection after keepAliveTimeout and would announce that very value: the announcement is
  // set per response (writeResponse) to less, so the client's idle timer runs out first
  server.keepAliveTimeout = keepAliveMs;
  server.requestTimeout = requestTimeoutMs;
  // requests node's own parser refuses (bad method, Content-Length, oversized headers) still get the
  // JSON error envelope, not a bare status line
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, code, message] = clientErrorAnswer(err.code);
    const body = JSON.stringify({ success: false, error: { code, message } });
    const id = `req_${globalThis.crypto.randomUUID().replace(/-/g, '')}`;
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}`,
    port: actual,
    close: async ({ drainMs = 0 } = {}) => {
      draining = true;
      if (drainMs > 0) await new Promise((r) => setTimeout(r, Math.min(drainMs, MAX_DRAIN_MS)));
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // a keep-alive connection turns idle once its response is out: end it then, not after the keep-alive timeout;
        // a lingering close (its answer out, the rest of its body read and dropped) is ended too, not waited for to
        // its LINGER_MS: server.close() waits for every connection
        const idle = setInterval(endIdle, 50);
        server.once('close', () => clearInterval(idle));
        endIdle();
      });
      await options.workers?.close();
    },
  };

  function endIdle(): void {
    server.closeIdleConnections();
    lingering.close();
  }
}

/** The answer to a request Node's parser gave up on: status, reason phrase, error code and message. */
function clientErrorAnswer(code: string | undefined): [number, string, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return [431, 'Request Header Fields Too Large', 'MALFORMED_REQUEST', 'The request headers are too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [
      408,
      'Request Timeout',
      'REQUEST_TIMEOUT',
      'The request did not arrive in time (its headers, or the whole request within requestTimeoutMs)',
    ];
  return [400, 'Bad Request', 'MALFORMED_REQUEST', 'The request could not be parsed as HTTP'];
}

/** Longest drain a close waits (a minute). */
const MAX_DRAIN_MS = 60_000;

/** Idle time of a keep-alive connection (nginx's default `keepalive_timeout`: 75 s). */
const DEFAULT_KEEP_ALIVE_MS = 75_000;
/**
 * How much less than its idle time the server announces in `Keep-Alive: timeout`: undici closes an idle
 * connection 1 s before the announced timeout, too little when its event loop or the server's is busy (a request
 * sent as the server closes ends in "other side closed"); 5 s more on the server's side leave room for that.
 */
export const KEEP_ALIVE_MARGIN_MS = 5_000;
/** Bytes of a request body read ahead of its reader before the socket is paused, once the reader has begun. */
const BODY_QUEUE_BYTES = 1 << 20;

/**
 * The rest of a request body, after an early answer, that is read and dropped to keep the connection (128 KiB: the
 * texts of a few analyze calls). A larger or unknown rest closes the connection after a lingering close. At 1 MiB, a
 * refused account's 40 connections sending bodies of 1,029,996 bytes kept the server reading them at 1.3–2 GB/s on
 * kept connections, and another account's 2 MB analyze took 12× its time alone (bench/subline-drain.mjs).
 */
const DRAIN_TO_KEEP_BYTES = 128 << 10;
/**
 * Bounds of one lingering close: the rest of the body is read and dropped until the client closes, for at most
 * LINGER_MS in all and LINGER_BYTES (nginx: `lingering_time` 30 s, `lingering_timeout` 5 s); then the socket is
 * destroyed. A client that honours `Connection: close` closes as soon as it has the answer. All lingering connections
 * of a server share one budget of reading (./linger.ts).
 */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 << 20;

/**
 * Answer a health probe: `null` → 200 `{ status: 'ok' }` (liveness); `'draining'` → 503; a readiness check →
 * 200 `{ status: 'ready' }`, or 503 `{ status: 'not_ready', reason }` when it says false or throws (within 2 s).
 */
async function probe(
  check: null | 'draining' | (() => boolean | Promise<boolean>) | undefined,
  res: ServerResponse,
  keepAlive: string,
): Promise<void> {
  let status = 200,
    body: Record<string, string> = { status: check === null ? 'ok' : 'ready' };
  if (check === 'draining') [status, body] = [503, { status: 'draining' }];
  else if (typeof check === 'function') {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in 2 s')), 2000);
    });
    try {
      const ok = await Promise.race([Promise.resolve().then(check), late]);
      if (!ok) [status, body] = [503, { status: 'not_ready', reason: 'not ready' }];
    } catch (e) {
      // the reason says what kind of thing failed, in the error table's words: the probe answers anyone, and a store's
      // own message names its user, host and database
      const reason = e instanceof TrainprintError ? `${e.code}: ${MESSAGES[e.code]}` : 'the readiness check failed';
      [status, body] = [503, { status: 'not_ready', reason }];
    } finally {
      clearTimeout(timer);
    }
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...(res.shouldKeepAlive ? { connection: 'keep-alive', 'keep-alive': keepAlive } : {}),
  });
  res.end(text);
}

async function bridge(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  port: number,
  keepAlive: string,
  lingering: LingeringReads,
  onRefusedUnread: () => void,
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let response: Response;
  const body = new RequestBody(req, abort);
  const requestId = newRequestId();
  const url = requestUrl(req, host, port);
  if (url === null) {
    // RFC 9112 §3.2: a request whose Host is not a host and port (credentials, spaces, a path) is a 400
    response = bridgeError(400, 'MALFORMED_REQUEST', 'the Host header is not a host name and port', requestId);
  } else {
    try {
      response = FETCH_FORBIDDEN_METHODS.has((req.method ?? '').toUpperCase())
        ? await forbiddenMethod(handler, url, req.method ?? '', requestId)
        : await handler(toRequest(req, url, abort, body));
    } catch (e) {
      // the handler answers every error itself; this is the bridge's own failure, logged as the handler's 500s are
      logBridgeError(e, requestId, req.method ?? '');
      response = bridgeError(500, 'INTERNAL', 'An unexpected error occurred', requestId);
    }
  }
  await writeResponse(response, req, res, abort.signal, body, keepAlive, lingering, onRefusedUnread);
}

/** The body a request's headers announce: its Content-Length, Infinity when chunked, 0 when it has none. */
function declaredRest(req: IncomingMessage): number {
  if (req.headers['transfer-encoding'] !== undefined) return Infinity;
  const declared = Number(req.headers['content-length'] ?? 0);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : Infinity;
}

/**
 * Answer 429 from the headers of a request whose key had too many large bodies refused unread in its window
 * (./refusals.ts), and close without reading the body: neither the handler nor the body's reading is paid for. The
 * answer waits {@link REFUSED_UNREAD_DELAY_MS} (the socket paused, unread), {@link MAX_DELAYED_REFUSALS} at most at
 * once: answered at once, a flood that opens a connection per refused body only opened them faster (235 a second in
 * one run of bench/subline-drain.mjs, about 100 in earlier runs where each was handled, and node read each body
 * through its parser once the answer was out). Then the connection lingers paused for its answer to reach the client,
 * and is destroyed.
 */
function refuseUnread(
  req: IncomingMessage,
  res: ServerResponse,
  retryAfterS: number,
  lingering: LingeringReads,
  delayed: Set<IncomingMessage>,
): void {
  const socket = req.socket as Socket & { destroySoon(): void };
  socket.destroySoon = () => {
    socket.on('error', () => undefined); // a reset by the client, now: nothing is left to answer
    socket.end();
    lingering.add(socket, { ms: LINGER_MS, bytes: 0 });
    // node resumes an unread request once its answer is out, to read its body through; paused, it reads no further
    // than the request stream's buffer
    req.pause();
  };
  const answer = () => {
    delayed.delete(req);
    if (socket.destroyed) return;
    const requestId = newRequestId();
    const text = errorText(
      'RATE_LIMITED',
      `Too many large request bodies from this key were refused unread; send again in ${retryAfterS} s`,
      requestId,
    );
    res.writeHead(429, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      'retry-after': String(retryAfterS),
      'x-request-id': requestId,
      connection: 'close',
    });
    res.end(text);
  };
  if (delayed.size >= MAX_DELAYED_REFUSALS) {
    answer();
    return;
  }
  delayed.add(req);
  socket.pause();
  const timer = setTimeout(answer, REFUSED_UNREAD_DELAY_MS);
  timer.unref?.();
  socket.once('close', () => {
    clearTimeout(timer);
    delayed.delete(req);
  });
}

/** How long a request refused from its headers (refuseUnread) waits for its answer. */
const REFUSED_UNREAD_DELAY_MS = 1000;
/** Refusals from the headers waiting for their answer at once; past it one is answered at once. */
const MAX_DELAYED_REFUSALS = 256;

/**
 * The header the bridge sets to the socket's peer address (an incoming one is dropped, so a client cannot choose
 * it): a handler reads it with `createHandler(engine, { clientAddress: (r) => r.headers.get(CLIENT_ADDRESS_HEADER) })`.
 */
export const CLIENT_ADDRESS_HEADER = 'x-trainprint-client-address';

/** Methods the Fetch standard forbids in a Request (it throws on them). */
const FETCH_FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** An error answered by the bridge itself, in the handler's envelope, with a request id. */
/** A request id as the handler makes them (`req_` and 24 hex digits), for the answers the bridge gives itself. */
function newRequestId(): string {
  return `req_${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(12))).toString('hex')}`;
}

/** The JSON error envelope of an answer the bridge gives itself, as the handler words its own. */
function errorText(code: string, message: string, requestId: string): string {
  return JSON.stringify({ success: false, error: { code, message, details: { request_id: requestId } } });
}

/**
 * One JSON line on stderr for the bridge's own 500, in the shape of the handler's (src/http/pipeline/failure.ts
 * `logServerError`: this module does not load the HTTP entry), so an operator finds it by the client's request id.
 */
function logBridgeError(error: unknown, requestId: string, method: string): void {
  const e = error instanceof Error ? { class: error.name, message: error.message, stack: error.stack ?? null } : null;
  const line = { time: new Date().toISOString(), level: 'error', msg: 'request failed: 500', request_id: requestId };
  console.error(
    JSON.stringify({ ...line, method, route: null, operation: 'bridge', error: e ?? { message: String(error) } }),
  );
}

function bridgeError(status: number, code: string, message: string, requestId: string): Response {
  return jsonAnswer(status, errorText(code, message, requestId), requestId);
}

/** An answer the bridge gives itself: its JSON with the headers the handler's errors carry. */
function jsonAnswer(status: number, text: string, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: {
      ...headers,
      'cache-control': 'no-store',
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
    },
  });
}

/**
 * The answer to a method a Fetch Request cannot carry (CONNECT, TRACE, TRACK; TRACE would echo credentials back),
 * as the handler answers any method a path does not take: the handler is asked the path's methods with a bodiless
 * OPTIONS — which no route takes — so a path with routes gets 405 with its own `Allow` and one without gets its 404.
 * @example await forbiddenMethod(handler, new URL('http://h/api/v1/usage'), 'TRACE', id) // 405, allow: GET, HEAD
 */
async function forbiddenMethod(
  handler: (request: Request) => Promise<Response>,
  url: URL,
  method: string,
  requestId: string,
): Promise<Response> {
  const probe = await handler(new Request(url, { method: 'OPTIONS' }));
  const allow = probe.headers.get('allow');
  if (probe.status !== 405 && allow === null) return probe; // a 404 (or 400) of the path itself
  await probe.body?.cancel();
  const allowed = allow ?? '';
  const message = `${MESSAGES.METHOD_NOT_ALLOWED}: ${method} is not allowed on ${url.pathname}; allowed: ${allowed}`;
  const details = { allow: allowed.split(',').flatMap((m) => (m.trim() === '' ? [] : [m.trim()])) };
  const text = JSON.stringify({ success: false, error: { code: 'METHOD_NOT_ALLOWED', message, details } });
  return jsonAnswer(405, text, requestId, { allow: allowed });
}

/**
 * The request's URL: the Host header's host and port (the server's own without one), the request target's path and
 * query as written — a path of `//api/v1/x` is that path, not a host `api` — or null where the Host header is not a
 * host and port (RFC 9112 §3.2: credentials, a path, spaces or an unclosed bracket in it). An absolute target
 * (`GET http://h/p`) gives its path and query.
 */
function requestUrl(req: IncomingMessage, host: string, port: number): URL | null {
  let url: URL;
  try {
    url = new URL(`http://${req.headers.host ?? `${host}:${port}`}`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
  let target = req.url ?? '/';
  if (!target.startsWith('/')) {
    try {
      const absolute = new URL(target);
      target = `${absolute.pathname}${absolute.search}`;
    } catch {
      target = '/__invalid__'; // '*' and the like: no route has it
    }
  }
  const query = target.indexOf('?');
  url.pathname = query < 0 ? target : target.slice(0, query);
  url.search = query < 0 ? '' : target.slice(query);
  return url;
}

function toRequest(req: IncomingMessage, url: URL, abort: AbortController, body: RequestBody): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === CLIENT_ADDRESS_HEADER) continue; // only the bridge says where it came from
    try {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    } catch {
      // a header value Fetch refuses (control characters) is dropped rather than failing the request
    }
  }
  if (req.socket.remoteAddress) headers.set(CLIENT_ADDRESS_HEADER, req.socket.remoteAddress);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: abort.signal };
  if (hasBody) {
    init.body = body.stream();
    init.duplex = 'half'; // a streamed request body (Node's fetch requires saying so)
  }
  return new Request(url, init);
}

/**
 * The request body of one request: a web stream with backpressure (nothing is read from the socket until the handler
 * reads, then the socket is paused while {@link BODY_QUEUE_BYTES} wait in the stream's queue), the bytes received so
 * far, and `discard()`, which reads and drops the rest. Unlike `Readable.toWeb`, cancelling the stream does not destroy the socket: a handler that refuses a body (413, 415)
 * must still be able to send its answer, so the rest of the body is dropped instead (see {@link writeResponse}).
 */
class RequestBody {
  /** Bytes of the body received from the client so far (read by the handler or not). */
  received = 0;
  #done = false;
  constructor(
    private readonly req: IncomingMessage,
    private readonly abort: AbortController,
  ) {}

  /** The body as a web stream (made once, by the request). */
  stream(): ReadableStream<Uint8Array> {
    const { req, abort } = this;
    let reading = false;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          // small pieces are gathered into pages (./body-pages.ts); what one socket read brought goes on together,
          // once the parser has handed over all of its pieces (a microtask later)
          const pages = new BodyPages();
          let flushing = false;
          const flush = () => {
            flushing = false;
            if (this.#done) return;
            const rest = pages.flush();
            if (rest !== null) controller.enqueue(rest);
            if ((controller.desiredSize ?? 0) <= -BODY_QUEUE_BYTES) req.pause();
          };
          this.#enqueue = (chunk: Buffer) => {
            this.received += chunk.byteLength;
            if (this.#done) {
              this.#drop(chunk);
              return;
            }
            let ready: Uint8Array[];
            try {
              ready = pages.add(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            } catch (e) {
              // too many pieces: the handler reads this error (400), the rest of the body is not read
              this.#done = true;
              this.#tooManyPieces = true;
              controller.error(e);
              this.discard();
              return;
            }
            for (const out of ready) controller.enqueue(out);
            if (!flushing) {
              flushing = true;
              queueMicrotask(flush);
            }
          };
          req.once('end', () => {
            if (!this.#done) {
              flush();
              this.#done = true;
              controller.close();
            }
          });
          // the client went away mid-body: the request's signal says so before the read fails (the handler then
          // knows it for a client's doing, not the service's)
          const gone = (e: unknown) => {
            if (this.#done) return;
            this.#done = true;
            abort.abort();
            controller.error(e);
          };
          req.once('error', gone);
          req.once('aborted', () => gone(new Error('client aborted the request')));
        },
        // called only when the handler reads (the queue's high-water mark is 0): nothing of a body is read from the
        // socket before then — a body that waits for its place (its account's uploads in flight, the large requests
        // full) stays with the client, held by TCP's flow control. Once read, up to BODY_QUEUE_BYTES are read ahead.
        pull: () => {
          if (!reading) {
            reading = true;
            if (!this.#done) req.on('data', (chunk: Buffer) => this.#enqueue(chunk));
          }
          req.resume();
        },
        cancel: () => this.discard(),
      },
      { highWaterMark: 0, size: (c) => c.byteLength },
    );
  }

  #enqueue: (chunk: Buffer) => void = () => undefined;
  #tooManyPieces = false;
  /** Pieces and bytes of the rest dropped by {@link discard}, bounded as a read body's pieces are. */
  #droppedPieces = 0;
  #droppedBytes = 0;
  /** Told once when the rest stops being read for its pieces (the connection is then closed, not kept). */
  onCut: (() => void) | undefined;

  /** Whether the rest of the body is no longer read (it came in too many pieces): its connection cannot be kept. */
  get cut(): boolean {
    return this.#tooManyPieces;
  }

  /** Read the rest of the body and drop it (what the handler did not read is not kept either). */
  discard(): void {
    this.#done = true;
    const { req } = this;
    if (this.#tooManyPieces) {
      this.#stopReading();
      return;
    }
    if (req.listenerCount('data') === 0)
      req.on('data', (chunk: Buffer) => {
        this.received += chunk.byteLength;
        this.#drop(chunk);
      });
    req.resume();
  }

  /**
   * One piece of the rest, dropped. Past the pieces any body may cost ({@link pastFreePieces}) the rest is not read
   * on: a body answered before it was read (401, 413, 429 …) and sent a byte a chunk had its whole rest parsed while
   * its connection lingered, up to 64 MiB and 5 s of a piece per wire chunk — seconds of the event loop's time per
   * body, during which no other request, probe or timer was served.
   */
  #drop(chunk: Buffer): void {
    if (this.#tooManyPieces) return;
    this.#droppedPieces++;
    this.#droppedBytes += chunk.byteLength;
    if (!pastFreePieces(this.#droppedPieces, this.#droppedBytes)) return;
    this.#tooManyPieces = true;
    this.#stopReading();
    this.onCut?.();
  }

  /**
   * A body refused for its pieces is not read on: parsing the rest of it is the cost it was refused for. The request
   * is paused as well as its socket, so that the request stream's own reads do not start the socket again; the socket
   * lingers paused, then closes.
   */
  #stopReading(): void {
    this.req.pause();
    this.req.socket?.pause();
  }

  /** Bytes of the body not received yet: Content-Length less what came; Infinity when chunked. */
  remaining(): number {
    const { complete, headers } = this.req;
    if (complete) return 0;
    if (headers['transfer-encoding'] !== undefined) return Infinity;
    const declared = Number(headers['content-length'] ?? 0);
    return Number.isSafeInteger(declared) && declared >= 0 ? Math.max(0, declared - this.received) : Infinity;
  }
}

/**
 * Close `socket` after an answer without losing it: the answer is out (FIN sent), and what the client still sends
 * is read and dropped until it closes, at most LINGER_MS and LINGER_BYTES and at the server's shared pace; then the
 * socket is destroyed. Closing at once with unread input would send a reset, which can reach the client before it
 * has read the answer. A body refused for its pieces is not read on: it lingers paused.
 */
function lingeringClose(socket: Socket, body: RequestBody, lingering: LingeringReads): void {
  body.discard();
  socket.on('error', () => undefined); // a reset by the client, now: nothing is left to answer
  socket.end();
  lingering.add(socket, { ms: LINGER_MS, bytes: body.cut ? 0 : LINGER_BYTES });
}

async function writeResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
  body: RequestBody,
  keepAlive: string,
  lingering: LingeringReads,
  onRefusedUnread: () => void,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    if (k !== 'set-cookie') headers[k] = v;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  // an answer given before the request body was read (413, 415, 401, 429, 503 …): a small rest is read and dropped
  // and the connection kept; a large or undeclared one is not waited for: Connection: close, then a lingering
  // close once the answer is out (node would destroy the socket at once, with the client still sending: a reset)
  const rest = body.remaining();
  if (rest > DRAIN_TO_KEEP_BYTES || body.cut) {
    // a client refused with its large body unread opens a new connection for its next one: counted against its key
    if (rest > 0 && response.status >= 400 && response.status < 500) onRefusedUnread();
    headers.connection = 'close';
    const socket = req.socket;
    // node ends a `Connection: close` response's socket with destroySoon(): this socket lingers instead
    (socket as Socket & { destroySoon(): void }).destroySoon = () => lingeringClose(socket, body, lingering);
  } else {
    // a small rest that turns out to come in too many pieces is not read on: the connection then closes after the
    // answer, as a large rest's does
    body.onCut = () => {
      const linger = () => lingeringClose(req.socket, body, lingering);
      if (res.writableFinished) linger();
      else res.once('finish', linger);
    };
    if (rest > 0) body.discard();
    // node would announce its own keepAliveTimeout; a client that waits that long races the server's close
    if (res.shouldKeepAlive && !('connection' in headers)) {
      headers.connection = 'keep-alive';
      headers['keep-alive'] = keepAlive;
    }
  }
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (!response.body || req.method === 'HEAD') {
    res.end();
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const reader = response.body.getReader();
  const onAbort = () => {
    void reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
        if (signal.aborted) return;
      }
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
