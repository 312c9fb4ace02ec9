/**
 * Worker thread of a parallel `buildDatasetFile` (./build-pool.ts): fingerprints the batches of
 * document texts it is sent with its own core and posts each result back with its buffers
 * transferred (not copied). It stops on the first error: a core that trapped is not reused.
 *
 * Messages in:  { seq, texts }                       (texts of one batch, in document order)
 * Messages out: { seq, batch }                       (a FingerprintBatch)
 *               { seq, error: { code, detail, index } }   (index: the failing text in the batch)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDatasetFingerprinter, isTrainprintError, type FingerprintBatch } from '../index.js';

interface Job { readonly seq: number; readonly texts: readonly string[] }

const port = parentPort;
if (port) {
  const { kind, window } = workerData as { kind: 'exact' | 'portrait'; window?: number };
  const ready = createDatasetFingerprinter({ kind, ...(window === undefined ? {} : { window }) });
  port.on('message', (job: Job) => {
    ready.then((fingerprinter) => {
      const batch: FingerprintBatch = fingerprinter.fingerprint(job.texts);
      const buffers = [batch.offsets, batch.tokens, batch.bytes, batch.hashes, batch.starts, batch.ends, batch.minhash]
        .filter((a) => a !== null).map((a) => a.buffer as ArrayBuffer);
      port.postMessage({ seq: job.seq, batch }, buffers);
    }).catch((e: unknown) => {
      const index = (e as { index?: unknown })?.index;
      port.postMessage({
        seq: job.seq,
        error: {
          code: isTrainprintError(e) ? e.code : 'INTERNAL',
          detail: isTrainprintError(e) ? (e.detail ?? e.message) : e instanceof Error ? e.message : String(e),
          index: typeof index === 'number' ? index : -1,
        },
      });
      port.close(); // the parent terminates us too; closing the port ends the thread even if it does not
    });
  });
}
