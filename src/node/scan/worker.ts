/**
 * A worker thread of `scanFiles --threads N` (./pool.ts): its own engine with the scan's datasets loaded once, then
 * the batches it is sent, each item's hits as JSON lines in the item's order, posted back with the batch's counts.
 *
 * Messages in:  a ScanBatch { seq, items }
 * Messages out: { ready: true } | { failed }   (once, when its datasets are loaded or could not be)
 *               a ScanBatchReply { seq, lines, hits, bytes, skipped } | { seq, error }
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine, type Engine } from '../../library.js';
import { loadDatasetSpecs } from '../load-datasets.js';
import { hitLine } from './output.js';
import type { ScanBatch, ScanBatchReply, ScanWorkerData } from './protocol.js';

const port = parentPort;
if (port) {
  const data = workerData as ScanWorkerData;
  const failure = (e: unknown) => ({
    code: typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'INTERNAL',
    message: e instanceof Error ? e.message : String(e),
  });
  const ready: Promise<Engine> = (async () => {
    // the WordNet table only for a scan for paraphrases, as scanFiles' own engine (./run.ts)
    const engine = await createEngine({ synonyms: data.paraphrase });
    await loadDatasetSpecs(engine, data.datasets);
    return engine;
  })();
  ready.then(
    () => port.postMessage({ ready: true }),
    (e: unknown) => port.postMessage({ failed: failure(e) }),
  );
  const options = { minWords: data.minWords, paraphrase: data.paraphrase };
  port.on('message', (batch: ScanBatch) => {
    void ready.then(
      async (engine) => {
        let reply: ScanBatchReply;
        try {
          let lines = '',
            hits = 0,
            bytes = 0,
            skipped = 0;
          const scan = engine.scan(batch.items, options);
          for (;;) {
            const r = await scan.next();
            if (r.done) {
              bytes = r.value.bytes;
              skipped = r.value.skipped;
              break;
            }
            lines += hitLine(r.value);
            hits++;
          }
          reply = { seq: batch.seq, lines, hits, bytes, skipped };
        } catch (e) {
          reply = { seq: batch.seq, error: failure(e) };
        }
        port.postMessage(reply);
      },
      () => {}, // reported once, as `failed`
    );
  });
}
