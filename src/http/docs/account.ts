/**
 * Documentation of the account (usage, API keys, OAuth) and service operations (src/http/routes/account.ts, service.ts):
 * descriptions, errors and worked examples (src/http/docs/index.ts says how they are used).
 */
import type { RouteDocs } from '../context.js';
import { ID } from './example-kit.js';
import { AVAILABILITY_MEASURES } from '../../library.js';

/** The secret `POST /api/v1/oauth/clients` answered in the examples (shown once; the token example uses it). */
const CLIENT_SECRET = 'tp_cs_Tn1gLNYs1SgqvSScOWkCRlU2QzsJCqn2G4tM2iGu';
const widerScopes = { code: 'FORBIDDEN', when: "a scope asked for is not among the caller's" } as const;

/** The test-mode key for CI that createApiKey makes, as listings show it (the key itself is not kept). */
const CI_KEY = {
  key_id: ID.newKey,
  name: 'ci',
  prefix: 'tp_test_',
  last4: '9z1q',
  account: 'acme',
  plan: 'pro',
  scopes: ['analyze', 'kb'],
  mode: 'test',
  created_at: '2025-06-02T09:30:00.000Z',
  expires_at: null,
  revoked: false,
  revoked_at: null,
} as const;

/** The OAuth client of the nightly batch job that createOAuthClient registers (its secret: {@link CLIENT_SECRET}). */
const BATCH_CLIENT = {
  client_id: ID.client,
  name: 'nightly-batch',
  account: 'acme',
  plan: 'pro',
  scopes: ['analyze', 'kb'],
  created_at: '2025-06-02T09:30:00.000Z',
  revoked: false,
  revoked_at: null,
} as const;

/**
 * Documentation of the account and service operations, by operation id.
 * @example ACCOUNT_DOCS.oauthToken.examples[0].body
 */
export const ACCOUNT_DOCS: Readonly<Record<string, RouteDocs>> = {
  // ---------------------------------------------------------------- account
  oauthToken: {
    description:
      'The OAuth 2.0 client-credentials grant (RFC 6749 §4.4): exchanges the credentials of an OAuth ' +
      'client of the account for a bearer token of at most one hour, with the scopes asked for (a subset of the ' +
      "client's; default all). Form body; the client authenticates by HTTP Basic or with `client_id` and " +
      '`client_secret` in the form. Errors are RFC 6749 §5.2 bodies `{ error, error_description }` (400, 401), ' +
      'except 413 and 415. Revoking the client revokes its tokens at once.',
    examples: [
      {
        name: 'clientCredentials',
        summary: 'A token for the batch client, with two of its scopes',
        after: ['createOAuthClient'],
        body: {
          grant_type: 'client_credentials',
          scope: 'analyze kb',
          client_id: ID.client,
          client_secret: CLIENT_SECRET,
        },
        status: 200,
        response: {
          access_token:
            'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJpc3MiOiJ0cmFpbnByaW50Iiwic3ViIjoidHBjX2Q2YmEyYjBhZWU' +
            'wY2E5MjM3MzI4ODE1OCIsImNsaWVudF9pZCI6InRwY19kNmJhMmIwYWVlMGNhOTIzNzMyODgxNTgiLCJhY2N0IjoiYWNtZSI' +
            'sInBsYW4iOiJwcm8iLCJzY29wZSI6ImFuYWx5emUga2IiLCJpYXQiOjE3NDg4NTY2MDAsImV4cCI6MTc0ODg2MDIwMCwianR' +
            'pIjoiOTRmMzAxMDUxZDE0YTlhYTMyZThkNDZkMzVjYWY5ZTcifQ.cOvNwOsOnlPihWCm3hLC9T-RfGZaZGwiz7zbPzvjjPM',
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'analyze kb',
        },
      },
    ],
  },
  getUsage: {
    description:
      "The account's calls in the current window (a calendar day in UTC), its plan's limit and when the " +
      'window resets. This call is not charged, so it answers when the limit is reached too. Every authenticated ' +
      'response of a plan with a daily limit also carries `RateLimit-*` headers.',
    examples: [
      {
        name: 'today',
        summary: 'Usage of a pro account',
        status: 200,
        response: {
          success: true,
          account: 'acme',
          plan: 'pro',
          window: 'day',
          limit: 10000,
          used: 1,
          remaining: 9999,
          reset_at: '2025-06-02T09:30:00.000Z',
          reset_seconds: 9170,
        },
      },
    ],
  },
  createApiKey: {
    description:
      'Creates an API key for the account: same account and plan as the caller, the scopes asked for (a ' +
      "subset of the caller's; default the caller's) and `live` or `test` mode. The key is in this response only: " +
      'the server keeps its SHA-256, and listings show its prefix and last four characters.',
    errorCases: [widerScopes],
    examples: [
      {
        name: 'ciKey',
        summary: 'A test-mode key for CI that can only analyse and read the knowledge base',
        body: { name: 'ci', scopes: ['analyze', 'kb'], mode: 'test' },
        status: 201,
        response: { success: true, key: 'tp_test_VpgiO4lfL1geP70zCEA9k85xCaZm9z1q', ...CI_KEY },
      },
    ],
  },
  listApiKeys: {
    description: "The account's API keys, revoked ones included: prefix and last four characters, never the key.",
    examples: [
      {
        name: 'all',
        summary: "The caller's key and the CI key",
        after: ['createApiKey'],
        status: 200,
        response: {
          success: true,
          keys: [
            {
              key_id: ID.newKey,
              name: null,
              prefix: 'tp_live_',
              last4: '4yG1',
              account: 'acme',
              plan: 'pro',
              scopes: ['analyze', 'registry:read'],
              mode: 'live',
              created_at: '2025-06-02T09:29:59.999Z',
              expires_at: null,
              revoked: false,
              revoked_at: null,
            },
            { ...CI_KEY, key_id: ID.key, last4: 'O0wV' },
          ],
        },
      },
    ],
  },
  revokeApiKey: {
    description: 'Revokes an API key of the account at once (idempotent: revoking again answers the same record).',
    errorCases: [{ code: 'NOT_FOUND', when: 'the account has no key with this id' }],
    examples: [
      {
        name: 'revoke',
        summary: 'Revoke the CI key',
        after: ['createApiKey'],
        params: { key_id: ID.newKey },
        status: 200,
        response: {
          success: true,
          ...CI_KEY,
          key_id: ID.key,
          last4: '3Nh4',
          revoked: true,
          revoked_at: '2025-06-02T09:30:00.001Z',
        },
      },
    ],
  },
  adminCreateKey: {
    description:
      "Creates an API key for any account, which exists from then on: its plan (one of this server's " +
      'plans; default `free`), its scopes (default every scope but `datasets:write` and `admin`), `live` or `test` ' +
      'mode and an optional expiry in days. For operators: the caller needs the `admin` scope, which no key gets ' +
      'by default (`trainprint serve --admin-key` prints one; `trainprint keys create --scopes admin` makes one in ' +
      'a file store). The key is in this response only.',
    errorCases: [
      {
        code: 'INVALID_INPUT',
        when: "the plan is not one of this server's (`details.field` is `plan`), or a field is malformed",
      },
    ],
    examples: [
      {
        name: 'marketplaceBuyer',
        summary: 'A key for a second account that makes offers on the marketplace',
        body: { account: 'globex', plan: 'pro', scopes: ['marketplace', 'registry:read'], name: 'buyer' },
        status: 201,
        response: {
          success: true,
          key: 'tp_live_2Xq8mRk4VbT0cNw7LpZy9HsA3dJf6GuE',
          key_id: ID.newKey,
          name: 'buyer',
          prefix: 'tp_live_',
          last4: '6GuE',
          account: 'globex',
          plan: 'pro',
          scopes: ['marketplace', 'registry:read'],
          mode: 'live',
          created_at: '2025-06-02T09:30:00.000Z',
          expires_at: null,
          revoked: false,
          revoked_at: null,
        },
      },
      {
        name: 'unknownPlan',
        summary: 'A plan the server does not have',
        body: { account: 'globex', plan: 'platinum' },
        status: 422,
        response: {
          success: false,
          error: {
            code: 'INVALID_INPUT',
            message:
              'The input is not valid: plan: "platinum" is not a known plan; the plans are free, pro, ' +
              'scale, enterprise',
            details: {
              location: 'body',
              field: 'plan',
              reason: '"platinum" is not a known plan; the plans are free, pro, scale, enterprise',
            },
          },
        },
      },
    ],
  },
  createOAuthClient: {
    description:
      'Registers an OAuth client for the account (client-credentials grant at `POST /api/v1/oauth/token`), ' +
      "with the scopes asked for (a subset of the caller's; default the caller's). The secret is in this response " +
      'only: the server keeps its SHA-256.',
    errorCases: [widerScopes],
    examples: [
      {
        name: 'batchClient',
        summary: 'A client for a nightly batch job',
        body: { name: 'nightly-batch', scopes: ['analyze', 'kb'] },
        status: 201,
        response: { success: true, client_secret: CLIENT_SECRET, ...BATCH_CLIENT },
      },
    ],
  },
  listOAuthClients: {
    description: "The account's OAuth clients, revoked ones included; never the secret.",
    examples: [
      {
        name: 'all',
        summary: 'The batch client',
        after: ['createOAuthClient'],
        status: 200,
        response: {
          success: true,
          clients: [BATCH_CLIENT],
        },
      },
    ],
  },
  revokeOAuthClient: {
    description: 'Revokes an OAuth client of the account and, with it, every token it holds (idempotent).',
    errorCases: [{ code: 'NOT_FOUND', when: 'the account has no client with this id' }],
    examples: [
      {
        name: 'revoke',
        summary: 'Revoke the batch client',
        after: ['createOAuthClient'],
        params: { client_id: ID.client },
        status: 200,
        response: { success: true, ...BATCH_CLIENT, revoked: true, revoked_at: '2025-06-02T09:30:00.001Z' },
      },
    ],
  },

  // ---------------------------------------------------------------- service
  openapi: {
    description:
      'This OpenAPI 3.1 document, generated from the route table and the JSON Schemas that validate the ' +
      'requests. Public.',
    examples: [
      {
        name: 'document',
        summary: 'The document (one operation shown)',
        status: 200,
        response: {
          openapi: '3.1.0',
          jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
          info: {
            title: 'trainprint API',
            version: '1.0.0',
            license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
          },
          servers: [{ url: '/' }],
          tags: [{ name: 'service' }],
          paths: {
            '/api/v1/status': {
              get: {
                operationId: 'getStatus',
                tags: ['service'],
                summary: 'Health (a check runs now), uptime, and incidents',
                security: [],
                responses: {
                  200: {
                    description: 'OK',
                    content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } },
                  },
                },
              },
            },
          },
          components: { schemas: { Status: { type: 'object' } } },
        },
      },
    ],
  },
  getStatus: {
    description:
      'Runs a health check now (a fingerprint on the engine, a read of the store) and answers with the ' +
      "components' status, uptime, and the incidents derived from failed checks and 5xx responses this process " +
      'recorded since it started. `availability` is measured from the heartbeats that every serving instance ' +
      '(each `serve` process or worker) writes to the store every 10 s: the share of minutes of the last 24 hours ' +
      'and 30 days, counted from the first heartbeat, in which at least one instance heartbeated, beside the ' +
      "plans' targets (Pro 99.9 %, Enterprise 99.99 %). It shows that an instance ran and could write to its " +
      'store, not that clients reached it: it is not an end-to-end probe. `remote_corpora` gives the health of ' +
      'each remote training corpus the server searches (`serve --infini-gram …`), from its calls since start. Public.',
    examples: [
      {
        name: 'healthy',
        summary: 'A healthy server, one of two, on a store with 30 days of heartbeats',
        status: 200,
        response: {
          success: true,
          status: 'operational',
          started_at: '2025-06-02T09:30:00.000Z',
          uptime_seconds: 0,
          components: [
            { name: 'api', status: 'operational', detail: 'no server errors in the last 5 minutes' },
            { name: 'engine', status: 'operational', detail: 'fingerprint check 0.17 ms' },
          ],
          checks: { total: 1, failed: 0, last: { at: '2025-06-02T09:30:00.001Z', ok: true, ms: 0.17, error: null } },
          requests: { total: 1, server_errors: 0 },
          incidents: [],
          availability: {
            measures: AVAILABILITY_MEASURES,
            heartbeat_interval_seconds: 10,
            last_24h: { since: '2025-06-01T09:31:00.000Z', minutes: 1440, minutes_up: 1440, percent: 100 },
            last_30d: { since: '2025-05-03T09:31:00.000Z', minutes: 43200, minutes_up: 43195, percent: 99.9884 },
            targets: [
              { plan: 'pro', percent: 99.9, met_24h: true, met_30d: true },
              { plan: 'enterprise', percent: 99.99, met_24h: true, met_30d: false },
            ],
            instances: [
              {
                instance_id: 'ins_5f1c0a9e7b3d2468',
                started_at: '2025-06-02T09:30:00.000Z',
                last_seen: '2025-06-02T09:30:00.000Z',
                live: true,
              },
              {
                instance_id: 'ins_0b8e6d4c2a197f35',
                started_at: '2025-05-28T14:02:11.000Z',
                last_seen: '2025-06-02T09:29:56.000Z',
                live: true,
              },
            ],
            error: null,
          },
          remote_corpora: [
            {
              dataset_id: 'v4_piletrain_llama',
              engine: 'infini-gram',
              endpoint: 'https://api.infini-gram.io/',
              index: 'v4_piletrain_llama',
              state: 'ok',
              calls: 1834,
              failures: 3,
              last_ok_at: '2025-06-02T09:29:58.412Z',
              last_failure_at: '2025-06-02T08:12:40.107Z',
              last_failure: 'unreachable',
              p50_ms: 41,
            },
          ],
        },
      },
    ],
  },
  statusPage: {
    description: 'The status report as a small self-contained HTML page (no scripts). Public.',
    examples: [
      {
        name: 'page',
        summary: 'The page',
        status: 200,
        response:
          '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" ' +
          'content="width=device-width, initial-scale=1">\n<title>trainprint status: Operational</title>',
      },
    ],
  },
};
