/**
 * Files given to the analyze view, without a browser: which kind a file is (a text file read as text, or a book or
 * document whose text the engine extracts, or neither), the size limits, and what a progress report says. Pure:
 * unit-tested in Node.
 */

/** The document formats whose text the engine extracts (`content_type` of the request). */
export type DocumentFormat = 'epub' | 'pdf' | 'docx';

/** The text content types a text file is analysed as. */
export type TextType = 'text' | 'markdown' | 'html';

/** A text file is read into the text area up to this size (the analyze limit of text, 10 MiB). */
export const TEXT_FILE_BYTES = 10 * 1024 * 1024;
/**
 * The largest EPUB, PDF or DOCX file any plan of the served API takes (`MAX_PLAN_FILE_BYTES`, 256 MiB; a key's own
 * plan may take less — Free 8 MiB — and the API's 413 says so). Written out rather than imported: importing the
 * library would load the engine into the page.
 */
export const PLAN_FILE_BYTES = 256 * 1024 * 1024;

/** The name each format is shown by. */
export const FORMAT_NAMES: Readonly<Record<DocumentFormat, string>> = { epub: 'EPUB', pdf: 'PDF', docx: 'DOCX' };

const DOCUMENT_MIME: Readonly<Record<string, DocumentFormat>> = {
  'application/epub+zip': 'epub',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};
const TEXT_EXTENSIONS: Readonly<Record<string, TextType>> = {
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
};
/** Formats people often have instead of the ones read, and what to do about each. */
const NEAR_MISSES: Readonly<Record<string, string>> = {
  doc: 'save it as .docx (Word: File › Save As › Word Document)',
  odt: 'save it as .docx or PDF',
  rtf: 'save it as .docx or PDF',
  mobi: 'convert it to EPUB',
  azw3: 'convert it to EPUB',
};

/** What the analyze view does with a file. */
export type FileKind =
  | { readonly kind: 'text'; readonly type: TextType }
  | { readonly kind: 'document'; readonly format: DocumentFormat }
  | { readonly kind: 'refused'; readonly message: string };

/**
 * The kind of a file by its name's extension, else its MIME type: .epub, .pdf and .docx (or their MIME types) are
 * documents; .txt, .md, .html (or any `text/…` type, or none at all) are read as text; anything else is refused with
 * a sentence saying what is read.
 * @example fileKind('Persuasion.EPUB', '') // { kind: 'document', format: 'epub' }
 * @example fileKind('notes.md', 'text/markdown') // { kind: 'text', type: 'markdown' }
 */
export function fileKind(name: string, mime: string): FileKind {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1].toLowerCase() ?? '';
  if (ext === 'epub' || ext === 'pdf' || ext === 'docx') return { kind: 'document', format: ext };
  if (Object.hasOwn(TEXT_EXTENSIONS, ext)) return { kind: 'text', type: TEXT_EXTENSIONS[ext] };
  const type = mime.split(';')[0].trim().toLowerCase();
  if (Object.hasOwn(DOCUMENT_MIME, type)) return { kind: 'document', format: DOCUMENT_MIME[type] };
  const fix = Object.hasOwn(NEAR_MISSES, ext) ? NEAR_MISSES[ext] : null;
  if (fix === null && (type === '' || type.startsWith('text/')))
    return { kind: 'text', type: type === 'text/html' ? 'html' : type === 'text/markdown' ? 'markdown' : 'text' };
  return {
    kind: 'refused',
    message:
      `${JSON.stringify(name)} is not a file this page reads${fix ? `: ${fix}` : ''}. ` +
      'It reads text files (.txt, .md, .html) and books or documents in EPUB, PDF or DOCX.',
  };
}

/**
 * How far an analysis has got (the server's job status `progress`, or the engine's `onProgress`): the phase, the
 * remote corpus calls made so far and the sum of the corpora's call budgets (0 when none is searched).
 */
export interface AnalysisProgress {
  readonly phase: 'extracting' | 'local' | 'remote' | 'done';
  readonly calls: number;
  readonly budget: number;
  readonly corpora: number;
}

/**
 * What the progress bar shows: a sentence, and the bar's value out of `max` — `null` for a bar that shows activity
 * but no amount (no phase reports a share of its work but the remote one, as calls against the budget).
 * @example progressView({ phase: 'remote', calls: 6, budget: 40, corpora: 2 }) // { text: 'Searching 2 remote corpora: 6 of 40 calls', value: 6, max: 40 }
 */
export function progressView(p: AnalysisProgress | null): { text: string; value: number | null; max: number } {
  if (p === null) return { text: 'Waiting for the server to start the analysis…', value: null, max: 1 };
  switch (p.phase) {
    case 'extracting':
      return { text: "Extracting the file's text…", value: null, max: 1 };
    case 'local':
      return { text: 'Searching the loaded datasets…', value: null, max: 1 };
    case 'remote': {
      const where = `Searching ${p.corpora} remote ${p.corpora === 1 ? 'corpus' : 'corpora'}`;
      return p.budget > 0
        ? { text: `${where}: ${p.calls} of ${p.budget} calls`, value: Math.min(p.calls, p.budget), max: p.budget }
        : { text: `${where}…`, value: null, max: 1 };
    }
    default:
      return { text: 'Finishing…', value: 1, max: 1 };
  }
}
