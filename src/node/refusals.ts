/**
 * A bound on the refusals a key can have the server give unread: an answer of 4xx given before a large request body
 * was read (its account's calls spent: 429; a wrong key: 401; too large: 413) closes the connection, and a client
 * that sends such bodies again and again opens a connection for each — a flood of 1 MB bodies just under the
 * large-request line made the server accept, parse and answer one about every 10 ms, ≈ 2 ms of its CPU each under
 * load. Once one key (the request's credentials: `serve` passes a SHA-256 of its `Authorization` header, so the table
 * holds no secret and no header's length; a request without one is not counted) has had
 * {@link REFUSALS_IN_WINDOW} such refusals within a window of {@link REFUSAL_WINDOW_MS}, its further requests with a
 * large body are answered 429 from their headers, unread, until a window passes with fewer.
 *
 * @example
 * const refusals = new UnreadRefusals()
 * refusals.record('Bearer tp_…') // a 429 given with the body unread
 * refusals.retryAfterS('Bearer tp_…') // 0 until REFUSALS_IN_WINDOW of them; then the seconds left in the window
 */
/** Refusals of unread bodies a key may have in one window before its large bodies are refused from their headers. */
export const REFUSALS_IN_WINDOW = 16;
/** The window the refusals are counted in (10 s). */
export const REFUSAL_WINDOW_MS = 10_000;
/** Keys remembered at once; a new one past it forgets the key whose window began first. */
export const MAX_REFUSED_KEYS = 4096;

/** One key's count in its current window. */
interface KeyWindow {
  start: number;
  count: number;
}

/** See the module's documentation. */
export class UnreadRefusals {
  /** The keys' windows, the earliest begun first (a key whose window begins again goes to the back). */
  readonly #keys = new Map<string, KeyWindow>();

  constructor(
    readonly limit = REFUSALS_IN_WINDOW,
    readonly windowMs = REFUSAL_WINDOW_MS,
    readonly maxKeys = MAX_REFUSED_KEYS,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Keys remembered now. */
  get size(): number {
    return this.#keys.size;
  }

  /** Count one refusal of `key`'s unread body (including those answered from their headers). */
  record(key: string): void {
    const now = this.clock();
    let window = this.#current(key, now);
    if (!window) {
      if (this.#keys.size >= this.maxKeys) this.#keys.delete(this.#keys.keys().next().value as string);
      window = { start: now, count: 0 };
      this.#keys.set(key, window);
    }
    window.count++;
  }

  /**
   * 0 while `key` may still be answered by the handler; once it had {@link limit} refusals in its window, the
   * seconds (at least 1) until that window ends.
   */
  retryAfterS(key: string): number {
    const now = this.clock();
    const window = this.#current(key, now);
    if (!window || window.count < this.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  /** `key`'s window if it has not ended at `now` (an ended one is forgotten). */
  #current(key: string, now: number): KeyWindow | undefined {
    const window = this.#keys.get(key);
    if (window && now - window.start >= this.windowMs) {
      this.#keys.delete(key);
      return undefined;
    }
    return window;
  }
}
