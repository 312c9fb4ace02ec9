/**
 * Whole works as files: the text of an EPUB, PDF or DOCX file, with its chapters (and, for a PDF, its pages), for the
 * services to search like any other text. Each format has its reader (epub.ts, pdf.ts, docx.ts), looked up by the
 * format's name; pdf.js, which the PDF reader needs, is imported on demand, when the first PDF arrives, so a program
 * that reads none loads none. The zips of EPUB and DOCX and the PDF's compressed streams inflate with the readers' own
 * streaming decoder (src/util/inflate.ts).
 */

import { TrainprintError } from '../errors.js';
import { ExtractionBudget } from './budget.js';
import { readDocx } from './docx.js';
import { readEpub } from './epub.js';
import { FORMAT_NAME, resolveLimits, throwIfAborted, tooLarge } from './limits.js';
import { readPdf } from './pdf.js';
import {
  DOCUMENT_FORMATS,
  type DocumentExtraction,
  type DocumentFormat,
  type ExtractDocumentOptions,
} from './types.js';

export { DOCUMENT_FORMATS };

type Reader = (bytes: Uint8Array, budget: ExtractionBudget) => Promise<DocumentExtraction>;

const READERS: Readonly<Record<DocumentFormat, Reader>> = Object.freeze({
  epub: readEpub,
  pdf: readPdf,
  docx: readDocx,
});

/** The end of the last extraction queued: each starts when the one before it has ended. */
let lastTurn: Promise<void> = Promise.resolve();

/**
 * Runs `read` once the extractions queued before it have ended. Reading a file is work on this thread — the readers
 * pause every few milliseconds so that other work runs between — so two at once would end no sooner than one after
 * the other, and would double what everything else waits between two pauses (measured: 20 PDF bombs at once held a
 * server's other requests for seconds). The budget's clock starts with the turn. An aborted `signal` leaves the
 * queue at once, with its reason.
 */
async function inTurn<T>(signal: AbortSignal | undefined, read: () => Promise<T>): Promise<T> {
  const before = lastTurn;
  let ended!: () => void;
  lastTurn = new Promise<void>((resolve) => (ended = resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const abort = () => reject(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', abort, { once: true });
      void before.then(() => {
        signal?.removeEventListener('abort', abort);
        resolve();
      });
    });
    throwIfAborted(signal);
    return await read();
  } finally {
    // a caller that left the queue early ends its turn only once the one before it has ended: never two at once
    void before.then(ended);
  }
}

/**
 * Extracts the text of a document file: an EPUB's spine in reading order with its chapters, a DOCX's paragraphs with
 * its headings, a PDF's text layer with its pages (running headers and footers removed, words hyphenated at a
 * line's end joined) and its outline. Every span a later search reports on `text` points into it.
 *
 * Files are read one at a time (a call waits for the ones before it), each within one budget (see
 * {@link ExtractDocumentOptions}). Bad input never hangs and never throws anything but a {@link TrainprintError}: PAYLOAD_TOO_LARGE for a file over
 * `maxBytes` (64 MiB) or a zip whose entries declare or inflate to more than `maxUncompressedBytes` (256 MiB) or look
 * like a zip bomb; INVALID_INPUT naming the cause for the rest — not a zip or not a PDF, truncated, no OPF, DRM, an
 * encrypted PDF that needs a password, a PDF with no text layer (no OCR is done). An aborted `signal` rejects with
 * its reason.
 *
 * @example
 * import { readFile } from 'node:fs/promises'
 * const book = await extractDocument(await readFile('persuasion.epub'), 'epub')
 * book.words                                   // 83,298
 * book.sections[0]                             // { title: 'Chapter 1', start: 0, end: 21,436 }
 * const pdf = await extractDocument(await readFile('paper.pdf'), 'pdf', { signal: AbortSignal.timeout(60_000) })
 * pdf.pages?.[0]                               // { number: 1, start: 0, end: 3,120 }
 * @throws TrainprintError INVALID_INPUT (unreadable, encrypted, DRM, no text layer), PAYLOAD_TOO_LARGE (limits),
 *   INVALID_OPTIONS (a bad option)
 */
export async function extractDocument(
  bytes: Uint8Array,
  format: DocumentFormat,
  options?: ExtractDocumentOptions,
): Promise<DocumentExtraction> {
  const limits = resolveLimits(options);
  if (!(bytes instanceof Uint8Array)) {
    throw new TrainprintError('INVALID_INPUT', "the document must be a Uint8Array of the file's bytes");
  }
  const reader = Object.hasOwn(READERS, format) ? READERS[format] : undefined;
  if (reader === undefined) {
    throw new TrainprintError(
      'INVALID_INPUT',
      `format must be one of ${DOCUMENT_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${typeof format === 'string' ? JSON.stringify(format) : typeof format}`,
    );
  }
  if (bytes.length > limits.maxBytes) {
    throw tooLarge(format, `it is ${bytes.length} bytes, over the limit of ${limits.maxBytes}`);
  }
  throwIfAborted(limits.signal);
  try {
    const x = await inTurn(limits.signal, () => reader(bytes, new ExtractionBudget(format, limits)));
    // the readers count the text as they go; this holds the cap however the pieces were joined
    if (x.characters > limits.maxCharacters) {
      throw tooLarge(format, `its text runs past ${limits.maxCharacters} characters, the limit (maxCharacters)`);
    }
    return x;
  } catch (e) {
    if (e instanceof TrainprintError || (limits.signal?.aborted && e === limits.signal.reason)) throw e;
    // a reader's own slip, not the file's fault as far as anyone knows: INTERNAL, the cause kept but not shown
    throw new TrainprintError('INTERNAL', `reading the ${FORMAT_NAME[format]} file failed unexpectedly`, { cause: e });
  }
}
