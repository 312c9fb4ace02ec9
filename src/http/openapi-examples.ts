/**
 * The documentation parts of an OpenAPI operation that come from the worked examples and error
 * cases of a route (src/http/docs/index.ts): parameter, request and response examples, a curl
 * sample per example (`x-codeSamples`, the vendor extension Redoc and other renderers show), and
 * the error cases of each error status. src/http/openapi.ts places them in the document.
 */
import { HTTP_STATUS, MESSAGES, type ErrorCode } from '../library.js';
import type { ErrorCase, Route, RouteExample } from './context.js';

/** Variables the curl samples read: the server's URL and the keys of the two accounts of the examples. */
export const CURL_VARIABLES = {
  url: 'TRAINPRINT_URL',
  key: 'TRAINPRINT_KEY',
  buyerKey: 'BUYER_KEY',
} as const;

/**
 * The example fields of an OpenAPI object for `examples` (those with a value): `example` when
 * there is one, an `examples` map keyed by example name when there are several (OpenAPI allows
 * one or the other).
 * @example exampleFields([[ex, ex.body]]) // { example: ex.body }
 */
export function exampleFields(items: ReadonlyArray<readonly [RouteExample, unknown]>): Record<string, unknown> {
  if (items.length === 0) return {};
  if (items.length === 1) return { example: items[0][1] };
  return { examples: Object.fromEntries(items.map(([ex, value]) => [ex.name, { summary: ex.summary, value }])) };
}

/**
 * Every error an operation can answer, by status: the ones each feature of the row brings
 * (authentication, a JSON body, path parameters, idempotency), then the row's own cases.
 * @example errorCasesByStatus(route).get(404) // [{ code: 'NOT_FOUND', when: 'the account has no work with this id' }]
 */
export function errorCasesByStatus(r: Route): Map<number, ErrorCase[]> {
  const own = r.errorCases ?? [];
  const generic: ErrorCase[] = [];
  if (r.body === 'json') generic.push({ code: 'MALFORMED_JSON', when: 'the body is not JSON' });
  if (r.scope !== null) {
    generic.push({ code: 'UNAUTHORIZED', when: 'the credentials are missing, malformed, unknown, expired or revoked' });
    generic.push({ code: 'FORBIDDEN', when: `the credentials lack the scope \`${r.scope}\`` });
  }
  if (r.path.includes('{') && !own.some((c) => c.code === 'NOT_FOUND')) {
    generic.push({ code: 'NOT_FOUND', when: 'nothing of the account has this id' });
  }
  if (r.creates) generic.push({ code: 'CONFLICT', when: 'the `Idempotency-Key` was used for another request' });
  if (r.body) {
    generic.push({ code: 'PAYLOAD_TOO_LARGE', when: 'the body is over the limit (refused before it is read)' });
    generic.push({ code: 'UNSUPPORTED_MEDIA_TYPE', when: 'the Content-Type is not the one of the body' });
  }
  const invalid = 'a body field or query parameter is not valid; `details.field` names it';
  generic.push({ code: 'INVALID_INPUT', when: invalid });
  if (r.scope !== null) {
    generic.push({ code: 'RATE_LIMITED', when: "the plan's daily limit is reached; `Retry-After` gives the wait" });
  }
  const out = new Map<number, ErrorCase[]>();
  for (const c of [...generic, ...own]) {
    const status = HTTP_STATUS[c.code];
    const list = out.get(status) ?? [];
    if (!list.some((x) => x.code === c.code && x.when === c.when)) list.push(c);
    out.set(status, list);
  }
  return out;
}

/**
 * An error envelope for a code, as the server writes it (the code's sentence; the server adds
 * the case after a colon).
 * @example errorExample('NOT_FOUND').error.message // 'The requested item does not exist'
 */
export function errorExample(code: ErrorCode): Record<string, unknown> {
  return { success: false, error: { code, message: MESSAGES[code] } };
}

/**
 * The curl command of an example: method, URL with its path and query, the caller's key, extra
 * headers, and the body (JSON, form fields or a file). Values come from the shell variables
 * {@link CURL_VARIABLES}.
 *
 * @example
 * curlSample(route, route.examples[0])
 * // curl "$TRAINPRINT_URL/api/v1/content?limit=10" \
 * //   -H "Authorization: Bearer $TRAINPRINT_KEY"
 */
export function curlSample(r: Route, ex: RouteExample): string {
  let path = r.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(ex.params?.[name] ?? `{${name}}`));
  if (ex.query && Object.keys(ex.query).length > 0) {
    path += `?${new URLSearchParams(Object.entries(ex.query).map(([k, v]) => [k, String(v)]))}`;
  }
  const first = `curl ${r.method === 'GET' ? '' : `-X ${r.method} `}"$${CURL_VARIABLES.url}${path}"`;
  const lines: string[] = [];
  const key = ex.caller === 'buyer' ? CURL_VARIABLES.buyerKey : CURL_VARIABLES.key;
  if (r.scope !== null) lines.push(`-H "Authorization: Bearer $${key}"`);
  for (const [k, v] of Object.entries(ex.headers ?? {})) lines.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  if (r.body === 'json' && ex.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(prettyJson(ex.body))}`);
  } else if (r.body === 'form' && ex.body !== undefined) {
    for (const [k, v] of Object.entries(ex.body as Record<string, unknown>)) {
      lines.push(`--data-urlencode ${shellQuote(`${k}=${String(v)}`)}`);
    }
  } else if (r.body === 'binary' && ex.file !== undefined) {
    lines.push(`-H 'Content-Type: application/octet-stream'`);
    lines.push(`--data-binary ${shellQuote(`@${ex.file}`)}`);
  }
  if (ex.file !== undefined && r.body !== 'binary') lines.push(`-o ${shellQuote(ex.file)}`); // a file response is saved
  return [first, ...lines].join(' \\\n  ');
}

/**
 * JSON as people write it: an object or array on one line when it fits in 100 columns, else one
 * member per line, indented by two spaces.
 * @example prettyJson({ a: [1, 2] }) // '{ "a": [1, 2] }'
 */
export function prettyJson(value: unknown, indent = '', used = 0): string {
  const one = inlineJson(value);
  if (value === null || typeof value !== 'object' || indent.length + used + one.length <= 100) return one;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((x) => inner + prettyJson(x, inner)).join(',\n')}\n${indent}]`;
  // short members share a line, so that a record with many small fields stays compact
  const members = Object.entries(value).map(([k, x]) => `${JSON.stringify(k)}: ${prettyJson(x, inner, k.length + 4)}`);
  const lines: string[] = [];
  for (const m of members) {
    const last = lines.length - 1;
    const fits =
      last >= 0 &&
      !m.includes('\n') &&
      !lines[last].includes('\n') &&
      m.length <= 40 &&
      inner.length + lines[last].length + m.length + 2 <= 100 &&
      lines[last].length <= 60;
    if (fits) lines[last] += `, ${m}`;
    else lines.push(m);
  }
  return `{\n${lines.map((l) => inner + l).join(',\n')}\n${indent}}`;
}

function inlineJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  const members = Object.entries(value).map(([k, x]) => `${JSON.stringify(k)}: ${inlineJson(x)}`);
  return members.length ? `{ ${members.join(', ')} }` : '{}';
}

/** `s` in single quotes for a POSIX shell (a quote inside becomes `'\''`); bare when it needs no quoting. */
function shellQuote(s: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
