/**
 * Routes of the knowledge base under `/api/v1/kb/` (tag `knowledge base`, scope `kb`): the models
 * with their documented training data, the providers, the curated training datasets, the
 * jurisdiction risk table and the factor codes. The knowledge base is the engine's (`engine.kb`)
 * and shared by every account.
 */
import { factorTable, jurisdictionTable, REQUESTS, type Engine } from '../../library.js';
import { inGroup, type Route } from '../context.js';
import * as S from '../schemas/kb.js';

/**
 * The knowledge-base rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example KB_ROUTES.map((r) => r.path) // ['/api/v1/kb/models', '/api/v1/kb/models/{provider}/{model}', …]
 */
export const KB_ROUTES: readonly Route[] = inGroup('knowledge base', 'kb', [
  {
    method: 'GET',
    path: '/api/v1/kb/models',
    operationId: 'listModels',
    summary: 'Models with their documented training data',
    querySchema: REQUESTS.listModels.served,
    responseSchema: S.KB_MODEL_LIST_SCHEMA,
    handler: async (ctx) => ({ models: ctx.engine.models(ctx.query as Parameters<Engine['models']>[0]) }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/models/{provider}/{model}',
    operationId: 'getModel',
    summary: 'One model (`provider/model_name`, case-insensitive)',
    responseSchema: S.KB_MODEL_RESPONSE_SCHEMA,
    handler: async (ctx) => ctx.engine.model(`${ctx.params.provider}/${ctx.params.model}`),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/providers',
    operationId: 'listProviders',
    summary: 'Providers and their models',
    responseSchema: S.KB_PROVIDER_LIST_SCHEMA,
    handler: async (ctx) => ({ providers: ctx.engine.providers() }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/datasets',
    operationId: 'listKbDatasets',
    summary: 'The curated training datasets',
    responseSchema: S.KB_DATASET_LIST_SCHEMA,
    handler: async (ctx) => ({ datasets: ctx.engine.kbDatasets() }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/datasets/{kb_dataset_id}',
    operationId: 'getKbDataset',
    summary: 'One curated training dataset',
    responseSchema: S.KB_DATASET_RESPONSE_SCHEMA,
    handler: async (ctx) => ctx.engine.kbDataset(ctx.params.kb_dataset_id),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/jurisdictions',
    operationId: 'listJurisdictions',
    summary: 'The jurisdiction risk table (a heuristic, not legal advice)',
    responseSchema: S.JURISDICTION_LIST_SCHEMA,
    handler: async () => ({ jurisdictions: jurisdictionTable() }),
  },
  {
    method: 'GET',
    path: '/api/v1/kb/factors',
    operationId: 'listFactors',
    summary: 'Every factor code results may carry, with meaning and source',
    responseSchema: S.FACTOR_LIST_SCHEMA,
    handler: async () => ({ factors: factorTable() }),
  },
]);
