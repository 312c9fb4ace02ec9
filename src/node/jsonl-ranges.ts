/**
 * Plain (uncompressed) JSON Lines read in byte ranges, so that several threads can read and parse
 * one file at once (`buildDatasetFile` with threads). A range owns the lines that START in it: the
 * first byte of the file, or a byte after a \n, inside [start, end). Its last line may run past
 * `end` (it is read to its \n); a range that starts inside a line skips to the next \n. So every
 * line belongs to exactly one range, whatever the range size, and a thread needs nothing from the
 * others to parse its lines.
 *
 * Line numbers (for ids `PATH:LINE` and for errors) need the lines of every range before: a range
 * reports its lines 1-based from its own first line and how many lines it owns (blank ones too);
 * the caller, who takes the ranges in order, adds the counts up.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { jsonlLineError, parseJsonlLine, tooLong, type RecordFields } from './read-documents.js';

/** A byte range of a JSON Lines file. */
export interface JsonlRange {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  /** The file's size when the build checked it (reading stops there). */
  readonly size: number;
}

/** The documents of one range, in order. */
export interface RangeDocuments {
  readonly texts: string[];
  /** The ids from the id field, or null when there is none (ids are then `PATH:LINE`, made by the caller). */
  readonly ids: string[] | null;
  /** Per document, its line counted from the range's first line (1-based). */
  readonly lines: Uint32Array;
  /** Lines that start in the range, blank ones included. */
  readonly lineCount: number;
}

/** A line that is not a document: the reason, and the line counted from the range's first line (1-based). */
export class RangeLineError extends Error {
  constructor(
    readonly line: number,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
  }
}

/**
 * The ranges of a file of `size` bytes, `bytes` each (the last shorter).
 * @example jsonlRanges('a.jsonl', 3_000_000, 1 << 20).length // 3
 */
export function jsonlRanges(path: string, size: number, bytes: number): JsonlRange[] {
  const out: JsonlRange[] = [];
  for (let start = 0; start < size; start += bytes) out.push({ path, start, end: Math.min(size, start + bytes), size });
  return out;
}

/** Bytes read at a time past the range's end, for its last line. */
const TAIL_READ = 1 << 16;

/**
 * Read and parse the lines of `range` (sync: a worker thread's call). An I/O error is thrown as
 * it comes (with its `code`); a line that is not a document as a {@link RangeLineError}.
 * @example
 * const fields = { textField: 'text', idField: undefined, maxBytes: 1e6 }
 * const { texts, lineCount } = readJsonlRange({ path, start: 0, end: size, size }, fields)
 */
export function readJsonlRange(range: JsonlRange, ctx: RecordFields): RangeDocuments {
  const { path, start, end, size } = range;
  const fd = openSync(path, 'r');
  try {
    // From the byte before the range (is it a \n?) to its end.
    const from = start === 0 ? 0 : start - 1;
    // a Buffer: its indexOf is a memchr, several times faster than Uint8Array's
    let buf = Buffer.allocUnsafe(end - from);
    let have = readFully(fd, buf, 0, buf.length, from);
    const limit = Math.min(end, size) - from; // a line starting at or after this offset is not ours
    const texts: string[] = [];
    const ids: string[] | null = ctx.idField === undefined ? null : [];
    const lines: number[] = [];
    let line = 0;
    let pos = 0;
    if (start > 0) {
      const nl = buf.subarray(0, have).indexOf(10);
      pos = nl === -1 ? have : nl + 1;
    }
    while (pos < limit && pos < have) {
      let nl = buf.indexOf(10, pos);
      // The last line runs past what was read: read on to its \n or the end of the file.
      while ((nl === -1 || nl >= have) && from + have < size) {
        if (have - pos > ctx.maxBytes) break;
        if (have + TAIL_READ > buf.length) {
          const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, have + TAIL_READ));
          grown.set(buf.subarray(0, have));
          buf = grown;
        }
        const n = readFully(fd, buf, have, Math.min(TAIL_READ, size - from - have), from + have);
        if (n === 0) break;
        const at = buf.subarray(have, have + n).indexOf(10);
        have += n;
        if (at !== -1) nl = have - n + at;
      }
      const stop = nl === -1 || nl >= have ? have : nl;
      line++;
      if (stop - pos > ctx.maxBytes) throw new RangeLineError(line, tooLong(ctx.maxBytes));
      let doc: ReturnType<typeof parseJsonlLine>;
      try {
        doc = parseJsonlLine(buf.subarray(pos, stop), ctx);
      } catch (e) {
        const why = jsonlLineError(e);
        if (why) throw new RangeLineError(line, why.detail, { cause: why.cause });
        throw e;
      }
      if (doc) {
        texts.push(doc.text);
        ids?.push(doc.id!);
        lines.push(line);
      }
      pos = stop + 1;
    }
    return { texts, ids, lines: Uint32Array.from(lines), lineCount: line };
  } finally {
    closeSync(fd);
  }
}

/** Read `length` bytes at `position` into `buf` at `offset`, or fewer at the end of the file. */
function readFully(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
