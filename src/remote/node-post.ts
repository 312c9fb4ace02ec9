/**
 * One JSON POST through `node:http` / `node:https` with a keep-alive agent per process, where the runtime lends those
 * modules (Node ≥ 20.16: `process.getBuiltinModule`) and the caller passed no `fetch` of its own. A search of a long
 * work makes hundreds of calls per corpus, and a call through the WHATWG `fetch` of Node (undici: a Request, a
 * Response, web streams and an AbortSignal each) cost the client about 0.45 ms of CPU on this path, where a plain
 * request costs a third of that: with seven corpora at once on a small machine that CPU was the wall time
 * (bench/whole-works.mjs, `seven`). Browsers, Deno and Workers keep `fetch`.
 *
 * It answers what the transport reads of a `Response` — status, two headers and the body as text, with the same
 * size cap — and fails as `fetch` fails: a connection that cannot be made or breaks rejects, the caller's abort
 * rejects; a redirect is never followed, it rejects with {@link RedirectRefused} (as the transport's `fetch` path does).
 */
import { concatBytes } from '../util/bytes.js';
import { BodyTooLarge } from '../util/http-body.js';

/**
 * A redirect answered to a call: never followed (an engine's API is one address; a redirect is a moved or a
 * misconfigured endpoint), and not a failure to answer: the endpoint answered, with the wrong address.
 *
 * @example new RedirectRefused(301, 'https://example.org/').message // 'redirect (status 301) to https://example.org/ refused'
 */
export class RedirectRefused extends Error {
  constructor(
    readonly status: number,
    readonly location: string | null,
  ) {
    super(`redirect (status ${status})${location ? ` to ${location}` : ''} refused`);
    this.name = 'RedirectRefused';
  }
}

/** What the transport reads of an answer. */
export interface PostAnswer {
  readonly status: number;
  header(name: string): string | null;
  /** The body as UTF-8 text, refusing more than the cap ({@link BodyTooLarge}); rejects when the body breaks off. */
  text(): Promise<string>;
}

/** A POST of a JSON payload: the answer's head (the body is read by `text()`), or a rejection as `fetch` gives. */
export type JsonPost = (url: string, payload: string, signal: AbortSignal, maxBytes: number) => Promise<PostAnswer>;

interface IncomingLike {
  readonly statusCode?: number;
  readonly headers: Record<string, string | string[] | undefined>;
  on(event: 'data', f: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', f: () => void): unknown;
  on(event: 'error', f: (e: Error) => void): unknown;
  destroy(e?: Error): unknown;
  readonly complete: boolean;
}
interface RequestLike {
  on(event: 'response', f: (res: IncomingLike) => void): unknown;
  on(event: 'error', f: (e: Error) => void): unknown;
  end(body: string): unknown;
  destroy(e?: Error): unknown;
}
interface HttpModule {
  request(url: URL, options: Record<string, unknown>): RequestLike;
  Agent: new (options: Record<string, unknown>) => unknown;
}

const builtin = (id: string): HttpModule | undefined => {
  try {
    const g = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown; versions?: { node?: string } } };
    // Deno and Bun lend node: modules too, but their own fetch is the one they tune
    if ('Deno' in globalThis || 'Bun' in globalThis || !g.process?.versions?.node) return undefined;
    const get = g.process.getBuiltinModule;
    const m = typeof get === 'function' ? (get(id) as Partial<HttpModule> | undefined) : undefined;
    return m && typeof m.request === 'function' && typeof m.Agent === 'function' ? (m as HttpModule) : undefined;
  } catch {
    return undefined;
  }
};

/** Idle sockets are closed after this long (ms): engines behind proxies drop idle connections after tens of seconds. */
const IDLE_MS = 4_000;

/**
 * The Node poster, or undefined where the runtime has no `node:http` to lend.
 * @example const post = nodeJsonPost(); if (post) await (await post(url, '{}', signal, 1 << 20)).text()
 */
export function nodeJsonPost(): JsonPost | undefined {
  if (cached !== null) return cached;
  const http = builtin('node:http'),
    https = builtin('node:https');
  if (!http || !https) {
    cached = undefined;
    return cached;
  }
  const agents = {
    'http:': { module: http, agent: new http.Agent({ keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' }) },
    'https:': { module: https, agent: new https.Agent({ keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' }) },
  };
  cached = (url, payload, signal, maxBytes) =>
    new Promise<PostAnswer>((resolve, reject) => {
      const u = new URL(url);
      const via = agents[u.protocol as 'http:' | 'https:'];
      if (!via) {
        reject(new TypeError(`unsupported protocol ${u.protocol}`));
        return;
      }
      const req = via.module.request(u, {
        method: 'POST',
        agent: via.agent,
        signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': String(byteLength(payload)),
        },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          const to = res.headers.location;
          res.destroy();
          reject(new RedirectRefused(status, typeof to === 'string' ? to : null));
          return;
        }
        const header = (name: string): string | null => {
          const v = res.headers[name.toLowerCase()];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        };
        const body = readCapped(res, maxBytes, header('content-length'));
        body.catch(() => undefined); // read by text(); a caller that never asks must not see it unhandled
        resolve({ status, header, text: () => body });
      });
      req.end(payload);
    });
  return cached;
}
let cached: JsonPost | undefined | null = null;

const encoder = new TextEncoder();
const byteLength = (s: string): number => {
  // ASCII is the common case (JSON of a query); count the rest exactly
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return encoder.encode(s).length;
  return s.length;
};

function readCapped(res: IncomingLike, maxBytes: number, declared: string | null): Promise<string> {
  return new Promise((resolve, reject) => {
    const n = Number(declared);
    if (declared !== null && Number.isFinite(n) && n > maxBytes) {
      res.destroy();
      reject(new BodyTooLarge(n, maxBytes, true));
      return;
    }
    const parts: Uint8Array[] = [];
    let size = 0;
    let done = false;
    res.on('data', (chunk) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        done = true;
        res.destroy();
        reject(new BodyTooLarge(size, maxBytes, false));
        return;
      }
      parts.push(chunk);
    });
    res.on('end', () => {
      if (done) return;
      done = true;
      resolve(new TextDecoder().decode(concatBytes(parts, size)));
    });
    res.on('error', (e) => {
      if (done) return;
      done = true;
      reject(e);
    });
    res.on('close', () => {
      if (done) return;
      done = true;
      reject(new Error('the connection closed mid-body'));
    });
  });
}
