/**
 * The public indexes of the infini-gram engines, each linked to its corpus in the knowledge base, so that a
 * match found remotely yields attribution sources like a match in a loaded dataset: `kb_dataset` is asked
 * {@link KnowledgeBase.modelsTrainedOn}, and `models` names the models whose whole training data the index is.
 *
 * - infini-gram (api.infini-gram.io) counts token n-grams and returns documents; its list of public indexes and
 *   their sizes: https://infini-gram.readthedocs.io/en/latest/api.html (Liu et al., arXiv 2401.17377).
 * - infini-gram mini (api.infini-gram-mini.io) matches characters exactly over Common Crawl crawls, DCLM and the
 *   Pile: https://infini-gram-mini.readthedocs.io/en/latest/api.html (Xu et al., arXiv 2506.12229).
 *
 * A Common Crawl crawl links to `common-crawl`, and so to every model documenting some Common Crawl text; a
 * crawl from 2025 says that the text was on the web then, not that a model released earlier saw it (`crawl`
 * carries the month for that check). The Pile's validation split is evaluation data and links to no model.
 */

import type { KnowledgeBase } from './kb.js';
import type { RemoteDatasetConfig } from '../../corpus/remote-types.js';
import { TrainprintError } from '../../errors.js';
import { round4 } from '../../util/round.js';

/** The two public engines. */
export type RemoteEngine = 'infini-gram' | 'infini-gram-mini';

/** The tokenizer an infini-gram index was built with (a query is matched on its token boundaries). */
export type RemoteTokenizer = 'llama-2' | 'gpt-2' | 'olmo';

/** One public index. Sizes are as the engine's documentation publishes them. */
export interface RemoteIndex {
  /** The name the API takes in `index`, e.g. `v4_piletrain_llama`. */
  readonly index: string;
  readonly engine: RemoteEngine;
  /** Display name of the indexed corpus, e.g. "Pile (train)". */
  readonly corpus: string;
  /** Id in the knowledge base's dataset table of the corpus (or of the corpus it is a sample of). */
  readonly kb_dataset: string;
  /** `null` for infini-gram mini, which matches characters. */
  readonly tokenizer: RemoteTokenizer | null;
  readonly documents: number;
  /** Tokens of the tokenizer (infini-gram); `null` for infini-gram mini. */
  readonly tokens: number | null;
  /** UTF-8 bytes of text (infini-gram mini's "Size of Text"); `null` where not published. */
  readonly bytes: number | null;
  /** Held-out evaluation data (the Pile's validation split): no model documents training on it. */
  readonly evaluation: boolean;
  /**
   * Knowledge-base model ids whose documented training data is this index's whole corpus (the Instruct
   * indexes); empty for a corpus that models trained on among other data.
   */
  readonly models: readonly string[];
  /** For a Common Crawl crawl: its id and the month it was crawled. */
  readonly crawl?: { readonly id: string; readonly month: string };
  /** Where the row's facts come from. */
  readonly sources: readonly string[];
}

const IG_DOC =
  'infini-gram API documentation, "Available indexes" (https://infini-gram.readthedocs.io/en/latest/api.html)';
const MINI_DOC =
  'infini-gram mini API documentation, "Available indexes" (https://infini-gram-mini.readthedocs.io/en/latest/api.html)';
const OLMOTRACE =
  'OLMoTrace: Tracing Language Model Outputs Back to Trillions of Training Tokens (Liu et al., arXiv 2504.07096)';
const PILE = 'The Pile: An 800GB Dataset of Diverse Text for Language Modeling (Gao et al., arXiv 2101.00027)';

type Row = Omit<RemoteIndex, 'engine' | 'evaluation' | 'models' | 'bytes' | 'tokens' | 'tokenizer'> &
  Partial<Pick<RemoteIndex, 'evaluation' | 'models' | 'bytes' | 'tokens' | 'tokenizer'>>;

function row(engine: RemoteEngine, r: Row): RemoteIndex {
  return Object.freeze({
    engine,
    tokenizer: null,
    tokens: null,
    bytes: null,
    evaluation: false,
    models: [],
    ...r,
  } satisfies RemoteIndex);
}

const ig = (r: Row & { tokenizer: RemoteTokenizer; tokens: number }) =>
  row('infini-gram', { ...r, sources: [IG_DOC, ...r.sources] });
const mini = (r: Row & { bytes: number }) => row('infini-gram-mini', { ...r, sources: [MINI_DOC, ...r.sources] });

/** infini-gram mini's Common Crawl crawls: [crawl id, month, documents, bytes of text]. */
const CRAWLS: ReadonlyArray<readonly [string, string, number, number]> = [
  ['2025-30', '2025-07', 2_422_580_507, 9_006_670_841_302],
  ['2025-26', '2025-06', 2_385_603_949, 8_724_467_185_944],
  ['2025-21', '2025-05', 2_477_165_602, 9_221_516_423_510],
  ['2025-18', '2025-04', 2_747_336_110, 10_498_329_726_165],
  ['2025-13', '2025-03', 2_740_844_187, 10_392_880_591_539],
  ['2025-08', '2025-02', 2_679_706_056, 8_163_085_167_146],
  ['2025-05', '2025-01', 3_031_278_337, 9_078_722_426_438],
];

/**
 * Every public index of both engines, in the order of their documentation (as of infini-gram's docs of
 * 2025-07-14 and infini-gram mini's of 2025-09-26).
 * @example
 * REMOTE_INDEXES.find((r) => r.index === 'v4_c4train_llama')?.kb_dataset // 'c4'
 */
export const REMOTE_INDEXES: readonly RemoteIndex[] = Object.freeze([
  ig({
    index: 'v4_olmo-2-0325-32b-instruct_llama',
    corpus: 'OLMo-2-0325-32B-Instruct training data',
    kb_dataset: 'olmo-2-0325-32b-instruct-data',
    tokenizer: 'llama-2',
    documents: 3_163_901_920,
    tokens: 4_610_629_088_477,
    models: ['allenai/olmo-2-0325-32b-instruct'],
    sources: [OLMOTRACE],
  }),
  ig({
    index: 'v4_olmo-2-1124-13b-instruct_llama',
    corpus: 'OLMo-2-1124-13B-Instruct training data',
    kb_dataset: 'olmo-2-1124-13b-instruct-data',
    tokenizer: 'llama-2',
    documents: 3_163_974_994,
    tokens: 4_610_749_614_285,
    models: ['allenai/olmo-2-1124-13b-instruct'],
    sources: [OLMOTRACE],
  }),
  ig({
    index: 'v4_olmoe-0125-1b-7b-instruct_llama',
    corpus: 'OLMoE-0125-1B-7B-Instruct training data',
    kb_dataset: 'olmoe-0125-1b-7b-instruct-data',
    tokenizer: 'llama-2',
    documents: 3_163_953_717,
    tokens: 4_610_737_979_121,
    models: ['allenai/olmoe-1b-7b-0125-instruct'],
    sources: [OLMOTRACE],
  }),
  ig({
    index: 'v4_olmo-mix-1124_llama',
    corpus: 'OLMo-mix-1124',
    kb_dataset: 'olmo-mix-1124',
    tokenizer: 'llama-2',
    documents: 3_081_440_534,
    tokens: 4_575_475_702_047,
    sources: ['HF dataset card allenai/olmo-mix-1124'],
  }),
  ig({
    index: 'v4_dclm-baseline_llama',
    corpus: 'DCLM-baseline 1.0',
    kb_dataset: 'dclm',
    tokenizer: 'llama-2',
    documents: 2_948_096_911,
    tokens: 4_341_627_197_578,
    sources: ['HF dataset card mlfoundations/dclm-baseline-1.0'],
  }),
  ig({
    index: 'v4_dolma-v1_7_llama',
    corpus: 'Dolma v1.7',
    kb_dataset: 'dolma-v1-7',
    tokenizer: 'llama-2',
    documents: 3_403_336_408,
    tokens: 2_604_642_372_173,
    sources: ['HF dataset card allenai/dolma README.md'],
  }),
  ig({
    index: 'v4_rpj_llama_s4',
    corpus: 'RedPajama-Data-1T',
    kb_dataset: 'redpajama-v1',
    tokenizer: 'llama-2',
    documents: 931_361_530,
    tokens: 1_385_942_948_192,
    sources: ['HF dataset card togethercomputer/RedPajama-Data-1T'],
  }),
  ig({
    index: 'v4_piletrain_llama',
    corpus: 'Pile (train)',
    kb_dataset: 'the-pile',
    tokenizer: 'llama-2',
    documents: 210_607_728,
    tokens: 383_299_322_520,
    sources: [PILE],
  }),
  ig({
    index: 'v4_c4train_llama',
    corpus: 'C4 (train)',
    kb_dataset: 'c4',
    tokenizer: 'llama-2',
    documents: 364_868_892,
    tokens: 198_079_554_945,
    sources: ['HF dataset card allenai/c4'],
  }),
  // A sample of Dolma v1.6 (v1.5 with extra deduplication): text of the Dolma that OLMo-1B and OLMo-7B trained on.
  ig({
    index: 'v4_dolma-v1_6-sample_llama',
    corpus: 'Dolma v1.6 sample',
    kb_dataset: 'dolma',
    tokenizer: 'llama-2',
    documents: 13_095_416,
    tokens: 9_178_218_956,
    sources: ['HF dataset card allenai/dolma README.md'],
  }),
  ig({
    index: 'v4_dolmasample_olmo',
    corpus: 'Dolma v1.6 sample',
    kb_dataset: 'dolma',
    tokenizer: 'olmo',
    documents: 13_095_416,
    tokens: 8_039_098_124,
    sources: ['HF dataset card allenai/dolma README.md'],
  }),
  ig({
    index: 'v4_pileval_llama',
    corpus: 'Pile (val)',
    kb_dataset: 'the-pile-validation',
    evaluation: true,
    tokenizer: 'llama-2',
    documents: 214_670,
    tokens: 393_769_120,
    sources: [PILE],
  }),
  ig({
    index: 'v4_pileval_gpt2',
    corpus: 'Pile (val)',
    kb_dataset: 'the-pile-validation',
    evaluation: true,
    tokenizer: 'gpt-2',
    documents: 214_670,
    tokens: 383_326_404,
    sources: [PILE],
  }),
  ...CRAWLS.map(([id, month, documents, bytes]) =>
    mini({
      index: `v2_cc_${id}`,
      corpus: `Common Crawl CC-MAIN-${id}`,
      kb_dataset: 'common-crawl',
      documents,
      bytes,
      crawl: { id: `CC-MAIN-${id}`, month },
      sources: [`Common Crawl, https://data.commoncrawl.org/crawl-data/CC-MAIN-${id}/index.html`],
    }),
  ),
  mini({
    index: 'v2_dclm_all',
    corpus: 'DCLM-baseline 1.0',
    kb_dataset: 'dclm',
    documents: 2_948_096_911,
    bytes: 16_666_308_904_212,
    sources: ['HF dataset card mlfoundations/dclm-baseline-1.0'],
  }),
  mini({
    index: 'v2_piletrain',
    corpus: 'Pile (train)',
    kb_dataset: 'the-pile',
    documents: 210_607_728,
    bytes: 1_307_910_802_542,
    sources: [PILE],
  }),
  mini({
    index: 'v2_pileval',
    corpus: 'Pile (val)',
    kb_dataset: 'the-pile-validation',
    evaluation: true,
    documents: 214_670,
    bytes: 1_344_908_273,
    sources: [PILE],
  }),
]);

/**
 * The indexes an analysis searches when it names none: per engine, the largest training corpora of
 * documented open models (infini-gram) and the newest Common Crawl crawl (infini-gram mini).
 * @example
 * DEFAULT_REMOTE_INDEXES['infini-gram-mini'] // ['v2_cc_2025-30']
 */
export const DEFAULT_REMOTE_INDEXES: Readonly<Record<RemoteEngine, readonly string[]>> = Object.freeze({
  'infini-gram': Object.freeze([
    'v4_piletrain_llama',
    'v4_dolma-v1_7_llama',
    'v4_rpj_llama_s4',
    'v4_c4train_llama',
    'v4_dclm-baseline_llama',
    'v4_olmo-mix-1124_llama',
  ]),
  'infini-gram-mini': Object.freeze(['v2_cc_2025-30']),
});

const byKey = new Map(REMOTE_INDEXES.map((r) => [`${r.engine}\u0000${r.index}`, r]));

/**
 * A public index by engine and name, or `undefined` (a self-hosted engine's own index, or a typo). infini-gram
 * mini's docs spell a crawl both `v2_cc_2025-05` (index table) and `v2_cc-2025-05` (curl example); both are
 * accepted.
 * @example
 * remoteIndex('infini-gram', 'v4_rpj_llama_s4')?.kb_dataset // 'redpajama-v1'
 * remoteIndex('infini-gram', 'my_own_index')               // undefined
 */
export function remoteIndex(engine: RemoteEngine, index: string): RemoteIndex | undefined {
  if (typeof index !== 'string') return undefined;
  const name = engine === 'infini-gram-mini' ? index.replace(/^v2_cc-/, 'v2_cc_') : index;
  return byKey.get(`${engine}\u0000${name}`);
}

/**
 * A model's link to a training dataset as a remote index's crawl bears on it: a crawl taken after the model's release
 * cannot have been its training data (the text was on the web then, not necessarily before), so the link counts half
 * and its reason says why. A crawl of unknown date, or a model of unknown release year, leaves the link as it is.
 * @example
 * crawlLink({ certainty: 0.9, reason: 'Trained on C4.' }, { release_year: 2023 }, { id: 'CC-MAIN-2024-10', month: '2024-02' })
 * // { late: true, certainty: 0.45, reason: 'Trained on C4. The crawl searched (CC-MAIN-2024-10) postdates the model's release (2023), so the link counts half.' }
 */
export function crawlLink(
  link: { readonly certainty: number; readonly reason: string },
  model: { readonly release_year: number | null },
  crawl: RemoteIndex['crawl'],
): { late: boolean; certainty: number; reason: string } {
  const late =
    crawl !== undefined && model.release_year !== null && model.release_year < Number(crawl.month.slice(0, 4));
  if (!late) return { late, certainty: link.certainty, reason: link.reason };
  return {
    late,
    certainty: round4(link.certainty * 0.5),
    reason: `${link.reason} The crawl searched (${crawl.id}) postdates the model's release (${model.release_year}), so the link counts half.`,
  };
}

/**
 * Knowledge-base model ids a match in `index` attributes to: the index's own `models`, then
 * {@link KnowledgeBase.modelsTrainedOn} its `kb_dataset` (text models), without repeats.
 * @example
 * remoteModelIds(knowledgeBase(), remoteIndex('infini-gram', 'v4_piletrain_llama')!).includes('eleutherai/gpt-j-6b') // true
 */
export function remoteModelIds(kb: KnowledgeBase, index: RemoteIndex): string[] {
  const ids = [...index.models, ...kb.modelsTrainedOn(index.kb_dataset).map((l) => l.model.id)];
  return [...new Set(ids)];
}

/** Which indexes {@link publicRemoteCorpora} configures, and how. */
export interface PublicRemoteCorporaOptions {
  /** Index names, or `'default'` for {@link DEFAULT_REMOTE_INDEXES} of the engine. @default 'default' */
  readonly indexes?: 'default' | readonly string[];
  /** A self-hosted engine's URL instead of the public service (then any index name it serves is accepted). */
  readonly endpoint?: string;
  /** Further settings for every corpus (`maxCalls`, `deadlineMs`, `ratePerSecond` …). */
  readonly settings?: Omit<RemoteDatasetConfig, 'id' | 'kind' | 'index' | 'endpoint'>;
}

/**
 * Remote dataset configurations for `createEngine({ remoteCorpora })` or `addRemoteDataset`: one per index, its
 * `id` the index name. With the public service, an index the knowledge base does not list is refused (a typo
 * would otherwise show only as `remote_corpus_error` on every analysis).
 * @throws INVALID_OPTIONS for an unknown public index or an empty list
 * @example
 * const engine = await createEngine({ remoteCorpora: publicRemoteCorpora('infini-gram') })
 * publicRemoteCorpora('infini-gram-mini').map((c) => c.id) // ['v2_cc_2025-30']
 */
export function publicRemoteCorpora(
  engine: RemoteEngine,
  options: PublicRemoteCorporaOptions = {},
): RemoteDatasetConfig[] {
  if (engine !== 'infini-gram' && engine !== 'infini-gram-mini') {
    throw new TrainprintError('INVALID_OPTIONS', `engine must be 'infini-gram' or 'infini-gram-mini'`);
  }
  const indexes =
    options.indexes === undefined || options.indexes === 'default' ? DEFAULT_REMOTE_INDEXES[engine] : options.indexes;
  if (!Array.isArray(indexes) || indexes.length === 0 || indexes.some((i) => typeof i !== 'string' || i === '')) {
    throw new TrainprintError('INVALID_OPTIONS', `indexes must be 'default' or a non-empty list of index names`);
  }
  if (options.endpoint === undefined) {
    const unknown = indexes.filter((i) => remoteIndex(engine, i) === undefined);
    if (unknown.length > 0) {
      const known = REMOTE_INDEXES.filter((r) => r.engine === engine)
        .map((r) => r.index)
        .join(', ');
      throw new TrainprintError(
        'INVALID_OPTIONS',
        `${engine} serves no public index ${unknown.join(', ')} (known: ${known})`,
      );
    }
  }
  return [...new Set(indexes)].map((index) => ({
    ...options.settings,
    id: index,
    kind: engine,
    index,
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
  }));
}
