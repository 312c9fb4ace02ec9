/**
 * Reading the entries of a zip file (EPUB and DOCX are zips) without trusting it: the central directory is read and
 * checked whole before anything is inflated — entry count, every declared size against the limit, each entry's
 * compression ratio, entries that overlap (the "non-recursive" zip bomb makes many entries share one compressed
 * stream), every local header inside the file — and an entry is inflated in chunks of ≤ 32 KiB through one fixed
 * buffer (src/util/inflate.ts) into a buffer of the size it declares, stopping the moment it would grow
 * past it; its CRC-32 is checked at the end. Nothing else is allocated while it inflates, however large the entry.
 */

import { crc32 } from '../util/crc32.js';
import type { ExtractionBudget } from './budget.js';
import { InflateError, StreamInflater } from '../util/inflate.js';
import { invalid, type Limits, MAX_COMPRESSION_RATIO, MAX_ZIP_ENTRIES, RATIO_FLOOR_BYTES, tooLarge } from './limits.js';
import type { DocumentFormat } from './types.js';

/** One entry of the central directory, checked. */
export interface ZipEntry {
  readonly name: string;
  /** 0 (stored) or 8 (deflated). */
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  /** The uncompressed size the central directory declares. */
  readonly size: number;
  /** Where the entry's compressed bytes start. */
  readonly dataOffset: number;
}

/**
 * An opened zip: its entries by name, each read (inflated and checked) on request.
 *
 * @example
 * const zip = await openZip(bytes, new ExtractionBudget('epub', resolveLimits(undefined)))
 * const container = zip.readText('META-INF/container.xml')
 */
export interface ZipArchive {
  readonly entries: ReadonlyMap<string, ZipEntry>;
  /** The entry named `name`, or — where no entry has that exact name — the one that differs only in case. */
  find(name: string): ZipEntry | undefined;
  /**
   * The bytes of the entry `name` (see {@link find}); `undefined` when there is none. Each read is spent from the
   * document's budget (its declared size, before anything is inflated), however often the same entry is read.
   */
  read(name: string): Uint8Array | undefined;
  /** The text of the entry `name`, decoded as XML and XHTML files are (a BOM picks UTF-16, else UTF-8). */
  readText(name: string): string | undefined;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/**
 * Compressed bytes pushed to the inflater at a time: the abort signal is checked between slices, and the output, in
 * chunks of ≤ 32 KiB, is checked against the declared size chunk by chunk — an entry that lies about its size is
 * caught after inflating at most one chunk more than it declares.
 */
const SLICE = 16 * 1024;

/**
 * Opens `bytes` as a zip: reads and checks its central directory (INVALID_INPUT when it is not a zip or is truncated
 * or malformed, PAYLOAD_TOO_LARGE past the limits).
 * @example (await openZip(bytes, budget)).entries.has('word/document.xml')
 */
export async function openZip(bytes: Uint8Array, budget: ExtractionBudget): Promise<ZipArchive> {
  const { format, limits } = budget;
  const entries = readCentralDirectory(bytes, format, limits);
  const lower = new Map<string, ZipEntry>();
  for (const [name, e] of entries) if (!lower.has(name.toLowerCase())) lower.set(name.toLowerCase(), e);
  const find = (name: string) => entries.get(name) ?? lower.get(name.toLowerCase());
  const read = (name: string) => {
    const entry = find(name);
    if (entry === undefined) return undefined;
    budget.check();
    budget.inflate(entry.size);
    return inflateEntry(bytes, entry, format, limits);
  };
  return {
    entries,
    find,
    read,
    readText: (name) => {
      const data = read(name);
      return data === undefined ? undefined : decodeText(data);
    },
  };
}

/**
 * Text of an XML or XHTML file: a byte-order mark picks UTF-16 (little or big endian), anything else is read as
 * UTF-8 (EPUB and OOXML allow only these), with U+FFFD for a malformed sequence rather than a failure.
 * @example decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])) // 'A'
 */
export function decodeText(data: Uint8Array): string {
  if (data.length >= 2 && data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data);
  if (data.length >= 2 && data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data);
  return new TextDecoder('utf-8').decode(data);
}

function u16(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8);
}

function u32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}

/** A 64-bit little-endian size or offset, or `Infinity` beyond what a number holds exactly (no file is that big). */
function u64(b: Uint8Array, at: number): number {
  const high = u32(b, at + 4);
  return high > 0x1fffff ? Number.POSITIVE_INFINITY : high * 0x100000000 + u32(b, at);
}

/** Where the end-of-central-directory record starts: searched back over the longest comment, −1 when absent. */
function findEndRecord(bytes: Uint8Array): number {
  const last = bytes.length - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (bytes[at] === 0x50 && u32(bytes, at) === EOCD) return at;
  }
  return -1;
}

/** The central directory's entry count, size and offset, from the end record (and its zip64 form where needed). */
function directoryBounds(
  bytes: Uint8Array,
  format: DocumentFormat,
): { count: number; size: number; offset: number } | undefined {
  const end = findEndRecord(bytes);
  if (end < 0) return undefined;
  let count = u16(bytes, end + 10);
  let size = u32(bytes, end + 12);
  let offset = u32(bytes, end + 16);
  if (u16(bytes, end + 4) !== 0 || u16(bytes, end + 6) !== 0) {
    throw invalid(format, 'the zip spans several disks');
  }
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locator = end - 20;
    if (locator < 0 || u32(bytes, locator) !== ZIP64_LOCATOR) {
      throw invalid(format, 'the zip64 end of central directory is missing (a truncated zip?)');
    }
    const at = u64(bytes, locator + 8);
    if (!(at + 56 <= locator) || u32(bytes, at) !== ZIP64_EOCD) {
      throw invalid(format, 'the zip64 end of central directory is out of place (a truncated zip?)');
    }
    count = u64(bytes, at + 32);
    size = u64(bytes, at + 40);
    offset = u64(bytes, at + 48);
  }
  return { count, size, offset };
}

/** The zip64 extended information of a central directory entry: the fields its 32-bit forms left at 0xFFFFFFFF. */
function zip64Sizes(
  bytes: Uint8Array,
  extra: number,
  extraEnd: number,
  sizes: { size: number; compressedSize: number; localOffset: number },
): void {
  for (let at = extra; at + 4 <= extraEnd; ) {
    const id = u16(bytes, at);
    const len = u16(bytes, at + 2);
    if (id === 0x0001) {
      let p = at + 4;
      const end = Math.min(extraEnd, p + len);
      if (sizes.size === 0xffffffff && p + 8 <= end) (sizes.size = u64(bytes, p)), (p += 8);
      if (sizes.compressedSize === 0xffffffff && p + 8 <= end) (sizes.compressedSize = u64(bytes, p)), (p += 8);
      if (sizes.localOffset === 0xffffffff && p + 8 <= end) sizes.localOffset = u64(bytes, p);
      return;
    }
    at += 4 + len;
  }
}

/** Reads and checks the central directory and every local header it points to; nothing is inflated. */
function readCentralDirectory(bytes: Uint8Array, format: DocumentFormat, limits: Limits): Map<string, ZipEntry> {
  const startsLikeZip = bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b;
  const bounds = directoryBounds(bytes, format);
  if (bounds === undefined) {
    throw invalid(
      format,
      startsLikeZip
        ? 'the zip is truncated (its end of central directory is missing)'
        : 'it is not a zip file (no zip signature)',
    );
  }
  const { count, size, offset } = bounds;
  if (count > MAX_ZIP_ENTRIES) {
    throw tooLarge(format, `the zip lists ${count} entries, over the limit of ${MAX_ZIP_ENTRIES} (a zip bomb?)`);
  }
  if (!(offset + size <= bytes.length)) {
    throw invalid(format, 'the zip is truncated (its central directory runs past the end of the file)');
  }
  const decoder = new TextDecoder('utf-8');
  const entries = new Map<string, ZipEntry>();
  const spans: Array<{ start: number; end: number; name: string }> = [];
  let declared = 0;
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > offset + size || u32(bytes, at) !== CENTRAL) {
      throw invalid(format, `the zip's central directory is corrupt at entry ${i + 1} of ${count}`);
    }
    const flags = u16(bytes, at + 8);
    const method = u16(bytes, at + 10);
    const crc = u32(bytes, at + 16);
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const commentLength = u16(bytes, at + 32);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd + extraLength + commentLength > offset + size) {
      throw invalid(format, `the zip's central directory is corrupt at entry ${i + 1} of ${count}`);
    }
    const name = decoder.decode(bytes.subarray(at + 46, nameEnd));
    const sizes = { size: u32(bytes, at + 24), compressedSize: u32(bytes, at + 20), localOffset: u32(bytes, at + 42) };
    zip64Sizes(bytes, nameEnd, nameEnd + extraLength, sizes);
    at = nameEnd + extraLength + commentLength;
    if (name.endsWith('/') && sizes.size === 0) continue; // a folder
    const entry = checkEntry(bytes, format, { name, flags, method, crc, ...sizes });
    declared += entry.size;
    if (declared > limits.maxUncompressedBytes) {
      throw tooLarge(
        format,
        `its entries declare more than ${limits.maxUncompressedBytes} bytes uncompressed, the limit (a zip bomb?)`,
      );
    }
    if (!entries.has(name)) entries.set(name, entry);
    spans.push({ start: sizes.localOffset, end: entry.dataOffset + entry.compressedSize, name });
  }
  // entries whose bytes overlap share compressed data: the zip bomb that needs no nesting
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i].start < spans[i - 1].end) {
      throw invalid(format, `the zip's entries ${spans[i - 1].name} and ${spans[i].name} overlap (a zip bomb?)`);
    }
  }
  return entries;
}

/** One entry's declared sizes, method and local header, checked. */
function checkEntry(
  bytes: Uint8Array,
  format: DocumentFormat,
  e: {
    name: string;
    flags: number;
    method: number;
    crc: number;
    size: number;
    compressedSize: number;
    localOffset: number;
  },
): ZipEntry {
  const { name, flags, method, size, compressedSize, localOffset } = e;
  if (flags & 1) throw invalid(format, `the zip entry ${name} is encrypted (password-protected)`);
  if (method !== 0 && method !== 8) {
    throw invalid(format, `the zip entry ${name} uses compression method ${method} (only stored and deflate are read)`);
  }
  if (method === 0 && size !== compressedSize) {
    throw invalid(format, `the zip entry ${name} is stored but declares two different sizes`);
  }
  if (size > RATIO_FLOOR_BYTES && size > compressedSize * MAX_COMPRESSION_RATIO) {
    throw tooLarge(
      format,
      `the zip entry ${name} declares ${size} bytes from ${compressedSize} compressed, a ratio over ` +
        `${MAX_COMPRESSION_RATIO}:1 (a zip bomb?)`,
    );
  }
  if (!(localOffset + 30 <= bytes.length) || u32(bytes, localOffset) !== LOCAL) {
    throw invalid(format, `the zip entry ${name} has no local header where the directory says (a truncated zip?)`);
  }
  const dataOffset = localOffset + 30 + u16(bytes, localOffset + 26) + u16(bytes, localOffset + 28);
  if (!(dataOffset + compressedSize <= bytes.length)) {
    throw invalid(format, `the zip entry ${name} runs past the end of the file (a truncated zip?)`);
  }
  return { name, method, crc: e.crc, compressedSize, size, dataOffset };
}

/** Thrown inside the inflater's callback to stop it where an entry would outgrow its declared size. */
const OUTGROWN = Symbol('outgrown');

/** The entry's bytes: inflated in chunks into a buffer of its declared size, never past it; CRC-32 checked. */
function inflateEntry(bytes: Uint8Array, entry: ZipEntry, format: DocumentFormat, limits: Limits): Uint8Array {
  const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  let out: Uint8Array;
  if (entry.method === 0) out = data;
  else {
    out = new Uint8Array(entry.size);
    let filled = 0;
    const inflater = new StreamInflater();
    const take = (chunk: Uint8Array) => {
      if (filled + chunk.length > out.length) throw OUTGROWN;
      out.set(chunk, filled);
      filled += chunk.length;
    };
    try {
      for (let i = 0; !inflater.ended; ) {
        if (limits.signal?.aborted) throw limits.signal.reason ?? new Error('aborted');
        const end = Math.min(data.length, i + SLICE);
        inflater.push(data.subarray(i, end), end === data.length, take);
        if (end === data.length) break;
        i = end;
      }
      if (!inflater.ended) throw new InflateError('the data is cut short');
    } catch (e) {
      if (e === OUTGROWN) {
        throw invalid(
          format,
          `the zip entry ${entry.name} inflates past the ${entry.size} bytes it declares (a zip bomb?)`,
        );
      }
      if (limits.signal?.aborted) throw e;
      throw invalid(
        format,
        `the zip entry ${entry.name} is corrupt (${e instanceof Error ? e.message : 'inflate failed'})`,
        e,
      );
    }
    if (filled !== entry.size) {
      throw invalid(
        format,
        `the zip entry ${entry.name} inflates to ${filled} bytes, not the ${entry.size} it declares`,
      );
    }
  }
  if (crc32(out) !== entry.crc)
    throw invalid(format, `the zip entry ${entry.name} is corrupt (its CRC-32 does not match)`);
  return out;
}
