/**
 * The request schemas of the memorization service that are also job items (src/services/jobs/types/extract.ts,
 * audit.ts): the target model an OpenAI-compatible service names, with the production endpoint's options for a job's
 * model, and the items of the `extract` and `audit` jobs. The HTTP API serves them (src/http/schemas/memorization.ts
 * builds the other memorization requests on {@link MODEL_SPEC_SCHEMA}).
 */
import { TrainprintError } from '../../errors.js';
import { isIsoDate } from '../../util/validate.js';
import {
  int0,
  intIn,
  type JsonSchema,
  jurisdiction,
  modelId,
  object,
  prefixedId,
  workId,
} from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField, notBlank } from '../../util/schema-check.js';
import type { CatalogueAuditRequest } from './audit.js';
import type { ExtractWorkRequest } from './extract-work.js';
import type {
  AssessRequest,
  CompareOutputRequest,
  ExtractRequest,
  ProbeRequest,
  ReferenceSetRequest,
  TrackWorkRequest,
} from './types.js';
import { MAX_CANARIES, MAX_REFERENCE_CHARS } from './constants.js';
import { REGISTER_WORK_REQUEST } from '../registry/schema.js';
import { limitSchema, servedProps } from './limits.js';
import { sectionsWithin } from './sections.js';
import { knownJurisdiction } from '../kb/jurisdictions.js';

/**
 * The target model: an OpenAI-compatible service the server calls. The server's model-host
 * policy decides which URLs it calls (internal addresses are refused by default).
 */
const MODEL_SPEC_PROPS = {
  base_url: { type: 'string', minLength: 8, maxLength: 2000, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' },
  api_key: { type: 'string', minLength: 1, maxLength: 1000, pattern: '^[\\x21-\\x7e]+$' },
  model: { type: 'string', minLength: 1, maxLength: 200 },
  api: { enum: ['completions', 'chat'] },
  top_logprobs: intIn(0, 20),
} as const;
/** The target model of a memorization request. */
export const MODEL_SPEC_SCHEMA = object(MODEL_SPEC_PROPS, ['api_key', 'api', 'top_logprobs']);

/** The options of a production endpoint a job's model may carry besides {@link MODEL_SPEC_SCHEMA}'s. */
const ENDPOINT_OPTION_PROPS = {
  temperature: { type: 'number', minimum: 0, maximum: 2 },
  max_tokens_param: { enum: ['max_tokens', 'max_completion_tokens'] },
  seed: intIn(-(2 ** 31), 2 ** 31 - 1),
  timeout_ms: intIn(1000, 3_600_000),
  requests_per_minute: intIn(1, 1e9),
  tokens_per_minute: intIn(1, 1e9),
} as const;

/**
 * The model of a job item (`extract`, `audit`): {@link MODEL_SPEC_SCHEMA} with the production endpoint's options
 * (temperature, the output-token limit's name, seed, per-call timeout, requests and tokens a minute), all optional.
 */
export const JOB_MODEL_SPEC_SCHEMA = object({ ...MODEL_SPEC_PROPS, ...ENDPOINT_OPTION_PROPS }, [
  'api_key',
  'api',
  'top_logprobs',
  ...Object.keys(ENDPOINT_OPTION_PROPS),
]);

/** A work by its registered id or by its text (exactly one: each request's rule). */
const WORK = { work_id: workId, text: { type: 'string', minLength: 1 } } as const;

/** The members of {@link EXTRACT_WORK_REQUEST_SCHEMA}, with the library's bounds. */
const EXTRACT_WORK_PROPS = {
  ...WORK,
  sections: {
    type: 'array',
    maxItems: 10_000,
    items: object({ start: int0, end: int0, title: { type: 'string', maxLength: 500 } }, ['title']),
  },
  budget_calls: limitSchema('extractWork', 'budget_calls'),
  probes: limitSchema('extractWork', 'probes'),
  prefix_words: limitSchema('extractWork', 'prefix_words'),
  max_tokens: limitSchema('extractWork', 'max_tokens'),
  concurrency: limitSchema('extractWork', 'concurrency'),
  prompt_variants: intIn(1, 3),
  prices: object(
    {
      prompt_per_million: { type: 'number', minimum: 0, maximum: 1e6 },
      completion_per_million: { type: 'number', minimum: 0, maximum: 1e6 },
      currency: { type: 'string', minLength: 1, maxLength: 16 },
    },
    ['currency'],
  ),
} as const;

/**
 * The whole-work extraction's request as the library reads it (`extractWork`): its JSON members, every one optional
 * (the model, journal and signals are given as objects).
 */
export const EXTRACT_WORK_REQUEST_SCHEMA = object(EXTRACT_WORK_PROPS, Object.keys(EXTRACT_WORK_PROPS));

const { work_id: EXTRACT_ID, text: EXTRACT_TEXT, ...EXTRACT_SERVED } = servedProps(EXTRACT_WORK_PROPS);
/**
 * An item of an `extract` job (`POST /api/v1/jobs`): {@link EXTRACT_WORK_REQUEST_SCHEMA} as a server serves it
 * (tightened by `SERVER_CAPS`), with its model named; every member but `model` optional.
 */
export const EXTRACT_WORK_ITEM_SCHEMA = object(
  { work_id: EXTRACT_ID, text: EXTRACT_TEXT, model: JOB_MODEL_SPEC_SCHEMA, ...EXTRACT_SERVED },
  Object.keys(EXTRACT_WORK_PROPS),
);

/** The JSON members of a whole-work extraction's request ({@link EXTRACT_WORK_REQUEST_SCHEMA}). */
export type ExtractWorkRequestJson = Omit<ExtractWorkRequest, 'model' | 'journal' | 'signal' | 'stop'>;

/**
 * The whole-work extraction's request, written once: read through it by `extractWork` (and so by an `extract` job's
 * preparation), served as the job's item. Its rules: exactly one of `work_id` and `text`, a text of more than white
 * space.
 * @example readThrough(EXTRACT_WORK_REQUEST, { text, budget_calls: 500 }, undefined)
 */
export const EXTRACT_WORK_REQUEST = contract<ExtractWorkRequestJson>(
  'extractWork',
  EXTRACT_WORK_REQUEST_SCHEMA,
  (request) => {
    exactlyOne(request, ['work_id', 'text']);
    notBlank(request.text, 'text');
  },
  EXTRACT_WORK_ITEM_SCHEMA,
);

/** The members of {@link AUDIT_REQUEST_SCHEMA}, with the library's bounds. */
const AUDIT_PROPS = {
  works: {
    type: 'array',
    minItems: 1,
    maxItems: 100_000,
    items: object(
      {
        id: { type: 'string', minLength: 1, maxLength: 1024 },
        text: { type: 'string' },
        sections: EXTRACT_WORK_PROPS.sections,
      },
      ['sections'],
    ),
  },
  budget_calls: limitSchema('audit', 'budget_calls'),
  first_probes: limitSchema('audit', 'first_probes'),
  level: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
  prefix_words: limitSchema('extractWork', 'prefix_words'),
  max_tokens: limitSchema('extractWork', 'max_tokens'),
  concurrency: limitSchema('extractWork', 'concurrency'),
  prompt_variants: EXTRACT_WORK_PROPS.prompt_variants,
} as const;
const AUDIT_OPTIONS = Object.keys(AUDIT_PROPS).filter((k) => k !== 'works');

/**
 * The catalogue audit's request as the library reads it (`auditCatalogue`): its JSON members — the model, journal and
 * signals are given as objects, not described here.
 */
export const AUDIT_REQUEST_SCHEMA = object(AUDIT_PROPS, AUDIT_OPTIONS);

const { works: AUDIT_WORKS, ...AUDIT_SERVED } = servedProps(AUDIT_PROPS);
/**
 * An item of an `audit` job (`POST /api/v1/jobs`): {@link AUDIT_REQUEST_SCHEMA} as a server serves it (tightened by
 * `SERVER_CAPS`), with its model named ({@link JOB_MODEL_SPEC_SCHEMA}); every option but `works` and `model` optional.
 */
export const AUDIT_ITEM_SCHEMA = object(
  { works: AUDIT_WORKS, model: JOB_MODEL_SPEC_SCHEMA, ...AUDIT_SERVED },
  AUDIT_OPTIONS,
);

/** What an audit's rules read besides the request: a job's plan, whose `jobItems` bound a catalogue. */
export interface AuditContext {
  readonly plan?: string;
  readonly jobItems?: number;
}

/**
 * What the audit's schema cannot say: a catalogue within a job's plan (at most `jobItems` works, a work being what an
 * item of another type is), its ids distinct, each work's sections within its text.
 * @throws PAYLOAD_TOO_LARGE past the plan; INVALID_INPUT naming the repeated id
 * @example auditRules({ works: [{ id: 'a', text }, { id: 'a', text }] }, {}) // INVALID_INPUT: works[1].id: "a" is repeated
 */
export function auditRules(request: AuditRequestJson, context: AuditContext): void {
  const { works } = request;
  if (context.jobItems !== undefined && works.length > context.jobItems)
    throw new TrainprintError(
      'PAYLOAD_TOO_LARGE',
      `an audit on plan "${context.plan}" holds at most ${context.jobItems} works (jobItems); this one has ${works.length}`,
    );
  const seen = new Set<string>();
  for (const [j, w] of works.entries()) {
    if (seen.has(w.id)) invalidField(`works[${j}].id`, `${JSON.stringify(w.id)} is repeated`);
    seen.add(w.id);
    if (w.sections !== undefined) sectionsWithin(w.sections, w.text.length, `works[${j}].sections`);
  }
}

/** The JSON members of an audit's request ({@link AUDIT_REQUEST_SCHEMA}). */
export type AuditRequestJson = Omit<CatalogueAuditRequest, 'model' | 'journal' | 'signal' | 'stop' | 'plan_key'>;

/**
 * The audit's request, written once: read through it by `auditCatalogue` (and so by a job's preparation, which runs
 * the audit's checks before the charge), served as the `audit` job's item.
 * @example readThrough(AUDIT_REQUEST, { works }, { jobItems: 100, plan: 'free' })
 */
export const AUDIT_REQUEST = contract('audit', AUDIT_REQUEST_SCHEMA, auditRules, AUDIT_ITEM_SCHEMA);

/** The members of {@link COMPARE_OUTPUT_REQUEST}'s schema. */
const COMPARE_OUTPUT_PROPS = {
  output: { type: 'string', minLength: 1 },
  work_ids: { type: 'array', minItems: 1, maxItems: 1000, items: workId },
  min_tokens: intIn(4, 10_000),
  limit: intIn(1, 100_000),
} as const;

/**
 * A model output compared with the registered works (`compare`, `POST /api/v1/memorization/compare`), written once.
 * Its rule: an output of more than white space.
 * @example readThrough(COMPARE_OUTPUT_REQUEST, { output: ' ' }, undefined) // INVALID_INPUT: output: is blank
 */
export const COMPARE_OUTPUT_REQUEST = contract<CompareOutputRequest>(
  'compareOutput',
  object(COMPARE_OUTPUT_PROPS, ['work_ids', 'min_tokens', 'limit']),
  (request) => notBlank(request.output, 'output'),
);

/** Texts of documents (a reference set's, a probe's): one document each. */
export const TEXTS_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: 100_000,
  items: { type: 'string', minLength: 1 },
} as const;

/**
 * What a schema cannot say of texts: each more than white space, all within {@link MAX_REFERENCE_CHARS}.
 * @throws INVALID_INPUT naming the blank text; PAYLOAD_TOO_LARGE past the total
 * @example textsRule(['a', ' '], 'texts') // INVALID_INPUT: texts[1]: is blank
 */
export function textsRule(texts: readonly string[], field: string): void {
  let total = 0;
  for (const [i, t] of texts.entries()) {
    notBlank(t, `${field}[${i}]`);
    total += t.length;
  }
  if (total > MAX_REFERENCE_CHARS)
    throw new TrainprintError('PAYLOAD_TOO_LARGE', `${field} hold more than ${MAX_REFERENCE_CHARS} characters`);
}

const REFERENCE_SET_PROPS = {
  id: { type: 'string', minLength: 1, maxLength: 200 },
  texts: TEXTS_SCHEMA,
  basis: { enum: ['randomized_split', 'post_cutoff', 'unverified'] },
  description: { type: 'string', minLength: 1, maxLength: 2000 },
  published_after: { type: 'string', minLength: 1, maxLength: 64 },
} as const;
const REFERENCE_SET_OPTIONAL = ['description', 'published_after'];

/**
 * A reference set id as the HTTP API takes it: the account's own name for the set, which the route stores as
 * `<account>/<id>` (the library's id, at most 200 characters, holds both).
 */
export const REFERENCE_SET_ID = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' } as const;

/**
 * A non-member reference set (`addReferenceSet`, `POST /api/v1/memorization/reference-sets`), written once. Served with
 * the account's id ({@link REFERENCE_SET_ID}). Its rules: texts each more than white space, within
 * {@link MAX_REFERENCE_CHARS} in all; `published_after` an ISO 8601 date.
 * @example readThrough(REFERENCE_SET_REQUEST, { id: 'novels', texts, basis: 'post_cutoff', published_after: '2024-05-01' }, undefined)
 */
export const REFERENCE_SET_REQUEST = contract<ReferenceSetRequest>(
  'referenceSet',
  object(REFERENCE_SET_PROPS, REFERENCE_SET_OPTIONAL),
  (request) => {
    textsRule(request.texts, 'texts');
    const after = request.published_after;
    if (after !== undefined && !isIsoDate(after))
      invalidField('published_after', 'must be an ISO 8601 date such as "2024-05-01"');
  },
  object({ ...REFERENCE_SET_PROPS, id: REFERENCE_SET_ID }, REFERENCE_SET_OPTIONAL),
);

/** A probe's `reference` as the library reads it: a stored reference set by its id, or texts (basis `unverified`). */
const probeReference = (setId: JsonSchema) => ({
  oneOf: [object({ reference_set: setId }), object({ texts: TEXTS_SCHEMA })],
});

/** The probe's options (also an assessment's `probe`), with the library's bounds. */
const PROBE_OPTION_PROPS = {
  reference: probeReference(REFERENCE_SET_PROPS.id),
  chunk_tokens: limitSchema('probe', 'chunk_tokens'),
  min_chunks: limitSchema('probe', 'min_chunks'),
  min_reference_documents: limitSchema('probe', 'min_reference_documents'),
  k: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
  alpha: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
  concurrency: limitSchema('probe', 'concurrency'),
} as const;
const PROBE_OPTIONS = Object.keys(PROBE_OPTION_PROPS).filter((k) => k !== 'reference');
const PROBE_WORK_PROPS = { ...WORK, texts: TEXTS_SCHEMA } as const;
const PROBE_OPTIONAL = ['work_id', 'text', 'texts', ...PROBE_OPTIONS, 'reference_model'];
/** The probe's options as the HTTP API serves them: tightened by `SERVER_CAPS`, the reference set the account's. */
const PROBE_SERVED = { ...servedProps(PROBE_OPTION_PROPS), reference: probeReference(REFERENCE_SET_ID) };

/**
 * The probe's request, written once: `probe` (and an assessment's `probe`, its options) reads it through this, and
 * `POST /api/v1/memorization/probe` serves it with the model named ({@link MODEL_SPEC_SCHEMA}) and the reference set
 * the account's ({@link REFERENCE_SET_ID}). Its rules: exactly one of `work_id`, `text` and `texts`, each text more
 * than white space, the texts within {@link MAX_REFERENCE_CHARS}.
 * @example readThrough(PROBE_REQUEST, { text, reference: { reference_set: 'post-2024-novels' } }, undefined)
 */
export const PROBE_REQUEST = contract<ProbeRequestJson>(
  'probe',
  object({ ...PROBE_WORK_PROPS, ...PROBE_OPTION_PROPS }, PROBE_OPTIONAL),
  (request) => {
    exactlyOne(request, ['work_id', 'text', 'texts']);
    notBlank(request.text, 'text');
    if ('texts' in request && request.texts) textsRule(request.texts, 'texts');
    const { reference } = request;
    if ('texts' in reference) textsRule(reference.texts, 'reference.texts');
  },
  object(
    {
      ...PROBE_WORK_PROPS,
      model: MODEL_SPEC_SCHEMA,
      ...PROBE_SERVED,
      reference_model: MODEL_SPEC_SCHEMA, // as the HTTP API takes it (the library takes the model itself)
    },
    PROBE_OPTIONAL,
  ),
);

/** The JSON members of a probe's request ({@link PROBE_REQUEST}): the models are objects the schema does not describe. */
export type ProbeRequestJson = DistributiveOmit<ProbeRequest, 'model' | 'reference_model'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The probe extraction's options (`extract`, an assessment's `extract`), with the library's bounds. */
const EXTRACT_OPTION_PROPS = {
  prefix_tokens: limitSchema('extract', 'prefix_tokens'),
  continuation_tokens: limitSchema('extract', 'continuation_tokens'),
  prefixes: limitSchema('extract', 'prefixes'),
  max_tokens: limitSchema('extract', 'max_tokens'),
  concurrency: limitSchema('extract', 'concurrency'),
} as const;
const EXTRACT_OPTIONS = Object.keys(EXTRACT_OPTION_PROPS);

/** An assessment's members but its model and its two settings, the same at every door. */
const ASSESS_PROPS = {
  work_id: workId,
  kb_model: modelId,
  jurisdiction,
  traps: { type: 'boolean' },
  trap_alpha: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
} as const;

/** An assessment's `extract` and `probe` settings: `false`, or the operation's options. */
const assessSettings = (extract: JsonSchema, probe: JsonSchema) => ({
  extract: { oneOf: [{ const: false }, extract] },
  probe: { oneOf: [{ const: false }, probe] },
});
const ASSESS_OPTIONAL = ['kb_model', 'jurisdiction', 'extract', 'probe', 'traps', 'trap_alpha'];
const { work_id: ASSESS_WORK, ...ASSESS_REST } = ASSESS_PROPS;
const { extract: LIBRARY_EXTRACT, probe: LIBRARY_PROBE } = assessSettings(
  object(EXTRACT_OPTION_PROPS, EXTRACT_OPTIONS),
  object(PROBE_OPTION_PROPS, PROBE_OPTIONS),
);
const { extract: SERVED_EXTRACT, probe: SERVED_PROBE } = assessSettings(
  object(servedProps(EXTRACT_OPTION_PROPS), EXTRACT_OPTIONS),
  object({ ...PROBE_SERVED, reference_model: MODEL_SPEC_SCHEMA }, [...PROBE_OPTIONS, 'reference_model']),
);

/**
 * An assessment's request, written once: `assess` reads it through this (its probe's reference model, an object, kept
 * as given), `POST /api/v1/memorization/assess` serves it with the model named and its settings as the probe's and
 * the extraction's routes serve theirs. Its rules: a jurisdiction the risk table knows; a probe's reference texts each
 * more than white space, within {@link MAX_REFERENCE_CHARS}.
 * @example readThrough(ASSESS_REQUEST, { work_id, probe: { reference: { reference_set: 'post-2024-novels' } } }, undefined)
 */
export const ASSESS_REQUEST = contract<AssessRequestJson>(
  'assess',
  object({ work_id: ASSESS_WORK, ...ASSESS_REST, extract: LIBRARY_EXTRACT, probe: LIBRARY_PROBE }, ASSESS_OPTIONAL),
  ({ jurisdiction, probe }) => {
    knownJurisdiction(jurisdiction, 'jurisdiction');
    if (probe && 'texts' in probe.reference) textsRule(probe.reference.texts, 'probe.reference.texts');
  },
  object(
    {
      work_id: ASSESS_WORK,
      model: MODEL_SPEC_SCHEMA,
      kb_model: ASSESS_PROPS.kb_model,
      jurisdiction,
      extract: SERVED_EXTRACT,
      probe: SERVED_PROBE,
      traps: ASSESS_PROPS.traps,
      trap_alpha: ASSESS_PROPS.trap_alpha,
    },
    ASSESS_OPTIONAL,
  ),
);

/** The JSON members of an assessment's request ({@link ASSESS_REQUEST}): its models are objects. */
export type AssessRequestJson = Omit<AssessRequest, 'model' | 'probe'> & {
  readonly probe?: Omit<Exclude<AssessRequest['probe'], undefined | false>, 'reference_model'> | false;
};

/**
 * The probe extraction's request (`extract`, `POST /api/v1/memorization/extract`), written once; served with its
 * model named. Its rule: exactly one of `work_id` and `text`, a text of more than white space.
 * @example readThrough(EXTRACT_REQUEST, { text, prefixes: 16 }, undefined)
 */
export const EXTRACT_REQUEST = contract<DistributiveOmit<ExtractRequest, 'model'>>(
  'extract',
  object({ ...WORK, ...EXTRACT_OPTION_PROPS }, ['work_id', 'text', ...EXTRACT_OPTIONS]),
  (request) => {
    exactlyOne(request, ['work_id', 'text']);
    notBlank(request.text, 'text');
  },
  object({ ...WORK, model: MODEL_SPEC_SCHEMA, ...servedProps(EXTRACT_OPTION_PROPS) }, [
    'work_id',
    'text',
    ...EXTRACT_OPTIONS,
  ]),
);

/** An assessment's report as a page (`report`, `POST /api/v1/memorization/report`). */
export interface ReportRequest {
  /** The assessment (`ma_…`). */
  readonly assessment_id: string;
  /** Most extraction attempts shown with their spans. @default 8 */
  readonly max_spans?: number;
}

/**
 * The report's request, written once: `report` reads its options through it, `POST /api/v1/memorization/report`
 * serves it. No rule beyond its schema.
 * @example readThrough(REPORT_REQUEST, { assessment_id, max_spans: 2 }, undefined)
 */
export const REPORT_REQUEST = contract<ReportRequest>(
  'report',
  object({ assessment_id: prefixedId('ma', 32), max_spans: intIn(0, 100) }, ['max_spans']),
);

/** A tracked work's request around its `work`: the library's (any object) or a door's (the registration served). */
const trackWork = (work: JsonSchema) =>
  object(
    {
      work_id: workId,
      work,
      canaries: object({ count: intIn(1, MAX_CANARIES), words: intIn(8, 200), controls: intIn(1, 1000) }, [
        'words',
        'controls',
      ]),
    },
    ['work_id', 'work', 'canaries'],
  );

/**
 * Tracking a work for memorization (`registerWork` of the memorization service, `POST
 * /api/v1/memorization/register-work`), written once. Its `work` is a registration, read through the registry's own
 * contract when it is registered (a file's bytes included), and served as that contract serves it (the account is the
 * owner). Its rule: exactly one of `work_id` and `work`.
 * @example readThrough(TRACK_WORK_REQUEST, { work_id, canaries: { count: 10 } }, undefined)
 */
export const TRACK_WORK_REQUEST = contract<TrackWorkRequest>(
  'trackWork',
  trackWork({ type: 'object' }),
  (request) => exactlyOne(request, ['work_id', 'work']),
  trackWork(REGISTER_WORK_REQUEST.served),
);
