/**
 * What a worker thread of `scanFiles --threads N` does (./worker.ts starts it, ./pool.ts talks to it): its own engine
 * with the scan's datasets loaded once, then the batches it is sent, each item's hits as JSON lines in the item's
 * order, posted back with the batch's counts.
 *
 * Messages in:  a ScanBatch { seq, items }
 * Messages out: { ready: true } | { failed }   (once, when its datasets are loaded or could not be)
 *               a ScanBatchReply { seq, lines, hits, bytes, skipped } | { seq, error }
 */
import type { MessagePort } from 'node:worker_threads';
import { TrainprintError } from '../../library.js';
import { loadDatasetSpecs } from '../load-datasets.js';
import { hitLine } from './output.js';
import type { ScanBatch, ScanBatchReply, ScanWorkerData } from './protocol.js';
import type { FileScanEngine, OpenFileScanEngine } from './run.js';

/** The end of the channel a scan thread answers on (a worker's `parentPort`). */
export type ScanThreadPort = Pick<MessagePort, 'on' | 'postMessage'>;

/**
 * Serve a file scan's batches on `port` with the engine `open` makes, its datasets those of `data`: ready (or
 * failed) once they are loaded, then one reply per batch, in the order the batches finish.
 * @example serveScanThread(parentPort, workerData, createScanEngine)
 */
export function serveScanThread(port: ScanThreadPort, data: ScanWorkerData, open: OpenFileScanEngine): void {
  // A TrainprintError goes as its detail alone: the pool's TrainprintError puts its code's sentence in front again
  const failure = (e: unknown) => ({
    code: typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'INTERNAL',
    message: e instanceof TrainprintError ? (e.detail ?? '') : e instanceof Error ? e.message : String(e),
  });
  const ready: Promise<FileScanEngine> = (async () => {
    // the WordNet table only for a scan for paraphrases, as scanFiles' own engine (./run.ts)
    const engine = await open({ synonyms: data.paraphrase });
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
          reply = { seq: batch.seq, ...(await scanBatch(engine, batch, options)) };
        } catch (e) {
          reply = { seq: batch.seq, error: failure(e) };
        }
        port.postMessage(reply);
      },
      () => {}, // reported once, as `failed`
    );
  });
}

/** One batch's hit lines and counts. */
async function scanBatch(
  engine: FileScanEngine,
  batch: ScanBatch,
  options: { readonly minWords: number; readonly paraphrase: boolean },
): Promise<{ lines: string; hits: number; bytes: number; skipped: number }> {
  let lines = '',
    hits = 0;
  const scan = engine.scan(batch.items, options);
  for (;;) {
    const r = await scan.next();
    if (r.done) return { lines, hits, bytes: r.value.bytes, skipped: r.value.skipped };
    lines += hitLine(r.value);
    hits++;
  }
}
