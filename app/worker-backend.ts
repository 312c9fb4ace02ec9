/**
 * {@link Backend} as calls to worker.ts: each method posts `{ id, method, args }` and resolves
 * with the matching reply. Index bytes are transferred, not copied. With `startAfter`, the worker
 * (and so its downloads: the engine, the starter, the packs) starts only once that promise
 * settles; calls made earlier wait for it.
 */
import { BackendError, type Backend, type BackendMethod } from './backend.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

export function createWorkerBackend(url: string | URL, options: { startAfter?: Promise<unknown> } = {}): Backend {
  const started = (options.startAfter ?? Promise.resolve()).then(
    () => start(),
    () => start(),
  );
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let next = 1;
  let broken: BackendError | null = null;

  const failAll = (e: BackendError): void => {
    broken = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  function start(): Worker {
    const worker = new Worker(url, { type: 'module', name: 'trainprint-engine' });
    worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
      const r = event.data;
      const p = pending.get(r.id);
      if (!p) return;
      pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(new BackendError(r.error.code, r.error.message, r.error.detail));
    });
    // A worker that fails to load (missing file, syntax error) reports only an 'error' event.
    worker.addEventListener('error', (event) => {
      failAll(
        new BackendError('WORKER_FAILED', `The engine could not start: ${event.message || 'worker.js did not load'}`),
      );
    });
    return worker;
  }

  function call<T>(method: BackendMethod, args: readonly unknown[], transfer: Transferable[] = []): Promise<T> {
    if (broken) return Promise.reject(broken);
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const message: WorkerRequest = { id, method, args };
      void started.then((worker) => worker.postMessage(message, transfer));
    });
  }

  return {
    ready: () => call('ready', []),
    // a callback cannot cross to the worker: the in-browser engine's analysis reports no progress to the page
    analyze: (request) => call('analyze', [request]),
    fileRefusal: (format) => call('fileRefusal', [format]),
    compare: (a, b) => call('compare', [a, b]),
    loadIndex: (bytes) => call('loadIndex', [bytes], [bytes.buffer]),
    declare: (datasetId, kbDataset) => call('declare', [datasetId, kbDataset]),
    datasets: () => call('datasets', []),
    kbDatasets: () => call('kbDatasets', []),
    assessMemorization: (request) => call('assessMemorization', [request]),
    factors: () => call('factors', []),
    sourceText: (datasetId, documentId) => call('sourceText', [datasetId, documentId]),
    modelExtractions: (analysisId) => call('modelExtractions', [analysisId]),
  };
}
