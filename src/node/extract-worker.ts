/**
 * A thread of the document pool (src/node/extract-pool.ts): it reads one EPUB, PDF or DOCX file at a time with the
 * library's `extractDocument` — the function the engine runs in its own thread, so the text is the same — and sends
 * back the extraction or the TrainprintError as its code and detail. It holds nothing between files but the readers'
 * library (pdf.js), loaded by the first PDF; the pool ends the thread when a file overruns
 * its time or memory, and a new one takes its place.
 */
import { readlinkSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { extractDocument, isTrainprintError, type DocumentFormat, type ExtractDocumentOptions } from '../library.js';

/** A file to read, and the number its answer carries back. */
export interface ExtractTask {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly format: DocumentFormat;
  /** The caller's limits without the signal (the pool stands for it: it ends the thread). */
  readonly limits: Omit<ExtractDocumentOptions, 'signal'>;
}

/** What the pool gives a thread when it starts it. */
export interface ExtractWorkerData {
  /** The nice value (−20…19) this thread takes if it is above the one it has (src/node/extract-pool.ts `priority`). */
  readonly priority: number;
}

const port = parentPort;
if (!port) throw new Error('extract-worker runs as a worker thread of trainprint/node');

/**
 * Lowers this thread's CPU priority, as RocksDB lowers its compaction threads' (`Env::LowerThreadPoolCPUPriority`):
 * on Linux the nice value belongs to a thread (setpriority(2): "the nice value is a per-thread attribute"), and a
 * thread's id is the last part of /proc/thread-self. Raising one's own nice value needs no privilege; a lower value is
 * never asked for. Elsewhere (no /proc/thread-self) the thread keeps the process's priority. Returns the value taken.
 */
function lowerThreadPriority(priority: number): number | null {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return null;
  }
  if (!Number.isInteger(tid) || tid <= 0) return null;
  try {
    const current = getPriority(tid);
    if (priority > current) setPriority(tid, priority);
    return getPriority(tid);
  } catch {
    return null;
  }
}

const data = workerData as Partial<ExtractWorkerData> | undefined;
const priority = data?.priority;
/**
 * Files are read once the priority is lowered. First a call on libuv's thread pool: its threads serve the whole process
 * (files, crypto, DNS) and are started by the first thread that uses them, taking that thread's nice value — started
 * from here after the change, they would run the request thread's work below normal too.
 */
const ready: Promise<unknown> =
  typeof priority === 'number'
    ? stat(process.execPath).then(
        () => lowerThreadPriority(priority),
        () => lowerThreadPriority(priority),
      )
    : Promise.resolve();

/** The memory this thread's heap holds from the system: its committed heap and the buffers outside it. */
function heldBytes(): number {
  const heap = getHeapStatistics();
  return heap.total_heap_size + heap.external_memory;
}

port.on('message', (task: ExtractTask) => {
  ready
    .then(() => extractDocument(task.bytes, task.format, task.limits))
    .then(
      // the text is a string (copied once by the structured clone); sections and pages are small arrays of numbers
      (result) => port.postMessage({ id: task.id, result }),
      // a refusal says what the thread holds after it (the pool ends a thread that a refused file left large)
      (e: unknown) =>
        port.postMessage({
          id: task.id,
          error: isTrainprintError(e)
            ? { code: e.code, detail: e.detail }
            : { code: 'INTERNAL', detail: e instanceof Error ? e.message : String(e) },
          held: heldBytes(),
        }),
    );
});
