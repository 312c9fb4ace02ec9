/**
 * src/util/inflate.ts against fflate's deflate (a dependency used by the document readers): every level (0 stored
 * blocks, fixed and dynamic Huffman blocks), empty, short, repetitive, random and real text up to 1.5 MB, and damaged
 * streams refused with a typed error.
 */
import { zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { inflateZlib } from '../../src/util/inflate.js';
import { book } from '../fixtures/texts/index.js';

let seed = 7;
const rnd = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed >>> 8;
};
const enc = new TextEncoder();
const INPUTS: Record<string, Uint8Array> = {
  empty: new Uint8Array(0),
  one: Uint8Array.of(42),
  repeated: new Uint8Array(70_000).fill(97),
  random: Uint8Array.from({ length: 50_000 }, () => rnd() & 0xff),
  text: enc.encode(book('austen-persuasion')),
  unicode: enc.encode('Ünïcödé — 日本語 🎉\t56564559\n'.repeat(500)),
};

describe('inflateZlib', () => {
  for (const [name, input] of Object.entries(INPUTS)) {
    it(`inflates what fflate deflates: ${name} (${input.length} bytes), levels 0, 1, 6, 9`, () => {
      for (const level of [0, 1, 6, 9] as const) expect(inflateZlib(zlibSync(input, { level }))).toEqual(input);
    });
  }

  it('refuses a damaged stream with INVALID_INPUT', () => {
    const good = zlibSync(INPUTS.text, { level: 9 });
    const truncated = good.slice(0, good.length >> 1);
    const flipped = good.slice();
    flipped[200] ^= 0x10;
    const badSum = good.slice();
    badSum[badSum.length - 1] ^= 1;
    for (const bytes of [truncated, flipped, badSum, Uint8Array.of(1, 2, 3, 4, 5, 6), new Uint8Array(3)])
      expect(() => inflateZlib(bytes)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});
