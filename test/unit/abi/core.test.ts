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
