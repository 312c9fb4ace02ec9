/**
 * Inflate of a zlib stream (RFC 1950 around RFC 1951 DEFLATE), synchronous and small: the decoder of
 * "tinf" (Jørgen Ibsen, zlib licence) in TypeScript — canonical Huffman tables as counts and symbols — with a
 * 10-bit lookup table per tree, so that almost every code takes one read. For the short tables a dataset file stores (src/datasets/articles.ts): the platform's DecompressionStream
 * cost 150 ms of every load of the default packs in Node (web streams per document), this costs a few; fflate is not
 * imported by the library, which a page cannot load by its package name.
 */
import { TrainprintError } from '../errors.js';

export interface Tree {
  /** Codes of each length (0..15). */
  readonly counts: Uint16Array;
  /** Symbols ordered by code. */
  readonly symbols: Uint16Array;
  /** The next FAST bits of the stream (as read, least significant first) → symbol << 4 | code length; 0: longer. */
  readonly fast: Uint16Array;
}

/** Bits looked up at once: literal and distance codes of up to this length take one table read. */
export const FAST = 10;

export const LENGTH_BASE = Uint16Array.of(
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  13,
  15,
  17,
  19,
  23,
  27,
  31,
  35,
  43,
  51,
  59,
  67,
  83,
  99,
  115,
  131,
  163,
  195,
  227,
  258,
);
export const LENGTH_EXTRA = Uint8Array.of(
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  1,
  1,
  1,
  2,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  4,
  4,
  4,
  4,
  5,
  5,
  5,
  5,
  0,
);
export const DIST_BASE = Uint16Array.of(
  1,
  2,
  3,
  4,
  5,
  7,
  9,
  13,
  17,
  25,
  33,
  49,
  65,
  97,
  129,
  193,
  257,
  385,
  513,
  769,
  1025,
  1537,
  2049,
  3073,
  4097,
  6145,
  8193,
  12289,
  16385,
  24577,
);
export const DIST_EXTRA = Uint8Array.of(
  0,
  0,
  0,
  0,
  1,
  1,
  2,
  2,
  3,
  3,
  4,
  4,
  5,
  5,
  6,
  6,
  7,
  7,
  8,
  8,
  9,
  9,
  10,
  10,
  11,
  11,
  12,
  12,
  13,
  13,
);
/** Order of the code-length code lengths in a dynamic block header. */
export const CLEN_ORDER = Uint8Array.of(16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15);

function bad(detail: string): never {
  throw new TrainprintError('INVALID_INPUT', `not a valid zlib stream: ${detail}`);
}

/** What a set of code lengths codes, for the refusals' words (zlib's). */
export type CodeSetKind = 'code lengths' | 'literal/lengths' | 'distances';

/**
 * Why a set of code lengths is refused, as zlib's `inflate_table` refuses it (null when it is acceptable): an
 * over-subscribed set (more codes than the lengths leave room for: the Kraft sum over 1) always; an incomplete one
 * (the sum under 1) unless it is a literal/length or distance set whose only code has length 1 (RFC 1951 allows one
 * distance code of one bit; zlib allows that case alone). A set with no code at all is refused for the code lengths
 * (nothing could be decoded) and left to the decoder otherwise (a block of literals has no distance codes). Without
 * this a stream that every other reader refuses would be decoded into junk.
 * @example codeSetFault(Uint8Array.of(1, 1, 1), 'distances') // 'invalid distances set' (over-subscribed)
 */
export function codeSetFault(lengths: Uint8Array, kind: CodeSetKind): string | null {
  const counts = new Uint16Array(16);
  for (let i = 0; i < lengths.length; i++) counts[lengths[i]]++;
  let max = 15;
  while (max >= 1 && counts[max] === 0) max--;
  if (max === 0) return kind === 'code lengths' ? 'invalid code lengths set' : null;
  let left = 1;
  for (let len = 1; len <= 15; len++) {
    left = left * 2 - counts[len];
    if (left < 0) return `invalid ${kind} set`; // over-subscribed
  }
  if (left > 0 && (kind === 'code lengths' || max !== 1)) return `invalid ${kind} set`; // incomplete
  return null;
}

/**
 * The literal/length and distance code lengths of a dynamic block checked as zlib checks them: an end-of-block code,
 * then each set ({@link codeSetFault}). Null when they are acceptable, else zlib's words for why not.
 * @example dynamicSetsFault(new Uint8Array(257 + 1), 257) // 'invalid code -- missing end-of-block'
 */
export function dynamicSetsFault(lengths: Uint8Array, hlit: number): string | null {
  if (lengths[256] === 0) return 'invalid code -- missing end-of-block';
  return (
    codeSetFault(lengths.subarray(0, hlit), 'literal/lengths') ?? codeSetFault(lengths.subarray(hlit), 'distances')
  );
}

/** A canonical Huffman tree from code lengths. */
export function buildTree(lengths: Uint8Array, n: number): Tree {
  const counts = new Uint16Array(16);
  const symbols = new Uint16Array(n);
  for (let i = 0; i < n; i++) counts[lengths[i]]++;
  counts[0] = 0;
  const offs = new Uint16Array(16);
  for (let i = 0, sum = 0; i < 16; i++) {
    offs[i] = sum;
    sum += counts[i];
  }
  for (let i = 0; i < n; i++) if (lengths[i]) symbols[offs[lengths[i]]++] = i;
  // canonical codes (RFC 1951 §3.2.2), bit-reversed into the table: the stream holds a code's first bit lowest
  const fast = new Uint16Array(1 << FAST);
  const next = new Uint16Array(16);
  for (let len = 1, code = 0; len < 16; len++) {
    code = (code + counts[len - 1]) << 1;
    next[len] = code;
  }
  for (let sym = 0; sym < n; sym++) {
    const len = lengths[sym];
    if (len === 0 || len > FAST) {
      if (len) next[len]++;
      continue;
    }
    const code = next[len]++;
    let r = 0;
    for (let i = 0; i < len; i++) r |= ((code >>> i) & 1) << (len - 1 - i);
    for (let k = r; k < 1 << FAST; k += 1 << len) fast[k] = (sym << 4) | len;
  }
  return { counts, symbols, fast };
}

export const FIXED = (() => {
  const l = new Uint8Array(288);
  l.fill(8, 0, 144);
  l.fill(9, 144, 256);
  l.fill(7, 256, 280);
  l.fill(8, 280, 288);
  const d = new Uint8Array(30).fill(5);
  return { lit: buildTree(l, 288), dist: buildTree(d, 30) };
})();

/**
 * Inflate a zlib stream (header, DEFLATE blocks, Adler-32 of the output).
 * @throws INVALID_INPUT when the stream is malformed, truncated, or its checksum does not match
 * @example new TextDecoder().decode(inflateZlib(Uint8Array.of(0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15))) // 'hello'
 */
export function inflateZlib(src: Uint8Array): Uint8Array {
  if (src.length < 6) bad('too short');
  const cmf = src[0],
    flg = src[1];
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) bad('bad header');
  let pos = 2;
  let bitBuf = 0;
  let bitCount = 0;
  let out = new Uint8Array(Math.max(1024, src.length * 4));
  let outLen = 0;
  const need = (n: number) => {
    if (outLen + n <= out.length) return;
    let cap = out.length * 2;
    while (cap < outLen + n) cap *= 2;
    const grown = new Uint8Array(cap);
    grown.set(out.subarray(0, outLen));
    out = grown;
  };
  /** At least 16 bits in the buffer (zeros past the end: a truncated stream fails its checks). */
  const fill = () => {
    while (bitCount <= 16) {
      // a stream reads at most 3 bytes ahead of what it decodes, and ends with 4 bytes of checksum
      if (pos >= src.length + 4) bad('truncated');
      bitBuf |= (pos < src.length ? src[pos] : 0) << bitCount;
      pos++;
      bitCount += 8;
    }
  };
  const bits = (n: number): number => {
    fill();
    const v = bitBuf & ((1 << n) - 1);
    bitBuf >>>= n;
    bitCount -= n;
    return v;
  };
  /** Drop the bits to the byte boundary and give the whole bytes still buffered back to the input. */
  const align = () => {
    pos -= bitCount >> 3;
    bitBuf = 0;
    bitCount = 0;
  };
  const decode = (t: Tree): number => {
    fill();
    const e = t.fast[bitBuf & ((1 << FAST) - 1)];
    if (e !== 0) {
      const len = e & 15;
      bitBuf >>>= len;
      bitCount -= len;
      return e >>> 4;
    }
    let code = 0,
      first = 0,
      index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      const count = t.counts[len];
      if (code - first < count) return t.symbols[index + code - first];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    return bad('bad code');
  };
  /** The literal/length and distance codes of a dynamic block (RFC 1951 §3.2.7). */
  const dynamicTrees = (): { lit: Tree; dist: Tree } => {
    const hlit = bits(5) + 257,
      hdist = bits(5) + 1,
      hclen = bits(4) + 4;
    if (hlit > 286 || hdist > 30) bad('too many length or distance symbols');
    const clens = new Uint8Array(19);
    for (let i = 0; i < hclen; i++) clens[CLEN_ORDER[i]] = bits(3);
    const clFault = codeSetFault(clens, 'code lengths');
    if (clFault !== null) bad(clFault);
    const clTree = buildTree(clens, 19);
    const lengths = new Uint8Array(hlit + hdist);
    for (let n = 0; n < hlit + hdist; ) {
      const sym = decode(clTree);
      if (sym < 16) lengths[n++] = sym;
      else {
        let prev = 0,
          rep = 0;
        if (sym === 16) {
          if (n === 0) bad('repeat without a length');
          prev = lengths[n - 1];
          rep = 3 + bits(2);
        } else if (sym === 17) rep = 3 + bits(3);
        else rep = 11 + bits(7);
        if (n + rep > hlit + hdist) bad('too many lengths');
        lengths.fill(prev, n, n + rep);
        n += rep;
      }
    }
    const fault = dynamicSetsFault(lengths, hlit);
    if (fault !== null) bad(fault);
    return { lit: buildTree(lengths.subarray(0, hlit), hlit), dist: buildTree(lengths.subarray(hlit), hdist) };
  };
  let final = 0;
  do {
    final = bits(1);
    const type = bits(2);
    if (type === 0) {
      align();
      if (pos + 4 > src.length) bad('truncated');
      const len = src[pos] | (src[pos + 1] << 8);
      const nlen = src[pos + 2] | (src[pos + 3] << 8);
      if (len !== (~nlen & 0xffff)) bad('bad stored block');
      pos += 4;
      if (pos + len > src.length) bad('truncated');
      need(len);
      out.set(src.subarray(pos, pos + len), outLen);
      outLen += len;
      pos += len;
      continue;
    }
    let lit: Tree, dist: Tree;
    if (type === 1) ({ lit, dist } = FIXED);
    else if (type === 2) ({ lit, dist } = dynamicTrees());
    else return bad('bad block type');
    for (;;) {
      const sym = decode(lit);
      if (sym < 256) {
        need(1);
        out[outLen++] = sym;
      } else if (sym === 256) break;
      else {
        const l = sym - 257;
        if (l >= 29) bad('bad length');
        const length = LENGTH_BASE[l] + bits(LENGTH_EXTRA[l]);
        const d = decode(dist);
        if (d >= 30) bad('bad distance');
        const offset = DIST_BASE[d] + bits(DIST_EXTRA[d]);
        if (offset > outLen) bad('distance past the start');
        need(length);
        for (let i = 0; i < length; i++, outLen++) out[outLen] = out[outLen - offset];
      }
    }
  } while (!final);
  // Adler-32 of the output, big-endian, after the last block's byte
  align();
  if (pos + 4 > src.length) bad('truncated');
  let a = 1,
    b = 0;
  for (let i = 0; i < outLen; i++) {
    a = (a + out[i]) % 65521;
    b = (b + a) % 65521;
  }
  const want = ((src[pos] << 24) | (src[pos + 1] << 16) | (src[pos + 2] << 8) | src[pos + 3]) >>> 0;
  if (((b << 16) | a) >>> 0 !== want) bad('checksum mismatch');
  return out.slice(0, outLen);
}
