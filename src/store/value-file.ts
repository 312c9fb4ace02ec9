/**
 * The file store's values kept on disk, not in memory: a {@link DiskValue} says where a value's encoded bytes lie in
 * one of the store's files (its log or its snapshot, {@link ValueFile}) and their CRC-32; {@link readDiskValues}
 * reads them back with positional reads. This is the value log of Bitcask (Sheehy and Smith, "Bitcask: A Log-Structured
 * Hash Table for Fast Key/Value Data", Basho, 2010): the index keeps each key and where its value is, the bytes stay
 * in the files the store writes anyway, so memory grows with the keys and the small values only.
 *
 * A file replaced by a compaction stays open while a read that found a value in it is in flight: reads pin the
 * files they are about to read (synchronously, in the same step as the look-up that found the values), and a retired
 * file is closed when its last pin is released. The old file's bytes stay readable through its open handle after
 * the rename that replaced it (POSIX keeps an unlinked file's data while a descriptor is open; Windows renames over
 * an open file only when it was opened with FILE_SHARE_DELETE, which libuv does).
 */
import type { FileHandle } from 'node:fs/promises';
import { TrainprintError } from '../errors.js';
import { crc32 } from '../util/crc32.js';
import type { ValueRef } from './memory.js';

/**
 * One of the store's files that values are read from, open for reading, with the reads in flight counted.
 * @example
 * const file = new ValueFile('snapshot', await open(path, 'r'))
 * const bytes = await readDiskValues([new DiskValue(file, 20, 5, crc)])
 */
export class ValueFile {
  /** The file's name in the store's directory, for errors. */
  readonly name: string;
  #handle: FileHandle | undefined;
  #pins = 0;
  #retired: Promise<void> | undefined;
  #closeNow: (() => void) | undefined;

  constructor(name: string, handle?: FileHandle) {
    this.name = name;
    this.#handle = handle;
  }

  /** Gives a file whose values were located before it was opened (recovery) its handle. */
  attach(handle: FileHandle): void {
    this.#handle = handle;
  }

  /** The handle (the log's is also where the store appends). */
  get handle(): FileHandle {
    if (!this.#handle) throw new Error(`${this.name} is not open`);
    return this.#handle;
  }

  /** Keeps the file open until the matching {@link unpin}. */
  pin(): void {
    if (this.#retired && this.#pins === 0) throw new Error(`${this.name}: a value was read after its file was closed`);
    this.#pins++;
  }

  unpin(): void {
    if (--this.#pins === 0) this.#closeNow?.();
  }

  /**
   * Closes the file once no read holds it (at once if none does); later calls return the same promise. A close that
   * fails is reported through it.
   */
  retire(): Promise<void> {
    this.#retired ??= new Promise<void>((resolve) => {
      this.#closeNow = resolve;
      if (this.#pins === 0) resolve();
    }).then(() => this.#handle?.close());
    return this.#retired;
  }

  /**
   * `length` bytes from `offset` (several positional reads when the system returns fewer); STORE_CORRUPT when the
   * file ends first. The buffer is not zero-filled first (about 55 µs for 200 KB): every byte of it is written by the
   * reads before it is returned, and a read that ends short throws it away, so no byte it held before is ever seen.
   */
  async read(offset: number, length: number): Promise<Uint8Array> {
    // allocUnsafeSlow: not a slice of Node's shared pool, so the bytes returned hold no one else's alive
    const unfilled = Buffer.allocUnsafeSlow(length);
    const out = new Uint8Array(unfilled.buffer, unfilled.byteOffset, length); // not a Buffer: Buffer#slice is a view
    for (let done = 0; done < length; ) {
      const { bytesRead } = await this.handle.read(out, done, length - done, offset + done);
      if (bytesRead === 0) {
        const found = `found ${done} before the end of the file`;
        throw new TrainprintError(
          'STORE_CORRUPT',
          `${this.name}: expected ${length} bytes at byte ${offset}, ${found}`,
        );
      }
      done += bytesRead;
    }
    return out;
  }
}

/**
 * Where a value's encoded bytes lie: `length` bytes at `offset` of `file`, whose CRC-32 is `crc` (checked on every
 * read: the bytes were checked once, by the record's or the snapshot's CRC when written or replayed, and a value
 * read later must not come back silently changed, a flipped digit in a stored text).
 * @example new DiskValue(logFile, 4_132, 52_000, crc32(bytes))
 */
export class DiskValue implements ValueRef {
  readonly file: ValueFile;
  readonly offset: number;
  readonly length: number;
  readonly crc: number;

  constructor(file: ValueFile, offset: number, length: number, crc: number) {
    this.file = file;
    this.offset = offset;
    this.length = length;
    this.crc = crc;
  }

  /** STORE_CORRUPT unless `bytes` (this value, as read) match the CRC-32 kept. */
  check(bytes: Uint8Array): Uint8Array {
    if (crc32(bytes) !== this.crc) throw this.damaged();
    return bytes;
  }

  /** The STORE_CORRUPT error for this value's bytes not matching its CRC-32. */
  damaged(): TrainprintError {
    const what = `the value of ${this.length} bytes at byte ${this.offset}`;
    return new TrainprintError('STORE_CORRUPT', `${this.file.name}: ${what} does not match its CRC-32`);
  }
}

/** Values read in one read when they follow each other in a file with at most this many bytes between. */
const JOIN_GAP_BYTES = 4096;
/** The largest read that joins several values. */
const JOIN_READ_BYTES = 1 << 20;

/**
 * The bytes of `values`, in order, each checked against its CRC-32. The files are pinned before this returns (so a
 * caller calls it in the same step as the look-up that found the values); values that follow each other in a file
 * (a scan after a compaction: the snapshot is in key order) are read together, one read for up to a MiB.
 * @example const [bytes] = await readDiskValues([value])
 */
export function readDiskValues(values: readonly DiskValue[]): Promise<Uint8Array[]> {
  for (const v of values) v.file.pin();
  return readPinned(values).finally(() => {
    for (const v of values) v.file.unpin();
  });
}

async function readPinned(values: readonly DiskValue[]): Promise<Uint8Array[]> {
  const out = new Array<Uint8Array>(values.length);
  for (let i = 0; i < values.length; ) {
    const first = values[i];
    let end = first.offset + first.length;
    let j = i + 1;
    for (; j < values.length; j++) {
      const v = values[j];
      const joins = v.file === first.file && v.offset >= end && v.offset - end <= JOIN_GAP_BYTES;
      if (!joins || v.offset + v.length - first.offset > JOIN_READ_BYTES) break;
      end = v.offset + v.length;
    }
    const bytes = await first.file.read(first.offset, end - first.offset);
    for (let k = i; k < j; k++) {
      const at = values[k].offset - first.offset;
      out[k] = values[k].check(j - i === 1 ? bytes : bytes.subarray(at, at + values[k].length));
    }
    i = j;
  }
  return out;
}
