/**
 * Routes of the service itself (tag `service`, public): the OpenAPI document, the status as JSON
 * (a health check runs now) and as an HTML page.
 */
import { inGroup, type Route } from '../context.js';
import * as S from '../schemas/service.js';

/**
 * The service rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example SERVICE_ROUTES.map((r) => r.path) // ['/api/v1/openapi.json', '/api/v1/status', '/status']
 */
export const SERVICE_ROUTES: readonly Route[] = inGroup('service', null, [
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 document',
    responseSchema: S.OPENAPI_DOCUMENT_SCHEMA,
    handler: async (ctx) => jsonDocument(ctx.services.openapi()),
  },
  {
    method: 'GET',
    path: '/api/v1/status',
    operationId: 'getStatus',
    summary: 'Health (a check runs now), uptime, and incidents derived from recorded checks and 5xx responses',
    responseSchema: S.STATUS_SCHEMA,
    handler: (ctx) => ctx.services.status(),
  },
  {
    method: 'GET',
    path: '/status',
    operationId: 'statusPage',
    summary: 'The status as an HTML page',
    responseSchema: S.HTML_SCHEMA,
    responseType: 'html',
    handler: async (ctx) =>
      new Response(await ctx.services.statusHtml(), {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        },
      }),
  },
]);

/**
 * The bytes of each OpenAPI document served: the handler builds its document once and never changes it, and writing
 * its 0.9 MB of JSON again for every request took 13–19 ms of CPU.
 */
const documentBytes = new WeakMap<object, Uint8Array>();

/** The OpenAPI document as it is (no success envelope: it is a document, not a result). */
function jsonDocument(doc: Record<string, unknown>): Response {
  let bytes = documentBytes.get(doc);
  if (!bytes) {
    bytes = new TextEncoder().encode(JSON.stringify(doc));
    documentBytes.set(doc, bytes);
  }
  // a copy: a reader of one answer's body may change its chunks, never the next answer's
  return new Response(bytes.slice(), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' },
  });
}
