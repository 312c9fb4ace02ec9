/**
 * The thread of a {@link WorkerPool} (src/node/offload.ts): it creates an engine of its own (no datasets)
 * and runs each piece of pure work it is sent with `engine.runWork`, the function the engine runs
 * in-thread, and parses each JSON body it is sent with `parseJsonBody`, the function the HTTP handler runs
 * in-thread, so the answers are the same values. Typed arrays in an answer are transferred, not copied. A
 * TrainprintError goes back as its code, detail and (plain data only) cause; anything else as INTERNAL.
 */
import { parentPort } from 'node:worker_threads';
import { createEngine, isTrainprintError, resultToSend, workToRun, type PureWork } from '../library.js';
import { bodyChecker, parseJsonBody, type JsonSchema } from '../http/index.js';

/**
 * A request of the pool: work or a body, and the number its answer carries back; or a piece of one of the work's long
 * texts, sent ahead of it, the work then naming the texts it left out (`joined`: each is its pieces joined in order).
 */
type Task = { readonly id: number } & (
  | { readonly work: PureWork; readonly joined?: readonly string[] }
  | { readonly json: { readonly bytes: Uint8Array; readonly schema?: JsonSchema } }
  | { readonly piece: { readonly field: string; readonly text: string } }
);

const port = parentPort;
if (!port) throw new Error('offload-worker runs as a worker thread of trainprint/node');
const ready = createEngine();
/** The pieces received of each task's long texts, by task and field, until the work that joins them. */
const pieces = new Map<number, Map<string, string[]>>();

port.on('message', (task: Task) => {
  const fail = (e: unknown) => port.postMessage({ id: task.id, error: errorOf(e) });
  if ('piece' in task) {
    const fields = pieces.get(task.id) ?? new Map<string, string[]>();
    pieces.set(task.id, fields);
    const list = fields.get(task.piece.field) ?? [];
    fields.set(task.piece.field, list);
    list.push(task.piece.text);
    return;
  }
  if ('json' in task) {
    // no engine needed: answered without waiting for it
    try {
      const { bytes, schema } = task.json;
      port.postMessage({
        id: task.id,
        result: parseJsonBody(bytes, schema === undefined ? undefined : bodyChecker(schema)),
      });
    } catch (e) {
      fail(e);
    }
    return;
  }
  const work = withJoinedTexts(task.id, task.work, task.joined);
  void ready.then((engine) => {
    try {
      // a fingerprint crosses with the columns its work names, computed in the one pass, and no others
      const result = resultToSend(work, engine.runWork(workToRun(work)));
      port.postMessage({ id: task.id, result }, transferables(result));
    } catch (e) {
      fail(e);
    }
  }, fail);
});

/** `work` with each of its `joined` texts made of the pieces sent ahead of it for task `id` (which are let go). */
function withJoinedTexts(id: number, work: PureWork, joined: readonly string[] | undefined): PureWork {
  const fields = pieces.get(id);
  pieces.delete(id);
  if (!joined || joined.length === 0) return work;
  const texts = Object.fromEntries(joined.map((f) => [f, (fields?.get(f) ?? []).join('')]));
  return { ...work, ...texts } as PureWork;
}

function errorOf(e: unknown): { code: string; detail: string | undefined; cause?: unknown } {
  if (!isTrainprintError(e)) return { code: 'INTERNAL', detail: e instanceof Error ? e.message : String(e) };
  const cause = plainCause(e.cause);
  return { code: e.code, detail: e.detail, ...(cause === undefined ? {} : { cause }) };
}

/** A cause made of strings and numbers only (a schema failure's `{ location, field, reason }`), else none. */
function plainCause(cause: unknown): Record<string, string | number> | undefined {
  if (cause === null || typeof cause !== 'object' || Object.getPrototypeOf(cause) !== Object.prototype)
    return undefined;
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(cause)) {
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    out[k] = v;
  }
  return out;
}

/** The distinct buffers of the typed arrays in a result (two levels deep: a fingerprint's `shingles`). */
function transferables(value: unknown, depth = 0, out = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) out.add(value.buffer);
  else if (value && typeof value === 'object' && depth < 2) {
    for (const v of Object.values(value)) transferables(v, depth + 1, out);
  }
  return [...out];
}
