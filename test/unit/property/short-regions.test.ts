/**
 * Mixed-script prose as the core meets it: short words that need the normaliser (a letter with a diacritic, a capital,
 * a Polish or Greek letter, ß, a ligature, a mark) between ASCII stretches of every length. Each such word is a region
 * of its own (assembly/regions.ts): the stretches between them are tokenised with their tokens' hashes put off across
 * stretches, and a region that is a separator and words needing no normalising is written before the normaliser's
 * general loop (assembly/nfkc.ts nfkcTokens). Both builds' tokens — every hash, start and end, as shingles of one
 * token — against the reference: normalize, then split, then XXH64.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, normalize, type Engine } from '../../../src/library.js';
import { prng, shinglesRef, tokensRef, u64Bytes, xxh64Ref } from '../../reference/core.js';

const hex64 = (v: bigint) => v.toString(16).padStart(16, '0');

/**
 * The reference's tokens of `text` as shingles of one token: their hashes, starts and ends (UTF-16 offsets of
 * `text`), and the content id over the tokens' own hashes.
 */
function referenceTokens(text: string) {
  const n = normalize(text);
  const t = tokensRef(n.text);
  const ids = u64Bytes(t.hashes);
  return {
    fingerprint: `tp1:${hex64(xxh64Ref(ids, 0x74700001n))}${hex64(xxh64Ref(ids, 0x74700002n))}`,
    hashes: shinglesRef(t.hashes, 1, 0n),
    starts: t.starts.map((s) => n.map[s]),
    ends: t.ends.map((e) => n.map[e]),
  };
}

// Words of one or two letters' difference from ASCII, as French, German, Polish and Greek prose holds them, and what
// the normaliser's general path takes: capitals that decompose, final sigma, Turkish İ, ß, ligatures, marks, U+FFFD
// (the host checks it, and the core tokenises the region again), fullwidth letters.
const WORDS = [
  'é',
  'à',
  'déjà',
  'über',
  'Über',
  'ÜBER',
  'façade',
  'naïve',
  'Ärger',
  'größer',
  'straße',
  'Straße',
  'École',
  'ÉCOLE',
  'être',
  'łódź',
  'Łódź',
  'żółw',
  'ŻÓŁW',
  'pomiędzy',
  'zakończone',
  'cofnąć',
  'Ćma',
  'Ńa',
  'ŚWIAT',
  'Źródło',
  'ąęćłńóśźż',
  'λόγος',
  'ΛΟΓΟΣ',
  'Όλα',
  'σοφός',
  'Й',
  'йод',
  'ЁЖ',
  'İstanbul',
  'ı',
  'ﬁnal',
  'ﬂ',
  'e\u0301',
  'cafe\u0301',
  'a\u0308b',
  '\ufffd',
  'x\ufffdy',
  'Ｗｏｒｄ',
  'ǅ',
  'Ǆemal',
  'ĳs',
  'ŉ',
  'ſ',
  'ĸ',
  'ŀl',
  'æther',
  'Œuvre',
  'œuvre',
  'ÿ',
  'Ÿ',
  'µ',
];
const SEPARATORS = [' ', ' ', ' ', '\n', ', ', '. ', "'", '<', '(', '\u00a0', '\u00ab', '\u2019', '-', '='];

/** An ASCII stretch of about `n` bytes: words, spaces and punctuation, sometimes one word the whole length. */
function stretch(rnd: () => number, n: number): string {
  if (rnd() < 0.1) return 'w'.repeat(n);
  let s = '';
  while (s.length < n) {
    const r = rnd();
    s +=
      r < 0.16
        ? ' '
        : r < 0.19
          ? ', '
          : r < 0.2
            ? '\n'
            : String.fromCharCode((rnd() < 0.1 ? 65 : 97) + Math.floor(rnd() * 26));
  }
  return s;
}

/** Short words needing the normaliser between ASCII stretches of 0..`most` bytes. */
function shortRegions(rnd: () => number, most: number): string {
  let text = '';
  for (let k = 1 + Math.floor(rnd() * 40); k > 0; k--) {
    text += stretch(rnd, Math.floor(rnd() * most));
    text += SEPARATORS[Math.floor(rnd() * SEPARATORS.length)];
    text += WORDS[Math.floor(rnd() * WORDS.length)];
    if (rnd() < 0.3) text += ` ${WORDS[Math.floor(rnd() * WORDS.length)]}`;
    text += SEPARATORS[Math.floor(rnd() * SEPARATORS.length)];
  }
  return text + stretch(rnd, Math.floor(rnd() * most));
}

describe.each([
  ['simd', true],
  ['scalar', false],
] as const)('short regions between ASCII stretches, %s build', (_name, simd) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ simd });
  });

  async function expectReference(text: string) {
    const ref = referenceTokens(text);
    const fp = await engine.fingerprint(text, {
      minhash: false,
      simhash: false,
      workHash: false,
      shingle: { unit: 'word', size: 1 },
      winnow: { window: 1 },
    });
    expect(fp.fingerprint, JSON.stringify(text)).toBe(ref.fingerprint);
    expect(
      {
        hashes: Array.from(fp.shingles.hashes),
        starts: Array.from(fp.shingles.starts),
        ends: Array.from(fp.shingles.ends),
      },
      JSON.stringify(text),
    ).toEqual({ hashes: ref.hashes, starts: ref.starts, ends: ref.ends });
  }

  it('equals the reference with stretches of 0..80 bytes (within a 64-byte block and across one; 500 texts)', async () => {
    const rnd = prng(2071);
    for (let t = 0; t < 500; t++) await expectReference(shortRegions(rnd, 80));
  });

  it('equals the reference with stretches of up to 1,500 bytes (tokens put off over several stretches; 120 texts)', async () => {
    const rnd = prng(2072);
    for (let t = 0; t < 120; t++) await expectReference(shortRegions(rnd, 1500));
  });
});
