/**
 * PDF → text with pdf.js (`pdfjs-dist`, its legacy build: Node ≥ 20.19, Deno and browsers; no canvas, since text
 * needs none): the text layer of every page, laid out by src/formats/pdf-layout.ts (lines, running heads removed,
 * hyphenated words joined, paragraphs), one entry of `pages` per page, and sections from the document outline
 * (bookmarks) where it has one.
 *
 * pdf.js is imported on demand, when the first PDF arrives, with its worker module: importing that module
 * registers its handler on `globalThis`, so pdf.js parses on the calling thread everywhere — no worker file to
 * serve, no URL to configure.
 *
 * pdf.js decodes on the calling thread and holds each stream it decodes whole, with no bound of its own: so every
 * compressed stream is first inflated and counted against the document's budget (src/formats/pdf-streams.ts), a file
 * claiming more than {@link MAX_PDF_PAGES} pages is refused before any is read, and each page's text comes as a
 * stream of items, counted (at most {@link MAX_PAGE_TEXT_ITEMS} on a page, the characters against the budget) with a
 * pause every few milliseconds — pdf.js waits while its reader pauses, so the host's other work runs meanwhile.
 *
 * Refused with INVALID_INPUT: a file without the `%PDF-` header or with no `%%EOF` in its last 1,024 bytes (where
 * readers look for it: a truncated file), one pdf.js cannot parse, one that needs a password (an encrypted PDF that
 * opens with the empty password is read), and one with no text on any page (scanned: no OCR is done).
 */

import { TrainprintError } from '../errors.js';
import { type ExtractionBudget, pause, SLICE_MS } from './budget.js';
import { invalid, type Limits, MAX_PAGE_TEXT_ITEMS, MAX_PDF_PAGES, tooLarge } from './limits.js';
import { itemsToLines, joinPages, type PdfLine, type PdfTextItem, removeRunningLines } from './pdf-layout.js';
import { spendStreams } from './pdf-streams.js';
import { finishExtraction, type SectionStart } from './result.js';
import type { DocumentExtraction } from './types.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

let pdfjs: Promise<PdfJs> | undefined;

/** pdf.js and its worker module, loaded once, when the first PDF arrives. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= Promise.all([
    import('pdfjs-dist/legacy/build/pdf.mjs'),
    import('pdfjs-dist/legacy/build/pdf.worker.mjs'),
  ]).then(
    ([lib]) => lib,
    (e: unknown) => {
      pdfjs = undefined;
      throw e;
    },
  );
  return pdfjs;
}

/** Outline entries read at most: a table of contents, not a place to spend time on a hostile file. */
const MAX_OUTLINE_ENTRIES = 10_000;

/**
 * The text of the PDF file `bytes`.
 * @example (await readPdf(bytes, new ExtractionBudget('pdf', resolveLimits(undefined)))).pages?.length // the page count
 */
export async function readPdf(bytes: Uint8Array, budget: ExtractionBudget): Promise<DocumentExtraction> {
  const { limits } = budget;
  checkFraming(bytes);
  const images = await spendStreams(bytes, budget);
  const lib = await loadPdfJs();
  budget.check();
  // pdf.js takes the buffer over (it detaches it): a copy, so the caller keeps theirs (`new Uint8Array`, not
  // `slice()`, which on a Node Buffer — what readFile gives — is a view of the same memory)
  const data = new Uint8Array(bytes);
  for (const [start, end] of images) data.fill(0, start, end); // text needs no image, and no content dressed as one
  const task = lib.getDocument({
    data,
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    enableXfa: false,
    stopAtErrors: false,
  });
  const abort = () => void task.destroy();
  limits.signal?.addEventListener('abort', abort, { once: true });
  try {
    const doc = await budget.within(task.promise).catch((e: unknown) => {
      throw readFailure(e, limits);
    });
    const pages = await readPages(doc, budget);
    if (pages.every((lines) => lines.length === 0)) {
      throw invalid('pdf', 'it has no text layer (scanned pages?); text is not recognised in images (no OCR)');
    }
    const laid = joinPages(removeRunningLines(pages));
    const sections = await outlineSections(doc, laid.pages, budget).catch((e: unknown) => {
      if (e instanceof TrainprintError || limits.signal?.aborted) throw e;
      return [] as SectionStart[];
    });
    return finishExtraction('pdf', laid.text, sections, laid.pages);
  } finally {
    limits.signal?.removeEventListener('abort', abort);
    // not awaited: a destroy that waits on work pdf.js never finishes (a page left mid-stream) must not hold the answer
    void task.destroy().catch(() => undefined);
  }
}

function includes(bytes: Uint8Array, from: number, to: number, marker: string): boolean {
  outer: for (let i = Math.max(0, from); i + marker.length <= Math.min(bytes.length, to); i++) {
    for (let k = 0; k < marker.length; k++) if (bytes[i + k] !== marker.charCodeAt(k)) continue outer;
    return true;
  }
  return false;
}

/** The header in the first 1,024 bytes and `%%EOF` in the last 1,024, where readers look for them. */
function checkFraming(bytes: Uint8Array): void {
  if (!includes(bytes, 0, 1024, '%PDF-')) throw invalid('pdf', 'it is not a PDF (no %PDF- header)');
  if (!includes(bytes, bytes.length - 1024, bytes.length, '%%EOF')) {
    throw invalid('pdf', 'it is truncated (no %%EOF marker at its end)');
  }
}

/** pdf.js's failure to open a file, as the caller's error: its abort, or INVALID_INPUT naming the cause. */
function readFailure(e: unknown, limits: Limits): unknown {
  if (limits.signal?.aborted) return limits.signal.reason ?? e;
  if (e instanceof TrainprintError) return e; // a budget passed
  const name = e instanceof Error ? e.name : '';
  const message = (e instanceof Error ? e.message : String(e)).slice(0, 200);
  if (name === 'PasswordException') return invalid('pdf', 'it is encrypted and needs a password to open', e);
  if (name === 'InvalidPDFException') return invalid('pdf', `its structure is not valid (${message})`, e);
  return invalid('pdf', `pdf.js could not parse it (${message})`, e);
}

/**
 * The lines of every page, page by page, each page's text items read as pdf.js makes them: counted as they come (the
 * items on the page, the characters against the budget) and, every few milliseconds, a pause and the budget's check.
 */
async function readPages(doc: PdfDocument, budget: ExtractionBudget): Promise<PdfLine[][]> {
  const { limits } = budget;
  if (doc.numPages > MAX_PDF_PAGES) {
    throw tooLarge('pdf', `it has ${doc.numPages} pages, over the limit of ${MAX_PDF_PAGES}`);
  }
  const pages: PdfLine[][] = [];
  let sliceStart = Date.now();
  for (let n = 1; n <= doc.numPages; n++) {
    budget.check();
    try {
      const page = await budget.within(doc.getPage(n));
      // a page left unread when a limit is passed stops with the document, destroyed by the caller
      const reader = page.streamTextContent().getReader();
      const items: PdfTextItem[] = [];
      for (let r = await budget.within(reader.read()); !r.done; r = await budget.within(reader.read())) {
        for (const item of r.value.items) {
          if (!('str' in item)) continue;
          if (items.length >= MAX_PAGE_TEXT_ITEMS) {
            throw tooLarge('pdf', `page ${n} has more than ${MAX_PAGE_TEXT_ITEMS} text items, the limit`);
          }
          budget.text(item.str.length);
          const t = item.transform as number[];
          items.push({
            str: item.str,
            x: t[4],
            y: t[5],
            width: item.width,
            size: Math.hypot(t[2], t[3]) || item.height,
            hasEOL: item.hasEOL,
          });
        }
        if (Date.now() - sliceStart > SLICE_MS) {
          budget.check();
          await pause();
          budget.check();
          sliceStart = Date.now();
        }
      }
      page.cleanup();
      pages.push(itemsToLines(items));
    } catch (e) {
      throw readFailure(e, limits);
    }
  }
  return pages;
}

/** Sections where the outline's entries point (to the start of their page), depth first as a reader sees them. */
async function outlineSections(
  doc: PdfDocument,
  pages: ReadonlyArray<{ start: number }>,
  budget: ExtractionBudget,
): Promise<SectionStart[]> {
  const outline = await budget.within(doc.getOutline());
  const starts: SectionStart[] = [];
  const stack = [...(outline ?? [])].reverse(); // the next entry last
  for (let seen = 0; stack.length > 0 && seen < MAX_OUTLINE_ENTRIES; seen++) {
    budget.check();
    const entry = stack.pop()!;
    for (let i = (entry.items ?? []).length - 1; i >= 0; i--) stack.push(entry.items[i]);
    const index = await budget.within(pageIndex(doc, entry.dest)).catch((e: unknown) => {
      if (e instanceof TrainprintError || budget.limits.signal?.aborted) throw e;
      return undefined;
    });
    if (index !== undefined && index >= 0 && index < pages.length) {
      starts.push({ title: entry.title.replace(/\s+/g, ' ').trim(), start: pages[index].start });
    }
  }
  return starts;
}

/** The 0-based page an outline destination points to (a named destination, an explicit one, a page number). */
async function pageIndex(doc: PdfDocument, dest: unknown): Promise<number | undefined> {
  const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : dest;
  if (!Array.isArray(explicit) || explicit.length === 0) return undefined;
  const target = explicit[0];
  if (Number.isInteger(target)) return target as number;
  if (typeof target === 'object' && target !== null) return doc.getPageIndex(target as { num: number; gen: number });
  return undefined;
}
