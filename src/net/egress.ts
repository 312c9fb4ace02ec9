/**
 * Which model services the memorization routes may call. A request names its target model by
 * URL (`model.base_url`), and the server then makes requests to that URL: without a policy that
 * is server-side request forgery (SSRF) — a client could aim the server at `127.0.0.1`, the
 * cloud metadata service (`169.254.169.254`) or any host of the private network behind it.
 *
 * The default policy refuses URLs whose host is
 * - an IP literal in a loopback, private, link-local, carrier-grade NAT, unspecified, multicast,
 *   benchmarking or reserved range (IPv4, IPv6, and IPv4 embedded in or translated to IPv6 — mapped, compatible,
 *   SIIT, NAT64 well-known and local-use, 6to4, Teredo — judged by the IPv4 inside);
 * - `localhost` or a name under `.localhost`, `.localdomain`, `.local` (mDNS, Kubernetes'
 *   `.cluster.local`), `.svc`, `.internal`, `.intranet`, `.corp`, `.home`, `.home.arpa`, `.lan`,
 *   `.private`;
 * - a single-label name (`redis`, `model-server`): resolved through the search domains of the
 *   server's network, i.e. internal.
 * `createHandler(engine, { allowPrivateModelHosts: true })` lifts it (a model server on the same
 * machine or network); `modelHosts: (url) => boolean` replaces it (an allow-list). Redirects are
 * never followed (the model adapter fetches with `redirect: 'error'`), so an allowed host cannot
 * bounce the request elsewhere.
 *
 * Names are also resolved when the handler is given a resolver (`createHandler(engine,
 * { resolveHost })`; `trainprint serve` wires the Node one, `resolveHost` of `trainprint/node`):
 * a name is refused when ANY of its addresses is internal ({@link isInternalAddress}), so
 * `127.0.0.1.nip.io` or `localtest.me` do not pass as public names, and the request then goes to
 * an address that was checked — the resolver's `fetch` connects to those addresses and never
 * looks the name up again, so a second answer (DNS rebinding) cannot redirect it. Without a
 * resolver (the default in Deno, Workers, Bun and browsers, which offer no way to pin the address
 * a fetch connects to) only the URL text is checked: there, pass an allow-list in `modelHosts`,
 * or send the server's egress through a proxy that checks addresses.
 */

/**
 * Resolves a host name before the server calls it: every address of the name (A and AAAA
 * records), and a `fetch` that connects only to those addresses (TLS and `Host` still name the
 * URL's host). `trainprint/node` exports the Node one (`resolveHost`: `node:dns` lookup, pinned
 * `node:http(s)` requests).
 * @example
 * const resolveHost: HostResolver = async (name) =>
 *   ({ addresses: name === 'models.test' ? ['127.0.0.1'] : ['203.0.113.9'] })
 */
export type HostResolver = (hostname: string) => Promise<ResolvedHost>;

/**
 * What a {@link HostResolver} found.
 * @example const r: ResolvedHost = { addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }
 */
export interface ResolvedHost {
  /** Every address of the name, IPv4 dotted or IPv6 text. */
  readonly addresses: readonly string[];
  /** A fetch that connects to these addresses only (no second lookup). Absent: the runtime's fetch is used. */
  readonly fetch?: typeof fetch;
}

/**
 * True when an address (IPv4 dotted or IPv6 text, as resolvers give them, `::ffff:127.0.0.1`
 * and zone ids included) is loopback, private, link-local, unique-local, unspecified or in another
 * range that is not public unicast (the blocks of {@link isInternalHost}). Text that is not an
 * address counts as internal: what cannot be classified is not called.
 * @example
 * isInternalAddress('127.0.0.1')         // true
 * isInternalAddress('::ffff:10.1.2.3')   // true
 * isInternalAddress('fe80::1%eth0')      // true
 * isInternalAddress('93.184.215.14')     // false
 */
export function isInternalAddress(address: string): boolean {
  if (typeof address !== 'string' || address === '') return true;
  if (address.includes(':')) {
    if (address.includes('%')) return true; // a zone id: only link-local addresses carry one
    let host: string;
    try {
      host = new URL(`http://[${address}]/`).hostname; // the URL parser's canonical form (no dotted quad)
    } catch {
      return true;
    }
    const v6 = parseIpv6(host.slice(1, -1));
    return v6 === null || internalV6(v6);
  }
  const v4 = parseIpv4(address);
  return v4 === null || internalV4(v4);
}

/**
 * Why a resolved name is refused (null when every address is public), for the 422 of the route
 * that named it.
 * @example await refusedResolution(new URL('http://127.0.0.1.nip.io/v1'), resolveHost) // 'resolves to …'
 */
export async function refusedResolution(
  url: URL,
  resolve: HostResolver,
): Promise<{ reason: string } | { fetch?: typeof fetch }> {
  let resolved: ResolvedHost;
  try {
    resolved = await resolve(hostOf(url));
  } catch {
    return { reason: 'the host name does not resolve' };
  }
  const addresses = Array.isArray(resolved?.addresses) ? resolved.addresses : [];
  if (addresses.length === 0) return { reason: 'the host name does not resolve' };
  // one internal address is enough: a client could otherwise pick the name and wait for that answer
  if (addresses.some((a) => isInternalAddress(a))) {
    return { reason: 'the host name resolves to a loopback, private, link-local or internal address' };
  }
  return typeof resolved.fetch === 'function' ? { fetch: resolved.fetch } : {};
}

/**
 * A `fetch` that resolves every request's host with `resolve`, refuses the request (a
 * `TypeError`, as a network failure) when any address is internal, and sends it through the
 * resolver's pinned fetch. For webhook deliveries, whose URLs were checked when the monitor was
 * made but may resolve elsewhere later: `createEngine({ webhooks: { fetch: egressFetch(resolveHost) } })`.
 * @example
 * import { resolveHost } from 'trainprint/node'
 * const engine = await createEngine({ webhooks: { fetch: egressFetch(resolveHost) } })
 */
export function egressFetch(resolve: HostResolver): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (isInternalHost(url)) throw new TypeError(`refused: ${url.host} is a loopback, private or internal host`);
    const r = await refusedResolution(url, resolve);
    if ('reason' in r) throw new TypeError(`refused: ${url.host}: ${r.reason}`);
    return (r.fetch ?? globalThis.fetch)(input, init);
  };
}

/** The host of a URL as resolvers take it: IPv6 without brackets (a trailing dot stays: it makes the name absolute). */
function hostOf(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') ? h.slice(1, -1) : h;
}

/**
 * True when `url`'s host is a loopback, private, link-local or otherwise internal address or name
 * (see the module comment for the list).
 * @example
 * isInternalHost(new URL('http://127.0.0.1:8000/v1'))          // true
 * isInternalHost(new URL('http://[::ffff:10.0.0.1]/v1'))        // true
 * isInternalHost(new URL('https://api.openai.com/v1'))         // false
 */
export function isInternalHost(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host === '') return true;
  if (host.startsWith('[')) {
    const v6 = parseIpv6(host.slice(1, -1));
    return v6 === null || internalV6(v6);
  }
  const v4 = parseIpv4(host);
  if (v4 !== null) return internalV4(v4);
  if (!host.includes('.')) return true;
  return host === 'localhost' || INTERNAL_SUFFIXES.some((s) => host.endsWith(s));
}

/**
 * The default policy: internal hosts refused unless `allowPrivate`.
 * @example defaultModelHosts(false)(new URL('http://169.254.169.254/latest')) // false
 */
export function defaultModelHosts(allowPrivate: boolean): (url: URL) => boolean {
  return allowPrivate ? () => true : (url) => !isInternalHost(url);
}

const INTERNAL_SUFFIXES = [
  '.localhost',
  '.localdomain',
  '.local',
  '.svc',
  '.internal',
  '.intranet',
  '.corp',
  '.home',
  '.home.arpa',
  '.lan',
  '.private',
];

/** [network, prefix length] of the IPv4 ranges that are not public unicast. */
const V4_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8 private
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // 127/8 loopback
  [0xa9fe0000, 16], // 169.254/16 link-local (cloud metadata)
  [0xac100000, 12], // 172.16/12 private
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0000200, 24], // 192.0.2/24 TEST-NET-1
  [0xc0a80000, 16], // 192.168/16 private
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xc6336400, 24], // 198.51.100/24 TEST-NET-2
  [0xcb007100, 24], // 203.0.113/24 TEST-NET-3
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved, broadcast
];

function internalV4(a: number): boolean {
  return V4_BLOCKS.some(([net, bits]) => ((a >>> (32 - bits)) << (32 - bits)) >>> 0 === net);
}

/** Dotted-decimal IPv4 (the URL parser has already normalised hex, octal and integer forms) → u32. */
function parseIpv4(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

/**
 * IPv6 text as the URL parser serialises it (compressed, lower-case hex, never a dotted quad)
 * → 8 groups; null for anything else (then refused: unknown means internal).
 */
function parseIpv6(s: string): number[] | null {
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]),
    tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

/**
 * Whether 8 IPv6 groups are internal: the IPv6 blocks that are not public unicast, and every form that embeds or
 * translates an IPv4 address judged by the IPv4 inside it — a network that translates the prefix delivers the
 * packet to that IPv4 host, `127.0.0.1` included. The forms (IANA's IPv6 special-purpose registry):
 * - IPv4-mapped `::ffff:0:0/96` and IPv4-compatible `::/96` (RFC 4291), SIIT's IPv4-translated `::ffff:0:0:0/96`
 *   (RFC 2765), NAT64's well-known `64:ff9b::/96` (RFC 6052): the last 32 bits;
 * - NAT64's local-use `64:ff9b:1::/48` (RFC 8215): refused whole — where in the address the IPv4 sits depends on
 *   the prefix length the local network chose (RFC 6052 §2.2), and the block is not globally reachable anyway;
 * - 6to4 `2002::/16` (RFC 3056): bits 16–47;
 * - Teredo `2001::/32` (RFC 4380): the server's IPv4 in bits 32–63 and the client's in the last 32 bits, inverted
 *   (XOR 0xffffffff); refused when either is internal.
 */
function internalV6(g: number[]): boolean {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const last32 = v4(g[6], g[7]);
  if (zeroUpTo(8)) return true; // :: unspecified
  if (zeroUpTo(7) && g[7] === 1) return true; // ::1 loopback
  if (zeroUpTo(5) && g[5] === 0xffff) return internalV4(last32); // ::ffff:a.b.c.d mapped
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return internalV4(last32); // ::ffff:0:a.b.c.d SIIT translated
  if (zeroUpTo(6)) return internalV4(last32); // ::a.b.c.d compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return internalV4(last32); // NAT64
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // NAT64 local-use 64:ff9b:1::/48
  if (g[0] === 0x2002) return internalV4(v4(g[1], g[2])); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return internalV4(v4(g[2], g[3])) || internalV4(~last32 >>> 0); // Teredo
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return true; // 100::/64 discard
  // ISATAP (RFC 5214): interface id 0:5efe:a.b.c.d or 200:5efe:a.b.c.d (the u bit set) under any prefix; a router
  // of the prefix forwards to that IPv4 address, so it is judged by it
  if ((g[4] & 0xfdff) === 0 && g[5] === 0x5efe) return internalV4(last32);
  return false;
}
