/**
 * Hand-curated model records beside the generated facts (src/services/kb/models.generated.ts): models whose
 * training data is one of the corpora behind the public infini-gram indexes (src/services/kb/remote-indexes.ts)
 * but that the generated facts do not hold. Same shape and rules as the generated records: the provider's own
 * wording in `training_datasets` (mapped in src/services/kb/datasets.ts), primary sources per record, and every
 * field that the sources do not settle listed in `uncertain_fields`.
 */

import type { KbModelFact } from './types.js';

const OLMO2 = 'OLMo 2 (2 OLMo 2 Furious, OLMo Team, arXiv 2501.00656)';
const TULU3 = 'Tülu 3: Pushing Frontiers in Open Language Model Post-Training (Lambert et al., arXiv 2411.15124)';
const OLMOTRACE =
  'OLMoTrace: Tracing Language Model Outputs Back to Trillions of Training Tokens (Liu et al., arXiv 2504.07096)';
const INFINI_GRAM =
  'infini-gram API documentation, "Available indexes" (https://infini-gram.readthedocs.io/en/latest/api.html)';
const OLMO2_32B_BLOG =
  'Ai2 blog "OLMo 2 32B: First fully open model to outperform GPT 3.5 and GPT 4o mini" (allenai.org/blog/olmo2-32B, 13 Mar 2025)';

/**
 * The supplement's records, in the order they join the knowledge base (after the generated ones).
 * @example
 * MODEL_FACTS_SUPPLEMENT.find((f) => f.model === 'apple/dclm-7b')?.training_datasets
 * // ['DCLM-Baseline 1.0', 'StarCoder data', 'ProofPile2']
 */
export const MODEL_FACTS_SUPPLEMENT: readonly KbModelFact[] = [
  {
    model: 'apple/dclm-7b',
    provider: 'Apple',
    release_year: 2024,
    modality: 'text',
    training_datasets: ['DCLM-Baseline 1.0', 'StarCoder data', 'ProofPile2'],
    training_tokens: '2.5T tokens',
    disclosure: 'full',
    notes:
      "Model card: 'trained on the DCLM-Baseline dataset'; to make it useful for math and code, the 3.8T-token DCLM-Baseline was combined with StarCoder and ProofPile2 data into a 4.1T-token set. Developed by the DataComp for Language Models (DCLM) team and released under Apple's Hugging Face organisation (Apple Sample Code License), June 2024.",
    sources: [
      'HF model card apple/DCLM-7B README.md',
      'DataComp-LM: In search of the next generation of training sets for language models (Li et al., arXiv 2406.11794), §3.4 and Appendix F',
    ],
    // The card names the DCLM team as developer; Apple is the releasing organisation.
    uncertain_fields: ['provider'],
  },
  {
    model: 'allenai/olmo-7b-0424',
    provider: 'Allen Institute for AI',
    release_year: 2024,
    modality: 'text',
    training_datasets: ['Dolma v1.7'],
    training_tokens: '2.05T tokens',
    disclosure: 'full',
    notes:
      "OLMo 1.7-7B (repository allenai/OLMo-7B-0424, formerly OLMo-1.7-7B): 'an improved version of the Dolma dataset and staged training'. The Dolma card lists v1_7 as 'Used to train OLMo-7B-v1.7'.",
    sources: [
      'HF model card allenai/OLMo-7B-0424 (OLMo 1.7-7B) README.md',
      'HF dataset card allenai/dolma README.md (versions table)',
    ],
    uncertain_fields: [],
  },
  {
    model: 'allenai/olmo-2-0325-32b',
    provider: 'Allen Institute for AI',
    release_year: 2025,
    modality: 'text',
    training_datasets: ['OLMo-mix-1124', 'Dolmino-mix-1124'],
    training_tokens: '6T tokens',
    disclosure: 'full',
    notes:
      "Trained 'on the same ... pretraining and mid-training mixes released in November' (OLMo-mix-1124, Dolmino-mix-1124), up to 6T tokens.",
    sources: ['HF model card allenai/OLMo-2-0325-32B', OLMO2_32B_BLOG, OLMO2],
    uncertain_fields: [],
  },
  {
    model: 'allenai/olmo-2-0325-32b-instruct',
    provider: 'Allen Institute for AI',
    release_year: 2025,
    modality: 'text',
    training_datasets: [
      'OLMo-mix-1124',
      'Dolmino-mix-1124',
      'Tülu 3 SFT mixture (OLMo-specific variant)',
      'OLMo 2 32B preference mix (allenai/olmo-2-0325-32b-preference-mix)',
      'RLVR-GSM-MATH-IF-Mixed-Constraints (allenai)',
      'full training data, as indexed by infini-gram (v4_olmo-2-0325-32b-instruct_llama)',
    ],
    training_tokens: '6T tokens (base model)',
    disclosure: 'full',
    notes:
      "Post-trained from OLMo-2-0325-32B: SFT 'on an OLMo-specific variant of the Tülu 3 dataset', DPO on olmo-2-0325-32b-preference-mix, RLVR on RLVR-GSM-MATH-IF-Mixed-Constraints. infini-gram's index v4_olmo-2-0325-32b-instruct_llama holds its full training data (the corpus OLMoTrace searches).",
    sources: [
      'HF model card allenai/OLMo-2-0325-32B-Instruct (dataset tag allenai/RLVR-GSM-MATH-IF-Mixed-Constraints)',
      'HF model card allenai/OLMo-2-0325-32B-DPO (dataset tag allenai/olmo-2-0325-32b-preference-mix)',
      OLMO2_32B_BLOG,
      TULU3,
      INFINI_GRAM,
      OLMOTRACE,
    ],
    uncertain_fields: [],
  },
  {
    model: 'allenai/olmo-2-1124-13b-instruct',
    provider: 'Allen Institute for AI',
    release_year: 2024,
    modality: 'text',
    training_datasets: [
      'OLMo-mix-1124',
      'Dolmino-mix-1124',
      'Tülu 3 SFT mixture (OLMo-specific variant)',
      'OLMo 2 13B preference mix (allenai/olmo-2-1124-13b-preference-mix)',
      'RLVR-GSM (allenai)',
      'full training data, as indexed by infini-gram (v4_olmo-2-1124-13b-instruct_llama)',
    ],
    training_tokens: '5T tokens (base model)',
    disclosure: 'full',
    notes:
      "Post-trained from OLMo-2-1124-13B: SFT on allenai/tulu-3-sft-olmo-2-mixture, DPO on olmo-2-1124-13b-preference-mix, 'finally RLVR training' on allenai/RLVR-GSM (as the card names it). infini-gram's index v4_olmo-2-1124-13b-instruct_llama holds its full training data.",
    sources: ['HF model card allenai/OLMo-2-1124-13B-Instruct README.md', OLMO2, TULU3, INFINI_GRAM, OLMOTRACE],
    // Earlier revisions of the card named the 7B preference mix; the RLVR stage's data may have changed between releases.
    uncertain_fields: ['training_datasets'],
  },
  {
    model: 'allenai/olmoe-1b-7b-0125-instruct',
    provider: 'Allen Institute for AI',
    release_year: 2025,
    modality: 'text',
    training_datasets: [
      'Tülu 3 SFT mixture (OLMo-specific variant)',
      'full training data, as indexed by infini-gram (v4_olmoe-0125-1b-7b-instruct_llama)',
    ],
    training_tokens: null,
    disclosure: 'full',
    notes:
      "Post-trained variant of OLMoE-1B-7B January 2025 (allenai/OLMoE-1B-7B-0125): SFT 'on an OLMo-specific variant of the Tülu 3 dataset', then DPO and RLVR. infini-gram's index v4_olmoe-0125-1b-7b-instruct_llama holds its full training data. The base model's pretraining and mid-training mixes are not cited in this record.",
    sources: [
      'HF model card allenai/OLMoE-1B-7B-0125-SFT',
      'HF model card allenai/OLMoE-1B-7B-0125-Instruct',
      TULU3,
      INFINI_GRAM,
      OLMOTRACE,
    ],
    uncertain_fields: ['training_datasets', 'training_tokens'],
  },
];
