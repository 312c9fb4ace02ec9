/**
 * How the command line reads a file, without the library: the input file's bytes or text (a file that cannot be read
 * is INVALID_INPUT), and a work's file by the rule the HTTP API applies to an upload (src/http/multipart.ts) — its
 * content type from `--type` or its name's extension (a name that says no format taken is refused, not read as text),
 * its size checked with `stat` before a byte is read (a 200 MB file is refused at once, not read and then refused), a
 * text file read as strict UTF-8. The names come from the fingerprint entry, which the build keeps external
 * (tsup.config.ts) and which is a seventh of the library's size: `trainprint fingerprint` of a text file runs on it
 * alone. Extracting an EPUB, PDF or DOCX file's text needs the library (files.ts).
 */
import { isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  ANALYZE_MAX_BYTES,
  ANALYZE_MAX_FILE_BYTES,
  contentTypeOfFile,
  FILE_CONTENT_TYPES,
  type FileContentType,
  TEXT_FILE_TYPES,
  TrainprintError,
  untypedFileReason,
} from '../fingerprint-entry.js';
import { UsageError } from './args.js';

/**
 * The input file of a command: its bytes, or its text with `'utf8'`. A file that cannot be read is bad input
 * (INVALID_INPUT, exit code 1) named by its path and the reason (`no such file`, or the system's code).
 * @example const content = await readInputFile('README.md', 'utf8')
 */
export function readInputFile(file: string): Promise<Buffer>;
export function readInputFile(file: string, encoding: 'utf8'): Promise<string>;
export async function readInputFile(file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  try {
    return encoding === undefined ? await readFile(file) : await readFile(file, encoding);
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: ${code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : String(e)}`,
    );
  }
}

/** The content type of `file`: `--type` when given (checked), else by its name's extension; INVALID_INPUT for neither. */
export function typeOfFile(file: string, given?: string): FileContentType {
  if (given !== undefined) {
    if (!(FILE_CONTENT_TYPES as readonly string[]).includes(given))
      throw new UsageError(`--type must be one of ${FILE_CONTENT_TYPES.join(', ')}`);
    return given as FileContentType;
  }
  const type = contentTypeOfFile(file);
  // a missing file is said missing first: naming its type would send the user to --type, then to this
  if (type === null && !existsSync(file)) throw new TrainprintError('INVALID_INPUT', `${file}: no such file`);
  if (type === null)
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: content_type ${untypedFileReason(basename(file))}; give --type if it is one of them`,
    );
  return type;
}

const MIB = 1024 * 1024;
const bytesText = (n: number) => `${n.toLocaleString('en-US')} bytes`;
const mibText = (n: number) => `${Math.round((n / MIB) * 100) / 100} MiB`;

/**
 * The most bytes a file of `type` may have, and the words a refusal names it with: a text file the 10 MiB of UTF-8
 * analyze takes (and a byte order mark), an EPUB, PDF or DOCX file the library's `maxFileBytes` default.
 * @example fileLimit('epub').bytes // 67108864
 */
export function fileLimit(type: FileContentType): { bytes: number; says: string } {
  if (TEXT_FILE_TYPES.has(type))
    return {
      bytes: ANALYZE_MAX_BYTES + 3,
      says:
        `the ${mibText(ANALYZE_MAX_BYTES)} (${bytesText(ANALYZE_MAX_BYTES)}) of UTF-8 text analyze takes ` +
        '(every plan of the HTTP API alike)',
    };
  return {
    bytes: ANALYZE_MAX_FILE_BYTES,
    says:
      `the ${mibText(ANALYZE_MAX_FILE_BYTES)} (${bytesText(ANALYZE_MAX_FILE_BYTES)}) the command line takes for an ` +
      "EPUB, PDF or DOCX file: it has no plan, and takes the library's maxFileBytes default (over HTTP the plan's " +
      'fileBytes: Free 8 MiB, Pro 32 MiB, Scale and Enterprise 64 MiB)',
  };
}

/**
 * `file`'s bytes, its size checked first with `stat`: PAYLOAD_TOO_LARGE naming the size, the limit and whose limit it
 * is, before anything is read; INVALID_INPUT for what is not a file.
 * @example const bytes = await readLimitedFile('book.epub', fileLimit('epub'))
 */
export async function readLimitedFile(file: string, limit: { bytes: number; says: string }): Promise<Uint8Array> {
  return new Uint8Array(await readLimitedBuffer(file, limit)); // a plain Uint8Array of its own, as callers pass on
}

/** {@link readLimitedFile}'s bytes as the Buffer read, not copied (a 10 MB copy is 2,400 fresh pages). */
async function readLimitedBuffer(file: string, limit: { bytes: number; says: string }): Promise<Buffer> {
  let size: number;
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new TrainprintError('INVALID_INPUT', `${file}: not a file`);
    size = s.size;
  } catch (e) {
    if (e instanceof TrainprintError) throw e;
    // the reading names the reason as every command does (no such file, EACCES…)
    return readInputFile(file);
  }
  if (size > limit.bytes)
    throw new TrainprintError('PAYLOAD_TOO_LARGE', `${file} is ${bytesText(size)}, over ${limit.says}`);
  return readInputFile(file);
}

const notUtf8 = (file: string, type: FileContentType) =>
  new TrainprintError('INVALID_INPUT', `${file}: is not UTF-8 text (content_type "${type}")`);

/**
 * The text of a file of a text type (`text`, `markdown`, `html`), size checked first: strict UTF-8, a byte order mark
 * dropped; other bytes are INVALID_INPUT, as HTTP's 422.
 * @example const text = await readTextFile('chapter.md', 'markdown')
 */
export async function readTextFile(file: string, type: FileContentType): Promise<string> {
  const bytes = await readLimitedBuffer(file, fileLimit(type)); // decoded at once: no copy needed
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw notUtf8(file, type);
  }
}

/**
 * The UTF-8 of a file of a text type, read as {@link readTextFile} reads it but not decoded: the same size check, the
 * same refusal of bytes that are not strict UTF-8 (checked in place, no string made), a leading byte order mark
 * dropped as the decoder drops it (a later U+FEFF kept). Its decoding is `readTextFile`'s text, so the engine's
 * fingerprint of these bytes is that of the text, without the decoding and the encoding back a 10 MB text costs.
 * They are the Buffer read, not a copy: the caller's alone (it may hand them over to the engine).
 * @example const fp = await engine.fingerprintHandedOver(await readTextBytes('chapter.txt', 'text'))
 */
export async function readTextBytes(file: string, type: FileContentType): Promise<Uint8Array> {
  const read = await readLimitedBuffer(file, fileLimit(type));
  const bytes = new Uint8Array(read.buffer, read.byteOffset, read.byteLength); // a plain Uint8Array, not a copy
  if (!isUtf8(bytes)) throw notUtf8(file, type);
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}
