/**
 * The core's NFKC_Casefold (assembly/nfkc.ts) against the TypeScript reference (normalize): normalised text and
 * offset map identical on random Unicode and on the NormalizationTest vectors, in every build; the cases it hands
 * back to the host (U+FFFD, rewritten separators, too little room, huge runs of marks) are handed back.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { ensureTables } from '../../../src/fingerprint/words.js';
import { normalize } from '../../../src/text/normalize.js';
import { prng } from '../../reference/core.js';
import { randomText } from '../property/gen.js';
import { BUILDS, coreOf } from './helpers.js';

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/nfkc-vectors.json', import.meta.url), 'utf8')) as {
  vectors: { c: string[] }[];
  cases: { input: string }[];
};
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The core's normalisation of `text`: { text, map } or null when it hands the text back. */
function inCore(core: Core, text: string, outCap?: number, mapCap?: number): { text: string; map: number[] } | null {
  const bytes = encoder.encode(text);
  const cap = outCap ?? bytes.length * 4 + 64;
  const L = core.layout(1 << 20); // past the pairs ensureTables put at the start of the arena
  const inPtr = L.take(bytes.length + 16);
  const outPtr = L.take(cap + 16);
  const mapPtr = L.take((cap + 1) * 4);
  L.commit();
  core.writeBytes(inPtr, bytes);
  const written = core.raw.nfkcUtf8(inPtr, bytes.length, outPtr, cap, mapPtr, mapCap ?? cap + 1);
  if (written < 0) return null;
  const out = decoder.decode(core.u8.slice(outPtr, outPtr + written));
  expect(core.raw.nfkcMapLength()).toBe(out.length + 1);
  return { text: out, map: Array.from(core.u32(mapPtr, out.length + 1)) };
}

function expectSame(core: Core, text: string): boolean {
  const got = inCore(core, text);
  if (got === null) return false;
  const ref = normalize(text);
  expect(got.text).toBe(ref.text);
  expect(got.map).toEqual(Array.from(ref.map));
  return true;
}

describe.each(BUILDS)('nfkcUtf8 (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
    expect(core.raw.nfkcUtf8(core.arenaBase, 0, core.arenaBase, 16, core.arenaBase, 17)).toBe(-1); // no tables yet
    expect(ensureTables(core, core.layout())).toBe(true);
  });

  it('matches normalize() on random Unicode (text and map)', () => {
    let handedBack = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const text = randomText(seed, 1 + ((seed * 37) % 3000), [0, 0.3, 0.8][seed % 3]);
      if (!expectSame(core, text)) {
        expect(text).toContain('\ufffd');
        handedBack++;
      }
    }
    expect(handedBack).toBeLessThan(40);
  });

  it('matches normalize() on the NormalizationTest vectors and fixture cases', () => {
    for (const v of fixture.vectors) {
      for (const c of v.c) expect(expectSame(core, `x ${c} ${c.toUpperCase()}y`)).toBe(true);
    }
    for (const c of fixture.cases) if (!c.input.includes('\ufffd')) expect(expectSame(core, c.input)).toBe(true);
  });

  it('matches normalize() around clusters, long runs of marks and Hangul', () => {
    const rnd = prng(9);
    const parts = [
      'é',
      'e\u0301',
      '\u0301',
      '\u0323',
      '\u0345',
      'a',
      ' ',
      'ᾳ\u0313',
      '\u1100\u1161\u11a8',
      '한',
      '\uac00\u11a8',
      'ﷺ',
      '日',
      'Ǆ',
      'İ',
      '\u{1d400}',
      'ｶﾞ',
      'ς',
      '=\u0338',
      '\u0f73',
      '\u0f75\u0f81',
      'ǖ',
      'Ǖ',
      'ñ',
      'ệ',
      '\u0344',
      '\u0340',
      'Å',
      '\u212b',
      'ώ',
      '\u1f71',
      'ﬁ',
      'б',
      'Б',
      'й',
      '\u0439\u0308',
    ];
    for (let t = 0; t < 60; t++) {
      let s = '';
      const n = 200 + Math.floor(rnd() * 3000);
      for (let i = 0; i < n; i++) s += parts[Math.floor(rnd() * parts.length)];
      expect(expectSame(core, s)).toBe(true);
    }
    // 40 and 3000 stacked marks: one run for the counting sort; then one too long for the scratch arrays
    const MARKS = ['\u0301', '\u0323', '\u0345', '\u05b0'];
    const marks = (k: number) => Array.from({ length: k }, (_, i) => MARKS[i % 4]).join('');
    expect(expectSame(core, `a${marks(40)}b ${'x'.repeat(1500)}é${marks(3000)}`)).toBe(true);
    expect(inCore(core, `a${marks(5000)}`)).toBeNull();
  });

  it('hands back U+FFFD and output that does not fit', () => {
    expect(inCore(core, 'ab\ufffdc')).toBeNull();
    expect(inCore(core, 'é'.repeat(100), 100)).toBeNull();
    expect(inCore(core, 'é'.repeat(100), 205)?.text).toBe('é'.repeat(100));
    // '日' 100 times: 199 UTF-16 units with the spaces, 200 map entries
    expect(inCore(core, '日'.repeat(100), undefined, 199)).toBeNull();
    expect(inCore(core, '日'.repeat(100), undefined, 202)?.map.length).toBe(200);
    const L = core.layout(1 << 20);
    const _p = L.take(256);
    L.commit();
  });

  it("reads an inert separator rewritten by findRegions (' ' + 0xFF bytes) as the separator it was", () => {
    const L = core.layout(1 << 20);
    const p = L.take(256);
    L.commit();
    // 'a\u3000bé' after the rewrite: U+3000 (3 bytes, 1 UTF-16 unit) became ' ' FF FF
    core.writeBytes(p, new Uint8Array([0x61, 0x20, 0xff, 0xff, 0x62, 0xc3, 0xa9]));
    const written = core.raw.nfkcUtf8(p, 7, p + 16, 32, p + 64, 33);
    const ref = normalize('a\u3000bé');
    expect(decoder.decode(core.u8.slice(p + 16, p + 16 + written))).toBe(ref.text);
    expect(Array.from(core.u32(p + 64, ref.text.length + 1))).toEqual(Array.from(ref.map));
  });
});
