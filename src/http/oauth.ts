/**
 * `POST /api/v1/oauth/token`: the token endpoint of RFC 6749 over the accounts service's clients and tokens.
 */
import type { KeyStore, Scope, TokenIssuer } from '../library.js';

/**
 * The token endpoint (RFC 6749 §4.4 with client authentication per §2.3.1): `grant_type=
 * client_credentials`, optional `scope` (space-separated, a subset of the client's scopes; all of
 * them when absent), credentials by HTTP Basic or by `client_id`/`client_secret` form fields
 * (not both). Errors are RFC 6749 §5.2 bodies `{ error, error_description }`.
 *
 * @example
 * const res = await tokenEndpoint(new URLSearchParams('grant_type=client_credentials'), 'Basic …', keys, tokens, Date.now())
 */
export async function tokenEndpoint(
  form: URLSearchParams,
  authorization: string | null,
  keys: KeyStore,
  tokens: TokenIssuer,
  nowMs: number,
): Promise<Response> {
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1)
      return oauthError(400, 'invalid_request', `parameter "${name}" is given more than once`);
  }
  let id: string | null = null,
    secret: string | null = null;
  const basic = authorization === null ? null : /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization);
  if (authorization !== null && !basic)
    return oauthError(
      401,
      'invalid_client',
      'client authentication must use HTTP Basic or the client_id/client_secret parameters',
      true,
    );
  if (basic) {
    if (form.has('client_secret'))
      return oauthError(400, 'invalid_request', 'use one client authentication method, not both');
    const decoded = decodeBasic(basic[1]);
    if (!decoded) return oauthError(401, 'invalid_client', 'malformed HTTP Basic credentials', true);
    [id, secret] = decoded;
    if (form.has('client_id') && form.get('client_id') !== id)
      return oauthError(400, 'invalid_request', 'client_id differs from the authenticated client');
  } else {
    id = form.get('client_id');
    secret = form.get('client_secret');
  }
  const grant = form.get('grant_type');
  if (grant === null) return oauthError(400, 'invalid_request', 'grant_type is required');
  if (id === null || secret === null)
    return oauthError(401, 'invalid_client', 'client authentication is required', true);
  const client = await keys.verifyClient(id, secret);
  if (!client)
    return oauthError(401, 'invalid_client', 'unknown client, wrong secret or revoked client', basic !== null);
  if (grant !== 'client_credentials')
    return oauthError(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
  let scopes: Scope[] = [...client.scopes];
  const asked = form.get('scope');
  if (asked !== null) {
    const names = asked.split(' ').filter((s) => s.length > 0);
    const bad = names.filter((s) => !client.scopes.includes(s as Scope));
    if (names.length === 0 || bad.length > 0)
      return oauthError(
        400,
        'invalid_scope',
        bad.length ? `not granted to this client: ${bad.join(' ')}` : 'scope is empty',
      );
    scopes = [...new Set(names)] as Scope[];
  }
  const t = await tokens.issue(client, scopes, nowMs);
  return new Response(
    JSON.stringify({ access_token: t.access_token, token_type: 'Bearer', expires_in: t.expires_in, scope: t.scope }),
    {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' },
    },
  );
}

/** RFC 6749 §5.2 error response. */
function oauthError(status: 400 | 401, error: string, description: string, challenge = false): Response {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
  if (challenge) headers['www-authenticate'] = 'Basic realm="trainprint"';
  return new Response(JSON.stringify({ error, error_description: description }), { status, headers });
}

/** `client_id:client_secret`, each form-urlencoded before Basic encoding (RFC 6749 §2.3.1). */
function decodeBasic(b64: string): [string, string] | null {
  let text: string;
  try {
    const bin = atob(b64);
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return [dec(text.slice(0, colon)), dec(text.slice(colon + 1))];
  } catch {
    return null;
  }
}
