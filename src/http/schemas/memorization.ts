/**
 * JSON Schemas of the memorization routes (`/api/v1/memorization/…`). Requests carry the target
 * model as `{ base_url, api_key?, model, api?, top_logprobs? }` (an OpenAI-compatible service);
 * the option bounds are the engine's, written once (src/services/memorization/limits.ts), tightened where a request
 * fans out into calls to the model service (`SERVER_CAPS`: `prefixes`, `max_tokens`, `concurrency`), so one API call
 * cannot turn the server into a request cannon. Responses are the engine's
 * results (src/services/memorization/types.ts) field for field.
 */
import type { JsonSchema } from '../context.js';
import { documented } from '../docs/fields.js';
import {
  assessmentId,
  bool,
  codes,
  dateTime,
  int0,
  intIn,
  jurisdiction,
  modelId,
  nullable,
  num,
  num01,
  object,
  ok,
  pair,
  partialObject,
  resourceSchemas,
  riskLevel,
  str,
  strings,
  strOrNull,
  workHash,
  workId,
  workType,
} from './kit.js';
import { SCORE_RESULT_SCHEMA } from './attribution.js';
import { MODEL_SPEC_SCHEMA, servedLimit } from '../../library.js';
import { REGISTER_REQUEST_SCHEMA } from './content.js';
import { HTML_SCHEMA } from './service.js';

const access = { enum: ['logprobs', 'top_k', 'generations_only'] } as const;
const basis = { enum: ['randomized_split', 'post_cutoff', 'unverified'] } as const;
const texts = { type: 'array', minItems: 1, maxItems: 100_000, items: { type: 'string', minLength: 1 } } as const;
/** A reference set id as the API shows it (each account has its own sets). */
const refSetId = {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
  description: 'Reference set id of the account',
} as const;

/** The close of an extraction's and a probe's result: what bore on it and limits it (codes), and its method. */
const RESULT_NOTES = { factors: codes, limitations: codes, method: str } as const;

// ------------------------------------------------------------------ register-work, reference sets

/** `POST /api/v1/memorization/register-work`: a work of the account (`work_id`) or one to register now (`work`). */
export const TRACK_WORK_REQUEST_SCHEMA = partialObject({
  work_id: { ...workId, description: 'A registered work of the account (or give `work`)' },
  work: REGISTER_REQUEST_SCHEMA,
  canaries: object(
    {
      count: intIn(1, 100, 'Canary sequences to embed in the published work'),
      words: intIn(8, 200, 'Words per canary (default 24)'),
      controls: intIn(1, 1000, 'Never-published controls (default 4 × count, at most 400)'),
    },
    ['words', 'controls'],
  ),
});

const CANARY = object({ id: str, text: str });
const TRACKED_PROPS = {
  work_id: workId,
  work_hash: workHash,
  title: strOrNull,
  tracked_at: dateTime,
  canaries: {
    type: 'array',
    items: CANARY,
    description: 'Embed each verbatim in the published work (repeated: the more copies the better)',
  },
  controls: { type: 'array', items: CANARY, description: "Keep private: the canaries' never-published controls" },
  canary_words: int0,
} as const;
export const TRACKED_WORK_RESPONSE_SCHEMA = ok(TRACKED_PROPS);

/** `POST /api/v1/memorization/reference-sets`. */
export const REFERENCE_SET_REQUEST_SCHEMA = object(
  {
    id: refSetId,
    texts: { ...texts, description: 'Non-member documents (one document each; chunks never span two)' },
    basis: {
      ...basis,
      description:
        '`randomized_split` (members and non-members assigned at random: the matched design), `post_cutoff`, `unverified`',
    },
    description: { type: 'string', minLength: 1, maxLength: 2000 },
    published_after: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'With `post_cutoff`: earliest publication date (ISO 8601)',
    },
  },
  ['description', 'published_after'],
);

const REFERENCE_SET_PROPS = {
  id: refSetId,
  basis,
  description: strOrNull,
  published_after: strOrNull,
  documents: int0,
  tokens: int0,
  created_at: dateTime,
} as const;
export const [REFERENCE_SET_SCHEMA, REFERENCE_SET_RESPONSE_SCHEMA, REFERENCE_SET_LIST_SCHEMA] = resourceSchemas(
  REFERENCE_SET_PROPS,
  'reference_sets',
);

// ------------------------------------------------------------------ extract

const EXTRACT_OPTIONS = {
  prefix_tokens: servedLimit('extract', 'prefix_tokens', 'Words of the work given as the prompt (default 50)'),
  continuation_tokens: servedLimit(
    'extract',
    'continuation_tokens',
    'Words of the true continuation compared (default 64)',
  ),
  prefixes: servedLimit(
    'extract',
    'prefixes',
    'Prompts at evenly spaced positions of the work (default 16; the library allows 1,000)',
  ),
  max_tokens: servedLimit(
    'extract',
    'max_tokens',
    'Model tokens per generation (default 2 × continuation_tokens; the library allows 16,384)',
  ),
  concurrency: servedLimit('extract', 'concurrency', 'Model calls in flight (default 4; the library allows 64)'),
} as const;
const EXTRACT_OPTION_NAMES = Object.keys(EXTRACT_OPTIONS);

/** `POST /api/v1/memorization/extract`: exactly one of `work_id` and `text`. */
export const EXTRACT_REQUEST_SCHEMA = object(
  {
    work_id: { ...workId, description: 'A work of the account registered with its text (or give `text`)' },
    text: { type: 'string', minLength: 1, description: 'The text to probe (or give `work_id`)' },
    model: MODEL_SPEC_SCHEMA,
    ...EXTRACT_OPTIONS,
  },
  ['work_id', 'text', ...EXTRACT_OPTION_NAMES],
);

const VERBATIM_SPAN = object({ tokens: int0, output_start: int0, output_end: int0, work_start: int0, work_end: int0 });

const EXTRACTION_PROPS = {
  work_id: nullable(workId),
  model: str,
  access,
  prefix_tokens: int0,
  continuation_tokens: int0,
  attempts: {
    type: 'array',
    items: object(
      {
        index: int0,
        prefix_start: int0,
        prefix_end: int0,
        prefix_tokens: int0,
        continuation_start: int0,
        continuation_end: int0,
        continuation_tokens: int0,
        output: str,
        exact_continuation_tokens: int0,
        longest_match: nullable(VERBATIM_SPAN),
        verified: bool,
        refused: { const: true, description: 'A refusal: left out of the extractable share' },
      },
      ['refused'],
    ),
  },
  summary: object(
    {
      attempts: int0,
      refusals: { ...int0, description: 'Attempts the model refused (absent in results from before it was counted)' },
      verified: int0,
      extractable: object({ count: int0, share: num01, ci_95: pair(num01) }),
      longest_match_tokens: int0,
      mean_exact_continuation_tokens: { type: 'number', minimum: 0 },
    },
    ['refusals'],
  ),
  ...RESULT_NOTES,
} as const;
export const EXTRACTION_RESULT_SCHEMA = object(EXTRACTION_PROPS);
export const EXTRACTION_RESPONSE_SCHEMA = ok(EXTRACTION_PROPS);

// ------------------------------------------------------------------ probe

const PROBE_OPTIONS = {
  reference: {
    oneOf: [object({ reference_set: refSetId }), object({ texts })],
    description: 'The non-member side: a reference set of the account, or texts (basis `unverified`)',
  },
  chunk_tokens: servedLimit('probe', 'chunk_tokens', 'Words per chunk (default 128)'),
  min_chunks: servedLimit('probe', 'min_chunks', 'Fewest chunks per side for a verdict (default 20)'),
  min_reference_documents: servedLimit(
    'probe',
    'min_reference_documents',
    'Fewest reference documents for a verdict (default 5)',
  ),
  k: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 1,
    description: 'Share of lowest-probability tokens for Min-K% (default 0.2)',
  },
  alpha: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 0.5,
    description: 'Family-wise significance level (default 0.01)',
  },
  concurrency: servedLimit('probe', 'concurrency', 'Model calls in flight (default 4; the library allows 64)'),
  reference_model: {
    ...MODEL_SPEC_SCHEMA,
    description:
      'A model that cannot have seen the work (released before it, or trained on disclosed data without it): the verdict then rests on the loss calibrated by it',
  },
} as const;
const PROBE_OPTION_NAMES = Object.keys(PROBE_OPTIONS).filter((k) => k !== 'reference');

/** `POST /api/v1/memorization/probe`: exactly one of `work_id`, `text` and `texts`. */
export const PROBE_REQUEST_SCHEMA = object(
  {
    work_id: workId,
    text: { type: 'string', minLength: 1 },
    texts: { ...texts, description: 'Several suspect documents' },
    model: MODEL_SPEC_SCHEMA,
    ...PROBE_OPTIONS,
  },
  ['work_id', 'text', 'texts', ...PROBE_OPTION_NAMES],
);

const SIDE = object({ chunks: int0, documents: int0, mean: num, median: num });
const PROBE_CHUNK = object({
  document: int0,
  start: int0,
  end: int0,
  scored_tokens: int0,
  loss: num,
  zlib_ratio: num,
  min_k: num,
  min_k_plus_plus: { type: ['number', 'null'] },
  calibrated_loss: { type: ['number', 'null'] },
});
const PROBE_PROPS = {
  work_id: nullable(workId),
  model: str,
  access,
  reference_model: nullable(object({ id: str, access })),
  distribution: { enum: ['full', 'top_k', 'none'] },
  verdict: { enum: ['significant', 'not_significant', 'insufficient_data', 'not_applicable'] },
  statement: str,
  reference: object({ source: { enum: ['reference_set', 'texts'] }, id: strOrNull, basis, matched: bool }),
  chunk_tokens: int0,
  k: num,
  alpha: num,
  min_chunks: int0,
  min_reference_documents: int0,
  n_chunks: object({ suspect: int0, reference: int0 }),
  n_documents: object({ suspect: int0, reference: int0 }),
  statistics: {
    type: 'array',
    items: object({
      name: { enum: ['loss', 'zlib_ratio', 'min_k', 'min_k_plus_plus', 'calibrated_loss'] },
      member_direction: { enum: ['lower', 'higher'] },
      approximate: bool,
      in_verdict: bool,
      suspect: SIDE,
      reference: SIDE,
      auc: num01,
      auc_ci_95: pair(num01),
      auc_ci_method: { enum: ['delong', 'clustered'] },
      mann_whitney: object({ u: num, p_value: { type: ['number', 'null'] }, method: { enum: ['exact', 'normal'] } }),
      document_test: nullable(
        object({
          t: num,
          df: num,
          p_value: num,
          p_holm: { type: ['number', 'null'] },
          mean_difference: num,
          ci_95: pair(num),
        }),
      ),
      significant: bool,
    }),
  },
  chunks: object({ suspect: { type: 'array', items: PROBE_CHUNK }, reference: { type: 'array', items: PROBE_CHUNK } }),
  ...RESULT_NOTES,
} as const;
export const PROBE_RESULT_SCHEMA = object(PROBE_PROPS);
export const PROBE_RESPONSE_SCHEMA = ok(PROBE_PROPS);

// ------------------------------------------------------------------ compare

/** `POST /api/v1/memorization/compare`: a model output against the account's works. */
export const COMPARE_OUTPUT_REQUEST_SCHEMA = object(
  {
    output: { type: 'string', minLength: 1, description: 'A model output' },
    work_ids: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: workId,
      description: 'Works of the account; default: all of them registered with text',
    },
    min_tokens: intIn(4, 10_000, 'Shortest verbatim run reported, in words (default 8)'),
    limit: intIn(1, 100_000, 'Most works examined (default 1000)'),
  },
  ['work_ids', 'min_tokens', 'limit'],
);

const COMPARE_PROPS = {
  output_tokens: int0,
  works: {
    type: 'array',
    items: object({
      work_id: workId,
      title: strOrNull,
      verbatim: { type: 'array', items: VERBATIM_SPAN },
      near: {
        type: 'array',
        items: object({ output_start: int0, output_end: int0, work_start: int0, work_end: int0, score: num }),
      },
      longest_verbatim_tokens: int0,
      verbatim_share: num01,
    }),
  },
  examined: int0,
  factors: codes,
  limitations: codes,
} as const;
export const COMPARE_OUTPUT_RESPONSE_SCHEMA = ok(COMPARE_PROPS);

// ------------------------------------------------------------------ assess, report

/** `POST /api/v1/memorization/assess`. */
export const ASSESS_REQUEST_SCHEMA = object(
  {
    work_id: { ...workId, description: 'A work of the account registered with its text' },
    model: MODEL_SPEC_SCHEMA,
    kb_model: documented(modelId, { '': { description: 'Knowledge-base id of the model, for corpus evidence' } }),
    jurisdiction,
    extract: {
      oneOf: [{ const: false }, object(EXTRACT_OPTIONS, EXTRACT_OPTION_NAMES)],
      description: 'Extraction settings, or false to skip. Default {}',
    },
    probe: {
      oneOf: [{ const: false }, object(PROBE_OPTIONS, PROBE_OPTION_NAMES)],
      description: 'Probe settings with the reference, or false. Without it no probe runs',
    },
    traps: { type: 'boolean', description: "Test the work's canaries (default true)" },
    trap_alpha: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 0.5,
      description: 'Significance level of the trap test (default 0.01)',
    },
  },
  ['kb_model', 'jurisdiction', 'extract', 'probe', 'traps', 'trap_alpha'],
);

/** `engine.score` without `legal_risk` (an assessment's `corpus`). */
const CORPUS_SCHEMA = (() => {
  const s = SCORE_RESULT_SCHEMA as { properties: Record<string, JsonSchema>; required: string[] };
  const { success: _s, legal_risk: _l, ...properties } = s.properties;
  return { ...s, properties, required: s.required.filter((k) => k !== 'success' && k !== 'legal_risk') } as JsonSchema;
})();

const TRAP_SCHEMA = object({
  canaries: int0,
  controls: int0,
  auc: num01,
  auc_ci_95: pair(num01),
  p_value: num01,
  detected: bool,
  canary_loss: num,
  control_loss: num,
});

const ASSESSMENT_PROPS = {
  assessment_id: assessmentId,
  created_at: dateTime,
  work: object({
    work_id: workId,
    work_hash: workHash,
    title: strOrNull,
    owner: str,
    work_type: workType,
    tokens: int0,
  }),
  model: object({ id: str, access, kb_model: strOrNull }),
  jurisdiction: strOrNull,
  level: riskLevel,
  evidence_tier: { enum: ['confirmed', 'strong', 'moderate', 'inconclusive'] },
  risk: object({
    score: num01,
    base_weight: num,
    modifiers: { type: 'array', items: object({ code: { type: 'string' }, delta: num }) },
    attribution_low: num01,
    attribution_scale: num,
  }),
  factors: codes,
  limitations: codes,
  summary: strings,
  corpus: nullable(CORPUS_SCHEMA),
  extraction: nullable(EXTRACTION_RESULT_SCHEMA),
  probe: nullable(PROBE_RESULT_SCHEMA),
  traps: nullable(TRAP_SCHEMA),
} as const;
export const ASSESSMENT_RESPONSE_SCHEMA = ok(ASSESSMENT_PROPS);

/** `POST /api/v1/memorization/report`: an assessment of the account as one HTML page. */
export const REPORT_REQUEST_SCHEMA = object(
  {
    assessment_id: { ...assessmentId, description: 'From `POST /api/v1/memorization/assess`' },
    max_spans: intIn(0, 100, 'Extraction attempts shown with their spans (default 8)'),
  },
  ['max_spans'],
);
export const REPORT_SCHEMA = {
  ...HTML_SCHEMA,
  description: 'A self-contained page: inline CSS and SVG, no scripts, no external resources',
} as const;

/**
 * Component names of the memorization schemas (merged into `NAMED_SCHEMAS`).
 * @example MEMORIZATION_SCHEMA_NAMES.ModelSpec === MODEL_SPEC_SCHEMA // true
 */
export const MEMORIZATION_SCHEMA_NAMES: Readonly<Record<string, JsonSchema>> = {
  ModelSpec: MODEL_SPEC_SCHEMA,
  TrackWorkRequest: TRACK_WORK_REQUEST_SCHEMA,
  TrackedWorkResponse: TRACKED_WORK_RESPONSE_SCHEMA,
  ReferenceSetRequest: REFERENCE_SET_REQUEST_SCHEMA,
  ReferenceSet: REFERENCE_SET_SCHEMA,
  ReferenceSetResponse: REFERENCE_SET_RESPONSE_SCHEMA,
  ReferenceSetList: REFERENCE_SET_LIST_SCHEMA,
  ExtractRequest: EXTRACT_REQUEST_SCHEMA,
  ExtractionResult: EXTRACTION_RESULT_SCHEMA,
  ExtractionResponse: EXTRACTION_RESPONSE_SCHEMA,
  ProbeRequest: PROBE_REQUEST_SCHEMA,
  ProbeResult: PROBE_RESULT_SCHEMA,
  ProbeResponse: PROBE_RESPONSE_SCHEMA,
  CompareOutputRequest: COMPARE_OUTPUT_REQUEST_SCHEMA,
  CompareOutputResponse: COMPARE_OUTPUT_RESPONSE_SCHEMA,
  AssessRequest: ASSESS_REQUEST_SCHEMA,
  AssessmentResponse: ASSESSMENT_RESPONSE_SCHEMA,
  ReportRequest: REPORT_REQUEST_SCHEMA,
  MemorizationReport: REPORT_SCHEMA,
};
