/**
 * Differential tests: the WebAssembly pipeline (scalar and SIMD builds) against the plain-TS
 * reference on seeded random Unicode, plus the invariants the design promises.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, normalize, type Engine, type Fingerprint } from '../../../src/library.js';
import { charShinglesRef, prng, shinglesRef, tokensRef, u64Bytes, winnowRef, xxh64Ref } from '../../reference/core.js';
import { randomText, randomWords } from './gen.js';

const hex64 = (v: bigint) => v.toString(16).padStart(16, '0');

/** What the reference pipeline says a word fingerprint must contain. */
function referenceWord(text: string, size = 5, window = 8, seed = 0) {
  const n = normalize(text);
  const t = tokensRef(n.text);
  const hashes = shinglesRef(t.hashes, size, BigInt(seed));
  const m = hashes.length;
  const starts = t.starts.slice(0, m).map((s) => n.map[s]);
  const ends = Array.from({ length: m }, (_, i) => n.map[t.ends[Math.min(i + size - 1, t.hashes.length - 1)]]);
  const ids = u64Bytes(t.hashes);
  return {
    fingerprint: `tp1:${hex64(xxh64Ref(ids, 0x74700001n))}${hex64(xxh64Ref(ids, 0x74700002n))}`,
    token_count: t.hashes.length,
    hashes,
    starts,
    ends,
    winnow: winnowRef(hashes, window),
  };
}

const NO_SKETCH = { minhash: false, simhash: false, workHash: false } as const;

function expectMatchesReference(fp: Fingerprint, ref: ReturnType<typeof referenceWord>) {
  expect(fp.fingerprint).toBe(ref.fingerprint);
  expect(fp.token_count).toBe(ref.token_count);
  expect(Array.from(fp.shingles.hashes)).toEqual(ref.hashes);
  expect(Array.from(fp.shingles.starts)).toEqual(ref.starts);
  expect(Array.from(fp.shingles.ends)).toEqual(ref.ends);
  expect(Array.from(fp.winnow!.positions)).toEqual(ref.winnow);
  // each posting is its shingle's hash and span (spans of regions the host normalised included)
  const pos = Array.from(fp.winnow!.positions);
  expect(Array.from(fp.winnow!.hashes)).toEqual(pos.map((p) => ref.hashes[p]));
  expect(Array.from(fp.winnow!.starts)).toEqual(pos.map((p) => ref.starts[p]));
  expect(Array.from(fp.winnow!.ends)).toEqual(pos.map((p) => ref.ends[p]));
}

describe.each([
  ['simd', true],
  ['scalar', false],
] as const)('fingerprint pipeline, %s build', (_name, simd) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ simd });
  });

  it('equals the reference on random Unicode (300 texts, all scripts)', async () => {
    const rnd = prng(1234);
    for (let t = 0; t < 300; t++) {
      const len = t < 5 ? t : Math.floor(rnd() * 400);
      const text = randomText(9000 + t, len, rnd());
      const fp = await engine.fingerprint(text, NO_SKETCH);
      expectMatchesReference(fp, referenceWord(text));
    }
  });

  it('equals the reference on script runs between ASCII and inert separators (whole 64-byte blocks of them)', async () => {
    // The core reads 64-byte blocks of non-ASCII text as a whole; these texts put every kind of character at every
    // offset of a block: CJK, kana, Hangul, Cyrillic, Latin-1 letters, emoji, fullwidth forms, and inert separators
    // (no-break space, curly quotes, dashes, ideographic comma, full stop and space, minus) before ASCII or not.
    const PIECES = [
      '漢字',
      '日本語の',
      'かな',
      'カタカナ',
      'ที่ภาษาไทย',
      'ຂອບໃຈ',
      'ខ្មែរ',
      'မြန်မာ',
      '한국어',
      'Кириллица',
      'écoute',
      'Straße',
      '😀',
      'ｆｕｌｌ',
      '４２',
      '\u00a0',
      '\u201c',
      '\u201d',
      '\u2014',
      '\u3001',
      '\u3002',
      '\u3000',
      '\u2212',
      '\u00bb',
      ' ',
      '  ',
      '\n',
      '\t',
      'ascii',
      'A1',
      '-',
      ',',
      '.',
      'x',
    ];
    const rnd = prng(4321);
    for (let t = 0; t < 400; t++) {
      let text = '';
      const n = 20 + Math.floor(rnd() * 400);
      for (let k = 0; k < n; k++) text += PIECES[Math.floor(rnd() * PIECES.length)];
      const fp = await engine.fingerprint(text, {
        ...NO_SKETCH,
        shingle: { unit: 'word', size: 1 },
        winnow: { window: 1 },
      });
      expectMatchesReference(fp, referenceWord(text, 1, 1));
      expectMatchesReference(await engine.fingerprint(text, NO_SKETCH), referenceWord(text));
    }
  });

  it('equals the reference on mixed-script prose: plain words of every length, capitals, final sigma, ß, İ, marks', async () => {
    // The normaliser writes the words that need no normalising a run at a time (Cyrillic, Greek, Latin with
    // diacritics and the ASCII words among them; a word with capitals spelled folded first): long texts of such words
    // of 1 to 40 bytes, with the letters that take the other paths now and then (final and medial sigma, ß, dotted and
    // dotless i, ligatures, long s, decomposed marks, capitals that decompose, fullwidth letters, ideographs) and the
    // separators of prose between them (inert ones too, which the region search rewrites before ASCII).
    const rnd = prng(5150);
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];
    const letters = [
      [...'абвгдежзийклмнопрстуфхцчшщъыьэюяё'],
      [...'αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊΐς'],
      [...'àâäçéèêëîïôöùûüÿñąćęłńóśźżőabcdefghij'],
      [...'abcdefghijklmnopqrstuvwxyz0123456789'],
    ];
    const rare = [...'ςσßİıﬁﬂſÉÓŚĄΌΆЁЙ中日Ａｂ１'].concat(['e\u0301', 'ι\u0308\u0301', '\u0301']);
    const seps = [' ', ' ', ' ', ' ', '\n', ', ', '. ', '\n   ', ' — ', ' «', '» ', '\u00a0', ': ', ' (', ') ', '-'];
    for (let t = 0; t < 60; t++) {
      let text = '';
      for (let k = 20 + Math.floor(rnd() * 1500); k > 0; k--) {
        const a = pick(letters);
        let w = '';
        for (let j = 1 + Math.floor(rnd() * 20); j > 0; j--) w += rnd() < 0.02 ? pick(rare) : pick(a);
        if (rnd() < 0.25) w = w[0].toUpperCase() + w.slice(1);
        text += (rnd() < 0.02 ? w.toUpperCase() : w) + pick(seps);
      }
      const fp = await engine.fingerprint(text, {
        ...NO_SKETCH,
        shingle: { unit: 'word', size: 1 },
        winnow: { window: 1 },
      });
      expectMatchesReference(fp, referenceWord(text, 1, 1));
    }
  });

  it('equals the reference whether the shingle hashes and the winnowed postings fit in the rooms they reuse or not', async () => {
    // the shingle hashes go in the input's room when they fit (8 bytes a token against 3 a UTF-16 unit: long ASCII
    // words do; one-letter words and ideographs do not), the postings after the winnowed indices in the token hashes'
    // room when they fit (long ASCII words at any window do; one-letter words and ideographs, each selected at window
    // 1, do not): each takes room of its own otherwise
    const rnd = prng(777);
    const ideographs = '日本語文章書読見聞話言葉東西南北春夏秋冬';
    for (let t = 0; t < 120; t++) {
      const n = 1 + Math.floor(rnd() * 3000);
      const kind = t % 3;
      let text = '';
      for (let k = 0; k < n; k++) {
        if (kind === 0) text += `${'abcdefghij'.slice(0, 6 + Math.floor(rnd() * 5))}${k % 97} `;
        else if (kind === 1) text += `${'xyz'[Math.floor(rnd() * 3)]} `;
        else text += ideographs[Math.floor(rnd() * ideographs.length)];
      }
      for (const window of [1, 8]) {
        const size = 1 + (t % 5);
        const fp = await engine.fingerprint(text, {
          ...NO_SKETCH,
          shingle: { unit: 'word', size },
          winnow: { window },
        });
        expectMatchesReference(fp, referenceWord(text, size, window));
      }
    }
  });

  it('equals the reference where the core hands regions back to the host, alone or many, from any text and bytes', async () => {
    // U+FFFD (a region the host must check), ㋿ (two tokens from three bytes: more than a region's room), a changed
    // word over 2 KiB; between regions the core tokenises itself, so the host's regions land among the core's
    const HANDED = ['\ufffd', '㋿㋿㋿㋿', `Ж${'ж'.repeat(1100)}`];
    // (and inert separators before ASCII, which a region handed back may span: the core rewrites them in its copy)
    const OTHERS = [
      '中文的句子',
      'Москва',
      'plain words',
      ' ',
      '\n',
      'é',
      'ＡＢＣ',
      '日本語の文章',
      '\u00a0x',
      '\u201cq',
      '\u3000a',
    ];
    const rnd = prng(99);
    for (let t = 0; t < 60; t++) {
      let text = '';
      for (let k = 5 + Math.floor(rnd() * 60); k > 0; k--) {
        const pool = rnd() < 0.15 ? HANDED : OTHERS;
        text += pool[Math.floor(rnd() * pool.length)] + (rnd() < 0.5 ? ' ' : '');
      }
      const ref = referenceWord(text);
      expectMatchesReference(await engine.fingerprint(text, NO_SKETCH), ref);
      expectMatchesReference(await engine.fingerprint(new TextEncoder().encode(text), NO_SKETCH), ref);
      // shingles that end, start or lie inside a region normalised here, whatever their size and window
      const [size, window] = [
        [1, 1],
        [2, 3],
        [9, 4],
      ][t % 3];
      const other = await engine.fingerprint(text, {
        ...NO_SKETCH,
        shingle: { unit: 'word', size },
        winnow: { window },
      });
      expectMatchesReference(other, referenceWord(text, size, window));
    }
  });

  it('equals the reference for other sizes, windows and seeds', async () => {
    for (const [size, window, seed] of [
      [1, 1, 0],
      [2, 3, 7],
      [9, 4, 0xffffffff],
      [13, 50, 42],
    ]) {
      for (let t = 0; t < 20; t++) {
        const text = randomText(500 + t, 200, 0.7);
        const fp = await engine.fingerprint(text, {
          ...NO_SKETCH,
          shingle: { unit: 'word', size },
          winnow: { window },
          seed,
        });
        expectMatchesReference(fp, referenceWord(text, size, window, seed));
      }
    }
  });

  it('equals the reference on a multi-megabyte mixed text', async () => {
    const text = randomText(77, 1_500_000, 0.8);
    const fp = await engine.fingerprint(text, NO_SKETCH);
    const ref = referenceWord(text);
    expect(fp.shingles.hashes.length).toBe(ref.hashes.length);
    expectMatchesReference(fp, ref);
  });

  it('character k-grams equal the reference (normalised and raw)', async () => {
    for (let t = 0; t < 60; t++) {
      const text = randomText(3000 + t, t * 7, 0.5);
      const k = 1 + (t % 13);
      const raw = await engine.fingerprint(text, {
        ...NO_SKETCH,
        normalize: 'none',
        shingle: { unit: 'char', size: k },
        winnow: false,
      });
      const r = charShinglesRef(text, k, 0n);
      expect(Array.from(raw.shingles.hashes)).toEqual(r.hashes);
      expect(Array.from(raw.shingles.starts)).toEqual(r.starts);
      expect(Array.from(raw.shingles.ends)).toEqual(r.ends);
      const norm = await engine.fingerprint(text, { ...NO_SKETCH, shingle: { unit: 'char', size: k }, seed: 99 });
      const n = normalize(text);
      const rn = charShinglesRef(n.text, k, 99n);
      expect(Array.from(norm.shingles.hashes)).toEqual(rn.hashes);
      // a span starts at the first source offset its k-gram's code units map to (map[start] where map ascends), the
      // next token's too after a separator last
      const firstSource = (s: number, e: number) =>
        Math.min(...Array.from(n.map.subarray(s, n.text[e - 1] === ' ' ? e + 1 : e)));
      expect(Array.from(norm.shingles.starts)).toEqual(rn.starts.map((s, i) => firstSource(s, rn.ends[i])));
      expect(Array.from(norm.winnow!.positions)).toEqual(winnowRef(rn.hashes, 8));
      // every span holds the source characters its k-gram comes from: never inverted, and empty only for a
      // separator alone between two tokens with nothing between them in the source (ςセ: σ, then セ, a token apart)
      for (let i = 0; i < norm.shingles.starts.length; i++) {
        const [a, b] = [norm.shingles.starts[i], norm.shingles.ends[i]];
        if (n.text.slice(rn.starts[i], rn.ends[i]) === ' ') {
          expect(a).toBeLessThanOrEqual(b);
          continue;
        }
        expect(a).toBeLessThan(b);
      }
    }
  });

  it('character k-grams inside a character that normalises to several: the whole character', async () => {
    const spans = async (text: string, size: number) => {
      const fp = await engine.fingerprint(text, { ...NO_SKETCH, shingle: { unit: 'char', size }, winnow: false });
      return Array.from(fp.shingles.starts, (s, i) => text.slice(s, fp.shingles.ends[i]));
    };
    expect(await spans('Straße', 2)).toEqual(['St', 'tr', 'ra', 'aß', 'ß', 'ße']);
    expect(await spans('ﬁne', 1)).toEqual(['ﬁ', 'ﬁ', 'n', 'e']);
    expect(await spans('½', 2)).toEqual(['½', '½']);
  });
});

describe('invariants', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
  });

  it('winnowing guarantee: any shared run of w + n - 1 tokens yields a shared fingerprint', async () => {
    const rnd = prng(99);
    for (let t = 0; t < 200; t++) {
      const w = 1 + Math.floor(rnd() * 12);
      const n = 1 + Math.floor(rnd() * 7);
      const shared = randomWords(t * 3 + 1, w + n - 1);
      const a = [
        ...randomWords(t * 3 + 2, Math.floor(rnd() * 300)),
        ...shared,
        ...randomWords(t * 3 + 4, Math.floor(rnd() * 300)),
      ];
      const b = [
        ...randomWords(t * 3 + 3, Math.floor(rnd() * 300)),
        ...shared.map((x) => x.toUpperCase()),
        ...randomWords(t * 3 + 5, 50),
      ];
      const opts = { ...NO_SKETCH, shingle: { unit: 'word' as const, size: n }, winnow: { window: w } };
      const fa = await engine.fingerprint(a.join(' '), opts);
      const fb = await engine.fingerprint(b.join(', '), opts);
      const hb = new Set(fb.winnow!.hashes);
      expect(fa.winnow!.hashes.some((h) => hb.has(h))).toBe(true);
    }
  });

  it('winnowing density is close to 2 / (w + 1) on prose', async () => {
    const text = randomWords(5, 200_000).join(' ');
    for (const w of [4, 8, 16]) {
      const fp = await engine.fingerprint(text, { ...NO_SKETCH, winnow: { window: w } });
      const density = fp.winnow!.hashes.length / fp.shingles.hashes.length;
      expect(Math.abs(density - 2 / (w + 1)) / (2 / (w + 1))).toBeLessThan(0.05);
    }
  });

  it('spans point into the original text', async () => {
    const text = 'ＡＢＣ (Straße) — «Σίσυφος» «co\u00ADoperate» 日本語 👍🏽 e\u0301t\u00e9!';
    const fp = await engine.fingerprint(text, { ...NO_SKETCH, shingle: { unit: 'word', size: 1 } });
    const spans = Array.from(fp.shingles.starts, (s, i) => text.slice(s, fp.shingles.ends[i]));
    expect(spans).toEqual(['ＡＢＣ', 'Straße', 'Σίσυφος', 'co\u00ADoperate', '日', '本', '語', 'e\u0301t\u00e9']);
  });

  it('work_hash equals node:crypto SHA-256 of the UTF-8 bytes for 1,000 random strings', async () => {
    const rnd = prng(2024);
    for (let t = 0; t < 1000; t++) {
      const text = randomText(t, Math.floor(rnd() * (t % 10 === 0 ? 5000 : 200)), rnd());
      const fp = await engine.fingerprint(text, { minhash: false, simhash: false });
      expect(fp.work_hash).toBe('sha256:' + createHash('sha256').update(text, 'utf8').digest('hex'));
      expect(fp.byte_length).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });

  it('equal normalised content gives the same id; different content a different one', async () => {
    const a = await engine.fingerprint('The Quick  brown fox!', NO_SKETCH);
    const b = await engine.fingerprint('the quick brown FOX', NO_SKETCH);
    const c = await engine.fingerprint('the quick brown fox jumps', NO_SKETCH);
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(c.fingerprint);
    expect(a.fingerprint).toMatch(/^tp1:[0-9a-f]{32}$/);
  });

  it('does not grow wasm memory over 100,000 calls (no per-call allocation)', async () => {
    const texts = [randomText(1, 300, 0.9), randomText(2, 300, 0.3), randomWords(3, 80).join(' ')];
    for (const t of texts) await engine.fingerprint(t, { workHash: false });
    const before = engine.memoryBytes;
    for (let i = 0; i < 100_000; i++) await engine.fingerprint(texts[i % 3], { workHash: false });
    expect(engine.memoryBytes).toBe(before);
  });

  it('handles a 50 MB string', async () => {
    const unit = randomWords(8, 2000).join(' ') + '. ';
    const big = unit.repeat(Math.ceil(50_000_000 / unit.length)).slice(0, 50_000_000);
    const fp = await engine.fingerprint(big, { workHash: false });
    expect(fp.byte_length).toBe(50_000_000);
    expect(fp.shingles.hashes.length).toBe(fp.token_count - 4);
    expect(fp.shingles.ends[fp.shingles.ends.length - 1]).toBeLessThanOrEqual(big.length);
  });
});

describe('ASCII/non-ASCII region preparation', () => {
  it('token stream equals normalize() on adversarial boundaries', async () => {
    const engine = await createEngine();
    const alphabet = [
      'a',
      'B',
      '7',
      ' ',
      '=',
      '<',
      '>',
      '-',
      '\u00a0',
      '\u2019',
      '\u2014',
      '\u00d7',
      '\u3002',
      '\u2017',
      '\u00b4',
      '\u00a8',
      '\u0338',
      '\u0301',
      '\u00ad',
      '\u200d',
      'é',
      'ß',
      'Ⅻ',
      '①',
      '¼',
      '日',
      'ก',
      '\u0e35',
      '\u0e48',
      'ミ',
      '\u1100',
      '\u1161',
      'ﬁ',
      '\u{1d400}',
      '\u00a0',
    ];
    const rnd = prng(4242);
    for (let t = 0; t < 3000; t++) {
      let s = '';
      const n = 1 + Math.floor(rnd() * 24);
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      const fp = await engine.fingerprint(s, { ...NO_SKETCH, shingle: { unit: 'word', size: 1 } });
      expectMatchesReference(fp, referenceWord(s, 1));
    }
  });

  it('"=" followed by U+0338 composes to a separator, not a letter', async () => {
    const engine = await createEngine();
    const fp = await engine.fingerprint('a=\u0338b', { ...NO_SKETCH, shingle: { unit: 'word', size: 1 } });
    expect(fp.token_count).toBe(2);
    expect(Array.from(fp.shingles.starts)).toEqual([0, 3]);
  });
});

describe('winnowCore (the indexing path)', () => {
  it('gives exactly the winnowed set of the full fingerprint', async () => {
    const { winnowCore } = await import('../../../src/fingerprint/fingerprint.js');
    const { resolveOptions } = await import('../../../src/fingerprint/options.js');
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): import('../../../src/core/abi.js').Core }).assertLive();
    const rnd = prng(77);
    for (let t = 0; t < 200; t++) {
      let text = randomText(t + 40_000, Math.floor(rnd() * 600), rnd());
      if (t % 2 === 0) {
        // U+FFFD: a region the core hands back to be normalised in JavaScript, among the ones it tokenises itself
        let at = Math.floor(rnd() * (text.length + 1));
        if (at < text.length && text.charCodeAt(at) >= 0xdc00 && text.charCodeAt(at) <= 0xdfff) at++;
        text = `${text.slice(0, at)}\ufffd${text.slice(at)}`;
      }
      const o = resolveOptions({
        ...NO_SKETCH,
        winnow: { window: 1 + (t % 12) },
        shingle: { unit: 'word', size: 1 + (t % 7) },
      });
      const lean = winnowCore(core, text, o);
      const full = await engine.fingerprint(text, {
        ...NO_SKETCH,
        winnow: { window: 1 + (t % 12) },
        shingle: { unit: 'word', size: 1 + (t % 7) },
      });
      expect(lean.token_count).toBe(full.token_count);
      expect(lean.byte_length).toBe(full.byte_length);
      expect(Array.from(lean.winnow.hashes)).toEqual(Array.from(full.winnow!.hashes));
      expect(Array.from(lean.winnow.starts)).toEqual(Array.from(full.winnow!.starts));
      expect(Array.from(lean.winnow.ends)).toEqual(Array.from(full.winnow!.ends));
      expect(Array.from(lean.winnow.positions)).toEqual(Array.from(full.winnow!.positions));
      // both gather in the core (winnowPostings), then map the spans of JavaScript-normalised regions: the reference is
      // the shingles themselves
      const { hashes, starts, ends } = full.shingles!;
      const at = Array.from(full.winnow!.positions);
      expect(Array.from(full.winnow!.hashes)).toEqual(at.map((p) => hashes[p]));
      expect(Array.from(full.winnow!.starts)).toEqual(at.map((p) => starts[p]));
      expect(Array.from(full.winnow!.ends)).toEqual(at.map((p) => ends[p]));
    }
  });
});
