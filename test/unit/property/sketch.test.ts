/**
 * Sketch kernels (MinHash classic + OPH, SimHash, blocked Bloom filter): both builds against the
 * BigInt references bit for bit, plus statistical properties with fixed seeds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../../src/core/abi.js';
import { compileCore, type CoreVariant } from '../../../src/core/load.js';
import { isTrainprintError } from '../../../src/errors.js';
import { blockedBloomFpr, MembershipFilter, optimalBloomK } from '../../../src/sketch/filter.js';
import {
  jaccardEstimate,
  minhashAt,
  minhashSignature,
  ophAndSimhashAt,
  resolveMinhashOptions,
} from '../../../src/sketch/minhash.js';
import { hammingDistance, simhash64, simhashAt } from '../../../src/sketch/simhash.js';
import { BloomRef, exactJaccard, minhashClassicRef, minhashOphRef, Rng, simhash64Ref } from '../../reference/sketch.js';

const VARIANTS: CoreVariant[] = ['scalar', 'simd'];
const SIZES = [0, 1, 2, 3, 127, 128, 129, 1000, 100_000];
const cores = new Map<CoreVariant, Core>();
const modules = new Map<CoreVariant, WebAssembly.Module>();

beforeAll(async () => {
  for (const v of VARIANTS) {
    modules.set(v, await compileCore(v));
    cores.set(v, await Core.create(modules.get(v)!));
  }
});

function throwsCode(fn: () => unknown, code: string): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(isTrainprintError(err), `expected TrainprintError ${code}, got ${String(err)}`).toBe(true);
  expect((err as { code: string }).code).toBe(code);
}

async function rejectsCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toSatisfy((e: unknown) => isTrainprintError(e) && (e as { code: string }).code === code);
}

/** Two random sets with Jaccard ≈ `j` over a union of `union` hashes. */
function pair(rng: Rng, union: number, j: number): [BigUint64Array, BigUint64Array] {
  const all = rng.hashes(union);
  const inter = Math.round(union * j);
  const aOnly = Math.floor((union - inter) / 2);
  const a = all.slice(0, inter + aOnly);
  const b = new BigUint64Array(union - aOnly);
  b.set(all.subarray(0, inter));
  b.set(all.subarray(inter + aOnly), inter);
  return [a, b];
}

const SEEDS = [0n, 1n, 0x9e3779b97f4a7c15n, (1n << 64n) - 1n];

describe('MinHash equals the reference on both builds', () => {
  it('classic: sizes 0..100k, k 4/12/128 (16 at 100k), edge seeds', () => {
    const rng = new Rng(101);
    for (const n of SIZES) {
      const h = rng.hashes(n);
      const ks = n >= 100_000 ? [16] : [4, 12, 128];
      for (const k of ks) {
        const seed = SEEDS[(n + k) % SEEDS.length];
        const want = minhashClassicRef(h, k, seed);
        for (const v of VARIANTS)
          expect(minhashSignature(cores.get(v)!, h, { k, seed, mode: 'classic' }), `${v} n=${n} k=${k}`).toEqual(want);
      }
    }
  });

  it('classic: k = 1024 over 3000 hashes (several chunks, every SIMD group)', () => {
    const h = new Rng(5).hashes(3000);
    const want = minhashClassicRef(h, 1024, 77n);
    for (const v of VARIANTS) expect(minhashSignature(cores.get(v)!, h, { k: 1024, seed: 77n })).toEqual(want);
  });

  it('oph: sizes 0..100k, k 1/2/16/128/1024 (densification on small inputs)', () => {
    const rng = new Rng(202);
    for (const n of SIZES) {
      const h = rng.hashes(n);
      for (const k of [1, 2, 16, 128, 1024]) {
        const seed = SEEDS[(n + k) % SEEDS.length];
        const want = minhashOphRef(h, k, seed);
        for (const v of VARIANTS)
          expect(minhashSignature(cores.get(v)!, h, { k, seed, mode: 'oph' }), `${v} n=${n} k=${k}`).toEqual(want);
      }
    }
  });

  it('empty input gives all 0xFFFFFFFF; order and duplicates do not matter', () => {
    const core = cores.get('simd')!;
    for (const mode of ['classic', 'oph'] as const) {
      expect(minhashSignature(core, new BigUint64Array(0), { mode }).every((x) => x === 0xffffffff)).toBe(true);
      const h = new Rng(3).hashes(500);
      const shuffled = h.slice().reverse();
      const dup = new BigUint64Array([...h, ...h.subarray(0, 100)]);
      const s = minhashSignature(core, h, { mode, seed: 9 });
      expect(minhashSignature(core, shuffled, { mode, seed: 9 })).toEqual(s);
      expect(minhashSignature(core, dup, { mode, seed: 9 })).toEqual(s);
      expect(jaccardEstimate(s, minhashSignature(core, h, { mode, seed: 10 }))).toBeLessThan(0.2);
    }
  });

  it('minhashAt reads hashes already in memory (no copy) and agrees with minhashSignature', () => {
    const core = cores.get('scalar')!;
    const h = new Rng(4).hashes(777);
    const L = core.layout();
    const p = L.take(h.length * 8);
    const out = L.take(64 * 4);
    L.commit();
    core.u64(p, h.length).set(h);
    for (const mode of ['classic', 'oph'] as const) {
      const o = resolveMinhashOptions({ k: 64, seed: 3, mode });
      expect(minhashAt(core, p, h.length, out, o)).toEqual(minhashSignature(core, h, o));
    }
  });
});

describe('MinHash estimates Jaccard', () => {
  // 300 random pairs, J uniform in [0, 1], unions of 200..3000 hashes, k = 128, fixed seed.
  // Stated bound: |est − J| ≤ 3·sqrt(J(1−J)/k) + 1/k for ≥ 99 % of pairs, mean |error| ≤ 0.035 (theory ≈ 0.028),
  // |mean signed error| ≤ 0.01 (σ ≤ 0.044 at k = 128).
  for (const mode of ['classic', 'oph'] as const) {
    it(`${mode}: within the stated ε of the exact Jaccard`, () => {
      const core = cores.get('simd')!;
      const rng = new Rng(mode === 'oph' ? 31 : 30);
      const k = 128;
      let within = 0,
        absSum = 0,
        signedSum = 0;
      const pairs = 300;
      for (let t = 0; t < pairs; t++) {
        const [a, b] = pair(rng, 200 + rng.int(2800), rng.float());
        const J = exactJaccard(a, b);
        const est = jaccardEstimate(
          minhashSignature(core, a, { k, mode, seed: 12345 }),
          minhashSignature(core, b, { k, mode, seed: 12345 }),
        );
        const err = est - J;
        if (Math.abs(err) <= 3 * Math.sqrt((J * (1 - J)) / k) + 1 / k) within++;
        absSum += Math.abs(err);
        signedSum += err;
      }
      // eslint-disable-next-line no-console
      console.log(
        `minhash ${mode} k=${k}: ${within}/${pairs} within 3σ+1/k, mean |err| ${(absSum / pairs).toFixed(4)}, mean err ${(signedSum / pairs).toFixed(4)}`,
      );
      expect(within / pairs).toBeGreaterThanOrEqual(0.99);
      expect(absSum / pairs).toBeLessThanOrEqual(0.035);
      expect(Math.abs(signedSum / pairs)).toBeLessThanOrEqual(0.01);
    });
  }

  it('jaccardEstimate: identical signatures → 1, length mismatch → PARAMS_MISMATCH', () => {
    const s = new Uint32Array([1, 2, 3, 4]);
    expect(jaccardEstimate(s, s.slice())).toBe(1);
    expect(jaccardEstimate(s, new Uint32Array([1, 0, 3, 0]))).toBe(0.5);
    throwsCode(() => jaccardEstimate(s, new Uint32Array(8)), 'PARAMS_MISMATCH');
    throwsCode(() => jaccardEstimate(new Uint32Array(0), new Uint32Array(0)), 'INVALID_INPUT');
  });
});

describe('OPH MinHash and SimHash in one pass (ophAndSimhashAt)', () => {
  it('equals minhashAt (oph) and simhashAt of the same hashes on both builds, k 128 (one pass) and others', () => {
    const rng = new Rng(404);
    for (const n of [...SIZES, 30, 31, 509, 510, 511, 100_001]) {
      const h = rng.hashes(n);
      for (const v of VARIANTS) {
        const core = cores.get(v)!;
        const L = core.layout();
        const p = L.take(n * 8 + 8);
        const out = L.take(1024 * 4);
        L.commit();
        core.u64(p, n).set(h);
        for (const k of [128, 64]) {
          const seed = SEEDS[n % SEEDS.length];
          const both = ophAndSimhashAt(core, p, n, out, { k, seed });
          const at = `${v} n=${n} k=${k}`;
          expect(both.minhash, at).toEqual(minhashOphRef(h, k, seed));
          expect(both.simhash, at).toBe(simhash64Ref(h));
          expect(both.minhash, at).toEqual(minhashAt(core, p, n, out, { k, seed, mode: 'oph' }));
          expect(both.simhash, at).toBe(simhashAt(core, p, n));
        }
      }
    }
  });
});

describe('SimHash', () => {
  it('equals the reference on both builds (sizes 0..100k, the 15-pair and 255-item flush edges)', () => {
    const rng = new Rng(303);
    const nibbleEdges = [28, 29, 30, 31, 32, 33, 59, 60, 61];
    for (const n of [...SIZES, ...nibbleEdges, 254, 255, 256, 509, 510, 511, 512, 513, 100_001]) {
      const h = rng.hashes(n);
      const want = simhash64Ref(h);
      for (const v of VARIANTS) expect(simhash64(cores.get(v)!, h), `${v} n=${n}`).toBe(want);
    }
  });

  it('ties give 0, majorities give 1, duplicates count', () => {
    for (const v of VARIANTS) {
      const core = cores.get(v)!;
      const x = 0x0123456789abcdefn;
      const notX = x ^ ((1n << 64n) - 1n);
      expect(simhash64(core, new BigUint64Array([x, notX]))).toBe(0n);
      expect(simhash64(core, new BigUint64Array([x, notX, x]))).toBe(x);
      expect(simhash64(core, new BigUint64Array(1000).fill((1n << 64n) - 1n))).toBe((1n << 64n) - 1n);
      expect(simhash64(core, new BigUint64Array(0))).toBe(0n);
    }
  });

  it('identical sets → distance 0; distance grows as Jaccard drops', () => {
    const core = cores.get('simd')!;
    const rng = new Rng(404);
    const levels = [1, 0.9, 0.7, 0.5, 0.3, 0.1, 0];
    const means = levels.map((j) => {
      let sum = 0;
      for (let t = 0; t < 60; t++) {
        const [a, b] = pair(rng, 400 + rng.int(1000), j);
        const d = hammingDistance(simhash64(core, a), simhash64(core, b));
        if (j === 1) expect(d).toBe(0);
        sum += d;
      }
      return sum / 60;
    });
    for (let i = 1; i < means.length; i++)
      expect(means[i], `J=${levels[i]} vs ${levels[i - 1]}: ${means}`).toBeGreaterThan(means[i - 1]);
    expect(means[means.length - 1]).toBeGreaterThan(28); // unrelated sets: ≈ 32 bits
  });

  it('simhashAt reads from memory; hammingDistance counts bits and validates', () => {
    const core = cores.get('scalar')!;
    const h = new Rng(5).hashes(100);
    const L = core.layout();
    const p = L.take(800);
    L.commit();
    core.u64(p, 100).set(h);
    expect(simhashAt(core, p, 100)).toBe(simhash64Ref(h));
    expect(hammingDistance(0n, (1n << 64n) - 1n)).toBe(64);
    expect(hammingDistance(0b1011n, 0b0001n)).toBe(2);
    throwsCode(() => hammingDistance(-1n, 0n), 'INVALID_INPUT');
    throwsCode(() => hammingDistance(1n << 64n, 0n), 'INVALID_INPUT');
    throwsCode(() => hammingDistance(1 as never, 0n), 'INVALID_INPUT');
  });
});

describe('MembershipFilter (blocked Bloom)', () => {
  it('bits and answers equal the reference on both builds', async () => {
    const rng = new Rng(505);
    for (const [capacity, bitsPerKey, k] of [
      [1, 9.6, 6],
      [1000, 9.6, undefined],
      [5000, 12, 3],
      [20_000, 16, 16],
    ] as const) {
      const keys = rng.hashes(capacity);
      const probes = new BigUint64Array([...keys.subarray(0, 100), ...rng.hashes(2000)]);
      for (const v of VARIANTS) {
        const f = await MembershipFilter.create(modules.get(v)!, { capacity, bitsPerKey, k });
        const ref = new BloomRef(f.blocks, f.k);
        keys.forEach((key) => {
          ref.add(key);
        });
        f.add(keys);
        expect(f.toBytes().subarray(32)).toEqual(ref.bits);
        expect(Array.from(f.has(probes))).toEqual(Array.from(probes, (p) => (ref.has(p) ? 1 : 0)));
        expect(f.hasOne(keys[0])).toBe(true);
      }
    }
  });

  it('defaults: 9.6 bits/key, k = 6, 1.2 bytes per key, designed FPR ≈ 1.13 %', async () => {
    const f = await MembershipFilter.create(undefined, { capacity: 1_000_000 });
    expect(f.k).toBe(6);
    expect(optimalBloomK(9.6)).toBe(6);
    expect(f.byteLength).toBe(Math.ceil((1_000_000 * 9.6) / 512) * 64);
    expect(f.byteLength / 1_000_000).toBeCloseTo(1.2, 3);
    expect(f.expectedFpr).toBeGreaterThan(0.011);
    expect(f.expectedFpr).toBeLessThan(0.0116);
    expect(blockedBloomFpr(10, optimalBloomK(10))).toBeLessThan(0.0097);
  });

  // No false negatives, and the FPR over 10^6 absent keys within ±30 % (relative) of the design.
  for (const [variant, capacity, bitsPerKey] of [
    ['simd', 1_000_000, 9.6],
    ['scalar', 1_000_000, 9.6],
    ['simd', 200_000, 14],
  ] as const) {
    it(`${variant}: no false negatives, measured FPR ≈ design (capacity ${capacity}, ${bitsPerKey} bits/key)`, async () => {
      const f = await MembershipFilter.create(modules.get(variant)!, { capacity, bitsPerKey });
      const rng = new Rng(606 + capacity);
      const keys = rng.hashes(capacity);
      f.add(keys);
      expect(f.size).toBe(capacity);
      expect(f.has(keys).every((x) => x === 1)).toBe(true);
      const absent = rng.hashes(1_000_000);
      let hits = 0;
      for (const x of f.has(absent)) hits += x;
      const fpr = hits / absent.length;
      const design = f.expectedFpr;
      // eslint-disable-next-line no-console
      console.log(
        `filter ${variant} ${bitsPerKey} bits/key k=${f.k}: ${(f.byteLength / capacity).toFixed(3)} B/key, design FPR ${(design * 100).toFixed(3)} %, measured ${(fpr * 100).toFixed(3)} %`,
      );
      expect(Math.abs(fpr - design) / design).toBeLessThanOrEqual(0.3);
    });
  }

  it('toBytes/fromBytes round-trips; corrupted bytes → SNAPSHOT_INCOMPATIBLE', async () => {
    const rng = new Rng(707);
    const f = await MembershipFilter.create(modules.get('simd')!, { capacity: 10_000, bitsPerKey: 10 });
    const keys = rng.hashes(9000);
    f.add(keys);
    const bytes = f.toBytes();
    expect(bytes.length).toBe(32 + f.byteLength);
    const g = await MembershipFilter.fromBytes(bytes, modules.get('scalar')!);
    expect(g.toBytes()).toEqual(bytes);
    expect(g.size).toBe(9000);
    expect([g.k, g.blocks, g.capacity, g.bitsPerKey]).toEqual([f.k, f.blocks, f.capacity, f.bitsPerKey]);
    const probes = rng.hashes(5000);
    expect(g.has(probes)).toEqual(f.has(probes));
    expect(g.has(keys).every((x) => x === 1)).toBe(true);
    await rejectsCode(MembershipFilter.fromBytes(bytes.subarray(0, bytes.length - 1)), 'SNAPSHOT_INCOMPATIBLE');
    await rejectsCode(MembershipFilter.fromBytes(bytes.subarray(0, 10)), 'SNAPSHOT_INCOMPATIBLE');
    const badMagic = bytes.slice();
    badMagic[0] ^= 1;
    await rejectsCode(MembershipFilter.fromBytes(badMagic), 'SNAPSHOT_INCOMPATIBLE');
    const badFormat = bytes.slice();
    badFormat[4] = 2;
    await rejectsCode(MembershipFilter.fromBytes(badFormat), 'SNAPSHOT_INCOMPATIBLE');
    const badK = bytes.slice();
    badK[5] = 0;
    await rejectsCode(MembershipFilter.fromBytes(badK), 'SNAPSHOT_INCOMPATIBLE');
  });

  it('each filter owns its own instance: two filters do not share bits', async () => {
    const a = await MembershipFilter.create(modules.get('simd')!, { capacity: 1000 });
    const b = await MembershipFilter.create(modules.get('simd')!, { capacity: 1000 });
    a.add(new Rng(1).hashes(1000));
    expect(
      b
        .toBytes()
        .subarray(32)
        .every((x) => x === 0),
    ).toBe(true);
    expect(a.has(new BigUint64Array(0))).toEqual(new Uint8Array(0));
  });
});

describe('bad options', () => {
  it('minhash → INVALID_OPTIONS / INVALID_INPUT', () => {
    const core = cores.get('scalar')!;
    const h = new BigUint64Array(3);
    const bad: object[] = [
      { k: 0 },
      { k: 6 },
      { k: 1028 },
      { k: 2.5 },
      { k: 12, mode: 'oph' },
      { k: 2048, mode: 'oph' },
      { mode: 'minwise' },
      { seed: -1 },
      { seed: 1.5 },
      { seed: 1n << 64n },
      { seed: -1n },
      { seed: '7' },
    ];
    for (const o of bad) throwsCode(() => minhashSignature(core, h, o as never), 'INVALID_OPTIONS');
    throwsCode(() => minhashSignature(core, [1n] as never), 'INVALID_INPUT');
    throwsCode(() => simhash64(core, new Uint32Array(2) as never), 'INVALID_INPUT');
  });

  it('filter → INVALID_OPTIONS / INVALID_INPUT', async () => {
    const m = modules.get('scalar')!;
    const bad: object[] = [
      {},
      { capacity: 0 },
      { capacity: -5 },
      { capacity: 1.5 },
      { capacity: NaN },
      { capacity: 2 ** 32 },
      { capacity: 10, bitsPerKey: 0 },
      { capacity: 10, bitsPerKey: 65 },
      { capacity: 10, bitsPerKey: NaN },
      { capacity: 10, bitsPerKey: '9' },
      { capacity: 10, k: 0 },
      { capacity: 10, k: 17 },
      { capacity: 10, k: 2.5 },
    ];
    for (const o of bad) await rejectsCode(MembershipFilter.create(m, o as never), 'INVALID_OPTIONS');
    await rejectsCode(MembershipFilter.create(m, null as never), 'INVALID_OPTIONS');
    await rejectsCode(MembershipFilter.create({} as never, { capacity: 10 }), 'INVALID_OPTIONS');
    const f = await MembershipFilter.create(m, { capacity: 10 });
    throwsCode(() => f.add([1n] as never), 'INVALID_INPUT');
    throwsCode(() => f.has(new Uint8Array(1) as never), 'INVALID_INPUT');
    throwsCode(() => f.hasOne(-1n), 'INVALID_INPUT');
    throwsCode(() => f.hasOne(5 as never), 'INVALID_INPUT');
  });
});
