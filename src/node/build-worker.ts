/**
 * Worker thread of a parallel `buildDatasetFile` (./build-pool.ts): fingerprints batches with its
 * own core and posts each result back with its buffers transferred (not copied). A batch is either
 * texts the main thread read, or a byte range of a plain JSON Lines file that this thread reads and
 * parses itself (./jsonl-ranges.ts), so that reading and JSON parsing run on every thread, not only
 * on the main one. It stops on the first error of the core: a core that trapped is not reused; a
 * line that is not a document (malformed JSON, no text field) leaves it running.
 *
 * Messages in:  { seq, texts }                       (texts of one batch, in document order)
 *               { seq, range, fields }               (a JsonlRange and the RecordFields to read it with)
 * Messages out: { seq, batch, documents? }           (a FingerprintBatch; for a range, its RangeDocuments)
 *               { seq, error: { code, detail, index, line, fatal } }
 *                 (index: the failing document in the batch, or -1; line: the failing line of a
 *                 range counted from its first, or -1; fatal: the thread is stopping)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDatasetFingerprinter, isTrainprintError, type FingerprintBatch } from '../index.js';
import { RangeLineError, readJsonlRange, type JsonlRange, type RangeDocuments } from './jsonl-ranges.js';
import type { RecordFields } from './read-documents.js';

type Job =
  | { readonly seq: number; readonly texts: readonly string[] }
  | { readonly seq: number; readonly range: JsonlRange; readonly fields: RecordFields };

const port = parentPort;
if (port) {
  const { kind, window } = workerData as { kind: 'exact' | 'portrait'; window?: number };
  const ready = createDatasetFingerprinter({ kind, ...(window === undefined ? {} : { window }) });
  const failure = (seq: number, e: unknown, fatal: boolean, documents?: RangeDocuments) => {
    const index = (e as { index?: unknown })?.index;
    port.postMessage({
      seq,
      error: {
        // a line that is not a document, or a file that cannot be read: the input's fault
        code: isTrainprintError(e) ? e.code : fatal ? 'INTERNAL' : 'INVALID_INPUT',
        detail: isTrainprintError(e) ? (e.detail ?? e.message) : e instanceof Error ? e.message : String(e),
        index: typeof index === 'number' ? index : -1,
        line: e instanceof RangeLineError ? e.line : -1,
        fatal,
      },
      // the ids and lines name the failing document (its text is not needed)
      ...(documents ? { documents: { ...documents, texts: [] } } : {}),
    });
  };
  port.on('message', (job: Job) => {
    let documents: RangeDocuments | undefined;
    ready.then((fingerprinter) => {
      if ('range' in job) {
        try {
          documents = readJsonlRange(job.range, job.fields);
        } catch (e) {
          const code = (e as { code?: unknown })?.code;
          // An unreadable file is the input's fault, reported like the main thread's reader does.
          const unreadable = typeof code === 'string' && !(e instanceof RangeLineError);
          failure(job.seq, unreadable ? new Error(`cannot read the file (${code})`) : e, false);
          return;
        }
      }
      const texts = documents ? documents.texts : (job as { texts: readonly string[] }).texts;
      const batch: FingerprintBatch = fingerprinter.fingerprint(texts);
      const buffers = [batch.offsets, batch.tokens, batch.bytes, batch.hashes, batch.starts, batch.ends, batch.minhash]
        .filter((a) => a !== null).map((a) => a.buffer as ArrayBuffer);
      if (documents) buffers.push(documents.lines.buffer as ArrayBuffer);
      port.postMessage({ seq: job.seq, batch, ...(documents ? { documents } : {}) }, buffers);
    }).catch((e: unknown) => {
      failure(job.seq, e, true, documents);
      port.close(); // the parent terminates us too; closing the port ends the thread even if it does not
    });
  });
}
