/**
 * The shapes of document extraction (src/formats/): the formats it reads, its options and what it returns. Apart from
 * the readers so that the services can name them without loading a reader.
 */

/**
 * The document formats {@link extractDocument} reads.
 *
 * @example
 * const format: DocumentFormat = 'epub'
 */
export type DocumentFormat = 'epub' | 'pdf' | 'docx';

/**
 * Every {@link DocumentFormat}, for validation and error messages (here, apart from the readers, so that naming the
 * formats loads none of them).
 *
 * @example
 * (DOCUMENT_FORMATS as readonly string[]).includes('pdf') // true
 */
export const DOCUMENT_FORMATS: readonly DocumentFormat[] = Object.freeze(['epub', 'pdf', 'docx'] as const);

/**
 * A chapter or heading of an extracted document: `text.slice(start, end)` is its text. In order, and together they
 * cover the text (the first starts at 0, each ends where the next starts, the last ends at `text.length`).
 *
 * @example
 * const s: DocumentSection = { title: 'Chapter 1', start: 0, end: 5120 }
 */
export interface DocumentSection {
  readonly title: string;
  readonly start: number;
  readonly end: number;
}

/**
 * A page of an extracted PDF (numbered from 1): `text.slice(start, end)` is what its text layer holds once running
 * headers and footers are removed (an empty span for a page without text).
 *
 * @example
 * const p: DocumentPage = { number: 1, start: 0, end: 2311 }
 */
export interface DocumentPage {
  readonly number: number;
  readonly start: number;
  readonly end: number;
}

/**
 * The text of a document file. Offsets are UTF-16 units of `text`: every span a later search reports points into it.
 *
 * @example
 * const x: DocumentExtraction = await extractDocument(bytes, 'docx')
 * x.text.slice(x.sections[0].start, x.sections[0].end) // the first section's text
 */
export interface DocumentExtraction {
  readonly format: DocumentFormat;
  /** The extracted text: lines as a reader sees them, a blank line between paragraphs where the file says so. */
  readonly text: string;
  /** `text.length` (UTF-16 units). */
  readonly characters: number;
  /** The whitespace-separated words of `text`. */
  readonly words: number;
  /** Chapters (EPUB), headings (DOCX) or outline entries (PDF), in order, covering the text. */
  readonly sections: readonly DocumentSection[];
  /** PDF only: one entry per page, in order. */
  readonly pages?: readonly DocumentPage[];
}

/**
 * Limits and cancellation of {@link extractDocument}.
 *
 * @example
 * const options: ExtractDocumentOptions = { maxBytes: 16 * 1024 * 1024, signal: AbortSignal.timeout(30_000) }
 */
export interface ExtractDocumentOptions {
  /** The largest file accepted, in bytes (default 64 MiB): PAYLOAD_TOO_LARGE above it. */
  readonly maxBytes?: number;
  /**
   * The most the file may inflate to, in bytes (default 256 MiB): for EPUB and DOCX the zip's entries as the central
   * directory declares them and every entry read, for PDF every compressed stream as it inflates: PAYLOAD_TOO_LARGE
   * above it.
   */
  readonly maxUncompressedBytes?: number;
  /**
   * The most text the file may yield, in characters (UTF-16 units; default 10 Mi, as much as a text request may
   * carry): PAYLOAD_TOO_LARGE above it.
   */
  readonly maxCharacters?: number;
  /** The longest the reading may take, in milliseconds (default 120,000): PAYLOAD_TOO_LARGE after it. */
  readonly timeoutMs?: number;
  /** Aborts the extraction: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}
