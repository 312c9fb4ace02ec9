/**
 * The HTTP side of the back-off after failed authentication (the counting is the accounts service's
 * `AuthThrottle`): what a request's credentials count against, and the token endpoint's 429.
 */
import { isLoopback } from '../library.js';

/**
 * What a failed attempt counts against: the client's address (unless loopback), and the credential presented. Not a
 * prefix of it: whoever learnt a key's first characters could then lock its owner out with wrong keys that share
 * them; the same wrong or revoked key sent again and again waits on its own, and guessing many keys waits by
 * address.
 * @example authSubjects('203.0.113.9', 'Bearer tp_live_abcd…') // ['addr:203.0.113.9', 'cred:tp_live_abcd…']
 */
export function authSubjects(address: string | null, authorization: string | null): string[] {
  // a loopback peer is this machine: a local proxy (whose clients it hides) or the operator, never counted per address
  const out = address && !isLoopback(address) ? [`addr:${address}`] : [];
  const bearer = authorization === null ? null : /^Bearer +([\x21-\x7e]{1,4096}) *$/i.exec(authorization);
  if (bearer) out.push(`cred:${bearer[1]}`);
  return out;
}

/**
 * What a failed OAuth client authentication counts against: the client id with the secret presented (from the form
 * or HTTP Basic) — not the id alone, which is no secret: anyone could then lock a client out.
 * @example oauthClientSubjects(new URLSearchParams('client_id=cl_1&client_secret=x'), null) // ['client:cl_1:x']
 */
export function oauthClientSubjects(form: URLSearchParams, authorization: string | null): string[] {
  let id = form.get('client_id'),
    secret = form.get('client_secret');
  const basic = authorization === null ? null : /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization);
  if (basic) {
    try {
      const text = atob(basic[1]);
      const colon = text.indexOf(':');
      if (colon > 0) {
        const part = (x: string) => decodeURIComponent(x.replace(/\+/g, ' '));
        id = part(text.slice(0, colon));
        secret = part(text.slice(colon + 1));
      }
    } catch {
      /* not Basic credentials: the token endpoint says so */
    }
  }
  return id ? [`client:${id.slice(0, 200)}:${(secret ?? '').slice(0, 200)}`] : [];
}

/**
 * The token endpoint's answer to a client that must wait: 429 with `Retry-After`, in the RFC 6749 error shape.
 * @example throttled(8).headers.get('retry-after') // '8'
 */
export function throttled(waitSeconds: number): Response {
  return new Response(
    JSON.stringify({
      error: 'invalid_client',
      error_description: `too many failed client authentications: retry in ${waitSeconds} s`,
    }),
    {
      status: 429,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'retry-after': String(waitSeconds),
      },
    },
  );
}
