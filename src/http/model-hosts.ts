/**
 * Which model services the memorization routes may call. A request names its target model by
 * URL (`model.base_url`), and the server then makes requests to that URL: without a policy that
 * is server-side request forgery (SSRF) — a client could aim the server at `127.0.0.1`, the
 * cloud metadata service (`169.254.169.254`) or any host of the private network behind it.
 *
 * The default policy refuses URLs whose host is
 * - an IP literal in a loopback, private, link-local, carrier-grade NAT, unspecified, multicast,
 *   benchmarking or reserved range (IPv4, IPv6, and IPv4 embedded in IPv6: mapped, NAT64, 6to4);
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
 * Limit: the default looks at the URL, not at DNS. A public name that resolves to a private
 * address (or re-resolves to one later: DNS rebinding) passes it. Where that matters, pass an
 * allow-list in `modelHosts` or send the server's egress through a proxy that checks addresses.
 */

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

const INTERNAL_SUFFIXES = ['.localhost', '.localdomain', '.local', '.svc', '.internal', '.intranet', '.corp', '.home', '.home.arpa', '.lan', '.private'];

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
  const head = groups(halves[0]), tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

function internalV6(g: number[]): boolean {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  if (zeroUpTo(8)) return true; // :: unspecified
  if (zeroUpTo(7) && g[7] === 1) return true; // ::1 loopback
  if (zeroUpTo(5) && g[5] === 0xffff) return internalV4(v4(g[6], g[7])); // ::ffff:a.b.c.d mapped
  if (zeroUpTo(6)) return internalV4(v4(g[6], g[7])); // ::a.b.c.d compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return internalV4(v4(g[6], g[7])); // NAT64
  if (g[0] === 0x2002) return internalV4(v4(g[1], g[2])); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return true; // 100::/64 discard
  return false;
}
