/**
 * How the command line reads a work's file — the rule the HTTP API applies to an upload (src/http/multipart.ts), so
 * that one file gets one answer at either door (read-file.ts: its type, its size before reading, strict UTF-8) — with
 * the library's extraction: a book's EPUB, PDF or DOCX file as analyze takes it, and the analysed text of a file, as
 * `report --text`, `verify --text` and `extract-text` take it.
 */
import {
  contentTypeOfFile,
  DOCUMENT_FORMATS,
  type DocumentFormat,
  extractDocument,
  extractText,
  type FileContentType,
  sha256Hex,
  TEXT_FILE_TYPES,
} from '../library.js';
import { fileLimit, readLimitedFile, readTextFile, typeOfFile } from './read-file.js';

export { fileLimit, readLimitedFile, typeOfFile } from './read-file.js';

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
  if (TEXT_FILE_TYPES.has(type)) return { type, content: await readTextFile(file, type) };
  return { type, content: await readLimitedFile(file, fileLimit(type)) };
}

/**
 * A Markdown or HTML file as analyze and `POST /attribution/fingerprint` read it: its text with the markup reduced
 * (`extractText`), which is what is fingerprinted, and the `work_hash` of its content as read (markup included), as
 * a registration computes it.
 * @example const { text, workHash } = await readMarkupWork('chapter.md', 'markdown')
 */
export async function readMarkupWork(
  file: string,
  type: 'markdown' | 'html',
): Promise<{ text: string; workHash: string }> {
  const content = await readTextFile(file, type);
  return { text: extractText(content, type).text, workHash: `sha256:${await sha256Hex(content)}` };
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
