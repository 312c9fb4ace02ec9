/**
 * The core's table decoder (assembly/nfkc-decode.ts: nfkcDecode) against the TypeScript decoder (flatTablesOf, the
 * reference) on random tables: runs of token and stand-alone code points, combining classes, compositions and
 * mappings (empty ones, strided runs, shifted targets), written in the generator's varint encoding, decoded by both
 * and compared entry for entry: the trie index and data, offsets, pool, pool info and composition pairs. Edge cases:
 * runs reaching U+10FFFF, empty strings, runs of length 0, a block holding one code point's entry.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { type FlatTables, flatTablesOf } from '../../../src/text/nfkc-casefold.js';
import { BUILDS, coreOf } from '../abi/helpers.js';
import { prng } from '../../reference/core.js';

const CODE_POINTS = 0x110000;
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The generator's varints (build/unicode.mjs): 5 bits per base64url digit, bit 5 set on all but the last. */
function varints(values: readonly number[]): string {
  let out = '';
  for (let v of values) {
    while (v >= 32) {
      out += DIGITS[(v % 32) | 32];
      v = Math.floor(v / 32);
    }
    out += DIGITS[v];
  }
  return out;
}

const zigzag = (n: number) => (n < 0 ? -2 * n - 1 : 2 * n);

/** Random tables as the five strings, in tableSources() order. */
function randomSources(rnd: () => number): string[] {
  const int = (n: number) => Math.floor(rnd() * n);
  const runs = (most: number) => {
    const out: number[] = [];
    for (let cp = 0, k = int(most); k > 0 && cp < CODE_POINTS; k--) {
      const n = Math.min(CODE_POINTS - cp, rnd() < 0.3 ? int(4) : rnd() < 0.7 ? int(300) : int(90_000));
      out.push(n);
      cp += n;
    }
    return out;
  };
  const ccc: number[] = [];
  for (let next = 0, k = int(40); k > 0; k--) {
    const start = next + int(rnd() < 0.5 ? 64 : 40_000);
    const length = 1 + int(rnd() < 0.7 ? 3 : 40);
    if (start + length > CODE_POINTS) break;
    ccc.push(start - next, length - 1, 1 + int(254));
    next = start + length;
  }
  const composition: number[] = [];
  const seconds = Array.from({ length: 1 + int(60) }, () => int(CODE_POINTS));
  for (let a = 0, b = 0, k = int(200); k > 0; k--) {
    const dc = int(500);
    const na = a + 1 + int(rnd() < 0.8 ? 30 : 5000); // firsts increase: no key repeats
    const nb = seconds[int(seconds.length)];
    if (na >= CODE_POINTS) break;
    composition.push(dc, zigzag(na - a), zigzag(nb - b));
    a = na;
    b = nb;
  }
  const mapping: number[] = [];
  let prevTarget = 0;
  for (let next = 0, k = int(120); k > 0; k--) {
    const cp0 = next + int(rnd() < 0.5 ? 50 : 20_000);
    const count = 1 + (rnd() < 0.5 ? 0 : int(rnd() < 0.8 ? 8 : 200));
    const stride = 1 + (rnd() < 0.6 ? 0 : int(3));
    const shift = int(5) - 2;
    const length = rnd() < 0.3 ? 0 : 1 + int(rnd() < 0.9 ? 3 : 18);
    const last = cp0 + (count - 1) * stride;
    if (last >= CODE_POINTS) break;
    const targets = Array.from({ length }, () => 1000 + int(CODE_POINTS - 2000));
    mapping.push(cp0 - next, count - 1);
    if (count > 1) mapping.push(stride - 1, zigzag(shift));
    mapping.push(length);
    for (const t of targets) {
      mapping.push(zigzag(t - prevTarget));
      prevTarget = t;
    }
    next = last + 1;
  }
  return [varints(runs(60)), varints(runs(10)), varints(ccc), varints(composition), varints(mapping)];
}

/** The core's decode of `sources`, as flat arrays (undefined when it reports 0). */
function decodeInCore(core: Core, sources: readonly string[]): FlatTables | undefined {
  const L = core.layout();
  const total = sources.reduce((n, s) => n + s.length, 0);
  const src = L.take(total);
  const scratchBytes = core.raw.nfkcDecodeScratch.value as number;
  const scratch = L.take(scratchBytes);
  L.commit();
  core.u8.fill(0x5a, scratch, scratch + scratchBytes); // leftovers of an earlier call
  let at = src;
  for (const s of sources) {
    core.u8.set(new TextEncoder().encode(s), at);
    at += s.length;
  }
  const [a, b, c, d, e] = sources.map((s) => s.length);
  const dataLen = core.raw.nfkcDecode(src, a, b, c, d, e, scratch);
  if (dataLen === 0) return undefined;
  const [offsetsLen, poolLen, pairs, pairsPtr] = core.u32(scratch, 4);
  let p = core.raw.nfkcTables();
  const index = core.u16(p, CODE_POINTS >> 6).slice();
  p += index.byteLength;
  const take = (n: number) => {
    const out = core.u32(p, n).slice();
    p += n * 4;
    return out;
  };
  const data = take(dataLen);
  const offsets = take(offsetsLen);
  const pool = take(poolLen);
  const poolInfo = take(poolLen);
  return { index, data, offsets, pool, poolInfo, pairs: core.u32(pairsPtr, pairs * 2).slice() };
}

describe.each(BUILDS)('nfkcDecode equals flatTablesOf on random tables (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
  });

  it('entry for entry, 40 random tables and the edge cases', () => {
    const rnd = prng(1717);
    const cases = [
      ['', '', '', '', ''],
      [varints([0, CODE_POINTS]), varints([0x4e00, 64]), '', '', varints([0x10ffff, 0, 1, zigzag(0x41)])],
      [varints([65, 1, 0x10000 - 66, 1]), '', varints([0x300, 0, 230]), varints([5, zigzag(0x41), zigzag(0x300)]), ''],
    ];
    for (let k = 0; k < 40; k++) cases.push(randomSources(rnd));
    let compared = 0;
    for (const sources of cases) {
      const ref = flatTablesOf(sources);
      const got = decodeInCore(core, sources);
      // the core refuses only tables too large for its area (the host then copies the reference's)
      const bytes = ref.index.byteLength + ref.data.byteLength + ref.offsets.byteLength + ref.pool.byteLength * 2;
      if (got === undefined) {
        expect(bytes, JSON.stringify(sources.map((s) => s.length))).toBeGreaterThan(
          core.raw.nfkcTableBytes.value as number,
        );
        continue;
      }
      compared++;
      for (const key of ['index', 'data', 'offsets', 'pool', 'poolInfo', 'pairs'] as const) {
        expect(Array.from(got[key]), key).toEqual(Array.from(ref[key]));
      }
    }
    expect(compared).toBeGreaterThan(30);
  });
});
