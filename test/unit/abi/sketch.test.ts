/** Raw-ABI known-answer tests of the sketch kernels on the scalar, SIMD and debug builds. */
import { describe, expect, it } from 'vitest';
import { BUILDS, coreOf } from './helpers.js';
import { BloomRef, minhashClassicRef, minhashOphRef, simhash64Ref } from '../../reference/sketch.js';
import { prng } from '../../reference/core.js';
import type { Core } from '../../../src/core/abi.js';

const H = [0x0123456789abcdefn, 0xfedcba9876543210n, 0n, 0xffffffffffffffffn, 1n, 0x9e3779b97f4a7c15n];

// Pasted from test/reference/sketch.ts (and checked against it below).
const CLASSIC8_SEED0 = [0x732ad626, 0x09f195df, 0x63033b0c, 0x213087be, 0x0d374456, 0x4db4c445, 0x590a31b4, 0x875b9307];
const CLASSIC8_SEED42 = [
  0x78411eb7, 0x289ddb74, 0x36a21b4f, 0x14d1fd58, 0x18e2daff, 0x030927e1, 0x12e96f18, 0x36057413,
];
const OPH8_SEED1 = [0x12f4fc44, 0x43131e55, 0x43131e55, 0x12f4fc44, 0xbac1aef0, 0x12f4fc44, 0x12f4fc44, 0xbac1aef0];
const OPH4_SEED0_FIRST2 = [0xac4d5038, 0x53817e45, 0xac4d5038, 0xac4d5038];
const BLOOM_POSITIONS = [
  [391, 7, 383, 285, 0, 115],
  [692, 726, 849, 679, 803, 710],
  [0, 0, 0, 0, 0, 0],
  [571, 733, 721, 965, 803, 825],
  [452, 290, 302, 58, 220, 198],
  [904, 828, 769, 779, 957, 746],
];

function layout(core: Core, hashes: bigint[]): { h: number; out: number; filter: number } {
  const L = core.layout();
  const h = L.take(hashes.length * 8);
  const out = L.take(4096 * 4);
  const filter = L.take(2 * 64);
  L.commit();
  core.u64(h, hashes.length).set(hashes);
  return { h, out, filter };
}

describe.each(BUILDS)('sketch ABI (%s)', (build) => {
  it('minhashSignature / minhashOph known answers', async () => {
    const core = await coreOf(build);
    const { h, out } = layout(core, H);
    expect(core.raw.minhashSignature(h, H.length, 8, 0n, out)).toBe(8);
    expect(Array.from(core.u32(out, 8))).toEqual(CLASSIC8_SEED0);
    expect(core.raw.minhashSignature(h, H.length, 8, 42n, out)).toBe(8);
    expect(Array.from(core.u32(out, 8))).toEqual(CLASSIC8_SEED42);
    expect(core.raw.minhashOph(h, H.length, 8, 1n, out)).toBe(8);
    expect(Array.from(core.u32(out, 8))).toEqual(OPH8_SEED1);
    expect(core.raw.minhashOph(h, 2, 4, 0n, out)).toBe(4);
    expect(Array.from(core.u32(out, 4))).toEqual(OPH4_SEED0_FIRST2);
    expect(Array.from(minhashClassicRef(H, 8, 0n))).toEqual(CLASSIC8_SEED0);
    expect(Array.from(minhashOphRef(H, 8, 1n))).toEqual(OPH8_SEED1);
  });

  it('minhash rejects invalid k with 0 and writes nothing', async () => {
    const core = await coreOf(build);
    const { h, out } = layout(core, H);
    core.u32(out, 4).fill(7);
    for (const k of [0, 6, 1028]) expect(core.raw.minhashSignature(h, H.length, k, 0n, out)).toBe(0);
    for (const k of [0, 3, 2048]) expect(core.raw.minhashOph(h, H.length, k, 0n, out)).toBe(0);
    expect(Array.from(core.u32(out, 4))).toEqual([7, 7, 7, 7]);
    expect(core.raw.minhashMaxK.value).toBe(1024);
  });

  it('ophSimhash: minhashOph and simhash64 of the same hashes, by property, every k and count', async () => {
    const core = await coreOf(build);
    const rand = prng(0x0f_5e);
    const big = () => (BigInt(Math.floor(rand() * 2 ** 32)) << 32n) | BigInt(Math.floor(rand() * 2 ** 32));
    for (let c = 0; c < 300; c++) {
      // k = 128 (the one pass) most of the time; counts odd and even, across the SIMD count's 255-pair flush
      const k = rand() < 0.7 ? 128 : 2 ** Math.floor(rand() * 11);
      const count = rand() < 0.2 ? Math.floor(rand() * 4) : Math.floor(rand() * (rand() < 0.2 ? 2000 : 300));
      // hashes with a bias in some bits, so that SimHash's bits are not all coin flips
      const mask = big();
      const hashes = Array.from({ length: count }, () => (rand() < 0.5 ? big() | mask : big()));
      const seed = BigInt(Math.floor(rand() * 1000));
      const { h, out } = layout(core, hashes);
      const at = `case ${c}: k ${k}, ${count} hashes`;
      expect(core.raw.ophSimhash(h, count, k, seed, out), at).toBe(k);
      expect(Array.from(core.u32(out, k)), at).toEqual(Array.from(minhashOphRef(hashes, k, seed)));
      expect(BigInt.asUintN(64, core.raw.ophSimhashSecond()), at).toBe(simhash64Ref(hashes));
    }
    const { h, out } = layout(core, H);
    for (const k of [0, 3, 2048]) expect(core.raw.ophSimhash(h, H.length, k, 0n, out)).toBe(0);
  });

  it('simhash64 known answers (u64 comes back signed)', async () => {
    const core = await coreOf(build);
    const { h } = layout(core, [...H, 0xffffffffffffffffn, 0xffffffffffffffffn]);
    expect(BigInt.asUintN(64, core.raw.simhash64(h, H.length))).toBe(0x1n);
    expect(BigInt.asUintN(64, core.raw.simhash64(h, 3))).toBe(0x0n);
    expect(BigInt.asUintN(64, core.raw.simhash64(h + 24, 1))).toBe(0xffffffffffffffffn);
    expect(core.raw.simhash64(h + 24, 1)).toBe(-1n);
    expect(simhash64Ref(H)).toBe(0x1n);
  });

  it('bloomInsert / bloomQuery set exactly the specified bits', async () => {
    const core = await coreOf(build);
    const { h, out, filter } = layout(core, H);
    core.u8.fill(0, filter, filter + 128);
    expect(core.raw.bloomInsert(filter, 2, h, H.length, 6)).toBe(H.length);
    const ref = new BloomRef(2, 6);
    H.forEach((x, i) => {
      expect(ref.positions(x)).toEqual(BLOOM_POSITIONS[i]);
    });
    H.forEach((x) => {
      ref.add(x);
    });
    expect(core.u8.slice(filter, filter + 128)).toEqual(ref.bits);
    expect(core.raw.bloomQuery(filter, 2, h, H.length, 6, out)).toBe(H.length);
    expect(Array.from(core.u8.subarray(out, out + H.length))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(core.raw.bloomInsert(filter, 2, h, 1, 0)).toBe(0);
    expect(core.raw.bloomInsert(filter, 0, h, 1, 6)).toBe(0);
    expect(core.raw.bloomQuery(filter, 2, h, 1, 17, out)).toBe(0);
    expect(core.raw.bloomMaxK.value).toBe(16);
  });

  it('no memory growth over 10^5 calls of each kernel', async () => {
    const core = await coreOf(build);
    const { h, out, filter } = layout(core, H);
    const before = core.memoryBytes;
    for (let i = 0; i < 100_000; i++) {
      core.raw.minhashSignature(h, H.length, 4, BigInt(i), out);
      core.raw.minhashOph(h, H.length, 4, BigInt(i), out);
      core.raw.simhash64(h, H.length);
      core.raw.bloomInsert(filter, 2, h, H.length, 6);
      core.raw.bloomQuery(filter, 2, h, H.length, 6, out);
    }
    expect(core.memoryBytes).toBe(before);
  }, 60_000);
});
