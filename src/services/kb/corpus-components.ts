/**
 * Which part of a corpus a remote document comes from, read from the metadata the engine returns with it.
 *
 * infini-gram and infini-gram mini keep, per document, `{ path, linenum, metadata }`: the source file (relative
 * to the corpus root), the line in it, and the original JSONL record without its `text` (pkg/infini_gram/indexing.py
 * of github.com/liujch1998/infini-gram; src/indexing.py of github.com/xuhaoxh/infini-gram-mini). The part is then:
 *
 * - The Pile: `meta.pile_set_name`, one of the 22 names of Gao et al. (arXiv 2101.00027, Table 1) as the Pile's
 *   JSONL spells them ("Pile-CC", "Gutenberg (PG-19)", "Wikipedia (en)", …);
 * - RedPajama-Data-1T: `meta.redpajama_set_name` ("RedPajamaCommonCrawl", …, as SlimPajama and RedPajama samples
 *   carry it), `red_pajama_subset` (the Hugging Face loader's field), or else the first folder of `path`, named
 *   like the dataset's URL lists (`arxiv`, `book`, `c4`, `common_crawl`, `github`, `stackexchange`, `wikipedia`;
 *   HF dataset card togethercomputer/RedPajama-Data-1T);
 * - Dolma and the other Ai2 mixes in its format: the record's `source` ("source of the data, such as peS2o,
 *   common-crawl", github.com/allenai/dolma docs/data-format.md), matched ignoring case and punctuation against
 *   the sources of the Dolma datasheet (arXiv 2402.00159) and of the Dolma v1.7 card.
 *
 * A part maps to a knowledge-base dataset only if that dataset is part of the corpus in the knowledge base's
 * components DAG; otherwise (an unknown name, or a held-out split such as the Pile's validation data, which has
 * no components) it is returned with `kb_dataset: null`.
 */

import { datasetKey } from './datasets.js';
import { knowledgeBase, type KnowledgeBase } from './kb.js';

/** The part of a corpus a document belongs to. */
export interface CorpusComponent {
  /** The corpus's own name for it, as found in the metadata (e.g. "Books3", "RedPajamaBook", "c4"). */
  readonly name: string;
  /** The knowledge-base dataset it is, or `null` when there is none. */
  readonly kb_dataset: string | null;
}

/** The Pile's `pile_set_name` values (Gao et al. 2020, Table 1) → dataset ids. */
const PILE_SETS: Readonly<Record<string, string>> = {
  'Pile-CC': 'pile-cc',
  'PubMed Central': 'pubmed-central',
  Books3: 'books3',
  OpenWebText2: 'openwebtext2',
  ArXiv: 'arxiv',
  Github: 'github',
  FreeLaw: 'freelaw',
  StackExchange: 'stackexchange',
  'USPTO Backgrounds': 'uspto',
  'PubMed Abstracts': 'pubmed-abstracts',
  'Gutenberg (PG-19)': 'project-gutenberg',
  OpenSubtitles: 'opensubtitles',
  'Wikipedia (en)': 'wikipedia',
  'DM Mathematics': 'dm-mathematics',
  'Ubuntu IRC': 'ubuntu-irc',
  BookCorpus2: 'bookcorpus2',
  EuroParl: 'europarl',
  HackerNews: 'hackernews',
  YoutubeSubtitles: 'youtube-subtitles',
  PhilPapers: 'philpapers',
  'NIH ExPorter': 'nih-exporter',
  'Enron Emails': 'enron-emails',
};

/** RedPajama-Data-1T's slices, by `redpajama_set_name` and by subset (folder) name → dataset ids. */
const REDPAJAMA_SETS: Readonly<Record<string, string>> = {
  RedPajamaCommonCrawl: 'ccnet',
  RedPajamaC4: 'c4',
  RedPajamaGithub: 'github',
  RedPajamaBook: 'redpajama-books',
  RedPajamaArXiv: 'arxiv',
  RedPajamaWikipedia: 'wikipedia',
  RedPajamaStackExchange: 'stackexchange',
  common_crawl: 'ccnet',
  c4: 'c4',
  github: 'github',
  book: 'redpajama-books',
  arxiv: 'arxiv',
  wikipedia: 'wikipedia',
  stackexchange: 'stackexchange',
};

/**
 * Dolma's `source` values by dataset id, compared by {@link datasetKey} (case and punctuation ignored). The names are
 * the sources of the Dolma datasheet and of the v1.7 card, with the spellings its files use where they differ
 * (`cc_en_head`, `falcon`, `s2`, `stack-dedup`, `tulu_flan`, …).
 */
const DOLMA_NAMES = [
  ['common-crawl', ['common-crawl', 'commoncrawl', 'cc', 'dolma-cc', 'cc_en_head', 'cc_en_middle', 'cc_en_tail']],
  ['c4', ['c4']],
  ['project-gutenberg', ['gutenberg', 'project-gutenberg', 'books', 'pg19']],
  ['wikipedia', ['wikipedia', 'wiki', 'enwiki']],
  ['wikibooks', ['wikibooks']],
  ['pes2o', ['pes2o', 's2', 'semantic-scholar']],
  ['the-stack', ['stack', 'stack-dedup', 'the-stack']],
  ['starcoder-data', ['starcoder']],
  ['pushshift-reddit', ['reddit', 'pushshift', 'pushshift-reddit']],
  ['refinedweb', ['falcon', 'refinedweb', 'falcon-refinedweb']],
  ['arxiv', ['arxiv', 'redpajama-arxiv']],
  ['stackexchange', ['stackexchange', 'redpajama-stackexchange']],
  ['flan', ['flan', 'tulu_flan']],
  ['ccnews', ['cc-news', 'cc_news', 'ccnews']],
  ['openwebmath', ['open-web-math', 'openwebmath']],
  ['algebraic-stack', ['algebraic-stack']],
  ['dclm', ['dclm', 'dclm-baseline']],
] as const;

/** {@link DOLMA_NAMES} by key, made on first use (a scan or a fingerprint names no component). */
let dolmaSourcesTable: Readonly<Record<string, string>> | null = null;

/**
 * Dolma's sources by {@link datasetKey}: built when a component is first named rather than at the library's load,
 * where the keys' normalisation and Unicode-aware expression cost every process's start a few milliseconds.
 */
function dolmaSources(): Readonly<Record<string, string>> {
  dolmaSourcesTable ??= Object.fromEntries(DOLMA_NAMES.flatMap(([id, names]) => names.map((n) => [datasetKey(n), id])));
  return dolmaSourcesTable;
}

type Family = 'pile' | 'redpajama' | 'dolma';

/** The corpora whose documents carry a documented part field, by knowledge-base id. */
const FAMILY: Readonly<Record<string, Family>> = {
  'the-pile': 'pile',
  'the-pile-deduplicated': 'pile',
  'the-pile-validation': 'pile',
  'redpajama-v1': 'redpajama',
  dolma: 'dolma',
  'dolma-v1-7': 'dolma',
  'olmo-mix-1124': 'dolma',
  'dolmino-mix-1124': 'dolma',
  'olmoe-mix-0924': 'dolma',
  'olmo-2-0325-32b-instruct-data': 'dolma',
  'olmo-2-1124-13b-instruct-data': 'dolma',
  'olmoe-0125-1b-7b-instruct-data': 'dolma',
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where a part field may sit, nearest the original record first: the engine wraps the record as `metadata`
 * (`metadata.meta.pile_set_name`, `metadata.source`); a caller may also pass the record itself.
 */
function placesOf(root: Obj): Obj[] {
  const record = isObj(root.metadata) ? root.metadata : undefined;
  return [record?.meta, record, root.meta, root].filter(isObj);
}

/** The first non-empty string `name` among the places. */
function field(places: readonly Obj[], name: string): string | undefined {
  for (const at of places) {
    const v = at[name];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/**
 * The part of the corpus `kbDataset` that a remote document belongs to, from the metadata the engine returned
 * with it (an object, or the engine's JSON string), or `null` when the corpus has no documented part field or
 * the metadata names none. A part is named by its knowledge-base dataset only where `kb` (the shipped knowledge base
 * by default) holds it as part of `kbDataset`.
 * @example
 * componentOf('the-pile', { path: '00.jsonl', linenum: 7, metadata: { meta: { pile_set_name: 'Books3' } } })
 * // { name: 'Books3', kb_dataset: 'books3' }
 * componentOf('redpajama-v1', { path: 'book/book.jsonl', linenum: 0, metadata: { meta: { title: '…' } } })
 * // { name: 'book', kb_dataset: 'redpajama-books' }
 * componentOf('dolma-v1-7', { metadata: { source: 'megawika' }, path: 'x', linenum: 0 }) // { name: 'megawika', kb_dataset: null }
 */
export function componentOf(
  kbDataset: string,
  metadata: unknown,
  kb: KnowledgeBase = knowledgeBase(),
): CorpusComponent | null {
  const family = Object.hasOwn(FAMILY, kbDataset) ? FAMILY[kbDataset] : undefined;
  if (family === undefined) return null;
  let root = metadata;
  if (typeof root === 'string') {
    try {
      root = JSON.parse(root);
    } catch {
      return null;
    }
  }
  if (!isObj(root)) return null;
  const places = placesOf(root);

  let name: string | undefined;
  let id: string | undefined;
  if (family === 'pile') {
    name = field(places, 'pile_set_name');
    id = name !== undefined && Object.hasOwn(PILE_SETS, name) ? PILE_SETS[name] : undefined;
  } else if (family === 'redpajama') {
    const folder = typeof root.path === 'string' && root.path.includes('/') ? root.path.split('/')[0] : undefined;
    name =
      field(places, 'redpajama_set_name') ??
      field(places, 'red_pajama_subset') ??
      (folder && Object.hasOwn(REDPAJAMA_SETS, folder) ? folder : undefined);
    id = name !== undefined && Object.hasOwn(REDPAJAMA_SETS, name) ? REDPAJAMA_SETS[name] : undefined;
  } else {
    name = field(places, 'source');
    if (name !== undefined) {
      // "redpajama/arxiv", "common-crawl/2020-05": the whole value first, then its first and last segments.
      const parts = name.split('/');
      for (const candidate of [name, parts[0], parts[parts.length - 1]]) {
        const key = datasetKey(candidate);
        const sources = dolmaSources();
        if (Object.hasOwn(sources, key)) {
          id = sources[key];
          break;
        }
      }
    }
  }
  if (name === undefined) return null;
  // Only a dataset that is part of the corpus in the DAG: a held-out split, for one, has none.
  const inCorpus = id !== undefined && kb.descendants(kbDataset).includes(id);
  return { name, kb_dataset: inCorpus ? id! : null };
}

/**
 * The knowledge-base datasets {@link componentOf} can name as parts of `kbDataset`: every part its family's field
 * can name that the knowledge base holds as part of it (none for a corpus without a documented part field). Sorted.
 * @example nameableComponents('the-pile').includes('books3') // true
 */
export function nameableComponents(kbDataset: string, kb: KnowledgeBase = knowledgeBase()): string[] {
  const family = Object.hasOwn(FAMILY, kbDataset) ? FAMILY[kbDataset] : undefined;
  if (family === undefined) return [];
  const names = family === 'pile' ? PILE_SETS : family === 'redpajama' ? REDPAJAMA_SETS : dolmaSources();
  const parts = new Set(kb.descendants(kbDataset));
  return [...new Set(Object.values(names))].filter((id) => parts.has(id)).sort();
}
