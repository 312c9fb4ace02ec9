/** Abort signals combined. */

/**
 * A signal aborted when any of `signals` is: `AbortSignal.any` where the runtime has it (Node ≥ 20.3), else a
 * controller that listens to each; either way it aborts with the first one's reason.
 * @example const signal = anySignal([options.signal, deadline.signal])
 */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (any) return any(signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      c.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}
