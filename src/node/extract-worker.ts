/**
 * A thread of the document pool (src/node/extract-pool.ts): it reads one EPUB, PDF or DOCX file at a time with the
 * library's `extractDocument` — the function the engine runs in its own thread, so the text is the same — and sends
 * back the extraction or the TrainprintError as its code and detail. It holds nothing between files but the readers'
 * library (pdf.js), loaded by the first PDF; the pool ends the thread when a file overruns
 * its time or memory, and a new one takes its place.
 */
import { parentPort } from 'node:worker_threads';
import { extractDocument, isTrainprintError, type DocumentFormat, type ExtractDocumentOptions } from '../library.js';

/** A file to read, and the number its answer carries back. */
export interface ExtractTask {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly format: DocumentFormat;
  /** The caller's limits without the signal (the pool stands for it: it ends the thread). */
  readonly limits: Omit<ExtractDocumentOptions, 'signal'>;
}

const port = parentPort;
if (!port) throw new Error('extract-worker runs as a worker thread of trainprint/node');

port.on('message', (task: ExtractTask) => {
  extractDocument(task.bytes, task.format, task.limits).then(
    // the text is a string (copied once by the structured clone); sections and pages are small arrays of numbers
    (result) => port.postMessage({ id: task.id, result }),
    (e: unknown) =>
      port.postMessage({
        id: task.id,
        error: isTrainprintError(e)
          ? { code: e.code, detail: e.detail }
          : { code: 'INTERNAL', detail: e instanceof Error ? e.message : String(e) },
      }),
  );
});
