/**
 * The accounts' requests, written once: an API key (`KeyStore.createKey`; `POST /api/v1/keys` for the caller's own
 * account, `POST /api/v1/admin/keys` for any), an OAuth client (`KeyStore.createClient`, `POST
 * /api/v1/oauth/clients`) and an OAuth token (`POST /api/v1/oauth/token`). Over HTTP a credential of the caller's own
 * takes the caller's account and plan: they are served without them.
 */
import { intIn, partialObject, type JsonSchema } from '../../util/json-schema.js';
import { contract, type FromSchema, invalidField } from '../../util/schema-check.js';
import { SCOPES } from './scopes.js';

/** The longest a key may last: ten years, in seconds. */
export const MAX_KEY_SECONDS = 10 * 366 * 86_400;

const PLAN_FORMAT = /^[a-z][a-z0-9_-]{0,31}$/;
/** An account's name, as a credential names it, and in words. */
export const ACCOUNT_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$';
export const ACCOUNT_HINT = '1–128 characters of A-Z a-z 0-9 . _ @ -, starting with a letter or digit';
const name = { type: 'string', maxLength: 100 } as const;
const scopes = { type: 'array', items: { enum: [...SCOPES] }, minItems: 1, uniqueItems: true } as const;
const mode = { enum: ['live', 'test'] } as const;
/** A credential's request: its account (required), its plan, and `props`. */
const credential = (props: Record<string, JsonSchema>): JsonSchema => ({
  ...partialObject({
    account: { type: 'string', pattern: ACCOUNT_PATTERN, 'x-pattern-hint': ACCOUNT_HINT },
    plan: { type: 'string', minLength: 1, maxLength: 32 },
    ...props,
  }),
  required: ['account'],
});

/**
 * A credential's plan, one the server charges (`plans`: its plans' names). @default 'free'
 * @example knownPlan({ account: 'acme', plan: 'platinum' }, ['free']) // plan: "platinum" is not a known plan; …
 */
export function knownPlan(request: { readonly plan?: string }, plans: readonly string[]): void {
  const plan = request.plan ?? 'free';
  if (!PLAN_FORMAT.test(plan) || !plans.includes(plan))
    invalidField('plan', `${JSON.stringify(plan)} is not a known plan; the plans are ${plans.join(', ')}`);
}

/**
 * Options of `KeyStore.createKey` (./keys.ts).
 * @example
 * const o: CreateKeyOptions = { account: 'acme', plan: 'pro', scopes: ['analyze', 'kb'], mode: 'test', name: 'ci' }
 */
export interface CreateKeyOptions {
  /** Account the key acts for: 1–128 of `A-Z a-z 0-9 . _ @ -`, starting with a letter or digit. */
  readonly account: string;
  /** Plan name: a built-in plan (src/services/accounts/plans.ts) or one given to the KeyStore. @default 'free' */
  readonly plan?: string;
  /** @default DEFAULT_SCOPES (everything but `datasets:write` and `admin`) */
  readonly scopes?: readonly string[];
  /** @default 'live' */
  readonly mode?: 'live' | 'test';
  /** A label for listings (≤ 100 characters). */
  readonly name?: string;
  /** Seconds until the key stops working (1 s to 10 years). @default no expiry */
  readonly expiresInSeconds?: number;
}

/**
 * Options of `KeyStore.createClient` (./keys.ts) (clients have no test mode and no expiry: their tokens last an hour).
 * @example
 * const o: CreateClientOptions = { account: 'acme', scopes: ['analyze'] }
 */
export type CreateClientOptions = Omit<CreateKeyOptions, 'mode' | 'expiresInSeconds'>;

/**
 * An API key: read by `KeyStore.createKey` with its store's plans; served for the caller's own account.
 * @example readThrough(CREATE_KEY_REQUEST, { account: 'acme', scopes: ['kb'] }, ['free', 'pro'])
 */
export const CREATE_KEY_REQUEST = contract<CreateKeyOptions, readonly string[]>(
  'createKey',
  credential({ scopes, mode, name, expiresInSeconds: intIn(1, MAX_KEY_SECONDS) }),
  knownPlan,
  partialObject({ name, scopes, mode }),
);

/**
 * An operator's key for any account (`POST /api/v1/admin/keys`), read with the server's plans, which may be more than
 * its key store was told of; its expiry in days.
 * @example readThrough(ADMIN_CREATE_KEY_REQUEST, { account: 'acme', expires_in_days: 30 }, plans)
 */
export const ADMIN_CREATE_KEY_REQUEST = contract<AdminCreateKeyRequest, readonly string[]>(
  'adminCreateKey',
  credential({ scopes, mode, name, expires_in_days: intIn(1, 3660) }),
  knownPlan,
);

/** The request of `POST /api/v1/admin/keys`. */
export type AdminCreateKeyRequest = Omit<CreateKeyOptions, 'expiresInSeconds'> & {
  readonly expires_in_days?: number;
};

/**
 * An OAuth client: read by `KeyStore.createClient` with its store's plans; served for the caller's own account.
 * @example readThrough(CREATE_CLIENT_REQUEST, { account: 'acme', scopes: ['analyze'] }, ['free'])
 */
export const CREATE_CLIENT_REQUEST = contract<CreateClientOptions, readonly string[]>(
  'createClient',
  credential({ scopes, name }),
  knownPlan,
  partialObject({ name, scopes }),
);

/** The form of `POST /api/v1/oauth/token` (RFC 6749 §4.4.2; the client's credentials by §2.3.1 without HTTP Basic). */
const TOKEN_SCHEMA = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { const: 'client_credentials' },
    scope: { type: 'string' },
    client_id: { type: 'string' },
    client_secret: { type: 'string' },
  },
} as const;
export type TokenRequest = FromSchema<typeof TOKEN_SCHEMA>;

/**
 * An OAuth token's request, read once its client is authenticated, with the client's scopes: those asked for (space
 * separated) among them. Parameters it does not name are ignored, as RFC 6749 §3.2 has a token endpoint do.
 * @example readThrough(TOKEN_REQUEST, { grant_type: 'client_credentials', scope: 'kb admin' }, ['kb']) // scope: not granted to this client: admin
 */
export const TOKEN_REQUEST = contract<TokenRequest, readonly string[]>(
  'issueToken',
  TOKEN_SCHEMA,
  (request, granted) => {
    const names = request.scope?.split(' ').filter((x) => x.length > 0) ?? granted;
    const bad = names.filter((x) => !granted.includes(x));
    if (names.length === 0) invalidField('scope', 'names no scope');
    if (bad.length > 0) invalidField('scope', `not granted to this client: ${bad.join(' ')}`);
  },
);
