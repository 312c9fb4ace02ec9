/**
 * The thread of a {@link WorkerPool} (src/node/offload.ts): it creates an engine of its own (no datasets)
 * and runs each piece of pure work it is sent with `engine.runWork`, the function the engine runs
 * in-thread, so the answers are the same values. Typed arrays in an answer are transferred, not copied. A
 * TrainprintError goes back as its code and detail; anything else as INTERNAL.
 */
import { parentPort } from 'node:worker_threads';
import { createEngine, isTrainprintError, type PureWork } from '../index.js';

/** A request of the pool: one piece of work and the number its answer carries back. */
interface Task { readonly id: number; readonly work: PureWork }

const port = parentPort;
if (!port) throw new Error('offload-worker runs as a worker thread of trainprint/node');
const ready = createEngine();

port.on('message', (task: Task) => {
  const fail = (e: unknown) => port.postMessage({ id: task.id, error: errorOf(e) });
  void ready.then((engine) => {
    try {
      const result = engine.runWork(task.work);
      port.postMessage({ id: task.id, result }, transferables(result));
    } catch (e) {
      fail(e);
    }
  }, fail);
});

function errorOf(e: unknown): { code: string; detail: string | undefined } {
  return isTrainprintError(e)
    ? { code: e.code, detail: e.detail }
    : { code: 'INTERNAL', detail: e instanceof Error ? e.message : String(e) };
}

/** The distinct buffers of the typed arrays in a result (two levels deep: a fingerprint's `shingles`). */
function transferables(value: unknown, depth = 0, out = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) out.add(value.buffer);
  else if (value && typeof value === 'object' && depth < 2) {
    for (const v of Object.values(value)) transferables(v, depth + 1, out);
  }
  return [...out];
}
