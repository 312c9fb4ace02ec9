/**
 * Accounts' credentials: API keys, OAuth 2.0 clients and the access tokens issued to them (client-credentials
 * grant, RFC 6749 §4.4), all kept in the engine's store under `http/…` (the prefix of the records the HTTP
 * service first wrote; kept so that existing stores read unchanged). The token endpoint itself is HTTP's
 * (src/http/oauth.ts).
 *
 * - **API keys** are `tp_live_` or `tp_test_` + 32 random base62 characters (≈ 190 bits). Only
 *   their SHA-256 is stored (`http/key/<sha256 hex>`), so a leaked store does not leak keys; a
 *   fast hash is enough because the keys are random, not chosen by people. A lookup hashes the
 *   presented key, reads the record by hash and compares the stored hash bytes in constant time.
 *   The key itself is returned once, by `createKey`, and never again (listings show its prefix
 *   and last four characters).
 * - **OAuth clients** (`tpc_…` id, `tp_cs_…` secret, secret hashed the same way) belong to an
 *   account and carry scopes; `POST /api/v1/oauth/token` exchanges their credentials for a
 *   short-lived bearer token.
 * - **Access tokens** are JWTs (RFC 7519, `typ: at+jwt` after RFC 9068) signed with HS256 through
 *   WebCrypto (constant-time verification inside `subtle.verify`), at most one hour long, naming
 *   the client, account, plan and scopes. Each use re-reads the client, so revoking a client
 *   revokes its tokens at once.
 *
 * Store records (all through the `Store` interface, so the file store makes them durable):
 *   `http/key/<hash>`                  KeyRecord
 *   `http/acct-key/<account>/<id>`     → hash (listing and revoking by id)
 *   `http/client/<client_id>`          ClientRecord
 *   `http/acct-client/<account>/<id>`  → true
 *   `http/config/token-secret`         the token signing key when none is configured
 *   `http/key-slot/<slot>`             { account, key_id } of the key that holds a slot ({@link KeyStore.replaceKey})
 */
import { TrainprintError } from '../../errors.js';
import { randomHex } from '../../util/validate.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import { base64url, fromBase64url } from '../registry/receipts.js';
import type { Store } from '../../store/types.js';
import { PLANS, type Plan } from './plans.js';
import { DEFAULT_SCOPES, SCOPES, type Principal, type Scope } from './scopes.js';
import {
  ACCOUNT_HINT,
  ACCOUNT_PATTERN,
  CREATE_CLIENT_REQUEST,
  CREATE_KEY_REQUEST,
  type CreateClientOptions,
  type CreateKeyOptions,
} from './schema.js';
import { readThrough } from '../../util/schema-check.js';

/**
 * What a listing shows of an API key (never the key).
 * @example
 * (await keys.listKeys('acme')).map((k) => `${k.prefix}…${k.last4} ${k.scopes.join(' ')}`)
 */
export interface ApiKeyInfo {
  readonly key_id: string;
  readonly name: string | null;
  /** `tp_live_` or `tp_test_`. */
  readonly prefix: string;
  /** The key's last four characters, to tell keys apart. */
  readonly last4: string;
  readonly account: string;
  readonly plan: string;
  readonly scopes: readonly Scope[];
  readonly mode: 'live' | 'test';
  readonly created_at: string;
  /** When the key stops working; null: it does not expire. */
  readonly expires_at: string | null;
  readonly revoked: boolean;
  readonly revoked_at: string | null;
}

/**
 * What a listing shows of an OAuth client (never the secret).
 * @example
 * (await keys.listClients('acme')).filter((c) => !c.revoked).map((c) => c.client_id)
 */
export interface OAuthClientInfo {
  readonly client_id: string;
  readonly name: string | null;
  readonly account: string;
  readonly plan: string;
  readonly scopes: readonly Scope[];
  readonly created_at: string;
  readonly revoked: boolean;
  readonly revoked_at: string | null;
}

// the credentials' request types live with their contracts (./schema.ts); named here too, where the key store is
export type { CreateClientOptions, CreateKeyOptions } from './schema.js';

/**
 * Options of a {@link KeyStore}.
 * @example new KeyStore(engine.store, { plans: { startup: { daily: 2_000 } } })
 */
export interface KeyStoreOptions {
  /** Clock in ms since the epoch (creation times, expiry). @default Date.now */
  readonly clock?: () => number;
  /**
   * Plans a key or client may be given, merged over the built-ins (free, pro, scale,
   * enterprise): the same object as `createHandler`'s `plans`. A key on a plan the server does not
   * charge could make no call, so other names are refused when keys are made.
   */
  readonly plans?: Readonly<Record<string, Plan>>;
}

interface KeyRecord extends Omit<ApiKeyInfo, 'revoked' | 'expires_at'> {
  readonly hash: string;
  /** Absent in records written before keys could expire. */
  readonly expires_at?: string | null;
}

interface ClientRecord extends Omit<OAuthClientInfo, 'revoked'> {
  readonly secret_hash: string;
}

const KEY_FORMAT = /^tp_(live|test)_[0-9A-Za-z]{32}$/;
const CLIENT_ID_FORMAT = /^tpc_[0-9a-f]{24}$/;
const CLIENT_SECRET_FORMAT = /^tp_cs_[0-9A-Za-z]{40}$/;
const ACCOUNT_FORMAT = new RegExp(ACCOUNT_PATTERN);
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * API keys and OAuth clients of every account, on a {@link Store} (usually `engine.store`).
 * `createHandler` makes one on the engine's store unless given one; create the first key of an
 * account with it directly (or with the CLI), later ones through `POST /api/v1/keys`.
 *
 * @example
 * const keys = new KeyStore(engine.store)
 * const { key } = await keys.createKey({ account: 'acme', plan: 'pro' })
 * // give `key` to the account holder; it is not stored and cannot be shown again
 */
export class KeyStore {
  private readonly clock: () => number;
  private planNames: readonly string[];

  /** `options` may also be the clock alone (the form of earlier versions). */
  constructor(
    private readonly store: Store,
    options: KeyStoreOptions | (() => number) = {},
  ) {
    const o: KeyStoreOptions = typeof options === 'function' ? { clock: options } : (options ?? {});
    this.clock = o.clock ?? Date.now;
    this.planNames = Object.keys({ ...PLANS, ...o.plans });
  }

  /** The plans keys and clients may be given here. @example keys.plans() // ['free', 'pro', 'scale', 'enterprise'] */
  plans(): readonly string[] {
    return this.planNames;
  }

  /**
   * Also accept these plans. `createHandler(engine, { keys, plans })` calls it, so a KeyStore
   * given to a handler accepts the plans that handler charges calls to.
   * @example keys.allowPlans({ startup: { daily: 2_000 } })
   */
  allowPlans(plans: Readonly<Record<string, Plan>>): void {
    this.planNames = [...new Set([...this.planNames, ...Object.keys(plans)])];
  }

  /**
   * Create an API key. The returned `key` is the only copy.
   * @throws INVALID_INPUT (account, scopes, mode, name or expiry malformed; a plan this store does not know)
   * @example
   * const { key, info } = await keys.createKey({ account: 'acme', scopes: ['analyze', 'kb'], mode: 'test' })
   * key        // 'tp_test_…' (32 characters after the prefix)
   * info.last4 // the last four of them
   */
  async createKey(options: CreateKeyOptions): Promise<{ key: string; info: ApiKeyInfo }> {
    const { key, hash, record } = await this.newKey(options);
    await this.store.batch([
      { type: 'put', key: `http/key/${hash}`, value: record },
      { type: 'put', key: `http/acct-key/${record.account}/${record.key_id}`, value: hash },
    ]);
    return { key, info: keyInfo(record) };
  }

  /**
   * Create a key that holds `slot`, revoking the key that held it before, in one transaction: at
   * most one valid key per slot and store, however often this runs. Only hashes are stored, so
   * an earlier key cannot be shown again; it is replaced. `trainprint serve` keeps its development
   * key in the slot `serve-dev`.
   * @throws INVALID_INPUT (as createKey; a slot is 1–64 of `a-z 0-9 . _ -`)
   * @example
   * const { key, replaced } = await keys.replaceKey('serve-dev', { account: 'dev', expiresInSeconds: 86_400 })
   */
  async replaceKey(
    slot: string,
    options: CreateKeyOptions,
  ): Promise<{ key: string; info: ApiKeyInfo; replaced: ApiKeyInfo | null }> {
    if (typeof slot !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(slot)) {
      throw new TrainprintError('INVALID_INPUT', 'slot must be 1–64 characters of a-z 0-9 . _ -');
    }
    const { key, hash, record } = await this.newKey(options);
    const at = new Date(this.clock()).toISOString();
    const replaced = await this.store.transaction(async (tx) => {
      const held = (await tx.get(`http/key-slot/${slot}`)) as { account?: unknown; key_id?: unknown } | undefined;
      let before: ApiKeyInfo | null = null;
      if (held && typeof held.account === 'string' && typeof held.key_id === 'string') {
        const oldHash = await tx.get(`http/acct-key/${held.account}/${held.key_id}`);
        const old =
          typeof oldHash === 'string' ? ((await tx.get(`http/key/${oldHash}`)) as KeyRecord | undefined) : undefined;
        if (old) {
          const revoked: KeyRecord = old.revoked_at === null ? { ...old, revoked_at: at } : old;
          tx.put(`http/key/${oldHash as string}`, revoked);
          before = keyInfo(revoked);
        }
      }
      tx.put(`http/key/${hash}`, record);
      tx.put(`http/acct-key/${record.account}/${record.key_id}`, hash);
      tx.put(`http/key-slot/${slot}`, { account: record.account, key_id: record.key_id });
      return before;
    });
    return { key, info: keyInfo(record), replaced };
  }

  /** A new key and its record, checked, not yet stored. */
  private async newKey(options: CreateKeyOptions): Promise<{ key: string; hash: string; record: KeyRecord }> {
    const o = owned(readThrough(CREATE_KEY_REQUEST, options, this.planNames));
    const { mode = 'live', expiresInSeconds: ttl } = o;
    const prefix = `tp_${mode}_`;
    const key = prefix + randomBase62(32);
    const hash = await sha256Hex(key);
    const now = this.clock();
    const record: KeyRecord = {
      key_id: `key_${randomHex(8)}`,
      hash,
      prefix,
      last4: key.slice(-4),
      account: o.account,
      plan: o.plan,
      scopes: o.scopes,
      mode,
      name: o.name,
      created_at: new Date(now).toISOString(),
      expires_at: ttl === undefined ? null : new Date(now + ttl * 1000).toISOString(),
      revoked_at: null,
    };
    return { key, hash, record };
  }

  /**
   * The principal of a key, or `null` for a malformed, unknown, revoked or expired key.
   * @example
   * (await keys.verifyKey(key))?.account // 'acme'
   */
  async verifyKey(key: string): Promise<Principal | null> {
    if (typeof key !== 'string' || !KEY_FORMAT.test(key)) return null;
    const hash = await sha256Hex(key);
    const record = (await this.store.get(`http/key/${hash}`)) as KeyRecord | undefined;
    // the record was found by its hash; comparing the stored bytes in constant time keeps the
    // decision independent of where a near-miss differs, whatever the store's lookup does
    if (!record || !timingSafeEqual(hexBytes(record.hash), hexBytes(hash)) || record.revoked_at !== null) return null;
    if (typeof record.expires_at === 'string' && Date.parse(record.expires_at) <= this.clock()) return null;
    return {
      kind: 'api_key',
      id: record.key_id,
      account: record.account,
      plan: record.plan,
      scopes: record.scopes,
      mode: record.mode,
    };
  }

  /** The account's keys, oldest id first. @example await keys.listKeys('acme') */
  async listKeys(account: string): Promise<ApiKeyInfo[]> {
    const out: ApiKeyInfo[] = [];
    for (const [, hash] of await this.store.scan(`http/acct-key/${checkAccount(account)}/`)) {
      const r = (await this.store.get(`http/key/${hash as string}`)) as KeyRecord | undefined;
      if (r) out.push(keyInfo(r));
    }
    return out;
  }

  /**
   * Revoke one of the account's keys (idempotent). Returns the key's info, or `null` when the
   * account has no key with this id.
   * @example await keys.revokeKey('acme', 'key_0123456789abcdef')
   */
  async revokeKey(account: string, keyId: string): Promise<ApiKeyInfo | null> {
    const acct = checkAccount(account);
    return this.store.transaction(async (tx) => {
      const hash = await tx.get(`http/acct-key/${acct}/${keyId}`);
      if (typeof hash !== 'string') return null;
      const r = (await tx.get(`http/key/${hash}`)) as KeyRecord | undefined;
      if (!r) return null;
      const next: KeyRecord = r.revoked_at === null ? { ...r, revoked_at: new Date(this.clock()).toISOString() } : r;
      tx.put(`http/key/${hash}`, next);
      return keyInfo(next);
    });
  }

  /**
   * Register an OAuth client (client-credentials grant). The returned `client_secret` is the only copy.
   * @throws INVALID_INPUT
   * @example
   * const { client_id, client_secret } = await keys.createClient({ account: 'acme', scopes: ['analyze'] })
   */
  async createClient(
    options: CreateClientOptions,
  ): Promise<{ client_id: string; client_secret: string; info: OAuthClientInfo }> {
    const o = owned(readThrough(CREATE_CLIENT_REQUEST, options, this.planNames));
    const client_secret = `tp_cs_${randomBase62(40)}`;
    const record: ClientRecord = {
      client_id: `tpc_${randomHex(12)}`,
      secret_hash: await sha256Hex(client_secret),
      account: o.account,
      plan: o.plan,
      scopes: o.scopes,
      name: o.name,
      created_at: new Date(this.clock()).toISOString(),
      revoked_at: null,
    };
    await this.store.batch([
      { type: 'put', key: `http/client/${record.client_id}`, value: record },
      { type: 'put', key: `http/acct-client/${o.account}/${record.client_id}`, value: true },
    ]);
    return { client_id: record.client_id, client_secret, info: clientInfo(record) };
  }

  /**
   * The client when `secret` is its secret and it is not revoked, else `null`. The secret's hash
   * is computed and compared even for unknown clients, so the timing does not tell which ids exist.
   * @example await keys.verifyClient(client_id, client_secret)
   */
  async verifyClient(clientId: string, secret: string): Promise<OAuthClientInfo | null> {
    const record = CLIENT_ID_FORMAT.test(clientId)
      ? ((await this.store.get(`http/client/${clientId}`)) as ClientRecord | undefined)
      : undefined;
    const presented = hexBytes(await sha256Hex(typeof secret === 'string' ? secret : ''));
    const stored = record ? hexBytes(record.secret_hash) : new Uint8Array(32);
    const match = timingSafeEqual(stored, presented);
    if (!record || !match || !CLIENT_SECRET_FORMAT.test(secret) || record.revoked_at !== null) return null;
    return clientInfo(record);
  }

  /** A client by id (revoked ones too), or `null`. @example await keys.getClient(client_id) */
  async getClient(clientId: string): Promise<OAuthClientInfo | null> {
    if (!CLIENT_ID_FORMAT.test(clientId)) return null;
    const r = (await this.store.get(`http/client/${clientId}`)) as ClientRecord | undefined;
    return r ? clientInfo(r) : null;
  }

  /** The account's OAuth clients. @example await keys.listClients('acme') */
  async listClients(account: string): Promise<OAuthClientInfo[]> {
    const out: OAuthClientInfo[] = [];
    for (const [k] of await this.store.scan(`http/acct-client/${checkAccount(account)}/`)) {
      const c = await this.getClient(k.slice(k.lastIndexOf('/') + 1));
      if (c) out.push(c);
    }
    return out;
  }

  /** Revoke one of the account's clients (and so every token it holds). `null` when it has none with this id. @example await keys.revokeClient('acme', client_id) */
  async revokeClient(account: string, clientId: string): Promise<OAuthClientInfo | null> {
    const acct = checkAccount(account);
    return this.store.transaction(async (tx) => {
      if ((await tx.get(`http/acct-client/${acct}/${clientId}`)) === undefined) return null;
      const r = (await tx.get(`http/client/${clientId}`)) as ClientRecord | undefined;
      if (!r) return null;
      const next: ClientRecord = r.revoked_at === null ? { ...r, revoked_at: new Date(this.clock()).toISOString() } : r;
      tx.put(`http/client/${clientId}`, next);
      return clientInfo(next);
    });
  }
}

/**
 * Longest lifetime of an access token, in seconds (RFC 6749 leaves it to the server; short limits the damage of a leak).
 * @example createHandler(engine, { tokenTtlSeconds: MAX_TOKEN_TTL })
 */
export const MAX_TOKEN_TTL = 3600;

const TOKEN_SECRET_RECORD = 'http/config/token-secret';
const TOKEN_ISSUER = 'trainprint';

/** Claims of an access token. */
interface TokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly client_id: string;
  readonly acct: string;
  readonly plan: string;
  readonly scope: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

/**
 * Signs and checks access tokens (HS256 JWTs). The key is `secret` when given (≥ 32 bytes; give
 * the same one to every instance behind a load balancer), else a random key kept in the store.
 *
 * @example
 * const tokens = new TokenIssuer(engine.store, process.env.TOKEN_SECRET)
 * const t = await tokens.issue(client, ['analyze'], Date.now())
 */
export class TokenIssuer {
  private key: Promise<CryptoKey> | null = null;
  readonly ttl: number;

  constructor(
    private readonly store: Store,
    private readonly secret?: string | Uint8Array,
    ttlSeconds: number = MAX_TOKEN_TTL,
  ) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TOKEN_TTL) {
      throw new TrainprintError('INVALID_OPTIONS', `tokenTtlSeconds must be an integer in 1..${MAX_TOKEN_TTL}`);
    }
    if (secret !== undefined && (typeof secret === 'string' ? new TextEncoder().encode(secret) : secret).length < 32) {
      throw new TrainprintError('INVALID_OPTIONS', 'tokenSecret must be a string or Uint8Array of at least 32 bytes');
    }
    this.ttl = ttlSeconds;
  }

  /** A signed token for `client` with `scopes` (already checked to be the client's). @example await tokens.issue(client, ['kb'], Date.now()) */
  async issue(
    client: OAuthClientInfo,
    scopes: readonly Scope[],
    nowMs: number,
  ): Promise<{ access_token: string; expires_in: number; scope: string }> {
    const iat = Math.floor(nowMs / 1000);
    const claims: TokenClaims = {
      iss: TOKEN_ISSUER,
      sub: client.client_id,
      client_id: client.client_id,
      acct: client.account,
      plan: client.plan,
      scope: scopes.join(' '),
      iat,
      exp: iat + this.ttl,
      jti: randomHex(16),
    };
    const head = `${b64urlJson({ alg: 'HS256', typ: 'at+jwt' })}.${b64urlJson(claims)}`;
    const sig = await globalThis.crypto.subtle.sign('HMAC', await this.signingKey(), new TextEncoder().encode(head));
    return { access_token: `${head}.${base64url(new Uint8Array(sig))}`, expires_in: this.ttl, scope: claims.scope };
  }

  /** The claims of a valid, unexpired token signed by this issuer, else `null`. @example await tokens.verify(token, Date.now()) */
  async verify(token: string, nowMs: number): Promise<TokenClaims | null> {
    const parts = token.split('.');
    if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
    const key = await this.signingKey();
    let header: Record<string, unknown>, claims: TokenClaims;
    try {
      const ok = await globalThis.crypto.subtle.verify(
        'HMAC',
        key,
        fromBase64url(parts[2]) as Uint8Array<ArrayBuffer>,
        new TextEncoder().encode(`${parts[0]}.${parts[1]}`),
      );
      if (!ok) return null;
      header = JSON.parse(new TextDecoder().decode(fromBase64url(parts[0])!));
      claims = JSON.parse(new TextDecoder().decode(fromBase64url(parts[1])!));
    } catch {
      return null; // not base64url or not JSON: not one of ours
    }
    if (header === null || typeof header !== 'object' || claims === null || typeof claims !== 'object') return null;
    if (header.alg !== 'HS256' || header.typ !== 'at+jwt' || claims.iss !== TOKEN_ISSUER) return null;
    if (typeof claims.exp !== 'number' || claims.exp <= Math.floor(nowMs / 1000)) return null;
    if (typeof claims.client_id !== 'string' || typeof claims.scope !== 'string') return null;
    return claims;
  }

  private signingKey(): Promise<CryptoKey> {
    this.key ??= (async () => {
      let raw: Uint8Array;
      if (this.secret !== undefined)
        raw = typeof this.secret === 'string' ? new TextEncoder().encode(this.secret) : this.secret;
      else {
        // read-or-create in one transaction: two instances starting together agree on one secret
        raw = await this.store.transaction(async (tx) => {
          const kept = await tx.get(TOKEN_SECRET_RECORD);
          if (kept instanceof Uint8Array && kept.length >= 32) return kept;
          const fresh = globalThis.crypto.getRandomValues(new Uint8Array(32));
          tx.put(TOKEN_SECRET_RECORD, fresh);
          return fresh;
        });
      }
      return globalThis.crypto.subtle.importKey(
        'raw',
        raw as Uint8Array<ArrayBuffer>,
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign', 'verify'],
      );
    })();
    this.key.catch(() => {
      this.key = null;
    }); // a failed load (store closed) is retried next time
    return this.key;
  }
}

/**
 * Why a request is not authenticated: `missing` credentials or an `invalid` key/token (RFC 6750 §3.1 `invalid_token`).
 * @example
 * const f: AuthFailure = { failure: 'missing', detail: 'send Authorization: Bearer <API key or access token>' }
 */
export interface AuthFailure {
  readonly failure: 'missing' | 'invalid';
  readonly detail: string;
}

/**
 * The principal of `Authorization: Bearer <API key | access token>`, or why there is none.
 * @example
 * const who = await authenticate(request.headers.get('authorization'), keys, tokens, Date.now())
 */
export async function authenticate(
  authorization: string | null,
  keys: KeyStore,
  tokens: TokenIssuer,
  nowMs: number,
): Promise<Principal | AuthFailure> {
  const m = authorization === null ? null : /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
  if (!m) return { failure: 'missing', detail: 'send Authorization: Bearer <API key or access token>' };
  const credential = m[1];
  if (credential.startsWith('tp_')) {
    return (
      (await keys.verifyKey(credential)) ?? { failure: 'invalid', detail: 'the API key is not valid or was revoked' }
    );
  }
  const claims = await tokens.verify(credential, nowMs);
  if (!claims) return { failure: 'invalid', detail: 'the access token is not valid or has expired' };
  const client = await keys.getClient(claims.client_id);
  if (!client || client.revoked) return { failure: 'invalid', detail: "the access token's client was revoked" };
  const scopes = claims.scope
    .split(' ')
    .filter((s): s is Scope => (SCOPES as readonly string[]).includes(s) && client.scopes.includes(s as Scope));
  return {
    kind: 'oauth_token',
    id: client.client_id,
    account: client.account,
    plan: client.plan,
    scopes,
    mode: 'live',
  };
}

/**
 * Constant-time equality of two byte strings of the same length (length itself is not secret here).
 * @example timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])) // true
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** A credential's request read through its contract, with its defaults: the free plan, {@link DEFAULT_SCOPES}. */
function owned<O extends CreateClientOptions>(o: O) {
  return { ...o, plan: o.plan ?? 'free', scopes: [...(o.scopes ?? DEFAULT_SCOPES)] as Scope[], name: o.name ?? null };
}

/** An account's name, else INVALID_INPUT naming `account` (the HTTP adapter shows `field` and `reason` in the 422). */
function checkAccount(account: unknown): string {
  if (typeof account === 'string' && ACCOUNT_FORMAT.test(account)) return account;
  const cause = { location: 'body', field: 'account', reason: `must be ${ACCOUNT_HINT}` };
  throw new TrainprintError('INVALID_INPUT', `account: ${cause.reason}`, { cause });
}

function keyInfo(r: KeyRecord): ApiKeyInfo {
  return {
    key_id: r.key_id,
    name: r.name,
    prefix: r.prefix,
    last4: r.last4,
    account: r.account,
    plan: r.plan,
    scopes: r.scopes,
    mode: r.mode,
    created_at: r.created_at,
    expires_at: r.expires_at ?? null,
    revoked: r.revoked_at !== null,
    revoked_at: r.revoked_at,
  };
}

function clientInfo(r: ClientRecord): OAuthClientInfo {
  return {
    client_id: r.client_id,
    name: r.name,
    account: r.account,
    plan: r.plan,
    scopes: r.scopes,
    created_at: r.created_at,
    revoked: r.revoked_at !== null,
    revoked_at: r.revoked_at,
  };
}

/** `n` base62 characters, uniform (rejection sampling: bytes ≥ 248 are redrawn, 248 = 4 × 62). */
function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of globalThis.crypto.getRandomValues(new Uint8Array(n * 2))) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function b64urlJson(v: unknown): string {
  return base64url(new TextEncoder().encode(JSON.stringify(v)));
}
