/**
 * Waiting in a line for a place: what the admission of large work (./large-work.ts) and of an account's uploads
 * (./uploads.ts) share — a waiter leaves the line when its place is handed over, when it has waited `waitMs`, or when
 * the client goes away.
 */
import { TrainprintError } from '../library.js';

/** One request waiting in a line: `admit` hands it the place. */
export interface Waiter {
  readonly admit: () => void;
}

/** How one request waits: for how long, what ends it early, what it is told then, what else its leaving undoes. */
export interface WaitOptions {
  readonly waitMs: number;
  /** The client's signal: its abort leaves the line (SERVICE_UNAVAILABLE, "the client went away"). */
  readonly signal?: AbortSignal;
  /** The error of a wait that ran out. */
  readonly timedOut: () => TrainprintError;
  /** Called when the request leaves the line without a place (after it was taken out of `line`). */
  readonly onLeave?: () => void;
}

/**
 * Join `line` (at its end) and wait until a place is handed over with the waiter's `admit`.
 * @throws (rejects) `timedOut()` after `waitMs`; SERVICE_UNAVAILABLE when the client went away
 * @example await waitInLine(this.#queue, { waitMs: 30_000, signal, timedOut: () => busy('waited 30 s') })
 */
export function waitInLine(line: Waiter[], { waitMs, signal, timedOut, onLeave }: WaitOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const leave = (e: TrainprintError) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const at = line.indexOf(waiter);
      if (at >= 0) line.splice(at, 1);
      onLeave?.();
      reject(e);
    };
    const waiter: Waiter = {
      admit: () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
    };
    const onAbort = () => leave(new TrainprintError('SERVICE_UNAVAILABLE', 'the client went away'));
    const timer = setTimeout(() => leave(timedOut()), waitMs);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    line.push(waiter);
  });
}
