/**
 * A pack is a sample of a larger corpus, and a formula of the corpus may have a single holder in the sample — too few
 * to be common (src/datasets/common.ts), enough for an invented text in the corpus's house style to chain on it. The
 * pack's chain null (src/datasets/chain-null.ts), measured on documents of its kind that it does not hold
 * (bench/chain-null.mjs, as bench/measure-chain-null.mjs measures the shipped packs), keeps such a chain from lifting
 * the confidence, while a passage of a packed article still names it. Everything here is built from committed
 * fixtures: a pack of 36 "articles", one of which holds the formula, and 60 non-member articles, 12 of which hold it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildPack,
  checkPackIndex,
  createEngine,
  DEFAULT_PORTRAIT_BACKGROUND,
  type Engine,
  loadPack,
  type PortraitBackground,
} from '../../src/library.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
// @ts-expect-error plain JS module shared with bench/measure-chain-null.mjs
import { chainNullOf, markShared, searchChains } from '../../bench/chain-null.mjs';
import { book } from '../fixtures/texts/index.js';
import { type Article, articlePack } from '../fixtures/article-pack.js';

const FORMULA = 'In fiscal 2019, the station was used by an average of 1,482 passengers daily, and it was renovated in';

/** 36 packed articles of a book's words in 2 files; article 5 alone holds the formula. */
function packed(): Article[][] {
  const words = book('chesterton-thursday').split(/\s+/).filter(Boolean);
  const files: Article[][] = [[], []];
  for (let j = 0; j < 36; j++) {
    const own = words.slice(2_000 + j * 150, 2_000 + j * 150 + 140).join(' ');
    const body = j === 5 ? `${own.slice(0, 400)} ${FORMULA} 1990. ${own.slice(400)}` : own;
    files[j % 2].push({ title: `Station ${j}`, page_id: 1_000 + j, body });
  }
  return files;
}

/**
 * Articles of the same kind that the pack does not hold: other words, and in one of every `every` of them the
 * formula around a date of its own.
 */
function nonMembers(n: number, from: number, every = 5): string[] {
  const words = book('austen-persuasion').split(/\s+/).filter(Boolean);
  return Array.from({ length: n }, (_, j) => {
    const at = from + j * 120;
    const formula = j % every === 0 ? ` ${FORMULA} ${1950 + j}.` : '';
    return `Halt${j} Station opened in ${1900 + j}. ${words.slice(at, at + 50).join(' ')}${formula} ${words.slice(at + 50, at + 100).join(' ')}`;
  });
}

describe("a pack and its kind's chain null, measured on documents it does not hold", () => {
  let files: Article[][];
  let texts: Map<string, Uint8Array>;
  let bytes: Uint8Array;
  let sha256: string;
  let background: PortraitBackground;
  let plain: Engine;
  let withNull: Engine;
  const invented =
    'Kawanobe Station is a railway station on the Tobu Line in the city of Okashi, operated by the private railway ' +
    `operator Tobu Railway. The station opened on 1 April 1927. ${FORMULA} 2004. The area around the station is ` +
    'mainly residential, with a post office and an elementary school nearby.';

  beforeAll(async () => {
    files = packed();
    const pack = await articlePack('pack:stations', 'A sample of station articles.', files);
    texts = pack.texts;
    const built = await buildPack(await createEngine(), pack.manifest, (d) => texts.get(d.file)!);
    ({ bytes, sha256 } = built);
    plain = await createEngine();
    await loadPack(plain, bytes, { sha256 }, { background: DEFAULT_PORTRAIT_BACKGROUND });
    // the null: 60 non-member articles, searched against the pack alone without a chain null
    const rows = searchChains(plain, 'pack:stations', nonMembers(60, 3_000));
    markShared(
      rows,
      [...texts.values()].map((t) => new TextDecoder().decode(t)),
    );
    const { chains } = chainNullOf(rows, '60 invented station articles in no pack (test fixtures)', '2026-01-02');
    background = { ...DEFAULT_PORTRAIT_BACKGROUND, chains };
    withNull = await createEngine();
    await loadPack(withNull, bytes, { sha256 }, { background });
  }, 120_000);

  const matches = async (engine: Engine, text: string) =>
    (await engine.search(text, { datasets: ['pack:stations'] })).matches.filter(
      (m) => m.kind === 'portrait',
    ) as PortraitMatch[];

  it('the formula has one holder in the pack: not common, and without the null an invented article chains on it', async () => {
    const m = await matches(plain, invented);
    expect(m.length).toBe(1);
    expect(m[0].agreeing).toBeGreaterThanOrEqual(4);
  });

  it('the null is measured on the non-members: their formula chains, none of them shared text', () => {
    const n = background.chains!;
    expect(n.measured_on.texts).toBe(60);
    expect(n.measured_on.chains).toBeGreaterThanOrEqual(10);
    expect(n.start).toBeGreaterThan(0.002);
    expect(n.extend).toBeGreaterThan(0.5);
    expect(n.extend).toBeLessThan(1);
    // it travels in the pack index beside the background, and a damaged one is refused
    const entry = {
      id: 'pack:stations',
      file: 's.tpk',
      manifest: 's/manifest.json',
      sha256,
      bytes: bytes.length,
      default: false,
      name: 'Stations',
      pack_version: '1.0.0',
      kb_dataset: 'wikipedia',
      documents: 2,
      words: 1,
      ngrams: 1,
    };
    const index = (b: unknown) => ({ format: 'trainprint.packs', version: 1, packs: [{ ...entry, background: b }] });
    expect(() => checkPackIndex(index(background))).not.toThrow();
    expect(() => checkPackIndex(index({ ...background, chains: { ...n, extend: 2 } }))).toThrow(/chains/);
  });

  it('with the null, the invented article gets no match and its analysis stays below 50', async () => {
    expect(await matches(withNull, invented)).toEqual([]);
    expect((await withNull.analyze({ content: invented, content_type: 'text' })).confidence).toBeLessThan(50);
    // held-out non-members too (not those the null was measured on)
    for (const t of nonMembers(10, 12_000, 1)) expect(await matches(withNull, t)).toEqual([]);
  });

  it("a passage of a packed article still names it, formula included, and the null travels with the dataset's file", async () => {
    const a = files.flat().find((x) => x.title === 'Station 5')!;
    const m = await matches(withNull, a.body.split(' ').slice(20, 110).join(' '));
    expect(m.length).toBeGreaterThan(0);
    expect(m[0].article?.title).toBe(a.title);
    const other = await createEngine();
    await other.importDataset(withNull.exportDataset('pack:stations'));
    expect(await matches(other, invented)).toEqual([]);
  });

  it('an edited copy of a packed article keeps its edges: the span runs from near its first word to near its last, not past', async () => {
    const a = files.flat().find((x) => x.title === 'Station 12')!;
    // 1 word in 8 replaced: under half of its fingerprints hit, spread evenly (lone-looking at a verbatim copy's density,
    // the copy's own at its own: the trim that judged every edge 3 fingerprints apart as lone cut 16 words off its end)
    const edited = a.body
      .split(' ')
      .slice(10, 100)
      .map((w, i) => (i % 8 === 2 ? `vrell${i}` : w))
      .join(' ');
    const own = book('austen-persuasion').split(/\s+/).slice(9_000, 9_060).join(' ');
    const text = `${own}\n\n${edited}\n\n${own.split(' ').reverse().join(' ')}`;
    const m = await matches(plain, text);
    expect(m.length, JSON.stringify(m)).toBe(1);
    expect(m[0].article?.title).toBe(a.title);
    const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
    const start = own.length + 2;
    const end = start + edited.length;
    // a few words in from the copy's edges (an edge n-gram that holds a replaced word or the author's misses), none past
    expect(m[0].query_start).toBeGreaterThanOrEqual(start);
    expect(m[0].query_end).toBeLessThanOrEqual(end);
    expect(words(text.slice(start, m[0].query_start))).toBeLessThanOrEqual(8);
    expect(words(text.slice(m[0].query_end, end))).toBeLessThanOrEqual(8);
  });
});
