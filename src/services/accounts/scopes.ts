/**
 * Scopes and principals of the accounts service: what a key or an OAuth client may do, and who is calling.
 */
/**
 * Every scope a key or token may carry. A route names the one it needs; a principal without it
 * gets 403 `FORBIDDEN` (with `WWW-Authenticate: Bearer error="insufficient_scope"`).
 *
 * @example
 * SCOPES.includes('analyze') // true
 */
export const SCOPES = [
  'analyze',
  'registry:read',
  'registry:write',
  'monitors',
  'datasets:read',
  'datasets:write',
  'kb',
  'usage',
  'keys',
  'marketplace',
  'memorization',
  'admin',
] as const;

/**
 * One of {@link SCOPES}.
 * @example const s: Scope = 'registry:write'
 */
export type Scope = (typeof SCOPES)[number];

/**
 * Scopes a new key or OAuth client gets when none are asked for: everything an account uses.
 * `datasets:write` adds reference corpora that every account searches (and holds them in the
 * server's memory), and `admin` acts for every account, so both are given only when asked for.
 *
 * @example
 * DEFAULT_SCOPES.includes('datasets:write') // false
 */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'datasets:write' && s !== 'admin');

/**
 * One-line description of each scope (OpenAPI `oauth2` flow, key listings).
 * @example SCOPE_DESCRIPTIONS.kb // 'Read the knowledge base: …'
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = Object.freeze({
  analyze: 'Analyse, compare, fingerprint and score content; read own analyses',
  'registry:read': 'Read own registered works and verify receipts',
  'registry:write': 'Register and delete own works',
  monitors: 'Create, read, pause, resume and delete monitors of own works; read their events',
  'datasets:read': 'List, describe and export the reference datasets',
  'datasets:write': "Create, import, grow and delete the account's own reference datasets (searched by every account)",
  kb: 'Read the knowledge base: models, providers, datasets, jurisdictions, factor codes',
  usage: "Read the account's usage and limits",
  keys: "Create, list and revoke the account's API keys and OAuth clients",
  marketplace: 'Licensing marketplace: list own works, make and answer offers, read own licences and their audit trail',
  memorization:
    'Memorization risk: track own works (canaries), extract, probe, compare, assess and report against a model service',
  admin: 'Operators: create API keys for any account; grow or delete the datasets the operator loaded',
});

/**
 * Who is calling: from an API key or from an OAuth access token.
 * @example
 * handler: async (ctx) => ({ account: ctx.principal!.account, scopes: ctx.principal!.scopes })
 */
export interface Principal {
  /** `api_key` (Authorization: Bearer tp_live_…) or `oauth_token` (a token from /api/v1/oauth/token). */
  readonly kind: 'api_key' | 'oauth_token';
  /** The key id (`key_…`) or the OAuth client id (`tpc_…`). Never the secret. */
  readonly id: string;
  /** The account every call is charged to and every owned item belongs to. */
  readonly account: string;
  /** Plan name (a key of the plans table, src/services/accounts/plans.ts). */
  readonly plan: string;
  readonly scopes: readonly Scope[];
  /** `live` or `test` (from the key prefix `tp_live_` / `tp_test_`; recorded for later routes). */
  readonly mode: 'live' | 'test';
}
