/**
 * The route table of the HTTP API under `/api/v1`: one row per operation, with its scope, its
 * schemas and its handler. The handler (src/http/handler.ts) matches, authenticates, limits and
 * validates from these rows, and the OpenAPI document (src/http/openapi.ts) is generated from
 * them, so a route exists, is checked and is documented in one place.
 *
 * Extending: add rows to {@link ROUTES} (or pass more to `createHandler(engine, { routes })`); a
 * group with many rows keeps them in its own module and is spread in here, as the marketplace
 * (src/http/routes/marketplace.ts) and memorization (src/http/routes/memorization.ts) groups are;
 * path parameters go in {@link PATH_PARAMS}; the description, errors and worked examples of each
 * operation go in the documentation table (src/http/docs/index.ts), which {@link withDocs} merges
 * into the rows. Handlers return the result object; the adapter wraps it as `{ success: true, ...result }`.
 *
 * Tenancy: works, analyses and monitors belong to the calling account (`owner` of a work is the
 * account); another account's items answer 404, as if absent. Reference datasets are searched,
 * listed and exported by every account, but only the account that created or imported one may
 * grow or drop it (403 for the others); those the operator loaded (the starter, packs, files)
 * need the `admin` scope. The knowledge base is shared.
 */
import { Decoder } from '@msgpack/msgpack';
import {
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  extractText,
  factorTable,
  jurisdictionTable,
  sha256Hex,
  TrainprintError,
  worthOffloading,
  type AnalyzeRequest,
  type ContentType,
  type CreateMonitorRequest,
  type DatasetDocument,
  type DatasetLoadOptions,
  type DatasetStats,
  type Engine,
  type FingerprintOptions,
  type Monitor,
  type RegisterWorkRequest,
  type ScoreRequest,
  type Work,
} from '../../index.js';
import { Reply, type BodyAllowance, type Principal, type Route, type RouteContext, type Scope } from '../context.js';
import { MARKETPLACE_ROUTES } from './marketplace.js';
import { MEMORIZATION_ALIASES, MEMORIZATION_ROUTES } from './memorization.js';
import { withDocs } from '../docs/index.js';
import { idPattern } from '../schemas/kit.js';
import * as S from '../schemas/index.js';

/**
 * Patterns of the path parameters. A segment that does not fit its pattern does not match the
 * route (so `/api/v1/monitors/create` is never read as a monitor id), and the patterns are the
 * parameters' schemas in the OpenAPI document.
 * @example new RegExp(PATH_PARAMS.work_id.pattern).test('wk_' + '0'.repeat(32)) // true
 */
export const PATH_PARAMS: Readonly<Record<string, { readonly pattern: string; readonly description: string }>> = {
  analysis_id: { pattern: idPattern('an', 32), description: 'Analysis id (`an_` + 32 hex)' },
  work_id: { pattern: idPattern('wk', 32), description: 'Work id (`wk_` + 32 hex)' },
  monitor_id: { pattern: idPattern('mon', 32), description: 'Monitor id (`mon_` + 32 hex)' },
  dataset_id: { pattern: S.DATASET_REF_PATTERN, description: 'Reference dataset id (`pack:…`: a shipped pack)' },
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
 * Every route. Order does not matter: a literal segment wins over a parameter, and parameters
 * match only their patterns.
 *
 * @example
 * ROUTES.filter((r) => r.scope === 'analyze').map((r) => `${r.method} ${r.path}`)
 */
export const ROUTES: readonly Route[] = withDocs([
  // ---------------------------------------------------------------- attribution
  {
    method: 'POST',
    path: '/api/v1/attribution/analyze',
    operationId: 'analyze',
    tag: 'attribution',
    scope: 'analyze',
    creates: true,
    summary: 'Analyse content against the reference datasets',
    body: 'json',
    requestSchema: ANALYZE_REQUEST_SCHEMA,
    responseSchema: ANALYSIS_RESULT_SCHEMA,
    handler: async (ctx) => {
      // the analysis is the account's (stored with its owner); a client that goes away cancels the remote corpus
      // calls still in flight (the result is stored all the same)
      return ctx.engine.analyze(ctx.body as AnalyzeRequest, {
        owner: account(ctx),
        signal: ctx.request.signal,
        ...ctx.services.work,
      });
    },
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/analyses/{analysis_id}',
    operationId: 'getAnalysis',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'A stored analysis of the account',
    responseSchema: ANALYSIS_RESULT_SCHEMA,
    handler: (ctx) => ctx.engine.getAnalysis(ctx.params.analysis_id, { owner: account(ctx) }),
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/compare',
    operationId: 'compare',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'Align two texts: reused passages with spans in both',
    body: 'json',
    requestSchema: S.COMPARE_REQUEST_SCHEMA,
    responseSchema: S.COMPARISON_SCHEMA,
    handler: async (ctx) => {
      const { a, b } = ctx.body as { a: string; b: string };
      // a pure function of the two texts: on the handler's worker pool when it has one and the texts are long
      // enough to pay for the trip (the same result)
      const { offload } = ctx.services.work;
      const work = { kind: 'compare', a, b } as const;
      return offload && worthOffloading(work) ? offload.run(work) : ctx.engine.compare(a, b);
    },
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/score',
    operationId: 'score',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'How likely a model trained on a registered work of the account',
    body: 'json',
    requestSchema: S.SCORE_REQUEST_SCHEMA,
    responseSchema: S.SCORE_RESULT_SCHEMA,
    handler: (ctx) => scoreOwned(ctx, ctx.body as ScoreRequest),
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/score',
    operationId: 'scoreByQuery',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'The same score, with query parameters',
    querySchema: S.SCORE_REQUEST_SCHEMA,
    responseSchema: S.SCORE_RESULT_SCHEMA,
    handler: (ctx) => scoreOwned(ctx, ctx.query as unknown as ScoreRequest),
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/fingerprint',
    operationId: 'fingerprint',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'Fingerprint content: content id, work_hash, sketches',
    body: 'json',
    requestSchema: S.FINGERPRINT_REQUEST_SCHEMA,
    responseSchema: S.FINGERPRINT_RESULT_SCHEMA,
    handler: fingerprintHandler,
  },

  // ---------------------------------------------------------------- works registry
  {
    method: 'POST',
    path: '/api/v1/content/register',
    operationId: 'registerWork',
    tag: 'content',
    scope: 'registry:write',
    creates: true,
    summary: 'Register a work of the account (content or fingerprint) and get a signed receipt',
    body: 'json',
    requestSchema: S.REGISTER_REQUEST_SCHEMA,
    responseSchema: S.REGISTER_RESULT_SCHEMA,
    status: [200, 201],
    handler: async (ctx) => {
      const b = registrationFields(ctx.body as RegisterBody);
      // the schema cannot say "exactly one of"; the 422 still names a field
      const hasContent = b.content !== undefined,
        hasFingerprint = b.fingerprint !== undefined;
      if (!hasContent && !hasFingerprint) invalidField('content', 'is required (or give fingerprint)');
      if (hasContent && hasFingerprint) invalidField('fingerprint', 'give content or fingerprint, not both');
      const { offload } = ctx.services.work;
      const w = await ctx.engine.registerWork({ ...b, owner: account(ctx) }, offload ? { offload } : {});
      return new Reply({ ...w }, w.created ? 201 : 200);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/content/{work_id}',
    operationId: 'getWork',
    tag: 'content',
    scope: 'registry:read',
    summary: 'A registered work of the account',
    responseSchema: S.WORK_RESPONSE_SCHEMA,
    handler: (ctx) => ownWork(ctx, ctx.params.work_id),
  },
  {
    method: 'GET',
    path: '/api/v1/content',
    operationId: 'listWorks',
    tag: 'content',
    scope: 'registry:read',
    summary: "The account's works, by id, with cursor pagination",
    querySchema: S.WORK_LIST_QUERY_SCHEMA,
    responseSchema: S.WORK_LIST_SCHEMA,
    handler: async (ctx) =>
      ctx.engine.listWorks({ ...(ctx.query as { after?: string; limit?: number }), owner: account(ctx) }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/content/{work_id}',
    operationId: 'deleteWork',
    tag: 'content',
    scope: 'registry:write',
    summary: 'Delete a work of the account and its text',
    responseSchema: S.DELETED_SCHEMA,
    handler: async (ctx) => {
      await ownWork(ctx, ctx.params.work_id);
      if (!(await ctx.engine.deleteWork(ctx.params.work_id, { owner: account(ctx) })))
        throw new TrainprintError('NOT_FOUND', `no work "${ctx.params.work_id}"`);
      return { id: ctx.params.work_id, deleted: true };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/content/verify-receipt',
    operationId: 'verifyReceipt',
    tag: 'content',
    scope: 'registry:read',
    summary: 'Check that a receipt was signed by this service and is unaltered',
    body: 'json',
    requestSchema: S.VERIFY_RECEIPT_REQUEST_SCHEMA,
    responseSchema: S.VERIFY_RECEIPT_RESULT_SCHEMA,
    handler: async (ctx) => ({ valid: await ctx.engine.verifyReceipt((ctx.body as { receipt: unknown }).receipt) }),
  },

  // ---------------------------------------------------------------- monitors
  {
    method: 'POST',
    path: '/api/v1/monitors/create',
    operationId: 'createMonitor',
    tag: 'monitors',
    scope: 'monitors',
    creates: true,
    summary: 'Watch a work of the account against models; events go to the log and the webhook',
    body: 'json',
    requestSchema: S.CREATE_MONITOR_REQUEST_SCHEMA,
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const req = ctx.body as CreateMonitorRequest;
      if (req.work_id === undefined && req.work_hash === undefined) {
        invalidField('work_id', 'is required (or give work_hash)');
      }
      if (req.webhook !== undefined) {
        let url: URL | null = null;
        try {
          url = new URL(req.webhook.url);
        } catch {
          /* the engine reports a bad URL */
        }
        const refused = url ? await ctx.services.checkWebhookUrl(url) : null;
        if (refused !== null) invalidField('webhook.url', refused);
      }
      // a work_hash names the account's own work, never another account's work with the same bytes
      const work =
        req.work_id !== undefined ? await ownWork(ctx, req.work_id) : await ownWorkByHash(ctx, req.work_hash!);
      const { work_hash: _unused, ...rest } = req;
      // the account's monitor: its evaluations read the datasets every account shares and this account's own
      const m = await ctx.engine.createMonitor({ ...rest, work_id: work.work_id }, { owner: account(ctx) });
      return new Reply({ ...shownMonitor(ctx, m) }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/monitors',
    operationId: 'listMonitors',
    tag: 'monitors',
    scope: 'monitors',
    summary: "The account's monitors",
    querySchema: S.MONITOR_LIST_QUERY_SCHEMA,
    responseSchema: S.MONITOR_LIST_SCHEMA,
    handler: async (ctx) => {
      const list = await ctx.engine.listMonitors({ ...(ctx.query as { work_id?: string }), owner: account(ctx) });
      const held = heldDatasets(ctx); // once for the list, not per monitor
      return { monitors: list.map((m) => shownMonitor(ctx, m, held)) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/monitors/{monitor_id}',
    operationId: 'getMonitor',
    tag: 'monitors',
    scope: 'monitors',
    summary: 'A monitor with its last evaluation per model',
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    handler: async (ctx) => shownMonitor(ctx, await ownMonitor(ctx)),
  },
  {
    method: 'DELETE',
    path: '/api/v1/monitors/{monitor_id}',
    operationId: 'deleteMonitor',
    tag: 'monitors',
    scope: 'monitors',
    summary: 'Delete a monitor (its events stay in the log)',
    responseSchema: S.DELETED_SCHEMA,
    handler: async (ctx) => {
      if (!(await ctx.engine.deleteMonitor(ctx.params.monitor_id, { owner: account(ctx) }))) {
        notFound(`no monitor "${ctx.params.monitor_id}"`);
      }
      return { id: ctx.params.monitor_id, deleted: true };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/monitors/{monitor_id}/pause',
    operationId: 'pauseMonitor',
    tag: 'monitors',
    scope: 'monitors',
    summary: 'Stop evaluating a monitor (no body)',
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    handler: async (ctx) =>
      shownMonitor(ctx, await ctx.engine.pauseMonitor(ctx.params.monitor_id, { owner: account(ctx) })),
  },
  {
    method: 'POST',
    path: '/api/v1/monitors/{monitor_id}/resume',
    operationId: 'resumeMonitor',
    tag: 'monitors',
    scope: 'monitors',
    summary: 'Evaluate a paused monitor again (no body)',
    responseSchema: S.MONITOR_RESPONSE_SCHEMA,
    handler: async (ctx) =>
      shownMonitor(ctx, await ctx.engine.resumeMonitor(ctx.params.monitor_id, { owner: account(ctx) })),
  },
  {
    method: 'GET',
    path: '/api/v1/monitors/{monitor_id}/events',
    operationId: 'listMonitorEvents',
    tag: 'monitors',
    scope: 'monitors',
    summary: 'Events of a monitor, oldest first',
    querySchema: S.EVENT_LIST_QUERY_SCHEMA,
    responseSchema: S.EVENT_LIST_SCHEMA,
    handler: async (ctx) => {
      await ownMonitor(ctx);
      return {
        events: await ctx.engine.listEvents({
          monitor_id: ctx.params.monitor_id,
          ...(ctx.query as { limit?: number }),
        }),
      };
    },
  },

  // ---------------------------------------------------------------- reference datasets (searched by all)
  {
    method: 'GET',
    path: '/api/v1/datasets',
    operationId: 'listDatasets',
    tag: 'datasets',
    scope: 'datasets:read',
    summary: 'The reference datasets the account searches (shared and its own) with their stats',
    responseSchema: S.DATASET_LIST_SCHEMA,
    handler: async (ctx) => ({
      datasets: (who(ctx).scopes.includes('admin')
        ? ctx.engine.datasets()
        : ctx.engine.datasets({ account: account(ctx) })
      ).map((d) => shownDataset(ctx, d)),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/{dataset_id}',
    operationId: 'getDataset',
    tag: 'datasets',
    scope: 'datasets:read',
    summary: "One reference dataset's stats",
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    handler: async (ctx) => shownDataset(ctx, datasetStats(ctx, ctx.params.dataset_id)),
  },
  {
    method: 'POST',
    path: '/api/v1/datasets',
    operationId: 'createDataset',
    tag: 'datasets',
    scope: 'datasets:write',
    creates: true,
    summary: 'Create a reference dataset (optionally with its first documents)',
    body: 'json',
    requestSchema: S.CREATE_DATASET_REQUEST_SCHEMA,
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    status: [201],
    beforeBody: async (ctx) => {
      await datasetsWritable(ctx);
      return datasetAllowance(ctx, true);
    },
    handler: async (ctx) => {
      const { documents, ...descriptor } = ctx.body as { id: string; documents?: DatasetDocument[] } & Record<
        string,
        unknown
      >;
      const load = () => ctx.engine.addDataset(descriptor as never, documents ?? [], suppliedBy(ctx));
      const stats = await createOwnDataset(ctx, descriptor.id, load);
      return new Reply({ ...shownDataset(ctx, stats) }, 201);
    },
  },
  {
    method: 'POST',
    path: '/api/v1/datasets/{dataset_id}/documents',
    operationId: 'addDocuments',
    tag: 'datasets',
    scope: 'datasets:write',
    creates: true,
    summary: 'Add documents to a reference dataset',
    body: 'json',
    requestSchema: S.ADD_DOCUMENTS_REQUEST_SCHEMA,
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    beforeBody: async (ctx) => {
      await datasetsWritable(ctx);
      await ownDataset(ctx, ctx.params.dataset_id);
      return datasetAllowance(ctx, false);
    },
    handler: async (ctx) => {
      await ownDataset(ctx, ctx.params.dataset_id); // again: it may have been dropped while the body was read
      const stats = await ctx.engine.addDataset(
        { id: ctx.params.dataset_id },
        (ctx.body as { documents: DatasetDocument[] }).documents,
      );
      return shownDataset(ctx, stats);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/{dataset_id}/export',
    operationId: 'exportDataset',
    tag: 'datasets',
    scope: 'datasets:read',
    summary: 'A reference dataset as a file (`POST /api/v1/datasets/import` or `engine.importDataset` loads it)',
    responseSchema: S.BINARY_SCHEMA,
    responseType: 'binary',
    handler: async (ctx) => {
      datasetStats(ctx, ctx.params.dataset_id); // another account's dataset is not there for this one
      const bytes = ctx.engine.exportDataset(ctx.params.dataset_id);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': 'application/octet-stream',
          'content-disposition': `attachment; filename="${ctx.params.dataset_id}.tpds"`,
          'cache-control': 'no-store',
        },
      });
    },
  },
  {
    method: 'POST',
    path: '/api/v1/datasets/import',
    operationId: 'importDataset',
    tag: 'datasets',
    scope: 'datasets:write',
    creates: true,
    summary: 'Load a dataset file (application/octet-stream)',
    body: 'binary',
    requestSchema: S.BINARY_SCHEMA,
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    status: [201],
    beforeBody: async (ctx) => {
      await datasetsWritable(ctx);
      return datasetAllowance(ctx, true);
    },
    handler: async (ctx) => {
      const bytes = ctx.body as Uint8Array;
      // the id is inside the file: checked before anything is loaded under it
      const id = datasetFileId(bytes);
      const stats = await createOwnDataset(ctx, id, () => ctx.engine.importDataset(bytes, suppliedBy(ctx)));
      return new Reply({ ...shownDataset(ctx, stats) }, 201);
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/datasets/{dataset_id}',
    operationId: 'deleteDataset',
    tag: 'datasets',
    scope: 'datasets:write',
    summary: 'Drop a reference dataset of the account',
    responseSchema: S.DELETED_SCHEMA,
    handler: async (ctx) => {
      await datasetsWritable(ctx);
      await ownDataset(ctx, ctx.params.dataset_id);
      if (!ctx.engine.removeDataset(ctx.params.dataset_id))
        throw new TrainprintError('NOT_FOUND', `no dataset "${ctx.params.dataset_id}"`);
      loadedByApi(ctx.engine).delete(ctx.params.dataset_id);
      return { id: ctx.params.dataset_id, deleted: true };
    },
  },

  // ---------------------------------------------------------------- knowledge base
  {
    method: 'GET',
    path: '/api/v1/kb/models',
    operationId: 'listModels',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'Models with their documented training data',
    querySchema: S.KB_MODEL_QUERY_SCHEMA,
    responseSchema: S.KB_MODEL_LIST_SCHEMA,
    handler: async (ctx) => ({ models: ctx.engine.models(ctx.query as Parameters<Engine['models']>[0]) }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/models/{provider}/{model}',
    operationId: 'getModel',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'One model (`provider/model_name`, case-insensitive)',
    responseSchema: S.KB_MODEL_RESPONSE_SCHEMA,
    handler: async (ctx) => ctx.engine.model(`${ctx.params.provider}/${ctx.params.model}`),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/providers',
    operationId: 'listProviders',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'Providers and their models',
    responseSchema: S.KB_PROVIDER_LIST_SCHEMA,
    handler: async (ctx) => ({ providers: ctx.engine.providers() }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/datasets',
    operationId: 'listKbDatasets',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'The curated training datasets',
    responseSchema: S.KB_DATASET_LIST_SCHEMA,
    handler: async (ctx) => ({ datasets: ctx.engine.kbDatasets() }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/datasets/{kb_dataset_id}',
    operationId: 'getKbDataset',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'One curated training dataset',
    responseSchema: S.KB_DATASET_RESPONSE_SCHEMA,
    handler: async (ctx) => ctx.engine.kbDataset(ctx.params.kb_dataset_id),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/jurisdictions',
    operationId: 'listJurisdictions',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'The jurisdiction risk table (a heuristic, not legal advice)',
    responseSchema: S.JURISDICTION_LIST_SCHEMA,
    handler: async () => ({ jurisdictions: jurisdictionTable() }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/factors',
    operationId: 'listFactors',
    tag: 'knowledge base',
    scope: 'kb',
    summary: 'Every factor code results may carry, with meaning and source',
    responseSchema: S.FACTOR_LIST_SCHEMA,
    handler: async () => ({ factors: factorTable() }),
  },

  // ---------------------------------------------------------------- marketplace, memorization
  ...MARKETPLACE_ROUTES,
  ...MEMORIZATION_ROUTES,
  ...MEMORIZATION_ALIASES,

  // ---------------------------------------------------------------- account
  {
    method: 'POST',
    path: '/api/v1/oauth/token',
    operationId: 'oauthToken',
    tag: 'account',
    scope: null,
    summary: 'OAuth 2.0 client-credentials grant (RFC 6749 §4.4): a bearer token of at most one hour',
    body: 'form',
    requestSchema: S.TOKEN_REQUEST_SCHEMA,
    responseSchema: S.TOKEN_RESPONSE_SCHEMA,
    handler: (ctx) =>
      ctx.services.issueToken(ctx.body as URLSearchParams, ctx.request.headers.get('authorization'), ctx.request),
  },
  {
    method: 'GET',
    path: '/api/v1/usage',
    operationId: 'getUsage',
    tag: 'account',
    scope: 'usage',
    metered: false,
    summary: 'Calls used and left in the current UTC day (not charged: it answers at the limit too)',
    responseSchema: S.USAGE_SCHEMA,
    handler: async (ctx) => {
      const s = await ctx.services.usage(who(ctx));
      return {
        account: s.account,
        plan: s.plan,
        window: 'day',
        limit: s.limit,
        used: s.used,
        remaining: s.remaining,
        reset_at: new Date(s.resetAt).toISOString(),
        reset_seconds: s.resetSeconds,
      };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/keys',
    operationId: 'createApiKey',
    tag: 'account',
    scope: 'keys',
    creates: true,
    summary: 'Create an API key for the account (shown once)',
    body: 'json',
    requestSchema: S.CREATE_KEY_REQUEST_SCHEMA,
    responseSchema: S.KEY_CREATED_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const p = who(ctx);
      const b = ctx.body as { name?: string; scopes?: Scope[]; mode?: 'live' | 'test' };
      const { key, info } = await ctx.keys.createKey({
        account: p.account,
        plan: p.plan,
        scopes: grantable(p, b.scopes),
        mode: b.mode ?? p.mode,
        ...(b.name === undefined ? {} : { name: b.name }),
      });
      return new Reply({ key, ...info }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/keys',
    operationId: 'listApiKeys',
    tag: 'account',
    scope: 'keys',
    summary: "The account's API keys (prefix and last four characters, never the key)",
    responseSchema: S.KEY_LIST_SCHEMA,
    handler: async (ctx) => ({ keys: await ctx.keys.listKeys(account(ctx)) }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/keys/{key_id}',
    operationId: 'revokeApiKey',
    tag: 'account',
    scope: 'keys',
    summary: 'Revoke an API key of the account',
    responseSchema: S.KEY_RESPONSE_SCHEMA,
    handler: async (ctx) =>
      (await ctx.keys.revokeKey(account(ctx), ctx.params.key_id)) ?? notFound(`no API key "${ctx.params.key_id}"`),
  },
  {
    method: 'POST',
    path: '/api/v1/oauth/clients',
    operationId: 'createOAuthClient',
    tag: 'account',
    scope: 'keys',
    creates: true,
    summary: 'Register an OAuth client for the account (secret shown once)',
    body: 'json',
    requestSchema: S.CREATE_CLIENT_REQUEST_SCHEMA,
    responseSchema: S.CLIENT_CREATED_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const p = who(ctx);
      const b = ctx.body as { name?: string; scopes?: Scope[] };
      const { client_secret, info } = await ctx.keys.createClient({
        account: p.account,
        plan: p.plan,
        scopes: grantable(p, b.scopes),
        ...(b.name === undefined ? {} : { name: b.name }),
      });
      return new Reply({ client_secret, ...info }, 201);
    },
  },
  {
    // no Idempotency-Key (creates stays unset): a replay would keep the new key in the store's replay records
    method: 'POST',
    path: '/api/v1/admin/keys',
    operationId: 'adminCreateKey',
    tag: 'account',
    scope: 'admin',
    summary: 'Create an API key for any account, with its plan and scopes (operators; the key is shown once)',
    body: 'json',
    requestSchema: S.ADMIN_CREATE_KEY_REQUEST_SCHEMA,
    responseSchema: S.KEY_CREATED_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const b = ctx.body as {
        account: string;
        plan?: string;
        scopes?: Scope[];
        mode?: 'live' | 'test';
        name?: string;
        expires_in_days?: number;
      };
      const plans = ctx.services.plans();
      const plan = b.plan ?? 'free';
      // the server's plans, which may be more than the key store was told of: name the field either way
      if (!plans.includes(plan)) {
        invalidField('plan', `${JSON.stringify(plan)} is not a known plan; the plans are ${plans.join(', ')}`);
      }
      const { key, info } = await ctx.keys.createKey({
        account: b.account,
        plan,
        mode: b.mode ?? 'live',
        ...(b.scopes === undefined ? {} : { scopes: b.scopes }),
        ...(b.name === undefined ? {} : { name: b.name }),
        ...(b.expires_in_days === undefined ? {} : { expiresInSeconds: b.expires_in_days * 86_400 }),
      });
      return new Reply({ key, ...info }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/oauth/clients',
    operationId: 'listOAuthClients',
    tag: 'account',
    scope: 'keys',
    summary: "The account's OAuth clients (never the secret)",
    responseSchema: S.CLIENT_LIST_SCHEMA,
    handler: async (ctx) => ({ clients: await ctx.keys.listClients(account(ctx)) }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/oauth/clients/{client_id}',
    operationId: 'revokeOAuthClient',
    tag: 'account',
    scope: 'keys',
    summary: 'Revoke an OAuth client and every token it holds',
    responseSchema: S.CLIENT_RESPONSE_SCHEMA,
    handler: async (ctx) =>
      (await ctx.keys.revokeClient(account(ctx), ctx.params.client_id)) ??
      notFound(`no OAuth client "${ctx.params.client_id}"`),
  },

  // ---------------------------------------------------------------- service
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    operationId: 'openapi',
    tag: 'service',
    scope: null,
    summary: 'This OpenAPI 3.1 document',
    responseSchema: S.OPENAPI_DOCUMENT_SCHEMA,
    handler: async (ctx) => jsonDocument(ctx.services.openapi()),
  },
  {
    method: 'GET',
    path: '/api/v1/status',
    operationId: 'getStatus',
    tag: 'service',
    scope: null,
    summary: 'Health (a check runs now), uptime, and incidents derived from recorded checks and 5xx responses',
    responseSchema: S.STATUS_SCHEMA,
    handler: (ctx) => ctx.services.status(),
  },
  {
    method: 'GET',
    path: '/status',
    operationId: 'statusPage',
    tag: 'service',
    scope: null,
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

// ------------------------------------------------------------------ helpers of the handlers

function who(ctx: RouteContext): Principal {
  if (!ctx.principal) throw new TrainprintError('UNAUTHORIZED'); // unreachable: only public routes run without one
  return ctx.principal;
}

function account(ctx: RouteContext): string {
  return who(ctx).account;
}

function notFound(detail: string): never {
  throw new TrainprintError('NOT_FOUND', detail);
}

/** 422 naming a field the schema alone cannot require (one of two, not both). */
type RegisterBody = Omit<RegisterWorkRequest, 'owner'> & {
  metadata?: Pick<RegisterWorkRequest, 'title' | 'author' | 'work_type' | 'declarations'> & { jurisdiction?: string };
};

/**
 * The registration request with `metadata` (the analyze request's shape, so an analysis's metadata can be sent as it is)
 * folded into the top-level fields.
 */
function registrationFields(body: RegisterBody): Omit<RegisterWorkRequest, 'owner'> {
  const { metadata, ...top } = body;
  if (metadata === undefined) return top;
  if (metadata.jurisdiction !== undefined) {
    invalidField('metadata.jurisdiction', 'a registration has no jurisdiction; give it to score or to a monitor');
  }
  const merged: Record<string, unknown> = { ...top };
  for (const [k, v] of Object.entries(metadata)) {
    if (k in top) invalidField(`metadata.${k}`, `given twice (also as ${k}); give one`);
    merged[k] = v;
  }
  return merged as Omit<RegisterWorkRequest, 'owner'>;
}

function invalidField(field: string, reason: string): never {
  throw new TrainprintError('INVALID_INPUT', `${field}: ${reason}`, { cause: { location: 'body', field, reason } });
}

/** The OpenAPI document as it is (no success envelope: it is a document, not a result). */
function jsonDocument(doc: Record<string, unknown>): Response {
  return new Response(JSON.stringify(doc), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' },
  });
}

const ownWork = (ctx: RouteContext, workId: string): Promise<Work> =>
  ctx.engine.getWork(workId, { owner: account(ctx) });

const ownWorkByHash = (ctx: RouteContext, workHash: string): Promise<Work> =>
  ctx.engine.findWork(workHash, { owner: account(ctx) });

/**
 * A monitor as the API shows it: with `missing_datasets`, the datasets it is limited to that this server does not
 * hold now (dropped, or created through the API before a restart), so that a monitor that cannot see its dataset
 * says so instead of scoring 0 in silence.
 */
function shownMonitor(
  ctx: RouteContext,
  m: Monitor,
  held: ReadonlySet<string> = heldDatasets(ctx),
): Monitor & { missing_datasets: string[] } {
  return { ...m, missing_datasets: m.datasets === null ? [] : m.datasets.filter((id) => !held.has(id)) };
}

/** Ids of the datasets the caller's account searches now (the shared ones and its own). */
function heldDatasets(ctx: RouteContext): Set<string> {
  return new Set(ctx.engine.datasets({ account: account(ctx) }).map((d) => d.id));
}

const ownMonitor = (ctx: RouteContext): Promise<Monitor> =>
  ctx.engine.getMonitor(ctx.params.monitor_id, { owner: account(ctx) });

async function scoreOwned(ctx: RouteContext, request: ScoreRequest): Promise<unknown> {
  await ownWorkByHash(ctx, request.work_hash);
  // the account's score reads the datasets every account shares and its own, never another account's
  return ctx.engine.score(request, { ...ctx.services.work, owner: account(ctx) });
}

/** A dataset's stats when the caller may read it (shared, or its own); another account's is not there for it. */
function datasetStats(ctx: RouteContext, id: string) {
  const d = ctx.engine.datasets().find((x) => x.id === id);
  return d && mayRead(ctx, id) ? d : notFound(`no dataset "${id}"`);
}

/**
 * Whether the caller may read a loaded dataset: every account reads the shared ones (shipped, the operator's) and
 * its own; an admin reads all.
 */
function mayRead(ctx: RouteContext, id: string): boolean {
  const { account: owner } = ctx.engine.datasetProvenance(id);
  return owner === null || owner === account(ctx) || who(ctx).scopes.includes('admin');
}

/**
 * Who supplies a dataset loaded through the API: an admin key loads for every account (the operator's, as CLI
 * flags do); any other key for its own account alone.
 */
function suppliedBy(ctx: RouteContext): DatasetLoadOptions {
  return who(ctx).scopes.includes('admin')
    ? { supplied_by: 'operator' }
    : { supplied_by: 'account', account: account(ctx) };
}

/**
 * What the account's plan lets it still keep of its own datasets (`Plan.datasets`): a new one only below the count
 * (403 otherwise), and a body no larger than the bytes of text left. An admin key loads the operator's: no cap.
 */
async function datasetAllowance(ctx: RouteContext, creating: boolean): Promise<BodyAllowance | undefined> {
  const principal = who(ctx);
  if (principal.scopes.includes('admin')) return undefined;
  const caps = ctx.services.plan(principal.plan)?.datasets;
  if (!caps) return undefined;
  const me = account(ctx);
  const own = ctx.engine.datasets().filter((d) => ctx.engine.datasetProvenance(d.id).account === me);
  // requests of this account still running count as if done: checked and reserved in one step (no await between),
  // so parallel uploads cannot each see the same room
  let byAccount = RESERVED.get(ctx.engine);
  if (!byAccount) RESERVED.set(ctx.engine, (byAccount = new Map()));
  const held = byAccount.get(me) ?? { count: 0, bytes: 0 };
  if (creating && caps.count !== null && own.length + held.count >= caps.count) {
    const running = held.count > 0 ? ` (${held.count} being created now)` : '';
    throw new TrainprintError(
      'FORBIDDEN',
      `plan "${principal.plan}" keeps at most ${caps.count} datasets per account ` +
        `and this account has ${own.length}${running}: drop one first (DELETE /api/v1/datasets/{dataset_id})`,
    );
  }
  const used = own.reduce((n, d) => n + d.bytes, 0);
  const left = caps.bytes === null ? Number.MAX_SAFE_INTEGER : Math.max(0, caps.bytes - used - held.bytes);
  // a body of declared length reserves that much (the text it holds is less); one without reserves all that is left
  const declared = Number(ctx.request.headers.get('content-length') ?? Number.NaN);
  const take =
    caps.bytes === null ? 0 : Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, left) : left;
  const mine = { count: creating ? 1 : 0, bytes: take };
  byAccount.set(me, { count: held.count + mine.count, bytes: held.bytes + mine.bytes });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const now = byAccount.get(me)!;
    const next = { count: now.count - mine.count, bytes: now.bytes - mine.bytes };
    if (next.count === 0 && next.bytes === 0) byAccount.delete(me);
    else byAccount.set(me, next);
  };
  const uploading = held.bytes > 0 ? ` (and ${held.bytes} held by uploads running now)` : '';
  return {
    maxBodyBytes: left,
    reason: `plan "${principal.plan}" keeps ${caps.bytes} bytes of dataset text per account and ${used} are used${uploading}`,
    release,
  };
}

/**
 * What running dataset writes of each account hold of its plan's caps, per engine: a dataset being created counts
 * toward the number, a body being read toward the bytes, until its request ends.
 */
const RESERVED = new WeakMap<Engine, Map<string, { count: number; bytes: number }>>();

/**
 * Datasets loaded through this API, per engine. They live in the server's memory: a restart drops them, while the
 * operator's (loaded at start from files or kept in PostgreSQL) and the packs come back.
 */
const LOADED_BY_API = new WeakMap<Engine, Set<string>>();

function loadedByApi(engine: Engine): Set<string> {
  let set = LOADED_BY_API.get(engine);
  if (!set) LOADED_BY_API.set(engine, (set = new Set()));
  return set;
}

/** A dataset as the API shows it: with `durable`, whether it outlasts a restart of the server. */
function shownDataset(ctx: RouteContext, d: DatasetStats): DatasetStats & { durable: boolean } {
  return { ...d, durable: !loadedByApi(ctx.engine).has(d.id) };
}

/** Ids being created now, per engine: two requests for one id must not both load it. */
const CREATING = new WeakMap<Engine, Set<string>>();

/** 409 CONFLICT when the handler keeps the reference datasets as they are (`datasetsReadOnly`). */
async function datasetsWritable(ctx: RouteContext): Promise<void> {
  const why = ctx.services.datasetsReadOnly;
  if (why !== null) {
    throw new TrainprintError('CONFLICT', `reference datasets cannot be changed on this server: ${why}`);
  }
}

/**
 * The dataset when the caller may change it: the account's own, or any for an admin (the shared ones included).
 * 404 when it is not loaded or is another account's (whose datasets this one cannot see), 403 for a shared one.
 */
async function ownDataset(ctx: RouteContext, id: string): Promise<void> {
  datasetStats(ctx, id);
  if (who(ctx).scopes.includes('admin')) return;
  const p = ctx.engine.datasetProvenance(id);
  if (p.account === account(ctx)) return;
  throw new TrainprintError(
    'FORBIDDEN',
    `dataset "${id}" is shared by every account (${p.supplied_by === 'shipped' ? 'a reference pack of the package' : 'loaded by the operator'}): changing it needs the admin scope`,
  );
}

/**
 * Load a dataset for the calling account under `id` (null: the file's id could not be read; the engine then says
 * why the file is refused); `load` records who supplied it ({@link suppliedBy}).
 */
async function createOwnDataset(
  ctx: RouteContext,
  id: string | null,
  load: () => Promise<DatasetStats>,
): Promise<DatasetStats> {
  const idPattern = new RegExp(S.DATASET_ID_PATTERN);
  if (id !== null && !idPattern.test(id)) invalidField('id', `the dataset id must match ${S.DATASET_ID_PATTERN}`);
  const kbName = id !== null && !who(ctx).scopes.includes('admin') ? ctx.engine.kb.resolveDatasetName(id) : null;
  if (kbName !== null) {
    // the knowledge base's names are the operator's: an account holding "the-pile" would keep the operator's sample
    // of The Pile from loading under its name, and read to others as if it were that corpus
    invalidField(
      'id',
      `"${id}" names a dataset of the knowledge base (${kbName}), kept for the operator's samples: choose another id, e.g. "${id!.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}-mine", and declare what it samples with kb_dataset`,
    );
  }
  let creating = CREATING.get(ctx.engine);
  if (!creating) CREATING.set(ctx.engine, (creating = new Set()));
  if (id !== null) {
    if (ctx.engine.datasets().some((d) => d.id === id) || creating.has(id)) {
      // another account's dataset is not named: only that the id is taken
      const how =
        ctx.engine.datasets().some((d) => d.id === id) && mayRead(ctx, id)
          ? `exists; add documents with POST /api/v1/datasets/${id}/documents`
          : 'is taken: choose another id';
      throw new TrainprintError('ALREADY_EXISTS', `dataset "${id}" ${how}`);
    }
    creating.add(id);
  }
  try {
    const stats = await load();
    if (!idPattern.test(stats.id)) {
      // unreachable while the file's id is read as the engine reads it; never keep such an id loaded
      ctx.engine.removeDataset(stats.id);
      invalidField('id', `the dataset id must match ${S.DATASET_ID_PATTERN}`);
    }
    loadedByApi(ctx.engine).add(stats.id);
    return stats;
  } finally {
    if (id !== null) creating.delete(id);
  }
}

/**
 * The dataset id a dataset file declares (`payload.descriptor.id`; the layout is in
 * src/datasets/snapshot.ts), or null when the file cannot be read that far. Decoding gives views
 * of the bytes, not copies, so a large file costs little more than its document list.
 */
function datasetFileId(bytes: Uint8Array): string | null {
  const max = bytes.length;
  const decoder = new Decoder({
    maxStrLength: max,
    maxBinLength: max,
    maxArrayLength: max,
    maxMapLength: max,
    maxExtLength: max,
  });
  try {
    const top = decoder.decode(bytes);
    if (!Array.isArray(top) || top.length !== 2 || !(top[1] instanceof Uint8Array)) return null;
    const payload = decoder.decode(top[1]) as { descriptor?: { id?: unknown } } | null;
    const id = payload?.descriptor?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** Scopes for a new key or client: the asked ones, which must all be the caller's; default the caller's. */
function grantable(p: Principal, asked: readonly Scope[] | undefined): Scope[] {
  if (asked === undefined) return [...p.scopes];
  const extra = asked.filter((s) => !p.scopes.includes(s));
  if (extra.length)
    throw new TrainprintError('FORBIDDEN', `cannot grant scopes the caller does not have: ${extra.join(', ')}`);
  return [...asked];
}

async function fingerprintHandler(ctx: RouteContext): Promise<unknown> {
  // the size is bounded by the body limit (maxBodyBytes); fingerprinting has no limit of its own
  const b = ctx.body as {
    content: string;
    content_type?: ContentType;
    options?: FingerprintOptions;
    include_winnow?: boolean;
  };
  const type = b.content_type ?? 'text';
  const x = extractText(b.content, type);
  // work_hash is of the bytes sent (markup included), as registerWork computes it
  const fp = await ctx.engine.fingerprint(x.text, { ...b.options, workHash: type === 'text' });
  const workHash = fp.work_hash ?? `sha256:${await sha256Hex(b.content)}`;
  const out: Record<string, unknown> = {
    version: fp.version,
    params: fp.params,
    fingerprint: fp.fingerprint,
    work_hash: workHash,
    byte_length: fp.byte_length,
    token_count: fp.token_count,
    shingle_count: fp.shingles.hashes.length,
    simhash: fp.simhash === undefined ? null : fp.simhash.toString(16).padStart(16, '0'),
    minhash: fp.minhash === undefined ? null : Array.from(fp.minhash),
  };
  if (b.include_winnow && fp.winnow) {
    const starts: number[] = [],
      ends: number[] = [];
    for (let i = 0; i < fp.winnow.hashes.length; i++) {
      const [s, e] = x.mapSpan(fp.winnow.starts[i], fp.winnow.ends[i]);
      starts.push(s);
      ends.push(e);
    }
    out.winnow = { hashes: Array.from(fp.winnow.hashes, (h) => h.toString(16).padStart(16, '0')), starts, ends };
  }
  return out;
}
