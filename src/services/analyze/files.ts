/**
 * A file as a request carries it (`analyze`, `registerWork`): `content_type` `epub`, `pdf` or `docx`, `content` its
 * bytes — a `Uint8Array` in the library, base64 with `content_encoding: 'base64'` where JSON carries it. The checks
 * both requests make, in one place; the text is extracted by src/formats, which is loaded — with a dynamic `import()`,
 * the package's `dist/formats.js` — only when a file arrives, so the engine's bundle carries none of its readers.
 */
import { decodeBase64 } from '../../core/base64.js';
import { TrainprintError } from '../../errors.js';
import {
  DOCUMENT_FORMATS,
  type DocumentExtraction,
  type DocumentFormat,
  type ExtractDocumentOptions,
} from '../../formats/types.js';
import { utf8Length } from '../../fingerprint/fingerprint.js';
import { fail } from '../../util/validate.js';
import { ANALYZE_MAX_BYTES, ANALYZE_MAX_FILE_BYTES } from './limits.js';

// the file limit lives in limits.ts (no imports), which the fingerprint entry names too
export { ANALYZE_MAX_FILE_BYTES };

/** Whether `contentType` names a file format (its content is bytes). @example isFileType('pdf') // true */
export function isFileType(contentType: unknown): contentType is 'epub' | 'pdf' | 'docx' {
  return (DOCUMENT_FORMATS as readonly unknown[]).includes(contentType);
}

/** The members of a request that say how its content is sent. */
type FileRequest = { readonly content_type?: unknown; readonly content_encoding?: unknown };

/**
 * The bytes of a file request (`content_type` `epub`, `pdf`, `docx`), decoded from base64 where it came so; null for
 * the text types, which take neither bytes nor an encoding. Refused as {@link checkFile} refuses it.
 * @example fileOf({ content_type: 'docx', content_encoding: 'base64' }, 'UEsDBA…') // Uint8Array [0x50, 0x4b, …]
 */
export function fileOf(r: FileRequest, content: unknown, maxBytes: number = ANALYZE_MAX_FILE_BYTES): Uint8Array | null {
  return checkFile(r, content, maxBytes) ? fileBytes(content as string | Uint8Array) : null;
}

/**
 * Whether a request sends a file, its content checked without decoding it: INVALID_INPUT for a wrong pairing, bad
 * base64 or an empty file, PAYLOAD_TOO_LARGE past `maxBytes` (counted on the base64 before its syntax is read).
 * @example checkFile({ content_type: 'text', content_encoding: 'base64' }, 'x') // throws: text takes no encoding
 */
export function checkFile(r: FileRequest, content: unknown, maxBytes: number = ANALYZE_MAX_FILE_BYTES): boolean {
  const bytes = content instanceof Uint8Array;
  if (!isFileType(r.content_type)) {
    if (bytes || r.content_encoding !== undefined)
      fail(
        `content_type "${r.content_type ?? 'text'}" takes text: bytes and content_encoding go with epub, pdf and docx`,
      );
    return false;
  }
  if (!bytes && r.content_encoding !== 'base64')
    fail(`a ${r.content_type} file is sent as bytes, or in base64 with content_encoding "base64"`);
  if (typeof content !== 'string' && !bytes) fail('content must be a string');
  const size = bytes ? content.length : base64ByteLength(content as string);
  if (size > maxBytes) throw fileTooLarge(maxBytes);
  // strict base64 (RFC 4648, padding optional, no whitespace): no padding past a whole group ('QUJD==' would not decode)
  const b64 = bytes ? '' : (content as string);
  const data = b64.replace(/=+$/, '').length;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || data % 4 === 1 || b64.length > Math.ceil(data / 4) * 4)
    fail('content is not valid base64');
  if (size === 0) fail('the file is empty');
  return true;
}

/**
 * What a schema cannot say of content sent whole (a score's, a registration's; an analysis counts its text in steps):
 * a file as {@link checkFile} takes it within `maxFileBytes` (a plan's; the default otherwise), a text within
 * {@link ANALYZE_MAX_BYTES} of UTF-8 (a lone surrogate counts 3, as TextEncoder writes U+FFFD).
 * @throws INVALID_INPUT; PAYLOAD_TOO_LARGE past the file limit or 10 MiB of text
 * @example contentWithinLimits({ content: 'x'.repeat(11 * 2 ** 20) }, undefined) // PAYLOAD_TOO_LARGE
 */
export function contentWithinLimits(r: FileRequest & { readonly content?: unknown }, maxFileBytes?: number): void {
  const file = checkFile(r, r.content, fileLimitOption(maxFileBytes));
  const text = file ? '' : (r.content as string);
  if (text.length * 3 > ANALYZE_MAX_BYTES && utf8Length(text) > ANALYZE_MAX_BYTES) throw textTooLarge();
}

/** Content past {@link ANALYZE_MAX_BYTES} of UTF-8. */
export const textTooLarge = (): TrainprintError =>
  new TrainprintError('PAYLOAD_TOO_LARGE', `content is larger than ${ANALYZE_MAX_BYTES} UTF-8 bytes (10 MiB)`);

/**
 * The bytes of a file's content that {@link checkFile} accepted: the bytes sent, or its base64 decoded.
 * @example fileBytes('UEsDBA') // Uint8Array [0x50, 0x4b, 0x03, 0x04]
 */
export function fileBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? decodeBase64(content.padEnd(Math.ceil(content.length / 4) * 4, '=')) : content;
}

/**
 * How many bytes a base64 text decodes to (padding or not), without decoding it: what a file sent in JSON weighs.
 * @example base64ByteLength('UEsDBA==') // 4
 */
export function base64ByteLength(b64: string): number {
  let end = b64.length;
  while (end > 0 && b64.charCodeAt(end - 1) === 0x3d /* = */) end--;
  return Math.floor((end * 3) / 4);
}

/**
 * The `maxFileBytes` option of `analyze`, `registerWork` and `score`, checked (INVALID_OPTIONS), or the default.
 * @example fileLimitOption(undefined) // ANALYZE_MAX_FILE_BYTES
 */
export function fileLimitOption(value: unknown): number {
  if (value === undefined) return ANALYZE_MAX_FILE_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TrainprintError('INVALID_OPTIONS', 'maxFileBytes must be a positive whole number of bytes');
  return value;
}

/** A file past `maxBytes`, the bound also in MiB as the limits are written (`64 MiB`, `7.5 MiB`). */
function fileTooLarge(maxBytes: number): TrainprintError {
  const mib = Math.round((maxBytes / (1024 * 1024)) * 100) / 100;
  return new TrainprintError('PAYLOAD_TOO_LARGE', `the file is larger than ${maxBytes} bytes (${mib} MiB)`);
}

/**
 * What a result says of a file's extraction: all of it but the text, which only `include_text` adds. An
 * `AnalysisExtraction` (./types.ts), inferred rather than named: ./types.ts imports this module through ./schema.ts.
 * @example extractionOf(extraction, pdf.length, false).text // undefined
 */
export function extractionOf(d: DocumentExtraction, bytes: number, withText: boolean) {
  const { text, ...rest } = d;
  return { ...rest, bytes, ...(withText ? { text } : {}) };
}

/**
 * Reads document files somewhere else (`trainprint/node`'s worker pool behind `serve`: threads that are ended when a
 * file overruns its time or memory). It must resolve to what {@link extractDocument} gives in this thread and reject
 * with the `TrainprintError` it would throw (the signal's reason once `options.signal` aborts). `owner` says whose
 * file it is (the account), for a reader that takes the files of several owners in turn.
 * @example
 * const pool = createWorkerPool() // a WorkerPool is an Offload and a DocumentOffload
 * await engine.analyze({ content: pdf, content_type: 'pdf' }, { offload: pool })
 */
export interface DocumentOffload {
  extractDocument(
    bytes: Uint8Array,
    format: DocumentFormat,
    options?: ExtractDocumentOptions,
    owner?: string,
  ): Promise<DocumentExtraction>;
}

/**
 * The text of an EPUB, PDF or DOCX file, with its sections and (PDF) pages: src/formats's `extractDocument`, loaded on
 * the first call (its readers, and the libraries they use, load only for a file of their format). Every span a later
 * search reports on `text` points into it. Bad files never hang and throw only TrainprintError: INVALID_INPUT naming
 * the cause (not a zip or a PDF, truncated, DRM, an encrypted PDF, no text layer), PAYLOAD_TOO_LARGE past the limits.
 * @example
 * const book = await extractDocument(await readFile('persuasion.epub'), 'epub')
 * book.sections[0] // { title: 'Chapter 1', start: 0, end: 21436 }
 */
export async function extractDocument(
  bytes: Uint8Array,
  format: DocumentFormat,
  options?: ExtractDocumentOptions,
): Promise<DocumentExtraction> {
  const formats = await import('../../formats/index.js');
  return formats.extractDocument(bytes, format, options);
}

/**
 * {@link extractDocument}, on `offload` when it reads documents ({@link DocumentOffload}: `serve`'s worker pool), so a
 * file built to make a reader work without end runs on a thread that can be ended, not on the one that answers the
 * other requests; in this thread otherwise. The same text either way.
 * @example const book = await extractDocumentOn(options.offload, bytes, 'pdf', { maxBytes }, options.owner)
 */
export function extractDocumentOn(
  offload: unknown,
  bytes: Uint8Array,
  format: DocumentFormat,
  options?: ExtractDocumentOptions,
  owner?: string,
): Promise<DocumentExtraction> {
  const reader = offload as Partial<DocumentOffload> | null | undefined;
  return typeof reader?.extractDocument === 'function'
    ? reader.extractDocument(bytes, format, options, owner)
    : extractDocument(bytes, format, options);
}
