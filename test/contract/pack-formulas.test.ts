/**
 * A formula many documents share names nothing: a pack of "articles" (as the Wikipedia packs' WikiExtractor files
 * hold them) in which every article opens with the same lead formulas ("… is a Spanish professional footballer who
 * plays as a defensive midfielder …") and goes on with text of its own. The formulas' n-grams are common (held by
 * many articles: src/datasets/common.ts), so an invented article written in them — new names between the formulas —
 * gets no match, where the locator alone would have given every formula hit the section of the article that stored
 * it first; a passage of one article's own text still names that article, and a match that spans a formula says how
 * many articles hold it (`common_hits`, `held_by`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPack, createEngine, type Engine, loadPack } from '../../src/library.js';
import { decodeDataset, type PortraitDatasetData } from '../../src/datasets/snapshot.js';
import { decodeCommon } from '../../src/datasets/common.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { book } from '../fixtures/texts/index.js';
import { type Article, articlePack } from '../fixtures/article-pack.js';

const FORMULAS = [
  'is a Spanish professional footballer who plays as a defensive midfielder for Liga F club Real Betis and the Spain national team.',
  'was a British Liberal Party politician who sat in the House of Commons from 1880 to 1895 and was the son of a wool merchant.',
  'He was educated at Rugby School and at Trinity College, Cambridge, and was called to the bar at the Inner Temple in',
  'in the second half of the 18th century, and his works are held in the collections of several museums in Germany.',
];
const NAMES = ['Arvel Quint', 'Doria Mapp', 'Selwyn Orth', 'Ilse Varrow', 'Bram Tessel', 'Odile Crane'];

/** 36 articles in 2 files: each opens with the formulas around a name of its own, then 120 words of its own. */
function articles(): Article[][] {
  const words = book('chesterton-thursday').split(/\s+/).filter(Boolean);
  const files: Article[][] = [[], []];
  for (let j = 0; j < 36; j++) {
    const name = `Person${j} Surname${j}`;
    const own = words.slice(2_000 + j * 150, 2_000 + j * 150 + 120).join(' ');
    const body = `${name} (born ${1 + (j % 28)} May ${1950 + j}) ${FORMULAS[0]} ${name} ${FORMULAS[1]} ${FORMULAS[2]} ${1900 + j}. ${name} lived ${FORMULAS[3]} ${own}`;
    files[j % 2].push({ title: name, page_id: 1_000 + j, body });
  }
  return files;
}

describe('a pack whose articles share formulas', () => {
  let engine: Engine;
  let files: Article[][];
  let bytes: Uint8Array;
  beforeAll(async () => {
    files = articles();
    const { manifest: m, texts } = await articlePack(
      'pack:formulas',
      'Articles that share their lead formulas.',
      files,
    );
    const builder = await createEngine();
    const built = await buildPack(builder, m, (d) => texts.get(d.file)!);
    bytes = built.bytes;
    engine = await createEngine();
    await loadPack(engine, built.bytes, { sha256: built.sha256 });
    // the same bytes from the same inputs
    const again = await buildPack(await createEngine(), m, (d) => texts.get(d.file)!);
    expect(again.sha256).toBe(built.sha256);
  }, 60_000);

  const portraitMatches = async (text: string): Promise<PortraitMatch[]> =>
    (await engine.search(text, { datasets: ['pack:formulas'] })).matches.filter(
      (x) => x.kind === 'portrait',
    ) as PortraitMatch[];

  it("the pack stores the formulas' n-grams as common, with the number of articles holding them", () => {
    const data = decodeDataset(bytes.subarray(0), { kind: 'portrait' }) as PortraitDatasetData;
    expect(data.locator?.common).toBeDefined();
    const common = decodeCommon(data.locator!.common!);
    expect(common.min_holders).toBe(3);
    // the formulas' winnowed n-grams: far fewer than the pack's n-grams, which are mostly the articles' own text
    expect(common.keys).toBeGreaterThan(10);
    expect(common.keys).toBeLessThan(data.locator!.keys / 4);
  });

  it('an invented article in the formulas names nothing, and its analysis stays below 50', async () => {
    for (const name of NAMES) {
      const text =
        `${name} (born 4 June 1991) ${FORMULAS[0]} Born in Zarnow, ${name} joined the academy of Calverley Rovers. ` +
        `${name} ${FORMULAS[1]} ${FORMULAS[2]} 1921. Later ${name} lived ${FORMULAS[3]}`;
      expect(await portraitMatches(text), name).toEqual([]);
      const r = await engine.analyze({ content: text, content_type: 'text' });
      expect(r.confidence, name).toBeLessThan(50);
    }
  });

  it("a passage of one article's own text still names that article, and says how many hold its formula", async () => {
    const a = files[1][7];
    const own = a.body.slice(a.body.indexOf(FORMULAS[3]) + FORMULAS[3].length + 1);
    const m = await portraitMatches(own.split(' ').slice(10, 90).join(' '));
    expect(m.length).toBeGreaterThan(0);
    expect(m[0].article?.title).toBe(a.title);
    // the article from its name on: the hits of its formulas are common (held by every article), those around its
    // name are its own
    const withFormula = await portraitMatches(a.body.slice(a.body.indexOf(FORMULAS[1]) - a.title.length - 1));
    expect(withFormula[0].article?.title).toBe(a.title);
    expect(withFormula[0].common_hits).toBeGreaterThan(0);
    expect(withFormula[0].held_by).toBeGreaterThanOrEqual(30);
  });
});
