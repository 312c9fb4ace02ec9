/**
 * Routes of the works registry under `/api/v1/content/` (tag `content`, scopes `registry:read` and
 * `registry:write`): register a work and get a signed receipt, read, list and delete the account's
 * works, verify a receipt. A work's `owner` is the calling account, whatever the body says, and
 * another account's work answers 404, as if absent.
 */
import { type RegisterWorkRequest, REQUESTS } from '../../library.js';
import { inGroup, Reply, type Route } from '../context.js';
import * as S from '../schemas/content.js';
import { account, ownWork, planFileLimit } from './caller.js';
import { notFound } from './refusals.js';

/**
 * The works-registry rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example CONTENT_ROUTES.map((r) => `${r.method} ${r.path}`) // ['POST /api/v1/content/register', …]
 */
export const CONTENT_ROUTES: readonly Route[] = inGroup('content', 'registry:read', [
  {
    method: 'POST',
    path: '/api/v1/content/register',
    operationId: 'registerWork',
    scope: 'registry:write',
    creates: true,
    summary: 'Register a work of the account (content, a file or a fingerprint) and get a signed receipt',
    body: 'json',
    files: true,
    requestSchema: REQUESTS.registerWork.served,
    responseSchema: S.REGISTER_RESULT_SCHEMA,
    status: [200, 201],
    handler: async (ctx) => {
      // the account is the owner; the library reads the rest through its contract, rules and all
      const { offload } = ctx.services.work;
      const options = { maxFileBytes: planFileLimit(ctx), ...(offload ? { offload } : {}) };
      const body = ctx.body as Omit<RegisterWorkRequest, 'owner'>;
      const w = await ctx.engine.registerWork({ ...body, owner: account(ctx) }, options);
      return new Reply({ ...w }, w.created ? 201 : 200);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/content/{work_id}',
    operationId: 'getWork',
    summary: 'A registered work of the account',
    responseSchema: S.WORK_RESPONSE_SCHEMA,
    handler: (ctx) => ownWork(ctx, ctx.params.work_id),
  },
  {
    method: 'GET',
    path: '/api/v1/content',
    operationId: 'listWorks',
    summary: "The account's works, by id, with cursor pagination",
    querySchema: REQUESTS.listWorks.served,
    responseSchema: S.WORK_LIST_SCHEMA,
    handler: async (ctx) =>
      ctx.engine.listWorks({ ...(ctx.query as { after?: string; limit?: number }), owner: account(ctx) }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/content/{work_id}',
    operationId: 'deleteWork',
    scope: 'registry:write',
    summary: 'Delete a work of the account and its text',
    responseSchema: S.DELETED_SCHEMA,
    handler: async (ctx) => {
      await ownWork(ctx, ctx.params.work_id);
      if (!(await ctx.engine.deleteWork(ctx.params.work_id, { owner: account(ctx) })))
        notFound(`no work "${ctx.params.work_id}"`);
      return { id: ctx.params.work_id, deleted: true };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/content/verify-receipt',
    operationId: 'verifyReceipt',
    summary: 'Check that a receipt was signed by this service and is unaltered',
    body: 'json',
    requestSchema: REQUESTS.verifyReceipt.served,
    responseSchema: S.VERIFY_RECEIPT_RESULT_SCHEMA,
    handler: async (ctx) => ({ valid: await ctx.engine.verifyReceipt((ctx.body as { receipt: unknown }).receipt) }),
  },
]);
