/** Raw-ABI tests of the hashing/tokenising kernels on the scalar, SIMD and debug builds. */
import { describe, expect, it } from 'vitest';
import { BUILDS, coreOf, put } from './helpers.js';
import { prng, xxh64Ref } from '../../reference/core.js';

// xxHash's own sanity vectors (xxhsum BMK_sanityCheck): buffer[i] = byteGen >> 24, byteGen *= byteGen (u32),
// starting at PRIME32_1; seeds 0 and PRIME32_1.
const PRIME32 = 2654435761;
function sanityBuffer(n: number): Uint8Array {
  const b = new Uint8Array(n);
  let g = PRIME32;
  for (let i = 0; i < n; i++) {
    b[i] = g >>> 24;
    g = Math.imul(g, g) >>> 0;
  }
  return b;
}
const KAV: Array<[number, bigint, bigint]> = [
  [0, 0n, 0xef46db3751d8e999n],
  [0, BigInt(PRIME32), 0xac75fda2929b17efn],
  [1, 0n, 0x4fce394cc88952d8n],
  [1, BigInt(PRIME32), 0x739840cb819fa723n],
  [14, 0n, 0xcffa8db881bc3a3dn],
  [14, BigInt(PRIME32), 0x5b9611585efcc9cbn],
  [101, 0n, 0x0eab543384f878adn],
  [101, BigInt(PRIME32), 0xcaa65939306f1e21n],
];
/**
 * A string of `n` code units drawn from runs of ASCII, 2-byte and 3-byte characters, surrogate pairs and lone halves
 * of pairs — each kind as likely at any offset, so that some fall on the edges of the core's blocks of 16 and 4 units.
 */
function mixedUnits(rand: () => number, n: number, asciiShare = 0.6): string {
  const units: number[] = [];
  while (units.length < n) {
    const r = rand();
    const run = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < run && units.length < n; i++) {
      if (r < asciiShare) units.push(Math.floor(rand() * 128));
      else if (r < asciiShare + 0.1) units.push(0x80 + Math.floor(rand() * 0x780));
      else if (r < asciiShare + 0.2)
        units.push(rand() < 0.5 ? 0x800 + Math.floor(rand() * 0xd000) : 0xe000 + Math.floor(rand() * 0x2000));
      else if (r < asciiShare + 0.3)
        units.push(0xd800 + Math.floor(rand() * 0x400), 0xdc00 + Math.floor(rand() * 0x400));
      else units.push(rand() < 0.5 ? 0xd800 + Math.floor(rand() * 0x400) : 0xdc00 + Math.floor(rand() * 0x400));
    }
  }
  let s = '';
  for (let i = 0; i < n; i += 8192) s += String.fromCharCode(...units.slice(i, Math.min(n, i + 8192)));
  return s;
}

const TEXT_KAV: Array<[string, bigint]> = [
  ['', 0xef46db3751d8e999n],
  ['a', 0xd24ec4f1a98c6e5bn],
  ['abc', 0x44bc2cf5ad770999n],
];

describe.each(BUILDS)('core ABI (%s)', (build) => {
  it('XXH64 known-answer vectors (xxHash sanity check and short strings)', async () => {
    const core = await coreOf(build);
    const buf = sanityBuffer(101);
    for (const [len, seed, want] of KAV) {
      const p = put(core, buf);
      expect(BigInt.asUintN(64, core.raw.xxh64(p, len, seed))).toBe(want);
      expect(xxh64Ref(buf.subarray(0, len), seed)).toBe(want);
    }
    for (const [s, want] of TEXT_KAV) {
      const bytes = new TextEncoder().encode(s);
      expect(BigInt.asUintN(64, core.raw.xxh64(put(core, bytes), bytes.length, 0n))).toBe(want);
    }
  });

  it('XXH64 equals the reference for every length 0..300 and random seeds', async () => {
    const core = await coreOf(build);
    const rnd = prng(7);
    const buf = new Uint8Array(300).map(() => (rnd() * 256) | 0);
    const p = put(core, buf);
    for (let len = 0; len <= 300; len++) {
      const seed = (BigInt(Math.floor(rnd() * 2 ** 32)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32));
      expect(BigInt.asUintN(64, core.raw.xxh64(p, len, seed))).toBe(xxh64Ref(buf.subarray(0, len), seed));
    }
  });

  it('xxh64Pair gives XXH64 under both seeds, for every length 0..300 and random seeds', async () => {
    const core = await coreOf(build);
    const rnd = prng(12);
    const buf = new Uint8Array(300).map(() => (rnd() * 256) | 0);
    const p = put(core, buf);
    for (let len = 0; len <= 300; len++) {
      const a = BigInt((rnd() * 2 ** 32) >>> 0) << BigInt(len % 33);
      const b = BigInt.asUintN(64, (BigInt((rnd() * 2 ** 32) >>> 0) << 32n) | BigInt(len));
      expect(BigInt.asUintN(64, core.raw.xxh64Pair(p, len, a, b))).toBe(xxh64Ref(buf.subarray(0, len), a));
      expect(BigInt.asUintN(64, core.raw.xxh64PairSecond())).toBe(xxh64Ref(buf.subarray(0, len), b));
    }
  });

  it('xxh64Folded hashes ASCII letters as lower case and leaves UTF-8 bytes alone', async () => {
    const core = await coreOf(build);
    const rnd = prng(11);
    const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    for (let t = 0; t < 200; t++) {
      let s = '';
      const n = (rnd() * 70) | 0;
      for (let i = 0; i < n; i++)
        s += rnd() < 0.8 ? alnum[(rnd() * alnum.length) | 0] : String.fromCodePoint(0x80 + ((rnd() * 0x2000) | 0));
      const bytes = new TextEncoder().encode(s);
      const lower = new TextEncoder().encode(s.replace(/[A-Z]/g, (c) => c.toLowerCase()));
      expect(BigInt.asUintN(64, core.raw.xxh64Folded(put(core, bytes), bytes.length, 5n))).toBe(xxh64Ref(lower, 5n));
    }
  });

  it('utf16ToUtf8 writes what TextEncoder writes (lone surrogates as U+FFFD), for every length 0..200', async () => {
    const core = await coreOf(build);
    const rand = prng(16);
    const enc = new TextEncoder();
    const L = core.layout();
    const src = L.take(2 * 200);
    const dst = L.take(3 * 200 + 16);
    L.commit();
    for (let n = 0; n <= 200; n++) {
      for (const share of [1, 0.9, 0.6, 0]) {
        const s = mixedUnits(rand, n, share);
        const u16 = core.u16(src, n);
        for (let i = 0; i < n; i++) u16[i] = s.charCodeAt(i);
        const len = core.raw.utf16ToUtf8(src, n, dst);
        expect(core.u8.slice(dst, dst + len)).toEqual(enc.encode(s));
      }
    }
    // the edges: a pair across a block's end, a lone half at a block's end and at the input's end
    for (const s of [
      'a'.repeat(15) + '😀b',
      'a'.repeat(15) + '\ud800',
      'a'.repeat(15) + '\ud800b',
      '\udc00'.repeat(17),
      'é'.repeat(33),
    ]) {
      const u16 = core.u16(src, s.length);
      for (let i = 0; i < s.length; i++) u16[i] = s.charCodeAt(i);
      const len = core.raw.utf16ToUtf8(src, s.length, dst);
      expect(core.u8.slice(dst, dst + len)).toEqual(enc.encode(s));
    }
  });

  it('utf16ToUtf8 writes what TextEncoder writes for runs of each UTF-8 length, at every offset and at their edges', async () => {
    const core = await coreOf(build);
    const rand = prng(18);
    const enc = new TextEncoder();
    // each kind's edge values beside random ones: one byte, two, three (below and above the surrogates), pairs, lone halves
    const pick = (lo: number, hi: number) => {
      const r = rand();
      return r < 0.15 ? lo : r < 0.3 ? hi : lo + Math.floor(rand() * (hi - lo + 1));
    };
    const kinds: Array<() => number[]> = [
      () => [pick(0, 0x7f)],
      () => [pick(0x80, 0x7ff)],
      () => [pick(0x800, 0xd7ff)],
      () => [pick(0xe000, 0xffff)],
      () => [pick(0xd800, 0xdbff), pick(0xdc00, 0xdfff)],
      () => [rand() < 0.5 ? pick(0xd800, 0xdbff) : pick(0xdc00, 0xdfff)],
    ];
    const L = core.layout();
    const src = L.take(2 * 400);
    const dst = L.take(3 * 400 + 16);
    L.commit();
    for (let t = 0; t < 2000; t++) {
      // runs of one kind, or of two kinds mixed, each 1..24 units long: blocks of 8 whole of one width, and every mix
      const units: number[] = [];
      const n = 1 + Math.floor(rand() * 400);
      while (units.length < n) {
        const a = kinds[Math.floor(rand() * kinds.length)];
        const b = rand() < 0.5 ? a : kinds[Math.floor(rand() * kinds.length)];
        const run = 1 + Math.floor(rand() * 24);
        for (let i = 0; i < run; i++) units.push(...(rand() < 0.5 ? a() : b()));
      }
      units.length = Math.min(units.length, n);
      const s = String.fromCharCode(...units);
      const u16 = core.u16(src, s.length);
      for (let i = 0; i < s.length; i++) u16[i] = s.charCodeAt(i);
      const len = core.raw.utf16ToUtf8(src, s.length, dst);
      const want = enc.encode(s);
      if (len !== want.length || Buffer.compare(core.u8.subarray(dst, dst + len), want) !== 0)
        expect(core.u8.slice(dst, dst + len), JSON.stringify(units)).toEqual(want);
    }
  });

  it('utf16ToUtf8 writes ASCII among three-byte units as TextEncoder does, and nothing past 3 bytes a unit', async () => {
    // the SIMD build takes 8 units of ASCII and three-byte ones (a newline or a digit among ideographs) a step, with
    // stores that reach past that step's bytes: every mix of the two, at every length, with a guard after the room
    const core = await coreOf(build);
    const rand = prng(19);
    const enc = new TextEncoder();
    const ascii = ['\n', ' ', '1', 'a', '"', '\u007f', '\u0000'];
    const wide = ['中', '文', '。', '，', '\u0800', '\ud7ff', '\ue000', '\uffff', '“'];
    const L = core.layout();
    const src = L.take(2 * 64);
    const dst = L.take(3 * 64 + 64);
    L.commit();
    for (let t = 0; t < 3000; t++) {
      const n = 1 + Math.floor(rand() * 40);
      const share = rand();
      let s = '';
      for (let i = 0; i < n; i++)
        s += rand() < share ? ascii[Math.floor(rand() * ascii.length)] : wide[Math.floor(rand() * wide.length)];
      const u16 = core.u16(src, n);
      for (let i = 0; i < n; i++) u16[i] = s.charCodeAt(i);
      core.u8.fill(0xa5, dst, dst + 3 * n + 64);
      const len = core.raw.utf16ToUtf8(src, n, dst);
      expect(core.u8.slice(dst, dst + len), JSON.stringify(s)).toEqual(enc.encode(s));
      expect(
        core.u8.slice(dst + 3 * n, dst + 3 * n + 64).every((b) => b === 0xa5),
        JSON.stringify(s),
      ).toBe(true);
    }
  });

  it('writeUtf8 writes what TextEncoder writes, whichever way it takes (chunks, encodeInto, both)', async () => {
    const core = await coreOf(build);
    const rand = prng(17);
    const enc = new TextEncoder();
    const texts = [
      mixedUnits(rand, 100_000, 0.97), // mostly ASCII: chunks of code units encoded by the core
      mixedUnits(rand, 300_000, 0.995), // several chunks, pairs and lone halves at their edges
      'x'.repeat(65_535) + '😀'.repeat(3) + 'y'.repeat(200_000), // a pair straddling the first chunk's end
      'x'.repeat(65_535) + '\ud800' + 'y'.repeat(200_000) + '\udc00', // lone halves at a chunk's end and the text's
      'a'.repeat(140_000) + '日本語'.repeat(40_000), // ASCII, then wide characters
      '日本語'.repeat(10_000), // wide from the start
      '吾輩は猫である。'.repeat(60_000) + '😀', // wide throughout: the chunks shrink toward the room's end
      'Съешь же ещё этих мягких французских булок. '.repeat(12_000), // two-byte words and ASCII spaces
      mixedUnits(rand, 250_000, 0), // surrogates, pairs and wide runs throughout, halves at every chunk's edge
      mixedUnits(rand, 20_000, 0.9), // just over the size where the chunks start
      mixedUnits(rand, 5_000, 0.9), // under it: encodeInto alone
    ];
    for (const s of texts) {
      const L = core.layout();
      const cap = 3 * s.length;
      const p = L.take(cap);
      L.commit();
      const len = core.writeUtf8(s, p, cap);
      const want = enc.encode(s);
      expect(len).toBe(want.length);
      expect(Buffer.compare(core.u8.subarray(p, p + len), want)).toBe(0);
    }
  });

  it('reserve grows memory and refuses impossible sizes', async () => {
    const core = await coreOf(build);
    const before = core.memoryBytes;
    expect(core.raw.reserve(before + 1_000_000)).toBe(core.arenaBase);
    expect(core.memoryBytes).toBeGreaterThan(before);
    expect(core.raw.reserve(0xffff_fff0)).toBe(0);
  });

  it('reports whether it is the SIMD build', async () => {
    const core = await coreOf(build);
    expect(core.raw.simdEnabled()).toBe(build === 'core.simd.wasm' ? 1 : 0);
  });
});
