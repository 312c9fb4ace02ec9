/**
 * The route table of the HTTP API under `/api/v1`: one row per operation, with its scope, its
 * schemas and its handler. The handler (src/http/handler.ts) matches, authenticates, limits and
 * validates from these rows, and the OpenAPI document (src/http/openapi.ts) is generated from
 * them, so a route exists, is checked and is documented in one place.
 *
 * Each group (the row's `tag`) keeps its rows and their helpers in a module of its own, spread in
 * here in the order of the document: attribution, content (the works registry), monitors,
 * datasets, kb (the knowledge base), marketplace, memorization, account, service. What several
 * groups use: who is calling and the caller's works (caller.ts), the refusals the routes make
 * themselves (refusals.ts). Background analyses — analyze's `Prefer: respond-async` answer and the alias of
 * a job's status — are woven into the table by jobs.ts ({@link withBackgroundAnalyses}); the durable
 * catalogue jobs of many items (`/api/v1/jobs`) are catalogue-jobs.ts.
 *
 * Extending: add rows to a group's module, or a group's module spread into {@link ROUTES} (or pass
 * more rows to `createHandler(engine, { routes })`); path parameters go in {@link PATH_PARAMS}; the
 * description, errors and worked examples of each operation go in the documentation table
 * (src/http/docs/index.ts), which {@link withDocs} merges into the rows. Handlers return the result
 * object; the adapter wraps it as `{ success: true, ...result }`.
 *
 * Tenancy: works, analyses and monitors belong to the calling account (`owner` of a work is the
 * account); another account's items answer 404, as if absent. Reference datasets are searched,
 * listed and exported by every account, but only the account that created or imported one may
 * grow or drop it (403 for the others); those the operator loaded (the starter, packs, files)
 * need the `admin` scope. The knowledge base is shared.
 */
import type { Route } from '../context.js';
import { withDocs } from '../docs/index.js';
import { DATASET_REF_PATTERN } from '../schemas/datasets.js';
import { idPattern } from '../schemas/kit.js';
import { ACCOUNT_ROUTES } from './account.js';
import { ATTRIBUTION_ROUTES } from './attribution.js';
import { AUDIT_WORKS_ROUTE } from './audit-works.js';
import { CATALOGUE_JOB_ROUTES } from './catalogue-jobs.js';
import { CONTENT_ROUTES } from './content.js';
import { DATASET_ROUTES } from './datasets.js';
import { withBackgroundAnalyses } from './jobs.js';
import { KB_ROUTES } from './kb.js';
import { MARKETPLACE_ROUTES } from './marketplace.js';
import { MEMORIZATION_ALIASES, MEMORIZATION_ROUTES } from './memorization.js';
import { MONITOR_ROUTES } from './monitors.js';
import { SERVICE_ROUTES } from './service.js';

/**
 * Patterns of the path parameters. A segment that does not fit its pattern does not match the
 * route (so `/api/v1/monitors/create` is never read as a monitor id), and the patterns are the
 * parameters' schemas in the OpenAPI document.
 * @example new RegExp(PATH_PARAMS.work_id.pattern).test('wk_' + '0'.repeat(32)) // true
 */
export const PATH_PARAMS: Readonly<Record<string, { readonly pattern: string; readonly description: string }>> = {
  analysis_id: { pattern: idPattern('an', 32), description: 'Analysis id (`an_` + 32 hex)' },
  job_id: {
    pattern: idPattern('job', 32),
    description: 'Job id (`job_` + 32 hex): a background analysis or a catalogue job',
  },
  work_id: { pattern: idPattern('wk', 32), description: 'Work id (`wk_` + 32 hex)' },
  item: { pattern: '^(0|[1-9][0-9]{0,8})$', description: "An item's index in its job (0 first)" },
  monitor_id: { pattern: idPattern('mon', 32), description: 'Monitor id (`mon_` + 32 hex)' },
  dataset_id: { pattern: DATASET_REF_PATTERN, description: 'Reference dataset id (`pack:…`: a shipped pack)' },
  provider: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'Provider part of a model id' },
  model: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'Model part of a model id' },
  kb_dataset_id: {
    pattern: '^[a-z0-9][a-z0-9._-]*$',
    description: 'Knowledge-base dataset id (`the-pile`, `books3`, …)',
  },
  key_id: { pattern: idPattern('key', 16), description: 'API key id' },
  client_id: { pattern: idPattern('tpc', 24), description: 'OAuth client id' },
  listing_id: { pattern: idPattern('lst', 32), description: 'Marketplace listing id (`lst_` + 32 hex)' },
  offer_id: { pattern: idPattern('ofr', 32), description: 'Marketplace offer id (`ofr_` + 32 hex)' },
  licence_id: { pattern: idPattern('lic', 32), description: 'Licence id (`lic_` + 32 hex)' },
};

/**
 * Every route. Order does not matter to matching (a literal segment wins over a parameter, and
 * parameters match only their patterns), but it is the order of the operations in the OpenAPI
 * document and in docs/http-routes.md.
 *
 * @example
 * ROUTES.filter((r) => r.scope === 'analyze').map((r) => `${r.method} ${r.path}`)
 */
export const ROUTES: readonly Route[] = withBackgroundAnalyses(
  withDocs([
    ...ATTRIBUTION_ROUTES,
    ...CATALOGUE_JOB_ROUTES,
    AUDIT_WORKS_ROUTE,
    ...CONTENT_ROUTES,
    ...MONITOR_ROUTES,
    ...DATASET_ROUTES,
    ...KB_ROUTES,
    ...MARKETPLACE_ROUTES,
    ...MEMORIZATION_ROUTES,
    ...MEMORIZATION_ALIASES,
    ...ACCOUNT_ROUTES,
    ...SERVICE_ROUTES,
  ]),
);
