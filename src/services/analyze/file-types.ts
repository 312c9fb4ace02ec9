/**
 * Which content type a file is, from its name (and, over HTTP, its media type): the one rule every door of the
 * service applies — a multipart upload (src/http/multipart.ts) and the command line (src/cli/files.ts) — so that a
 * file one of them refuses the other refuses too. A name that says no format taken (`.png`, `.odt`, `.mobi`, none)
 * is refused rather than read as text: a packed e-book read as UTF-8 text would be analysed as noise and answer "no
 * corpus evidence" for a work the corpora hold.
 */

/** The content types a file may be analysed as, in the order messages list them. */
export const FILE_CONTENT_TYPES = ['epub', 'pdf', 'docx', 'text', 'markdown', 'html'] as const;

/** A content type a file may be analysed as. */
export type FileContentType = (typeof FILE_CONTENT_TYPES)[number];

/** File formats by the file name's extension (lower case, without the dot). */
export const CONTENT_TYPE_BY_EXTENSION: Readonly<Record<string, FileContentType>> = {
  epub: 'epub',
  pdf: 'pdf',
  docx: 'docx',
  txt: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
};

/** File formats by media type (IANA: application/epub+zip, application/pdf, RFC 7763 text/markdown). */
export const CONTENT_TYPE_BY_MEDIA_TYPE: Readonly<Record<string, FileContentType>> = {
  'application/epub+zip': 'epub',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/html': 'html',
};

/** The content types whose file is UTF-8 text (the others are bytes whose text is extracted). */
export const TEXT_FILE_TYPES: ReadonlySet<string> = new Set(['text', 'markdown', 'html']);

/**
 * The content type of a file by its name's extension, else by its media type; null when neither names one taken.
 * @example
 * contentTypeOfFile('book.epub') // 'epub'
 * contentTypeOfFile('cover.png', 'image/png') // null
 */
export function contentTypeOfFile(name: string, mediaType = ''): FileContentType | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1].toLowerCase();
  const media = mediaType.split(';')[0].trim().toLowerCase();
  if (extension && Object.hasOwn(CONTENT_TYPE_BY_EXTENSION, extension)) return CONTENT_TYPE_BY_EXTENSION[extension];
  return Object.hasOwn(CONTENT_TYPE_BY_MEDIA_TYPE, media) ? CONTENT_TYPE_BY_MEDIA_TYPE[media] : null;
}

/**
 * Why a file whose name says no format is refused, in the words every door uses (after `content_type: `).
 * @example untypedFileReason('cover.png', 'image/png') // 'is needed: the file "cover.png" of type "image/png" names …'
 */
export function untypedFileReason(name: string, mediaType = ''): string {
  const media = mediaType.split(';')[0].trim().toLowerCase();
  const named = `${JSON.stringify(name.slice(0, 100))} of type ${JSON.stringify(media || 'none')}`;
  return `is needed: the file ${named} names no format taken (${FILE_CONTENT_TYPES.join(', ')})`;
}
