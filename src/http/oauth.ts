/**
 * `POST /api/v1/oauth/token`: the token endpoint of RFC 6749 over the accounts service's clients and tokens.
 */
import {
  type KeyStore,
  readThrough,
  REQUESTS,
  SCHEMA_WORDS,
  type Scope,
  type TokenIssuer,
  TrainprintError,
} from '../library.js';

/**
 * The token endpoint (RFC 6749 §4.4 with client authentication per §2.3.1): `grant_type=
 * client_credentials`, optional `scope` (space-separated, a subset of the client's scopes; all of
 * them when absent), credentials by HTTP Basic or by `client_id`/`client_secret` form fields
 * (not both). The form is read through its contract (`REQUESTS.issueToken`) once the client is
 * authenticated; its refusals are RFC 6749 §5.2 bodies `{ error, error_description }`, the
 * description worded as every refusal is ("scope: not granted to this client: admin").
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
  const fields: Record<string, string> = {};
  for (const name of new Set(form.keys())) {
    // a parameter at most once, and one without a value as if it were not sent (RFC 6749 §3.2)
    if (form.getAll(name).length > 1) return oauthError(400, 'invalid_request', `${name}: is given more than once`);
    const value = form.get(name) as string;
    if (value !== '') Object.defineProperty(fields, name, { value, enumerable: true, writable: true });
  }
  let id: string | undefined, secret: string | undefined;
  const basic = authorization === null ? null : /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization);
  if (authorization !== null && !basic)
    return oauthError(
      401,
      'invalid_client',
      'client authentication must use HTTP Basic or the client_id/client_secret parameters',
      true,
    );
  if (basic) {
    if (fields.client_secret !== undefined)
      return oauthError(400, 'invalid_request', 'use one client authentication method, not both');
    const decoded = decodeBasic(basic[1]);
    if (!decoded) return oauthError(401, 'invalid_client', 'malformed HTTP Basic credentials', true);
    [id, secret] = decoded;
    if (fields.client_id !== undefined && fields.client_id !== id)
      return oauthError(400, 'invalid_request', 'client_id differs from the authenticated client');
  } else {
    id = fields.client_id;
    secret = fields.client_secret;
  }
  if (id === undefined || secret === undefined)
    return oauthError(401, 'invalid_client', 'client authentication is required', true);
  const client = await keys.verifyClient(id, secret);
  if (!client)
    return oauthError(401, 'invalid_client', 'unknown client, wrong secret or revoked client', basic !== null);
  let request: Parameters<typeof REQUESTS.issueToken.rules>[0];
  try {
    request = readThrough(REQUESTS.issueToken, fields, client.scopes);
  } catch (e) {
    const refused = e instanceof TrainprintError && e.code === 'INVALID_INPUT' ? (e.cause as Refusal) : undefined;
    if (refused?.field === undefined) throw e;
    return oauthError(400, oauthErrorOf(refused), `${refused.field}: ${refused.reason}`);
  }
  const scopes = request.scope === undefined ? client.scopes : new Set(request.scope.split(' ').filter(Boolean));
  const t = await tokens.issue(client, [...scopes] as Scope[], nowMs);
  return new Response(
    JSON.stringify({ access_token: t.access_token, token_type: 'Bearer', expires_in: t.expires_in, scope: t.scope }),
    {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' },
    },
  );
}

type Refusal = { readonly field?: string; readonly reason: string } | undefined;

/** The RFC 6749 §5.2 error code of a refused field: a grant type given but not ours, a scope, or the request. */
function oauthErrorOf({ field, reason }: NonNullable<Refusal>): string {
  if (field === 'grant_type' && reason !== SCHEMA_WORDS.required) return 'unsupported_grant_type';
  return field === 'scope' ? 'invalid_scope' : 'invalid_request';
}

/** RFC 6749 §5.2 error response. */
function oauthError(status: 400 | 401, error: string, description: string, challenge = false): Response {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
  if (challenge) headers['www-authenticate'] = 'Basic realm="trainprint"';
  // error_description holds printable ASCII but `"` and `\` (RFC 6749 §5.2): a quoted value is quoted with '
  const text = description.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');
  return new Response(JSON.stringify({ error, error_description: text }), { status, headers });
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
