/** Instantiate each build of the core (scalar, SIMD, debug) straight from build/out for ABI tests. */
import { readFileSync } from 'node:fs';
import { Core } from '../../../src/core/abi.js';

export const BUILDS = ['core.wasm', 'core.simd.wasm', 'core.debug.wasm'] as const;

const modules = new Map<string, WebAssembly.Module>();

/** A fresh Core of the given build file in build/out. */
export async function coreOf(file: (typeof BUILDS)[number]): Promise<Core> {
  let m = modules.get(file);
  if (!m) {
    m = new WebAssembly.Module(readFileSync(new URL(`../../../build/out/${file}`, import.meta.url)));
    modules.set(file, m);
  }
  return Core.create(m);
}

/** Copy bytes into the arena and return [ptr, len]. */
export function put(core: Core, bytes: Uint8Array): number {
  const L = core.layout();
  const p = L.take(bytes.length + 16);
  L.commit();
  core.writeBytes(p, bytes);
  return p;
}

/**
 * The sorted index's sort, as src/datasets/exact.ts runs it: counts of the top 11 bits over every
 * chunk of `chunk` keys, the exclusive sums as cursors, the scatter chunk by chunk with the rows
 * (numbered from 0) as the first payload column and one or two (`cols` 2 or 3) columns derived from
 * them, then each bucket sorted in place with scratch for the largest. Returns the keys and each column.
 */
export function radixSort(
  core: Core,
  keys: BigUint64Array,
  chunk: number,
  cols = 3,
): { keys: BigUint64Array; rows: Uint32Array; b: Uint32Array; c: Uint32Array } {
  const n = keys.length;
  const L = core.layout();
  const k = L.take(n * 8),
    a = L.take(n * 4),
    b = L.take(n * 4),
    c = L.take(n * 4),
    counts = L.take(2048 * 4);
  const ik = L.take(chunk * 8),
    ia = L.take(chunk * 4),
    ib = L.take(chunk * 4),
    ic = L.take(chunk * 4);
  const scratch = L.take(n * 20);
  L.commit();
  core.u32(counts, 2048).fill(0);
  core.u32(c, n).fill(0);
  for (let from = 0; from < n; from += chunk) {
    const part = keys.subarray(from, Math.min(n, from + chunk));
    core.u64(ik, part.length).set(part);
    core.raw.radixCount(ik, part.length, counts);
  }
  const sums = core.u32(counts, 2048);
  for (let i = 0, at = 0; i < 2048; i++) [sums[i], at] = [at, at + sums[i]];
  for (let from = 0; from < n; from += chunk) {
    const part = keys.subarray(from, Math.min(n, from + chunk));
    core.u64(ik, part.length).set(part);
    for (let i = 0; i < part.length; i++) {
      core.u32(ia, part.length)[i] = from + i;
      core.u32(ib, part.length)[i] = (from + i) * 3;
      core.u32(ic, part.length)[i] = ~(from + i) >>> 0;
    }
    core.raw.radixScatter(ik, ia, ib, ic, cols, part.length, counts, k, a, b, c);
  }
  core.raw.sortBuckets(k, a, b, c, cols, counts, scratch);
  return {
    keys: core.u64(k, n).slice(),
    rows: core.u32(a, n).slice(),
    b: core.u32(b, n).slice(),
    c: core.u32(c, n).slice(),
  };
}

/**
 * The sorted index's lookup, as src/datasets/exact.ts runs it: `sorted`, a prefix table of `bits` bits and a
 * presence filter of `words` words (none when 0; by default one word per 8 keys, as the dataset sizes it)
 * built in the arena, then every query (in the keys' form) looked up. Returns the prefix table, the filter, (first, count) per
 * query and what lookupSorted returned.
 */
export function lookupAll(
  core: Core,
  sorted: ArrayLike<bigint>,
  bits: number,
  queries: ArrayLike<bigint>,
  words = Math.ceil(sorted.length / 8),
): { prefix: Uint32Array; filter: BigUint64Array; out: Uint32Array; found: number } {
  const n = sorted.length,
    m = queries.length;
  const L = core.layout();
  const k = L.take(n * 8),
    pre = L.take((2 ** bits + 1) * 4),
    fil = L.take(words * 8),
    q = L.take(m * 8),
    out = L.take(m * 8);
  L.commit();
  core.u64(k, n).set(Array.from(sorted));
  core.raw.buildPrefix(k, n, bits, pre);
  if (words > 0) core.raw.buildFilter(k, n, fil, words);
  // the kernel takes the queries as hashes and rotates them by 32 bits into the keys' stored form
  core.u64(q, m).set(Array.from(queries, (x) => ((x >> 32n) | (x << 32n)) & 0xffff_ffff_ffff_ffffn));
  const found = core.raw.lookupSorted(k, pre, bits, fil, words, q, m, out);
  return {
    prefix: core.u32(pre, 2 ** bits + 1).slice(),
    filter: core.u64(fil, words).slice(),
    out: core.u32(out, m * 2).slice(),
    found,
  };
}
