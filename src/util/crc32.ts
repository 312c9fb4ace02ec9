/** CRC-32 (IEEE), slicing-by-8: the checksum of dataset snapshots and of the file store's records. */

import { builtinModule } from './builtin.js';

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n];
    for (let s = 1; s < 8; s++) {
      c = t[c & 0xff] ^ (c >>> 8);
      t[s * 256 + n] = c >>> 0;
    }
  }
  return t;
})();

/** zlib's CRC-32 where the runtime lends `node:zlib` synchronously (Node ≥ 20.15, Deno, Bun), else undefined. */
const zlibCrc32: ((data: Uint8Array, value?: number) => number) | undefined = (() => {
  const crc32 = builtinModule<{ crc32: (data: Uint8Array, value?: number) => number }>('node:zlib')?.crc32;
  return typeof crc32 === 'function' ? crc32 : undefined;
})();

/**
 * Inputs of at least this many bytes go to zlib's CRC-32 where it is at hand: it uses the processor's carry-less
 * multiply, 6 ms for the 20 MB archive of bench/scan-cli.mjs where this loop took 50–200 ms (the first run of a
 * process runs it before the compiler has optimized it, as a `trainprint scan` loading its dataset does). Not 64 KiB,
 * as it was: the headers of the default packs and the starter dataset (a few KB to tens of KB each) then ran this loop
 * cold at every `trainprint analyze`, ≈ 17 ms of CPU; a call into zlib costs about a microsecond.
 */
const ZLIB_BYTES = 1 << 10;

/**
 * CRC-32 (IEEE, as zlib/PNG) of `bytes`, continuing from `crc` (the result of a previous call).
 * @example crc32(new TextEncoder().encode('123456789')) // 0xcbf43926
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (zlibCrc32 && bytes.length >= ZLIB_BYTES) return zlibCrc32(bytes, crc >>> 0) >>> 0;
  return crc32Portable(bytes, crc);
}

/**
 * {@link crc32} in plain TypeScript, slicing-by-8 (the runtimes without `node:zlib`, and short inputs).
 * @example crc32Portable(new TextEncoder().encode('123456789')) // 0xcbf43926
 */
export function crc32Portable(bytes: Uint8Array, crc = 0): number {
  const T = CRC_TABLE;
  let c = ~crc;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n & 7);
  for (; i < end8; i += 8) {
    const a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    const b = bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | (bytes[i + 7] << 24);
    c =
      T[1792 + (a & 0xff)] ^
      T[1536 + ((a >>> 8) & 0xff)] ^
      T[1280 + ((a >>> 16) & 0xff)] ^
      T[1024 + (a >>> 24)] ^
      T[768 + (b & 0xff)] ^
      T[512 + ((b >>> 8) & 0xff)] ^
      T[256 + ((b >>> 16) & 0xff)] ^
      T[b >>> 24];
  }
  for (; i < n; i++) c = T[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** v · M over GF(2): the XOR of the rows of `mat` selected by the bits of `vec`. */
function gf2Times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
  return sum >>> 0;
}

/** square = mat · mat over GF(2). */
function gf2Square(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n]);
}

/**
 * CRC-32 of A followed by B from `crcA` = crc32(A), `crcB` = crc32(B) and B's length (zlib's
 * crc32_combine: multiplies crcA by x^(8·lenB) mod P by repeated squaring). Lets a writer that
 * learns a prefix (a length field) only after streaming the rest still checksum the whole.
 * @example crc32Combine(crc32(a), crc32(b), b.length) === crc32(b, crc32(a)) // true
 */
export function crc32Combine(crcA: number, crcB: number, lenB: number): number {
  if (lenB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the operator for one zero bit
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  gf2Square(even, odd); // two zero bits
  gf2Square(odd, even); // four
  let crc = crcA >>> 0;
  let len = lenB;
  for (;;) {
    gf2Square(even, odd); // first pass: one zero byte
    if (len % 2 === 1) crc = gf2Times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    gf2Square(odd, even);
    if (len % 2 === 1) crc = gf2Times(odd, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
  }
  return (crc ^ crcB) >>> 0;
}
