/**
 * A pack whose documents each hold many articles (as the Wikipedia packs' WikiExtractor files do) names the article a
 * passage is in: built from the fixture books cut into "articles" of 60 to 5,000 words (title line, blank line, body,
 * articles joined by blank lines, where the manifest's `articles.starts` say), a passage names its document, the
 * article's title, URL and page id, and the words of the article that hold it — after the pack is written to bytes
 * and loaded again, with the article table stored deflated. A document without articles names no article; the
 * analysis's words and the published result schema carry the article.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { zlibSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  articleTableText,
  buildPack,
  checkPackManifest,
  createEngine,
  type Engine,
  loadPack,
  type PackInfo,
  type PackManifest,
  type PackManifestDocument,
  readPackInfo,
  sha256Hex,
} from '../../src/library.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { ANALYSIS_RESULT_SCHEMA } from '../../src/services/analyze/schema.js';
import { book } from '../fixtures/texts/index.js';

const enc = new TextEncoder();
const URL_PREFIX = 'https://en.wikipedia.org/wiki?curid=';
/** Article lengths in words: short ones (several to a 4,096-word section before), and one longer than a section. */
const LENGTHS = [300, 150, 5_000, 800, 60, 420, 1_200, 90, 2_500, 640];

interface Article {
  title: string;
  page_id: number;
  words: string[];
}

function articlesOf(name: string, firstId: number): Article[] {
  const words = book(name).split(/\s+/).filter(Boolean);
  const out: Article[] = [];
  let at = 1_000;
  LENGTHS.forEach((n, j) => {
    out.push({ title: `${name} part ${j + 1}`, page_id: firstId + 7 * j, words: words.slice(at, at + n) });
    at += n;
  });
  return out;
}

/** The table a manifest gives the pack to store: its keys and titles deflated, as the prepare step makes it. */
const tableOf = (keys: string[], titles: string[]): string =>
  Buffer.from(zlibSync(enc.encode(articleTableText({ keys, titles })), { level: 9 })).toString('base64');

const DOCS: Record<string, Article[]> = {
  persuasion: articlesOf('austen-persuasion', 1_000),
  thursday: articlesOf('chesterton-thursday', 50_000),
};
const PLAIN = book('milton-paradise');

async function manifest(): Promise<{ manifest: PackManifest; texts: Map<string, Uint8Array> }> {
  const texts = new Map<string, Uint8Array>();
  const documents: PackManifestDocument[] = [];
  for (const [id, articles] of Object.entries(DOCS)) {
    const starts: number[] = [];
    let text = '';
    for (const a of articles) {
      if (text.length > 0) text += '\n\n';
      starts.push(text.length);
      text += `${a.title}\n\n${a.words.join(' ')}`;
    }
    const bytes = enc.encode(text);
    texts.set(`${id}.txt`, bytes);
    documents.push({
      id,
      file: `${id}.txt`,
      sha256: await sha256Hex(bytes),
      bytes: bytes.length,
      title: `${articles.length} articles`,
      source: 'nltk/nltk',
      articles: {
        url: URL_PREFIX,
        page_ids: articles.map((a) => a.page_id),
        starts,
        table: tableOf(
          articles.map((a) => String(a.page_id)),
          articles.map((a) => a.title),
        ),
      },
    });
  }
  const plain = enc.encode(PLAIN);
  texts.set('milton.txt', plain);
  documents.push({ id: 'milton', file: 'milton.txt', sha256: await sha256Hex(plain), bytes: plain.length });
  return {
    manifest: {
      format: 'trainprint.pack-manifest',
      version: 1,
      id: 'pack:articles',
      name: 'Articles',
      pack_version: '1.0.0',
      description: 'Two documents of many articles each, and a book.',
      kb_dataset: 'wikipedia',
      window: 4,
      built: '2026-01-02',
      sources: [{ repository: 'nltk/nltk', url: 'https://github.com/nltk/nltk' }],
      licence: { texts: 'Public domain in the USA' },
      documents,
    },
    texts,
  };
}

/** Word tokens of a text as the engine counts them. */
let counter: Engine;
const tokens = async (text: string): Promise<number> => (await counter.fingerprint(text)).token_count;

const portraitMatches = async (engine: Engine, text: string): Promise<PortraitMatch[]> =>
  (await engine.search(text, { datasets: ['pack:articles'] })).matches.filter(
    (x) => x.kind === 'portrait',
  ) as PortraitMatch[];

const best = (m: PortraitMatch[]): PortraitMatch => {
  expect(m.length).toBeGreaterThan(0);
  return m.reduce((a, b) => ((b.agreeing ?? 0) > (a.agreeing ?? 0) ? b : a));
};

describe('a pack of documents that hold many articles', () => {
  let engine: Engine;
  let info: PackInfo;
  beforeAll(async () => {
    const { manifest: m, texts } = await manifest();
    const builder = await createEngine();
    const built = await buildPack(builder, m, (d) => texts.get(d.file)!);
    info = await readPackInfo(built.bytes);
    engine = await createEngine();
    counter = builder;
    await loadPack(engine, built.bytes, { sha256: built.sha256 });
  }, 60_000);

  it('a passage names its article, its URL and the words of the article that hold it', async () => {
    for (const [id, articles] of Object.entries(DOCS)) {
      for (const j of [0, 1, 3, 5, 9]) {
        const a = articles[j];
        const from = Math.max(0, Math.floor(a.words.length / 2) - 40);
        const m = best(await portraitMatches(engine, a.words.slice(from, from + 60).join(' ')));
        expect(m.document_id).toBe(id);
        expect(m.article, `${id} article ${j}`).toMatchObject({
          title: a.title,
          url: `${URL_PREFIX}${a.page_id}`,
          key: String(a.page_id),
        });
        // the whole article: its words as the engine counts them (the title's, and "don't" as two)
        expect(m.article!.words[0]).toBe(0);
        expect(m.article!.words[1]).toBe(await tokens(`${a.title}\n\n${a.words.join(' ')}`));
      }
    }
  });

  it('an article longer than a section is cut into sections of its own words', async () => {
    const a = DOCS.thursday[2]; // 5,000 words
    const m = best(await portraitMatches(engine, a.words.slice(4_500, 4_580).join(' ')));
    expect(m.article?.title).toBe(a.title);
    const length = await tokens(`${a.title}\n\n${a.words.join(' ')}`);
    // its second section: words 4,096 to its end, counted from the article's first word (the title)
    expect(m.article?.words).toEqual([4_096, length]);
    const first = best(await portraitMatches(engine, a.words.slice(100, 180).join(' ')));
    expect(first.article?.words).toEqual([0, 4_096]);
    // the document's words: where the article starts in the file, plus the article's own offsets
    let before = 0;
    for (const x of DOCS.thursday.slice(0, 2)) before += await tokens(`${x.title}\n\n${x.words.join(' ')}`);
    expect(m.source_words).toEqual([before + 4_096, before + length]);
  });

  it('a document that is one work names no article', async () => {
    const words = PLAIN.split(/\s+/).filter(Boolean);
    const m = best(await portraitMatches(engine, words.slice(20_000, 20_080).join(' ')));
    expect(m.document_id).toBe('milton');
    expect(m.article).toBeUndefined();
  });

  it("the pack's overview counts each document's articles", () => {
    expect(info.documents.map((d) => d.articles)).toEqual([LENGTHS.length, LENGTHS.length, undefined]);
  });

  it("the analysis's words name the article, and the result is what the published schema says", async () => {
    const a = DOCS.persuasion[6];
    const r = await engine.analyze({ content: a.words.slice(200, 320).join(' '), content_type: 'text' });
    const m = r.matches.find((x) => x.kind === 'portrait' && x.document_id === 'persuasion') as PortraitMatch;
    expect(m?.article?.title).toBe(a.title);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addFormat('date-time', (x: string) => !Number.isNaN(Date.parse(x)));
    const valid = ajv.compile(ANALYSIS_RESULT_SCHEMA);
    expect(valid(JSON.parse(JSON.stringify(r))), JSON.stringify(valid.errors)).toBe(true);
    expect(r.corpus_evidence.summary).toContain(`the article "${a.title}" (${URL_PREFIX}${a.page_id})`);
  });

  it('a table that differs from the page ids or the titles in the text is refused', async () => {
    const { manifest: m, texts } = await manifest();
    const doc = m.documents[0];
    const keys = doc.articles!.page_ids.map(String);
    const titles = DOCS.persuasion.map((a) => a.title);
    const withTable = (table: string) => ({
      ...m,
      documents: [{ ...doc, articles: { ...doc.articles!, table } }, ...m.documents.slice(1)],
    });
    const build = async (x: PackManifest) => buildPack(await createEngine(), x, (d) => texts.get(d.file)!);
    const wrongTitle = tableOf(
      keys,
      titles.map((t, j) => (j === 4 ? 'Another title' : t)),
    );
    await expect(build(withTable(wrongTitle))).rejects.toThrow(/article 4/);
    const wrongKey = tableOf(
      keys.map((k, j) => (j === 2 ? '999999' : k)),
      titles,
    );
    await expect(build(withTable(wrongKey))).rejects.toThrow(/article 2/);
    await expect(build(withTable(tableOf(keys.slice(1), titles.slice(1))))).rejects.toThrow(/does not inflate/);
  });

  it('a manifest whose article starts do not ascend from 0 is refused', async () => {
    const { manifest: m } = await manifest();
    const doc = m.documents[0];
    const bad = (starts: number[]) => ({
      ...m,
      documents: [{ ...doc, articles: { ...doc.articles!, starts } }, ...m.documents.slice(1)],
    });
    const n = doc.articles!.starts.length;
    expect(() => checkPackManifest(bad([5, ...doc.articles!.starts.slice(1)]))).toThrow(/starts/);
    expect(() => checkPackManifest(bad([0, ...new Array(n - 1).fill(10)]))).toThrow(/starts/);
    expect(() => checkPackManifest(bad(doc.articles!.starts.slice(1)))).toThrow(/same length/);
  });
});
