/**
 * JSON Schema (2020-12, the dialect of OpenAPI 3.1) of the `analyze` request and result. The
 * HTTP adapter serves it in its OpenAPI document; a test validates real results against it, and
 * checks that docs/analyze.md's field reference names every property.
 */
import { PASSAGE_KINDS } from '../../align/reuse.js';
import { DOCUMENT_SPAN_FIELDS } from '../../datasets/types.js';
import { contract, type FromSchema, invalidField, notBlank } from '../../util/schema-check.js';
import { isFileType } from './files.js';
import { MAX_COMPARE_LENGTH } from '../../align/compare.js';
import { declarations, object, workType } from '../../util/json-schema.js';
import type { ContentType } from '../../text/index.js';
import type { FingerprintOptions } from '../../fingerprint/options.js';

const num01 = { type: 'number', minimum: 0, maximum: 1 } as const;
const ci01 = { type: 'array', items: num01, minItems: 2, maxItems: 2 } as const;
const num100 = { type: 'number', minimum: 0, maximum: 100 } as const;
const ci100 = { type: 'array', items: num100, minItems: 2, maxItems: 2 } as const;
const offset = { type: 'integer', minimum: 0 } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;
const code = { type: 'string', pattern: '^[a-z][a-z0-9_]*$' } as const;

/** What the matches of passages that were aligned or reported with their reuse carry (see `ExactMatch`). */
const REUSE_FIELDS = {
  reuse: {
    enum: [...PASSAGE_KINDS],
  },
  similarity: num01,
  aligned: { type: 'boolean' },
} as const;

/** What a portrait match that names its document adds (src/datasets/locator.ts). */
const PORTRAIT_DOCUMENT = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    author: { type: 'string' },
    ebook: { type: 'integer', minimum: 0 },
    url: { type: 'string' },
  },
} as const;
const WORD_RANGE = { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 2, maxItems: 2 } as const;
const PORTRAIT_DOCUMENT_FIELDS = {
  document: PORTRAIT_DOCUMENT,
  source_words: {
    ...WORD_RANGE,
  },
  also_in: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['document_id', 'document', 'source_words', 'shared'],
      properties: {
        document_id: { type: 'string' },
        document: PORTRAIT_DOCUMENT,
        source_words: WORD_RANGE,
        shared: { type: 'number', minimum: 0, maximum: 1 },
      },
    },
  },
  article: {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'key', 'words'],
    properties: { title: { type: 'string' }, url: { type: 'string' }, key: { type: 'string' }, words: WORD_RANGE },
  },
  agreeing: { type: 'integer', minimum: 0 },
  fingerprints: { type: 'integer', minimum: 0 },
  common_hits: { type: 'integer', minimum: 1 },
  held_by: { type: 'integer', minimum: 2, maximum: 255 },
} as const;

/** What a match of text the work quotes carries (src/services/analyze/quotations.ts). */
const QUOTATION_FIELDS = {
  role: {
    const: 'quotation',
  },
  quotation: {
    type: 'object',
    additionalProperties: false,
    required: ['by'],
    properties: {
      by: {
        type: 'array',
        minItems: 1,
        items: {
          enum: [
            'attribution',
            'block_quote',
            'indented_block',
            'other_language',
            'quotation_marks',
            'widely_reproduced',
          ],
        },
      },
      attributed_to: { type: 'string' },
      share: { type: 'number', minimum: 0, maximum: 1 },
      counts: { const: true },
    },
  },
} as const;

/** What every match has: where it is in the query and the source, its kind, tokens and score. */
const MATCH_REQUIRED = [...DOCUMENT_SPAN_FIELDS, 'kind', 'tokens', 'score'] as const;

/**
 * A match of `kind`: document matches carry the document and source span, portraits null; exact and evidence-source
 * matches their reuse, exact ones the documents sharing them.
 */
const matchOf = (kind: 'exact' | 'near' | 'portrait' | 'source') => {
  // a portrait that locates (the reference packs) names its document; one without a locator gives null
  const doc = kind === 'portrait' ? ({ type: ['string', 'null'] } as const) : ({ type: 'string' } as const);
  const src = kind === 'portrait' ? ({ type: 'null' } as const) : offset;
  const reused = kind === 'exact' || kind === 'source';
  return {
    type: 'object',
    additionalProperties: false,
    required: [...MATCH_REQUIRED, ...(reused ? (['reuse', 'similarity', 'aligned'] as const) : [])],
    properties: {
      dataset_id: { type: 'string' },
      document_id: doc,
      query_start: offset,
      query_end: offset,
      source_start: src,
      source_end: src,
      kind: { const: kind },
      tokens: { type: 'integer', minimum: 0 },
      score: num01,
      ...(kind === 'exact' ? { shared_documents: { type: 'integer', minimum: 1 } } : {}),
      ...(reused ? REUSE_FIELDS : {}),
      ...(kind === 'portrait' ? PORTRAIT_DOCUMENT_FIELDS : {}),
      ...QUOTATION_FIELDS,
    },
  } as const;
};

const EXACT_MATCH = matchOf('exact');

/**
 * A match in a remote corpus (see `RemoteMatch`): an exact match's fields (the document as the engine names it, spans
 * in its returned window) and the engine's own.
 */
const REMOTE_MATCH = {
  ...EXACT_MATCH,
  required: [
    ...EXACT_MATCH.required,
    'doc_ix',
    'shard',
    'doc_length',
    'source_text',
    'count_start',
    'count_end',
    'count',
    'boilerplate',
    'metadata',
  ],
  properties: {
    ...EXACT_MATCH.properties,
    document_id: { type: 'string' },
    source_start: offset,
    kind: { const: 'remote' },
    doc_ix: { type: 'integer', minimum: 0 },
    shard: { type: 'integer', minimum: 0 },
    doc_length: { type: 'integer', minimum: 0 },
    source_text: { type: 'string' },
    count_start: offset,
    count_end: offset,
    count: { type: 'number', minimum: 0 },
    boilerplate: { type: 'boolean' },
    metadata: { type: ['object', 'null'] },
  },
} as const;

const rate = {
  type: 'object',
  additionalProperties: false,
  required: ['hits', 'trials'],
  properties: { hits: { type: 'integer', minimum: 0 }, trials: { type: 'integer', minimum: 0 } },
} as const;

/** A long work searched by sampling its passages (`RemoteSampling`, docs/works.md). */
const SAMPLING_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: [
    'method',
    'passages',
    'passage_words',
    'found',
    'share',
    'sensitivity',
    'sensitivity_worst',
    'false_found',
    'seed',
    'skipped',
    'sections',
  ],
  properties: {
    method: { const: 'stratified_passages' },
    passages: { type: 'integer', minimum: 0 },
    passage_words: { type: 'integer', minimum: 1 },
    found: { type: 'integer', minimum: 0 },
    share: {
      type: 'object',
      additionalProperties: false,
      required: ['estimate', 'ci_95'],
      properties: {
        estimate: { type: 'number', minimum: 0, maximum: 1 },
        ci_95: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 }, minItems: 2, maxItems: 2 },
        ci_rule: { const: 'joint' },
      },
    },
    sensitivity: rate,
    sensitivity_worst: rate,
    false_found: rate,
    documents: {
      type: 'object',
      additionalProperties: false,
      required: ['fetched', 'verified', 'contradicted'],
      properties: {
        fetched: { type: 'integer', minimum: 0 },
        verified: { type: 'integer', minimum: 0 },
        contradicted: { type: 'integer', minimum: 0 },
        refuted: { type: 'integer', minimum: 0 },
        unchecked: { type: 'integer', minimum: 0 },
      },
    },
    detection: rate,
    seed: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    skipped: { type: 'integer', minimum: 0 },
    sections: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['section', 'passages', 'found'],
        properties: {
          section: { type: 'integer', minimum: 0 },
          passages: { type: 'integer', minimum: 0 },
          found: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
} as const;

/** What one remote corpus did in a search (`RemoteCorpusReport`). */
export const REMOTE_REPORT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: [
    'dataset_id',
    'engine',
    'endpoint',
    'index',
    'outcome',
    'message',
    'calls',
    'cached',
    'budget',
    'ms',
    'samples',
    'sampled_every',
    'unit',
    'documents',
    'matches',
    'transcript',
  ],
  properties: {
    dataset_id: { type: 'string' },
    engine: { enum: ['infini-gram', 'infini-gram-mini'] },
    endpoint: { type: 'string' },
    index: { type: 'string' },
    outcome: {
      enum: [
        'searched',
        'unreachable',
        'rate_limited',
        'budget_exhausted',
        'deadline_reached',
        'rejected',
        'invalid_response',
        'cancelled',
      ],
    },
    message: { type: ['string', 'null'] },
    calls: { type: 'integer', minimum: 0 },
    cached: { type: 'integer', minimum: 0 },
    budget: { type: 'integer', minimum: 0 },
    ms: { type: 'number', minimum: 0 },
    samples: { type: 'integer', minimum: 0 },
    sampled_every: { type: 'integer', minimum: 0 },
    unit: { enum: ['tokens', 'words'] },
    documents: { type: 'integer', minimum: 0 },
    matches: { type: 'integer', minimum: 0 },
    transcript: {
      type: 'object',
      additionalProperties: false,
      required: ['calls', 'sha256'],
      properties: { calls: { type: 'integer', minimum: 0 }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
    },
    sampling: SAMPLING_SCHEMA,
  },
} as const;

/** Who supplied a dataset (`DatasetSupplier`). */
export const SUPPLIED_BY = { enum: ['shipped', 'operator', 'account'] } as const;

/** Schema of one search match (exact, near, portrait, remote or an evidence source's). */
export const MATCH_SCHEMA = {
  oneOf: [EXACT_MATCH, matchOf('near'), matchOf('portrait'), REMOTE_MATCH, matchOf('source')],
} as const;

const span = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'end'],
  properties: { start: offset, end: offset },
} as const;

/** How a file's text was extracted (see `AnalysisExtraction`). */
const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'bytes', 'characters', 'words', 'sections'],
  properties: {
    format: { enum: ['epub', 'pdf', 'docx'] },
    bytes: { type: 'integer', minimum: 0 },
    characters: { type: 'integer', minimum: 0 },
    words: { type: 'integer', minimum: 0 },
    sections: {
      type: 'array',
      items: {
        ...span,
        required: ['title', 'start', 'end'],
        properties: { title: { type: 'string' }, ...span.properties },
      },
    },
    pages: {
      type: 'array',
      items: {
        ...span,
        required: ['number', 'start', 'end'],
        properties: { number: { type: 'integer', minimum: 1 }, ...span.properties },
      },
    },
    text: { type: 'string' },
  },
} as const;

/** Per section of a file's extracted text: its words and each searched dataset's coverage (see `SectionCoverage`). */
const SECTIONS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'start', 'end', 'words', 'coverage'],
    properties: {
      title: { type: 'string' },
      ...span.properties,
      words: { type: 'integer', minimum: 0 },
      coverage: { type: 'object', additionalProperties: num01 },
    },
  },
} as const;

/** Schema of the `analyze` request. */
export const ANALYZE_REQUEST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://trainprint.dev/schema/analyze-request.json',
  type: 'object',
  additionalProperties: false,
  required: ['content', 'content_type'],
  properties: {
    content: { type: 'string', minLength: 1 },
    content_type: { enum: ['text', 'markdown', 'html', 'epub', 'pdf', 'docx'] },
    content_encoding: { enum: ['base64'] },
    include_text: { type: 'boolean' },
    quotations: { enum: ['exclude', 'count'] },
    search_remote: { type: 'boolean' },
    metadata: {
      type: 'object',
      additionalProperties: false,
      properties: {
        // the bounds of registerWork's title and author, since the result offers them for registration
        title: { type: 'string', minLength: 1, maxLength: 1000 },
        author: { type: 'string', minLength: 1, maxLength: 1000 },
        work_type: workType,
        jurisdiction: { type: 'string', pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$' },
        declarations,
      },
    },
  },
} as const;

/** Schema of the `analyze` result. */
export const ANALYSIS_RESULT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://trainprint.dev/schema/analysis-result.json',
  type: 'object',
  additionalProperties: false,
  required: [
    'success',
    'analysis_id',
    'fingerprint',
    'confidence',
    'confidence_ci_95',
    'potential_matches',
    'corpus_evidence',
    'estimated_revenue',
    'attribution_sources',
    'risk_assessment',
    'next_steps',
    'content_type',
    'work_hash',
    'tokens',
    'matches',
    'coverage',
    'evidence',
    'limitations',
    'remote_corpora',
    'created_at',
  ],
  properties: {
    success: { const: true },
    analysis_id: { type: 'string', pattern: '^an_[0-9a-f]{32}$' },
    fingerprint: { type: 'string', minLength: 1 },
    confidence: num100,
    confidence_ci_95: ci100,
    potential_matches: { type: 'integer', minimum: 0 },
    corpus_evidence: {
      type: 'object',
      additionalProperties: false,
      required: ['strongest', 'linked_to_models', 'summary'],
      properties: {
        strongest: {
          oneOf: [
            { type: 'null' },
            {
              type: 'object',
              additionalProperties: false,
              required: ['dataset_id', 'kind', 'kb_dataset', 'chance', 'strength', 'confidence', 'level'],
              properties: {
                dataset_id: { type: 'string' },
                kind: { enum: ['exact', 'portrait', 'remote', 'source'] },
                kb_dataset: { type: ['string', 'null'] },
                chance: num01,
                strength: { type: 'number', minimum: 0 },
                confidence: num01,
                level: { enum: ['weak', 'strong'] },
              },
            },
          ],
        },
        linked_to_models: { type: 'boolean' },
        summary: { type: 'string' },
      },
    },
    estimated_revenue: {
      type: 'object',
      additionalProperties: false,
      required: ['monthly', 'currency', 'basis'],
      properties: {
        monthly: { type: ['number', 'null'], minimum: 0 },
        currency: { const: 'USD' },
        basis: {
          type: 'object',
          additionalProperties: false,
          required: [
            'method',
            'work_type',
            'work_type_source',
            'deal_ids',
            'rate',
            'quantity',
            'unit',
            'term_months',
            'providers',
            'low',
            'mid',
            'high',
          ],
          properties: {
            method: { enum: ['per_title_36m', 'per_word_amortised', 'none'] },
            work_type: { enum: ['book', 'article', 'news', 'code', 'other'] },
            work_type_source: { enum: ['metadata', 'length', 'form'] },
            deal_ids: { type: 'array', items: { type: 'integer' } },
            rate: {
              oneOf: [
                { type: 'null' },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: ['low', 'mid', 'high', 'unit'],
                  properties: {
                    low: { type: 'number' },
                    mid: { type: 'number' },
                    high: { type: 'number' },
                    unit: { type: 'string' },
                  },
                },
              ],
            },
            quantity: { type: 'number', minimum: 0 },
            unit: { type: 'string' },
            term_months: { type: 'integer', minimum: 1 },
            providers: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['provider', 'p_used'],
                properties: {
                  provider: { type: 'string' },
                  p_used: { type: 'array', items: num01, minItems: 3, maxItems: 3 },
                },
              },
            },
            low: { type: ['number', 'null'], minimum: 0 },
            mid: { type: ['number', 'null'], minimum: 0 },
            high: { type: ['number', 'null'], minimum: 0 },
          },
        },
      },
    },
    attribution_sources: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'provider',
          'model',
          'confidence',
          'confidence_ci_95',
          'training_dataset',
          'kb_dataset',
          'dataset_id',
          'link',
          'supplied_by',
          'declared',
          'link_certainty',
          'link_reason',
          'disclosure',
          'citations',
        ],
        properties: {
          provider: { type: 'string' },
          model: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*$' },
          confidence: num100,
          confidence_ci_95: ci100,
          training_dataset: { type: 'string' },
          kb_dataset: { type: ['string', 'null'] },
          dataset_id: { type: 'string' },
          link: { enum: ['kb', 'declared'] },
          supplied_by: SUPPLIED_BY,
          declared: { type: 'boolean' },
          link_certainty: num01,
          link_reason: { type: 'string' },
          disclosure: { enum: ['full', 'partial', 'undisclosed', 'declared'] },
          citations: strings,
        },
      },
    },
    risk_assessment: {
      type: 'object',
      additionalProperties: false,
      required: ['level', 'factors', 'score', 'jurisdiction', 'base_weight', 'modifiers', 'attribution_scale'],
      properties: {
        level: { enum: ['none', 'low', 'medium', 'high', 'critical'] },
        factors: { type: 'array', items: code },
        score: num01,
        jurisdiction: { type: ['string', 'null'] },
        base_weight: num01,
        modifiers: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['code', 'delta'],
            properties: { code, delta: { type: 'number' } },
          },
        },
        attribution_scale: num01,
        public_domain: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'author', 'author_died', 'public_domain_from', 'rule'],
          properties: {
            status: { enum: ['public_domain', 'in_copyright', 'unknown'] },
            author: { type: ['string', 'null'] },
            author_died: { type: ['integer', 'null'] },
            public_domain_from: { type: ['integer', 'null'] },
            rule: { type: 'string' },
          },
        },
      },
    },
    next_steps: {
      type: 'object',
      additionalProperties: false,
      required: ['register_content', 'setup_monitoring'],
      properties: {
        register_content: { const: '/api/v1/content/register' },
        setup_monitoring: { const: '/api/v1/monitors/create' },
      },
    },
    register_prefill: {
      type: 'object',
      additionalProperties: false,
      properties: { title: { type: 'string' }, author: { type: 'string' } },
    },
    content_type: { enum: ['text', 'markdown', 'html', 'epub', 'pdf', 'docx'] },
    extraction: EXTRACTION_SCHEMA,
    sections: SECTIONS_SCHEMA,
    title: { type: 'string' },
    author: { type: 'string' },
    work_hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
    tokens: { type: 'integer', minimum: 0 },
    matches: { type: 'array', items: MATCH_SCHEMA },
    coverage: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['share', 'longest_run'],
        properties: {
          share: num01,
          longest_run: { type: 'integer', minimum: 0 },
          membership: {
            type: 'object',
            additionalProperties: false,
            required: ['tested', 'hits', 'expected', 'fpr', 'background_rate', 'p_value'],
            properties: {
              tested: { type: 'integer' },
              hits: { type: 'integer' },
              expected: { type: 'number' },
              fpr: num01,
              background_rate: num01,
              p_value: num01,
            },
          },
        },
      },
    },
    evidence: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'datasets', 'calibration', 'combination'],
      properties: {
        method: { type: 'string' },
        datasets: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: [
              'dataset_id',
              'kind',
              'supplied_by',
              'kb_dataset',
              'declared_models',
              'matches',
              'documents',
              'near_duplicates',
              'checkable',
              'counted',
              'coverage',
              'longest_run',
              'tested',
              'found',
              'background_rate',
              'runs',
              'chance',
              'strength',
              'confidence',
              'confidence_ci_95',
            ],
            properties: {
              dataset_id: { type: 'string' },
              kind: { enum: ['exact', 'portrait', 'remote', 'source'] },
              supplied_by: SUPPLIED_BY,
              kb_dataset: { type: ['string', 'null'] },
              declared_models: strings,
              matches: { type: 'integer', minimum: 0 },
              documents: { type: 'integer', minimum: 0 },
              near_duplicates: { type: 'integer', minimum: 0 },
              checkable: { type: 'integer', minimum: 0 },
              quoted: { type: 'integer', minimum: 0 },
              counted: { type: 'boolean' },
              coverage: num01,
              longest_run: { type: 'integer', minimum: 0 },
              tested: { type: 'integer', minimum: 0 },
              found: { type: 'integer', minimum: 0 },
              background_rate: num01,
              runs: { type: 'integer', minimum: 0 },
              chance: num01,
              strength: { type: 'number', minimum: 0, maximum: 300 },
              confidence: num01,
              confidence_ci_95: ci01,
              aligned: {
                type: 'object',
                additionalProperties: false,
                required: ['documents', 'query_pairs', 'passages', 'chance'],
                properties: {
                  documents: { type: 'integer', minimum: 0 },
                  query_pairs: { type: 'integer', minimum: 0 },
                  passages: {
                    type: 'array',
                    items: {
                      type: 'object',
                      additionalProperties: false,
                      required: ['pairs', 'shared', 'background_rate'],
                      properties: {
                        pairs: { type: 'integer', minimum: 0 },
                        shared: { type: 'integer', minimum: 0 },
                        background_rate: num01,
                      },
                    },
                  },
                  chance: num01,
                },
              },
            },
          },
        },
        calibration: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'prior'],
          properties: { id: { type: 'string' }, prior: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 } },
        },
        combination: { type: 'string' },
        quotations: { enum: ['exclude', 'count'] },
        quotation_rule: { type: 'integer', minimum: 1 },
        unanswered_corpora: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['dataset_id', 'model', 'link_certainty'],
            properties: {
              dataset_id: { type: 'string' },
              model: { type: ['string', 'null'] },
              link_certainty: { type: 'number', minimum: 0, maximum: 1 },
            },
          },
        },
      },
    },
    limitations: { type: 'array', items: code },
    remote_corpora: { type: 'array', items: REMOTE_REPORT_SCHEMA },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

/**
 * What a schema cannot say of content sent (an analysis's, a score's): `include_text` only with a file (epub, pdf,
 * docx), a text of more than white space.
 * @throws INVALID_INPUT naming the field
 * @example contentRules({ content: 'text', content_type: 'text', include_text: true }) // include_text: goes with …
 */
export function contentRules(r: {
  readonly content?: unknown;
  readonly content_type?: unknown;
  readonly include_text?: boolean;
}): void {
  if (isFileType(r.content_type)) return;
  if (r.include_text !== undefined) invalidField('include_text', 'goes with epub, pdf and docx');
  if (typeof r.content === 'string') notBlank(r.content, 'content');
}

/** The JSON members of an analysis's request ({@link ANALYZE_REQUEST_SCHEMA}). */
export type AnalyzeRequestJson = FromSchema<typeof ANALYZE_REQUEST_SCHEMA>;

/** `POST /api/v1/attribution/compare`: two texts to align. */
export interface CompareRequest {
  readonly a: string;
  readonly b: string;
}

const compareText = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength }) as const;
/**
 * Longest text the HTTP API aligns: a comparison runs within its request, so a server holds each text to 500,000
 * characters (the library, whose caller owns its process, to {@link MAX_COMPARE_LENGTH}).
 */
const SERVED_COMPARE_LENGTH = 500_000;

/**
 * The alignment of two texts (`engine.compare(a, b)`, `POST /api/v1/attribution/compare`), written once; served with
 * each text held to {@link SERVED_COMPARE_LENGTH}. No rule beyond its schema.
 * @example readThrough(COMPARE_REQUEST, { a: suspect, b: source }, undefined)
 */
export const COMPARE_REQUEST = contract<CompareRequest>(
  'compare',
  object({ a: compareText(MAX_COMPARE_LENGTH), b: compareText(MAX_COMPARE_LENGTH) }),
  undefined,
  object({ a: compareText(SERVED_COMPARE_LENGTH), b: compareText(SERVED_COMPARE_LENGTH) }),
);

/** `POST /api/v1/attribution/fingerprint`: content, how to read it, the fingerprint's options. */
export interface FingerprintRequest {
  readonly content: string;
  readonly content_type?: Exclude<ContentType, 'epub' | 'pdf' | 'docx'>;
  readonly options?: FingerprintOptions;
  readonly include_winnow?: boolean;
}

const FINGERPRINT_SCHEMA = object(
  {
    content: { type: 'string', minLength: 1 },
    content_type: { enum: ['text', 'markdown', 'html'] },
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
        simhash: { type: 'boolean' },
      },
      ['normalize', 'shingle', 'seed', 'winnow', 'minhash', 'simhash'],
    ),
    include_winnow: { type: 'boolean' },
  },
  ['content_type', 'options', 'include_winnow'],
);

/**
 * A fingerprint of content sent (`POST /api/v1/attribution/fingerprint`), written once. No rule beyond its schema: the
 * options' ranges are the fingerprint's own to check (INVALID_OPTIONS naming the member).
 * @example readThrough(FINGERPRINT_REQUEST, { content: 'text', options: { seed: 7 } }, undefined)
 */
export const FINGERPRINT_REQUEST = contract<FingerprintRequest>('fingerprint', FINGERPRINT_SCHEMA);
