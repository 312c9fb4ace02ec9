/**
 * Documentation of the attribution, works-registry and monitor operations (src/http/routes/attribution.ts, content.ts, monitors.ts):
 * descriptions, errors and worked examples (src/http/docs/index.ts says how they are used).
 */
import type { RouteDocs, RouteExample } from '../context.js';
import { type DatasetEvidence, EVIDENCE_METHOD, TRAINPRINT_VERSION } from '../../library.js';
import {
  ID,
  KB_MODEL,
  MIT_GRANT,
  PERSUASION_OPENING,
  PERSUASION_QUOTE,
  SCORE_EVIDENCE,
  WORK,
  WORK_HASH,
  WORK_TEXT,
  WORK_TITLE,
} from './example-kit.js';

const notOwnAnalysis = {
  code: 'NOT_FOUND',
  when: "the account has no analysis with this id (another account's is not found either)",
} as const;

const notOwnMonitor = { code: 'NOT_FOUND', when: 'the account has no monitor with this id' } as const;

const notOwnWork = {
  code: 'NOT_FOUND',
  when: "the account has no work with this id (another account's work is not found either)",
} as const;

/**
 * The monitor the examples create (createMonitor: the chapter against one model, with a webhook), as the service
 * answers with it: its state, its times and its last evaluation per model change from one example to the next.
 */
const monitorExample = (state: 'active' | 'paused', created_at: string, updated_at: string, last = {}) => ({
  monitor_id: ID.monitor,
  work_id: ID.work,
  work_hash: WORK_HASH,
  models: ['meta/llama-7b'],
  datasets: null,
  missing_datasets: [],
  webhook: { url: 'https://hooks.example.org/trainprint' },
  events: ['match.found', 'score.changed'],
  jurisdiction: 'GB',
  state,
  created_at,
  updated_at,
  last,
});

/** How the routes that take files take them, in their descriptions. */
const FILES_IN =
  'A file (`content_type` `epub`, `pdf`, `docx`) comes in JSON as base64 (`"content_encoding": "base64"`) or as a ' +
  '`multipart/form-data` upload: the file in the field `file`, the other members as form fields (`metadata` as ' +
  'JSON text, booleans as `true`/`false`; `content_type` told from the file name or type when left out); the ' +
  "same request either way gives the same answer. Files are held to the plan's `fileBytes` (Free 8 MiB, Pro 32 " +
  'MiB, Scale and Enterprise 64 MiB; docs/http.md#files).';

/** The errors of a request that carries a file. */
const FILE_ERRORS = [
  { code: 'MALFORMED_JSON', when: 'a JSON body that is not JSON' },
  { code: 'MALFORMED_REQUEST', when: 'a multipart body without a boundary, or not multipart for its boundary' },
  {
    code: 'PAYLOAD_TOO_LARGE',
    when:
      "the file is over the plan's `fileBytes` (the message names the plan; a body declaring more is refused " +
      'before it is read), or a text over 10 MiB of UTF-8',
  },
] as const;

/** The public key of the examples' engine (`GET /api/v1/report-key`), which signed {@link README_BUNDLE}. */
const REPORT_KEY = {
  alg: 'Ed25519',
  key_id: '2236cdae96ed3bb2',
  public_key: 'oWBbaHwVtZAE5zuTJfBMF86m6tLqMI5l_Z3Vr5B7hjE',
  jwk: { kty: 'OKP', crv: 'Ed25519', x: 'oWBbaHwVtZAE5zuTJfBMF86m6tLqMI5l_Z3Vr5B7hjE' },
} as const;

/**
 * The datasets of the starter server that the analyses below search: the SPDX licences it ships, and a Project
 * Gutenberg sample the operator loaded (`createDataset`).
 */
const SPDX = { dataset_id: 'spdx-licenses', kind: 'exact', supplied_by: 'shipped', kb_dataset: null } as const;
const GUTENBERG = {
  dataset_id: 'gutenberg-sample',
  kind: 'exact',
  supplied_by: 'operator',
  kb_dataset: 'project-gutenberg',
} as const;
type SearchedDataset = typeof SPDX | typeof GUTENBERG;

/** The strength of one dataset's evidence: the chance of its matches, −log10 of it, and the calibrated confidence. */
type Strength = Pick<DatasetEvidence, 'chance' | 'strength' | 'confidence'>;

/** `corpus_evidence.strongest` of an analysis whose best dataset is `d`. */
const strongest = (d: SearchedDataset, s: Strength) => ({
  dataset_id: d.dataset_id,
  kind: d.kind,
  kb_dataset: d.kb_dataset,
  ...s,
  level: 'strong',
});

/** What an analysis counted in one dataset: its matches, the documents they are in, and the text they cover. */
type Counted = Pick<
  DatasetEvidence,
  'matches' | 'documents' | 'near_duplicates' | 'checkable' | 'counted' | 'coverage' | 'longest_run'
>;

/** The test of chance on one dataset: how many probe windows were tested and found, the runs, the strength. */
type Tested = Strength & Pick<DatasetEvidence, 'tested' | 'found' | 'runs' | 'confidence_ci_95'>;

/** One row of an analysis's `evidence.datasets` (`aligned`: the aligned-passage test, where it ran). */
const datasetEvidence = (d: SearchedDataset, counted: Counted, t: Tested, aligned?: DatasetEvidence['aligned']) => ({
  ...d,
  declared_models: [],
  ...counted,
  tested: t.tested,
  found: t.found,
  background_rate: 0.005,
  runs: t.runs,
  chance: t.chance,
  strength: t.strength,
  ...(aligned === undefined ? {} : { aligned }),
  confidence: t.confidence,
  confidence_ci_95: t.confidence_ci_95,
});

/** An analysis's `evidence`: how it was found, the rows of the datasets, the calibration and how sources combine. */
const analysisEvidence = (datasets: readonly unknown[]) => ({
  method: EVIDENCE_METHOD,
  datasets,
  calibration: { id: 'cal-2026-11-26-36d8273a', prior: 0.5 },
  combination:
    'confidence = the highest attribution-source confidence, both on 0..100 (sources share the same ' +
    'corpus evidence, so they are not combined as independent); 0 without sources',
});

/** A verbatim match of `tokens` words: the query's characters `query` are the document's characters `source`. */
const verbatimMatch = (
  d: SearchedDataset,
  document_id: string,
  query: readonly [number, number],
  source: readonly [number, number],
  tokens: number,
) => ({
  dataset_id: d.dataset_id,
  document_id,
  query_start: query[0],
  query_end: query[1],
  source_start: source[0],
  source_end: source[1],
  kind: 'exact',
  tokens,
  score: 1,
  reuse: 'verbatim',
  similarity: 1,
  aligned: true,
});

/**
 * The revenue estimate of an article of `words` words at the one-off per-word rate of deal 17 (its low, mid and
 * high rates are one, so are the bounds of the monthly amount), with the providers' chances of having used it.
 */
const articleRevenue = (monthly: number, work_type_source: string, providers: readonly unknown[], words: number) => ({
  monthly,
  currency: 'USD',
  basis: {
    work_type: 'article',
    work_type_source,
    term_months: 36,
    providers,
    method: 'per_word_amortised',
    deal_ids: [17],
    rate: { low: 0.001, mid: 0.001, high: 0.001, unit: 'USD per word, one-off' },
    quantity: words,
    unit: 'word',
    low: monthly,
    mid: monthly,
    high: monthly,
  },
});

/**
 * An analysis as the examples' server answers it: what was found (`fingerprint` … `risk_assessment`), then the text
 * and its evidence (`content_type` … `limitations`); the id, the next steps and the time are every example's.
 */
const analysisResponse = <Found extends object, Text extends object>(found: Found, text: Text) => ({
  success: true,
  analysis_id: ID.analysis,
  ...found,
  next_steps: { register_content: '/api/v1/content/register', setup_monitoring: '/api/v1/monitors/create' },
  ...text,
  remote_corpora: [],
  created_at: '2025-06-02T09:30:00.000Z',
});

/** An attribution source of the Gutenberg sample: a Meta model whose full disclosure names Project Gutenberg. */
const metaGutenbergSource = (model: string, documents: string, citations: readonly string[]) => ({
  dataset_id: GUTENBERG.dataset_id,
  supplied_by: GUTENBERG.supplied_by,
  declared: true,
  provider: 'Meta',
  model,
  confidence: 95,
  confidence_ci_95: [95, 95],
  training_dataset: 'Project Gutenberg (PG-19)',
  kb_dataset: GUTENBERG.kb_dataset,
  link: 'kb',
  link_certainty: 0.95,
  link_reason: `${model} (full disclosure) documents "${documents}", which names Project Gutenberg (PG-19).`,
  disclosure: 'full',
  citations,
});

/** The analysis of the README (`POST /api/v1/attribution/analyze`), as `GET …/analyses/{analysis_id}` reads it back. */
const README_ANALYSIS = analysisResponse(
  {
    fingerprint: 'tp1:f883e8d4a90111e6d5e0e9f7ad633b89',
    confidence: 0,
    confidence_ci_95: [0, 0],
    potential_matches: 1,
    corpus_evidence: {
      strongest: strongest(SPDX, { chance: 3.91651e-23, strength: 22.4071, confidence: 0.9988 }),
      linked_to_models: false,
      summary:
        'Strong corpus evidence in dataset "spdx-licenses" (confidence 99.9 %, chance 3.9e-23): a passage of 67 ' +
        'words (characters 214–660) matches document "MIT"; but no model is documented or declared to have trained ' +
        'on it, so confidence (that a model trained on this content) is 0.',
    },
    estimated_revenue: articleRevenue(0, 'length', [], 67),
    attribution_sources: [],
    risk_assessment: {
      level: 'low',
      factors: ['verbatim_overlap', 'long_verbatim_run', 'shared_text'],
      score: 0,
      jurisdiction: 'US',
      base_weight: 0.45,
      modifiers: [
        { code: 'licensing_market_exists', delta: 0.05 },
        { code: 'attribution_uncertain', delta: 0 },
      ],
      attribution_scale: 0,
    },
  },
  {
    register_prefill: { title: 'README of a small library' },
    content_type: 'text',
    title: 'README of a small library',
    work_hash: 'sha256:fa3ff462f020dcadaf3c44b61f0df757293233be81338ffb80c18a3f062c0523',
    tokens: 67,
    matches: [
      verbatimMatch(SPDX, 'MIT', [0, 431], [55, 486], 67),
      verbatimMatch(SPDX, 'MIT-feh', [0, 431], [0, 431], 67),
    ],
    coverage: { 'spdx-licenses': { share: 1, longest_run: 67 } },
    evidence: analysisEvidence([
      datasetEvidence(
        SPDX,
        { matches: 53, documents: 44, near_duplicates: 0, checkable: 53, counted: true, coverage: 1, longest_run: 67 },
        {
          tested: 63,
          found: 20,
          runs: 1,
          chance: 3.91651e-23,
          strength: 22.4071,
          confidence: 0.9988,
          confidence_ci_95: [0.9937, 0.9998],
        },
      ),
    ]),
    limitations: ['reference_sample_only', 'paraphrase_not_detectable', 'corpus_evidence_without_model_link'],
  },
);

/** The evidence bundle of the README's analysis (`GET …/analyses/{analysis_id}/bundle`), signed by a real key. */
const README_BUNDLE = {
  format: 'trainprint-evidence-bundle/1',
  created_at: '2025-06-02T09:31:00.000Z',
  result: README_ANALYSIS,
  text_sha256: README_ANALYSIS.work_hash.slice('sha256:'.length),
  transcripts: {},
  engine: { name: 'trainprint', version: TRAINPRINT_VERSION, core: { variant: 'simd', sha256: 'fe02e639421245c9' } },
  remote_indexes: [],
  signature: {
    alg: 'Ed25519',
    canonicalization: 'RFC8785',
    key_id: REPORT_KEY.key_id,
    public_key: REPORT_KEY.public_key,
    value: '-kRKDynavW9mkjUdtZLe566usgRCygbb_X4KIz1CiEMltp1goqxAnIIPKRxVE9oJxXsOe4ljb36gMz5E0QbrCA',
  },
};

/** The score of the chapter, by POST and by GET. */
const SCORE = {
  success: true,
  ...SCORE_EVIDENCE,
  legal_risk: {
    jurisdiction: 'US',
    level: 'medium',
    weight: 0.5,
    base_weight: 0.45,
    modifiers: [{ code: 'licensing_market_exists', delta: 0.05 }],
    attribution_scale: 1,
    factors: ['fair_use_case_by_case', 'statutory_damages_available'],
  },
} as const;

/**
 * An example of the tenancy check: another account (`buyer`) asks for what the example `after` made for the first
 * one, and is told it does not exist (as for an id nobody has).
 */
function askedByAnotherAccount(
  summary: string,
  after: string,
  params: Readonly<Record<string, string>>,
  what: string,
): RouteExample {
  const id = Object.values(params)[0];
  return {
    name: 'otherAccount',
    summary,
    after: [after],
    caller: 'buyer',
    params,
    status: 404,
    response: {
      success: false,
      error: { code: 'NOT_FOUND', message: `The requested item does not exist: no ${what} "${id}"` },
    },
  };
}

/**
 * The documentation of pausing and resuming a monitor (one route each, made alike: `monitorStateRoute` in
 * src/http/routes/monitors.ts): the monitor in its new state.
 */
function monitorStateDocs(
  description: string,
  example: { name: string; summary: string; after: string; state: 'active' | 'paused' },
): RouteDocs {
  return {
    description,
    errorCases: [notOwnMonitor],
    examples: [
      {
        name: example.name,
        summary: example.summary,
        after: [example.after],
        params: { monitor_id: ID.monitor },
        status: 200,
        response: {
          success: true,
          ...monitorExample(example.state, '2025-06-02T09:30:00.001Z', '2025-06-02T09:30:00.002Z'),
        },
      },
    ],
  };
}

/**
 * Documentation of the attribution, registry and monitor operations, by operation id.
 * @example ATTRIBUTION_DOCS.analyze.examples[0].body
 */
export const ATTRIBUTION_DOCS: Readonly<Record<string, RouteDocs>> = {
  // ---------------------------------------------------------------- attribution
  analyze: {
    description:
      'Searches the reference datasets for the content and answers with the corpus evidence (matches and ' +
      'coverage), a calibrated confidence with its interval, the attribution sources, risk, a revenue estimate and ' +
      'factor codes. Markup (`html`, `markdown`) is reduced to its text first. The result is kept for the account: ' +
      '`GET /api/v1/attribution/analyses/{analysis_id}` returns it. A server started with remote training corpora ' +
      '(`serve --infini-gram …`) also sends the text to their engines and lists each in `remote_corpora` with its ' +
      `outcome; \`"search_remote": false\` keeps the text on the server. Text the work quotes (in quotation marks, a ` +
      'block quote or after an attribution, or a passage the datasets hold in documents of several authors) is shown as a ' +
      'quotation (`matches[].role`) and left out of `confidence`; `"quotations": "count"` counts it (422 for another ' +
      `value). ${FILES_IN}`,
    errorCases: [
      {
        code: 'INVALID_INPUT',
        when:
          'the content is empty or not valid for its `content_type`, or a multipart form has no `file`, two, or a ' +
          'file whose type cannot be told',
      },
      ...FILE_ERRORS,
    ],
    examples: [
      {
        name: 'licenceText',
        summary:
          'A README quoting the MIT licence: 44 SPDX licences share the text, and no training corpus is declared ' +
          'for them',
        body: {
          content: MIT_GRANT,
          content_type: 'text',
          metadata: { title: 'README of a small library', jurisdiction: 'US' },
        },
        status: 200,
        response: README_ANALYSIS,
      },
      {
        name: 'novelPassage',
        summary: 'A web page quoting *Persuasion*, after a dataset declared as a Project Gutenberg sample was loaded',
        after: ['createDataset'],
        body: {
          content: `<article><h1>Reading Austen</h1><p>${PERSUASION_OPENING}</p></article>`,
          content_type: 'html',
          metadata: { work_type: 'article', jurisdiction: 'GB' },
        },
        status: 200,
        response: analysisResponse(
          {
            fingerprint: 'tp1:378b10e9e5326b8507448ba32730d23d',
            confidence: 95,
            confidence_ci_95: [95, 95],
            potential_matches: 1,
            corpus_evidence: {
              strongest: strongest(GUTENBERG, { chance: 7.57181e-24, strength: 23.1208, confidence: 0.9988 }),
              linked_to_models: true,
              summary:
                'Strong corpus evidence in dataset "gutenberg-sample" (confidence 99.9 %, chance 7.6e-24): a passage ' +
                'of 102 words (characters 0–590) matches document "persuasion"; linked to models: see attribution_sources.',
            },
            estimated_revenue: articleRevenue(
              0.02,
              'metadata',
              [
                { provider: 'Meta', p_used: [0.95, 0.95, 0.95] },
                { provider: 'Allen Institute for AI', p_used: [0.855, 0.855, 0.855] },
              ],
              104,
            ),
            attribution_sources: [
              metaGutenbergSource(
                'facebook/opt-66b',
                'The Pile subset (Pile-CC, OpenWebText2, USPTO, Project Gutenberg, OpenSubtitles, Wikipedia, DM ' +
                  'Mathematics, HackerNews)',
                [
                  'OPT: Open Pre-trained Transformer Language Models (arXiv 2205.01068)',
                  'HF model cards facebook/opt-* (Training data section)',
                ],
              ),
              metaGutenbergSource('meta/llama-65b', 'Project Gutenberg + Books3 (4.5%)', [
                'LLaMA: Open and Efficient Foundation Language Models (Touvron et al., arXiv 2302.13971), Table 1 and ' +
                  '§2.1',
              ]),
            ],
            risk_assessment: {
              level: 'high',
              factors: ['verbatim_overlap', 'long_verbatim_run'],
              score: 0.65,
              jurisdiction: 'GB',
              base_weight: 0.6,
              modifiers: [{ code: 'licensing_market_exists', delta: 0.05 }],
              attribution_scale: 1,
            },
          },
          {
            content_type: 'html',
            work_hash: 'sha256:1f9ad269d12b0b60b93c537fbe4aaacb61dc5e568199e991064a782dfc7231b5',
            tokens: 104,
            matches: [
              verbatimMatch(GUTENBERG, 'persuasion-1', [35, 659], [0, 624], 102),
              {
                dataset_id: 'gutenberg-sample',
                document_id: 'persuasion-1',
                query_start: 13,
                query_end: 659,
                source_start: 0,
                source_end: 624,
                kind: 'near',
                tokens: 104,
                score: 0.9765625,
              },
            ],
            coverage: {
              'spdx-licenses': { share: 0, longest_run: 0 },
              'gutenberg-sample': { share: 0.9807692307692307, longest_run: 102 },
            },
            evidence: analysisEvidence([
              datasetEvidence(
                SPDX,
                {
                  matches: 0,
                  documents: 0,
                  near_duplicates: 0,
                  checkable: 0,
                  counted: false,
                  coverage: 0,
                  longest_run: 0,
                },
                {
                  tested: 100,
                  found: 0,
                  runs: 0,
                  chance: 1,
                  strength: 0,
                  confidence: 0.0024,
                  confidence_ci_95: [0.0013, 0.0044],
                },
              ),
              datasetEvidence(
                GUTENBERG,
                {
                  matches: 1,
                  documents: 1,
                  near_duplicates: 1,
                  checkable: 2,
                  counted: true,
                  coverage: 0.9808,
                  longest_run: 102,
                },
                {
                  tested: 100,
                  found: 19,
                  runs: 2,
                  chance: 1.51436e-23,
                  strength: 22.8198,
                  confidence: 0.9988,
                  confidence_ci_95: [0.9937, 0.9998],
                },
                {
                  documents: 1,
                  query_pairs: 27,
                  passages: [{ pairs: 26, shared: 26, background_rate: 0.25 }],
                  chance: 5.9952e-15,
                },
              ),
            ]),
            limitations: ['reference_sample_only', 'paraphrase_not_detectable'],
          },
        ),
      },
    ],
  },
  getAnalysis: {
    description:
      'An analysis the account ran, exactly as `POST /api/v1/attribution/analyze` answered it. ' +
      'Kept 30 days, at most 10,000 per account and 256 MiB of their analysed texts (the oldest go first).',
    errorCases: [{ code: 'NOT_FOUND', when: 'the account has no analysis with this id, or it is older than 30 days' }],
    examples: [
      {
        name: 'stored',
        summary: 'The analysis of the README',
        after: ['analyze'],
        params: { analysis_id: ID.analysis },
        status: 200,
        response: README_ANALYSIS,
      },
    ],
  },
  getAnalysisReport: {
    description:
      'The work report of an analysis the account ran: one self-contained HTML page (inline CSS and SVG, no ' +
      'scripts, no external resources; served with a `Content-Security-Policy` that forbids them) with a coverage ' +
      "strip per searched corpus and per linked model over the work's sections, the passages side by side, the " +
      'chain from corpus to model with its citations, what was not checked, the method and the digests of the ' +
      "inputs, and the signature of the analysis's evidence bundle (`GET …/bundle`). Printing it gives a readable PDF.",
    errorCases: [notOwnAnalysis],
    examples: [
      {
        name: 'page',
        summary: 'The analysis of the README as a page',
        after: ['analyze'],
        params: { analysis_id: ID.analysis },
        file: 'work-report.html',
        status: 200,
        response:
          '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<meta ' +
          "http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src " +
          'data:">\n<meta name="viewport" content="width=device-width, initial-scale=1">',
      },
      askedByAnotherAccount(
        'Another account asks for it: not found',
        'analyze',
        { analysis_id: ID.analysis },
        'analysis',
      ),
    ],
  },
  getEvidenceBundle: {
    description:
      'The evidence bundle of an analysis the account ran, for checking offline: the result as stored, the SHA-256 ' +
      'of the analysed text (the text itself stays out), per remote corpus every call its search used as request ' +
      'and answer digests with their digest recomputed, the engine and its core, the remote indexes the text was ' +
      "sent to — signed with Ed25519 by the engine's report key (`GET /api/v1/report-key`) over the canonical JSON " +
      '(RFC 8785) of every member but `signature`. The answer is the canonical JSON itself, without the success ' +
      'envelope: its bytes verify with `trainprint verify` or `verifyEvidenceBundle` of `trainprint/evidence` ' +
      '(docs/works.md says what that proves and what it cannot).',
    errorCases: [notOwnAnalysis],
    examples: [
      {
        name: 'bundle',
        summary: 'The analysis of the README, signed',
        after: ['analyze'],
        params: { analysis_id: ID.analysis },
        status: 200,
        response: README_BUNDLE,
      },
    ],
  },
  getAnalysisExtractions: {
    description:
      'What the account\'s extract jobs (`POST /api/v1/jobs` with `type: "extract"`) wrote out of the text an ' +
      'analysis measured: the results kept under the SHA-256 of that text, oldest first, at most 16 — the same ' +
      "records the analysis's evidence bundle (`GET …/bundle`) signs as `model_extractions` and its work report " +
      "draws, read without building and signing the bundle. Only the account's own extractions: another " +
      "account's extract jobs over the same text are never listed. Unsigned: verify them through the bundle.",
    errorCases: [notOwnAnalysis],
    examples: [
      {
        name: 'none',
        summary: 'The analysis of the README: the account ran no extract job over its text',
        after: ['analyze'],
        params: { analysis_id: ID.analysis },
        status: 200,
        response: {
          success: true,
          analysis_id: ID.analysis,
          text_sha256: README_ANALYSIS.work_hash.slice('sha256:'.length),
          extractions: [],
        },
      },
      askedByAnotherAccount(
        'Another account asks for them: not found',
        'analyze',
        { analysis_id: ID.analysis },
        'analysis',
      ),
    ],
  },
  getReportKey: {
    description:
      "The engine's Ed25519 public key (RFC 8032), which signs every evidence bundle " +
      '(`GET /api/v1/attribution/analyses/{analysis_id}/bundle`): the raw key base64url, as a JWK ' +
      '(RFC 8037) and its id (the first 16 hex digits of its SHA-256). Public: whoever checks a bundle compares the ' +
      'key it names with this one. The engine makes the key once and keeps it in its store; its private half is ' +
      'never served.',
    examples: [
      {
        name: 'key',
        summary: "The engine's public key",
        status: 200,
        response: { success: true, ...REPORT_KEY },
      },
    ],
  },
  compare: {
    description:
      'Aligns two texts and answers with their similarity and the reused passages, with character spans in ' +
      'both (`a_start`/`a_end` index `a`). Nothing is stored.',
    examples: [
      {
        name: 'quotedOpening',
        summary: "An essay quoting the opening of *Persuasion*, against the novel's text",
        body: {
          a: `Austen opens with a portrait of vanity: "${PERSUASION_QUOTE}." The Baronetage is his mirror.`,
          b: PERSUASION_OPENING,
        },
        status: 200,
        response: {
          success: true,
          similarity: 0.8303030303030303,
          jaccard: 0.4727272727272727,
          containment_a: 0.8125,
          containment_b: 0.5306122448979592,
          spans: [{ a_start: 41, a_end: 381, b_start: 0, b_end: 338, score: 1, kind: 'verbatim', similarity: 1 }],
        },
      },
    ],
  },
  score: {
    description:
      'How likely `target_model` was trained on a work the account registered: a score of 0–100 with a ' +
      "bootstrap `ci_95`, a tier, the reused share of the work found in reference datasets linked to the model's " +
      'documented training data, and the legal risk in `jurisdiction`. The work is named by its `work_hash`, so the ' +
      'text never has to be sent again; or it comes as `content` (text, markup or a file, as analyze takes it) and is ' +
      'scored as sent, unregistered (`work_id` null; its `work_hash` is that of the bytes sent, so the score is the ' +
      "one the registered work would get). A file's score says how its text was extracted (`extraction`) and its " +
      `spans point into that text. ${FILES_IN}`,
    errorCases: [
      notOwnWork,
      { code: 'NOT_FOUND', when: 'the knowledge base has no model `target_model`' },
      {
        code: 'INVALID_INPUT',
        when: 'neither or both of `work_hash` and `content` are given, or the content is not valid',
      },
      ...FILE_ERRORS,
    ],
    examples: [
      {
        name: 'persuasion',
        summary: 'The registered chapter against a model documented as trained on Project Gutenberg',
        after: ['registerWork', 'createDataset'],
        body: { work_hash: WORK_HASH, target_model: KB_MODEL, jurisdiction: 'US' },
        status: 200,
        response: SCORE,
      },
      {
        name: 'content',
        summary: 'The same chapter sent as content, unregistered: the same score, no work_id',
        after: ['createDataset'],
        body: { content: WORK_TEXT, content_type: 'text', target_model: KB_MODEL, jurisdiction: 'US' },
        status: 200,
        response: { ...SCORE, work_id: null },
      },
    ],
  },
  scoreByQuery: {
    description:
      'The score of `POST /api/v1/attribution/score`, with the three fields as query parameters (for ' +
      'clients that can only GET, and for caching proxies).',
    errorCases: [notOwnWork, { code: 'NOT_FOUND', when: 'the knowledge base has no model `target_model`' }],
    examples: [
      {
        name: 'persuasion',
        summary: 'The same score as a GET',
        after: ['registerWork', 'createDataset'],
        query: { work_hash: WORK_HASH, target_model: KB_MODEL, jurisdiction: 'US' },
        status: 200,
        response: SCORE,
      },
    ],
  },
  fingerprint: {
    description:
      'Fingerprints content without storing anything: the content id (`fingerprint`), the SHA-256 of the ' +
      'bytes (`work_hash`), the shingle count and the sketches (SimHash, MinHash; winnowed hashes with their spans ' +
      'on request). `fingerprint` and `work_hash` are what `POST /api/v1/content/register` accepts as `fingerprint` ' +
      'when the text stays with you.',
    examples: [
      {
        name: 'opening',
        summary: 'The opening sentence of *Persuasion*, with the default options and no MinHash',
        body: { content: PERSUASION_OPENING, content_type: 'text', options: { minhash: false } },
        status: 200,
        response: {
          success: true,
          version: 1,
          params: 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=off;sh=64',
          fingerprint: 'tp1:1edea6eadf759e878a848ab21be29199',
          work_hash: 'sha256:989b66c6bba115125fee4012aed9d45004a6c60796f0d6bd3007c9d5a7386ae0',
          byte_length: 624,
          token_count: 102,
          shingle_count: 98,
          simhash: 'd8675617dc30c004',
          minhash: null,
        },
      },
    ],
  },

  // ---------------------------------------------------------------- works registry
  registerWork: {
    description:
      'Registers a work of the account, by its text or file (`content`) or only by its `fingerprint` (from `POST ' +
      '/api/v1/attribution/fingerprint`), and answers with the work and a receipt signed by the service. The ' +
      'account is the owner. 201 with the new work; 200 with the stored one when the account had already registered ' +
      'this `work_hash`. Another account registering the same bytes gets its own work, and both are told in ' +
      '`conflicting_claims`. A file is kept as its extracted text (what a score reads); its `work_hash` is that of ' +
      `its bytes. ${FILES_IN}`,
    errorCases: [
      {
        code: 'INVALID_INPUT',
        when:
          'neither or both of `content` and `fingerprint` are given, or a multipart form has no `file`, two, or a ' +
          'file whose type cannot be told',
      },
      ...FILE_ERRORS,
    ],
    examples: [
      {
        name: 'newWork',
        summary: 'The opening of *Persuasion*, registered with its text',
        body: { content: WORK_TEXT, content_type: 'text', title: WORK_TITLE, author: 'Jane Austen', work_type: 'book' },
        status: 201,
        response: { success: true, ...WORK, created: true },
      },
      {
        name: 'alreadyRegistered',
        summary: 'The same text again: the stored work, `created: false`',
        after: ['registerWork'],
        body: { content: WORK_TEXT, content_type: 'text' },
        status: 200,
        response: { success: true, ...WORK, created: false },
      },
    ],
  },
  getWork: {
    description: 'A work the account registered, with its receipt.',
    errorCases: [notOwnWork],
    examples: [
      {
        name: 'own',
        summary: 'The registered chapter',
        after: ['registerWork'],
        params: { work_id: ID.work },
        status: 200,
        response: { success: true, ...WORK },
      },
      askedByAnotherAccount('Another account asks for it: not found', 'registerWork', { work_id: ID.work }, 'work'),
    ],
  },
  listWorks: {
    description: "The account's works in id order, a page at a time: pass `next` as `after` for the following page.",
    examples: [
      {
        name: 'firstPage',
        summary: 'The first page of ten',
        after: ['registerWork'],
        query: { limit: 10 },
        status: 200,
        response: { success: true, works: [WORK], next: null },
      },
    ],
  },
  deleteWork: {
    description:
      'Deletes a work of the account and its stored text. Monitors, listings and licences that name it ' +
      'keep their records.',
    errorCases: [notOwnWork],
    examples: [
      {
        name: 'delete',
        summary: 'Delete the registered chapter',
        after: ['registerWork'],
        params: { work_id: ID.work },
        status: 200,
        response: { success: true, id: ID.work, deleted: true },
      },
    ],
  },
  verifyReceipt: {
    description:
      'Checks that a registration receipt was signed by this service and that no field of it was changed. ' +
      'Any holder of a receipt may check it; nothing is stored.',
    examples: [
      {
        name: 'valid',
        summary: 'The receipt of the registered chapter',
        after: ['registerWork'],
        body: { receipt: WORK.receipt },
        status: 200,
        response: { success: true, valid: true },
      },
    ],
  },

  // ---------------------------------------------------------------- monitors
  createMonitor: {
    description:
      'Watches a work of the account (by `work_id` or `work_hash`) against knowledge-base models: each ' +
      'time the reference datasets change, the work is scored again, and new matches or score changes are written ' +
      'to the event log and POSTed, signed, to the webhook. Webhooks to loopback, private or internal hosts are ' +
      'refused.',
    errorCases: [
      notOwnWork,
      {
        code: 'INVALID_INPUT',
        when: 'the webhook URL is not http(s) or names an internal host, or its secret is shorter than 16 characters',
      },
    ],
    examples: [
      {
        name: 'withWebhook',
        summary: 'Watch the chapter against one model, with a webhook',
        after: ['registerWork'],
        body: {
          work_id: ID.work,
          models: [KB_MODEL],
          jurisdiction: 'GB',
          events: ['match.found', 'score.changed'],
          webhook: { url: 'https://hooks.example.org/trainprint', secret: 'whsec-3b9f1c7a62e04d85' },
        },
        status: 201,
        response: {
          success: true,
          ...monitorExample('active', '2025-06-02T09:30:00.001Z', '2025-06-02T09:30:00.001Z'),
        },
      },
    ],
  },
  listMonitors: {
    description: "The account's monitors, optionally of one work.",
    examples: [
      {
        name: 'ofWork',
        summary: 'The monitors of the chapter',
        after: ['createMonitor'],
        query: { work_id: ID.work },
        status: 200,
        response: {
          success: true,
          monitors: [monitorExample('active', '2025-06-02T09:30:00.001Z', '2025-06-02T09:30:00.001Z')],
        },
      },
    ],
  },
  getMonitor: {
    description: 'A monitor of the account, with its last evaluation per model.',
    errorCases: [notOwnMonitor],
    examples: [
      {
        name: 'evaluated',
        summary: 'The monitor after a dataset was added',
        after: ['createMonitor', 'createDataset'],
        params: { monitor_id: ID.monitor },
        status: 200,
        response: {
          success: true,
          ...monitorExample('active', '2025-06-02T09:30:00.006Z', '2025-06-02T09:30:00.006Z', {
            'meta/llama-7b': {
              score: 95,
              tier: 'confirmed',
              flagged_chunks: 1,
              datasets: ['gutenberg-sample'],
              evaluated_at: '2025-06-02T09:30:00.013Z',
            },
          }),
        },
      },
    ],
  },
  deleteMonitor: {
    description: 'Deletes a monitor of the account; its events stay in the log.',
    errorCases: [notOwnMonitor],
    examples: [
      {
        name: 'delete',
        summary: 'Stop watching',
        after: ['createMonitor'],
        params: { monitor_id: ID.monitor },
        status: 200,
        response: { success: true, id: ID.monitor, deleted: true },
      },
    ],
  },
  pauseMonitor: monitorStateDocs('Stops evaluating a monitor of the account until it is resumed. No body.', {
    name: 'pause',
    summary: 'Pause the monitor',
    after: 'createMonitor',
    state: 'paused',
  }),
  resumeMonitor: monitorStateDocs('Evaluates a paused monitor of the account again. No body.', {
    name: 'resume',
    summary: 'Resume the paused monitor',
    after: 'pauseMonitor',
    state: 'active',
  }),
  listMonitorEvents: {
    description:
      "The events of a monitor of the account, oldest first: `match.found` when a model's evidence first " +
      'shows, `score.changed` when its score moves. The webhook gets the same events.',
    errorCases: [notOwnMonitor],
    examples: [
      {
        name: 'matchFound',
        summary: 'A match found when a dataset holding the chapter was added',
        after: ['createMonitor', 'createDataset'],
        params: { monitor_id: ID.monitor },
        query: { limit: 20 },
        status: 200,
        response: {
          success: true,
          events: [
            {
              id: ID.event,
              type: 'match.found',
              created_at: '2025-06-02T09:30:00.005Z',
              data: {
                monitor_id: ID.monitor,
                work_id: ID.work,
                work_hash: WORK_HASH,
                model: 'meta/llama-7b',
                score: 95,
                previous_score: null,
                tier: 'confirmed',
                previous_tier: null,
                flagged_chunks: 1,
                previous_flagged_chunks: 0,
                datasets: ['gutenberg-sample'],
                trigger: 'gutenberg-sample',
              },
            },
          ],
        },
      },
    ],
  },
};
