/**
 * How the command line reads a work's file — the rule the HTTP API applies to an upload (src/http/multipart.ts), so
 * that one file gets one answer at either door: its content type from `--type` or its name's extension (a name that
 * says no format taken is refused, not read as text), its size checked with `stat` before a byte is read (a 200 MB
 * file is refused at once, not read and then refused), a text file read as strict UTF-8. And the analysed text of a
 * file, as `report --text`, `verify --text` and `extract-text` take it: a book's EPUB, PDF or DOCX file is extracted.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  ANALYZE_MAX_BYTES,
  ANALYZE_MAX_FILE_BYTES,
  contentTypeOfFile,
  DOCUMENT_FORMATS,
  type DocumentFormat,
  extractDocument,
  FILE_CONTENT_TYPES,
  type FileContentType,
  sha256Hex,
  TEXT_FILE_TYPES,
  TrainprintError,
  untypedFileReason,
} from '../library.js';
import { readInputFile, UsageError } from './shared.js';

/** The content type of `file`: `--type` when given (checked), else by its name's extension; INVALID_INPUT for neither. */
export function typeOfFile(file: string, given?: string): FileContentType {
  if (given !== undefined) {
    if (!(FILE_CONTENT_TYPES as readonly string[]).includes(given))
      throw new UsageError(`--type must be one of ${FILE_CONTENT_TYPES.join(', ')}`);
    return given as FileContentType;
  }
  const type = contentTypeOfFile(file);
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
  let size: number;
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new TrainprintError('INVALID_INPUT', `${file}: not a file`);
    size = s.size;
  } catch (e) {
    if (e instanceof TrainprintError) throw e;
    // the reading names the reason as every command does (no such file, EACCES…)
    return new Uint8Array(await readInputFile(file));
  }
  if (size > limit.bytes)
    throw new TrainprintError('PAYLOAD_TOO_LARGE', `${file} is ${bytesText(size)}, over ${limit.says}`);
  return new Uint8Array(await readInputFile(file));
}

/**
 * A work's file as analyze takes it: the content type (`--type` or the extension), the size checked before reading,
 * the bytes of an EPUB, PDF or DOCX file, the strict UTF-8 of a text file (a byte order mark dropped; other bytes are
 * INVALID_INPUT, as HTTP's 422).
 * @example const { type, content } = await readWorkFile('chapter.md')
 */
export async function readWorkFile(
  file: string,
  given?: string,
): Promise<{ type: FileContentType; content: string | Uint8Array }> {
  const type = typeOfFile(file, given);
  const bytes = await readLimitedFile(file, fileLimit(type));
  if (!TEXT_FILE_TYPES.has(type)) return { type, content: bytes };
  try {
    return { type, content: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    throw new TrainprintError('INVALID_INPUT', `${file}: is not UTF-8 text (content_type "${type}")`);
  }
}

/** What an analysed text is checked against: the work's hash and content type (a result's, or a bundle's result's). */
export interface AnalysedWork {
  readonly work_hash: string;
  readonly content_type: string;
}

/**
 * The text an analysis read, from `file`: the work itself (its SHA-256 is `work.work_hash`; a book's file is
 * extracted as analyze extracted it), another EPUB, PDF or DOCX file (by its extension, extracted), or a text file
 * (its UTF-8, taken as the extracted text). `isWork` says whether the file was the work itself.
 * @example const { text } = await analysedTextOf('book.epub', bundle.result)
 */
export async function analysedTextOf(
  file: string,
  work: AnalysedWork | null,
): Promise<{ text: string; isWork: boolean }> {
  const bytes = await readLimitedFile(file, fileLimit('epub'));
  const isWork = work !== null && `sha256:${await sha256Hex(bytes)}` === work.work_hash;
  const byName = contentTypeOfFile(file);
  const format = isWork ? work.content_type : byName;
  if (format !== null && (DOCUMENT_FORMATS as readonly string[]).includes(format))
    return { text: (await extractDocument(bytes, format as DocumentFormat)).text, isWork };
  return { text: new TextDecoder().decode(bytes), isWork };
}

/**
 * A work's file as text, by the one rule of {@link readWorkFile} (type, size before reading, strict UTF-8): a text
 * file's content as it is, an EPUB, PDF or DOCX file's extracted text (the extraction's budget and refusals).
 * @example const { text } = await readWorkText('book.epub')
 */
export async function readWorkText(file: string, given?: string): Promise<{ type: FileContentType; text: string }> {
  const { type, content } = await readWorkFile(file, given);
  if (typeof content === 'string') return { type, text: content };
  return { type, text: (await extractDocument(content, type as DocumentFormat)).text };
}
