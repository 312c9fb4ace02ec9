/**
 * Worker thread of a parallel `buildDatasetFile` (./build-pool.ts): does the batches it is sent
 * (./build-job.ts: texts to fingerprint, or a byte range of a plain JSON Lines file to read, parse
 * and fingerprint) with its own core and posts each result back with its buffers transferred (not
 * copied). It says when its core is ready, so that it is given batches only then. It stops on the
 * first error of the core: a core that trapped is not reused; a line that is not a document
 * (malformed JSON, no text field) leaves it running.
 *
 * Messages in:  { seq, texts } | { seq, range, fields }     (a BuildJob)
 * Messages out: { ready: true }                              (once, when the core is ready)
 *               { failed: { detail } }                       (instead, when it cannot be made)
 *               a BuildReply: { seq, batch, documents? } | { seq, error, documents? }
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDatasetFingerprinter } from '../library.js';
import { runBuildJob, type BuildJob } from './build-job.js';

const port = parentPort;
if (port) {
  const { kind, window } = workerData as { kind: 'exact' | 'portrait'; window?: number };
  const ready = createDatasetFingerprinter({ kind, ...(window === undefined ? {} : { window }) });
  ready.then(
    () => port.postMessage({ ready: true }),
    (e: unknown) => port.postMessage({ failed: { detail: e instanceof Error ? e.message : String(e) } }),
  );
  port.on('message', (job: BuildJob & { seq: number }) => {
    void ready.then(
      (fingerprinter) => {
        const { reply, transfer } = runBuildJob(fingerprinter, job.seq, job);
        port.postMessage(reply, transfer);
        // the parent terminates us too; closing the port ends the thread even if it does not
        if (reply.error?.fatal) port.close();
      },
      () => {},
    ); // reported once, as `failed`
  });
}
