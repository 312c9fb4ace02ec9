/** Timers that never keep a process alive on their own. */

/**
 * Lets the process exit while only `timer` is pending: `unref()` where timers are objects (Node, Bun), else
 * `Deno.unrefTimer` (Deno's timers are numbers); nothing in browsers. Returns the timer.
 * @example const t = unrefTimer(setInterval(poll, 1000))
 */
export function unrefTimer<T>(timer: T): T {
  const t = timer as { unref?: () => void };
  if (typeof t?.unref === 'function') t.unref();
  else (globalThis as { Deno?: { unrefTimer?: (id: unknown) => void } }).Deno?.unrefTimer?.(timer);
  return timer;
}

/**
 * Waits `ms` milliseconds. An abort of `signal` ends the wait at once with a rejection: `abortError()`, by default the
 * signal's reason (a caller that only wants to stop waiting catches it).
 * @example
 * await sleep(250)
 * await sleep(1000, controller.signal, () => new RemoteCallError('cancelled', 'the request was cancelled'))
 */
export function sleep(
  ms: number,
  signal?: AbortSignal,
  abortError: () => unknown = () => signal?.reason,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
