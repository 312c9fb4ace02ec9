/**
 * Plain-TypeScript reference implementations of the sketch kernels (assembly/minhash.ts,
 * simhash.ts, bloom.ts): BigInt arithmetic, one hash at a time, written straight from the
 * definitions in those files' headers. Slow on purpose; the property tests compare the
 * WebAssembly builds with these bit for bit.
 */
const M64 = (1n << 64n) - 1n;
const M32 = 0xffffffffn;

/** splitmix64 output function (Steele, Lea, Flood 2014) of one 64-bit state x. */
export function splitmix64(x: bigint): bigint {
  x = (x + 0x9e3779b97f4a7c15n) & M64;
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & M64;
  return x ^ (x >> 31n);
}

/** Classic MinHash: h_i(x) = ((a_i·x32 + b_i) mod 2^64) >> 32, x32 = lo32(x ^ x >> 32). */
export function minhashClassicRef(hashes: ArrayLike<bigint>, k: number, seed: bigint): Uint32Array {
  const out = new Uint32Array(k).fill(0xffffffff);
  for (let i = 0; i < k; i++) {
    const a = splitmix64((seed + 2n * BigInt(i)) & M64);
    const b = splitmix64((seed + 2n * BigInt(i) + 1n) & M64);
    let m = M32;
    for (let j = 0; j < hashes.length; j++) {
      const x = hashes[j];
      const x32 = (x ^ (x >> 32n)) & M32;
      const h = ((a * x32 + b) & M64) >> 32n;
      if (h < m) m = h;
    }
    out[i] = Number(m);
  }
  return out;
}

/** One-permutation MinHash with optimal densification (Shrivastava 2017), as in assembly/minhash.ts. */
export function minhashOphRef(hashes: ArrayLike<bigint>, k: number, seed: bigint): Uint32Array {
  const L = BigInt(Math.log2(k));
  const out = new Uint32Array(k).fill(0xffffffff);
  const a = splitmix64(seed) | 1n;
  const b = splitmix64((seed + 1n) & M64);
  for (let j = 0; j < hashes.length; j++) {
    const h = (a * hashes[j] + b) & M64;
    const bin = Number(h >> (64n - L));
    const v = Number((h >> (32n - L)) & M32);
    if (v < out[bin]) out[bin] = v;
  }
  const empty = Array.from(out, (v) => v === 0xffffffff);
  const filled = empty.filter((e) => !e).length;
  if (filled === 0 || filled === k) return out;
  const d = splitmix64((seed + 2n) & M64);
  for (let i = 0; i < k; i++) {
    if (!empty[i]) continue;
    let donor = -1;
    for (let t = 1; t <= 65536 && donor < 0; t++) {
      const j = Number(splitmix64((d + ((BigInt(i) << 32n) | BigInt(t))) & M64) >> (64n - L));
      if (!empty[j]) donor = j;
    }
    if (donor < 0) {
      donor = (i + 1) % k;
      while (empty[donor]) donor = (donor + 1) % k;
    }
    out[i] = out[donor];
  }
  return out;
}

/** Unweighted 64-bit SimHash: bit j set iff more than half of the hashes have bit j set. */
export function simhash64Ref(hashes: ArrayLike<bigint>): bigint {
  const counter = new Array<number>(64).fill(0);
  for (let i = 0; i < hashes.length; i++) {
    const words = [Number(hashes[i] & M32), Number(hashes[i] >> 32n)];
    for (let j = 0; j < 64; j++) counter[j] += (words[j >> 5] >>> (j & 31)) & 1 ? 1 : -1;
  }
  let r = 0n;
  for (let j = 0; j < 64; j++) if (counter[j] > 0) r |= 1n << BigInt(j);
  return r;
}

/** Blocked Bloom filter over `blocks` 512-bit blocks, bits as a Uint8Array (bit b of byte b>>3 LE). */
export class BloomRef {
  readonly bits: Uint8Array;
  constructor(
    readonly blocks: number,
    readonly k: number,
  ) {
    this.bits = new Uint8Array(blocks * 64);
    this.muls = Array.from({ length: k }, (_, i) => splitmix64(BigInt(i)) | 1n);
  }
  private readonly muls: bigint[];
  /** Bit positions of a key: block · 512 + top 9 bits of key · M_i, M_i = splitmix64(i) | 1. */
  positions(key: bigint): number[] {
    const block = Number(((key >> 32n) * BigInt(this.blocks)) >> 32n);
    return this.muls.map((m) => block * 512 + Number(((key * m) & M64) >> 55n));
  }
  add(key: bigint): void {
    for (const p of this.positions(key)) this.bits[p >> 3] |= 1 << (p & 7);
  }
  has(key: bigint): boolean {
    return this.positions(key).every((p) => (this.bits[p >> 3] >> (p & 7)) & 1);
  }
}

/** Exact Jaccard similarity of two sets of hashes. */
export function exactJaccard(a: ArrayLike<bigint>, b: ArrayLike<bigint>): number {
  const A = new Set(Array.from(a));
  const B = new Set(Array.from(b));
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 0 : inter / union; // as the library: nothing shared where neither has a shingle
}

/** Small seeded PRNG (mulberry32): u32 / u64 values, doubles in [0, 1), arrays of u64 hashes. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = (seed * 0x9e3779b1 + 0x6d2b79f5) >>> 0;
  }
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  u64(): bigint {
    const lo = this.u32();
    return (BigInt(this.u32()) << 32n) | BigInt(lo);
  }
  float(): number {
    return this.u32() / 2 ** 32;
  }
  int(n: number): number {
    return Math.floor(this.float() * n);
  }
  /** n random u64 values (low word first, i.e. the same values as n calls of u64()). */
  hashes(n: number): BigUint64Array {
    const w = new Uint32Array(2 * n);
    for (let i = 0; i < w.length; i++) w[i] = this.u32();
    return new BigUint64Array(w.buffer);
  }
}
