/**
 * Packs of scripts written without spaces: a Japanese pack (three Akutagawa stories from Aozora Bunko) and a Chinese
 * one (道德經, 大學, 中庸, 孝經), each built from the committed fixtures of test/fixtures/texts/cjk/ as
 * build/packs-prepare-cjk.mjs prepares them. Their text is fingerprinted as character n-grams (every kanji, kana and
 * hanzi a token of its own): a 160-character excerpt is found and names its work, verbatim or with 1 character in
 * 10 replaced (400 characters), and text of the same author or era kept out of the pack (Akutagawa's 桃太郎, the
 * 鶡冠子) is not found at all.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPack, createEngine, type Engine, loadPack, type PackManifest, sha256Hex } from '../../src/library.js';

const enc = new TextEncoder();
const read = (name: string): string =>
  readFileSync(new URL(`../fixtures/texts/cjk/${name}.txt`, import.meta.url), 'utf8');

interface Work {
  id: string;
  title: string;
}
const JA: Work[] = [
  { id: 'akutagawa-rashomon', title: '羅生門' },
  { id: 'akutagawa-kumo-no-ito', title: '蜘蛛の糸' },
  { id: 'akutagawa-hana', title: '鼻' },
];
const ZH: Work[] = [
  { id: 'daodejing', title: '道德經' },
  { id: 'daxue', title: '大學' },
  { id: 'zhongyong', title: '中庸' },
  { id: 'xiaojing', title: '孝經' },
];

async function manifestOf(
  id: string,
  works: Work[],
): Promise<{ manifest: PackManifest; texts: Map<string, Uint8Array> }> {
  const texts = new Map<string, Uint8Array>();
  const documents = [];
  for (const w of works) {
    const bytes = enc.encode(read(w.id));
    texts.set(`${w.id}.txt`, bytes);
    documents.push({
      id: w.id,
      file: `${w.id}.txt`,
      title: w.title,
      sha256: await sha256Hex(bytes),
      bytes: bytes.length,
    });
  }
  return {
    manifest: {
      format: 'trainprint.pack-manifest',
      version: 1,
      id,
      name: id,
      pack_version: '1.0.0',
      description: 'Committed fixtures of a script written without spaces.',
      kb_dataset: 'common-crawl',
      window: 8,
      built: '2026-11-28',
      sources: [{ repository: 'aozorahack/aozorabunko_text', url: 'https://github.com/aozorahack/aozorabunko_text' }],
      licence: { texts: 'Public domain' },
      documents,
    },
    texts,
  };
}

/** A seeded PRNG (mulberry32): the same excerpts on every run. */
function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` characters from a random place of `text`, line breaks removed (as a quotation in running text has them). */
function excerpt(text: string, n: number, rand: () => number): string {
  const chars = [...text.replace(/\s+/g, '')];
  const at = Math.floor(rand() * (chars.length - n));
  return chars.slice(at, at + n).join('');
}

/** Every 10th letter replaced by another of `pool`. */
function edited(text: string, pool: string[], rand: () => number): string {
  let k = 0;
  return [...text]
    .map((c) => {
      if (!/\p{L}/u.test(c) || ++k % 10 !== 0) return c;
      let r = c;
      while (r === c) r = pool[Math.floor(rand() * pool.length)];
      return r;
    })
    .join('');
}

/** Every tenth character (the 6th of each 10, punctuation too) replaced by another of `pool`. */
function everyTenth(text: string, pool: string[], rand: () => number): string {
  return [...text]
    .map((c, i) => {
      if (i % 10 !== 5) return c;
      let r = c;
      while (r === c) r = pool[Math.floor(rand() * pool.length)];
      return r;
    })
    .join('');
}

/** The measured background of a shipped pack (packs/index.json): the null of its language. */
function shippedBackground(id: string) {
  const index = JSON.parse(readFileSync(new URL('../../packs/index.json', import.meta.url), 'utf8'));
  return index.packs.find((p: { id: string }) => p.id === id).background;
}

describe.each([
  {
    id: 'pack:ja-fixtures',
    works: JA,
    outside: 'akutagawa-momotaro',
    null: 'pack:aozora',
    pool: [...'のにはをたがでてとしかも人一大中日事見私'],
  },
  {
    id: 'pack:zh-fixtures',
    works: ZH,
    outside: 'heguanzi-part',
    null: 'pack:chinese-classics',
    pool: [...'之不以其而為無者天人有下是故大知曰也於所'],
  },
])('$id: a pack of a script without spaces', ({ id, works, outside, null: nullOf, pool }) => {
  let engine: Engine;
  // the same pack read against the null measured for its language's shipped pack (Japanese: 21 % of a text's
  // fingerprints hit by chance), as the default packs are
  let measured: Engine;
  beforeAll(async () => {
    const { manifest, texts } = await manifestOf(id, works);
    const built = await buildPack(await createEngine(), manifest, (d) => texts.get(d.file)!);
    const again = await buildPack(await createEngine(), manifest, (d) => texts.get(d.file)!);
    expect(again.sha256).toBe(built.sha256); // the same bytes from the same inputs
    engine = await createEngine();
    await loadPack(engine, built.bytes, { sha256: built.sha256 });
    measured = await createEngine();
    await loadPack(measured, built.bytes, { sha256: built.sha256 }, { background: shippedBackground(nullOf) });
  }, 60_000);

  const best = async (text: string, on = engine) => {
    const r = await on.analyze({ content: text, content_type: 'text' });
    const m = r.matches.find((x) => x.kind === 'portrait' && 'document_id' in x && x.document_id);
    // the longest chain's span in fingerprints, against the fingerprints tested
    const spans = r.matches.map((x) => ('fingerprints' in x ? (x.fingerprints ?? 0) : 0));
    return {
      confidence: r.confidence,
      document: m && 'document_id' in m ? m.document_id : undefined,
      longest: Math.max(0, ...spans) / Math.max(1, r.evidence.datasets[0]?.tested ?? 0),
    };
  };

  it('finds a verbatim 160-character excerpt of each work and names it', async () => {
    const rand = prng(82);
    for (const w of works) {
      for (let i = 0; i < 3; i++) {
        const r = await best(excerpt(read(w.id), 160, rand));
        expect(r.confidence, w.title).toBeGreaterThanOrEqual(50);
        expect(r.document, w.title).toBe(w.id);
      }
    }
  });

  it('finds a 400-character excerpt with 1 character in 10 replaced, naming the work', async () => {
    const rand = prng(83);
    for (const w of works) {
      const r = await best(edited(excerpt(read(w.id), 400, rand), pool, rand));
      expect(r.confidence, w.title).toBeGreaterThanOrEqual(50);
      expect(r.document, w.title).toBe(w.id);
    }
  });

  it("against its language's null, finds 400 characters with every tenth replaced by a common one as one chain", async () => {
    // a chain through such a copy crosses stretches of 40 to 60 characters no hit covers (half its n-grams are edited
    // away): counted as the 20 to 30 words they are, not as 40 to 60, the chain goes on over the whole passage, where
    // it used to end in pieces (half of these passages), too short to clear a null as heavy as Japanese's
    const rand = prng(85);
    let found = 0,
      whole = 0;
    for (const w of works) {
      for (let i = 0; i < 4; i++) {
        const r = await best(everyTenth(excerpt(read(w.id), 400, rand), pool, rand), measured);
        if (r.confidence >= 50 && r.document === w.id) found++;
        // 0.7: a chain's edges end at its last agreeing hits within reach (trimEdges), a few fingerprints in from the
        // passage's ends where every tenth character is edited; pieces cover a third to a half
        if (r.longest >= 0.7) whole++;
        expect(r.document === undefined || r.document === w.id, w.title).toBe(true);
      }
    }
    expect(found).toBe(works.length * 4);
    expect(whole).toBeGreaterThanOrEqual(works.length * 3);
  });

  it("finds nothing kept out of the pack against its language's null either", async () => {
    const rand = prng(86);
    const text = read(outside);
    for (const n of [40, 100, 160, 400]) {
      for (let i = 0; i < 5; i++) {
        const r = await best(excerpt(text, n, rand), measured);
        expect(r.confidence, `${n} characters`).toBeLessThan(50);
      }
    }
  });

  it('finds nothing in text of the same author or era kept out of the pack', async () => {
    const rand = prng(84);
    const text = read(outside);
    for (const n of [40, 100, 160, 400]) {
      for (let i = 0; i < 5; i++) {
        const r = await best(excerpt(text, n, rand));
        expect(r.confidence, `${n} characters`).toBeLessThan(50);
        expect(r.document, `${n} characters`).toBeUndefined();
      }
    }
  });
});
