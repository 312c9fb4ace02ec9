/**
 * `resolveHost`: Node's host resolver for the egress checks of the HTTP handler
 * (`createHandler(engine, { resolveHost })`, `egressFetch(resolveHost)` from `trainprint/http`).
 * It looks the name up once (`node:dns` `lookup` with `all: true`: every A and AAAA answer the
 * system resolver gives, /etc/hosts included) and returns the addresses with a `fetch` that
 * connects only to them: `node:http(s)` requests whose `lookup` hook answers with the checked
 * addresses instead of asking DNS again. The handler refuses the name when any address is
 * internal, so the connection goes to an address that was checked, and a second DNS answer (DNS
 * rebinding) never reaches it. TLS still verifies the certificate against the URL's host name.
 *
 * The pinned fetch covers what the model adapter and the webhook deliverer use: a method, headers,
 * a string or bytes body, an abort signal, and `redirect: 'error'` or `'manual'` (a redirect is
 * never followed). Each request has its own connection (`agent: false`): a pooled socket to the
 * same host name could have been opened to another address.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';

/**
 * What {@link resolveHost} found: the addresses and a fetch pinned to them.
 * @example const { addresses } = await resolveHost('example.org')
 */
export interface PinnedHost {
  /** Every address of the name, in the resolver's order. */
  readonly addresses: readonly string[];
  /** A fetch for URLs of this host that connects to `addresses` only. */
  readonly fetch: typeof fetch;
}

/**
 * Resolve `hostname` once and pin the connections to what it resolved to.
 * @throws the resolver's error (`ENOTFOUND` …) when the name does not resolve
 * @example
 * import { createHandler } from 'trainprint/http'
 * import { resolveHost } from 'trainprint/node'
 * const handler = createHandler(engine, { resolveHost })
 */
export async function resolveHost(hostname: string): Promise<PinnedHost> {
  // imported here, not at the top: every process that loads trainprint/node (a `trainprint scan`) would load
  // node:dns, node:http, node:https and TLS for a resolver that only the HTTP service's egress uses
  const [{ lookup: dnsLookup }, { request: httpRequest }, { request: httpsRequest }] = await Promise.all([
    import('node:dns'),
    import('node:http'),
    import('node:https'),
  ]);
  const found = await new Promise<LookupAddress[]>((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
  const pinned = found.map((a) => ({ address: a.address, family: a.family }));
  const requests = { http: httpRequest, https: httpsRequest as typeof httpRequest };
  return { addresses: pinned.map((a) => a.address), fetch: pinnedFetch(hostname, pinned, requests) };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A fetch for `hostname` whose connections go to `addresses` (never a new lookup), sent by node:http(s)'s `request`. */
function pinnedFetch(
  hostname: string,
  addresses: readonly LookupAddress[],
  requests: { readonly http: typeof httpRequest; readonly https: typeof httpRequest },
): typeof fetch {
  // net.connect calls this instead of dns.lookup; with autoSelectFamily it asks for `all`
  const lookup = (_name: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = family === undefined ? [...addresses] : addresses.filter((a) => a.family === family);
    if (usable.length === 0) {
      const err = Object.assign(new Error(`no checked IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' });
      callback(err, '', 0);
    } else if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  };
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // the addresses were checked for this name only; a URL of another host needs its own lookup
    if (host !== hostname) throw new TypeError(`this fetch is pinned to ${hostname}, not ${host}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`unsupported protocol ${url.protocol}`);
    }
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    const send = url.protocol === 'https:' ? requests.https : requests.http;
    return new Promise<Response>((resolve, reject) => {
      const req = send(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: request.method,
          headers,
          lookup: lookup as never,
          agent: false,
          signal: request.signal,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400 && request.redirect === 'error') {
            res.resume();
            reject(new TypeError(`redirect refused (status ${status})`));
            return;
          }
          if (status < 200 || status > 599) {
            res.destroy();
            reject(new TypeError(`unexpected status ${status}`));
            return;
          }
          const h = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            try {
              h.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
            } catch {
              // a header value Fetch refuses is dropped, as the server's bridge does
            }
          }
          const empty = status === 204 || status === 205 || status === 304 || request.method === 'HEAD';
          if (empty) res.resume();
          const stream = empty ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: h }));
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  };
}
