// Writes the generated reference docs/http-routes.md from the route table and its worked examples
// (src/http/docs/index.ts), through the OpenAPI document of the built package:
//
//   npm run build && node build/docs-http.mjs [--check]
//
// The section lies between the markers START_MARKER and END_MARKER; the rest of the page is left as
// it is (a page without the markers gets them at its end; a missing page is created with a title).
// `--check` writes nothing and exits 1 when the page differs from what would be written.
// test/contract/openapi-examples.test.ts renders the section from the TypeScript sources with
// `renderRoutes` and fails when the page is out of date.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGE = resolve(ROOT, 'docs/http-routes.md');

/** The line before the generated section of docs/http-routes.md. */
export const START_MARKER = '<!-- routes:start -->';
/** The line after it. */
export const END_MARKER = '<!-- routes:end -->';

/** Headings of the route groups (OpenAPI tags), in the order of the table. */
const GROUP_TITLES = {
  attribution: 'Attribution',
  jobs: 'Catalogue jobs',
  content: 'Works registry',
  monitors: 'Monitors',
  datasets: 'Reference datasets',
  'knowledge base': 'Knowledge base',
  marketplace: 'Licensing marketplace',
  memorization: 'Memorization',
  account: 'Account: usage, keys, OAuth',
  service: 'Service',
};

/** Error statuses every route of a kind answers: listed once, above the routes. */
const COMMON_ERRORS = [
  ['400', 'MALFORMED_JSON', 'the body is not JSON (routes with a JSON body)'],
  ['401', 'UNAUTHORIZED', 'credentials missing, malformed, unknown, expired or revoked (`WWW-Authenticate: Bearer …`)'],
  ['403', 'FORBIDDEN', 'the credentials lack the route\'s scope (`error="insufficient_scope"`)'],
  ['404', 'NOT_FOUND', 'no item of the account has the id in the path'],
  ['409', 'CONFLICT', 'an `Idempotency-Key` reused for another request (creating routes)'],
  ['413', 'PAYLOAD_TOO_LARGE', 'the body is over the limit, refused before it is read'],
  ['415', 'UNSUPPORTED_MEDIA_TYPE', "the Content-Type is not the route's"],
  ['422', 'INVALID_INPUT', 'a field of the body or a query parameter is not valid; `details.field` names it'],
  ['429', 'RATE_LIMITED', "the plan's daily limit is reached; `Retry-After` gives the seconds to wait"],
  ['500', 'INTERNAL', "an unexpected failure; `details.request_id` identifies it in the server's log"],
  [
    '503',
    'STORE_LOCKED, STORE_CLOSED, STORE_UNAVAILABLE',
    "the server's store, or the database of a dataset it searches, is not available",
  ],
  [
    '503',
    'SERVICE_UNAVAILABLE',
    'the server is shutting down and the request was cut before its work was done, or it already runs and queues as many large requests as it takes at once (`Retry-After` gives the seconds); send it again',
  ],
];

/**
 * The Markdown between the markers: every route of `routes` (rows with their `examples` and
 * `errorCases`) with the summary, scope, description, each example's curl command (from the
 * document's `x-codeSamples`) and response, and its errors.
 * @param {Record<string, any>} doc the OpenAPI document of `routes` (`buildOpenApi(routes)`)
 * @param {ReadonlyArray<Record<string, any>>} routes the route table
 * @returns {string}
 */
export function renderRoutes(doc, routes) {
  const out = [
    '',
    '## Routes',
    '',
    'Every operation of the API, generated from the route table by `node build/docs-http.mjs` (do not edit between the',
    'markers). Each example below is sent to a fresh server by the contract tests and answers as shown; the machine-',
    'readable form is the OpenAPI document at `GET /api/v1/openapi.json`, which carries the same examples.',
    '',
    'The curl commands read three shell variables:',
    '',
    '```sh',
    'TRAINPRINT_URL=http://127.0.0.1:8787   # trainprint serve --starter',
    'TRAINPRINT_KEY=tp_live_…               # a key of the account "acme" with the route\'s scope',
    'BUYER_KEY=tp_live_…                    # a key of a second account, "globex" (marketplace examples)',
    '```',
    '',
    'Ids, timestamps and signatures in a request are the ones the examples before it answered; use the ones your',
    'server answers. Long arrays in the responses are cut to their first items.',
    '',
    'Besides the errors listed with each route, a route answers these when they apply:',
    '',
    '| Status | Code | When |',
    '| --- | --- | --- |',
    ...COMMON_ERRORS.map(
      ([s, c, when]) =>
        `| ${s} | ${c
          .split(', ')
          .map((x) => `\`${x}\``)
          .join(', ')} | ${when} |`,
    ),
    '',
  ];
  let group = null;
  for (const r of routes) {
    const op = doc.paths[r.path][r.method.toLowerCase()];
    if (r.tag !== group) {
      group = r.tag;
      out.push(`### ${GROUP_TITLES[group] ?? group[0].toUpperCase() + group.slice(1)}`, '');
    }
    out.push(`#### \`${r.method} ${r.path}\``, '');
    const who = r.scope === null ? 'Public (no credentials).' : `Scope \`${r.scope}\`.`;
    const idem = r.creates ? ' Accepts `Idempotency-Key`.' : '';
    out.push(`${r.summary}. ${who}${idem}`, '');
    if (r.description) out.push(r.description, '');
    (r.examples ?? []).forEach((ex, i) => {
      out.push(`Example: ${ex.summary}.`, '', '```sh', op['x-codeSamples'][i].source, '```', '');
      const type = ex.status < 400 && r.responseType === 'html' ? 'html' : 'json';
      if (ex.response === undefined) {
        out.push(`Response \`${ex.status}\`: the file (\`application/octet-stream\`).`, '');
      } else {
        const body = type === 'html' ? `${ex.response}\n…` : prettyJson(ex.response);
        out.push(`Response \`${ex.status}\`:`, '', `\`\`\`${type}`, body, '```', '');
      }
    });
    const own = r.errorCases ?? [];
    const statuses = Object.keys(op.responses).filter((s) => Number(s) >= 400);
    if (own.length) {
      out.push('Errors of this route:', '');
      for (const c of own) out.push(`- \`${statusOf(op, c.code)}\` \`${c.code}\`: ${c.when}`);
      out.push('');
    }
    out.push(`All error statuses: ${statuses.join(', ')}.`, '');
  }
  return `${out.join('\n')}\n`;
}

/**
 * JSON as people write it: an object or array on one line when it fits in 100 columns, else one
 * member per line (the curl bodies of the OpenAPI samples are written the same way).
 */
function prettyJson(value, indent = '', used = 0) {
  const one = inlineJson(value);
  if (value === null || typeof value !== 'object' || indent.length + used + one.length <= 100) return one;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((x) => inner + prettyJson(x, inner)).join(',\n')}\n${indent}]`;
  // short members share a line, so that a record with many small fields stays compact
  const members = Object.entries(value).map(([k, x]) => `${JSON.stringify(k)}: ${prettyJson(x, inner, k.length + 4)}`);
  const lines = [];
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

function inlineJson(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  const members = Object.entries(value).map(([k, x]) => `${JSON.stringify(k)}: ${inlineJson(x)}`);
  return members.length ? `{ ${members.join(', ')} }` : '{}';
}

/** The status under which the document lists a code (its response description names it). */
function statusOf(op, code) {
  for (const [s, res] of Object.entries(op.responses)) {
    if (Number(s) >= 400 && res.description.includes(`\`${code}\``)) return s;
  }
  return '?';
}

/**
 * `page` with the section between the markers replaced by `section` (markers appended when absent).
 * @param {string} page
 * @param {string} section
 * @returns {string}
 */
export function withRoutes(page, section) {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) return `${page.replace(/\n*$/, '\n\n')}${START_MARKER}${section}${END_MARKER}\n`;
  return page.slice(0, start + START_MARKER.length) + section + page.slice(end);
}

async function main() {
  const http = await import(pathToFileURL(resolve(ROOT, 'dist/http.js')).href);
  const section = renderRoutes(http.buildOpenApi(http.ROUTES), http.ROUTES);
  const before = existsSync(PAGE) ? readFileSync(PAGE, 'utf8') : '# HTTP API reference\n';
  const after = withRoutes(before, section);
  if (process.argv.includes('--check')) {
    if (after !== before) {
      console.error('docs/http-routes.md: the Routes section is out of date (run node build/docs-http.mjs)');
      process.exit(1);
    }
    console.log('docs/http-routes.md: Routes section up to date');
    return;
  }
  mkdirSync(dirname(PAGE), { recursive: true });
  writeFileSync(PAGE, after);
  console.log(`docs/http-routes.md: Routes section written (${http.ROUTES.length} routes)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
