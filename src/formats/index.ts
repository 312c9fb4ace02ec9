/**
 * Document extraction: the text of EPUB, PDF and DOCX files, with sections and (PDF) pages.
 *
 * @example
 * import { extractDocument } from '../formats/index.js'
 * const x = await extractDocument(bytes, 'docx')
 * x.text.slice(x.sections[1].start, x.sections[1].end) // the second heading's section
 */
export { DOCUMENT_FORMATS, extractDocument } from './extract.js';
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_UNCOMPRESSED_BYTES } from './limits.js';
export type {
  DocumentExtraction,
  DocumentFormat,
  DocumentPage,
  DocumentSection,
  ExtractDocumentOptions,
} from './types.js';
