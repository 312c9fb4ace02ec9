/**
 * The engine's home off the main thread: a module worker that owns the in-browser backend and
 * answers `{ id, method, args }` with `{ id, ok, value | error }`. Compiling the core, fetching and
 * verifying the starter snapshot and the reference packs (about 29 MB) and analysing 10 MiB of text
 * then never freeze the page.
 */
import { BACKEND_METHODS, serializeError, type BackendMethod } from './backend.js';
import { createEngineBackend } from './engine-backend.js';

export interface WorkerRequest {
  readonly id: number;
  readonly method: BackendMethod;
  readonly args: readonly unknown[];
}

export type WorkerReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: ReturnType<typeof serializeError> };

const backend = createEngineBackend();
const methods = new Set<string>(BACKEND_METHODS);

self.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  const { id, method, args } = event.data;
  const reply = (r: WorkerReply): void => self.postMessage(r);
  if (!methods.has(method)) {
    reply({ id, ok: false, error: { code: 'INTERNAL', message: `unknown method ${String(method)}` } });
    return;
  }
  const call = backend[method] as (...a: readonly unknown[]) => Promise<unknown>;
  call.apply(backend, [...args]).then(
    (value) => reply({ id, ok: true, value }),
    (e: unknown) => reply({ id, ok: false, error: serializeError(e) }),
  );
});
