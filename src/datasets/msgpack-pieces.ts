/**
 * A snapshot's large values written as msgpack by hand, a bounded piece at a time: the same bytes as
 * `@msgpack/msgpack`'s `Encoder` (the formats it picks, the UTF-8 it writes), without ever giving an encoder, or
 * `TextEncoder#encodeInto`, a buffer of 2 GiB or more.
 *
 * Why bounded: Node 20's `encodeInto` writes nothing (`{ read: 0, written: 0 }`) into a destination view of 2³¹
 * bytes or more, and msgpack's `Encoder` encodes every string over 50 UTF-16 units with `encodeInto` into the rest of
 * its buffer, which it sizes to the whole value (and doubles as it grows): a file whose texts passed 2 GiB held zeros
 * where its texts should have been. Here each text is encoded into a view of one piece (at most {@link TEXT_PIECE}
 * bytes) or, when longer than a piece, into a buffer of its own size (a JS string's UTF-8 is under 2 GiB: V8 holds at
 * most 2²⁹ − 24 units, 3 bytes each at most). Shared by `encodeDataset` (./snapshot.ts), which keeps every piece,
 * and `SnapshotStream` (./snapshot-stream.ts), which reuses one buffer.
 */
import type { Encoder } from '@msgpack/msgpack';
import { TrainprintError } from '../errors.js';
import { isWellFormed } from '../util/validate.js';

/** Texts are gathered into pieces of about this size. */
export const TEXT_PIECE = 1 << 20;

/**
 * Strings of at most this many UTF-16 units msgpack encodes in JavaScript (a lone surrogate kept as its own three
 * bytes), longer ones with `TextEncoder` (a lone surrogate becomes U+FFFD): `TEXT_ENCODER_THRESHOLD` of
 * @msgpack/msgpack's src/utils/utf8.ts (v3.1). Both write three bytes for a lone surrogate, so the length is the same.
 */
export const MSGPACK_JS_STRING_UNITS = 50;

/**
 * An encoding this long or longer may have been written into an `Encoder` buffer of 2 GiB: the encoder grows its
 * buffer to twice the bytes it needs (written so far, plus the next value's), so while a value's encoding stays
 * under 1 GiB (less a string header) no `encodeInto` view of it reaches 2 GiB.
 */
const ENCODER_SAFE_BYTES = 2 ** 30 - 5;

/**
 * msgpack's bytes of a descriptor, a document entry or another value of no fixed size (a view of `encoder`'s buffer,
 * valid until its next call), refused when 1 GiB or more: such a value could have been written into a view past
 * 2 GiB, with zeros in place of its longer strings. `encoder` must have written no larger value before.
 * @throws INVALID_INPUT naming `what` when the encoding reaches 1 GiB
 * @example const bytes = boundedEncode(encoder, descriptor, 'descriptor').slice()
 */
export function boundedEncode(encoder: Encoder, value: unknown, what: string): Uint8Array {
  const bytes = encoder.encodeSharedRef(value);
  if (bytes.length >= ENCODER_SAFE_BYTES) {
    throw new TrainprintError(
      'INVALID_INPUT',
      `${what} takes ${bytes.length} bytes of msgpack, over the 1 GiB a value may`,
    );
  }
  return bytes;
}

function sized(small: number, tag16: number, tag32: number, n: number, fixBits: number): Uint8Array {
  if (n < fixBits) return Uint8Array.of(small | n);
  const out = new Uint8Array(n < 0x10000 ? 3 : 5);
  out[0] = n < 0x10000 ? tag16 : tag32;
  const dv = new DataView(out.buffer);
  if (n < 0x10000) dv.setUint16(1, n, false);
  else dv.setUint32(1, n, false);
  return out;
}

/**
 * The header of a msgpack map of `n` entries (fixmap, map16, map32).
 * @example mapHeader(8) // Uint8Array [0x88]
 */
export const mapHeader = (n: number): Uint8Array => sized(0x80, 0xde, 0xdf, n, 16);

/**
 * The header of a msgpack array of `n` items (fixarray, array16, array32).
 * @example arrayHeader(20) // Uint8Array [0xdc, 0, 20]
 */
export const arrayHeader = (n: number): Uint8Array => sized(0x90, 0xdc, 0xdd, n, 16);

/**
 * The header of a msgpack bin of `n` bytes (bin8, bin16, bin32).
 * @example binHeader(300) // Uint8Array [0xc5, 1, 44]
 */
export function binHeader(n: number): Uint8Array {
  if (n < 0x100) return Uint8Array.of(0xc4, n);
  return sized(0, 0xc5, 0xc6, n, 0); // bin16 / bin32
}

/** Bytes of a msgpack str header for a string of `n` UTF-8 bytes (fixstr, str8, str16, str32: what `Encoder` picks). */
const strHeaderSize = (n: number) => (n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

function writeStrHeader(out: Uint8Array, at: number, n: number): void {
  if (n < 32) out[at] = 0xa0 | n;
  else if (n < 0x100) {
    out[at] = 0xd9;
    out[at + 1] = n;
  } else if (n < 0x10000) {
    out[at] = 0xda;
    out[at + 1] = n >>> 8;
    out[at + 2] = n & 0xff;
  } else {
    out[at] = 0xdb;
    new DataView(out.buffer, out.byteOffset + at + 1, 4).setUint32(0, n, false);
  }
}

/** How the pieces of {@link textPieces} and {@link packedPieces} are made. */
export interface PieceOptions {
  /** Bytes of a piece (below 2 GiB; a test passes a few dozen to reach every path). @default {@link TEXT_PIECE} */
  readonly pieceBytes?: number;
  /**
   * Whether every piece is a buffer of its own, kept by the caller (`encodeDataset`); else one buffer is reused,
   * each piece to be consumed before the next is taken (the stream). @default false
   */
  readonly fresh?: boolean;
}

/** One piece buffer at a time: its filled part handed out when the next bytes would not fit. */
class PieceBuffer {
  buf: Uint8Array;
  fill = 0;
  private readonly fresh: boolean;

  constructor({ pieceBytes = TEXT_PIECE, fresh = false }: PieceOptions) {
    if (!(Number.isInteger(pieceBytes) && pieceBytes >= 8 && pieceBytes < 2 ** 31)) {
      throw new RangeError(`pieceBytes must be an integer in 8..2³¹ − 1, not ${pieceBytes}`);
    }
    this.buf = new Uint8Array(pieceBytes);
    this.fresh = fresh;
  }

  /** The filled part when `room` more bytes would not fit beside it (null when empty or they fit); then empty. */
  flushFor(room: number): Uint8Array | null {
    if (this.fill === 0 || this.fill + room <= this.buf.length) return null;
    return this.take();
  }

  /**
   * The filled part (null when empty); the buffer is then empty. A kept piece is the buffer itself when mostly
   * filled, else a copy of its filled part (a kept buffer's empty end would be memory held for nothing).
   */
  take(): Uint8Array | null {
    if (this.fill === 0) return null;
    let piece = this.buf.subarray(0, this.fill);
    if (this.fresh) {
      if (4 * this.fill < 3 * this.buf.length) piece = piece.slice();
      else this.buf = new Uint8Array(this.buf.length);
    }
    this.fill = 0;
    return piece;
  }

  /** Copy `bytes` in (they fit: the caller flushed for them). */
  put(bytes: Uint8Array): void {
    this.buf.set(bytes, this.fill);
    this.fill += bytes.length;
  }
}

const textEncoder = new TextEncoder();

/**
 * The texts as msgpack strings (or nil), the bytes `Encoder` writes for them, packed into pieces of about
 * `pieceBytes` (no header: the caller writes the array's). Each text is UTF-8-encoded once, straight into its piece
 * (`encodeInto` into a view no longer than the piece); `Encoder` counts a string's UTF-8 bytes in JavaScript first,
 * which at hundreds of megabytes of text was most of an export's time. A text longer than a piece is encoded into a
 * buffer of its own. A string of at most {@link MSGPACK_JS_STRING_UNITS} units holding a lone surrogate is left to
 * `encoder` (which keeps the surrogate's three bytes where `TextEncoder` writes U+FFFD); every other string is
 * encoded as msgpack encodes it, with `TextEncoder` (UTF-8 is unique for well-formed text).
 * @example for (const piece of textPieces(['a', null], new Encoder())) write(piece) // a1 61 c0
 */
export function* textPieces(
  texts: readonly (string | null)[],
  encoder: Encoder,
  options: PieceOptions = {},
): Generator<Uint8Array> {
  const out = new PieceBuffer(options);
  const pieceBytes = out.buf.length;
  for (const t of texts) {
    if (t !== null && t.length <= MSGPACK_JS_STRING_UNITS && !isWellFormed(t)) {
      const bytes = encoder.encodeSharedRef(t); // at most 2 + 150 bytes: copied into the piece, or on its own
      const flushed = out.flushFor(bytes.length);
      if (flushed) yield flushed;
      if (bytes.length > pieceBytes) yield bytes.slice();
      else out.put(bytes);
      continue;
    }
    const room = t === null ? 1 : 5 + 3 * t.length;
    const flushed = out.flushFor(room);
    if (flushed) yield flushed;
    if (room > pieceBytes) {
      // A text longer than a piece: encoded on its own (one copy of its bytes, as `Encoder` makes).
      const bytes = textEncoder.encode(t!);
      const head = new Uint8Array(strHeaderSize(bytes.length));
      writeStrHeader(head, 0, bytes.length);
      yield head;
      yield bytes;
      continue;
    }
    const { buf, fill } = out;
    if (t === null) {
      buf[fill] = 0xc0;
      out.fill += 1;
      continue;
    }
    // The header goes before the text: its size is known unless the UTF-8 length (between t.length
    // and 3 · t.length) straddles a boundary; then the text is encoded after the widest header and moved back.
    const known = strHeaderSize(t.length) === strHeaderSize(3 * t.length) ? strHeaderSize(t.length) : 5;
    const { written } = textEncoder.encodeInto(t, buf.subarray(fill + known));
    const header = strHeaderSize(written);
    if (header !== known) buf.copyWithin(fill + header, fill + known, fill + known + written);
    writeStrHeader(buf, fill, written);
    out.fill += header + written;
  }
  const last = out.take();
  if (last) yield last;
}

/**
 * `pieces` (each consumed before the next is taken: an encoder's shared view will do) packed into pieces of about
 * `pieceBytes`: a document list of millions of small maps as a few large pieces. A piece longer than `pieceBytes`
 * passes on as a copy of its own.
 * @example for (const piece of packedPieces(docs.map((d) => encoder.encodeSharedRef(d)))) write(piece)
 */
export function* packedPieces(pieces: Iterable<Uint8Array>, options: PieceOptions = {}): Generator<Uint8Array> {
  const out = new PieceBuffer(options);
  for (const bytes of pieces) {
    const flushed = out.flushFor(bytes.length);
    if (flushed) yield flushed;
    if (bytes.length > out.buf.length) yield bytes.slice();
    else out.put(bytes);
  }
  const last = out.take();
  if (last) yield last;
}
