/**
 * Plain-TypeScript reference implementations of the core's kernels: slow, BigInt-based and
 * written to be obviously correct against their specifications. Property tests check that the
 * WebAssembly builds agree with them bit for bit.
 */
const M64 = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M64;
const mul = (a: bigint, b: bigint) => (a * b) & M64;
const add = (a: bigint, b: bigint) => (a + b) & M64;

function readLE(b: Uint8Array, i: number, n: number): bigint {
  let v = 0n;
  for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]);
  return v;
}

function round(acc: bigint, lane: bigint): bigint {
  return mul(rotl(add(acc, mul(lane, P2)), 31n), P1);
}

/** XXH64 per the xxHash specification. */
export function xxh64Ref(b: Uint8Array, seed = 0n): bigint {
  seed &= M64;
  let p = 0;
  const len = b.length;
  let h: bigint;
  if (len >= 32) {
    let v1 = add(add(seed, P1), P2),
      v2 = add(seed, P2),
      v3 = seed,
      v4 = (seed - P1) & M64;
    while (p + 32 <= len) {
      v1 = round(v1, readLE(b, p, 8));
      v2 = round(v2, readLE(b, p + 8, 8));
      v3 = round(v3, readLE(b, p + 16, 8));
      v4 = round(v4, readLE(b, p + 24, 8));
      p += 32;
    }
    h = add(add(rotl(v1, 1n), rotl(v2, 7n)), add(rotl(v3, 12n), rotl(v4, 18n)));
    for (const v of [v1, v2, v3, v4]) h = add(mul(h ^ round(0n, v), P1), P4);
  } else h = add(seed, P5);
  h = add(h, BigInt(len));
  while (p + 8 <= len) {
    h ^= round(0n, readLE(b, p, 8));
    h = add(mul(rotl(h, 27n), P1), P4);
    p += 8;
  }
  if (p + 4 <= len) {
    h ^= mul(readLE(b, p, 4), P1);
    h = add(mul(rotl(h, 23n), P2), P3);
    p += 4;
  }
  while (p < len) {
    h ^= mul(BigInt(b[p]), P5);
    h = mul(rotl(h, 11n), P1);
    p++;
  }
  return avalanche64Ref(h);
}

export function avalanche64Ref(h: bigint): bigint {
  h ^= h >> 33n;
  h = mul(h, P2);
  h ^= h >> 29n;
  h = mul(h, P3);
  h ^= h >> 32n;
  return h;
}

export function splitmix64Ref(x: bigint): bigint {
  x = add(x, 0x9e3779b97f4a7c15n);
  x = mul(x ^ (x >> 30n), 0xbf58476d1ce4e5b9n);
  x = mul(x ^ (x >> 27n), 0x94d049bb133111ebn);
  return x ^ (x >> 31n);
}

/** Little-endian bytes of 64-bit values. */
export function u64Bytes(values: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => {
    dv.setBigUint64(i * 8, v & M64, true);
  });
  return out;
}

export interface RefTokens {
  hashes: bigint[];
  starts: number[];
  ends: number[];
}

/** The runs of characters outside JavaScript's `\s` in `text`, counted up to `n` (assembly/words.ts wordsAtLeast). */
export function wordsAtLeastRef(text: string, n: number): number {
  return Math.min(n, text.split(/\s+/).filter((w) => w.length > 0).length);
}

/** Tokens of an already-normalised text ("tok tok tok"): split on spaces, UTF-16 offsets. */
export function tokensRef(normalized: string): RefTokens {
  const enc = new TextEncoder();
  const out: RefTokens = { hashes: [], starts: [], ends: [] };
  const re = /[^ ]+/g;
  for (let m = re.exec(normalized); m; m = re.exec(normalized)) {
    out.hashes.push(xxh64Ref(enc.encode(m[0]), 0n));
    out.starts.push(m.index);
    out.ends.push(m.index + m[0].length);
  }
  return out;
}

/** Word n-gram shingles: Rabin–Karp mod 2^64 over token hashes (B = splitmix64(seed) | 3), finalised by avalanche64(R ^ seed); t < n tokens → one shingle over all. */
export function shinglesRef(tokHashes: bigint[], n: number, seed: bigint): bigint[] {
  if (tokHashes.length === 0) return [];
  const B = splitmix64Ref(seed & M64) | 3n;
  const gram = (from: number, len: number) => {
    let r = 0n;
    for (let j = from; j < from + len; j++) r = add(mul(r, B), tokHashes[j]);
    return avalanche64Ref(r ^ (seed & M64));
  };
  if (tokHashes.length < n) return [gram(0, tokHashes.length)];
  const out: bigint[] = [];
  for (let i = 0; i + n <= tokHashes.length; i++) out.push(gram(i, n));
  return out;
}

/**
 * The word shingles of several texts' tokens one text after another: text i's tokens are `tokHashes[first[i] …
 * first[i + 1])`, its shingles {@link shinglesRef} of them; `from[i]` is where text i's begin (from[0] = 0, the last
 * = all of them).
 */
export function shingleTextsRef(
  tokHashes: bigint[],
  first: readonly number[],
  n: number,
  seed: bigint,
): { hashes: bigint[]; from: number[] } {
  const hashes: bigint[] = [];
  const from = [0];
  for (let i = 0; i + 1 < first.length; i++) {
    hashes.push(...shinglesRef(tokHashes.slice(first[i], first[i + 1]), n, seed));
    from.push(hashes.length);
  }
  return { hashes, from };
}

/**
 * The word shingles of `tokHashes` ({@link shinglesRef}) and the content id beside them: XXH64 of the token hashes'
 * bytes (u64 little-endian, one after another) under each of two seeds.
 */
export function shinglesAndIdRef(
  tokHashes: bigint[],
  n: number,
  seed: bigint,
  idSeeds: readonly [bigint, bigint],
): { shingles: bigint[]; id: [bigint, bigint] } {
  const bytes = u64Bytes(tokHashes);
  return { shingles: shinglesRef(tokHashes, n, seed), id: [xxh64Ref(bytes, idSeeds[0]), xxh64Ref(bytes, idSeeds[1])] };
}

/** Robust winnowing (Schleimer et al. 2003), the obvious O(n·w) form. */
export function winnowRef(h: readonly bigint[], w: number): number[] {
  const n = h.length;
  if (n === 0 || w === 0) return [];
  if (w > n) w = n;
  const out: number[] = [];
  let min = -1;
  for (let r = w - 1; r < n; r++) {
    const left = r - w + 1;
    if (min < left) {
      let best = r;
      for (let j = r - 1; j >= left; j--) if (h[j] < h[best]) best = j;
      min = best;
      out.push(min);
    } else if (h[r] < h[min]) {
      min = r;
      out.push(min);
    }
  }
  return out;
}

/** Character k-grams: Rabin–Karp mod 2^64 over code points, finalised by avalanche64(R ^ seed). */
export function charShinglesRef(text: string, k: number, seed: bigint): RefTokens {
  const B = splitmix64Ref(seed) | 1n;
  const cps: number[] = [];
  const offs: number[] = [];
  let u = 0;
  for (const ch of text) {
    cps.push(ch.codePointAt(0)!);
    offs.push(u);
    u += ch.length;
  }
  offs.push(u);
  const out: RefTokens = { hashes: [], starts: [], ends: [] };
  const gram = (i: number, len: number) => {
    let r = 0n;
    for (let j = i; j < i + len; j++) r = add(mul(r, B), BigInt(cps[j]));
    out.hashes.push(avalanche64Ref(r ^ (seed & M64)));
    out.starts.push(offs[i]);
    out.ends.push(offs[i + len]);
  };
  if (cps.length === 0) return out;
  if (cps.length < k) {
    gram(0, cps.length);
    return out;
  }
  for (let i = 0; i + k <= cps.length; i++) gram(i, k);
  return out;
}

/** Seeded PRNG (mulberry32) for reproducible property tests. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `words` consecutive whitespace-separated words of `src` starting at the first whole word at or
 * after `at`, and their UTF-16 span.
 */
export function passageAt(src: string, at: number, words: number): { text: string; start: number; end: number } {
  const re = /\S+/g;
  // never start inside a word: a cut word is not a word the source shares
  while (at > 0 && at < src.length && !/\s/.test(src[at - 1])) at++;
  re.lastIndex = at;
  let first = -1,
    end = at;
  for (let i = 0; i < words; i++) {
    const m = re.exec(src)!;
    if (first < 0) first = m.index;
    end = m.index + m[0].length;
  }
  return { text: src.slice(first, end), start: first, end };
}

/**
 * The sorted-index lookup, by definition: for each query, the first position of an equal key in
 * `sorted` and how many there are ([first, 0] when absent: first = where it would be inserted; the kernel
 * writes [0, 0] then).
 */
export function lookupSortedRef(sorted: readonly bigint[], queries: readonly bigint[]): Array<[number, number]> {
  return queries.map((q) => {
    let first = 0;
    while (first < sorted.length && sorted[first] < q) first++;
    let end = first;
    while (end < sorted.length && sorted[end] === q) end++;
    return [first, end - first];
  });
}

/**
 * The found queries by definition (assembly/sortindex.ts foundQueries): the indices of the (first, count) pairs in
 * `pairs` (2 u32 a query, as lookupSorted writes them) whose count is not 0, in order.
 */
export function foundQueriesRef(pairs: ArrayLike<number>): number[] {
  const found: number[] = [];
  for (let i = 0; 2 * i + 1 < pairs.length; i++) if (pairs[2 * i + 1] !== 0) found.push(i);
  return found;
}

/** Prefix table by definition: entry t (0 ≤ t ≤ 2^bits) = number of keys whose top `bits` bits are < t. */
export function prefixRef(sorted: readonly bigint[], bits: number): number[] {
  const shift = BigInt(64 - bits);
  return Array.from({ length: 2 ** bits + 1 }, (_, t) => sorted.filter((k) => k >> shift < BigInt(t)).length);
}

/**
 * The presence filter by definition (assembly/sortindex.ts buildFilter): `words` u64 words; key k sets, in word
 * ⌊(k >> 32) · words / 2^32⌋, the bits h >> 58, (h >> 52) & 63 and (h >> 46) & 63 of h = k · 0x9e3779b97f4a7c15
 * mod 2^64. No words: no filter.
 */
export function filterRef(keys: readonly bigint[], words: number): bigint[] {
  const out = Array.from({ length: words }, () => 0n);
  if (words === 0) return out;
  for (const k of keys) {
    const h = (k * 0x9e37_79b9_7f4a_7c15n) & 0xffff_ffff_ffff_ffffn;
    const w = Number(((k >> 32n) * BigInt(words)) >> 32n);
    out[w] |= (1n << (h >> 58n)) | (1n << ((h >> 52n) & 63n)) | (1n << ((h >> 46n) & 63n));
  }
  return out;
}

/** A stable sort of (key, payload) pairs by key, the obvious way. */
export function sortPairsRef(keys: readonly bigint[], vals: readonly number[]): { keys: bigint[]; vals: number[] } {
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b));
  return { keys: order.map((i) => keys[i]), vals: order.map((i) => vals[i]) };
}
