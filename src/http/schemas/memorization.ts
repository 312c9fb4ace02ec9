/**
 * JSON Schemas of the memorization routes (`/api/v1/memorization/…`). Requests carry the target
 * model as `{ base_url, api_key?, model, api?, top_logprobs? }` (an OpenAI-compatible service);
 * the option bounds are the engine's, written once (src/services/memorization/limits.ts), tightened where a request
 * fans out into calls to the model service (`SERVER_CAPS`: `prefixes`, `max_tokens`, `concurrency`), so one API call
 * cannot turn the server into a request cannon. Responses are the engine's
 * results (src/services/memorization/types.ts) field for field.
 */
import type { JsonSchema } from '../context.js';
import {
  assessmentId,
  bool,
  codes,
  dateTime,
  int0,
  nullable,
  num,
  num01,
  object,
  ok,
  pair,
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
import { MODEL_SPEC_SCHEMA, REFERENCE_SET_ID, REQUESTS } from '../../library.js';
import { HTML_SCHEMA } from './service.js';

const access = { enum: ['logprobs', 'top_k', 'generations_only'] } as const;
const basis = { enum: ['randomized_split', 'post_cutoff', 'unverified'] } as const;
/** The close of an extraction's and a probe's result: what bore on it and limits it (codes), and its method. */
const RESULT_NOTES = { factors: codes, limitations: codes, method: str } as const;

// ------------------------------------------------------------------ register-work, reference sets

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

const REFERENCE_SET_PROPS = {
  id: REFERENCE_SET_ID,
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
  TrackWorkRequest: REQUESTS.trackWork.served,
  TrackedWorkResponse: TRACKED_WORK_RESPONSE_SCHEMA,
  ReferenceSetRequest: REQUESTS.referenceSet.served,
  ReferenceSet: REFERENCE_SET_SCHEMA,
  ReferenceSetResponse: REFERENCE_SET_RESPONSE_SCHEMA,
  ReferenceSetList: REFERENCE_SET_LIST_SCHEMA,
  ExtractRequest: REQUESTS.extract.served,
  ExtractionResult: EXTRACTION_RESULT_SCHEMA,
  ExtractionResponse: EXTRACTION_RESPONSE_SCHEMA,
  ProbeRequest: REQUESTS.probe.served,
  ProbeResult: PROBE_RESULT_SCHEMA,
  ProbeResponse: PROBE_RESPONSE_SCHEMA,
  CompareOutputRequest: REQUESTS.compareOutput.served,
  CompareOutputResponse: COMPARE_OUTPUT_RESPONSE_SCHEMA,
  AssessRequest: REQUESTS.assess.served,
  AssessmentResponse: ASSESSMENT_RESPONSE_SCHEMA,
  ReportRequest: REQUESTS.report.served,
  MemorizationReport: REPORT_SCHEMA,
};
