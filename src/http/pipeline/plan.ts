/**
 * The charge of a call to the account's plan: the `RateLimit-*` headers go on every answer from here on, and a
 * call over the day's limit is 429 with `Retry-After`. Routes with `metered: false` (reading one's usage) are
 * not charged, only told the state.
 */
import { TrainprintError, type Principal, type RateLimiter, type RateState } from '../../library.js';
import type { Route } from '../context.js';
import { rateLimitHeaders } from '../rate-limit.js';
import type { Exchange } from './exchange.js';

/**
 * Step: charge the call (nothing for a public route, whose principal is null).
 * @example await chargePlan(x, found.route, principal, limiter)
 */
export async function chargePlan(
  x: Exchange,
  route: Route,
  principal: Principal | null,
  limiter: RateLimiter,
): Promise<void> {
  if (principal === null) return;
  const rate: RateState = route.metered === false ? await limiter.peek(principal) : await limiter.take(principal);
  x.headers = rateLimitHeaders(rate);
  if (!rate.allowed && route.metered !== false) {
    x.headers['retry-after'] = String(rate.resetSeconds);
    throw new TrainprintError(
      'RATE_LIMITED',
      `${rate.limit} calls per UTC day on plan "${rate.plan}"; the window resets in ${rate.resetSeconds} s`,
    );
  }
}
