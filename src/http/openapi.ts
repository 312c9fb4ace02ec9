/**
 * The OpenAPI 3.1 document, generated from the route table and the same JSON Schema objects that
 * validate requests: paths and operations from the rows, `components.schemas` from the named
 * schemas (src/http/schemas/named.ts `NAMED_SCHEMAS`, each use of one of those objects becoming a
 * `$ref`), security per operation with the route's scope (API key as HTTP bearer, and OAuth 2.0
 * client credentials), and every status an operation can answer — successes, the error envelope
 * for each error status, the RateLimit headers on authenticated ones. The documentation of the
 * operations (src/http/docs/index.ts) adds descriptions with the scope, parameter, request and
 * response examples, a curl sample per example (`x-codeSamples`) and the error cases of each
 * error status (src/http/openapi-examples.ts).
 */
import { HTTP_STATUS, type ErrorCode } from '../library.js';
import type { Route, JsonSchema } from './context.js';
import { MEDIA_TYPES, SCOPE_DESCRIPTIONS, SCOPES } from './context.js';
import { PATH_PARAMS } from './routes/index.js';
import { NAMED_SCHEMAS } from './schemas/named.js';
import { curlSample, errorCasesByStatus, errorExample, exampleFields } from './openapi-examples.js';
import { ERROR_ENVELOPE_SCHEMA, OAUTH_ERROR_SCHEMA } from './schemas/index.js';
import { MULTIPART } from './multipart.js';
import { described } from './docs/fields.js';

/**
 * Options of {@link buildOpenApi}.
 * @example buildOpenApi(ROUTES, { baseUrl: 'https://api.example.org', version: '1.2.0' })
 */
export interface OpenApiOptions {
  /** Server URL (e.g. `https://api.example.org`); paths are relative to it. @default '/' */
  readonly baseUrl?: string;
  /** `info.version`. @default '1.0.0' */
  readonly version?: string;
}

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Malformed body (MALFORMED_JSON)',
  401: 'Missing, malformed, unknown, expired or revoked credentials (UNAUTHORIZED); `WWW-Authenticate: Bearer realm="trainprint"`',
  403: 'The credentials lack the scope (FORBIDDEN; `WWW-Authenticate: Bearer error="insufficient_scope"`), or the action is not allowed',
  404: 'No such item for this account (NOT_FOUND)',
  409: 'Conflicts with the current state, or an Idempotency-Key reused for another request (CONFLICT, ALREADY_EXISTS)',
  408: 'The body stopped or came too slowly: 10 s without a byte, or under 4 KiB/s after its first 10 s (REQUEST_TIMEOUT)',
  413: 'Body over the limit, refused before parsing (PAYLOAD_TOO_LARGE)',
  415: 'Wrong Content-Type (UNSUPPORTED_MEDIA_TYPE)',
  422: 'Well-formed but invalid; `details.field` names the field (INVALID_INPUT, INVALID_OPTIONS, …)',
  429: "The plan's daily limit is reached (RATE_LIMITED); `Retry-After` gives the seconds to the next window",
  500: 'Unexpected failure (INTERNAL or an engine code); no internals in the body',
  502:
    'The model service named in the request failed (UPSTREAM_ERROR); `details.upstream` gives its status, ' +
    'content type and length; or it could not be reached (UPSTREAM_UNREACHABLE: no connection, without the ' +
    "socket's error)",
  501: 'Not supported for this item (NOT_SUPPORTED)',
  503:
    "The store or a dataset's database is locked, closed or unreachable (STORE_LOCKED, STORE_CLOSED, " +
    'STORE_UNAVAILABLE), or the server cannot take the request now (SERVICE_UNAVAILABLE: it is shutting down and cut the request, or as many large requests as it runs at once are running and waiting; `Retry-After` says when to try again)',
  504: 'The model service named in the request did not answer in time (UPSTREAM_TIMEOUT)',
};

/** The code shown for an error status that no case of the route names. */
const FALLBACK_CODE: Readonly<Record<number, ErrorCode>> = {
  500: 'INTERNAL',
  502: 'UPSTREAM_ERROR',
  503: 'STORE_LOCKED',
  504: 'UPSTREAM_TIMEOUT',
};

/** What the token endpoint's RFC 6749 §5.2 errors say, by status. */
const OAUTH_ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'RFC 6749 §5.2 error (invalid_request, unsupported_grant_type, invalid_scope)',
  401: 'RFC 6749 §5.2 error (invalid_client)',
  429: 'invalid_client after too many failed client authentications from the address or for the client; `Retry-After` gives the seconds to wait',
};

/** RFC 6749 §5.2 bodies of the token endpoint, as examples. */
const OAUTH_ERROR_EXAMPLE: Readonly<Record<number, unknown>> = {
  400: { error: 'invalid_scope', error_description: 'not granted to this client: keys' },
  401: { error: 'invalid_client', error_description: 'unknown client, wrong secret or revoked client' },
  429: { error: 'invalid_client', error_description: 'too many failed client authentications: retry in 1 s' },
};

/** One operation of the document: its parameters (path, query, Idempotency-Key), body, security and responses. */
function operation(r: Route, ref: (s: JsonSchema) => JsonSchema): Record<string, unknown> {
  const op: Record<string, unknown> = { operationId: r.operationId, tags: [r.tag], summary: r.summary };
  if (r.aliasOf !== undefined) op['x-alias-of'] = r.aliasOf; // another path of that operation
  const who = r.scope === null ? 'Public: no credentials.' : `Scope: \`${r.scope}\`.`;
  op.description = r.description ? `${r.description}\n\n${who}` : who;
  const examples = r.examples ?? [];
  // an example's value of a parameter, for the parameter's `example` / `examples`
  const paramExamples = (where: 'params' | 'query', name: string) =>
    exampleFields(
      examples.filter((ex) => ex[where]?.[name] !== undefined).map((ex) => [ex, ex[where]![name]] as const),
    );
  const parameters: unknown[] = [...r.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: PATH_PARAMS[name]?.description,
    schema: { type: 'string', ...(PATH_PARAMS[name] ? { pattern: PATH_PARAMS[name].pattern } : {}) },
    ...paramExamples('params', name),
  }));
  if (r.querySchema) {
    const q = described(r.querySchema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, member] of Object.entries(q.properties ?? {})) {
      const s = described(member); // a shared fragment (a model id) has its words by identity
      parameters.push({
        name,
        in: 'query',
        required: (q.required ?? []).includes(name),
        schema: ref(s),
        ...(typeof s.description === 'string' ? { description: s.description } : {}),
        ...paramExamples('query', name),
      });
    }
  }
  if (r.creates) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      description:
        'Replays the first successful response to the same key and request for 24 h; the same key with another request is 409',
    });
  }
  if (parameters.length) op.parameters = parameters;
  if (r.body && r.requestSchema) {
    const media = MEDIA_TYPES[r.body];
    // a binary body is a file: its examples name it (`file`), the curl samples send it
    const bodies = r.body === 'binary' ? [] : examples.filter((ex) => ex.body !== undefined);
    const shown = exampleFields(bodies.map((ex) => [ex, ex.body] as const));
    const content: Record<string, unknown> = { [media]: { schema: ref(r.requestSchema), ...shown } };
    if (r.files) content[MULTIPART] = multipartMedia(described(r.requestSchema), ref);
    if (r.ndjson)
      content[MEDIA_TYPES.ndjson] = {
        schema: {
          type: 'string',
          description: 'JSON lines: one item per line (what `items` holds in the JSON body); blank lines are skipped',
        },
      };
    op.requestBody = { required: true, content };
  }
  op.security =
    r.scope === null
      ? r.operationId === 'oauthToken'
        ? [{ clientBasic: [] }, {}]
        : []
      : [{ apiKey: [r.scope] }, { oauth2: [r.scope] }];
  op.responses = responses(r, ref);
  if (examples.length) {
    // the vendor extension Redoc and other renderers show; build/docs-http.mjs puts them in docs/http-routes.md
    op['x-codeSamples'] = examples.map((ex) => ({ lang: 'Shell', label: ex.summary, source: curlSample(r, ex) }));
  }
  return op;
}

/** Members of a JSON request that a multipart upload has no use for: the file is its content. */
const NOT_IN_A_FORM = new Set(['content', 'content_encoding', 'fingerprint', 'work_hash']);

/** The media types a file part may declare (any other is read by the file's name or `content_type`). */
const FILE_MEDIA_TYPES = [
  'application/epub+zip',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/plain',
  'text/markdown',
  'text/html',
  'application/octet-stream',
];

/**
 * The multipart/form-data form of a route that takes files: the document in `file`, the JSON request's other members
 * as form fields (objects as JSON text, booleans as `true`/`false`; src/http/multipart.ts).
 */
function multipartMedia(json: JsonSchema, ref: (s: JsonSchema) => JsonSchema): Record<string, unknown> {
  const { properties = {}, required = [] } = json as { properties?: Record<string, JsonSchema>; required?: string[] };
  const fields = Object.entries(properties).filter(([name]) => !NOT_IN_A_FORM.has(name));
  const objects = fields.filter(([, s]) => s.type === 'object' || s.type === 'array').map(([name]) => name);
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['file', ...required.filter((n) => !NOT_IN_A_FORM.has(n) && n !== 'content_type')],
    properties: {
      file: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description:
          "The document: an EPUB, PDF or DOCX file (or a UTF-8 text, Markdown or HTML file), at most the plan's " +
          '`fileBytes`; one per request',
      },
      ...Object.fromEntries(fields),
      ...(properties.content_type
        ? {
            content_type: {
              ...properties.content_type,
              description:
                'How to read the file. Default: told from its name (`.epub`, `.pdf`, `.docx`, `.txt`, `.md`, `.html`), ' +
                'else from its media type (`application/epub+zip`, `application/pdf`, the DOCX type, `text/plain`, ' +
                '`text/markdown`, `text/html`)',
            },
          }
        : {}),
    },
  };
  return {
    schema: ref(schema),
    encoding: {
      file: { contentType: FILE_MEDIA_TYPES.join(', ') },
      ...Object.fromEntries(objects.map((name) => [name, { contentType: 'application/json' }])),
    },
  };
}

/**
 * The document of a route table.
 *
 * @example
 * const doc = buildOpenApi(ROUTES, { baseUrl: 'https://api.example.org' })
 * doc.paths['/api/v1/attribution/analyze'].post.operationId // 'analyze'
 */
export function buildOpenApi(routes: readonly Route[], options: OpenApiOptions = {}): Record<string, unknown> {
  const names = new Map<object, string>();
  for (const [name, s] of Object.entries(NAMED_SCHEMAS)) names.set(s, name);
  for (const r of routes) {
    for (const s of [r.requestSchema, r.responseSchema]) {
      if (s && typeof s.title === 'string' && !names.has(s)) names.set(s, s.title); // extension routes name theirs by title
    }
  }
  const used = new Set<string>();
  const ref = (s: JsonSchema): JsonSchema => emit(s, names, used, true);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) (paths[r.path] ??= {})[r.method.toLowerCase()] = operation(r, ref);

  const schemas: Record<string, unknown> = {};
  // components are emitted until no new name is referenced (a component may use another)
  for (let added = true; added; ) {
    added = false;
    for (const [s, name] of names) {
      if (used.has(name) && !(name in schemas)) {
        schemas[name] = emit(s, names, used, false);
        added = true;
      }
    }
  }
  const sortedSchemas = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]]),
  );

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'trainprint API',
      version: options.version ?? '1.0.0',
      description:
        'Training-data attribution: analysis, works registry, score, monitors, reference datasets, knowledge base, licensing marketplace and memorization risk. ' +
        'Success bodies are `{ success: true, …result }`; errors `{ success: false, error: { code, message, details? } }`. ' +
        'Authenticated responses carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy` (daily window in UTC).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: options.baseUrl ?? '/' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: sortedSchemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `Authorization: Bearer tp_live_…` (or `tp_test_…`)',
        },
        oauth2: {
          type: 'oauth2',
          description: 'Client-credentials grant; tokens last at most one hour',
          flows: {
            clientCredentials: {
              tokenUrl: `${(options.baseUrl ?? '').replace(/\/+$/, '')}/api/v1/oauth/token`,
              scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
            },
          },
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description: 'OAuth client credentials (`client_id:client_secret`) at the token endpoint',
        },
      },
      headers: {
        'RateLimit-Limit': { description: 'Calls allowed in the window', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Calls left in the window', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window ends (00:00 UTC)', schema: { type: 'integer' } },
        'RateLimit-Policy': { description: '`<limit>;w=86400`', schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds until calls are accepted again', schema: { type: 'integer' } },
        'X-Request-Id': {
          description: 'Id of this request (echoed when the client sent a valid one)',
          schema: { type: 'string' },
        },
      },
    },
  };
}

/**
 * The statuses an operation answers: its successes, then the errors its features make possible
 * (authentication, a body, parameters, idempotency) and those the route names.
 * @example documentedStatuses(ROUTES.find((r) => r.operationId === 'getWork')!).errors // [401, 403, 404, 422, 429, 500, 503]
 */
export function documentedStatuses(r: Route): { success: number[]; errors: number[] } {
  // 422 everywhere: an unknown query parameter is refused on every operation
  const errors = new Set<number>([422, 500, 503, ...(r.errors ?? [])]);
  for (const c of r.errorCases ?? []) errors.add(HTTP_STATUS[c.code]);
  if (r.scope !== null)
    [401, 403, 429].forEach((s) => {
      errors.add(s);
    });
  if (r.body)
    [408, 413, 415].forEach((s) => {
      errors.add(s);
    });
  if (r.body === 'json') errors.add(400);
  // the token endpoint's credential throttle (src/http/auth-throttle.ts) answers 429 past its failures
  if (r.body === 'form')
    [400, 401, 429].forEach((s) => {
      errors.add(s);
    });
  if (r.creates) errors.add(409);
  if (r.path.includes('{')) errors.add(404);
  return { success: [...(r.status ?? [200])], errors: [...errors].sort((a, b) => a - b) };
}

function responses(r: Route, ref: (s: JsonSchema) => JsonSchema): Record<string, unknown> {
  const limited = r.scope !== null;
  const rateHeaders = limited
    ? {
        'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
        'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
        'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
        'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
      }
    : {};
  const common = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  const { success, errors } = documentedStatuses(r);
  const out: Record<string, unknown> = {};
  const media = MEDIA_TYPES[r.responseType ?? 'json'];
  // the worked examples answering a status (binary answers have no example body)
  const shown = (s: number) =>
    exampleFields(
      (r.examples ?? [])
        .filter((ex) => ex.status === s && ex.response !== undefined)
        .map((ex) => [ex, ex.response] as const),
    );
  for (const s of success) {
    out[String(s)] = {
      description: s === 201 ? 'Created' : 'OK',
      headers: { ...common, ...rateHeaders },
      content: {
        [media]: { schema: ref(r.responseSchema), ...shown(s) },
        ...(r.alsoAnswers ? { [MEDIA_TYPES[r.alsoAnswers.type]]: { schema: ref(r.alsoAnswers.schema) } } : {}),
      },
    };
  }
  const cases = errorCasesByStatus(r);
  for (const s of errors) {
    const oauth = r.body === 'form' && (s === 400 || s === 401);
    const headers: Record<string, unknown> = { ...common, ...(s === 401 || s === 403 ? {} : rateHeaders) };
    if (s === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    const list = cases.get(s) ?? [];
    const example = Object.keys(shown(s)).length
      ? shown(s)
      : { example: oauth ? OAUTH_ERROR_EXAMPLE[s] : errorExample(list[0]?.code ?? FALLBACK_CODE[s] ?? 'INTERNAL') };
    out[String(s)] = {
      description: oauth
        ? OAUTH_ERROR_TEXT[s]
        : list.length
          ? list.map((c) => `- \`${c.code}\`: ${c.when}`).join('\n')
          : (ERROR_TEXT[s] ?? 'Error'),
      headers,
      content: { 'application/json': { schema: ref(oauth ? OAUTH_ERROR_SCHEMA : ERROR_ENVELOPE_SCHEMA), ...example } },
    };
  }
  return out;
}

/**
 * A deep copy of `s` for the document: named schemas become `$ref`s (except the definition
 * itself, `top === false`), fields gain their words (src/http/docs/fields.ts), and `$id` / `$schema` are dropped (the document's dialect applies,
 * and an `$id` would move `$ref` resolution out of the document).
 */
function emit(s: unknown, names: Map<object, string>, used: Set<string>, top: boolean, depth = 0): JsonSchema {
  if (s !== null && typeof s === 'object' && (top || depth > 0) && names.has(s)) {
    const name = names.get(s)!;
    used.add(name);
    return { $ref: `#/components/schemas/${name}` };
  }
  if (Array.isArray(s)) return s.map((x) => emit(x, names, used, true, depth + 1)) as unknown as JsonSchema;
  if (s === null || typeof s !== 'object') return s as JsonSchema;
  const out: Record<string, unknown> = {};
  // the words of its fields join the schema here (src/http/docs/fields.ts): validation never reads them
  for (const [k, v] of Object.entries(described(s as JsonSchema))) {
    if (depth === 0 && (k === '$id' || k === '$schema')) continue;
    // values under `properties` / `const` / `enum` are data or schemas; only schema positions are replaced,
    // and identity makes that safe: a named schema object appears only where a schema is expected
    out[k] = emit(v, names, used, true, depth + 1);
  }
  return out;
}
