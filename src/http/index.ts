/**
 * `trainprint/http` — the HTTP API under `/api/v1` as a Fetch handler, for every runtime with
 * Fetch and WebCrypto (Node through `serve` from `trainprint/node`, `Deno.serve`, Workers, Bun).
 * Routes are one table ({@link ROUTES}); the OpenAPI 3.1 document is generated from it
 * ({@link buildOpenApi}) with the JSON Schemas that validate requests.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { createHandler, KeyStore } from 'trainprint/http'
 * const engine = await createEngine()
 * const keys = new KeyStore(engine.store)
 * const { key } = await keys.createKey({ account: 'acme', plan: 'pro' })
 * Deno.serve(createHandler(engine, { keys }))
 */
export { createHandler, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DATASET_BODY_BYTES } from './handler.js';
export { MAX_JSON_DEPTH, parseJsonBody, bodyChecker } from './json-body.js';
export type { JsonBodyOffload } from './json-body.js';
export type { Handler, HandlerOptions } from './handler.js';
export type { LargeWorkLimits } from './large-work.js';
export type { BodyDeadlines } from './pipeline/read-body.js';
export { ROUTES, PATH_PARAMS } from './routes/index.js';
export { jobBody } from './routes/catalogue-jobs.js';
export { Reply, SCOPES, DEFAULT_SCOPES, SCOPE_DESCRIPTIONS } from './context.js';
export type {
  Route,
  RouteContext,
  RouteServices,
  RouteExample,
  ErrorCase,
  Principal,
  Scope,
  Method,
  JsonSchema,
  ModelSpec,
} from './context.js';
// the egress policy lives in the library (src/net/egress.ts); kept here too, where it was first exported
export { isInternalHost, isInternalAddress, defaultModelHosts, egressFetch } from '../library.js';
export type { HostResolver, ResolvedHost } from '../library.js';
// the accounts service (also exported by trainprint/accounts), re-exported here for the hosts that import it with the handler
export { KeyStore, MAX_TOKEN_TTL, PLANS, WINDOW_SECONDS, MemoryCounterStore, StoreCounterStore } from '../library.js';
export type {
  ApiKeyInfo,
  OAuthClientInfo,
  CreateKeyOptions,
  CreateClientOptions,
  KeyStoreOptions,
  Plan,
  CounterStore,
  RateState,
} from '../library.js';
export { buildOpenApi } from './openapi.js';
export type { OpenApiOptions } from './openapi.js';
export { IDEMPOTENCY_TTL_MS } from '../library.js';
export { INTERNAL_ERROR_CODE } from './respond.js';
export type { EnvelopeCode } from './respond.js';
export { NAMED_SCHEMAS } from './schemas/named.js';
export { ERROR_ENVELOPE_SCHEMA } from './schemas/index.js';
export type { StatusReport } from './status.js';
export {
  Heartbeat,
  HEARTBEAT_INTERVAL_MS,
  RETAINED_DAYS,
  AVAILABILITY_MEASURES,
  readAvailability,
} from '../library.js';
export type { HeartbeatOptions, AvailabilityReport, AvailabilityWindow, InstanceRecord } from '../library.js';
