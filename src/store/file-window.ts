/**
 * One of the file store's files read in bounded windows while the store opens: recovery walks the snapshot and the
 * log from start to end, and holding each whole file for that made an open of a store with 186 MB of values cost
 * 266 MB of RSS kept afterwards (the allocator keeps the pages). A window of {@link WINDOW_BYTES} is read at a time;
 * a range that crosses its end is made whole by moving the bytes already read to the front and reading the rest, and
 * a range longer than a window (a record holding a value of megabytes) gets a buffer of its own for as long as it is
 * the range in use. So what an open holds at once is one window, or the longest record, never the file.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from '../util/crc32.js';
import { errno } from './fsutil.js';

/** The bytes read at a time: a record of a stored analysis (about 2 MB) fits in one. */
export const WINDOW_BYTES = 4 << 20;

/**
 * A file open for reading, of a size known when it was opened (the store's lock keeps it from changing), with the
 * window last read.
 * @example
 * const file = await FileWindow.open('./data/store.log')
 * const at = await file.load(4096, 12) // file.bytes[at] is the byte at offset 4096
 * await file.close()
 */
export class FileWindow {
  /** The file's length in bytes when it was opened. */
  readonly size: number;
  readonly #handle: FileHandle;
  readonly #windowBytes: number;
  #buffer: Uint8Array = new Uint8Array(0);
  #view: DataView = new DataView(this.#buffer.buffer);
  /** The file offset of `#buffer[0]`, and of the end of the bytes read into it. */
  #from = 0;
  #to = 0;

  private constructor(handle: FileHandle, size: number, windowBytes: number) {
    this.#handle = handle;
    this.size = size;
    this.#windowBytes = windowBytes;
  }

  /** The file at `path` open for reading, or undefined when there is none. */
  static async open(path: string, windowBytes = WINDOW_BYTES): Promise<FileWindow | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (errno(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return new FileWindow(handle, (await handle.stat()).size, windowBytes);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The longest range read into the window's own buffer; a longer one gets a buffer of its own. */
  get windowBytes(): number {
    return this.#windowBytes;
  }

  /**
   * The index in {@link bytes} of the `length` bytes at `offset` when they are there already, else -1 (then
   * {@link load} them): the common case without a promise, for walks of many small records.
   */
  at(offset: number, length: number): number {
    return offset >= this.#from && offset + length <= this.#to ? offset - this.#from : -1;
  }

  /** The bytes of the window: valid, from the index {@link load} returned, until the next call to it. */
  get bytes(): Uint8Array {
    return this.#buffer;
  }

  /** {@link bytes} as a DataView, for reading the formats' little-endian integers. */
  get view(): DataView {
    return this.#view;
  }

  /**
   * Makes the `length` bytes at `offset` (which must lie within the file) whole in {@link bytes}; resolves to the
   * index of the first of them there.
   */
  async load(offset: number, length: number): Promise<number> {
    if (offset < 0 || length < 0 || offset + length > this.size) {
      throw new RangeError(`bytes ${offset}–${offset + length} lie outside the file (${this.size} bytes)`);
    }
    if (offset >= this.#from && offset + length <= this.#to) return offset - this.#from;
    // a window, or the range itself when it is longer (a record holding a value of megabytes)
    const capacity = Math.max(length, Math.min(this.#windowBytes, this.size - offset));
    const old = this.#buffer;
    const kept = offset >= this.#from && offset < this.#to ? this.#to - offset : 0;
    // a long range's own buffer is dropped as soon as a range fits in a window again
    if (old.length < capacity || (old.length > this.#windowBytes && capacity <= this.#windowBytes)) {
      this.#buffer = new Uint8Array(capacity);
      this.#view = new DataView(this.#buffer.buffer);
    }
    // the bytes already read from `offset` on move to the front rather than being read again
    const moved = Math.min(kept, capacity);
    const at = offset - this.#from;
    if (this.#buffer === old) this.#buffer.copyWithin(0, at, at + moved);
    else if (moved > 0) this.#buffer.set(old.subarray(at, at + moved));
    this.#from = offset;
    this.#to = offset + moved;
    while (this.#to - offset < capacity) {
      const done = this.#to - offset;
      const { bytesRead } = await this.#handle.read(this.#buffer, done, capacity - done, this.#to);
      if (bytesRead === 0) break;
      this.#to += bytesRead;
    }
    if (this.#to < offset + length) {
      // the size was read at open and the store's lock keeps others out: the file shrank under the open
      throw new Error(`the file ended at byte ${this.#to} while bytes up to ${offset + length} were being read`);
    }
    return 0;
  }

  /** The CRC-32 of the `length` bytes at `offset`, continuing from `crc`, read a window at a time. */
  async crc(offset: number, length: number, crc = 0): Promise<number> {
    let value = crc;
    for (let done = 0; done < length; ) {
      const piece = Math.min(this.#windowBytes, length - done);
      const at = await this.load(offset + done, piece);
      value = crc32(this.#buffer.subarray(at, at + piece), value);
      done += piece;
    }
    return value;
  }

  /** Closes the file (its window is dropped with this object). */
  close(): Promise<void> {
    return this.#handle.close();
  }
}
