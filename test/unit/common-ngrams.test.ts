/**
 * What a portrait match may claim (src/datasets/common.ts, src/datasets/chains.ts, src/datasets/portrait.ts): the
 * n-grams many documents hold are stored apart with their holder counts and are no one section's evidence; a chain
 * ends where its hits end (no long unhit stretch between two agreeing hits); a chain names its section only when that
 * section agrees with more of the span's hits than chance gives some section of the pack.
 */
import { describe, expect, it } from 'vitest';
import { checkCommonRule, commonFault, commonHolders, commonTable, decodeCommon } from '../../src/datasets/common.js';
import { fingerprintWords, locateChains, trimEdges } from '../../src/datasets/chains.js';
import { sectionIndex, sectionSeeds, sectionValue } from '../../src/datasets/locator.js';
import { chainHits, MAX_UNHIT_WORDS, NAMING_ALPHA, namingChance } from '../../src/datasets/portrait.js';
import { prng } from '../reference/core.js';
import { createEngine } from '../../src/index.js';
import { decodeDataset, encodeDataset, type PortraitDatasetData } from '../../src/datasets/snapshot.js';
import { book } from '../fixtures/texts/index.js';

function keys(n: number, seed: number) {
  const rnd = prng(seed);
  const lo = new Uint32Array(n),
    hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = (rnd() * 2 ** 32) >>> 0;
    hi[i] = (rnd() * 2 ** 32) >>> 0;
  }
  return { lo, hi };
}

describe('common n-grams', () => {
  const n = 20_000;
  const { lo, hi } = keys(n, 7);
  // holders 1 … 400, most keys held once or twice
  const holders = Uint32Array.from({ length: n }, (_, i) => (i % 10 === 0 ? 3 + (i % 400) : 1 + (i % 2)));
  const bytes = commonTable(lo, hi, holders)!;
  const c = decodeCommon(bytes);

  it('stores exactly the keys of 3 or more holders, each with its count (capped at 255)', () => {
    expect(c.min_holders).toBe(3);
    expect(c.keys).toBe(n / 10);
    for (let i = 0; i < n; i += 10) expect(commonHolders(c, lo[i], hi[i])).toBe(Math.min(255, holders[i]));
    // 2.26 bytes per common key at pack sizes, more for a small set (the fuse needs more room below 10⁵ keys)
    expect(bytes.length / c.keys).toBeGreaterThan(2);
    expect(bytes.length / c.keys).toBeLessThan(3);
  });

  it('reads keys it does not hold as common at most at its 8-bit fingerprint rate', () => {
    let wrong = 0,
      tried = 0;
    for (let i = 0; i < n; i++) {
      if (i % 10 === 0) continue;
      tried++;
      if (commonHolders(c, lo[i], hi[i]) > 0) wrong++;
    }
    const absent = keys(20_000, 99);
    for (let i = 0; i < 20_000; i++, tried++) if (commonHolders(c, absent.lo[i], absent.hi[i]) > 0) wrong++;
    expect(wrong / tried).toBeLessThan(2 / 256);
  });

  it('is absent when no key has 3 holders, and damaged bytes are refused', () => {
    expect(commonTable(lo, hi, new Uint32Array(n).fill(2))).toBeUndefined();
    expect(commonFault(bytes)).toBeNull();
    expect(commonFault(bytes.subarray(0, bytes.length - 1))).toMatch(/bytes/);
    const wrongKeys = bytes.slice();
    new DataView(wrongKeys.buffer).setUint32(16, c.keys * 3, true);
    expect(commonFault(wrongKeys)).toMatch(/sizing/);
    expect(() => decodeCommon(bytes.subarray(0, 8))).toThrow(
      expect.objectContaining({ code: 'SNAPSHOT_INCOMPATIBLE' }),
    );
  });
});

describe('the naming of a chain', () => {
  it('names a section that agrees with (nearly) every hit of its span, not one that agrees with a few', () => {
    // an edited 80-word passage of a book of a pack of 11,387 sections: 8 of its 9 hits agree
    expect(namingChance(8, 9, 11_387, 4)).toBe(0);
    // a wrong section with 6 of the 9 (the chance a pack's sections give that, about 0.05 · 10)
    expect(namingChance(6, 9, 11_387, 4)).toBeGreaterThan(NAMING_ALPHA);
    // a formula's 4 of 5 in a pack of 7,703 sections
    expect(namingChance(4, 5, 7_703, 4)).toBeGreaterThan(NAMING_ALPHA);
    // 5 of 5 in a pack of 7,703 sections (0.12: the bound takes the first agreeing hit as given)
    expect(namingChance(5, 5, 7_703, 4)).toBe(0);
    // a copied passage: 30 of 30
    expect(namingChance(30, 30, 30_000, 4)).toBe(0);
  });
});

describe('the span of a chain', () => {
  const C = 100;
  const seeds = sectionSeeds(C);
  const first = sectionIndex(new Array(C).fill(4096), 4096);
  const rnd = prng(3);

  it('ends where its hits end: a long unhit stretch of the query splits it, the edits of a copy do not', () => {
    // 40 fingerprints: 0–14 and 25–39 are hits agreeing with section 42, 15–24 misses
    const at = [...Array.from({ length: 15 }, (_, i) => i), ...Array.from({ length: 15 }, (_, i) => 25 + i)];
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const stored = Uint8Array.from(digests, (g) => sectionValue(seeds[42], g, 4));
    const chainsOver = (gapWords: number) => {
      // fingerprints every 2 words, the misses spanning `gapWords` words
      const words = Array.from({ length: 40 }, (_, i) => 2 * i + (i >= 25 ? gapWords : 0));
      return locateChains(at, digests, stored, seeds, first, 4, 3, { words, maxUnhitWords: MAX_UNHIT_WORDS }).filter(
        (c) => c.section === 42,
      );
    };
    // the misses are 10 fingerprints: 20 words and a few more between the two agreeing hits: bridged
    expect(chainsOver(0).map((c) => c.positions.length)).toEqual([30]);
    // the same 10 fingerprints spread over 60 more words: a stretch nothing holds, the chain ends
    expect(chainsOver(60).map((c) => c.positions.length)).toEqual([15, 15]);
    // without the limit the gap in fingerprints alone bridges both
    expect(locateChains(at, digests, stored, seeds, first, 4, 3).filter((c) => c.section === 42).length).toBe(1);
  });

  it('counts a character of a script without spaces as half a word: a stretch of 40 kana bridged, of 40 words not', () => {
    const at = [...Array.from({ length: 15 }, (_, i) => i), ...Array.from({ length: 15 }, (_, i) => 25 + i)];
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const stored = Uint8Array.from(digests, (g) => sectionValue(seeds[42], g, 4));
    // fingerprints every 2 tokens, 40 more tokens in the misses: 57 unhit tokens between the two stretches
    const tokens = Array.from({ length: 40 }, (_, i) => 2 * i + (i >= 25 ? 40 : 0));
    const chainsOver = (limits: { words: ArrayLike<number>; ends?: ArrayLike<number> }) =>
      locateChains(at, digests, stored, seeds, first, 4, 3, { ...limits, maxUnhitWords: MAX_UNHIT_WORDS })
        .filter((c) => c.section === 42)
        .map((c) => c.positions.length);
    // words: the chain ends in the stretch
    expect(chainsOver({ words: tokens })).toEqual([15, 15]);
    // characters standing alone: the same tokens are half as many words (28.5 unhit), under the bound
    expect(chainsOver({ words: tokens.map((t) => t / 2), ends: tokens.map((t) => (t + 5) / 2) })).toEqual([30]);
  });

  it('reads the word positions of a fingerprint from its text: words count 1, kanji and kana 1/2', async () => {
    const engine = await createEngine();
    const english = book('austen-persuasion').split(/\s+/).slice(0, 300).join(' ');
    const fp = await engine.fingerprint(english, { winnow: { window: 8 } });
    // spaced text: the token positions themselves (no ends: an n-gram is 5 words)
    const w = fingerprintWords(fp, english);
    expect(Array.from(w.words)).toEqual(Array.from(fp.winnow!.positions));
    expect(w.ends).toBeUndefined();
    const japanese =
      '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。';
    const jp = await engine.fingerprint(japanese, { winnow: { window: 8 } });
    const j = fingerprintWords(jp, japanese);
    const pos = jp.winnow!.positions;
    expect(pos.length).toBeGreaterThan(3);
    for (let i = 0; i < pos.length; i++) {
      expect(j.words[i] - j.words[0]).toBe((pos[i] - pos[0]) / 2);
      expect(j.ends![i] - j.words[i]).toBe(2.5);
    }
    // mixed: an English sentence quoting Japanese — each token counts for what it is
    const mixed = `As the novel opens, ${japanese} says the cat, and so the story begins in earnest here.`;
    const mp = await engine.fingerprint(mixed, { winnow: { window: 8 } });
    const mw = fingerprintWords(mp, mixed);
    const mpos = mp.winnow!.positions;
    const last = mpos.length - 1;
    const span = mw.words[last] - mw.words[0];
    expect(span).toBeGreaterThan((mpos[last] - mpos[0]) / 2);
    expect(span).toBeLessThan(mpos[last] - mpos[0]);
    engine.dispose();
  });
});

describe('the edges of a chain', () => {
  it('end where the held text ends: a lone chance agreement beyond the copy is no part of it', () => {
    // a copy at fingerprints 10–13, chance agreements (1 in 16) of the words around it at 2 and 19
    expect(trimEdges([2, 10, 11, 12, 13, 19])).toEqual([10, 11, 12, 13]);
    // an edited copy keeps its edge hits: its inside misses as often
    expect(trimEdges([4, 6, 7, 9, 10, 12])).toEqual([4, 6, 7, 9, 10, 12]);
    // a verbatim copy of 31 fingerprints, every one held, and a hit past one miss: a copy that dense misses once in 32
    const copy = Array.from({ length: 31 }, (_, i) => 30 + i);
    expect(trimEdges([...copy, 62])).toEqual(copy);
    // lone hits at both edges of a verbatim copy, and a chain of two is left as it is
    expect(trimEdges([0, 9, 10, 11, 12, 13, 14, 24])).toEqual([9, 10, 11, 12, 13, 14]);
    expect(trimEdges([3, 40])).toEqual([3, 40]);
  });

  it('keep the edge hits of an edited copy, whose agreeing hits stand as far apart all along', () => {
    // 1 word in 10 replaced: a third of the fingerprints hit, 4 apart at the edges as inside (a Wikipedia article's
    // 80 words, named with its five agreeing hits)
    expect(trimEdges([1, 5, 9, 11, 15])).toEqual([1, 5, 9, 11, 15]);
    expect(trimEdges([2, 5, 7, 9, 14])).toEqual([2, 5, 7, 9, 14]);
    // the same edge gap beside a verbatim core is lone: a copy that dense misses 4 in a row less than 1 in 20 times
    expect(trimEdges([0, 5, 6, 7, 8, 9, 10])).toEqual([5, 6, 7, 8, 9, 10]);
    // a sparse stretch at one edge does not thin the density the other edge is judged by
    expect(trimEdges([2, 10, 11, 12, 13, 19])).toEqual([10, 11, 12, 13]);
  });

  it('judge an edge by the density of the chain, property: a chain hitting at every place is never trimmed', () => {
    for (let n = 3; n < 40; n++) {
      const run = Array.from({ length: n }, (_, i) => 100 + i);
      expect(trimEdges(run)).toBe(run);
      // one far hit before it: trimmed at any far gap once the run has five hits (four in a row and a miss of three
      // are as likely as not for a copy of four hits in seven places)
      if (n >= 5) for (const g of [4, 6, 10, 16]) expect(trimEdges([100 - g, ...run])).toEqual(run);
      expect(trimEdges([...run, 100 + n + 16])).toEqual(run);
    }
  });

  it('keep an edge hit among held fingerprints across the misses of one changed word, a lone one not', () => {
    // a quotation from another edition: its first hits agree with the document that stored them first (held, not this
    // chain's), one word differs (2 misses), then the dense copy
    const copy = [11, 12, 13, 14, 15, 16, 17];
    const held = (x: number) => x === 6 || x === 8 || (x >= 11 && x <= 18);
    const missed = (x: number, y: number) => {
      let k = 0;
      for (let i = x + 1; i < y; i++) if (!held(i)) k++;
      return k + 1;
    };
    expect(trimEdges([7, ...copy], missed, held)).toEqual([7, ...copy]);
    // the same hit alone among misses is a chance agreement beside a copy that dense
    expect(trimEdges([7, ...copy], missed)).toEqual(copy);
    // and past the burst of one word, held or not, the density decides
    expect(
      trimEdges(
        [2, ...copy],
        (x, y) => y - x,
        () => true,
      ),
    ).toEqual(copy);
  });

  it('count the gap as the caller says (misses only): held n-grams between agreeing hits are no gap', () => {
    // places 1–7 are held (common n-grams), so the edge at 0 is 1 miss from the copy
    const held = new Set([1, 2, 3, 4, 5, 6, 7]);
    const missed = (x: number, y: number) => {
      let k = 0;
      for (let i = x + 1; i < y; i++) if (!held.has(i)) k++;
      return k + 1;
    };
    expect(trimEdges([0, 8, 9, 10, 11], missed)).toEqual([0, 8, 9, 10, 11]);
    expect(trimEdges([0, 8, 9, 10, 11])).toEqual([8, 9, 10, 11]);
  });

  it('move where the span ends, not what the chain counts: a chain keeps the evidence of its trimmed edge hits', () => {
    // a copy at fingerprints 10–13 with chance agreements at 2 and 19: the span is the copy, the evidence all six
    const lone = [2, 10, 11, 12, 13, 19];
    const free = new Uint8Array(22);
    expect(chainHits(lone, free)).toEqual({ counted: lone, positions: [10, 11, 12, 13] });
    // an edited copy (1 word in 10 replaced, hits 4 apart at the edges as inside) keeps both
    expect(chainHits([1, 5, 9, 11, 15], free)).toEqual({ counted: [1, 5, 9, 11, 15], positions: [1, 5, 9, 11, 15] });
    // hits a stronger chain claimed count for neither, and the trim reads what is left
    const claimed = Uint8Array.from({ length: 22 }, (_, i) => (i === 2 ? 1 : 0));
    expect(chainHits(lone, claimed)).toEqual({ counted: [10, 11, 12, 13, 19], positions: [10, 11, 12, 13] });
    // the gap the search passes (fingerprints the dataset does not hold at all) decides the span alone
    expect(chainHits(lone, free, () => 1).positions).toEqual(lone);
    expect(chainHits(lone, free, () => 1).counted).toEqual(lone);
  });
});

describe('a portrait that locates keeps its common n-grams in its snapshot', () => {
  it('counts holders across documents, round-trips them, and refuses damaged ones', async () => {
    const formula = 'was a British Liberal Party politician who sat in the House of Commons from 1880 to 1895';
    const words = book('austen-persuasion').split(/\s+/);
    // four documents share the formula, each with text of its own
    const docs = Array.from({ length: 4 }, (_, j) => ({
      id: `d${j}`,
      text: `${words.slice(1000 + 300 * j, 1250 + 300 * j).join(' ')} Person${j} ${formula}. ${words.slice(5000 + 300 * j, 5250 + 300 * j).join(' ')}`,
    }));
    const engine = await createEngine();
    await engine.addDataset({ id: 'p', kind: 'portrait', locate: true, window: 4 }, docs);
    const bytes = engine.exportDataset('p');
    const data = decodeDataset(bytes, { kind: 'portrait' }) as PortraitDatasetData;
    const common = decodeCommon(data.locator!.common!);
    expect(common.keys).toBeGreaterThan(0);
    expect(common.keys).toBeLessThan(20);
    const other = await createEngine();
    await other.importDataset(bytes);
    expect(other.exportDataset('p')).toEqual(bytes);
    const damaged = { ...data, locator: { ...data.locator!, common: data.locator!.common!.subarray(1) } };
    expect(() => encodeDataset(damaged)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    // the formula alone, with a new name: no document named
    const r = await engine.search(`Someone Else ${formula}.`, { datasets: ['p'] });
    expect(r.matches.filter((m) => m.document_id !== null)).toEqual([]);
  });
});

describe('which n-grams a pack stores as common (its rule)', () => {
  const formula = 'was a British Liberal Party politician who sat in the House of Commons from 1880 to 1895';
  const words = book('austen-persuasion').split(/\s+/);
  const docs = (authors: readonly string[]) =>
    authors.map((author, j) => ({
      id: `d${j}`,
      text: `${words.slice(1000 + 300 * j, 1250 + 300 * j).join(' ')} Person${j} ${formula}. ${words.slice(5000 + 300 * j, 5250 + 300 * j).join(' ')}`,
      meta: { author },
    }));
  async function commonOf(authors: readonly string[], common?: unknown) {
    const engine = await createEngine();
    const descriptor = { id: 'p', kind: 'portrait' as const, locate: true, window: 4, ...(common ? { common } : {}) };
    await engine.addDataset(descriptor as Parameters<typeof engine.addDataset>[0], docs(authors));
    const data = decodeDataset(engine.exportDataset('p'), { kind: 'portrait' }) as PortraitDatasetData;
    return data.locator!.common === undefined ? null : decodeCommon(data.locator!.common);
  }

  it("counts documents from 3 by default, and from a pack's own minimum", async () => {
    const four = ['A', 'A', 'A', 'A'];
    expect((await commonOf(four))?.min_holders).toBe(3);
    expect((await commonOf(four, { min_holders: 4 }))?.min_holders).toBe(4);
    expect(await commonOf(four, { min_holders: 5 })).toBeNull();
  });

  it('counts the editions and collected works of one author once when it counts authors', async () => {
    // one author spelled two ways (letters alone compared), then two authors: 1 and 2 holders, not common
    expect(await commonOf(['G.A. Henty', 'G. A. Henty', 'g a henty', 'G.A. Henty'], { by: 'author' })).toBeNull();
    expect(await commonOf(['Poe', 'Poe', 'Various', 'Poe'], { by: 'author' })).toBeNull();
    // three authors quote it: common, with its 3 holders
    const c = await commonOf(['Poe', 'Trollope', 'Poe', 'Twain'], { by: 'author', min_holders: 3 });
    expect(c?.min_holders).toBe(3);
    const engine = await createEngine();
    await engine.addDataset(
      { id: 'p', kind: 'portrait', locate: true, window: 4, common: { by: 'author' } },
      docs(['Poe', 'Trollope', 'Poe', 'Twain']),
    );
    const r = await engine.search(`Someone Else ${formula}.`, { datasets: ['p'] });
    expect(r.matches.filter((m) => m.document_id !== null)).toEqual([]);
  });

  it('refuses a rule it does not know', async () => {
    expect(checkCommonRule(undefined)).toEqual({ min_holders: 3, by: 'document' });
    expect(checkCommonRule({ by: 'author' })).toEqual({ min_holders: 3, by: 'author' });
    for (const bad of [
      null,
      [],
      3,
      { min_holders: 1 },
      { min_holders: 256 },
      { min_holders: 3.5 },
      { by: 'title' },
      { at: 3 },
    ])
      expect(() => checkCommonRule(bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    const engine = await createEngine();
    await expect(
      engine.addDataset(
        { id: 'p', kind: 'portrait', locate: true, window: 4, common: { by: 'title' } as never },
        docs(['A']),
      ),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', cause: { field: 'common.by' } });
  });
});
