/**
 * DEFLATE (RFC 1951) in one decoder, {@link StreamInflater}, behind both of the library's uses: the document readers'
 * streaming inflate (zip entries of EPUB/DOCX, PDF streams: input in pieces, output in chunks counted against the
 * document's budget, src/formats/budget.ts) and {@link inflateZlib}, the one-shot zlib (RFC 1950) inflate of the
 * short tables a dataset file stores (src/datasets/articles.ts). The decoder is that of "tinf" (Jørgen Ibsen, zlib
 * licence) in TypeScript — canonical Huffman tables as counts and symbols — with a 10-bit lookup table per tree, so
 * that almost every code takes one read, and code sets checked as zlib checks them.
 *
 * Why not the platform's `DecompressionStream('deflate-raw')` (Node ≥ 20, Deno, browsers): it is asynchronous only,
 * and every caller here is synchronous — a zip entry is inflated inside the synchronous zip reader, a PDF filter
 * stage is pushed synchronously, and a portrait names an article synchronously (`unpackArticlesNow`); its chunks
 * could be counted against a budget, but only between awaits. It also cost 150 ms of every load of the default packs
 * in Node (web streams per document) where this costs a few. fflate is not imported here: a page cannot load it by
 * its package name.
 */
import { TrainprintError } from '../errors.js';

interface Tree {
  /** Codes of each length (0..15). */
  readonly counts: Uint16Array;
  /** Symbols ordered by code. */
  readonly symbols: Uint16Array;
  /** The next FAST bits of the stream (as read, least significant first) → symbol << 4 | code length; 0: longer. */
  readonly fast: Uint16Array;
}

/** Bits looked up at once: literal and distance codes of up to this length take one table read. */
const FAST = 10;

const LENGTH_BASE = Uint16Array.of(
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
const LENGTH_EXTRA = Uint8Array.of(
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
const DIST_BASE = Uint16Array.of(
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
const DIST_EXTRA = Uint8Array.of(
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
const CLEN_ORDER = Uint8Array.of(16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15);

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
function buildTree(lengths: Uint8Array, n: number): Tree {
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

const FIXED = (() => {
  const l = new Uint8Array(288);
  l.fill(8, 0, 144);
  l.fill(9, 144, 256);
  l.fill(7, 256, 280);
  l.fill(8, 280, 288);
  const d = new Uint8Array(30).fill(5);
  return { lit: buildTree(l, 288), dist: buildTree(d, 30) };
})();

/** The most bytes one chunk of output holds. */
export const INFLATE_CHUNK = 32 * 1024;
/** How far back a DEFLATE back-reference may reach. */
const WINDOW = 32 * 1024;
/** The longest match: an element writes at most this many bytes. */
const MAX_MATCH = 258;

/** Thrown inside the decoder when an element needs bytes not pushed yet. */
const NEED_INPUT = Symbol('need input');

/** A malformed DEFLATE stream. */
export class InflateError extends Error {
  override readonly name = 'InflateError';
}

const EMPTY = new Uint8Array(0);

/**
 * A streaming DEFLATE decoder writing into one fixed buffer.
 *
 * @example
 * const inflater = new StreamInflater()
 * let n = 0
 * inflater.push(deflated, true, (chunk) => (n += chunk.length)) // chunks of ≤ 32 KiB, views of one buffer
 * inflater.ended // true once the final block was read
 */
export class StreamInflater {
  /** The window (32 KiB) and one chunk of room: the only buffer output is written to. */
  readonly #out = new Uint8Array(WINDOW + INFLATE_CHUNK);
  /** Where the next byte goes: output starts after the window's room, so that no chunk is longer than one chunk. */
  #outPos = WINDOW;
  /** Where the output not yet handed on starts in {@link #out}. */
  #emitted = WINDOW;
  /** Bytes of output so far (a back-reference may not reach before the first). */
  #total = 0;

  #input: Uint8Array = EMPTY;
  #pos = 0;
  #bitBuf = 0;
  #bitCount = 0;
  /** Whether the input pushed so far is all there is (an element cut short is then an error). */
  #final = false;
  /** Unread input kept from the previous push (an element cut in two). */
  #carry: Uint8Array = EMPTY;
  /** Bytes pushed so far, and where the input of this push (the carry first) starts among them. */
  #pushed = 0;
  #base = 0;
  /** Bytes of input the stream took, through its final block's last byte (-1 until it ended). */
  #used = -1;

  /** 'header': the next block's header; 'stored': `#stored` bytes to copy; 'codes': Huffman-coded data. */
  #state: 'header' | 'stored' | 'codes' | 'done' = 'header';
  #last = false;
  #stored = 0;
  #lit: Tree = FIXED.lit;
  #dist: Tree = FIXED.dist;

  /** Whether the final block has been read: input past it is not read. */
  get ended(): boolean {
    return this.#state === 'done';
  }

  /** Bytes of output so far. */
  get total(): number {
    return this.#total;
  }

  /**
   * Bytes of the input pushed that the DEFLATE data took, through the final block's last byte, once it has
   * {@link ended} (-1 before): what follows it in the input (a zlib stream's Adler-32) starts there.
   */
  get consumed(): number {
    return this.#used;
  }

  /**
   * Decodes `input` (and what an earlier push left unread), handing each chunk of output to `emit` — a view that is
   * valid only during the call. `final`: no more input follows (data cut short is then an error).
   * @throws InflateError when the data is malformed, or cut short where `final`; whatever `emit` throws
   */
  push(input: Uint8Array, final: boolean, emit: (chunk: Uint8Array) => void): void {
    if (this.#state === 'done') return;
    this.#base = this.#pushed - this.#carry.length;
    this.#pushed += input.length;
    if (this.#carry.length > 0) {
      const joined = new Uint8Array(this.#carry.length + input.length);
      joined.set(this.#carry);
      joined.set(input, this.#carry.length);
      this.#input = joined;
      this.#carry = EMPTY;
    } else this.#input = input;
    this.#pos = 0;
    this.#final = final;
    try {
      this.#run(emit);
    } finally {
      this.#flush(emit);
      this.#input = EMPTY;
    }
  }

  #run(emit: (chunk: Uint8Array) => void): void {
    for (;;) {
      // the element's start: where decoding goes on from when the input runs out inside it
      const pos = this.#pos;
      const bitBuf = this.#bitBuf;
      const bitCount = this.#bitCount;
      try {
        if (this.#state === 'done') return;
        if (this.#outPos + MAX_MATCH > this.#out.length) this.#slide(emit);
        if (this.#state === 'header') this.#header();
        else if (this.#state === 'stored') this.#copyStored();
        else this.#element();
      } catch (e) {
        if (e !== NEED_INPUT) throw e;
        if (this.#final) throw new InflateError('the data is cut short');
        this.#pos = pos;
        this.#bitBuf = bitBuf;
        this.#bitCount = bitCount;
        this.#carry = this.#input.slice(pos);
        return;
      }
    }
  }

  /** Hands on the output not yet handed on. */
  #flush(emit: (chunk: Uint8Array) => void): void {
    if (this.#outPos === this.#emitted) return;
    const chunk = this.#out.subarray(this.#emitted, this.#outPos);
    this.#emitted = this.#outPos;
    emit(chunk);
  }

  /** Hands on the output, then keeps only the window at the buffer's start. */
  #slide(emit: (chunk: Uint8Array) => void): void {
    this.#flush(emit);
    this.#out.copyWithin(0, this.#outPos - WINDOW, this.#outPos);
    this.#outPos = WINDOW;
    this.#emitted = WINDOW;
  }

  /** At least `n` (≤ 24) bits in the buffer. */
  #need(n: number): void {
    while (this.#bitCount < n) {
      if (this.#pos >= this.#input.length) throw NEED_INPUT;
      this.#bitBuf |= this.#input[this.#pos++] << this.#bitCount;
      this.#bitCount += 8;
    }
  }

  #bits(n: number): number {
    if (n === 0) return 0;
    this.#need(n);
    const v = this.#bitBuf & ((1 << n) - 1);
    this.#bitBuf >>>= n;
    this.#bitCount -= n;
    return v;
  }

  #decode(t: Tree): number {
    // as many bits as are there, up to FAST: the last code of the data may be shorter than FAST
    try {
      this.#need(FAST);
    } catch (e) {
      if (e !== NEED_INPUT || this.#bitCount === 0) throw e;
    }
    const e = t.fast[this.#bitBuf & ((1 << FAST) - 1)];
    if (e !== 0 && (e & 15) <= this.#bitCount) {
      const len = e & 15;
      this.#bitBuf >>>= len;
      this.#bitCount -= len;
      return e >>> 4;
    }
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= this.#bits(1);
      const count = t.counts[len];
      if (code - first < count) return t.symbols[index + code - first];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw new InflateError('a code the tables do not hold');
  }

  #header(): void {
    const last = this.#bits(1) === 1;
    const type = this.#bits(2);
    if (type === 0) {
      // to the byte boundary; then LEN and NLEN
      this.#bits(this.#bitCount & 7);
      const len = this.#bits(16);
      const nlen = this.#bits(16);
      if (len !== (~nlen & 0xffff)) throw new InflateError('a stored block whose length does not check');
      this.#stored = len;
      this.#state = 'stored';
    } else if (type === 1) {
      this.#lit = FIXED.lit;
      this.#dist = FIXED.dist;
      this.#state = 'codes';
    } else if (type === 2) {
      this.#dynamicTrees();
      this.#state = 'codes';
    } else throw new InflateError('a block of type 3');
    this.#last = last;
  }

  /** The literal/length and distance codes of a dynamic block (RFC 1951 §3.2.7). */
  #dynamicTrees(): void {
    const hlit = this.#bits(5) + 257;
    const hdist = this.#bits(5) + 1;
    const hclen = this.#bits(4) + 4;
    if (hlit > 286 || hdist > 30) throw new InflateError('too many codes');
    const clens = new Uint8Array(19);
    for (let i = 0; i < hclen; i++) clens[CLEN_ORDER[i]] = this.#bits(3);
    const clFault = codeSetFault(clens, 'code lengths');
    if (clFault !== null) throw new InflateError(clFault);
    const clTree = buildTree(clens, 19);
    const lengths = new Uint8Array(hlit + hdist);
    for (let n = 0; n < hlit + hdist; ) {
      const sym = this.#decode(clTree);
      if (sym < 16) lengths[n++] = sym;
      else {
        let prev = 0;
        let rep = 0;
        if (sym === 16) {
          if (n === 0) throw new InflateError('a repeat without a length');
          prev = lengths[n - 1];
          rep = 3 + this.#bits(2);
        } else if (sym === 17) rep = 3 + this.#bits(3);
        else rep = 11 + this.#bits(7);
        if (n + rep > hlit + hdist) throw new InflateError('too many lengths');
        lengths.fill(prev, n, n + rep);
        n += rep;
      }
    }
    // over-subscribed or incomplete sets are refused as zlib refuses them: a part other readers refuse is not read
    const fault = dynamicSetsFault(lengths, hlit);
    if (fault !== null) throw new InflateError(fault);
    this.#lit = buildTree(lengths.subarray(0, hlit), hlit);
    this.#dist = buildTree(lengths.subarray(hlit), hdist);
  }

  /** Stored bytes, as many as the input holds and the buffer has room for. */
  #copyStored(): void {
    if (this.#stored === 0) {
      this.#endBlock();
      return;
    }
    // whole bytes still in the bit buffer come first (none after the header's alignment but what LEN/NLEN left)
    if (this.#bitCount >= 8) {
      this.#write(this.#bits(8));
      this.#stored--;
      return;
    }
    const available = this.#input.length - this.#pos;
    if (available <= 0) throw NEED_INPUT;
    const n = Math.min(this.#stored, available, this.#out.length - this.#outPos);
    this.#out.set(this.#input.subarray(this.#pos, this.#pos + n), this.#outPos);
    this.#pos += n;
    this.#outPos += n;
    this.#total += n;
    this.#stored -= n;
  }

  /** One literal, one length and distance pair, or the block's end. */
  #element(): void {
    const sym = this.#decode(this.#lit);
    if (sym < 256) {
      this.#write(sym);
      return;
    }
    if (sym === 256) {
      this.#endBlock();
      return;
    }
    const l = sym - 257;
    if (l >= 29) throw new InflateError('a length code out of range');
    const length = LENGTH_BASE[l] + this.#bits(LENGTH_EXTRA[l]);
    const d = this.#decode(this.#dist);
    if (d >= 30) throw new InflateError('a distance code out of range');
    const distance = DIST_BASE[d] + this.#bits(DIST_EXTRA[d]);
    if (distance > this.#total) throw new InflateError('a distance back past the start');
    const out = this.#out;
    let at = this.#outPos;
    for (let from = at - distance, end = at + length; at < end; ) out[at++] = out[from++];
    this.#outPos = at;
    this.#total += length;
  }

  #write(byte: number): void {
    this.#out[this.#outPos++] = byte;
    this.#total++;
  }

  #endBlock(): void {
    if (!this.#last) {
      this.#state = 'header';
      return;
    }
    this.#state = 'done';
    // whole bytes still in the bit buffer were read ahead, not taken
    this.#used = this.#base + this.#pos - (this.#bitCount >> 3);
  }
}

/** The largest n with 255·n·(n+1)/2 + (n+1)·(65521 − 1) < 2^32 (zlib's NMAX): Adler-32 sums reduced once per n bytes. */
const ADLER_NMAX = 5552;

/**
 * Inflate a zlib stream (header, DEFLATE blocks, Adler-32 of the output): {@link StreamInflater} given the whole
 * stream at once, its chunks gathered.
 * @throws INVALID_INPUT when the stream is malformed, truncated, or its checksum does not match
 * @example new TextDecoder().decode(inflateZlib(Uint8Array.of(0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15))) // 'hello'
 */
export function inflateZlib(src: Uint8Array): Uint8Array {
  const bad = (detail: string): never => {
    throw new TrainprintError('INVALID_INPUT', `not a valid zlib stream: ${detail}`);
  };
  if (src.length < 6) bad('too short');
  const cmf = src[0],
    flg = src[1];
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) bad('bad header');
  let out = new Uint8Array(Math.max(1024, src.length * 4));
  let outLen = 0;
  let a = 1,
    b = 0;
  const take = (chunk: Uint8Array) => {
    if (outLen + chunk.length > out.length) {
      let cap = out.length * 2;
      while (cap < outLen + chunk.length) cap *= 2;
      const grown = new Uint8Array(cap);
      grown.set(out.subarray(0, outLen));
      out = grown;
    }
    out.set(chunk, outLen);
    outLen += chunk.length;
    for (let i = 0; i < chunk.length; ) {
      for (const end = Math.min(chunk.length, i + ADLER_NMAX); i < end; i++) {
        a += chunk[i];
        b += a;
      }
      a %= 65521;
      b %= 65521;
    }
  };
  const inflater = new StreamInflater();
  try {
    inflater.push(src.subarray(2), true, take);
  } catch (e) {
    if (e instanceof InflateError) bad(e.message);
    throw e;
  }
  if (!inflater.ended) bad('truncated');
  // Adler-32 of the output, big-endian, after the last block's byte
  const pos = 2 + inflater.consumed;
  if (pos + 4 > src.length) bad('truncated');
  const want = ((src[pos] << 24) | (src[pos + 1] << 16) | (src[pos + 2] << 8) | src[pos + 3]) >>> 0;
  if (((b << 16) | a) >>> 0 !== want) bad('checksum mismatch');
  return out.slice(0, outLen);
}
