/**
 * The pieces a request body arrives in, gathered into pages before they reach the handler. Node's HTTP parser hands
 * over each transfer-encoding chunk as its own Buffer: a body sent a byte a chunk became two million 1-byte Buffers for
 * 2 MB, each kept (with its stream entry and read) until the body ended, about 350 bytes of memory and 8 µs of CPU
 * per body byte. Here small pieces are copied into pages of
 * {@link BODY_PAGE_BYTES}, so a body holds about its own size however it is cut, and the number of pieces is bounded:
 * past {@link BODY_FREE_PIECES}, a body must average {@link BODY_MIN_PIECE_BYTES} a piece or it is refused.
 *
 * @example
 * const pages = new BodyPages()
 * for (const out of pages.add(chunk)) controller.enqueue(out) // full pages and large pieces, in order
 * const rest = pages.flush() // what is gathered so far, copied out (null when nothing)
 */
import { TrainprintError } from '../library.js';

/** Bytes of one page small pieces are copied into (a socket read's worth). */
export const BODY_PAGE_BYTES = 64 * 1024;

/** A piece at least this large goes on as it is (a socket read of a plain body); smaller ones are copied. */
export const BODY_COPY_BELOW = 16 * 1024;

/** Pieces any body may come in, whatever their size (a client writing JSON lines a line at a time, say). */
export const BODY_FREE_PIECES = 4096;

/**
 * Past {@link BODY_FREE_PIECES}, the least average size of a piece (32 bytes: at most 32,768 pieces a MiB). Each piece
 * costs the parser about a microsecond whatever is done with it, so this bounds a body's CPU by its size.
 */
export const BODY_MIN_PIECE_BYTES = 32;

/**
 * Whether a body that came in `pieces` pieces for `bytes` bytes is past what any body may cost: more than
 * {@link BODY_FREE_PIECES} pieces and under {@link BODY_MIN_PIECE_BYTES} a piece on average. Such a body is refused
 * when read, and no longer read when its rest is dropped.
 * @example pastFreePieces(4097, 4097) // true: 1-byte pieces
 */
export function pastFreePieces(pieces: number, bytes: number): boolean {
  return pieces > BODY_FREE_PIECES + bytes / BODY_MIN_PIECE_BYTES;
}

/** See the module's documentation. */
export class BodyPages {
  /** Pieces seen, and their bytes. */
  pieces = 0;
  bytes = 0;
  #page: Uint8Array | null = null;
  #filled = 0;

  /**
   * Takes one piece: what may go on now (full pages, or this piece itself when large, after what was gathered
   * before it), in order. A piece that leaves the body under its least average is MALFORMED_REQUEST.
   */
  add(piece: Uint8Array): Uint8Array[] {
    this.pieces++;
    this.bytes += piece.byteLength;
    if (pastFreePieces(this.pieces, this.bytes))
      throw new TrainprintError(
        'MALFORMED_REQUEST',
        `the request body came in ${this.pieces} pieces for ${this.bytes} bytes: past ${BODY_FREE_PIECES} pieces a ` +
          `body must average ${BODY_MIN_PIECE_BYTES} bytes a piece; send it in larger chunks`,
      );
    if (piece.byteLength >= BODY_COPY_BELOW) {
      const before = this.flush();
      return before === null ? [piece] : [before, piece];
    }
    const out: Uint8Array[] = [];
    let from = 0;
    while (from < piece.byteLength) {
      if (this.#page === null) this.#page = new Uint8Array(BODY_PAGE_BYTES);
      const n = Math.min(piece.byteLength - from, BODY_PAGE_BYTES - this.#filled);
      this.#page.set(piece.subarray(from, from + n), this.#filled);
      this.#filled += n;
      from += n;
      if (this.#filled === BODY_PAGE_BYTES) {
        out.push(this.#page);
        this.#page = null;
        this.#filled = 0;
      }
    }
    return out;
  }

  /** What is gathered and not yet given, copied out at its size (the page is kept for what comes next); null if none. */
  flush(): Uint8Array | null {
    if (this.#page === null || this.#filled === 0) return null;
    const out = this.#page.slice(0, this.#filled);
    this.#filled = 0;
    return out;
  }
}
