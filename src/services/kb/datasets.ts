/**
 * The curated table of training datasets and the map from each documented training-data entry of the KB
 * facts (src/services/kb/models.generated.ts) onto it.
 *
 * `components` reads "was assembled from, whole or as a filtered selection": The Pile ⊃ Books3 (the whole of
 * it), C4 ⊃ Common Crawl (a cleaned selection), FineWeb-Edu ⊃ FineWeb. So "a model trained on X trained on
 * text of every descendant of X", with less certainty the further down (see src/services/kb/kb.ts). The graph is a DAG:
 * a filtered derivative points at its source, a mixture at its parts, never both ways.
 *
 * Descriptions repeat figures only from the sources cited with each dataset (dataset papers, dataset and model
 * cards).
 */

import type { KbDataset, KbDatasetKind } from './types.js';

// Citations used more than once.
const PILE = 'The Pile: An 800GB Dataset of Diverse Text for Language Modeling (Gao et al., arXiv 2101.00027)';
const LLAMA =
  'LLaMA: Open and Efficient Foundation Language Models (Touvron et al., arXiv 2302.13971), Table 1 and §2.1';
const GPT3 = 'Language Models are Few-Shot Learners (Brown et al. 2020, arXiv 2005.14165) Table 2.2';
const BERT = 'BERT: Pre-training of Deep Bidirectional Transformers (Devlin et al., arXiv 1810.04805)';
const OPT = 'OPT: Open Pre-trained Transformer Language Models (arXiv 2205.01068)';
const DOLMA =
  'Dolma: an Open Corpus of Three Trillion Tokens for Language Model Pretraining Research (Soldaini et al., arXiv 2402.00159)';
const FINEWEB =
  'The FineWeb Datasets: Decanting the Web for the Finest Text Data at Scale (Penedo et al., arXiv 2406.17557)';
const REDPAJAMA = 'togethercomputer/RedPajama-Data README; HF dataset card togethercomputer/RedPajama-Data-1T';
const REDPAJAMA_PAPER =
  'RedPajama: an Open Dataset for Training Large Language Models (Weber et al., arXiv 2411.12372)';
const LLEMMA = 'Llemma: An Open Language Model For Mathematics (Azerbayev et al., arXiv 2310.10631)';
const SMOLLM = 'HF dataset card HuggingFaceTB/smollm-corpus README.md';
const LAION =
  'LAION-5B: An open large-scale dataset for training next generation image-text models (Schuhmann et al., arXiv 2210.08402)';
const SD_CARDS = 'HF model cards CompVis/stable-diffusion-v1-1 ... v1-4 (README history)';
const OLMO2 = 'OLMo 2 (arXiv 2501.00656)';
const DOLMA_CARD = 'HF dataset card allenai/dolma README.md (versions table; Dolma v1.7 summary statistics)';
const INFINI_GRAM =
  'infini-gram API documentation, "Available indexes" (https://infini-gram.readthedocs.io/en/latest/api.html)';
const OLMOTRACE =
  'OLMoTrace: Tracing Language Model Outputs Back to Trillions of Training Tokens (Liu et al., arXiv 2504.07096)';
const TULU3 = 'Tülu 3: Pushing Frontiers in Open Language Model Post-Training (Lambert et al., arXiv 2411.15124)';

/** The table's fields with the usual defaults (no components, not pirated). */
function ds(
  d: Omit<KbDataset, 'components' | 'pirated' | 'public_domain_in'> & {
    components?: readonly string[];
    pirated?: boolean;
    public_domain_in?: readonly string[];
  },
): KbDataset {
  return { components: [], pirated: false, public_domain_in: [], ...d };
}

/** The parts of the DCLM-based pretraining mixes of OLMoE and OLMo 2 (their cards list the same sources). */
const DCLM_MIX = [
  'dclm',
  'starcoder-data',
  'pes2o',
  'arxiv',
  'openwebmath',
  'algebraic-stack',
  'wikipedia',
  'wikibooks',
];

/**
 * The full training data of an Instruct model as infini-gram indexes it (`v4_<index>_llama`): its id is
 * `<index>-data`, its name and first alias "<model> training data". `index` is the model's name in lower case
 * unless given (OLMoE's index names its date first).
 */
function instructModelData(
  model: string,
  components: readonly string[],
  description: string,
  card: string,
  index = model.toLowerCase(),
  moreAliases: readonly string[] = [],
): KbDataset {
  return ds({
    id: `${index}-data`,
    name: `${model} training data`,
    kind: 'mixture',
    aliases: [`${model} training data`, ...moreAliases, `v4_${index}_llama`],
    components,
    description,
    sources: [INFINI_GRAM, OLMOTRACE, `HF model card ${card}`],
  });
}

/** A component of The Pile that no KB model names on its own: one line from Gao et al. 2020. */
function pilePart(
  id: string,
  name: string,
  kind: KbDatasetKind,
  description: string,
  aliases: string[] = [name],
): KbDataset {
  return ds({ id, name, kind, aliases, description: `${description}; a component of The Pile.`, sources: [PILE] });
}

/**
 * Every curated dataset, with a stable id. Ids are lower-case kebab; aliases are matched after
 * removing case and punctuation ({@link datasetKey}).
 *
 * @example
 * DATASETS.find((d) => d.id === 'books3')?.pirated // true
 */
export const DATASETS: readonly KbDataset[] = [
  // --- The Pile and its 22 components (Gao et al. 2020, Table 1) -------------------------------------------
  ds({
    id: 'the-pile',
    name: 'The Pile',
    kind: 'mixture',
    aliases: ['The Pile', 'Pile', 'ThePile', 'EleutherAI/pile'],
    components: [
      'pile-cc',
      'pubmed-central',
      'books3',
      'openwebtext2',
      'arxiv',
      'github',
      'freelaw',
      'stackexchange',
      'uspto',
      'pubmed-abstracts',
      'project-gutenberg',
      'opensubtitles',
      'wikipedia',
      'dm-mathematics',
      'ubuntu-irc',
      'bookcorpus2',
      'europarl',
      'hackernews',
      'youtube-subtitles',
      'philpapers',
      'nih-exporter',
      'enron-emails',
    ],
    description: "EleutherAI's 825 GiB English text corpus of 22 sub-datasets, Books3 among them.",
    sources: [PILE],
  }),
  ds({
    id: 'the-pile-deduplicated',
    name: 'The Pile (deduplicated)',
    kind: 'mixture',
    aliases: ['The Pile (deduplicated)', 'Pile deduplicated', 'EleutherAI/the_pile_deduplicated'],
    components: ['the-pile'],
    description: 'The Pile after near-duplicate removal, released by EleutherAI for the deduplicated Pythia models.',
    sources: ['Pythia (Biderman et al., arXiv 2304.01373)', 'HF repo EleutherAI/pythia-6.9b-deduped-v0 (dataset tag)'],
  }),
  ds({
    // Deliberately no components and no parent: the split is held out, so no model that documents "The Pile"
    // trained on it, and a match in it links to no model (the infini-gram indexes v4_pileval_*, v2_pileval).
    id: 'the-pile-validation',
    name: 'The Pile (validation split)',
    kind: 'mixture',
    aliases: ['The Pile (validation split)', 'Pile val', 'Pile validation split'],
    description:
      "The Pile's held-out validation split (214,670 documents), released for evaluation, not for training; no model documents training on it.",
    sources: [PILE, INFINI_GRAM],
  }),
  ds({
    id: 'pile-cc',
    name: 'Pile-CC',
    kind: 'web',
    aliases: ['Pile-CC'],
    components: ['common-crawl'],
    description: "Common Crawl pages extracted with jusText; The Pile's largest component (227.12 GiB).",
    sources: [PILE],
  }),
  pilePart('pubmed-central', 'PubMed Central', 'academic', 'Open-access biomedical full-text articles', [
    'PubMed Central',
    'PMC',
  ]),
  ds({
    id: 'books3',
    name: 'Books3',
    kind: 'books',
    aliases: ['Books3', 'Books3 section of ThePile'],
    pirated: true,
    // Pirated: Gao et al. describe Books3 as derived from a copy of the Bibliotik private tracker, a shadow library.
    description:
      "About 196,640 books derived from a copy of the Bibliotik shadow-library tracker; a component of The Pile, named in LLaMA-1's mix and in the Bartz v. Anthropic record.",
    sources: [
      PILE,
      LLAMA,
      'Bartz v. Anthropic, No. C 24-05417 WHA, order on summary judgment (N.D. Cal. June 23, 2025)',
    ],
  }),
  pilePart('openwebtext2', 'OpenWebText2', 'web', 'Web pages linked from Reddit submissions, a WebText-style scrape', [
    'OpenWebText2',
    'OWT2',
  ]),
  ds({
    id: 'arxiv',
    name: 'arXiv',
    kind: 'academic',
    aliases: ['arXiv', 'arXiv papers'],
    description:
      'Papers from the arXiv preprint server, as sliced into The Pile, LLaMA-1, RedPajama-Data-1T and Proof-Pile-2.',
    sources: [PILE, LLAMA, REDPAJAMA],
  }),
  ds({
    id: 'github',
    name: 'GitHub',
    kind: 'code',
    aliases: ['GitHub', 'GitHub code'],
    description:
      'Source code from public GitHub repositories, as sliced into The Pile, LLaMA-1, RedPajama-Data-1T and PaLM.',
    sources: [PILE, LLAMA],
  }),
  pilePart('freelaw', 'FreeLaw', 'legal', 'US court opinions from the Free Law Project', ['FreeLaw', 'Free Law']),
  ds({
    id: 'stackexchange',
    name: 'Stack Exchange',
    kind: 'forum',
    aliases: ['Stack Exchange', 'StackExchange'],
    description: "Questions and answers from the Stack Exchange network's public data dump.",
    sources: [PILE, LLAMA],
  }),
  pilePart(
    'uspto',
    'USPTO Backgrounds',
    'legal',
    'Background sections of patents granted by the US Patent and Trademark Office',
    ['USPTO Backgrounds', 'USPTO'],
  ),
  pilePart('pubmed-abstracts', 'PubMed Abstracts', 'academic', 'Abstracts of biomedical articles indexed by PubMed'),
  ds({
    id: 'project-gutenberg',
    name: 'Project Gutenberg (PG-19)',
    kind: 'books',
    aliases: ['Project Gutenberg', 'Gutenberg', 'Gutenberg Project', 'PG-19', 'Gutenberg (PG-19)'],
    description:
      'Public-domain books from Project Gutenberg; PG-19 is the pre-1919 selection that The Pile uses, and LLaMA-1, RedPajama and Dolma include Gutenberg books.',
    // "Project Gutenberg eBooks are ... in the public domain in the United States" (the licence every eBook carries);
    // elsewhere the copyright term of each author's country decides
    public_domain_in: ['US'],
    sources: [
      'Compressive Transformers for Long-Range Sequence Modelling (Rae et al., arXiv 1911.05507) — PG-19',
      PILE,
      LLAMA,
    ],
  }),
  pilePart('opensubtitles', 'OpenSubtitles', 'dialogue', 'Film and television subtitles from opensubtitles.org'),
  ds({
    id: 'wikipedia',
    name: 'Wikipedia',
    kind: 'encyclopedia',
    aliases: ['Wikipedia', 'English Wikipedia', 'Wikipedia (en)', 'enwiki'],
    description:
      'Wikipedia article text from the Wikimedia dumps, English-only or multilingual depending on the corpus.',
    sources: [PILE, LLAMA, BERT],
  }),
  pilePart(
    'dm-mathematics',
    'DM Mathematics',
    'math',
    "Synthetic school-level question-answer pairs from DeepMind's Mathematics dataset (Saxton et al., arXiv 1904.01557)",
    ['DM Mathematics', 'DeepMind Mathematics'],
  ),
  pilePart('ubuntu-irc', 'Ubuntu IRC', 'dialogue', 'Chat logs of the Ubuntu IRC channels'),
  pilePart(
    'bookcorpus2',
    'BookCorpus2',
    'books',
    'An expanded version of BookCorpus: books by as-yet unpublished authors',
  ),
  pilePart('europarl', 'EuroParl', 'dialogue', 'Multilingual proceedings of the European Parliament'),
  pilePart('hackernews', 'HackerNews', 'forum', 'Comment threads from the Hacker News forum', [
    'HackerNews',
    'Hacker News',
  ]),
  pilePart('youtube-subtitles', 'YouTube Subtitles', 'dialogue', 'Human-written subtitles of YouTube videos'),
  pilePart('philpapers', 'PhilPapers', 'academic', 'Open-access philosophy papers indexed by PhilPapers'),
  pilePart('nih-exporter', 'NIH ExPorter', 'academic', 'Abstracts of NIH-funded grant applications', [
    'NIH ExPorter',
    'NIH RePORTER',
  ]),
  pilePart(
    'enron-emails',
    'Enron Emails',
    'dialogue',
    'Emails of Enron employees released during the Enron investigation',
  ),

  // --- Common Crawl and the web corpora filtered from it ---------------------------------------------------
  ds({
    id: 'common-crawl',
    name: 'Common Crawl',
    kind: 'web',
    aliases: ['Common Crawl', 'CommonCrawl'],
    description:
      'The open web crawl (WARC/WET archives since 2008, a new crawl every 1–2 months); upstream of C4, RefinedWeb, FineWeb, Dolma, DCLM, RedPajama and LAION.',
    sources: [
      'Common Crawl (commoncrawl.org)',
      'FineWeb blog (huggingface.co/spaces/HuggingFaceFW/blogpost-fineweb-v1)',
    ],
  }),
  ds({
    id: 'ccnet',
    name: 'CCNet',
    kind: 'web',
    aliases: ['CCNet', 'cc_net'],
    components: ['common-crawl'],
    description:
      "Common Crawl paragraphs deduplicated, language-identified and quality-filtered by the CCNet pipeline; LLaMA-1's and RedPajama's CommonCrawl data.",
    sources: [
      'CCNet: Extracting High Quality Monolingual Datasets from Web Crawl Data (Wenzek et al., arXiv 1911.00359)',
      LLAMA,
    ],
  }),
  ds({
    id: 'c4',
    name: 'C4',
    kind: 'web',
    aliases: ['C4', 'Colossal Clean Crawled Corpus', 'allenai/c4'],
    components: ['common-crawl'],
    description: 'About 750 GB of English text heuristically cleaned from the April 2019 Common Crawl snapshot.',
    sources: [
      'Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer (Raffel et al., arXiv 1910.10683)',
    ],
  }),
  ds({
    id: 'mc4',
    name: 'mC4',
    kind: 'web',
    aliases: ['mC4', 'Multilingual C4', 'mC4 3.1.0'],
    components: ['common-crawl'],
    description: 'The multilingual C4: Common Crawl text in many languages cleaned with C4-style filters.',
    sources: ['mT5: A massively multilingual pre-trained text-to-text transformer (Xue et al., arXiv 2010.11934)'],
  }),
  ds({
    id: 'refinedweb',
    name: 'RefinedWeb',
    kind: 'web',
    aliases: ['RefinedWeb', 'Falcon RefinedWeb', 'Falcon RefinedWeb extract', 'tiiuae/falcon-refinedweb'],
    components: ['common-crawl'],
    description:
      'Common Crawl only, filtered and fuzzy/exact-deduplicated with the MDR pipeline; a public extract of about 968M pages (ODC-By 1.0).',
    sources: ['The RefinedWeb Dataset for Falcon LLM (arXiv 2306.01116)', 'HF dataset card tiiuae/falcon-refinedweb'],
  }),
  ds({
    id: 'fineweb',
    name: 'FineWeb',
    kind: 'web',
    aliases: ['FineWeb', 'HuggingFaceFW/fineweb'],
    components: ['common-crawl'],
    description: '15T tokens from 96 Common Crawl snapshots (2013–2024), filtered and deduplicated per snapshot.',
    sources: [FINEWEB],
  }),
  ds({
    id: 'fineweb-edu',
    name: 'FineWeb-Edu',
    kind: 'web',
    aliases: ['FineWeb-Edu', 'FineWeb-Edu-dedup', 'HuggingFaceFW/fineweb-edu'],
    components: ['fineweb'],
    description:
      'FineWeb filtered by an educational-quality classifier trained on Llama-3-70B-Instruct annotations (1.3T tokens at the strict threshold).',
    sources: [FINEWEB, 'HF card HuggingFaceFW/fineweb-edu-classifier'],
  }),
  ds({
    id: 'dclm',
    name: 'DCLM-Baseline',
    kind: 'web',
    aliases: ['DCLM', 'DCLM-Baseline', 'DCLM-Baseline 1.0', 'DataComp-LM'],
    components: ['common-crawl'],
    description:
      "DataComp-LM's baseline training set: Common Crawl text filtered with heuristics, deduplication and a fastText quality classifier.",
    sources: [
      'DataComp-LM: In search of the next generation of training sets for language models (Li et al., arXiv 2406.11794)',
    ],
  }),
  ds({
    id: 'oscar',
    name: 'OSCAR',
    kind: 'web',
    aliases: ['OSCAR'],
    components: ['common-crawl'],
    description: 'Multilingual Common Crawl text classified by language; the web part of ROOTS.',
    sources: [
      'Asynchronous Pipeline for Processing Huge Corpora on Medium to Low Resource Infrastructures (Ortiz Suárez et al., CMLC-7 2019)',
      'The BigScience ROOTS Corpus (arXiv 2303.03915)',
    ],
  }),
  ds({
    id: 'cc-stories',
    name: 'CC-Stories',
    kind: 'web',
    aliases: ['CC-Stories', 'CC Stories'],
    components: ['common-crawl'],
    description:
      'Common Crawl documents selected for their similarity to commonsense-reasoning questions; used by OPT.',
    sources: ['A Simple Method for Commonsense Reasoning (Trinh & Le, arXiv 1806.02847)', OPT],
  }),
  ds({
    id: 'ccnews',
    name: 'CC-News',
    kind: 'news',
    aliases: ['CC-News', 'CCNews', 'CCNewsV2', 'CC-News v2'],
    components: ['common-crawl'],
    description: "News articles from Common Crawl's news crawl; OPT used an updated version (CCNewsV2).",
    sources: ['RoBERTa: A Robustly Optimized BERT Pretraining Approach (Liu et al., arXiv 1907.11692)', OPT],
  }),
  ds({
    id: 'openwebmath',
    name: 'OpenWebMath',
    kind: 'math',
    aliases: ['OpenWebMath', 'open-web-math'],
    components: ['common-crawl'],
    description: 'Mathematical web pages extracted from Common Crawl with their LaTeX preserved.',
    sources: [
      'OpenWebMath: An Open Dataset of High-Quality Mathematical Web Text (Paster et al., arXiv 2310.06786)',
      LLEMMA,
    ],
  }),

  // --- OpenAI's corpora (contents not released) -------------------------------------------------------------
  ds({
    id: 'webtext',
    name: 'WebText',
    kind: 'web',
    aliases: ['WebText'],
    description:
      'About 8M documents (about 40 GB) from outbound Reddit links with at least 3 karma, collected to Dec 2017, Wikipedia removed; not released.',
    sources: ['Language Models are Unsupervised Multitask Learners (Radford et al. 2019)'],
  }),
  ds({
    id: 'webtext2',
    name: 'WebText2',
    kind: 'web',
    aliases: ['WebText2'],
    components: ['webtext'],
    description:
      "An expanded WebText scraped over a longer period (22% of GPT-3's mix); contents not publicly documented.",
    sources: [GPT3],
  }),
  ds({
    id: 'books1',
    name: 'Books1',
    kind: 'books',
    aliases: ['Books1'],
    description: "An internet-based books corpus (8% of GPT-3's mix); OpenAI has not documented its contents.",
    sources: [GPT3],
  }),
  ds({
    id: 'books2',
    name: 'Books2',
    kind: 'books',
    aliases: ['Books2'],
    description: "An internet-based books corpus (8% of GPT-3's mix); OpenAI has not documented its contents.",
    sources: [GPT3],
  }),

  // --- Books, forums, papers --------------------------------------------------------------------------------
  ds({
    id: 'bookcorpus',
    name: 'BookCorpus',
    kind: 'books',
    aliases: ['BookCorpus', 'BooksCorpus', 'Toronto BookCorpus'],
    description: 'Unpublished novels (800M words) collected by Zhu et al. 2015; used by BERT and OPT.',
    sources: [
      'Aligning Books and Movies: Towards Story-like Visual Explanations by Watching Movies and Reading Books (Zhu et al., arXiv 1506.06724)',
      BERT,
    ],
  }),
  ds({
    id: 'pushshift-reddit',
    name: 'Pushshift Reddit',
    kind: 'forum',
    aliases: ['Pushshift Reddit', 'Pushshift.io Reddit', 'Reddit (Pushshift)'],
    description: 'Reddit submissions and comments archived by Pushshift; used by OPT and Dolma.',
    sources: ['The Pushshift Reddit Dataset (Baumgartner et al., arXiv 2001.08435)', OPT, DOLMA],
  }),
  ds({
    id: 's2orc',
    name: 'S2ORC',
    kind: 'academic',
    aliases: ['S2ORC', 'Semantic Scholar Open Research Corpus'],
    description: 'The Semantic Scholar Open Research Corpus of academic papers.',
    sources: ['S2ORC: The Semantic Scholar Open Research Corpus (Lo et al., ACL 2020)'],
  }),
  ds({
    id: 'pes2o',
    name: 'peS2o',
    kind: 'academic',
    aliases: ['peS2o', 'allenai/peS2o'],
    components: ['s2orc'],
    description: 'About 40M open-access academic papers derived from S2ORC and cleaned for language-model pretraining.',
    sources: [DOLMA, 'HF dataset card allenai/peS2o'],
  }),
  ds({
    id: 'wikibooks',
    name: 'Wikibooks',
    kind: 'encyclopedia',
    aliases: ['Wikibooks'],
    description: "Open textbooks from Wikimedia's Wikibooks; Dolma and the OLMo mixes pair it with Wikipedia.",
    sources: [DOLMA],
  }),

  // --- Code -------------------------------------------------------------------------------------------------
  ds({
    id: 'the-stack',
    name: 'The Stack',
    kind: 'code',
    aliases: ['The Stack', 'The Stack v1', 'The Stack v1.2', 'bigcode/the-stack'],
    components: ['github'],
    description:
      'Permissively licensed source code from GitHub (v1.0: 3.1 TB in 30 languages; later releases over 6 TB in 358 languages), with an opt-out process.',
    sources: [
      'The Stack: 3 TB of permissively licensed source code (Kocetkov et al., arXiv 2211.15533)',
      'HF dataset card bigcode/the-stack',
    ],
  }),
  ds({
    id: 'the-stack-v2',
    name: 'The Stack v2',
    kind: 'code',
    aliases: ['The Stack v2', 'bigcode/the-stack-v2'],
    components: ['github'],
    // Software Heritage archives GitHub among other forges, hence github as a component.
    description:
      'Code from the Software Heritage archive in 619 languages plus GitHub pull requests, Kaggle notebooks and code documentation.',
    sources: ['StarCoder 2 and The Stack v2 (arXiv 2402.19173)'],
  }),
  ds({
    id: 'starcoder-data',
    name: 'StarCoderData',
    kind: 'code',
    aliases: ['StarCoder data', 'StarCoderData', 'bigcode/starcoderdata'],
    components: ['the-stack'],
    description:
      "StarCoder's pretraining set, built from The Stack v1.2 (with GitHub issues, Jupyter notebooks and commits).",
    sources: [
      'StarCoder: may the source be with you! (Li et al., arXiv 2305.06161)',
      'HF dataset card bigcode/starcoderdata',
    ],
  }),
  ds({
    id: 'python-edu',
    name: 'Python-Edu',
    kind: 'code',
    aliases: ['Python-Edu'],
    components: ['the-stack-v2'],
    description:
      'About 7.7M Python files from The Stack v2 scored 4 or more by an educational-code classifier; part of SmolLM-Corpus.',
    sources: [SMOLLM],
  }),
  ds({
    id: 'algebraic-stack',
    name: 'AlgebraicStack',
    kind: 'math',
    aliases: ['Algebraic Stack', 'AlgebraicStack'],
    components: ['github'],
    description: 'Mathematical source code (proof assistants, computer algebra, numerics) collected for Proof-Pile-2.',
    sources: [LLEMMA],
  }),

  // --- Mixtures named by model documentation --------------------------------------------------------------
  ds({
    id: 'redpajama-v1',
    name: 'RedPajama-Data-1T',
    kind: 'mixture',
    aliases: [
      'RedPajama-Data-1T',
      'RedPajama-Data',
      'RedPajama',
      'RedPajama v1',
      'RedPajama-Data-v1',
      'togethercomputer/RedPajama-Data-1T',
    ],
    components: ['ccnet', 'c4', 'github', 'redpajama-books', 'arxiv', 'wikipedia', 'stackexchange'],
    description:
      "A clean-room reproduction of LLaMA-1's recipe: CommonCrawl (through CCNet), C4, GitHub, Books (PG-19 and Books3), arXiv, Wikipedia and StackExchange.",
    sources: [REDPAJAMA, REDPAJAMA_PAPER],
  }),
  ds({
    id: 'redpajama-books',
    name: 'RedPajama Books',
    kind: 'books',
    aliases: ['RedPajama Books', 'RedPajama book slice'],
    // The KB facts flag this composition as unverified for MPT; RedPajama's own README gives it.
    components: ['project-gutenberg', 'books3'],
    description: 'The book slice of RedPajama-Data-1T: PG-19 and Books3, deduplicated.',
    sources: [REDPAJAMA, REDPAJAMA_PAPER],
  }),
  ds({
    id: 'dolma',
    name: 'Dolma',
    kind: 'mixture',
    aliases: ['Dolma', 'allenai/dolma', 'Dolma v1.5', 'Dolma v1.6'],
    components: [
      'common-crawl',
      'c4',
      'the-stack',
      'pushshift-reddit',
      'pes2o',
      'project-gutenberg',
      'wikipedia',
      'wikibooks',
    ],
    description:
      "AI2's 3T-token English corpus, versions 1 to 1.6 (v1.5 trained OLMo-1B, a sample of it OLMo-7B): web (Common Crawl, C4), code (The Stack), Reddit, peS2o papers, Project Gutenberg books, Wikipedia and Wikibooks.",
    sources: [DOLMA, DOLMA_CARD],
  }),
  ds({
    // Its own id: the Dolma card names v1_7 as the data of OLMo 7B v1.7 (OLMo-7B-0424) only, while OLMo-1B and
    // OLMo-7B trained on v1.5. It re-filters Dolma v1.6's web, C4, papers, books and wiki text and adds sources,
    // so `dolma` is a component (training on v1.7 is training on text of Dolma) and not the other way round.
    id: 'dolma-v1-7',
    name: 'Dolma v1.7',
    kind: 'mixture',
    aliases: ['Dolma v1.7', 'Dolma 1.7', 'Dolma-v1.7', 'dolma-v1_7'],
    components: [
      'dolma',
      'common-crawl',
      'refinedweb',
      'starcoder-data',
      'c4',
      'pushshift-reddit',
      'pes2o',
      'arxiv',
      'stackexchange',
      'flan',
      'ccnews',
      'openwebmath',
      'algebraic-stack',
      'project-gutenberg',
      'wikipedia',
      'wikibooks',
    ],
    description:
      "Dolma's April 2024 release: Dolma v1.6's Common Crawl and C4 text re-filtered and fuzzily deduplicated, plus RefinedWeb, StarCoder, Reddit, peS2o, arXiv, StackExchange, Flan, CC News, OpenWebMath, Algebraic Stack, Gutenberg, MegaWika, Wikipedia and Wikibooks.",
    sources: [DOLMA_CARD, DOLMA],
  }),
  ds({
    id: 'olmoe-mix-0924',
    name: 'OLMoE-mix-0924',
    kind: 'mixture',
    aliases: ['OLMoE-mix-0924', 'allenai/OLMoE-mix-0924'],
    components: DCLM_MIX,
    description:
      "OLMoE's 4.07T-token mix: DCLM-Baseline 1.0 (3.86T), StarCoder, peS2o, arXiv, OpenWebMath, Algebraic Stack, Wikipedia and Wikibooks (ODC-BY).",
    sources: ['HF dataset card allenai/OLMoE-mix-0924 README.md'],
  }),
  ds({
    id: 'olmo-mix-1124',
    name: 'OLMo-mix-1124',
    kind: 'mixture',
    aliases: ['OLMo-mix-1124', 'allenai/olmo-mix-1124'],
    components: DCLM_MIX,
    description:
      "OLMo 2's pretraining mix: DCLM-Baseline web text with StarCoder code, peS2o, arXiv, OpenWebMath, Algebraic Stack, Wikipedia and Wikibooks.",
    sources: ['HF dataset card allenai/olmo-mix-1124', OLMO2],
  }),
  ds({
    id: 'dolmino-mix-1124',
    name: 'Dolmino-mix-1124',
    kind: 'mixture',
    aliases: ['Dolmino-mix-1124', 'allenai/dolmino-mix-1124'],
    components: ['dclm', 'flan', 'pes2o', 'wikipedia', 'stackexchange'],
    description:
      "OLMo 2's mid-training mix: high-quality DCLM web text, peS2o, Flan, Wikipedia, StackExchange and math data (TuluMath and others).",
    sources: ['HF dataset card allenai/dolmino-mix-1124', OLMO2],
  }),
  ds({
    id: 'tulu-3',
    name: 'Tülu 3 post-training data',
    kind: 'instruction',
    aliases: ['Tülu 3', 'Tulu 3', 'Tülu 3 post-training data', 'allenai/tulu-3-sft-olmo-2-mixture'],
    description:
      'The SFT mixture, preference (DPO) mixes and RLVR prompts of the Tülu 3 recipe, including the OLMo-specific variants used to post-train the OLMo 2 and OLMoE Instruct models.',
    sources: [TULU3, 'HF dataset cards allenai/tulu-3-sft-olmo-2-mixture, allenai/RLVR-GSM-MATH-IF-Mixed-Constraints'],
  }),
  // The full training data of an Instruct model, as one infini-gram index (the corpora OLMoTrace searches).
  instructModelData(
    'OLMo-2-0325-32B-Instruct',
    ['olmo-mix-1124', 'dolmino-mix-1124', 'tulu-3'],
    'Everything OLMo 2 32B Instruct was trained on: pretraining (OLMo-mix-1124), mid-training (Dolmino-mix-1124) and Tülu 3 post-training data.',
    'allenai/OLMo-2-0325-32B-Instruct',
  ),
  instructModelData(
    'OLMo-2-1124-13B-Instruct',
    ['olmo-mix-1124', 'dolmino-mix-1124', 'tulu-3'],
    'Everything OLMo 2 13B Instruct was trained on: pretraining (OLMo-mix-1124), mid-training (Dolmino-mix-1124) and Tülu 3 post-training data.',
    'allenai/OLMo-2-1124-13B-Instruct',
  ),
  // Pretraining and mid-training mixes of the 0125 base are not cited here, so only the post-training part is a component.
  instructModelData(
    'OLMoE-1B-7B-0125-Instruct',
    ['tulu-3'],
    'Everything OLMoE 1B-7B (January 2025) Instruct was trained on, pretraining to post-training (Tülu 3, OLMo-specific variant).',
    'allenai/OLMoE-1B-7B-0125-SFT',
    'olmoe-0125-1b-7b-instruct',
    ['OLMoE-0125-1B-7B-Instruct training data'],
  ),
  ds({
    id: 'flan',
    name: 'Flan',
    kind: 'instruction',
    aliases: ['Flan', 'Flan Collection'],
    description: 'Instruction-formatted tasks of the Flan Collection; part of Dolmino-mix-1124.',
    sources: [
      'The Flan Collection: Designing Data and Methods for Effective Instruction Tuning (Longpre et al., arXiv 2301.13688)',
    ],
  }),
  ds({
    id: 'proof-pile-2',
    name: 'Proof-Pile-2',
    kind: 'math',
    aliases: ['Proof-Pile-2', 'Proof Pile II', 'Proof Pile 2', 'EleutherAI/proof-pile-2'],
    components: ['arxiv', 'openwebmath', 'algebraic-stack'],
    description: "Llemma's mathematical corpus: arXiv papers (RedPajama v1's slice), OpenWebMath and AlgebraicStack.",
    sources: [LLEMMA],
  }),
  ds({
    id: 'cosmopedia',
    name: 'Cosmopedia',
    kind: 'synthetic',
    aliases: ['Cosmopedia', 'Cosmopedia v2', 'HuggingFaceTB/cosmopedia'],
    description:
      'Synthetic textbooks, blog posts and stories generated by Mixtral-8x7B-Instruct; v2 (39.1M documents) is part of SmolLM-Corpus.',
    sources: [SMOLLM, 'HF dataset card HuggingFaceTB/cosmopedia'],
  }),
  ds({
    id: 'smollm-corpus',
    name: 'SmolLM-Corpus',
    kind: 'mixture',
    aliases: ['SmolLM-Corpus', 'HuggingFaceTB/smollm-corpus'],
    components: ['cosmopedia', 'fineweb-edu', 'python-edu'],
    description:
      "Hugging Face's SmolLM training corpus: Cosmopedia v2, FineWeb-Edu (deduplicated) and Python-Edu (ODC-BY).",
    sources: [SMOLLM],
  }),
  ds({
    id: 'roots',
    name: 'ROOTS',
    kind: 'mixture',
    aliases: ['ROOTS', 'ROOTS corpus', 'BigScience ROOTS Corpus'],
    components: ['oscar'],
    description:
      "BigScience's 1.6 TB corpus in 59 languages: community-curated sources plus pseudo-crawled and OSCAR web data; a large initial subset is released.",
    sources: ['The BigScience ROOTS Corpus (arXiv 2303.03915)'],
  }),
  ds({
    id: 'databricks-dolly-15k',
    name: 'databricks-dolly-15k',
    kind: 'instruction',
    aliases: ['databricks-dolly-15k', 'Dolly 15k'],
    description: 'About 15K instruction-following records written by Databricks employees (CC-BY-SA).',
    sources: ['databrickslabs/dolly README; Databricks blog 2023-04-12'],
  }),

  // --- Image-text (links and alt text) -------------------------------------------------------------------
  ds({
    id: 'laion-5b',
    name: 'LAION-5B',
    kind: 'image-text',
    aliases: ['LAION-5B'],
    components: ['laion-2b-en', 'common-crawl'],
    description:
      '5.85B CLIP-filtered image-text pairs (image URLs and alt text from Common Crawl): 2.32B English, 2.26B other languages, 1.27B with no detected language.',
    sources: [LAION],
  }),
  ds({
    id: 'laion-2b-en',
    name: 'LAION-2B-en',
    kind: 'image-text',
    aliases: ['LAION-2B-en', 'LAION-2B (en)', 'laion2B-en'],
    components: ['common-crawl'],
    description: 'The English part of LAION-5B: 2.32B image-text pairs.',
    sources: [LAION],
  }),
  ds({
    id: 'laion-high-resolution',
    name: 'LAION-High-Resolution',
    kind: 'image-text',
    aliases: ['laion-high-resolution'],
    components: ['laion-5b'],
    description: 'LAION-5B pairs with images of at least 1024 px (170M examples in Stable Diffusion v1-1 training).',
    sources: [SD_CARDS],
  }),
  ds({
    id: 'laion-improved-aesthetics',
    name: 'LAION-Improved-Aesthetics',
    kind: 'image-text',
    aliases: ['laion-improved-aesthetics'],
    components: ['laion-2b-en'],
    description:
      'LAION-2B-en pairs with an estimated aesthetics score above 5.0 and watermark probability below 0.5 (Stable Diffusion v1-2 to v1-4).',
    sources: [SD_CARDS],
  }),
];

/** How one documented training-data string maps onto {@link DATASETS}. */
export interface EntryMapping {
  /** Dataset ids the string names; empty when it names no identifiable dataset. */
  readonly datasets: readonly string[];
  /** Ids the string documents as removed ("without Books3"). */
  readonly excludes?: readonly string[];
  /** Mixture share where the string gives one. */
  readonly share?: string;
  /** Parents of which the string names parts only ("The Pile subset (…)"). */
  readonly subset_of?: readonly string[];
}

const NONE: EntryMapping = { datasets: [] };
const PILE_SUBSET = [
  'pile-cc',
  'openwebtext2',
  'uspto',
  'project-gutenberg',
  'opensubtitles',
  'wikipedia',
  'dm-mathematics',
  'hackernews',
];
const RP: Pick<EntryMapping, 'subset_of'> = { subset_of: ['redpajama-v1'] };
const SMOL: Pick<EntryMapping, 'subset_of'> = { subset_of: ['smollm-corpus'] };

/**
 * Every distinct `training_datasets` string of the KB facts (the generated facts and the hand-curated supplement,
 * src/services/kb/models-supplement.ts), mapped by hand onto dataset ids. Exhaustive on
 * purpose: a new string in the facts must be read by a person, so an unmapped one is an error (checked by
 * {@link KnowledgeBase} and by test/unit/kb.test.ts), never a guess by string similarity.
 *
 * @example
 * ENTRY_MAP['The Pile (without Books3)'] // { datasets: ['the-pile'], excludes: ['books3'] }
 */
export const ENTRY_MAP: Readonly<Record<string, EntryMapping>> = {
  // EleutherAI, Cerebras, Databricks
  'The Pile': { datasets: ['the-pile'] },
  'The Pile (deduplicated)': { datasets: ['the-pile-deduplicated'] },
  'The Pile (via base model EleutherAI/pythia-12b)': { datasets: ['the-pile'] },
  'databricks-dolly-15k (~15K instruction records written by Databricks employees)': {
    datasets: ['databricks-dolly-15k'],
  },
  "undisclosed 'carefully curated data'": NONE,

  // Allen Institute for AI
  Dolma: { datasets: ['dolma'] },
  'OLMoE-mix-0924': { datasets: ['olmoe-mix-0924'] },
  'DCLM-Baseline 1.0': { datasets: ['dclm'] },
  'StarCoder data': { datasets: ['starcoder-data'] },
  peS2o: { datasets: ['pes2o'] },
  // Proof-Pile-2's arXiv slice is RedPajama v1's, so the string names a part of both.
  'arXiv (RedPajama v1 via Proof Pile II)': { datasets: ['arxiv'], subset_of: ['proof-pile-2', 'redpajama-v1'] },
  OpenWebMath: { datasets: ['openwebmath'] },
  'Algebraic Stack': { datasets: ['algebraic-stack'] },
  'Wikipedia + Wikibooks (Dolma)': { datasets: ['wikipedia', 'wikibooks'], subset_of: ['dolma'] },
  'OLMo-mix-1124': { datasets: ['olmo-mix-1124'] },
  // The parenthesis lists the mix's own parts (recorded as its components), not a subset.
  'Dolmino-mix-1124 (DCLM, Flan, peS2o, Wikipedia, StackExchange, math)': { datasets: ['dolmino-mix-1124'] },
  'Dolmino-mix-1124': { datasets: ['dolmino-mix-1124'] },

  // --- The hand-curated supplement (src/services/kb/models-supplement.ts) ---------------------------------------
  'Dolma v1.7': { datasets: ['dolma-v1-7'] },
  ProofPile2: { datasets: ['proof-pile-2'] },
  'Tülu 3 SFT mixture (OLMo-specific variant)': { datasets: ['tulu-3'] },
  'OLMo 2 32B preference mix (allenai/olmo-2-0325-32b-preference-mix)': { datasets: ['tulu-3'] },
  'RLVR-GSM-MATH-IF-Mixed-Constraints (allenai)': { datasets: ['tulu-3'] },
  'OLMo 2 13B preference mix (allenai/olmo-2-1124-13b-preference-mix)': { datasets: ['tulu-3'] },
  'RLVR-GSM (allenai)': { datasets: ['tulu-3'] },
  'full training data, as indexed by infini-gram (v4_olmo-2-0325-32b-instruct_llama)': {
    datasets: ['olmo-2-0325-32b-instruct-data'],
  },
  'full training data, as indexed by infini-gram (v4_olmo-2-1124-13b-instruct_llama)': {
    datasets: ['olmo-2-1124-13b-instruct-data'],
  },
  'full training data, as indexed by infini-gram (v4_olmoe-0125-1b-7b-instruct_llama)': {
    datasets: ['olmoe-0125-1b-7b-instruct-data'],
  },

  // Meta: LLaMA-1 (Table 1), Llama 2/3, OPT
  'CommonCrawl (CCNet, 67%)': { datasets: ['common-crawl', 'ccnet'], share: '67%' },
  'C4 (15%)': { datasets: ['c4'], share: '15%' },
  'GitHub (4.5%)': { datasets: ['github'], share: '4.5%' },
  'Wikipedia (4.5%)': { datasets: ['wikipedia'], share: '4.5%' },
  'Project Gutenberg + Books3 (4.5%)': { datasets: ['project-gutenberg', 'books3'], share: '4.5%' },
  'ArXiv (2.5%)': { datasets: ['arxiv'], share: '2.5%' },
  'StackExchange (2%)': { datasets: ['stackexchange'], share: '2%' },
  "undisclosed 'new mix of data from publicly available sources'": NONE,
  "undisclosed 'publicly available sources'": NONE,
  BookCorpus: { datasets: ['bookcorpus'] },
  'CC-Stories': { datasets: ['cc-stories'] },
  'The Pile subset (Pile-CC, OpenWebText2, USPTO, Project Gutenberg, OpenSubtitles, Wikipedia, DM Mathematics, HackerNews)':
    {
      datasets: PILE_SUBSET,
      subset_of: ['the-pile'],
    },
  'Pushshift.io Reddit': { datasets: ['pushshift-reddit'] },
  CCNewsV2: { datasets: ['ccnews'] },

  // OpenAI
  WebText: { datasets: ['webtext'] },
  'Common Crawl (filtered, 410B tokens, 60%)': { datasets: ['common-crawl'], share: '60%' },
  'WebText2 (19B, 22%)': { datasets: ['webtext2'], share: '22%' },
  'Books1 (12B, 8%)': { datasets: ['books1'], share: '8%' },
  'Books2 (55B, 8%)': { datasets: ['books2'], share: '8%' },
  'Wikipedia (3B, 3%)': { datasets: ['wikipedia'], share: '3%' },
  'undisclosed (publicly available data e.g. internet data, and data licensed from third-party providers)': NONE,

  // Google: PaLM's categories name no dataset, except GitHub and Wikipedia as sources
  'C4 (Colossal Clean Crawled Corpus)': { datasets: ['c4'] },
  'BooksCorpus (800M words)': { datasets: ['bookcorpus'] },
  'English Wikipedia (2,500M words)': { datasets: ['wikipedia'] },
  'Social media conversations, multilingual (50%)': { datasets: [], share: '50%' },
  'Filtered webpages, multilingual (27%)': { datasets: [], share: '27%' },
  'Books, English (13%)': { datasets: [], share: '13%' },
  'GitHub code (5%)': { datasets: ['github'], share: '5%' },
  'Wikipedia, multilingual (4%)': { datasets: ['wikipedia'], share: '4%' },
  'News, English (1%)': { datasets: [], share: '1%' },
  'primarily-English web documents, mathematics, and code (undisclosed sources)': NONE,
  'primarily-English web documents, code, and science articles (undisclosed sources)': NONE,

  // BigScience, TII, Mistral AI, Microsoft
  'ROOTS corpus': { datasets: ['roots'] },
  RefinedWeb: { datasets: ['refinedweb'] },
  'curated corpora (not enumerated on the card)': NONE,
  undisclosed: NONE,
  // phi-1's paper draws the web code from The Stack and StackOverflow, but the facts mark the sources uncertain.
  "'textbook quality' filtered web code data (6B tokens)": NONE,
  'GPT-3.5-generated synthetic textbooks and exercises (1B tokens)': NONE,
  'heavily filtered publicly available web data': NONE,
  'synthetic data (scaled-up phi-2 dataset)': NONE,

  // Hugging Face: the three SmolLM-Corpus parts are one list in the card, split by the facts
  'SmolLM-Corpus: Cosmopedia v2 (39.1M synthetic textbooks/blog posts/stories generated by Mixtral-8x7B-Instruct)': {
    datasets: ['cosmopedia'],
    ...SMOL,
  },
  'FineWeb-Edu (deduplicated, 190.2M documents)': { datasets: ['fineweb-edu'], ...SMOL },
  'Python-Edu (7.7M Python files from The Stack v2 scored >=4 by an educational-code classifier)': {
    datasets: ['python-edu'],
    ...SMOL,
  },
  'FineWeb-Edu': { datasets: ['fineweb-edu'] },
  DCLM: { datasets: ['dclm'] },
  'The Stack': { datasets: ['the-stack'] },
  // FineMath and Stack-Edu are named "per paper"; the facts list those names as uncertain.
  'new math and code datasets (FineMath, Stack-Edu per paper)': NONE,

  // BigCode
  'The Stack (v1.2, permissively licensed GitHub code, 80+ languages)': { datasets: ['the-stack'] },
  'The Stack v2 (Software Heritage, 619 programming languages)': { datasets: ['the-stack-v2'] },
  'GitHub pull requests': { datasets: ['github'] },
  'Kaggle notebooks': NONE,
  'code documentation': NONE,

  // Stability AI (StableLM; Stable Diffusion)
  'Falcon RefinedWeb extract': { datasets: ['refinedweb'] },
  'RedPajama-Data (without Books3)': { datasets: ['redpajama-v1'], excludes: ['books3'] },
  'The Pile (without Books3)': { datasets: ['the-pile'], excludes: ['books3'] },
  'peS2o (dataset tag)': { datasets: ['pes2o'] },
  'LAION-2B (en)': { datasets: ['laion-2b-en'] },
  'laion-high-resolution (LAION-5B subset)': { datasets: ['laion-high-resolution'] },
  'laion-improved-aesthetics (LAION-2B-en subset)': { datasets: ['laion-improved-aesthetics'] },
  // An unnamed filtered selection: LAION-5B is the dataset it names.
  'LAION-5B subset filtered by LAION-NSFW classifier (punsafe=0.1) and aesthetic score >=4.5': {
    datasets: ['laion-5b'],
  },

  // MosaicML (MPT-7B data mix table)
  'mC4 3.1.0 English (33%)': { datasets: ['mc4'], share: '33%' },
  'C4 English SemDedup 80% (29.9%)': { datasets: ['c4'], share: '29.9%' },
  'RedPajama CommonCrawl (10%)': { datasets: ['common-crawl'], share: '10%', ...RP },
  'The Stack selected languages (10%)': { datasets: ['the-stack'], share: '10%' },
  'RedPajama Wikipedia (4%)': { datasets: ['wikipedia'], share: '4%', ...RP },
  'The Stack Markdown (3.5%)': { datasets: ['the-stack'], share: '3.5%' },
  'S2ORC (3.3%)': { datasets: ['s2orc'], share: '3.3%' },
  // Reaches Books3 only through RedPajama's documented book slice, not by naming it.
  'RedPajama Books (3%)': { datasets: ['redpajama-books'], share: '3%', ...RP },
  'RedPajama arXiv (1.9%)': { datasets: ['arxiv'], share: '1.9%', ...RP },
  'RedPajama StackExchange (1.4%)': { datasets: ['stackexchange'], share: '1.4%', ...RP },

  // Together, Alibaba, DeepSeek, Anthropic
  'RedPajama-Data-1T': { datasets: ['redpajama-v1'] },
  'undisclosed Alibaba large-scale dataset': NONE,
  "undisclosed 'diverse and high-quality tokens'": NONE,
  "undisclosed: 'proprietary mix of publicly available information from the Internet, datasets that we license from third party businesses, and data that our users affirmatively share or that crowd workers provide'":
    NONE,
  'undisclosed: public internet data as of March 2025, non-public third-party data, data-labeling services and paid contractors, opted-in user data, internally generated data':
    NONE,
};

/**
 * The matching key of a dataset name: NFKC, lower case, letters and digits only, so "PG-19", "pg19" and
 * "PG 19" meet.
 *
 * @example
 * datasetKey('The Pile') // 'thepile'
 */
export function datasetKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}
