/**
 * `serve(handler, { port, host })`: a Fetch handler (`trainprint/http`'s `createHandler`) on
 * `node:http`. The request body streams into the handler (it counts bytes and can refuse an
 * oversized body before reading it all); the response body streams out with backpressure
 * (waiting for `drain`); a client that disconnects aborts the request's signal and cancels the
 * response stream. `GET /healthz` (the process serves) and `GET /readyz` (it can take traffic: 503 while it
 * drains or when `ready` says no) are answered before the handler, for load balancers.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  let draining = false;
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && (path === '/healthz' || path === '/readyz')) {
      void probe(path === '/healthz' ? null : draining ? 'draining' : options.ready, res);
      return;
    }
    void bridge(handler, req, res, host, port);
  });
  // requests node's own parser refuses (bad method, Content-Length, oversized headers) still get the
  // JSON error envelope, not a bare status line
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({
      success: false,
      error: {
        code: 'MALFORMED_REQUEST',
        message: status === 431 ? 'The request headers are too large' : 'The request could not be parsed as HTTP',
      },
    });
    const id = `req_${globalThis.crypto.randomUUID().replace(/-/g, '')}`;
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
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
        // a keep-alive connection turns idle once its response is out: end it then, not after the keep-alive timeout
        const idle = setInterval(() => server.closeIdleConnections(), 50);
        server.once('close', () => clearInterval(idle));
        server.closeIdleConnections();
      });
      await options.workers?.close();
    },
  };
}

/** Longest drain a close waits (a minute). */
const MAX_DRAIN_MS = 60_000;

/**
 * Answer a health probe: `null` → 200 `{ status: 'ok' }` (liveness); `'draining'` → 503; a readiness check →
 * 200 `{ status: 'ready' }`, or 503 `{ status: 'not_ready', reason }` when it says false or throws (within 2 s).
 */
async function probe(
  check: null | 'draining' | (() => boolean | Promise<boolean>) | undefined,
  res: ServerResponse,
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
      // the reason names what failed (a store's message never carries its password), nothing more
      [status, body] = [503, { status: 'not_ready', reason: e instanceof Error ? e.message.slice(0, 200) : 'failed' }];
    } finally {
      clearTimeout(timer);
    }
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function bridge(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  port: number,
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let response: Response;
  const requestId = `req_${randomBytes(12).toString('hex')}`;
  if (FETCH_FORBIDDEN_METHODS.has((req.method ?? '').toUpperCase())) {
    // a Fetch Request cannot carry these methods (TRACE would echo credentials back): refused here, as the handler
    // refuses any method a path does not serve
    response = bridgeError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on this server`, requestId);
  } else {
    try {
      response = await handler(toRequest(req, abort, host, port));
    } catch {
      // the handler answers every error itself; this is the bridge's own failure (e.g. a header Fetch refuses)
      response = bridgeError(500, 'INTERNAL', 'An unexpected error occurred', requestId);
    }
  }
  await writeResponse(response, req, res, abort.signal);
}

/**
 * The header the bridge sets to the socket's peer address (an incoming one is dropped, so a client cannot choose
 * it): a handler reads it with `createHandler(engine, { clientAddress: (r) => r.headers.get(CLIENT_ADDRESS_HEADER) })`.
 */
export const CLIENT_ADDRESS_HEADER = 'x-trainprint-client-address';

/** Methods the Fetch standard forbids in a Request (it throws on them). */
const FETCH_FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** An error answered by the bridge itself, in the handler's envelope, with a request id. */
function bridgeError(status: number, code: string, message: string, requestId: string): Response {
  return new Response(
    JSON.stringify({ success: false, error: { code, message, details: { request_id: requestId } } }),
    {
      status,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-request-id': requestId,
        ...(status === 405 ? { allow: 'GET, HEAD, POST, DELETE' } : {}),
      },
    },
  );
}

function toRequest(req: IncomingMessage, abort: AbortController, host: string, port: number): Request {
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
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host ?? `${host}:${port}`}`);
  } catch {
    url = new URL(`http://${host}:${port}/`);
    url.pathname = '/__invalid__';
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: abort.signal };
  if (hasBody) {
    init.body = bodyStream(req, abort);
    init.duplex = 'half'; // a streamed request body (Node's fetch requires saying so)
  }
  return new Request(url, init);
}

/**
 * The request body as a web stream with backpressure (the socket is paused while the stream's
 * queue is full). Unlike `Readable.toWeb`, cancelling it does not destroy the socket: a handler
 * that refuses a body (413, 415) must still be able to send its answer, so the rest of the body
 * is discarded instead and the connection closed after the response.
 */
function bodyStream(req: IncomingMessage, abort: AbortController): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        });
        req.once('end', () => {
          if (!done) {
            done = true;
            controller.close();
          }
        });
        // the client went away mid-body: the request's signal says so before the read fails (the handler then knows
        // it for a client's doing, not the service's)
        const gone = (e: unknown) => {
          if (done) return;
          done = true;
          abort.abort();
          controller.error(e);
        };
        req.once('error', gone);
        req.once('aborted', () => gone(new Error('client aborted the request')));
      },
      pull() {
        req.resume();
      },
      cancel() {
        done = true;
        req.resume(); // flowing with no consumer: the rest is read and dropped
      },
    },
    { highWaterMark: 1 << 20, size: (c) => c.byteLength },
  );
}

async function writeResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    if (k !== 'set-cookie') headers[k] = v;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  // an answer given before the request body was read (413, 415, 401 …): close the connection
  // instead of draining a body the client may still be sending
  if (!req.complete) headers.connection = 'close';
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
