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
import { fail } from '../../util/validate.js';

/** Largest file a request may carry (bytes): what a 10 MiB JSON body carries in base64, 7.5 MiB. */
export const ANALYZE_MAX_FILE_BYTES = 7.5 * 1024 * 1024;

/** Whether `contentType` names a file format (its content is bytes). @example isFileType('pdf') // true */
export function isFileType(contentType: unknown): contentType is 'epub' | 'pdf' | 'docx' {
  return (DOCUMENT_FORMATS as readonly unknown[]).includes(contentType);
}

/**
 * The bytes of a file request (`content_type` `epub`, `pdf`, `docx`), decoded from base64 where it came so; null for
 * the text types, which take neither bytes nor an encoding. INVALID_INPUT for a wrong pairing, bad base64 or an empty
 * file, PAYLOAD_TOO_LARGE past {@link ANALYZE_MAX_FILE_BYTES}.
 * @example fileOf({ content_type: 'docx', content_encoding: 'base64' }, 'UEsDBA…') // Uint8Array [0x50, 0x4b, …]
 */
export function fileOf(
  r: { readonly content_type?: unknown; readonly content_encoding?: unknown },
  content: unknown,
): Uint8Array | null {
  const bytes = content instanceof Uint8Array;
  if (!isFileType(r.content_type)) {
    if (bytes || r.content_encoding !== undefined)
      fail(
        `content_type "${r.content_type ?? 'text'}" takes text: bytes and content_encoding go with epub, pdf and docx`,
      );
    return null;
  }
  if (!bytes && r.content_encoding !== 'base64')
    fail(`a ${r.content_type} file is sent as bytes, or in base64 with content_encoding "base64"`);
  const file = bytes ? content : typeof content === 'string' ? base64Bytes(content) : fail('content must be a string');
  if (file.length === 0) fail('the file is empty');
  if (file.length > ANALYZE_MAX_FILE_BYTES)
    throw new TrainprintError(
      'PAYLOAD_TOO_LARGE',
      `the file is larger than ${ANALYZE_MAX_FILE_BYTES} bytes (7.5 MiB; 10 MiB in base64)`,
    );
  return file;
}

/** Strict base64 (RFC 4648, padding optional, no whitespace) to bytes; INVALID_INPUT otherwise. */
function base64Bytes(b64: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.replace(/=+$/, '').length % 4 === 1)
    fail('content is not valid base64');
  return decodeBase64(b64.padEnd(Math.ceil(b64.length / 4) * 4, '='));
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
