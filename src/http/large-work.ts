/**
 * How many large requests run at once. A request with a body of 1 MiB or more (a book to analyze, two long texts to
 * compare, a dataset upload), or with a document file of any size (a few KB of EPUB or PDF may extract to 10 Mi
 * characters), holds tens to hundreds of MB while it runs — the body, its text, fingerprints, the
 * search's working set — and the WebAssembly core keeps the memory it grew to. Without a bound, a burst of them
 * takes the process's memory with it; with one, the peak is about `limit` times one request's, and the rest wait
 * their turn (in order) or, when too many wait, are answered 503 with `Retry-After` at once. A request takes its place
 * once its body is read (a body that arrives slowly holds nothing here, only its account's upload place,
 * src/http/uploads.ts), and waits for it at most `waitMs`: then 503 with `Retry-After` too, so that no request waits
 * without bound behind work it cannot see.
 */
import { TrainprintError } from '../library.js';
import { type Waiter, waitInLine } from './wait-in-line.js';

/** Requests whose body is at least this large (bytes) take a place. */
export const LARGE_WORK_BYTES = 1 << 20;

/** How long a large request waits for its place before it is refused (503), in ms. */
export const LARGE_WORK_WAIT_MS = 30_000;

/** Seconds a refused request is told to wait (`Retry-After`). */
export const LARGE_WORK_RETRY_SECONDS = 5;

/** Options of {@link LargeWorkGate}. */
export interface LargeWorkLimits {
  /** Large requests running at once. @default 4 */
  readonly running?: number;
  /** Large requests waiting for a place; one more is refused (503). @default 16 */
  readonly waiting?: number;
  /** How long a request waits for a place before it is refused (503), in ms, 1–600,000. @default 30000 */
  readonly waitMs?: number;
}

/**
 * A counting semaphore with a bounded FIFO queue.
 * @example
 * const gate = new LargeWorkGate({ running: 2 })
 * const release = await gate.enter(request.signal) // SERVICE_UNAVAILABLE when the queue is full or after waitMs
 * try { await work() } finally { release() }
 */
export class LargeWorkGate {
  readonly running: number;
  readonly waiting: number;
  readonly waitMs: number;
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(limits: LargeWorkLimits = {}) {
    const check = (v: number | undefined, d: number, name: string, min: number, max = Number.MAX_SAFE_INTEGER) => {
      if (v === undefined) return d;
      if (!Number.isInteger(v) || v < min || v > max)
        throw new TrainprintError(
          'INVALID_OPTIONS',
          `largeRequests.${name} must be an integer ≥ ${min}${max < Number.MAX_SAFE_INTEGER ? ` and ≤ ${max}` : ''}`,
        );
      return v;
    };
    this.running = check(limits.running, 4, 'running', 1);
    this.waiting = check(limits.waiting, 16, 'waiting', 0);
    this.waitMs = check(limits.waitMs, LARGE_WORK_WAIT_MS, 'waitMs', 1, 600_000);
  }

  /** Large requests running now. */
  get active(): number {
    return this.#active;
  }

  /** Large requests waiting now. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * A place for one large request: at once when one is free, else after those before it, for at most `waitMs`. The
   * returned function gives the place back (once; later calls do nothing). An aborted `signal` (the client went
   * away) leaves the line.
   * @throws SERVICE_UNAVAILABLE when `waiting` requests already wait, or after `waitMs` in the line
   */
  async enter(signal?: AbortSignal): Promise<() => void> {
    if (this.#active >= this.running) {
      const busy = (why: string) =>
        new TrainprintError(
          'SERVICE_UNAVAILABLE',
          `${this.#active} large requests (bodies of 1 MiB or more, document files) are running and ${why}: send it again in ${LARGE_WORK_RETRY_SECONDS} s`,
        );
      if (this.#queue.length >= this.waiting) throw busy(`${this.#queue.length} are waiting`);
      await waitInLine(this.#queue, {
        waitMs: this.waitMs,
        signal,
        timedOut: () => busy(`this one waited ${this.waitMs / 1000} s for a place`),
      });
    } else this.#active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#queue.shift();
      // the place passes to the next in line as it is: the count stays
      if (next) next.admit();
      else this.#active--;
    };
  }
}
