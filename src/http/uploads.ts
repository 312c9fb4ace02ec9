/**
 * Uploads in flight per account. A request that uploads — a body of 1 MiB or more, a body of unknown length, or a
 * multipart form on a route that takes files — is admitted only while its account has fewer than its plan's
 * `uploads` in flight (Free 2, Pro 4, Scale and Enterprise 8); it holds its place until it is answered. One more
 * waits in its account's line, its body unread (`serve` reads nothing of a body from the socket before the
 * handler reads it, so TCP's flow control holds the client), until a place of its account is free — at most
 * {@link UPLOAD_WAITING} per account, for at most {@link UPLOAD_WAIT_MS} — else it is answered 429 `RATE_LIMITED`
 * with `Retry-After`, naming the plan's limit. So one account's twenty uploads at once are read two at a time (on
 * Free), not twenty bodies arriving at once on the thread that answers every account, and never more than its share
 * of the large requests the whole service runs at once (src/http/large-work.ts): another account's work goes on
 * beside them. Concurrency limits of this kind are what public APIs answer 429 to (GitHub's secondary rate limits on
 * concurrent requests; Stripe's concurrent-requests limiter).
 */
import { TrainprintError } from '../library.js';
import { type Waiter, waitInLine } from './wait-in-line.js';

/**
 * Uploads of one account that may wait for a place; one more is refused (429). Generous on purpose: a waiting upload
 * costs the event loop nothing (nothing of it read), while a refused one's body is still read and dropped
 * by the lingering close that keeps its answer on the wire (src/node/serve.ts) — 6 MB each of garbage to collect
 * on the request thread (bench/hostile-files.mjs, 20 page-reference PDFs from one Free key: with 8 waiting, 10 of
 * them were refused and the request thread's profile was garbage collection for up to 2/3 of each 200 ms).
 */
export const UPLOAD_WAITING = 32;
/** How long an upload waits for its account's place before it is refused (429), in ms. */
export const UPLOAD_WAIT_MS = 30_000;
/** Seconds a refused upload is told to wait (`Retry-After`). */
export const UPLOAD_RETRY_SECONDS = 5;

/**
 * Options of {@link UploadGate} (`createHandler(engine, { uploads })`).
 * @example createHandler(engine, { uploads: { waiting: 2, waitMs: 10_000 } })
 */
export interface UploadLimits {
  /** Uploads of one account that may wait for a place, 0–1,000. @default 32 */
  readonly waiting?: number;
  /** How long an upload waits for a place, in ms, 1–600,000. @default 30000 */
  readonly waitMs?: number;
}

interface Line {
  /** Uploads of the account in flight. */
  active: number;
  readonly waiting: Waiter[];
}

/**
 * Per-account counting semaphores with bounded FIFO lines.
 * @example
 * const gate = new UploadGate()
 * const release = await gate.enter('acct_1', { plan: 'free', uploads: 2 }, request.signal) // may throw RATE_LIMITED
 * try { await readAndWork() } finally { release() }
 */
export class UploadGate {
  readonly waiting: number;
  readonly waitMs: number;
  readonly #lines = new Map<string, Line>();

  constructor(limits: UploadLimits = {}) {
    const check = (v: number | undefined, d: number, name: string, min: number, max: number) => {
      if (v === undefined) return d;
      if (!Number.isInteger(v) || v < min || v > max)
        throw new TrainprintError('INVALID_OPTIONS', `uploads.${name} must be an integer from ${min} to ${max}`);
      return v;
    };
    this.waiting = check(limits.waiting, UPLOAD_WAITING, 'waiting', 0, 1000);
    this.waitMs = check(limits.waitMs, UPLOAD_WAIT_MS, 'waitMs', 1, 600_000);
  }

  /** Uploads of `account` in flight now, and waiting. */
  of(account: string): { active: number; waiting: number } {
    const line = this.#lines.get(account);
    return { active: line?.active ?? 0, waiting: line?.waiting.length ?? 0 };
  }

  /**
   * A place for one upload of `account`, whose plan allows `limit.uploads` at once: at once when one is free, else
   * after those of the account before it. The returned function gives the place back (once; later calls do
   * nothing). An aborted `signal` (the client went away) leaves the line.
   * @throws RATE_LIMITED when `waiting` uploads of the account already wait, or after `waitMs` in the line
   */
  async enter(
    account: string,
    limit: { readonly plan: string; readonly uploads: number },
    signal?: AbortSignal,
  ): Promise<() => void> {
    let line = this.#lines.get(account);
    if (!line) {
      line = { active: 0, waiting: [] };
      this.#lines.set(account, line);
    }
    const own = line;
    if (own.active < limit.uploads) own.active++;
    else {
      const refused = (why: string) =>
        new TrainprintError(
          'RATE_LIMITED',
          `plan "${limit.plan}" allows ${limit.uploads} uploads at once per account (uploads: bodies of 1 MiB or more, or of unknown length, and files); ${why}: send it again when one has been answered`,
        );
      if (own.waiting.length >= this.waiting)
        throw refused(`${own.active} are in flight and ${own.waiting.length} wait`);
      await waitInLine(own.waiting, {
        waitMs: this.waitMs,
        signal,
        timedOut: () => refused(`this one waited ${this.waitMs / 1000} s for a place`),
        onLeave: () => this.#forget(account, own),
      });
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = own.waiting.shift();
      // the place passes to the next of the account as it is: the count stays
      if (next) next.admit();
      else {
        own.active--;
        this.#forget(account, own);
      }
    };
  }

  /** Drops an account's line once nothing of it is in flight or waiting. */
  #forget(account: string, line: Line): void {
    if (line.active === 0 && line.waiting.length === 0 && this.#lines.get(account) === line)
      this.#lines.delete(account);
  }
}
