/**
 * `trainprint/accounts` — the accounts service, kept in the engine's store: API keys and their scopes, OAuth
 * clients and their access tokens, plans with their daily limits and usage counters, idempotent replays, the
 * back-off after failed authentication, and the availability heartbeat. The job model an account's catalogue jobs
 * run on, and its job types, are `trainprint/jobs`. `trainprint/http` is one user of it; another host may be the next.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { KeyStore } from 'trainprint/accounts'
 * const engine = await createEngine()
 * const keys = new KeyStore(engine.store)
 * const { key } = await keys.createKey({ account: 'acme', plan: 'pro' })
 * (await keys.verifyKey(key))?.account // 'acme'
 */
export {
  KeyStore,
  TokenIssuer,
  authenticate,
  MAX_TOKEN_TTL,
  DEFAULT_SCOPES,
  SCOPE_DESCRIPTIONS,
  SCOPES,
  PLANS,
  MAX_PLAN_FILE_BYTES,
  planFileBytes,
  DEFAULT_JOB_ITEMS,
  MAX_PLAN_JOB_ITEMS,
  planJobItems,
  DEFAULT_UPLOADS,
  MAX_PLAN_UPLOADS,
  planUploads,
  RateLimiter,
  MemoryCounterStore,
  StoreCounterStore,
  WINDOW_SECONDS,
  Idempotency,
  IDEMPOTENCY_CLAIM_MS,
  IDEMPOTENCY_TTL_MS,
  Heartbeat,
  HEARTBEAT_INTERVAL_MS,
  AVAILABILITY_MEASURES,
  readAvailability,
  unmeasuredAvailability,
  RETAINED_DAYS,
  AuthThrottle,
  FAILURE_WINDOW_MS,
  FREE_FAILURES,
  MAX_WAIT_S,
  isLoopback,
  type ApiKeyInfo,
  type AuthFailure,
  type CreateClientOptions,
  type CreateKeyOptions,
  type KeyStoreOptions,
  type OAuthClientInfo,
  type Principal,
  type Scope,
  type Plan,
  type CounterStore,
  type RateState,
  type StoredResponse,
  type AvailabilityReport,
  type AvailabilityWindow,
  type HeartbeatOptions,
  type InstanceRecord,
} from '../library.js';
