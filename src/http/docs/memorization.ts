/**
 * Documentation of the memorization operations (src/http/routes/memorization.ts): descriptions,
 * errors and worked examples (src/http/docs/index.ts says how they are used). The examples probe
 * `austen-lm`, a model served by the caller at `https://models.example.org/v1` that has read the
 * account's chapter of *Persuasion* and never the Chesterton sentences of the reference set.
 */
import type { ErrorCase } from '../context.js';
import type { RouteDocs } from '../context.js';
import {
  EXTRACTION,
  ID,
  KB_MODEL,
  MODEL,
  PERSUASION_QUOTE,
  SCORE_EVIDENCE,
  THURSDAY,
  WORK_HASH,
  WORK_TITLE,
} from './example-kit.js';

const notOwnWork: ErrorCase = { code: 'NOT_FOUND', when: 'the account has no work with this id' };

/** The reference set the examples keep (createReferenceSet) and list. */
const REFERENCE_SET = {
  id: 'thursday-2024',
  basis: 'post_cutoff',
  description: 'Chesterton, chapter 1, republished in 2024',
  published_after: '2024-01-01',
  documents: 3,
  tokens: 94,
  created_at: '2025-06-02T09:30:00.000Z',
} as const;

/**
 * A statistic of the probe example, which has too little text for a verdict: every work chunk scores below every
 * reference chunk (AUC 1), and no document test runs with a single work document.
 */
function undecidedStatistic(
  name: string,
  suspect: { chunks: number; documents: number; mean: number; median: number },
  reference: { chunks: number; documents: number; mean: number; median: number },
) {
  return {
    name,
    member_direction: 'lower',
    approximate: false,
    in_verdict: true,
    suspect,
    reference,
    auc: 1,
    auc_ci_95: [1, 1],
    auc_ci_method: 'clustered',
    mann_whitney: { u: 12, p_value: null, method: 'exact' },
    document_test: null,
    significant: false,
  };
}
const upstream: readonly ErrorCase[] = [
  {
    code: 'INVALID_INPUT',
    when: "`model.base_url` is malformed or names a host the server's policy refuses (internal addresses by default)",
  },
  {
    code: 'UPSTREAM_ERROR',
    when: 'the model service failed; `details.upstream` gives its status, content type and length',
  },
  {
    code: 'UPSTREAM_UNREACHABLE',
    when: "the model service could not be reached (no connection); `details.upstream` names its URL, never the socket's error",
  },
  { code: 'UPSTREAM_TIMEOUT', when: 'the model service did not answer in time' },
];
const modelNote =
  'The server calls the model service named in `model` (an OpenAI-compatible API); `model.api_key` is ' +
  'sent to it and never stored or echoed.';

/**
 * Documentation of the memorization operations, by operation id.
 * @example MEMORIZATION_DOCS.extractMemorized.examples[0].body
 */
export const MEMORIZATION_DOCS: Readonly<Record<string, RouteDocs>> = {
  trackWork: {
    description:
      'Tracks a work of the account for memorization tests: a registered one (`work_id`) or one registered ' +
      'now (`work`, owned by the account). With `canaries`, answers with random canary sequences to embed verbatim ' +
      'in the published work and never-published controls to keep private: a model that memorized the work finds ' +
      'its canaries likelier than the controls (`POST /api/v1/memorization/assess` tests that). Canaries are ' +
      'generated once: calling again without `canaries` answers the same ones.',
    errorCases: [
      notOwnWork,
      {
        code: 'CONFLICT',
        when: 'canaries are asked for again: a work keeps its first ones (published copies may hold them)',
      },
    ],
    examples: [
      {
        name: 'withCanaries',
        summary: 'Track the chapter with two canaries of 12 words',
        after: ['registerWork'],
        body: { work_id: ID.work, canaries: { count: 2, words: 12, controls: 8 } },
        status: 200,
        response: {
          success: true,
          work_id: ID.work,
          work_hash: WORK_HASH,
          title: WORK_TITLE,
          tracked_at: '2025-06-02T09:30:00.001Z',
          canaries: [
            { id: 'cn_1', text: 'card pipe iron kick name dish moon flow lord menu most dose' },
            { id: 'cn_2', text: 'moon play live best lawn node held folk neck fine play mall' },
          ],
          controls: [
            { id: 'ct_1', text: 'lion rice loud gray plan harm fill high load mark golf horn' },
            { id: 'ct_2', text: 'knee deep city mail lion deep nose oven palm mail home golf' },
          ],
          canary_words: 12,
        },
      },
    ],
  },
  createReferenceSet: {
    description:
      'Keeps a set of non-member documents of the account for probes, with how it was made (`basis`): ' +
      '`randomized_split` (members and non-members assigned at random: the matched design), `post_cutoff` ' +
      "(published after the model's training cutoff) or `unverified`. The id is the account's own: two accounts " +
      'may both have a set `withheld`.',
    errorCases: [{ code: 'CONFLICT', when: 'the account already has a reference set with this id' }],
    examples: [
      {
        name: 'postCutoff',
        summary: 'Three sentences the model cannot have seen',
        body: {
          id: 'thursday-2024',
          texts: [...THURSDAY],
          basis: 'post_cutoff',
          description: 'Chesterton, chapter 1, republished in 2024',
          published_after: '2024-01-01',
        },
        status: 201,
        response: { success: true, ...REFERENCE_SET },
      },
    ],
  },
  listReferenceSets: {
    description: "The account's reference sets, without their texts.",
    examples: [
      {
        name: 'all',
        summary: "The account's sets",
        after: ['createReferenceSet'],
        status: 200,
        response: {
          success: true,
          reference_sets: [REFERENCE_SET],
        },
      },
    ],
  },
  extractMemorized: {
    description:
      'Carlini-style extraction: prompts the model with prefixes of the work at evenly spaced positions, ' +
      'lets it continue greedily and matches each continuation verbatim against the work; ≥ 50 words reproduced is ' +
      '`verbatim_extraction_verified`. Either `work_id` (a work of the account with its text) or `text`. ' +
      modelNote,
    errorCases: [notOwnWork, ...upstream],
    examples: [
      {
        name: 'twoPrompts',
        summary: 'Two prompts of 16 words from the chapter',
        after: ['registerWork'],
        body: { work_id: ID.work, model: MODEL, prefix_tokens: 16, continuation_tokens: 24, prefixes: 2 },
        status: 200,
        response: {
          success: true,
          ...EXTRACTION,
        },
      },
    ],
  },
  probeMemorization: {
    description:
      'Dataset-inference style: likelihood statistics of the work (loss, zlib ratio, Min-K%, Min-K%++) per ' +
      'chunk against a non-member reference, AUCs with cluster-robust intervals, and a verdict only above the ' +
      'minimum amount of text (else `insufficient_data`). Needs log-probabilities (`api: "completions"`); a chat ' +
      'model gets `not_applicable`. With `reference_model` (a model that cannot have seen the work, called the ' +
      'same way) every chunk is also scored by it and the verdict rests on the calibrated loss alone: the ' +
      "target's NLL per character minus the reference model's, so wording any model finds predictable cancels " +
      'out. ' +
      modelNote,
    errorCases: [notOwnWork, { code: 'NOT_FOUND', when: 'the account has no reference set with this id' }, ...upstream],
    examples: [
      {
        name: 'againstReferenceSet',
        summary: 'The chapter against the Chesterton set, in chunks of 32 words',
        after: ['registerWork', 'createReferenceSet'],
        body: { work_id: ID.work, model: MODEL, reference: { reference_set: 'thursday-2024' }, chunk_tokens: 32 },
        status: 200,
        response: {
          success: true,
          work_id: ID.work,
          model: 'openai-compatible:austen-lm',
          access: 'top_k',
          reference_model: null,
          reference: { source: 'reference_set', id: 'thursday-2024', basis: 'post_cutoff', matched: false },
          chunk_tokens: 32,
          k: 0.2,
          alpha: 0.01,
          min_chunks: 20,
          min_reference_documents: 5,
          n_chunks: { suspect: 6, reference: 2 },
          n_documents: { suspect: 1, reference: 2 },
          method:
            'chunks of 32 words, each scored separately; per chunk loss (mean NLL), zlib ratio (loss / DEFLATE ' +
            'bytes), Min-K% and Min-K%++ (k = 0.2); effect size = rank AUC over chunk pairs with a 95 % interval ' +
            'clustered by reference document (Obuchowski 1997); verdict = one-sided pooled t-test of per-document ' +
            'means (work vs reference documents), Holm-corrected over the statistics, α = 0.01; the chunk-level ' +
            'Mann–Whitney p is descriptive (chunks of one document are correlated); dataset inference after Maini et ' +
            'al. 2024',
          distribution: 'top_k',
          verdict: 'insufficient_data',
          statement:
            'Too little text for a verdict: 6 work chunks and 2 reference chunks from 2 documents (at least 20 ' +
            'chunks on each side and 5 reference documents are needed). The statistics are descriptive only.',
          statistics: [
            undecidedStatistic(
              'loss',
              { chunks: 6, documents: 1, mean: 0.446083, median: 0.471646 },
              { chunks: 2, documents: 2, mean: 1.9461, median: 1.9461 },
            ),
            undecidedStatistic(
              'zlib_ratio',
              { chunks: 6, documents: 1, mean: 0.00351731, median: 0.00373474 },
              { chunks: 2, documents: 2, mean: 0.0150068, median: 0.0150068 },
            ),
          ],
          chunks: {
            suspect: [
              {
                document: 0,
                start: 0,
                end: 178,
                scored_tokens: 31,
                loss: 0.268245,
                zlib_ratio: 0.00201688,
                min_k: -0.314486,
                min_k_plus_plus: 0.367255,
                calibrated_loss: null,
              },
              {
                document: 0,
                start: 180,
                end: 401,
                scored_tokens: 31,
                loss: 0.522238,
                zlib_ratio: 0.00381196,
                min_k: -1.39622,
                min_k_plus_plus: -0.488805,
                calibrated_loss: null,
              },
            ],
            reference: [
              {
                document: 0,
                start: 0,
                end: 156,
                scored_tokens: 31,
                loss: 1.86234,
                zlib_ratio: 0.0159174,
                min_k: -4.54454,
                min_k_plus_plus: -3.13634,
                calibrated_loss: null,
              },
              {
                document: 1,
                start: 0,
                end: 212,
                scored_tokens: 31,
                loss: 2.02986,
                zlib_ratio: 0.0140962,
                min_k: -5.3857,
                min_k_plus_plus: -3.91983,
                calibrated_loss: null,
              },
            ],
          },
          factors: [],
          limitations: ['distribution_shift_risk', 'short_text_low_power'],
        },
      },
    ],
  },
  compareOutput: {
    description:
      "Compares a model output with the account's works (all registered with their text, or `work_ids`): " +
      'verbatim runs of at least `min_tokens` words and near passages, per work. No model is called; nothing is ' +
      'stored.',
    errorCases: [notOwnWork],
    examples: [
      {
        name: 'chatAnswer',
        summary: 'A chatbot answer that recites the opening',
        after: ['registerWork'],
        body: { output: `Sure! The novel begins: "${PERSUASION_QUOTE}"`, min_tokens: 8 },
        status: 200,
        response: {
          success: true,
          output_tokens: 60,
          works: [
            {
              work_id: ID.work,
              title: WORK_TITLE,
              verbatim: [{ tokens: 56, output_start: 25, output_end: 363, work_start: 0, work_end: 338 }],
              near: [],
              longest_verbatim_tokens: 56,
              verbatim_share: 0.9333,
            },
          ],
          examined: 1,
          factors: ['long_verbatim_run'],
          limitations: [],
        },
      },
    ],
  },
  assessMemorization: {
    description:
      'The memorization risk of a work of the account in a model, from every test asked for: corpus ' +
      "evidence (`kb_model`), extraction, a probe (with `probe.reference`) and the work's canaries; a level and an " +
      'evidence tier with the reasons. The assessment is kept: `POST /api/v1/memorization/report` renders it. Risk ' +
      'levels are a heuristic, not legal advice. ' +
      modelNote,
    errorCases: [notOwnWork, ...upstream],
    examples: [
      {
        name: 'extractionAndCanaries',
        summary: 'Extraction and the canary test, with corpus evidence for a knowledge-base model',
        after: ['trackWork', 'createDataset'],
        body: {
          work_id: ID.work,
          model: MODEL,
          kb_model: KB_MODEL,
          jurisdiction: 'GB',
          extract: { prefix_tokens: 16, continuation_tokens: 24, prefixes: 2 },
        },
        status: 200,
        response: {
          success: true,
          assessment_id: ID.assessment,
          created_at: '2025-06-02T09:30:00.023Z',
          work: {
            work_id: ID.work,
            work_hash: WORK_HASH,
            title: WORK_TITLE,
            owner: 'acme',
            work_type: 'book',
            tokens: 204,
          },
          model: { id: 'openai-compatible:austen-lm', access: 'top_k', kb_model: 'meta/llama-7b' },
          jurisdiction: 'GB',
          level: 'high',
          evidence_tier: 'confirmed',
          risk: {
            score: 0.65,
            base_weight: 0.6,
            modifiers: [{ code: 'licensing_market_exists', delta: 0.05 }],
            attribution_low: 1,
            attribution_scale: 1,
          },
          factors: ['verbatim_overlap', 'long_verbatim_run'],
          limitations: ['reference_sample_only', 'calibrated_on_development_data'],
          summary: [
            'Corpus evidence for meta/llama-7b: score 95 [95, 95], tier confirmed.',
            'Extraction: no verbatim continuation of ≥ 50 words from 2 prefixes (longest run 48 words). Memorization is ' +
              'sufficient evidence, its absence proves nothing.',
          ],
          corpus: SCORE_EVIDENCE,
          extraction: EXTRACTION,
          probe: null,
          traps: {
            canaries: 2,
            controls: 8,
            auc: 0.5625,
            auc_ci_95: [0.44, 0.685],
            p_value: 0.401294,
            detected: false,
            canary_loss: 0.62,
            control_loss: 0.7688,
          },
        },
      },
    ],
  },
  memorizationReport: {
    description:
      'An assessment of the account as one self-contained HTML page: inline CSS and SVG, no scripts, no ' +
      'external resources (served with a `Content-Security-Policy` that forbids them), the evidence spans of the ' +
      'work highlighted.',
    errorCases: [{ code: 'NOT_FOUND', when: 'the account has no assessment with this id' }],
    examples: [
      {
        name: 'page',
        summary: 'The assessment as a page',
        after: ['assessMemorization'],
        body: { assessment_id: ID.assessment, max_spans: 2 },
        file: 'memorization-report.html',
        status: 200,
        response:
          '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<meta ' +
          "http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src " +
          'data:">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>Memorization report ' +
          '— Persuasion, chapter 1 (opening)</title>',
      },
    ],
  },
};
