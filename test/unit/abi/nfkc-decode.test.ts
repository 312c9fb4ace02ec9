/**
 * The core's decode of the NFKC_Casefold tables (assembly/nfkc-decode.ts: nfkcDecode) against the TypeScript one
 * (flatTables, the reference): the trie index, the data blocks, the mapping offsets and pool, each pool entry's info
 * word and the composition pairs, entry for entry, in every build; malformed strings give 0 (the host then copies its
 * own decode), and the tables it decodes drive nfkcTokens as the copied ones do; read back for the TypeScript normaliser
 * (coreTablesReader), they are the reference's again. The reference is decoded here on purpose (flatTablesOf): a file
 * before this one in the worker may have had the TypeScript normaliser take its tables from a core.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { copyTables, coreTablesReader, decodeTablesInCore, ensureTables } from '../../../src/fingerprint/words.js';
import { type FlatTables, flatTablesOf, tableSources } from '../../../src/text/nfkc-casefold.js';
import { BUILDS, coreOf } from './helpers.js';

/** The tables at nfkcTables() as arrays, the core's decode laid out as `copyTables` lays out the reference's. */
function tablesInCore(core: Core, dataLen: number, offsetsLen: number, poolLen: number) {
  const index = core.u16(core.raw.nfkcTables(), 0x110000 >> 6);
  let at = core.raw.nfkcTables() + index.byteLength;
  const take = (n: number) => {
    const a = Array.from(core.u32(at, n));
    at += n * 4;
    return a;
  };
  return {
    index: Array.from(index),
    data: take(dataLen),
    offsets: take(offsetsLen),
    pool: take(poolLen),
    poolInfo: take(poolLen),
  };
}

/** Calls nfkcDecode on `sources` (5 strings); its data length. */
function decodeRaw(core: Core, sources: readonly string[]): number {
  const L = core.layout();
  const total = sources.reduce((n, s) => n + s.length, 0);
  const src = L.take(total);
  const scratch = L.take(core.raw.nfkcDecodeScratch.value as number);
  L.commit();
  core.u8.fill(0xa5, scratch, scratch + (core.raw.nfkcDecodeScratch.value as number)); // not zero: the decode clears it
  let at = src;
  for (const s of sources) {
    core.u8.set(new TextEncoder().encode(s), at);
    at += s.length;
  }
  const [a, b, c, d, e] = sources.map((s) => s.length);
  return core.raw.nfkcDecode(src, a, b, c, d, e, scratch);
}

/** The reference's decode of the tables, made once for the file (not `flatTables()`: see above). */
let reference: FlatTables | undefined;
const flatTables = (): FlatTables => (reference ??= flatTablesOf(tableSources()));

describe.each(BUILDS)('nfkcDecode (%s)', (build) => {
  let core: Core;
  beforeAll(async () => {
    core = await coreOf(build);
  });

  it('decodes the tables the reference decodes, entry for entry', () => {
    const L = core.layout();
    // a taken stretch of garbage first, so the scratch the decode gets is not fresh zero memory
    const junk = L.take(1 << 16);
    L.commit();
    core.u8.fill(0xff, junk, junk + (1 << 16));
    const got = decodeTablesInCore(core, L);
    expect(got).toBeDefined();
    if (got === undefined) return;
    const ref = flatTables();
    expect(got.dataLen).toBe(ref.data.length);
    expect(got.offsetsLen).toBe(ref.offsets.length);
    expect(got.poolLen).toBe(ref.pool.length);
    const inCore = tablesInCore(core, got.dataLen, got.offsetsLen, got.poolLen);
    expect(inCore.index).toEqual(Array.from(ref.index));
    expect(inCore.data).toEqual(Array.from(ref.data));
    expect(inCore.offsets).toEqual(Array.from(ref.offsets));
    expect(inCore.pool).toEqual(Array.from(ref.pool));
    expect(inCore.poolInfo).toEqual(Array.from(ref.poolInfo));
    expect(got.pairs).toBe(ref.pairs.length / 2);
    expect(Array.from(core.u32(got.pairsPtr, got.pairs * 2))).toEqual(Array.from(ref.pairs));
  });

  it('reports malformed or overlong strings with 0', () => {
    const sources = tableSources();
    // a varint cut short (its last digit says more follows)
    expect(decodeRaw(core, [...sources.slice(0, 4), `${sources[4]}z`])).toBe(0);
    // a token run past the last code point
    expect(decodeRaw(core, ['_____B', ...sources.slice(1)])).toBe(0);
    // a composition whose first code point goes negative
    expect(decodeRaw(core, [...sources.slice(0, 3), 'ADA', sources[4]])).toBe(0);
    // and the real strings again, after those
    expect(decodeRaw(core, sources)).toBe(flatTables().data.length);
  });

  it('gives nfkcTokens the tokens that the copied tables give', async () => {
    const text = 'Straße ﬁ Ａ café ᾳ\u0313 한국어 Привет 日本語の文章です Ǆemal ①②';
    const tokens = async (fill: (c: Core) => boolean) => {
      const c = await coreOf(build);
      expect(fill(c)).toBe(true);
      const bytes = new TextEncoder().encode(text);
      const L = c.layout(1 << 20);
      const inPtr = L.take(bytes.length + 16);
      const out = L.take(64 * 16);
      L.commit();
      c.writeBytes(inPtr, bytes);
      const n = c.raw.nfkcTokens(inPtr, bytes.length, 0, 7n, out, out + 256, out + 512, 64, 1);
      expect(n).toBeGreaterThan(10);
      return [Array.from(c.u32(out, n)), Array.from(c.u32(out + 256, n)), Array.from(c.u64(out + 512, n))];
    };
    const decoded = await tokens((c) => ensureTables(c, c.layout()));
    const copied = await tokens((c) => copyTables(c, c.layout()));
    expect(decoded).toEqual(copied);
  });

  it('reads its tables back as the reference decodes them, for the TypeScript normaliser (coreTablesReader)', async () => {
    const c = await coreOf(build);
    const L = c.layout();
    const got = decodeTablesInCore(c, L);
    expect(got).toBeDefined();
    if (got === undefined) return;
    expect(c.raw.nfkcInit(got.dataLen, got.offsetsLen, got.poolLen, got.pairsPtr, got.pairs)).toBe(1);
    const read = coreTablesReader(c, got);
    // the pairs were copied when the reader was made: the scratch they lay in is the next call's
    const junk = c.layout();
    const at = junk.take(1 << 16);
    junk.commit();
    c.u8.fill(0xee, at, at + (1 << 16));
    expect(read()).toEqual(flatTables());
    // a core a trap left unusable is not read
    expect(() =>
      c.guard(() => {
        throw new RangeError('trap');
      }),
    ).toThrow();
    expect(read()).toBeUndefined();
  });
});
