/**
 * The documentation of every operation of the route table, keyed by operation id: a description
 * (what it does, who may call it, what it stores), the errors it gives and its worked examples.
 * One table drives three things, so they cannot drift apart: the route rows (src/http/routes/index.ts
 * gains these fields through {@link withDocs}), the OpenAPI document (src/http/openapi.ts emits
 * descriptions, examples, curl samples and error responses from them) and the Routes section of
 * docs/http-routes.md (build/docs-http.mjs renders it from the document). The contract test sends every
 * example to a fresh server and checks its status and response against the document.
 *
 * The entries live with their group: attribution, registry and monitors
 * (src/http/docs/attribution.ts), reference datasets and the knowledge base
 * (src/http/docs/datasets.ts), the marketplace (src/http/docs/marketplace.ts), memorization
 * (src/http/docs/memorization.ts), account and service (src/http/docs/account.ts).
 */
import type { Route, RouteDocs } from '../context.js';
import { ACCOUNT_DOCS } from './account.js';
import { ATTRIBUTION_DOCS } from './attribution.js';
import { DATASETS_DOCS } from './datasets.js';
import { MARKETPLACE_DOCS } from './marketplace.js';
import { MEMORIZATION_DOCS } from './memorization.js';

export type { RouteDocs } from '../context.js';

/**
 * The documentation of every operation of `ROUTES`, by operation id.
 * @example ROUTE_DOCS.getWork.examples[0].status // 200
 */
export const ROUTE_DOCS: Readonly<Record<string, RouteDocs>> = {
  ...ATTRIBUTION_DOCS,
  ...DATASETS_DOCS,
  ...MARKETPLACE_DOCS,
  ...MEMORIZATION_DOCS,
  ...ACCOUNT_DOCS,
};

/**
 * The rows with their documentation from {@link ROUTE_DOCS} (rows without an entry stay as they are).
 * @example export const ROUTES = withDocs([...rows])
 */
export function withDocs(rows: readonly Route[]): Route[] {
  const pathOf = new Map(rows.map((r) => [r.operationId, `${r.method} ${r.path}`]));
  return rows.map((r) => {
    const own = r.aliasOf ?? r.operationId;
    const d = Object.hasOwn(ROUTE_DOCS, own) ? ROUTE_DOCS[own] : undefined;
    if (!d) return r;
    const errorCases = d.errorCases ?? [];
    if (r.aliasOf === undefined) return { ...r, description: d.description, errorCases, examples: d.examples };
    // an alias: the operation's documentation with one example, so the docs do not repeat every case
    const note = `Short path of \`${pathOf.get(r.aliasOf) ?? r.aliasOf}\`: the same request, response and errors.`;
    return { ...r, description: `${note}\n\n${d.description}`, errorCases, examples: d.examples.slice(0, 1) };
  });
}
