/**
 * msgpack encoding for the stores without keeping memory: @msgpack/msgpack's `Encoder` grows its buffer to twice
 * what one call needed and keeps it for its life, so a shared encoder that once wrote a 300 MB file-store snapshot
 * held 600 MB from then on (and a 10 MiB stored value, 20 MiB). {@link ShrinkingEncoder} drops a grown encoder after
 * a large value; {@link snapshotChunks} writes a snapshot's msgpack as pieces (large stored values as they are,
 * the rest in blocks), with no buffer of the whole.
 */
import { Encoder, type EncoderOptions } from '@msgpack/msgpack';

/** An encoder whose output passed this many bytes is replaced by a fresh one (its buffer ≈ 2× the output). */
export const KEEP_ENCODER_BYTES = 1 << 20;

/**
 * One msgpack `Encoder` (synchronous, so one serves a module), replaced after an output over
 * {@link KEEP_ENCODER_BYTES} or a failed call, so it never keeps more than about twice that.
 * @example
 * const encoder = new ShrinkingEncoder()
 * encoder.encode({ a: 1 }) // Uint8Array [0x81, 0xa1, 0x61, 0x01]
 */
export class ShrinkingEncoder {
  readonly #options: EncoderOptions | undefined;
  #encoder: Encoder;

  constructor(options?: EncoderOptions) {
    this.#options = options;
    this.#encoder = new Encoder(options);
  }

  /** The bytes of the buffer the encoder holds between calls (read from msgpack's Encoder: for tests and probes). */
  get heldBytes(): number {
    return (this.#encoder as unknown as { bytes?: Uint8Array }).bytes?.byteLength ?? 0;
  }

  /** `value` as msgpack, in a buffer of its own (as `Encoder.encode`). */
  encode(value: unknown): Uint8Array {
    let out: Uint8Array;
    try {
      out = this.#encoder.encode(value);
    } catch (error) {
      this.#encoder = new Encoder(this.#options); // it may have grown before it failed
      throw error;
    }
    if (out.byteLength > KEEP_ENCODER_BYTES) this.#encoder = new Encoder(this.#options);
    return out;
  }
}

const keys = new ShrinkingEncoder();

/**
 * msgpack's header of a byte string (bin 8/16/32) of `size` bytes, as msgpack's Encoder writes a Uint8Array's.
 * @example binHeader(3) // [0xc4, 3]
 */
export function binHeader(size: number): Uint8Array {
  if (size < 0x100) return Uint8Array.of(0xc4, size);
  if (size < 0x10000) return Uint8Array.of(0xc5, size >>> 8, size & 0xff);
  return Uint8Array.of(0xc6, size >>> 24, (size >>> 16) & 0xff, (size >>> 8) & 0xff, size & 0xff);
}

/** msgpack's header of an array (fixarray, array 16/32) of `n` items. @example arrayHeader(2) // [0x92] */
export function arrayHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x90 | n);
  if (n < 0x10000) return Uint8Array.of(0xdc, n >>> 8, n & 0xff);
  return Uint8Array.of(0xdd, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** msgpack's header of a map (fixmap, map 16/32) of `n` entries. @example mapHeader(1) // [0x81] */
export function mapHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x80 | n);
  if (n < 0x10000) return Uint8Array.of(0xde, n >>> 8, n & 0xff);
  return Uint8Array.of(0xdf, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** `{ entries: [` as msgpack: a map of one key, the string "entries". */
const ENTRIES_KEY = Uint8Array.of(0x81, 0xa7, ...new TextEncoder().encode('entries'));

/** Values at least this large are written from where they are; smaller pieces are gathered into blocks. */
const REFERENCED_BYTES = 1 << 16;
/** The blocks small pieces are gathered into. */
const BLOCK_BYTES = 1 << 20;

/**
 * The msgpack of `{ entries: [[key, bin], …] }` — byte for byte what `new Encoder().encode(…)` writes — as pieces:
 * values of 64 KiB or more are the stored bytes themselves, the keys, headers and smaller values are gathered into
 * blocks of 1 MiB, so a snapshot costs at most one copy of the small values (not the 2× buffer an encoder would grow
 * and keep, nor an object per entry).
 * @example
 * const pieces = snapshotChunks([['a', Uint8Array.of(1)]])
 * // concatenated: the bytes of new Encoder().encode({ entries: [['a', Uint8Array.of(1)]] })
 */
export function snapshotChunks(entries: ReadonlyArray<readonly [string, Uint8Array]>): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let block = new Uint8Array(BLOCK_BYTES);
  let used = 0;
  // a block mostly empty (a large value follows a few small pieces) goes out as a copy of its used part and is
  // filled again; a block mostly full goes out as it is, and a new one is made
  const close = () => {
    if (used === 0) return;
    if (used < BLOCK_BYTES / 2) chunks.push(block.slice(0, used));
    else {
      chunks.push(block.subarray(0, used));
      block = new Uint8Array(BLOCK_BYTES);
    }
    used = 0;
  };
  const push = (bytes: Uint8Array) => {
    if (bytes.byteLength >= REFERENCED_BYTES) {
      close();
      chunks.push(bytes);
      return;
    }
    if (used + bytes.byteLength > BLOCK_BYTES) close();
    block.set(bytes, used);
    used += bytes.byteLength;
  };
  push(ENTRIES_KEY);
  push(arrayHeader(entries.length));
  for (const [key, value] of entries) {
    // [key, value]: a fixarray of 2 (0x92), the key as msgpack's string, the value's bin header, the value
    push(ENTRY);
    push(keys.encode(key));
    push(binHeader(value.byteLength));
    push(value);
  }
  close();
  return chunks;
}

/** The fixarray of 2 that opens each entry. */
const ENTRY = Uint8Array.of(0x92);

/** An array or map whose header is at some offset of msgpack bytes: its kind, its items (pairs) and the header's length. */
export interface ContainerHead {
  readonly kind: 'array' | 'map';
  readonly size: number;
  readonly headerBytes: number;
}

const u16 = (b: Uint8Array, p: number) => (b[p] << 8) | b[p + 1];
const u32 = (b: Uint8Array, p: number) => ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;

/**
 * The array or map whose header starts at `pos` of `bytes` (msgpack), or undefined for any other value.
 * @example containerHead(Uint8Array.of(0x92, 1, 2), 0) // { kind: 'array', size: 2, headerBytes: 1 }
 */
export function containerHead(bytes: Uint8Array, pos: number): ContainerHead | undefined {
  const h = bytes[pos];
  if (h >= 0x90 && h <= 0x9f) return { kind: 'array', size: h & 0x0f, headerBytes: 1 };
  if (h >= 0x80 && h <= 0x8f) return { kind: 'map', size: h & 0x0f, headerBytes: 1 };
  if (h === 0xdc) return { kind: 'array', size: u16(bytes, pos + 1), headerBytes: 3 };
  if (h === 0xdd) return { kind: 'array', size: u32(bytes, pos + 1), headerBytes: 5 };
  if (h === 0xde) return { kind: 'map', size: u16(bytes, pos + 1), headerBytes: 3 };
  if (h === 0xdf) return { kind: 'map', size: u32(bytes, pos + 1), headerBytes: 5 };
  return undefined;
}

/**
 * The offset just past the msgpack value that starts at `pos` of `bytes`, read from the headers only (the msgpack
 * specification's formats, https://github.com/msgpack/msgpack/blob/master/spec.md). Throws a RangeError when the
 * bytes end first or hold a byte that starts no format (0xc1).
 * @example valueEnd(Uint8Array.of(0x92, 1, 0xa1, 0x61), 0) // 4
 */
export function valueEnd(bytes: Uint8Array, pos: number): number {
  let p = pos;
  // values still to skip: a container adds its items to it
  let left = 1;
  while (left > 0) {
    if (p >= bytes.length) throw new RangeError('msgpack value cut short');
    const h = bytes[p];
    left--;
    const head = containerHead(bytes, p);
    if (head) {
      left += head.kind === 'array' ? head.size : 2 * head.size;
      p += head.headerBytes;
    } else p += scalarBytes(bytes, p, h);
  }
  if (p > bytes.length) throw new RangeError('msgpack value cut short');
  return p;
}

/** The bytes of the scalar (not array nor map) whose head byte `h` is at `p`, header and payload. */
function scalarBytes(b: Uint8Array, p: number, h: number): number {
  if (h <= 0x7f || h >= 0xe0 || h === 0xc0 || h === 0xc2 || h === 0xc3) return 1; // fixint, nil, false, true
  if (h >= 0xa0 && h <= 0xbf) return 1 + (h & 0x1f); // fixstr
  switch (h) {
    case 0xc4: // bin 8
    case 0xd9: // str 8
      return 2 + b[p + 1];
    case 0xc5: // bin 16
    case 0xda: // str 16
      return 3 + u16(b, p + 1);
    case 0xc6: // bin 32
    case 0xdb: // str 32
      return 5 + u32(b, p + 1);
    case 0xc7: // ext 8
      return 3 + b[p + 1];
    case 0xc8: // ext 16
      return 4 + u16(b, p + 1);
    case 0xc9: // ext 32
      return 6 + u32(b, p + 1);
    case 0xca: // float 32
      return 5;
    case 0xcb: // float 64
      return 9;
    case 0xcc: // uint 8 … int 64
    case 0xd0:
      return 2;
    case 0xcd:
    case 0xd1:
      return 3;
    case 0xce:
    case 0xd2:
      return 5;
    case 0xcf:
    case 0xd3:
      return 9;
    case 0xd4: // fixext 1, 2, 4, 8, 16: a type byte and the data
      return 3;
    case 0xd5:
      return 4;
    case 0xd6:
      return 6;
    case 0xd7:
      return 10;
    case 0xd8:
      return 18;
    default:
      throw new RangeError(`no msgpack format starts with 0x${h.toString(16)}`);
  }
}
