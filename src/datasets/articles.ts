/**
 * Documents that hold many articles (a WikiExtractor file of English Wikipedia holds hundreds): the table of their
 * articles, kept in the document's `meta.articles`, that lets a portrait match name the article and not only the file.
 *
 * A document is cut into parts at the character offsets its {@link DatasetDocument.parts} give (one per article,
 * the first at 0); the portrait's locator cuts its sections there (src/datasets/locator.ts), so a chain of hits
 * resolves to one article. The titles and keys (page ids) are what the match shows: {@link DocumentArticles} in
 * memory, {@link PackedArticles} in a file — the lines of {@link articleTableText} as a zlib stream (RFC 1950/1951),
 * since the titles are most of what naming the articles costs (the 24,326 titles of the articles pack are 516 KB as
 * text, 0.35 MB with their page ids deflated). The library only inflates (src/util/inflate.ts, synchronous), when a
 * pack is checked against its texts and the first time a portrait names an article of the document
 * ({@link unpackArticlesNow}); the stream is made where a pack's texts are prepared
 * (build/packs-prepare.mjs, fflate at level 9: the same bytes on every machine), so a pack's bytes never depend on
 * the zlib of the machine that builds it.
 */
import { TrainprintError } from '../errors.js';
import { inflateZlib } from '../util/inflate.js';

/** The articles of one document, in order: part j of the document is article j. */
export interface DocumentArticles {
  /** URL prefix: article j is at `url + keys[j]` (e.g. 'https://en.wikipedia.org/wiki?curid='). */
  readonly url?: string;
  /** Each article's key in its source (a page id), as text. */
  readonly keys: readonly string[];
  /** Each article's title. */
  readonly titles: readonly string[];
}

/** {@link DocumentArticles} as stored: `count` articles, `table` the zlib stream of their {@link articleTableText}. */
export interface PackedArticles {
  readonly url?: string;
  readonly count: number;
  readonly table: Uint8Array;
}

/** What a match says about the article it found (see {@link articleOf}). */
export interface ArticleRef {
  readonly title: string;
  readonly url?: string;
  /** Its key in the source (a Wikipedia page id). */
  readonly key: string;
}

/** A key written as a decimal number (no sign, no leading zero): what may be stored as a difference. */
const DECIMAL = /^(0|[1-9][0-9]{0,14})$/;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);

/** The article table of a document's meta in its in-memory form, or undefined. */
export function documentArticles(meta: unknown): DocumentArticles | undefined {
  if (!isPlainObject(meta) || !isPlainObject(meta.articles)) return undefined;
  const a = meta.articles;
  if (!Array.isArray(a.keys) || !Array.isArray(a.titles) || a.keys.length !== a.titles.length) return undefined;
  return a as unknown as DocumentArticles;
}

/** Article `j` of a document's meta (undefined when the meta has no in-memory table or no such article). */
export function articleOf(meta: unknown, j: number): ArticleRef | undefined {
  const a = documentArticles(meta);
  if (a === undefined || j < 0 || j >= a.keys.length) return undefined;
  const key = String(a.keys[j]);
  return { title: String(a.titles[j]), ...(a.url === undefined ? {} : { url: `${a.url}${key}` }), key };
}

/**
 * Check an article table's fields (keys and titles: non-empty, no tab or line break; as many as `parts`).
 * @throws INVALID_INPUT naming the first fault
 */
export function checkDocumentArticles(a: DocumentArticles, parts: number, where: string): void {
  const bad = (detail: string): never => {
    throw new TrainprintError('INVALID_INPUT', `${where}: ${detail}`);
  };
  if (a.keys.length !== a.titles.length) bad('articles must have as many keys as titles');
  if (a.keys.length !== parts) bad(`${a.keys.length} articles for ${parts} parts`);
  if (a.url !== undefined && (typeof a.url !== 'string' || a.url.length === 0)) bad('articles.url must be text');
  for (const list of [a.keys, a.titles])
    for (const s of list)
      if (typeof s !== 'string' || s.length === 0 || /[\t\n\r]/.test(s) || (list === a.keys && s.startsWith('+')))
        bad('article keys and titles must be non-empty text without tabs or line breaks');
}

/**
 * The text a stored table deflates: one line `key\ttitle` per article, where a decimal key above the line before's
 * is written `+difference` (page ids ascend in a WikiExtractor file: the differences deflate to 45 KB less over the
 * 24,326 articles of the articles pack).
 * @example articleTableText({ keys: ['12', '25'], titles: ['Anarchism', 'Autism'] }) // '12\tAnarchism\n+13\tAutism'
 */
export function articleTableText(a: Pick<DocumentArticles, 'keys' | 'titles'>): string {
  let previous: number | null = null;
  return a.keys
    .map((k, j) => {
      const n = DECIMAL.test(k) ? Number(k) : null;
      const key = n !== null && previous !== null && n > previous ? `+${n - previous}` : k;
      previous = n;
      return `${key}\t${a.titles[j]}`;
    })
    .join('\n');
}

/** Inflate a stored table. @throws SNAPSHOT_INCOMPATIBLE when it does not decode to `count` lines */
export async function unpackArticles(p: PackedArticles): Promise<DocumentArticles> {
  return unpackArticlesNow(p);
}

/** {@link unpackArticles}, synchronously: what a portrait does the first time it names an article of a document. */
export function unpackArticlesNow(p: PackedArticles): DocumentArticles {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflateZlib(p.table));
  } catch (e) {
    throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', 'an article table does not inflate to UTF-8', { cause: e });
  }
  const lines = text.length === 0 ? [] : text.split('\n');
  if (lines.length !== p.count) {
    throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `an article table holds ${lines.length} of ${p.count} articles`);
  }
  const keys: string[] = [];
  const titles: string[] = [];
  let previous: number | null = null;
  for (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab <= 0) throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', 'an article table has a line without a key');
    let key = line.slice(0, tab);
    if (key.startsWith('+')) {
      const diff = key.slice(1);
      if (previous === null || !DECIMAL.test(diff))
        throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', 'an article table has a difference without a key before it');
      key = String(previous + Number(diff));
    }
    previous = DECIMAL.test(key) ? Number(key) : null;
    keys.push(key);
    titles.push(line.slice(tab + 1));
  }
  return { ...(p.url === undefined ? {} : { url: p.url }), keys, titles };
}

/** A stored table in a document's meta (`meta.articles` with `table` bin), or undefined. */
export function packedOf(meta: unknown): PackedArticles | undefined {
  if (!isPlainObject(meta) || !isPlainObject(meta.articles)) return undefined;
  const a = meta.articles;
  return a.table instanceof Uint8Array && Number.isSafeInteger(a.count) ? (a as unknown as PackedArticles) : undefined;
}
