/**
 * The HTTP client of the trainprint API (`trainprint serve`, `createHandler`): typed methods for
 * every route under `/api/v1`, retries that never repeat work, one error class. Only `fetch`:
 * Node ≥ 20, Deno, Bun, Workers and browsers; it imports nothing of the engine at run time
 * (library types only), so bundles stay a few KiB.
 *
 * @example
 * import { createClient, TrainprintApiError } from 'trainprint/client'
 * const tp = createClient({ api_key: 'tp_test_…', base_url: 'http://127.0.0.1:8787' })
 * try {
 *   const r = await tp.analyze({ content: 'Permission is hereby granted, free of charge, …', content_type: 'text' })
 *   console.log(r.confidence, r.matches.length)
 * } catch (e) {
 *   if (e instanceof TrainprintApiError) console.error(e.status, e.code, e.message, e.request_id)
 * }
 */
export { createClient } from './client.js';
export type { ClientOptions, TrainprintClient, WorkListQuery } from './client.js';
export { TrainprintApiError, isTrainprintApiError, CLIENT_ERROR_CODES } from './errors.js';
export { parseRetryAfter } from './transport.js';
export type { CallOptions, FetchLike, Query, RateLimitInfo, RequestOptions } from './transport.js';
export type * from './types.js';
