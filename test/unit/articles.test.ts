/**
 * The article table of a document of many articles (src/datasets/articles.ts) and the locator's sections table
 * (src/datasets/locator.ts): a stored table inflates to the same keys and titles (page ids as differences where they
 * ascend, any other key as written), a damaged one is refused, and the sections of documents cut into parts lie
 * where the parts say.
 */
import { describe, expect, it } from 'vitest';
import { zlibSync } from 'fflate';
import {
  articleOf,
  articleTableText,
  checkDocumentArticles,
  type DocumentArticles,
  type PackedArticles,
  packedOf,
  unpackArticles,
  unpackArticlesNow,
} from '../../src/datasets/articles.js';
import { SECTION_CONTINUES, sectionLayout, sectionTable } from '../../src/datasets/locator.js';

const WIKI: DocumentArticles = {
  url: 'https://en.wikipedia.org/wiki?curid=',
  keys: ['56564559', '56564573', '56564574', '9', '0', 'Talk:Foo', '77', '1000000000000'],
  titles: ['Jarred Shaw', 'Ünïcödé — title', 'Third', 'Nine', 'Zero', 'A talk page', 'After a name', 'Big'],
};

/** A table as a pack stores it: the zlib stream of its text (as build/packs-prepare.mjs makes it). */
const packArticles = (a: DocumentArticles): PackedArticles => ({
  url: a.url,
  count: a.keys.length,
  table: zlibSync(new TextEncoder().encode(articleTableText(a)), { level: 9 }),
});

describe('article tables', () => {
  it('a stored table inflates to the keys and titles it was made from', async () => {
    expect(await unpackArticles(packArticles(WIKI))).toEqual(WIKI);
  });

  it('ascending page ids are stored as differences', () => {
    const lines = articleTableText(WIKI).split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual([
      '56564559',
      '+14',
      '+1',
      '9', // descending: written whole
      '0',
      'Talk:Foo',
      '77', // after a key that is not a number
      '+999999999923',
    ]);
  });

  it('a damaged table is refused', async () => {
    const packed = packArticles(WIKI);
    await expect(unpackArticles({ ...packed, count: 7 })).rejects.toMatchObject({ code: 'SNAPSHOT_INCOMPATIBLE' });
    await expect(unpackArticles({ ...packed, table: packed.table.slice(0, 10) })).rejects.toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
    });
    const table = zlibSync(new TextEncoder().encode('+5\tNo key before'));
    await expect(unpackArticles({ count: 1, table })).rejects.toMatchObject({ code: 'SNAPSHOT_INCOMPATIBLE' });
  });

  it('keys and titles with tabs or line breaks, or keys starting with +, are refused', () => {
    expect(() => checkDocumentArticles(WIKI, 8, 'doc')).not.toThrow();
    expect(() => checkDocumentArticles(WIKI, 7, 'doc')).toThrow(/8 articles for 7 parts/);
    expect(() => checkDocumentArticles({ keys: ['1'], titles: ['a\tb'] }, 1, 'doc')).toThrow(/tabs/);
    expect(() => checkDocumentArticles({ keys: ['+1'], titles: ['a'] }, 1, 'doc')).toThrow(/tabs/);
  });

  it("a document's stored table is read where a portrait reads it: found in its meta, inflated, then named", () => {
    const stored = { title: 'x', articles: packArticles(WIKI) };
    expect(articleOf(stored, 0)).toBeUndefined(); // still deflated: not read
    const packed = packedOf(stored);
    expect(packed).toBeDefined();
    const meta = { articles: unpackArticlesNow(packed!) };
    expect(articleOf(meta, 1)).toEqual({
      title: 'Ünïcödé — title',
      url: 'https://en.wikipedia.org/wiki?curid=56564573',
      key: '56564573',
    });
    expect(articleOf(meta, 8)).toBeUndefined();
    expect(packedOf({ t: 1 })).toBeUndefined();
    expect(packedOf({ articles: WIKI })).toBeUndefined(); // a table in memory is not a stored one
  });
});

describe('sections of documents cut into parts', () => {
  it('each part starts a section, and a long part is cut every section of its own words', () => {
    // document 0: parts at 0, 100 and 300 (the last 9,000 words long); document 1: no parts; document 2: one part
    const tokens = [9_300, 5_000, 10];
    const table = sectionTable(tokens, [[0, 100, 300], [], [0]], 4096);
    const layout = sectionLayout(tokens, 4096, table);
    if (typeof layout === 'string') throw new Error(layout);
    expect([...layout.first]).toEqual([0, 5, 7, 8]);
    expect([...layout.start]).toEqual([0, 100, 300, 4396, 8492, 0, 4096, 0]);
    expect([...layout.part]).toEqual([0, 1, 2, 2, 2, 0, 0, 0]);
    expect([...layout.partStart]).toEqual([0, 100, 300, 300, 300, 0, 0, 0]);
    const view = new DataView(table.buffer);
    expect(view.getUint32(4 * 3, true)).toBe((4396 + SECTION_CONTINUES) >>> 0);
  });

  it('without a table, documents are cut every section_words words', () => {
    const layout = sectionLayout([10, 4096, 4097, 0], 4096);
    if (typeof layout === 'string') throw new Error(layout);
    expect([...layout.first]).toEqual([0, 1, 2, 4, 5]);
    expect([...layout.start]).toEqual([0, 0, 0, 4096, 0]);
  });

  it('a table that does not fit the documents is a fault', () => {
    const table = sectionTable([9_300, 5_000], [[0, 100, 300], []], 4096);
    expect(sectionLayout([9_300], 4096, table)).toMatch(/more documents/);
    expect(sectionLayout([9_300, 5_000, 7], 4096, table)).toMatch(/fewer documents/);
    expect(sectionLayout([200, 5_000], 4096, table)).toMatch(/out of order/);
    const bad = table.slice();
    new DataView(bad.buffer).setUint32(4 * 3, (4000 + SECTION_CONTINUES) >>> 0, true);
    expect(sectionLayout([9_300, 5_000], 4096, bad)).toMatch(/wrong length/);
    expect(sectionLayout([9_300, 5_000], 4096, table.subarray(0, 6))).toMatch(/u32/);
  });
});
