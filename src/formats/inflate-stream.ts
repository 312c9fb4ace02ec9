/**
 * DEFLATE (RFC 1951) decoded as a stream into one buffer of fixed size: the document readers' inflater, for zip
 * entries and PDF streams alike. Input comes in pieces of any size (`push`), output goes out in chunks of at most
 * {@link INFLATE_CHUNK} bytes, each a view of the same reused buffer — the last 32 KiB of output (the window a
 * back-reference may reach) and room for one chunk — so a stream that inflates to a gigabyte allocates that buffer
 * once and nothing per chunk. A one-shot inflater (or a streaming one that grows its output buffer to whatever one
 * push produces, as fflate's does: up to 1,032 times its input) asks the allocator for blocks of megabytes, one after
 * another, on the thread that reads the document; glibc serves them from that thread's arena, and the arena keeps
 * the memory after they are freed, so a process's resident memory stayed 20–30 % higher after one decompression bomb
 * was refused.
 *
 * The decoder stops between elements (a block header, a literal, a length and distance pair, a run of stored bytes)
 * when the input runs out, keeps the few unread bytes, and goes on with the next piece; the consumer can stop it at
 * any chunk by throwing from `emit` (the document's budget does). The tables are those of src/util/inflate.ts.
 */

import {
  buildTree,
  codeSetFault,
  dynamicSetsFault,
  CLEN_ORDER,
  DIST_BASE,
  DIST_EXTRA,
  FAST,
  FIXED,
  LENGTH_BASE,
  LENGTH_EXTRA,
  type Tree,
} from '../util/inflate.js';

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
   * Decodes `input` (and what an earlier push left unread), handing each chunk of output to `emit` — a view that is
   * valid only during the call. `final`: no more input follows (data cut short is then an error).
   * @throws InflateError when the data is malformed, or cut short where `final`; whatever `emit` throws
   */
  push(input: Uint8Array, final: boolean, emit: (chunk: Uint8Array) => void): void {
    if (this.#state === 'done') return;
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
    this.#state = this.#last ? 'done' : 'header';
  }
}
