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
