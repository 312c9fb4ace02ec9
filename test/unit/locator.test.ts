/**
 * The portrait locator (src/datasets/locator.ts, its chains in src/datasets/chains.ts): a static function (3-wise binary fuse, no fingerprint) whose value
 * for a stored key is a keyed hash of the section that key was first seen in; chains of hits that agree on one
 * section; and a portrait that locates, through export and import.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import {
  buildLocator,
  decodeShared,
  keyDigest,
  locatorFault,
  locatorValue,
  sectionDoc,
  sectionIndex,
  sectionSeeds,
  sectionValue,
  SHARED_MIN,
  sharedTable,
} from '../../src/datasets/locator.js';
import { locateChains } from '../../src/datasets/chains.js';
import { decodeDataset, encodeDataset, type PortraitDatasetData } from '../../src/datasets/snapshot.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { sha256Hex } from '../../src/fingerprint/sha256.js';
import { passageAt, prng } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';

/** `n` distinct random keys (halves) and random `bits`-bit values. */
function randomKeys(n: number, bits: number, seed: number) {
  const rnd = prng(seed);
  const lo = new Uint32Array(n),
    hi = new Uint32Array(n),
    values = new Uint8Array(n);
  const seen = new Set<string>();
  for (let i = 0; i < n; ) {
    const a = (rnd() * 2 ** 32) >>> 0,
      b = (rnd() * 2 ** 32) >>> 0;
    if (seen.has(`${a}:${b}`)) continue;
    seen.add(`${a}:${b}`);
    lo[i] = a;
    hi[i] = b;
    values[i++] = Math.floor(rnd() * 2 ** bits);
  }
  return { lo, hi, values };
}

describe('locator: the static function', () => {
  it('known answers: value hash, digest and a small build', async () => {
    expect(keyDigest(0, 0)).toBe(keyDigest(0, 0));
    expect([keyDigest(1, 2), keyDigest(2, 1)]).not.toEqual([keyDigest(2, 1), keyDigest(1, 2)]);
    const seeds = sectionSeeds(4);
    expect(Array.from(seeds)).toEqual(Array.from(sectionSeeds(8).subarray(0, 4)));
    const vector = Array.from({ length: 8 }, (_, i) => sectionValue(seeds[i % 4], keyDigest(i, 7 * i), 4));
    expect(vector).toEqual([12, 8, 5, 3, 12, 15, 14, 14]);
    const { lo, hi, values } = randomKeys(1000, 4, 7);
    const d = buildLocator(lo, hi, values, 4, 4096);
    expect({ seed: d.seed, segment_length: d.segment_length, segment_count: d.segment_count }).toEqual({
      seed: 0,
      segment_length: 128,
      segment_count: 9,
    });
    expect(await sha256Hex(d.cells)).toBe('589b26e415b3d875cf3a721d4f53567ddaac62e2cd7789b226bdc59183b0d5fb');
  });

  it('property: every built key returns its value, at every width and size', () => {
    for (const bits of [1, 2, 4, 8]) {
      for (const n of [0, 1, 2, 3, 10, 257, 5000]) {
        const { lo, hi, values } = randomKeys(n, bits, 1000 * bits + n);
        const d = buildLocator(lo, hi, values, bits, 4096);
        expect(locatorFault(d)).toBeNull();
        for (let i = 0; i < n; i++) expect(locatorValue(d, lo[i], hi[i])).toBe(values[i]);
        // about 1.13 · v bits per key once the structure is large
        if (n >= 5000) expect((d.cells.length * 8) / n / bits).toBeLessThan(1.4);
      }
    }
  });

  it('absent keys read values spread evenly (no fingerprint: the value alone says nothing)', () => {
    const { lo, hi, values } = randomKeys(20000, 4, 3);
    const d = buildLocator(lo, hi, values, 4, 4096);
    const other = randomKeys(16000, 4, 4);
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 16000; i++) counts[locatorValue(d, other.lo[i], other.hi[i])]++;
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });

  it('rejects duplicate keys (peeling cannot succeed) with a typed error', () => {
    const lo = Uint32Array.of(5, 5),
      hi = Uint32Array.of(9, 9);
    expect(() => buildLocator(lo, hi, Uint8Array.of(1, 2), 4, 4096)).toThrow(
      expect.objectContaining({ code: 'INTERNAL' }),
    );
  });

  it('sections: documents cut into pieces, and the document of a section', () => {
    const first = sectionIndex([10, 4096, 4097, 0], 4096);
    expect(Array.from(first)).toEqual([0, 1, 2, 4, 5]);
    expect([0, 1, 2, 3, 4].map((c) => sectionDoc(first, c))).toEqual([0, 1, 2, 2, 3]);
  });
});

describe('locator: chains of hits that agree on a section', () => {
  const C = 5000;
  const seeds = sectionSeeds(C);
  const first = sectionIndex(new Array(C / 10).fill(10 * 4096), 4096);

  /** Hits at `at` whose stored values agree with `section` where `own(i)`, random elsewhere. */
  function hits(at: number[], section: number, own: (i: number) => boolean, seed: number) {
    const rnd = prng(seed);
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const stored = Uint8Array.from(digests, (g, i) =>
      own(i) ? sectionValue(seeds[section], g, 4) : Math.floor(rnd() * 16),
    );
    return { digests, stored };
  }

  it('a copied passage: every hit agrees with its section, nothing else forms a long chain', () => {
    const at = Array.from({ length: 30 }, (_, i) => i);
    const { digests, stored } = hits(at, 1234, () => true, 1);
    const chains = locateChains(at, digests, stored, seeds, first, 4);
    const best = chains.reduce((a, b) => (b.positions.length > a.positions.length ? b : a));
    expect(best.section).toBe(1234);
    expect(best.doc).toBe(123);
    expect(best.positions).toEqual(at);
    // other sections agree with a hit by chance (1 in 16): short chains, which a search's claiming drops
    for (const c of chains) if (c !== best) expect(c.positions.length).toBeLessThan(at.length / 2);
  });

  it('an edited copy: agreeing hits with misses and foreign hits between them stay one chain', () => {
    const at = [0, 2, 3, 7, 9, 10, 14, 15, 19, 22, 25, 26, 30];
    const { digests, stored } = hits(at, 777, (i) => i % 4 !== 1, 2);
    const chains = locateChains(at, digests, stored, seeds, first, 4);
    const best = chains.reduce((a, b) => (b.positions.length > a.positions.length ? b : a));
    expect(best.section).toBe(777);
    const own = at.filter((_, i) => i % 4 !== 1);
    expect(best.positions).toEqual(expect.arrayContaining(own));
    expect(best.positions.length).toBeLessThanOrEqual(own.length + 1); // a foreign hit agrees by chance, 1 in 16
  });

  it('runs on into the next section of the same document', () => {
    const at = Array.from({ length: 20 }, (_, i) => i);
    const rnd = prng(5);
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const stored = Uint8Array.from(digests, (g, i) => sectionValue(seeds[i < 10 ? 40 : 41], g, 4));
    const chains = locateChains(at, digests, stored, seeds, first, 4);
    const best = chains.reduce((a, b) => (b.positions.length > a.positions.length ? b : a));
    expect([best.first_section, best.section, best.positions.length]).toEqual([40, 41, 20]);
  });

  it('a chance agreement of the next section does not carry the true chain away (it forks)', () => {
    // hit 1 is foreign and agrees with section 41; hit 2 agrees with both 40 and 41: the chain of 40 must go on
    const S = 40;
    const rnd = prng(11);
    const digest = (want: (g: number) => boolean) => {
      for (;;) {
        const g = (rnd() * 2 ** 32) >>> 0;
        if (want(g)) return g;
      }
    };
    const v = (c: number, g: number) => sectionValue(seeds[c], g, 4);
    const at = Array.from({ length: 17 }, (_, i) => i);
    const digests = Uint32Array.from(at, (i) =>
      i === 1
        ? digest((g) => v(S, g) !== v(S + 1, g))
        : i === 2
          ? digest((g) => v(S, g) === v(S + 1, g))
          : digest(() => true),
    );
    const stored = Uint8Array.from(at, (i) => (i === 1 ? v(S + 1, digests[i]) : v(S, digests[i])));
    const chains = locateChains(at, digests, stored, seeds, first, 4, 3);
    const best = chains.reduce((a, b) => (b.positions.length > a.positions.length ? b : a));
    expect(best.section).toBe(S);
    expect(best.positions).toEqual(at.filter((i) => i !== 1));
  });

  it('a long copy over five sections with foreign hits is one chain, and no chain repeats its history', () => {
    // 5 sections of document 20 (sections 200–204), 300 hits each, every 20th hit foreign (another document's)
    const n = 1500;
    const at = Array.from({ length: n }, (_, i) => i);
    const rnd = prng(21);
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const foreign = (i: number) => i % 20 === 7;
    const stored = Uint8Array.from(at, (i) =>
      foreign(i)
        ? sectionValue(seeds[4000 + (i % 97)], digests[i], 4)
        : sectionValue(seeds[200 + Math.floor(i / 300)], digests[i], 4),
    );
    const chains = locateChains(at, digests, stored, seeds, first, 4, 3);
    const best = chains.reduce((a, b) => (b.positions.length > a.positions.length ? b : a));
    expect([best.first_section, best.section]).toEqual([200, 204]);
    const own = at.filter((i) => !foreign(i));
    expect(best.positions).toEqual(expect.arrayContaining(own));
    // the chains left behind at each section's end are not returned again with the whole copy in them
    const long = chains.filter((c) => c.positions.length > 300);
    expect(long).toEqual([best]);
  });

  it('a copy of one text that moves on to another: the second chain starts at (nearly) its first hit', () => {
    // 300 hits of section 200 with pairs of foreign hits, then 40 hits of section 3000 (another document)
    const at = Array.from({ length: 340 }, (_, i) => i);
    const rnd = prng(23);
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const sectionOf = (i: number) => (i >= 300 ? 3000 : i % 25 === 7 || i % 25 === 8 ? 4000 + (i % 89) : 200);
    const stored = Uint8Array.from(at, (i) => sectionValue(seeds[sectionOf(i)], digests[i], 4));
    const chains = locateChains(at, digests, stored, seeds, first, 4, 3);
    const second = chains.find((c) => c.section === 3000);
    expect(second).toBeDefined();
    expect(second!.positions.length).toBeGreaterThanOrEqual(38);
    const firstChain = chains.find((c) => c.section === 200)!;
    expect(firstChain.positions).toEqual(expect.arrayContaining(at.filter((i) => sectionOf(i) === 200)));
  });

  it('one key said over and over ("a a a …"): no chain, where every section agreeing with it would hold one', () => {
    const at = Array.from({ length: 3000 }, (_, i) => i);
    const digests = new Uint32Array(at.length).fill(0x9e3779b9);
    const stored = new Uint8Array(at.length).fill(sectionValue(seeds[321], 0x9e3779b9, 4));
    expect(locateChains(at, digests, stored, seeds, first, 4, 3)).toEqual([]);
    // a phrase of three keys said over and over: chance chains at most where a section agrees with all three
    const three = Uint32Array.from(at, (i) => 1000 + (i % 3));
    const storedThree = Uint8Array.from(three, (g) => sectionValue(seeds[321], g, 4));
    const chains = locateChains(at, three, storedThree, seeds, first, 4, 3);
    expect(chains.length).toBeLessThan(C / 16);
    expect(chains.find((c) => c.section === 321)?.positions).toEqual(at);
  });

  it('a copied passage said over and over: one chain through every copy, as with the copy once', () => {
    const once = Array.from({ length: 40 }, (_, i) => i);
    const { digests, stored } = hits(once, 1234, () => true, 3);
    const copies = 50;
    const at = Array.from({ length: once.length * copies }, (_, i) => i);
    const all = (a: Uint32Array | Uint8Array) => at.map((i) => a[i % once.length]);
    const chains = locateChains(at, Uint32Array.from(all(digests)), Uint8Array.from(all(stored)), seeds, first, 4, 3);
    const best = chains.reduce((a, b) => (b.positions.length > a.positions.length ? b : a));
    expect(best.section).toBe(1234);
    expect(best.positions).toEqual(at);
  });

  it('scattered hits of random values: no chain longer than chance allows', () => {
    const rnd = prng(9);
    const at: number[] = [];
    for (let i = 0; i < 4000; i++) if (rnd() < 0.05) at.push(i);
    const digests = Uint32Array.from(at, () => (rnd() * 2 ** 32) >>> 0);
    const stored = Uint8Array.from(at, () => Math.floor(rnd() * 16));
    const chains = locateChains(at, digests, stored, seeds, first, 4);
    expect(Math.max(0, ...chains.map((c) => c.positions.length))).toBeLessThanOrEqual(4);
  });
});

describe('a portrait that locates', () => {
  const books = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise'];
  const docs = books.map((id) => ({ id, text: book(id), meta: { title: `Title of ${id}`, ebook: 100 + id.length } }));

  it('names the document and the section of a verbatim passage, also after export and import', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'p', kind: 'portrait', locate: true }, docs);
    const text = book('chesterton-thursday');
    const q = passageAt(text, Math.floor(text.length * 0.6), 80);
    const words = text.slice(0, q.start).split(/\s+/).length;
    const check = async (e: typeof engine) => {
      const r = await e.search(q.text, { datasets: ['p'] });
      const m = r.matches.filter((x) => x.kind === 'portrait') as PortraitMatch[];
      expect(m.length).toBeGreaterThan(0);
      for (const x of m) {
        expect(x.document_id).toBe('chesterton-thursday');
        expect(x.document).toEqual({ id: 'chesterton-thursday', title: 'Title of chesterton-thursday', ebook: 119 });
        expect(x.source_words![0]).toBeLessThanOrEqual(words);
        expect(x.source_words![1]).toBeGreaterThan(words - 100);
      }
    };
    await check(engine);
    const bytes = engine.exportDataset('p');
    const other = await createEngine();
    await other.importDataset(bytes);
    await check(other);
    // the same bytes again, and through the streamed export
    expect(other.exportDataset('p')).toEqual(bytes);
    const pieces = [...engine.exportDatasetStream('p').pieces()];
    expect(pieces.length).toBeGreaterThan(0);
    const data = decodeDataset(bytes, { kind: 'portrait' }) as PortraitDatasetData;
    expect(data.locator?.bits).toBe(4);
    expect(data.descriptor.locate).toBe(true);
  });

  it('names the document of a passage copied over and over, as of the passage once', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'p', kind: 'portrait', locate: true }, docs);
    const q = passageAt(book('milton-paradise'), 40_000, 60).text;
    for (const copies of [1, 10, 40]) {
      const r = await engine.search(Array(copies).fill(q).join('\n\n'), { datasets: ['p'] });
      const m = r.matches.filter((x) => x.kind === 'portrait') as PortraitMatch[];
      expect(m.length).toBeGreaterThan(0);
      // the copies' repeated n-grams agree once with the section, in the chain and in its span alike
      expect([copies, m.map((x) => x.document_id)]).toEqual([copies, m.map(() => 'milton-paradise')]);
    }
  });

  it('a portrait without locate keeps its matches unnamed and its snapshot version 1', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'q', kind: 'portrait' }, docs);
    const text = book('austen-persuasion');
    const r = await engine.search(passageAt(text, 30000, 80).text, { datasets: ['q'] });
    expect(r.matches.length).toBeGreaterThan(0);
    for (const x of r.matches) expect(x.document_id).toBeNull();
    expect(decodeDataset(engine.exportDataset('q'), { kind: 'portrait' }).locator).toBeUndefined();
  });

  it('rejects a snapshot whose locator does not fit its keys', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'r', kind: 'portrait', locate: true }, docs.slice(0, 1));
    const data = decodeDataset(engine.exportDataset('r'), { kind: 'portrait' }) as PortraitDatasetData;
    const bad = { ...data, locator: { ...data.locator!, cells: data.locator!.cells.subarray(1) } };
    expect(() => encodeDataset(bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    const wrongBits = { ...data, locator: { ...data.locator!, bits: 3 } };
    expect(() => encodeDataset(wrongBits)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    await expect(
      engine.addDataset({ id: 's', kind: 'exact', locate: true } as never, docs.slice(0, 1)),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', cause: { field: 'locate' } });
  });
});

describe('locator: the shared-text table', () => {
  // documents 0 (sections 0–2), 1 (sections 3–4) and 2 (section 5)
  const first = Uint32Array.of(0, 3, 5, 6);
  const C = 6;
  const code = (owner: number, other: number) => owner * C + other;

  it('names a document holding a fifth or more of a section, with the range of its sections that hold it', () => {
    const pairs: number[] = [];
    // section 1 owns 100 n-grams: document 1 holds 60 of them in section 3 and 30 in section 4, document 2 only 19
    for (let i = 0; i < 60; i++) pairs.push(code(1, 3));
    for (let i = 0; i < 30; i++) pairs.push(code(1, 4));
    for (let i = 0; i < 19; i++) pairs.push(code(1, 5));
    // section 0 owns 50: document 1 holds 10 (exactly the floor) in section 4, and 2 stray ones in section 3
    for (let i = 0; i < 8; i++) pairs.push(code(0, 4));
    for (let i = 0; i < 2; i++) pairs.push(code(0, 3));
    const owned = Uint32Array.of(50, 100, 0, 0, 0, 0);
    const table = decodeShared(sharedTable(Float64Array.from(pairs.reverse()), owned, first));
    expect(table.get(1)).toEqual([{ doc: 1, first_section: 3, last_section: 4, share: 0.9 }]);
    expect(SHARED_MIN).toBe(0.2);
    // 10 of 50: the floor; the range leaves out the section holding 2 stray n-grams (below 5 % of the section)
    expect(table.get(0)).toEqual([{ doc: 1, first_section: 4, last_section: 4, share: 0.2 }]);
    expect(table.has(2)).toBe(false);
  });

  it('is absent when nothing is shared, and a locator with rows out of range is refused', async () => {
    expect(sharedTable(new Float64Array(0), new Uint32Array(6), first)).toBeUndefined();
    expect(sharedTable(Float64Array.of(code(1, 5)), Uint32Array.of(0, 100, 0, 0, 0, 0), first)).toBeUndefined();
    const engine = await createEngine();
    const text = book('austen-persuasion');
    await engine.addDataset({ id: 'r', kind: 'portrait', locate: true }, [{ id: 'a', text }]);
    const data = decodeDataset(engine.exportDataset('r'), { kind: 'portrait' }) as PortraitDatasetData;
    expect(data.locator?.shared).toBeUndefined();
    const row = (values: number[]) => {
      const bytes = new Uint8Array(values.length * 4);
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < values.length; i++) view.setUint32(4 * i, values[i], true);
      return bytes;
    };
    const withShared = (shared: Uint8Array) => ({ ...data, locator: { ...data.locator!, shared } });
    // a row naming a document the portrait does not have: encodes (its layout is fine), refused on import
    const foreign = encodeDataset(withShared(row([0, 7, 0, 0, 5000])));
    await expect((await createEngine()).importDataset(foreign)).rejects.toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
    });
    expect(() => encodeDataset(withShared(row([0, 0, 2, 1, 5000])))).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => encodeDataset(withShared(row([0, 0, 0, 0, 20000])))).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => encodeDataset(withShared(new Uint8Array(7)))).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});
