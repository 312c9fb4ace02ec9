/**
 * `trainprint/text` — the text layer: the pinned Unicode NFKC_Casefold normaliser that fingerprints and datasets
 * read text through, the Markdown and HTML extraction that `analyze` reads content with, each with the map
 * from its output back to offsets in the caller's string, and the text of EPUB, PDF and DOCX files
 * (`extractDocument`; its readers load when a file of their format arrives).
 *
 * @example
 * import { extractText, normalize } from 'trainprint/text'
 * const { text } = extractText('# Title\n\nSome *emphasis*.', 'markdown') // the readable text, with a map back to offsets
 * normalize('Straße').text // 'strasse'
 */
export {
  normalize,
  isAsciiOnly,
  NORMALIZER_ID,
  extractText,
  CONTENT_TYPES,
  extractDocument,
  DOCUMENT_FORMATS,
  contentTypeOfFile,
  untypedFileReason,
  FILE_CONTENT_TYPES,
  TEXT_FILE_TYPES,
  type FileContentType,
  type DocumentExtraction,
  type DocumentFormat,
  type DocumentPage,
  type DocumentSection,
  type ExtractDocumentOptions,
  type DocumentOffload,
  type Normalized,
  type ContentType,
  type ExtractedParts,
  type ExtractedText,
} from '../library.js';
