/**
 * The accounts service: API keys, OAuth clients and their access tokens, plans and their daily limits, usage
 * counters, idempotent replays, the back-off after failed authentication, and the availability heartbeat. Kept in
 * the engine's store; the HTTP service (`trainprint/http`) is one user of it, another host may be the next.
 *
 * @example
 * const keys = new KeyStore(engine.store)
 * const { key } = await keys.createKey({ account: 'acme', plan: 'pro' })
 * (await keys.verifyKey(key))?.account // 'acme'
 */
export { DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from './scopes.js';
export type { Principal, Scope } from './scopes.js';
export { KeyStore, MAX_TOKEN_TTL, TokenIssuer, authenticate } from './keys.js';
export type {
  ApiKeyInfo,
  AuthFailure,
  CreateClientOptions,
  CreateKeyOptions,
  KeyStoreOptions,
  OAuthClientInfo,
} from './keys.js';
export {
  DEFAULT_JOB_ITEMS,
  DEFAULT_UPLOADS,
  MAX_PLAN_FILE_BYTES,
  MAX_PLAN_JOB_ITEMS,
  MAX_PLAN_UPLOADS,
  MemoryCounterStore,
  PLANS,
  planFileBytes,
  planJobItems,
  planUploads,
  RateLimiter,
  StoreCounterStore,
  WINDOW_SECONDS,
} from './plans.js';
export type { CounterStore, Plan, RateState } from './plans.js';
export { Idempotency, IDEMPOTENCY_CLAIM_MS, IDEMPOTENCY_TTL_MS, requestHash } from './idempotency.js';
export type { StoredResponse } from './idempotency.js';
export {
  AVAILABILITY_MEASURES,
  Heartbeat,
  HEARTBEAT_INTERVAL_MS,
  readAvailability,
  RETAINED_DAYS,
  unmeasuredAvailability,
} from './availability.js';
export type { AvailabilityReport, AvailabilityWindow, HeartbeatOptions, InstanceRecord } from './availability.js';
export { AuthThrottle, FAILURE_WINDOW_MS, FREE_FAILURES, isLoopback, MAX_WAIT_S } from './throttle.js';
