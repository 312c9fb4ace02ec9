/**
 * Routes of the account (tag `account`): the OAuth 2.0 token endpoint, the day's usage, the
 * account's API keys and OAuth clients, and the operators' key creation for any account
 * (`admin`). A key or client is created for the caller's account with at most the caller's scopes;
 * another account's key or client answers 404, as if absent.
 */
import { readThrough, REQUESTS, TrainprintError } from '../../library.js';
import { inGroup, Reply, type Principal, type Route, type Scope } from '../context.js';
import * as S from '../schemas/account.js';
import { account, who } from './caller.js';
import { notFound } from './refusals.js';

/**
 * The account rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example ACCOUNT_ROUTES.map((r) => `${r.method} ${r.path}`) // ['POST /api/v1/oauth/token', 'GET /api/v1/usage', …]
 */
export const ACCOUNT_ROUTES: readonly Route[] = inGroup('account', 'keys', [
  {
    method: 'POST',
    path: '/api/v1/oauth/token',
    operationId: 'oauthToken',
    scope: null,
    summary: 'OAuth 2.0 client-credentials grant (RFC 6749 §4.4): a bearer token of at most one hour',
    body: 'form',
    requestSchema: REQUESTS.issueToken.served,
    responseSchema: S.TOKEN_RESPONSE_SCHEMA,
    handler: (ctx) =>
      ctx.services.issueToken(ctx.body as URLSearchParams, ctx.request.headers.get('authorization'), ctx.request),
  },
  {
    method: 'GET',
    path: '/api/v1/usage',
    operationId: 'getUsage',
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
    creates: true,
    summary: 'Create an API key for the account (shown once)',
    body: 'json',
    requestSchema: REQUESTS.createKey.served,
    responseSchema: S.KEY_CREATED_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const p = who(ctx);
      const b = ctx.body as CredentialRequest & { mode?: 'live' | 'test' };
      const { key, info } = await ctx.keys.createKey({ ...ownGrant(p, b), mode: b.mode ?? p.mode });
      return new Reply({ key, ...info }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/keys',
    operationId: 'listApiKeys',
    summary: "The account's API keys (prefix and last four characters, never the key)",
    responseSchema: S.KEY_LIST_SCHEMA,
    handler: async (ctx) => ({ keys: await ctx.keys.listKeys(account(ctx)) }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/keys/{key_id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key of the account',
    responseSchema: S.KEY_RESPONSE_SCHEMA,
    handler: async (ctx) =>
      (await ctx.keys.revokeKey(account(ctx), ctx.params.key_id)) ?? notFound(`no API key "${ctx.params.key_id}"`),
  },
  {
    method: 'POST',
    path: '/api/v1/oauth/clients',
    operationId: 'createOAuthClient',
    creates: true,
    summary: 'Register an OAuth client for the account (secret shown once)',
    body: 'json',
    requestSchema: REQUESTS.createClient.served,
    responseSchema: S.CLIENT_CREATED_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const { client_secret, info } = await ctx.keys.createClient(ownGrant(who(ctx), ctx.body as CredentialRequest));
      return new Reply({ client_secret, ...info }, 201);
    },
  },
  {
    // no Idempotency-Key (creates stays unset): a replay would keep the new key in the store's replay records
    method: 'POST',
    path: '/api/v1/admin/keys',
    operationId: 'adminCreateKey',
    scope: 'admin',
    summary: 'Create an API key for any account, with its plan and scopes (operators; the key is shown once)',
    body: 'json',
    requestSchema: REQUESTS.adminCreateKey.served,
    responseSchema: S.KEY_CREATED_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      // the server's plans, which may be more than the key store was told of
      const { expires_in_days: days, ...b } = readThrough(REQUESTS.adminCreateKey, ctx.body, ctx.services.plans());
      const { key, info } = await ctx.keys.createKey({
        ...b,
        ...(days === undefined ? {} : { expiresInSeconds: days * 86_400 }),
      });
      return new Reply({ key, ...info }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/oauth/clients',
    operationId: 'listOAuthClients',
    summary: "The account's OAuth clients (never the secret)",
    responseSchema: S.CLIENT_LIST_SCHEMA,
    handler: async (ctx) => ({ clients: await ctx.keys.listClients(account(ctx)) }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/oauth/clients/{client_id}',
    operationId: 'revokeOAuthClient',
    summary: 'Revoke an OAuth client and every token it holds',
    responseSchema: S.CLIENT_RESPONSE_SCHEMA,
    handler: async (ctx) =>
      (await ctx.keys.revokeClient(account(ctx), ctx.params.client_id)) ??
      notFound(`no OAuth client "${ctx.params.client_id}"`),
  },
]);

// ------------------------------------------------------------------ helpers

/** What a caller asks for when it makes itself a key or an OAuth client. */
interface CredentialRequest {
  readonly name?: string;
  readonly scopes?: Scope[];
}

/** A new credential of the caller's own account and plan, with the scopes it asked for out of its own (403 beyond). */
function ownGrant(p: Principal, b: CredentialRequest) {
  return {
    account: p.account,
    plan: p.plan,
    scopes: grantable(p, b.scopes),
    ...(b.name === undefined ? {} : { name: b.name }),
  };
}

/** Scopes for a new key or client: the asked ones, which must all be the caller's; default the caller's. */
function grantable(p: Principal, asked: readonly Scope[] | undefined): Scope[] {
  if (asked === undefined) return [...p.scopes];
  const extra = asked.filter((s) => !p.scopes.includes(s));
  if (extra.length)
    throw new TrainprintError('FORBIDDEN', `cannot grant scopes the caller does not have: ${extra.join(', ')}`);
  return [...asked];
}
