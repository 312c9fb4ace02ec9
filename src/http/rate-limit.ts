/** The `RateLimit-*` response headers of a plan's daily limit. */
import { type RateState, WINDOW_SECONDS } from '../library.js';

/**
 * The `RateLimit-*` headers of a state (none for a plan without limit: there is nothing to announce).
 * A refused call also gets `Retry-After` (the handler adds it to the 429).
 *
 * @example
 * rateLimitHeaders(state) // { 'ratelimit-limit': '100', 'ratelimit-remaining': '99', 'ratelimit-reset': '3600', 'ratelimit-policy': '100;w=86400' }
 */
export function rateLimitHeaders(s: RateState): Record<string, string> {
  if (s.limit === null) return {};
  return {
    'ratelimit-limit': String(s.limit),
    'ratelimit-remaining': String(s.remaining),
    'ratelimit-reset': String(s.resetSeconds),
    'ratelimit-policy': `${s.limit};w=${WINDOW_SECONDS}`,
  };
}
