/**
 * JSON Schemas of the attribution routes (`/api/v1/attribution/…`): compare, score (a body that names a
 * registered work or carries the work, and a query that names one) and fingerprint. Analyze's request
 * and result are the library's own (`ANALYZE_REQUEST_SCHEMA`, `ANALYSIS_RESULT_SCHEMA`), used as they are.
 */
import {
  ANALYSIS_RESULT_SCHEMA,
  PASSAGE_KINDS,
  REMOTE_REPORT_SCHEMA,
  SCORE_REQUEST_SCHEMA,
  SUPPLIED_BY,
  TIER_REASON_CODES,
} from '../../library.js';
import {
  bool,
  code,
  codes,
  int0,
  jurisdiction,
  modelId,
  num,
  num01,
  dateTime,
  object,
  ok,
  pair,
  riskLevel,
  str,
  strings,
  strOrNull,
  tier,
  workHash,
} from './kit.js';
import { HTML_SCHEMA } from './service.js';
import { documented, EXTRACTION_DOCS } from '../docs/fields.js';

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

/** `GET /api/v1/attribution/score` query: a registered work of the account by its hash. */
export { SCORE_REQUEST_SCHEMA };
export const SCORE_QUERY_SCHEMA = object({ work_hash: workHash, target_model: modelId, jurisdiction });

/** How analyze's request carries content: the same members, the same meaning, in score's body. */

export const SCORE_RESULT_SCHEMA = ok(
  {
    work_hash: {
      ...workHash,
      description: "The registered work's, or that of the content sent: the SHA-256 of its bytes (a text's UTF-8)",
    },
    work_id: { ...strOrNull, description: 'The registered work scored; null for content sent with the request' },
    extraction: documented(ANALYSIS_RESULT_SCHEMA.properties.extraction, {
      ...EXTRACTION_DOCS,
      '': 'A file sent as `content`: how its text was extracted; every span of the result points into it',
    }),
    target_model: str,
    provider: str,
    score: { type: 'number', minimum: 0, maximum: 100 },
    tier,
    tier_reasons: {
      type: 'array',
      description: 'Why this tier: the deciding rule first, then what kept it from confirmed',
      items: object({
        code: {
          enum: [...TIER_REASON_CODES],
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
          kind: { enum: ['exact', 'portrait', 'remote', 'source'] },
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
          kind: { enum: ['exact', 'portrait', 'remote', 'source', 'near'] },
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
  },
  ['extraction'],
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

/** `GET /api/v1/attribution/analyses/{analysis_id}/report`: the work report. */
export const WORK_REPORT_SCHEMA = {
  ...HTML_SCHEMA,
  description: 'A self-contained page: inline CSS and SVG, no scripts, no external resources',
} as const;

const hex = (digits: number) => ({ type: 'string', pattern: `^[0-9a-f]{${digits}}$` }) as const;
const base64url = (chars: number) => ({ type: 'string', pattern: `^[A-Za-z0-9_-]{${chars}}$` }) as const;

/**
 * One extraction an account's extract job kept of a text (`extractWork`'s result, record of calls included): the
 * members a reader of it needs are required; the result's other members pass as they are.
 */
export const WORK_EXTRACTION_SCHEMA = {
  type: 'object',
  description:
    "An extract job's result as the account keeps it: the share of the work inside near-verbatim blocks, the " +
    'blocks, the calls and the digest of their transcript',
  required: ['text_sha256', 'model', 'words', 'nv_recall', 'nv_recall_50', 'blocks', 'sections', 'calls', 'record'],
  properties: {
    work_id: strOrNull,
    text_sha256: {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      description: 'SHA-256 of the UTF-8 of the text measured',
    },
    model: str,
    words: { ...int0, description: "The work's words: its runs of non-space characters, as every route counts words" },
    tokens: {
      ...int0,
      description:
        "The engine's word tokens of the work (a hyphen or an apostrophe parts a word), the unit of the blocks and " +
        'nv_recall (absent from results kept before it was given)',
    },
    nv_recall: { ...num01, description: "Share of the work's tokens inside near-verbatim blocks of ≥ 100 words" },
    nv_recall_50: { ...num01, description: 'The same with blocks of ≥ 50 words' },
    blocks: {
      type: 'array',
      items: { type: 'object' },
      description: 'Every block of ≥ 50 words, in order of the work',
    },
    sections: { type: 'array', items: { type: 'object' } },
    calls: int0,
    budget_calls: int0,
    stopped: { enum: ['done', 'budget', 'upstream_errors'] },
    record: {
      type: 'object',
      required: ['transcript_sha256', 'calls'],
      properties: {
        transcript_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        calls: { type: 'array', items: { type: 'object' } },
      },
    },
  },
} as const;

/**
 * `GET /api/v1/attribution/analyses/{analysis_id}/extractions`: the account's extractions of the analysed text (those
 * its evidence bundle signs), unsigned.
 */
export const ANALYSIS_EXTRACTIONS_SCHEMA = ok({
  analysis_id: str,
  text_sha256: {
    type: ['string', 'null'],
    pattern: '^[0-9a-f]{64}$',
    description: 'SHA-256 of the UTF-8 of the analysed text; null when it was not kept (then no extraction is found)',
  },
  extractions: {
    type: 'array',
    items: WORK_EXTRACTION_SCHEMA,
    description: "The account's extract jobs' results over the same text, oldest first (at most 16)",
  },
});

/**
 * `GET /api/v1/attribution/analyses/{analysis_id}/bundle`: the signed evidence bundle, as its canonical JSON (no
 * success envelope: it is a document, signed as it is).
 */
export const EVIDENCE_BUNDLE_SCHEMA = object(
  {
    format: { const: 'trainprint-evidence-bundle/1' },
    created_at: dateTime,
    result: ANALYSIS_RESULT_SCHEMA,
    text_sha256: {
      type: ['string', 'null'],
      pattern: '^[0-9a-f]{64}$',
      description: 'SHA-256 of the UTF-8 of the analysed text (not in the bundle); null when it was not kept',
    },
    extraction: { type: 'object', description: "A file's extraction as the result describes it, without its text" },
    model_extractions: {
      type: 'array',
      items: WORK_EXTRACTION_SCHEMA,
      description: "The account's extractions of the same text (its extract jobs' results), when it has any",
    },
    catalogue_audits: {
      type: 'array',
      items: {
        type: 'object',
        required: ['model', 'works', 'catalogue', 'calls', 'budget_calls', 'stopped', 'audit_sha256', 'method'],
        properties: { audit_sha256: hex(64), works: { type: 'array', items: { type: 'object' } } },
      },
      description:
        "The account's catalogue audits (its audit jobs' records) with a work of the same text, when it has any: " +
        'per-work verdicts and transcript digests, `audit_sha256` (verify computes it again from the works)',
    },
    transcripts: {
      type: 'object',
      description: 'Per remote corpus searched: every call used (request and answer digests, sorted) and their digest',
      additionalProperties: object({
        calls: int0,
        sha256: hex(64),
        entries: { type: 'array', items: object({ request: hex(64), answer: hex(64) }) },
      }),
    },
    engine: object({
      name: { const: 'trainprint' },
      version: str,
      core: object({ variant: { enum: ['scalar', 'simd'] }, sha256: hex(16) }),
    }),
    remote_indexes: {
      type: 'array',
      items: object({
        dataset_id: str,
        engine: { enum: ['infini-gram', 'infini-gram-mini'] },
        endpoint: str,
        index: str,
        outcome: str,
      }),
    },
    signature: object({
      alg: { const: 'Ed25519' },
      canonicalization: { const: 'RFC8785' },
      key_id: hex(16),
      public_key: { ...base64url(43), description: 'The raw 32-byte Ed25519 public key, base64url' },
      value: { ...base64url(86), description: 'The 64-byte signature, base64url' },
    }),
  },
  ['extraction', 'model_extractions', 'catalogue_audits'],
);

/** `GET /api/v1/report-key`: the public key that signs evidence bundles. */
export const REPORT_KEY_SCHEMA = ok({
  alg: { const: 'Ed25519' },
  key_id: { ...hex(16), description: 'First 16 hex digits of SHA-256(public key)' },
  public_key: { ...base64url(43), description: 'The raw 32-byte Ed25519 public key, base64url' },
  jwk: object({ kty: { const: 'OKP' }, crv: { const: 'Ed25519' }, x: base64url(43) }),
});
