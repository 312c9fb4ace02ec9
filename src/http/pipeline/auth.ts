/**
 * Who is calling: the back-off after failed authentications (429), the bearer credential — an API key or an
 * OAuth access token — (401 with `WWW-Authenticate`), and the route's scope (403). Public routes (`scope: null`)
 * skip all of it.
 */
import {
  authenticate,
  TrainprintError,
  type AuthThrottle,
  type KeyStore,
  type Principal,
  type RateLimiter,
  type TokenIssuer,
} from '../../library.js';
import { authSubjects } from '../auth-throttle.js';
import type { Route } from '../context.js';
import { rateLimitHeaders } from '../rate-limit.js';
import type { Exchange } from './exchange.js';

/** What authentication needs of the handler. */
export interface AuthServices {
  readonly keys: KeyStore;
  readonly tokens: TokenIssuer;
  readonly throttle: AuthThrottle;
  /** Only read here: a 403 still tells the caller its usage (`RateLimit-*`). */
  readonly limiter: RateLimiter;
  readonly now: () => number;
  /** The client's network address, for the back-off per address (null: none known). */
  readonly addressOf: (request: Request) => string | null;
}

/**
 * Step: the principal of the request, or null on a public route. Throws 429 (`Retry-After`) while the address or
 * credential waits after failed attempts, 401 (`WWW-Authenticate`) without a valid credential, 403 without the
 * route's scope (with the `RateLimit-*` headers of the account).
 * @example const principal = await authenticateCaller(x, found.route, auth)
 */
export async function authenticateCaller(x: Exchange, route: Route, auth: AuthServices): Promise<Principal | null> {
  if (route.scope === null) return null;
  const { request } = x;
  // a subject that failed too often waits, before any key is looked up
  const subjects = authSubjects(auth.addressOf(request), request.headers.get('authorization'));
  const wait = auth.throttle.wait(subjects);
  if (wait > 0) {
    x.headers = { 'retry-after': String(wait) };
    throw new TrainprintError(
      'RATE_LIMITED',
      `too many failed authentications from this address or with this key: retry in ${wait} s`,
    );
  }
  const who = await authenticate(request.headers.get('authorization'), auth.keys, auth.tokens, auth.now());
  if ('failure' in who) {
    if (who.failure === 'invalid') auth.throttle.failed(subjects);
    x.headers = {
      'www-authenticate':
        who.failure === 'missing'
          ? 'Bearer realm="trainprint"'
          : `Bearer realm="trainprint", error="invalid_token", error_description="${who.detail}"`,
    };
    throw new TrainprintError('UNAUTHORIZED', who.detail);
  }
  if (!who.scopes.includes(route.scope)) {
    x.headers = {
      ...rateLimitHeaders(await auth.limiter.peek(who)),
      'www-authenticate': `Bearer realm="trainprint", error="insufficient_scope", scope="${route.scope}"`,
    };
    throw new TrainprintError('FORBIDDEN', `this operation needs scope "${route.scope}"`);
  }
  return who;
}
