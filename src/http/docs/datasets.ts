/**
 * Documentation of the reference-dataset and knowledge-base operations (src/http/routes/datasets.ts, kb.ts):
 * descriptions, errors and worked examples (src/http/docs/index.ts says how they are used).
 */
import type { RouteDocs } from '../context.js';
import { KB_MODEL, PERSUASION_OPENING, PERSUASION_VANITY } from './example-kit.js';

const noDataset = { code: 'NOT_FOUND', when: 'no reference dataset has this id' } as const;
const notOwner = {
  code: 'FORBIDDEN',
  when: 'the dataset is shared (a reference pack, or loaded by the operator) and the caller has no `admin` scope',
} as const;
const readOnly = {
  code: 'CONFLICT',
  when:
    'the server keeps its reference datasets as loaded (`trainprint serve --workers N`: each process loads them ' +
    'from files, so a change through one would be missing in the others)',
} as const;
const shared =
  'An account searches, lists and exports the shared datasets (the reference packs, and those the operator ' +
  "loaded: `serve --dataset`, or through an `admin` key) and its own; another account's datasets are not there for it " +
  '(404), so no account can change what another is told.';
const owned =
  'Only the account that created or imported the dataset may change it (an `admin` key may change any); ' +
  'a shared one needs the `admin` scope.';

/** The params id of every dataset of the examples (the engine's default fingerprint settings). */
const PARAMS = 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=oph128;sh=off;idx=swap32';

/** The starter's dataset, as a server started with it reports it. */
const SPDX_DATASET = {
  id: 'spdx-licenses',
  name: 'SPDX licence texts (spdx-license-list 6.12.0)',
  kind: 'exact',
  documents: 727,
  tokens: 792079,
  fingerprints: 173833,
  bytes: 4980061,
  index_bytes: 3487128,
  supplied_by: 'shipped',
  durable: true,
  params: PARAMS,
  kb_dataset: null,
  models: [],
} as const;

/** The dataset createDataset makes: the first paragraph of *Persuasion*, declared as sampling Project Gutenberg. */
const GUTENBERG_SAMPLE = {
  id: 'gutenberg-sample',
  name: 'Project Gutenberg sample',
  kind: 'exact',
  documents: 1,
  tokens: 102,
  fingerprints: 19,
  bytes: 624,
  index_bytes: 1284,
  supplied_by: 'account',
  durable: false,
  params: PARAMS,
  kb_dataset: 'project-gutenberg',
  models: [],
} as const;

/** LLaMA 7B as the knowledge base documents it (`KB_MODEL`; the 65B differs only in its size). */
const LLAMA_7B = {
  id: KB_MODEL,
  provider: 'Meta',
  provider_id: 'meta',
  release_year: 2023,
  modality: 'text',
  disclosure: 'full',
  training_datasets: [
    {
      name: 'CommonCrawl (CCNet, 67%)',
      datasets: ['common-crawl', 'ccnet'],
      excludes: [],
      share: '67%',
      subset_of: [],
    },
    { name: 'C4 (15%)', datasets: ['c4'], excludes: [], share: '15%', subset_of: [] },
  ],
  training_tokens: '1.0T tokens',
  notes:
    "Paper: 'We include two book corpora ... the Gutenberg Project ... and the Books3 section of " +
    "ThePile'. Books3 disk size 85GB in Table 1. Used as targets in WikiMIA (Min-K% Prob).",
  sources: [
    'LLaMA: Open and Efficient Foundation Language Models (Touvron et al., arXiv 2302.13971), Table 1 and §2.1',
  ],
  uncertain_fields: [],
} as const;

/**
 * Documentation of the dataset and knowledge-base operations, by operation id.
 * @example DATASETS_DOCS.createDataset.examples[0].body
 */
export const DATASETS_DOCS: Readonly<Record<string, RouteDocs>> = {
  // ---------------------------------------------------------------- reference datasets
  listDatasets: {
    description: `The reference datasets loaded on this server, with their size and declared links. ${shared}`,
    examples: [
      {
        name: 'starter',
        summary: 'A server started with the starter dataset',
        status: 200,
        response: {
          success: true,
          datasets: [SPDX_DATASET],
        },
      },
    ],
  },
  getDataset: {
    description: `The size and declared links of one reference dataset. ${shared}`,
    errorCases: [noDataset],
    examples: [
      {
        name: 'starter',
        summary: 'The SPDX licences',
        params: { dataset_id: 'spdx-licenses' },
        status: 200,
        response: { success: true, ...SPDX_DATASET },
      },
    ],
  },
  createDataset: {
    description:
      'Creates a reference dataset, optionally with its first documents: `exact` (every fingerprint kept) ' +
      'or `portrait` (a sample). `kb_dataset` and `models` are your declaration of what the documents sample; ' +
      'analyses and scores label the links derived from them as declared. Monitors are evaluated again. ' +
      `${shared} The dataset belongs to the calling account: only its analyses, scores and monitors search it, and only ` +
      'it may grow or drop it (`supplied_by: "account"` in every evidence source from it); made with an `admin` key it is ' +
      "the operator's and every account searches it. `datasets:write` is not among the scopes a key gets by default.",
    errorCases: [
      {
        code: 'ALREADY_EXISTS',
        when: "a reference dataset has this id (add documents to it instead), or another account's does (the id is taken)",
      },
      { code: 'NOT_FOUND', when: 'the knowledge base has no dataset `kb_dataset` or no model of `models`' },
      readOnly,
    ],
    examples: [
      {
        name: 'gutenbergSample',
        summary: 'A sample of Project Gutenberg holding the first paragraph of *Persuasion*',
        body: {
          id: 'gutenberg-sample',
          name: 'Project Gutenberg sample',
          kind: 'exact',
          kb_dataset: 'project-gutenberg',
          documents: [{ id: 'persuasion-1', text: PERSUASION_OPENING, meta: { author: 'Jane Austen', year: 1818 } }],
        },
        status: 201,
        response: { success: true, ...GUTENBERG_SAMPLE },
      },
      {
        name: 'exists',
        summary: 'The same id again',
        after: ['createDataset'],
        body: { id: 'gutenberg-sample' },
        status: 409,
        response: {
          success: false,
          error: {
            code: 'ALREADY_EXISTS',
            message:
              'An item with this id already exists: dataset "gutenberg-sample" exists; add documents with POST ' +
              '/api/v1/datasets/gutenberg-sample/documents',
          },
        },
      },
    ],
  },
  addDocuments: {
    description:
      `Adds documents to a reference dataset of the account; monitors are evaluated again. ${owned} ` +
      'The dataset is checked before the body is read.',
    errorCases: [
      noDataset,
      notOwner,
      { code: 'ALREADY_EXISTS', when: 'the dataset holds a document with one of the ids' },
      readOnly,
    ],
    examples: [
      {
        name: 'secondParagraph',
        summary: 'The next paragraph of *Persuasion*',
        after: ['createDataset'],
        params: { dataset_id: 'gutenberg-sample' },
        body: { documents: [{ id: 'persuasion-2', text: PERSUASION_VANITY }] },
        status: 200,
        response: {
          success: true,
          ...GUTENBERG_SAMPLE,
          documents: 2,
          tokens: 204,
          fingerprints: 42,
          bytes: 1183,
          index_bytes: 2512,
        },
      },
    ],
  },
  exportDataset: {
    description:
      'A reference dataset as one file (msgpack, versioned, checksummed), for `POST ' +
      '/api/v1/datasets/import` on another server or `engine.importDataset`.',
    errorCases: [
      noDataset,
      {
        code: 'NOT_SUPPORTED',
        when: 'the dataset is kept in PostgreSQL (`storage: "postgres"`): the database is its copy',
      },
    ],
    examples: [
      {
        name: 'download',
        summary: 'Save the Gutenberg sample to a file',
        after: ['createDataset'],
        params: { dataset_id: 'gutenberg-sample' },
        file: 'gutenberg-sample.tpds',
        status: 200,
      },
    ],
  },
  importDataset: {
    description:
      'Loads a dataset file from `GET /api/v1/datasets/{dataset_id}/export` under the id it was exported ' +
      `with; the dataset belongs to the calling account. ${shared}`,
    errorCases: [
      { code: 'ALREADY_EXISTS', when: "a reference dataset has the file's id" },
      { code: 'INVALID_INPUT', when: "the file's dataset id is not letters, digits, `.`, `_` and `-` (at most 200)" },
      { code: 'SNAPSHOT_INCOMPATIBLE', when: 'the file is truncated, corrupted or from an incompatible version' },
      { code: 'NOT_FOUND', when: 'the file declares a knowledge-base dataset or model this server does not know' },
      readOnly,
    ],
    examples: [
      {
        name: 'upload',
        summary: 'Load the exported file (after the dataset was deleted here)',
        after: ['exportDataset', 'deleteDataset'],
        file: 'gutenberg-sample.tpds',
        status: 201,
        response: { success: true, ...GUTENBERG_SAMPLE, index_bytes: 1208 },
      },
    ],
  },
  deleteDataset: {
    description: `Drops a reference dataset of the account; monitors are evaluated again. ${owned}`,
    errorCases: [noDataset, notOwner, readOnly],
    examples: [
      {
        name: 'drop',
        summary: 'Drop the Gutenberg sample',
        after: ['createDataset'],
        params: { dataset_id: 'gutenberg-sample' },
        status: 200,
        response: { success: true, id: 'gutenberg-sample', deleted: true },
      },
    ],
  },

  // ---------------------------------------------------------------- knowledge base
  listModels: {
    description:
      'Models of the knowledge base with their documented training data, disclosure and sources, filtered ' +
      'by provider, modality, disclosure or a dataset they are documented to have been trained on.',
    errorCases: [{ code: 'NOT_FOUND', when: '`dataset` names no dataset of the knowledge base' }],
    examples: [
      {
        name: 'trainedOnBooks3',
        summary: 'Models documented as trained on Books3, from one provider',
        query: { dataset: 'books3', provider: 'meta' },
        status: 200,
        response: {
          success: true,
          models: [LLAMA_7B, { ...LLAMA_7B, id: 'meta/llama-65b', training_tokens: '1.4T tokens' }],
        },
      },
    ],
  },
  getModel: {
    description: 'One model of the knowledge base, by `provider/model_name` (case-insensitive).',
    errorCases: [{ code: 'NOT_FOUND', when: 'the knowledge base has no such model' }],
    examples: [
      {
        name: 'llama',
        summary: KB_MODEL,
        params: { provider: KB_MODEL.split('/')[0], model: KB_MODEL.split('/')[1] },
        status: 200,
        response: { success: true, ...LLAMA_7B },
      },
    ],
  },
  listProviders: {
    description: 'The providers of the knowledge base with the ids of their models.',
    examples: [
      {
        name: 'all',
        summary: 'Every provider',
        status: 200,
        response: {
          success: true,
          providers: [
            {
              id: 'eleutherai',
              name: 'EleutherAI',
              models: ['eleutherai/gpt-neo-2.7b', 'eleutherai/gpt-j-6b'],
            },
            {
              id: 'allen-institute-for-ai',
              name: 'Allen Institute for AI',
              models: ['allenai/olmo-1b', 'allenai/olmo-7b'],
            },
          ],
        },
      },
    ],
  },
  listKbDatasets: {
    description:
      'The curated training datasets of the knowledge base (corpora such as The Pile, Books3, Common ' +
      'Crawl), with aliases, components and sources.',
    examples: [
      {
        name: 'all',
        summary: 'Every curated dataset',
        status: 200,
        response: {
          success: true,
          datasets: [
            {
              components: ['pile-cc', 'pubmed-central'],
              pirated: false,
              public_domain_in: [],
              id: 'the-pile',
              name: 'The Pile',
              kind: 'mixture',
              aliases: ['The Pile', 'Pile'],
              description: "EleutherAI's 825 GiB English text corpus of 22 sub-datasets, Books3 among them.",
              sources: [
                'The Pile: An 800GB Dataset of Diverse Text for Language Modeling (Gao et al., arXiv 2101.00027)',
              ],
            },
            {
              components: ['the-pile'],
              pirated: false,
              public_domain_in: [],
              id: 'the-pile-deduplicated',
              name: 'The Pile (deduplicated)',
              kind: 'mixture',
              aliases: ['The Pile (deduplicated)', 'Pile deduplicated'],
              description:
                'The Pile after near-duplicate removal, released by EleutherAI for the deduplicated Pythia ' +
                'models.',
              sources: [
                'Pythia (Biderman et al., arXiv 2304.01373)',
                'HF repo EleutherAI/pythia-6.9b-deduped-v0 (dataset tag)',
              ],
            },
          ],
        },
      },
    ],
  },
  getKbDataset: {
    description: 'One curated training dataset of the knowledge base.',
    errorCases: [{ code: 'NOT_FOUND', when: 'the knowledge base has no dataset with this id' }],
    examples: [
      {
        name: 'books3',
        summary: 'Books3',
        params: { kb_dataset_id: 'books3' },
        status: 200,
        response: {
          success: true,
          components: [],
          pirated: true,
          public_domain_in: [],
          id: 'books3',
          name: 'Books3',
          kind: 'books',
          aliases: ['Books3', 'Books3 section of ThePile'],
          description:
            'About 196,640 books derived from a copy of the Bibliotik shadow-library tracker; a component of ' +
            "The Pile, named in LLaMA-1's mix and in the Bartz v. Anthropic record.",
          sources: [
            'The Pile: An 800GB Dataset of Diverse Text for Language Modeling (Gao et al., arXiv 2101.00027)',
            'LLaMA: Open and Efficient Foundation Language Models (Touvron et al., arXiv 2302.13971), Table 1 and §2.1',
          ],
        },
      },
    ],
  },
  listJurisdictions: {
    description:
      'The jurisdiction table behind `legal_risk`: base weight, factor codes and reasons per jurisdiction. ' +
      'A heuristic, not legal advice.',
    examples: [
      {
        name: 'all',
        summary: 'Every jurisdiction',
        status: 200,
        response: {
          success: true,
          jurisdictions: [
            {
              code: 'EU',
              name: 'European Union',
              base: 0.5,
              factors: ['tdm_exception_with_opt_out', 'training_summary_required'],
              reasons:
                'Commercial TDM allowed unless machine-readable opt-out (DSM Art. 4); AI Act copyright policy ' +
                'and public training summary (Art. 53).',
            },
            {
              code: 'DE',
              name: 'Germany',
              base: 0.55,
              factors: ['memorization_is_reproduction'],
              reasons:
                'EU layer + GEMA v OpenAI (memorization = reproduction) + LAION line on machine-readable ' +
                'reservations.',
            },
          ],
        },
      },
    ],
  },
  listFactors: {
    description:
      'Every factor code a result may carry (`factors`, `limitations`, risk modifiers), with its category, ' +
      'meaning and source.',
    examples: [
      {
        name: 'all',
        summary: 'Every factor code',
        status: 200,
        response: {
          success: true,
          factors: [
            {
              code: 'verbatim_overlap',
              category: 'evidence',
              meaning:
                'A passage of the content occurs in an indexed reference dataset (exact match, spans in both ' +
                'texts).',
              source: 'engine.search, exact datasets',
            },
            {
              code: 'long_verbatim_run',
              category: 'evidence',
              meaning:
                'A matched passage covers ≥ 50 words: the length of the 50-token extractable-memorization ' +
                'criterion (Carlini et al. 2023).',
              source: 'Carlini et al. 2023 (arXiv:2202.07646)',
            },
          ],
        },
      },
    ],
  },
};
