/**
 * JSON Schemas (2020-12) of the HTTP API's requests and responses: the request schemas validate
 * bodies and queries (src/http/validate.ts), and all of them make up the OpenAPI document
 * (src/http/openapi.ts), where every schema object registered in `NAMED_SCHEMAS` (src/http/schemas/named.ts) becomes a
 * component and each use of that same object a `$ref` — so validation and documentation cannot
 * drift apart. Schemas are inline objects (no `$ref`), so each validates on its own.
 *
 * Success bodies are objects with `success: true` and the result's fields at the top level (the
 * service's analyze shape, applied to every route; lists sit under a plural name).
 */
import type { JsonSchema } from '../context.js';
import {
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  MATCH_SCHEMA,
  PASSAGE_KINDS,
  REMOTE_REPORT_SCHEMA,
  SUPPLIED_BY,
} from '../../index.js';
import { SCOPES } from '../context.js';
import {
  bool,
  code,
  codes,
  contentType,
  dateTime,
  dateTimeOrNull,
  declarations,
  int0,
  jurisdiction,
  listOf,
  modelId,
  monitorId,
  nullable,
  num,
  num01,
  object,
  ok,
  page,
  pageLimit,
  pair,
  prefixedId,
  riskLevel,
  str,
  strings,
  strOrNull,
  tier,
  workHash,
  workId,
  workType,
} from './kit.js';

const scope = { enum: [...SCOPES] } as const;

/**
 * A reference dataset id as the path and monitors name it: also the ids of the shipped packs
 * (`pack:gutenberg`). Ids an account chooses ({@link DATASET_ID_PATTERN}) have no `:`, so an
 * account cannot take a name of that family.
 */
export const DATASET_REF_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$';
/** The id of a dataset an account creates or imports (letters, digits, `.`, `_`, `-`; at most 200). */
export const DATASET_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$';

// ------------------------------------------------------------------ errors

/**
 * `{ success: false, error: { code, message, details? } }` — every error of the API except the OAuth token endpoint's.
 * @example new Validator(ERROR_ENVELOPE_SCHEMA).validate(await res.json()).valid
 */
export const ERROR_ENVELOPE_SCHEMA = object({
  success: { const: false },
  error: object(
    {
      code: { type: 'string', pattern: '^[A-Z][A-Z_]*$', description: 'Stable code (README "Error codes")' },
      message: str,
      details: {
        type: 'object',
        description:
          'Machine-readable context: e.g. `{ location, field, reason }` for 422, `{ allow }` for 405, `{ request_id }` for 500',
      },
    },
    ['details'],
  ),
});

/** RFC 6749 §5.2 error of the token endpoint. */
export const OAUTH_ERROR_SCHEMA = object(
  {
    error: {
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
      ],
    },
    error_description: str,
  },
  ['error_description'],
);

// ------------------------------------------------------------------ attribution

/** `POST /api/v1/attribution/compare`. */
export const COMPARE_REQUEST_SCHEMA = object({
  a: {
    type: 'string',
    minLength: 1,
    maxLength: 500_000,
    description: 'First text (e.g. the suspect); spans `a_start`/`a_end` index it',
  },
  b: { type: 'string', minLength: 1, maxLength: 500_000, description: 'Second text (e.g. the source)' },
});

export const COMPARISON_SCHEMA = ok(
  {
    similarity: num01,
    jaccard: num01,
    containment_a: num01,
    containment_b: num01,
    spans: {
      type: 'array',
      items: object({
        a_start: int0,
        a_end: int0,
        b_start: int0,
        b_end: int0,
        score: num01,
        kind: {
          type: 'string',
          enum: [...PASSAGE_KINDS],
          description:
            "'verbatim' (≥ 95 % of a's words in runs of ≥ 3 words that b's side holds), 'edited' (≥ 50 %), " +
            "'paraphrase' (less), or 'summary' (a's side condenses a passage of b at least twice as long)",
        },
        similarity: { ...num01, description: "Share of a's words in runs of ≥ 3 words shared with b's side" },
      }),
    },
    limitations: {
      type: 'array',
      items: { type: 'string', enum: ['synonyms_not_loaded'] },
      description:
        'What the comparison could not do (absent when nothing): synonyms_not_loaded — words read as written',
    },
  },
  ['limitations'],
);

/** `POST /api/v1/attribution/score` body and `GET` query. */
export const SCORE_REQUEST_SCHEMA = object({ work_hash: workHash, target_model: modelId, jurisdiction });

export const SCORE_RESULT_SCHEMA = ok({
  work_hash: workHash,
  work_id: str,
  target_model: str,
  provider: str,
  score: { type: 'number', minimum: 0, maximum: 100 },
  tier,
  tier_reasons: {
    type: 'array',
    description: 'Why this tier: the deciding rule first, then what kept it from confirmed',
    items: object({
      code: {
        enum: [
          'documented_verbatim_run',
          'interval_lower_bound_80',
          'interval_lower_bound_50',
          'only_point_reaches_50',
          'score_below_50',
          'too_few_chunks',
          'work_text_not_registered',
          'no_dataset_of_model',
          'no_match_in_model_datasets',
          'portrait_evidence_only',
          'no_long_verbatim_run',
          'long_run_link_not_documented',
        ],
      },
      message: str,
    }),
  },
  to_raise: { ...strings, description: 'What evidence would raise the tier (empty for confirmed)' },
  ci_95: pair({ type: 'number', minimum: 0, maximum: 100 }),
  reused_share: object({ estimate: num01, ci_95: pair(num01), flagged_chunks: int0, n_chunks: int0 }),
  legal_risk: object({
    jurisdiction: str,
    level: riskLevel,
    weight: num01,
    base_weight: num01,
    modifiers: { type: 'array', items: object({ code, delta: num }) },
    attribution_scale: num01,
    factors: codes,
  }),
  factors: codes,
  limitations: codes,
  remote_corpora: {
    type: 'array',
    items: REMOTE_REPORT_SCHEMA,
    description: 'Every remote corpus consulted for the work (its text was sent there) and how its search went',
  },
  evidence: object({
    method: str,
    chunk_words: int0,
    datasets: {
      type: 'array',
      items: object({
        dataset_id: str,
        kind: { enum: ['exact', 'portrait', 'remote'] },
        supplied_by: SUPPLIED_BY,
        kb_dataset: strOrNull,
        link: { enum: ['kb', 'declared'] },
        link_certainty: num01,
        link_reason: str,
        flagged_chunks: int0,
        chance: num01,
        strength: num,
        confidence: num01,
        value: num01,
      }),
    },
    chunks: {
      type: 'array',
      items: object({
        index: int0,
        start: int0,
        end: int0,
        tokens: int0,
        flagged: bool,
        dataset_id: strOrNull,
        chance: num01,
        longest_run: int0,
      }),
    },
    matches: {
      type: 'array',
      description:
        "What a person can check: the longest checkable matches of each flagged chunk, spans in the work's text",
      items: object({
        chunk: int0,
        dataset_id: str,
        kind: { enum: ['exact', 'portrait', 'remote', 'near'] },
        query_start: int0,
        query_end: int0,
        document_id: strOrNull,
        source_start: { type: ['integer', 'null'], minimum: 0 },
        source_end: { type: ['integer', 'null'], minimum: 0 },
        tokens: int0,
      }),
    },
    bootstrap: object({ resamples: int0, seed: int0 }),
    calibration: str,
  }),
});

/** `POST /api/v1/attribution/fingerprint`. */
export const FINGERPRINT_REQUEST_SCHEMA = object(
  {
    content: { type: 'string', minLength: 1, description: 'At most 10 MiB of UTF-8' },
    content_type: {
      ...contentType,
      description: 'How to read `content` (markup is reduced to its text). Default `text`',
    },
    options: object(
      {
        normalize: { enum: ['nfkc-casefold', 'none'] },
        // ranges beyond the types are the engine's to check (INVALID_OPTIONS, also 422, naming the member)
        shingle: object({ unit: { enum: ['word', 'char'] }, size: { type: 'integer', minimum: 1 } }, ['size']),
        seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
        winnow: { oneOf: [{ const: false }, object({ window: { type: 'integer', minimum: 1 } })] },
        minhash: {
          oneOf: [
            { const: false },
            object({ mode: { enum: ['oph', 'classic'] }, permutations: { type: 'integer', minimum: 1 } }, [
              'mode',
              'permutations',
            ]),
          ],
        },
        simhash: bool,
      },
      ['normalize', 'shingle', 'seed', 'winnow', 'minhash', 'simhash'],
    ),
    include_winnow: {
      type: 'boolean',
      description: 'Also return the winnowed fingerprints with their spans in `content`. Default false',
    },
  },
  ['content_type', 'options', 'include_winnow'],
);

export const FINGERPRINT_RESULT_SCHEMA = ok(
  {
    version: { const: 1 },
    params: str,
    fingerprint: {
      type: 'string',
      pattern: '^tp1r?:[0-9a-f]{32}$',
      description: 'Id of the normalised text (`tp1:` + 32 hex)',
    },
    work_hash: { ...workHash, description: "SHA-256 of the content's UTF-8 bytes, markup included" },
    byte_length: int0,
    token_count: int0,
    shingle_count: int0,
    simhash: { type: ['string', 'null'], pattern: '^[0-9a-f]{16}$', description: '64-bit SimHash as 16 hex digits' },
    minhash: { type: ['array', 'null'], items: { type: 'integer', minimum: 0, maximum: 4294967295 } },
    winnow: object({
      hashes: { type: 'array', items: { type: 'string', pattern: '^[0-9a-f]{16}$' } },
      starts: { type: 'array', items: int0 },
      ends: { type: 'array', items: int0 },
    }),
  },
  ['winnow'],
);

// ------------------------------------------------------------------ registry

export const RECEIPT_SCHEMA = object({
  version: { const: 1 },
  alg: { const: 'HMAC-SHA256' },
  key_id: str,
  work_hash: workHash,
  owner: str,
  registered_at: dateTime,
  signature: str,
});

const WORK_PROPS = {
  work_id: workId,
  work_hash: workHash,
  fingerprint: str,
  owner: str,
  title: strOrNull,
  author: strOrNull,
  work_type: nullable(workType),
  content_type: nullable(contentType),
  declarations,
  tokens: int0,
  has_text: bool,
  registered_at: dateTime,
  receipt: RECEIPT_SCHEMA,
  conflicting_claims: strings,
} as const;

/** A registered work (`owner` is the account that registered it). */
export const WORK_SCHEMA = object(WORK_PROPS);

/**
 * `POST /api/v1/content/register`: the caller's account is the owner. The work's fields come top-level or, in the analyze
 * request's shape, under `metadata` (the same field in both places is refused).
 */
export const REGISTER_REQUEST_SCHEMA = object(
  {
    content: { type: 'string', minLength: 1, description: 'The work (at most 10 MiB of UTF-8); or give `fingerprint`' },
    content_type: contentType,
    fingerprint: object({ fingerprint: { type: 'string', pattern: '^tp1:[0-9a-f]{32}$' }, work_hash: workHash }),
    title: { type: 'string', minLength: 1, maxLength: 1000 },
    author: { type: 'string', minLength: 1, maxLength: 1000 },
    work_type: workType,
    declarations,
    metadata: object(
      {
        title: { type: 'string', minLength: 1, maxLength: 1000 },
        author: { type: 'string', minLength: 1, maxLength: 1000 },
        work_type: workType,
        declarations,
        jurisdiction: {
          ...jurisdiction,
          description: 'Refused with a reason: a registration has no jurisdiction (score and monitors take one)',
        },
      },
      ['title', 'author', 'work_type', 'declarations', 'jurisdiction'],
    ),
  },
  ['content', 'content_type', 'fingerprint', 'title', 'author', 'work_type', 'declarations', 'metadata'],
);

export const REGISTER_RESULT_SCHEMA = ok({
  ...WORK_PROPS,
  created: { type: 'boolean', description: 'False when the account had already registered this work_hash' },
});
export const WORK_RESPONSE_SCHEMA = ok(WORK_PROPS);
export const WORK_LIST_SCHEMA = page('works', WORK_SCHEMA);
export const WORK_LIST_QUERY_SCHEMA = object({ after: workId, limit: pageLimit }, ['after', 'limit']);
export const VERIFY_RECEIPT_REQUEST_SCHEMA = object({
  receipt: { type: 'object', description: 'A receipt as returned by register' },
});
export const VERIFY_RECEIPT_RESULT_SCHEMA = ok({ valid: bool });
export const DELETED_SCHEMA = ok({ id: str, deleted: { const: true } });

// ------------------------------------------------------------------ monitors

/** `POST /api/v1/monitors/create`: `work_id` or `work_hash` names the work (the route says which is missing). */
export const CREATE_MONITOR_REQUEST_SCHEMA = object(
  {
    work_id: workId,
    work_hash: workHash,
    models: { type: 'array', items: modelId, minItems: 1, maxItems: 100 },
    datasets: { type: 'array', items: { type: 'string', pattern: DATASET_REF_PATTERN }, minItems: 1, maxItems: 100 },
    webhook: object({
      url: { type: 'string', minLength: 1, maxLength: 2000 },
      secret: { type: 'string', minLength: 16, maxLength: 500 },
    }),
    events: { type: 'array', items: { enum: ['match.found', 'score.changed'] }, minItems: 1 },
    jurisdiction,
  },
  ['work_id', 'work_hash', 'models', 'datasets', 'webhook', 'events', 'jurisdiction'],
);

const MONITOR_MODEL_STATE = object({
  score: { type: 'number', minimum: 0, maximum: 100 },
  tier,
  flagged_chunks: int0,
  datasets: strings,
  evaluated_at: dateTime,
});
const MONITOR_PROPS = {
  monitor_id: monitorId,
  work_id: str,
  work_hash: workHash,
  models: { type: ['array', 'null'], items: str },
  datasets: { type: ['array', 'null'], items: str },
  missing_datasets: {
    type: 'array',
    items: str,
    description:
      'Of `datasets`, those this server does not hold now (dropped, or created through the API before a restart): the monitor cannot evaluate against them',
  },
  webhook: { oneOf: [{ type: 'null' }, object({ url: str })] },
  events: { type: 'array', items: { enum: ['match.found', 'score.changed'] } },
  jurisdiction: str,
  state: { enum: ['active', 'paused'] },
  created_at: dateTime,
  updated_at: dateTime,
  last: { type: 'object', additionalProperties: MONITOR_MODEL_STATE, description: 'Last evaluation per model id' },
  owner: {
    type: ['string', 'null'],
    description:
      "The account it belongs to: its evaluations read the datasets every account shares and this account's own",
  },
} as const;
// monitors stored before owners were recorded have none
const MONITOR_OPTIONAL = ['owner'];

export const MONITOR_SCHEMA = object(MONITOR_PROPS, MONITOR_OPTIONAL);
export const MONITOR_RESPONSE_SCHEMA = ok(MONITOR_PROPS, MONITOR_OPTIONAL);
export const MONITOR_LIST_SCHEMA = listOf('monitors', MONITOR_SCHEMA);
export const MONITOR_LIST_QUERY_SCHEMA = object({ work_id: workId }, ['work_id']);

export const MONITOR_EVENT_SCHEMA = object({
  id: prefixedId('evt', 32),
  type: { enum: ['match.found', 'score.changed'] },
  created_at: dateTime,
  data: object({
    monitor_id: str,
    work_id: str,
    work_hash: workHash,
    model: str,
    score: num,
    previous_score: { type: ['number', 'null'] },
    tier,
    previous_tier: nullable(tier),
    flagged_chunks: int0,
    previous_flagged_chunks: int0,
    datasets: strings,
    trigger: str,
  }),
});
export const EVENT_LIST_SCHEMA = listOf('events', MONITOR_EVENT_SCHEMA);
export const EVENT_LIST_QUERY_SCHEMA = object({ limit: pageLimit }, ['limit']);

// ------------------------------------------------------------------ datasets

const datasetId = { type: 'string', pattern: DATASET_ID_PATTERN } as const;
const DOCUMENTS = {
  type: 'array',
  minItems: 1,
  maxItems: 100_000,
  items: object(
    {
      id: { type: 'string', minLength: 1, maxLength: 1000 },
      text: str,
      meta: { description: 'Any JSON, kept with the document' },
    },
    ['meta'],
  ),
} as const;

const DATASET_STATS_PROPS = {
  id: str,
  name: str,
  kind: {
    enum: ['exact', 'portrait', 'remote'],
    description:
      "`remote`: a training corpus searched through its engine (`serve --infini-gram …`); its sizes are the index's published ones",
  },
  documents: int0,
  tokens: int0,
  fingerprints: int0,
  bytes: int0,
  index_bytes: int0,
  params: str,
  kb_dataset: { type: ['string', 'null'], description: 'The declared knowledge-base dataset it samples' },
  models: { type: 'array', items: str, description: 'The declared models trained on it' },
  text_bytes: { ...int0, description: 'Exact only: UTF-8 bytes of the document texts kept for alignment' },
  window: int0,
  fpr: num01,
  filters: int0,
  storage: { enum: ['postgres'], description: "Where the index lives when not in the server's memory: PostgreSQL" },
  durable: {
    type: 'boolean',
    description:
      "false: created or imported through the API and held in this server's memory, so a restart drops it (export it to keep it); true: the operator's (loaded at start or kept in PostgreSQL) or a reference pack",
  },
  remote: {
    ...object({
      engine: { enum: ['infini-gram', 'infini-gram-mini'] },
      endpoint: { ...str, description: 'Where analyzed text is sent' },
      index: str,
      declared: {
        ...bool,
        description: 'false: the knowledge base links the public index to its corpus; true: the operator declared it',
      },
    }),
    description: 'Remote only: the engine searched',
  },
} as const;
const DATASET_OPTIONAL = ['name', 'text_bytes', 'window', 'fpr', 'filters', 'storage', 'remote'];

/** Size and content of a reference dataset (`engine.datasets()`). */
export const DATASET_STATS_SCHEMA = object(DATASET_STATS_PROPS, DATASET_OPTIONAL);
export const DATASET_RESPONSE_SCHEMA = ok(DATASET_STATS_PROPS, DATASET_OPTIONAL);
export const DATASET_LIST_SCHEMA = listOf('datasets', DATASET_STATS_SCHEMA);

export const CREATE_DATASET_REQUEST_SCHEMA = object(
  {
    id: datasetId,
    name: { type: 'string', maxLength: 1000 },
    kind: { enum: ['exact', 'portrait'] },
    window: { type: 'integer', minimum: 1, maximum: 64, description: 'Portrait only' },
    models: { type: 'array', items: modelId, description: 'Knowledge-base models you declare trained on this corpus' },
    kb_dataset: { type: 'string', description: 'Knowledge-base dataset this corpus samples (your declaration)' },
    keep_text: {
      type: 'boolean',
      description:
        'Exact only (default true): keep the document texts so that analyze aligns edited and reworded reuse',
    },
    meta: { description: 'Any JSON' },
    documents: DOCUMENTS,
  },
  ['name', 'kind', 'window', 'models', 'kb_dataset', 'keep_text', 'meta', 'documents'],
);

export const ADD_DOCUMENTS_REQUEST_SCHEMA = object({ documents: DOCUMENTS });
export const BINARY_SCHEMA = {
  type: 'string',
  contentMediaType: 'application/octet-stream',
  description: 'A dataset file (msgpack, versioned, checksummed)',
} as const;

// ------------------------------------------------------------------ knowledge base

const KB_MODEL_PROPS = {
  id: str,
  provider: str,
  provider_id: str,
  release_year: { type: ['integer', 'null'] },
  modality: { enum: ['text', 'image'] },
  disclosure: { enum: ['full', 'partial', 'undisclosed'] },
  training_datasets: {
    type: 'array',
    items: object({ name: str, datasets: strings, excludes: strings, share: strOrNull, subset_of: strings }),
  },
  training_tokens: strOrNull,
  notes: str,
  sources: strings,
  uncertain_fields: strings,
} as const;
export const KB_MODEL_SCHEMA = object(KB_MODEL_PROPS);
export const KB_MODEL_RESPONSE_SCHEMA = ok(KB_MODEL_PROPS);
export const KB_MODEL_LIST_SCHEMA = listOf('models', KB_MODEL_SCHEMA);
export const KB_MODEL_QUERY_SCHEMA = object(
  {
    provider: str,
    modality: { enum: ['text', 'image'] },
    disclosure: { enum: ['full', 'partial', 'undisclosed'] },
    dataset: { type: 'string', description: 'Models with a documented link to this dataset (id or name)' },
  },
  ['provider', 'modality', 'disclosure', 'dataset'],
);
export const KB_PROVIDER_LIST_SCHEMA = listOf('providers', object({ id: str, name: str, models: strings }));

const KB_DATASET_PROPS = {
  id: str,
  name: str,
  kind: str,
  aliases: strings,
  components: strings,
  pirated: bool,
  public_domain_in: strings,
  description: str,
  sources: strings,
} as const;
export const KB_DATASET_SCHEMA = object(KB_DATASET_PROPS);
export const KB_DATASET_RESPONSE_SCHEMA = ok(KB_DATASET_PROPS);
export const KB_DATASET_LIST_SCHEMA = listOf('datasets', KB_DATASET_SCHEMA);
export const JURISDICTION_LIST_SCHEMA = listOf(
  'jurisdictions',
  object({
    code: str,
    name: str,
    base: num01,
    factors: codes,
    reasons: str,
  }),
);
export const FACTOR_LIST_SCHEMA = listOf(
  'factors',
  object({
    code,
    category: { enum: ['evidence', 'attribution', 'limitation', 'jurisdiction', 'risk_modifier'] },
    meaning: str,
    source: str,
  }),
);

// ------------------------------------------------------------------ account: keys, OAuth, usage

const scopes = { type: 'array', items: scope, minItems: 1, uniqueItems: true } as const;
export const CREATE_KEY_REQUEST_SCHEMA = object(
  {
    name: { type: 'string', maxLength: 100 },
    scopes: { ...scopes, description: "A subset of the caller's scopes. Default: the caller's scopes" },
    mode: { enum: ['live', 'test'] },
  },
  ['name', 'scopes', 'mode'],
);

const KEY_INFO_PROPS = {
  key_id: prefixedId('key', 16),
  name: strOrNull,
  prefix: { enum: ['tp_live_', 'tp_test_'] },
  last4: { type: 'string', pattern: '^[0-9A-Za-z]{4}$' },
  account: str,
  plan: str,
  scopes,
  mode: { enum: ['live', 'test'] },
  created_at: dateTime,
  expires_at: { ...dateTimeOrNull, description: 'When the key stops working; null: it does not expire' },
  revoked: bool,
  revoked_at: dateTimeOrNull,
} as const;
export const KEY_INFO_SCHEMA = object(KEY_INFO_PROPS);
export const KEY_CREATED_SCHEMA = ok({
  key: { type: 'string', pattern: '^tp_(live|test)_[0-9A-Za-z]{32}$', description: 'Shown once; store it now' },
  ...KEY_INFO_PROPS,
});
export const KEY_RESPONSE_SCHEMA = ok(KEY_INFO_PROPS);
export const KEY_LIST_SCHEMA = listOf('keys', KEY_INFO_SCHEMA);

/** `POST /api/v1/admin/keys`: a key for any account (the plan is checked against the server's plans). */
export const ADMIN_CREATE_KEY_REQUEST_SCHEMA = object(
  {
    account: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$',
      description: 'The account the key acts for; an account exists once it has a key',
    },
    plan: {
      type: 'string',
      minLength: 1,
      maxLength: 32,
      description: "A plan of this server (`free`, `pro`, `scale`, `enterprise` or the operator's). Default `free`",
    },
    scopes: { ...scopes, description: 'Default: every scope but `datasets:write` and `admin`' },
    mode: { enum: ['live', 'test'] },
    name: { type: 'string', maxLength: 100 },
    expires_in_days: {
      type: 'integer',
      minimum: 1,
      maximum: 3660,
      description: 'Days until the key stops working. Default: no expiry',
    },
  },
  ['plan', 'scopes', 'mode', 'name', 'expires_in_days'],
);

export const CREATE_CLIENT_REQUEST_SCHEMA = object({ name: { type: 'string', maxLength: 100 }, scopes }, [
  'name',
  'scopes',
]);
const CLIENT_INFO_PROPS = {
  client_id: prefixedId('tpc', 24),
  name: strOrNull,
  account: str,
  plan: str,
  scopes,
  created_at: dateTime,
  revoked: bool,
  revoked_at: dateTimeOrNull,
} as const;
export const CLIENT_INFO_SCHEMA = object(CLIENT_INFO_PROPS);
export const CLIENT_CREATED_SCHEMA = ok({
  client_secret: { type: 'string', pattern: '^tp_cs_[0-9A-Za-z]{40}$', description: 'Shown once; store it now' },
  ...CLIENT_INFO_PROPS,
});
export const CLIENT_RESPONSE_SCHEMA = ok(CLIENT_INFO_PROPS);
export const CLIENT_LIST_SCHEMA = listOf('clients', CLIENT_INFO_SCHEMA);

/** The token request (form fields, RFC 6749 §4.4.2 and §2.3.1). */
export const TOKEN_REQUEST_SCHEMA = object(
  {
    grant_type: { const: 'client_credentials' },
    scope: { type: 'string', description: "Space-separated subset of the client's scopes; default all of them" },
    client_id: { type: 'string', description: 'When not using HTTP Basic' },
    client_secret: { type: 'string', description: 'When not using HTTP Basic' },
  },
  ['scope', 'client_id', 'client_secret'],
);

export const TOKEN_RESPONSE_SCHEMA = object({
  access_token: str,
  token_type: { const: 'Bearer' },
  expires_in: { type: 'integer', minimum: 1, maximum: 3600 },
  scope: str,
});

export const USAGE_SCHEMA = ok({
  account: str,
  plan: str,
  window: { const: 'day', description: 'Calendar day in UTC' },
  limit: { type: ['integer', 'null'], description: 'Calls per window; null: no limit' },
  used: int0,
  remaining: { type: ['integer', 'null'] },
  reset_at: dateTime,
  reset_seconds: int0,
});

// ------------------------------------------------------------------ service

const componentStatus = { enum: ['operational', 'degraded', 'major_outage'] } as const;
const percentOrNull = { type: ['number', 'null'], minimum: 0, maximum: 100 } as const;
const boolOrNull = { type: ['boolean', 'null'] } as const;
const availabilityWindow = object({
  since: { ...dateTimeOrNull, description: "Start of the minutes counted: the window's start or the first heartbeat" },
  minutes: { ...int0, description: 'Minutes since `since`, the current one included once it has a heartbeat' },
  minutes_up: { ...int0, description: 'Minutes in which at least one instance heartbeated' },
  percent: { ...percentOrNull, description: '100 · minutes_up / minutes, rounded down to 4 decimals; null: none yet' },
});
const AVAILABILITY_SCHEMA = {
  ...object({
    measures: { ...str, description: 'What the figures measure and what they cannot see' },
    heartbeat_interval_seconds: int0,
    last_24h: availabilityWindow,
    last_30d: availabilityWindow,
    targets: {
      type: 'array',
      description: "The plans' availability targets (percent), each compared with both windows (null: not measured)",
      items: object({
        plan: str,
        percent: { type: 'number', minimum: 0, maximum: 100 },
        met_24h: boolOrNull,
        met_30d: boolOrNull,
      }),
    },
    instances: {
      type: 'array',
      description: 'Instances that heartbeated in the last 24 hours, most recently seen first (at most 20)',
      items: object({ instance_id: str, started_at: dateTime, last_seen: dateTime, live: bool }),
    },
    error: { ...strOrNull, description: 'Why the heartbeats could not be read; null when they were' },
  }),
  description:
    'Measured from the heartbeats every serving instance writes to the store every 10 s (not an ' +
    'end-to-end probe): the share of minutes in which at least one instance was running and could write',
} as const;
export const STATUS_SCHEMA = ok({
  status: componentStatus,
  started_at: dateTime,
  uptime_seconds: int0,
  components: {
    type: 'array',
    items: object({ name: str, status: componentStatus, detail: str }),
  },
  checks: object({
    total: int0,
    failed: int0,
    last: object({ at: dateTime, ok: bool, ms: { type: 'number', minimum: 0 }, error: strOrNull }),
  }),
  requests: object({ total: int0, server_errors: int0 }),
  incidents: {
    type: 'array',
    description: 'Derived from recorded failed health checks and 5xx responses since start, newest first',
    items: object({
      id: str,
      started_at: dateTime,
      last_event_at: dateTime,
      resolved_at: {
        ...dateTimeOrNull,
        description: 'Time of the first successful health check after the last event; null while none',
      },
      failed_checks: int0,
      server_errors: int0,
      statuses: { type: 'array', items: { type: 'integer', minimum: 500, maximum: 599 } },
      codes: strings,
      operations: strings,
    }),
  },
  availability: AVAILABILITY_SCHEMA,
  remote_corpora: {
    type: 'array',
    description:
      'The remote training corpora analyses search (none unless the server was started with them), as this ' +
      "process's calls found them; a corpus that does not answer does not change `status`",
    items: object({
      dataset_id: str,
      engine: { enum: ['infini-gram', 'infini-gram-mini'] },
      endpoint: { ...str, description: "The public service's URL, or `self-hosted`" },
      index: str,
      state: { enum: ['ok', 'degraded', 'down', 'unknown'] },
      calls: int0,
      failures: int0,
      last_ok_at: dateTimeOrNull,
      last_failure_at: dateTimeOrNull,
      last_failure: {
        enum: ['unreachable', 'rate_limited', 'budget_exhausted', 'rejected', 'invalid_response', 'cancelled', null],
      },
      p50_ms: { type: ['number', 'null'], minimum: 0 },
    }),
  },
});
export const HTML_SCHEMA = { type: 'string', contentMediaType: 'text/html' } as const;
export const OPENAPI_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { const: '3.1.0' } },
} as const;

/**
 * Component names of the core schemas (src/http/schemas/named.ts adds the marketplace and
 * memorization ones).
 * @example CORE_SCHEMA_NAMES.ScoreResult === SCORE_RESULT_SCHEMA // true
 */
export const CORE_SCHEMA_NAMES: Readonly<Record<string, JsonSchema>> = {
  ErrorEnvelope: ERROR_ENVELOPE_SCHEMA,
  OAuthError: OAUTH_ERROR_SCHEMA,
  AnalyzeRequest: ANALYZE_REQUEST_SCHEMA,
  AnalysisResult: ANALYSIS_RESULT_SCHEMA,
  Match: MATCH_SCHEMA,
  CompareRequest: COMPARE_REQUEST_SCHEMA,
  Comparison: COMPARISON_SCHEMA,
  ScoreRequest: SCORE_REQUEST_SCHEMA,
  ScoreResult: SCORE_RESULT_SCHEMA,
  FingerprintRequest: FINGERPRINT_REQUEST_SCHEMA,
  FingerprintResult: FINGERPRINT_RESULT_SCHEMA,
  Receipt: RECEIPT_SCHEMA,
  Work: WORK_SCHEMA,
  RegisterWorkRequest: REGISTER_REQUEST_SCHEMA,
  RegisterWorkResult: REGISTER_RESULT_SCHEMA,
  WorkResponse: WORK_RESPONSE_SCHEMA,
  WorkList: WORK_LIST_SCHEMA,
  VerifyReceiptRequest: VERIFY_RECEIPT_REQUEST_SCHEMA,
  VerifyReceiptResult: VERIFY_RECEIPT_RESULT_SCHEMA,
  Deleted: DELETED_SCHEMA,
  CreateMonitorRequest: CREATE_MONITOR_REQUEST_SCHEMA,
  Monitor: MONITOR_SCHEMA,
  MonitorResponse: MONITOR_RESPONSE_SCHEMA,
  MonitorList: MONITOR_LIST_SCHEMA,
  MonitorEvent: MONITOR_EVENT_SCHEMA,
  MonitorEventList: EVENT_LIST_SCHEMA,
  DatasetStats: DATASET_STATS_SCHEMA,
  DatasetResponse: DATASET_RESPONSE_SCHEMA,
  DatasetList: DATASET_LIST_SCHEMA,
  CreateDatasetRequest: CREATE_DATASET_REQUEST_SCHEMA,
  AddDocumentsRequest: ADD_DOCUMENTS_REQUEST_SCHEMA,
  DatasetFile: BINARY_SCHEMA,
  KbModel: KB_MODEL_SCHEMA,
  KbModelResponse: KB_MODEL_RESPONSE_SCHEMA,
  KbModelList: KB_MODEL_LIST_SCHEMA,
  KbProviderList: KB_PROVIDER_LIST_SCHEMA,
  KbDataset: KB_DATASET_SCHEMA,
  KbDatasetResponse: KB_DATASET_RESPONSE_SCHEMA,
  KbDatasetList: KB_DATASET_LIST_SCHEMA,
  JurisdictionList: JURISDICTION_LIST_SCHEMA,
  FactorList: FACTOR_LIST_SCHEMA,
  CreateKeyRequest: CREATE_KEY_REQUEST_SCHEMA,
  AdminCreateKeyRequest: ADMIN_CREATE_KEY_REQUEST_SCHEMA,
  ApiKey: KEY_INFO_SCHEMA,
  ApiKeyCreated: KEY_CREATED_SCHEMA,
  ApiKeyResponse: KEY_RESPONSE_SCHEMA,
  ApiKeyList: KEY_LIST_SCHEMA,
  CreateOAuthClientRequest: CREATE_CLIENT_REQUEST_SCHEMA,
  OAuthClient: CLIENT_INFO_SCHEMA,
  OAuthClientCreated: CLIENT_CREATED_SCHEMA,
  OAuthClientResponse: CLIENT_RESPONSE_SCHEMA,
  OAuthClientList: CLIENT_LIST_SCHEMA,
  TokenRequest: TOKEN_REQUEST_SCHEMA,
  TokenResponse: TOKEN_RESPONSE_SCHEMA,
  Usage: USAGE_SCHEMA,
  Status: STATUS_SCHEMA,
};
