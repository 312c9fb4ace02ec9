/**
 * Requests- and tokens-per-minute limits of a model endpoint, as token buckets shared by every call of one model:
 * a call waits until both buckets hold what it needs (one request; its prompt's estimated tokens and its output-token
 * limit). The endpoint's own word wins when it gives one: `Retry-After` on a 429, or `x-ratelimit-remaining-requests`
 * / `-tokens` at 0 with their `x-ratelimit-reset-*` (OpenAI's headers: durations such as `1s`, `6m0s`, `20ms`) hold
 * every call until then.
 */

/** A bucket refilled continuously at `perMinute`, holding at most `perMinute`. */
class Bucket {
  private level: number;
  private at: number;
  constructor(
    private readonly perMinute: number,
    now: number,
  ) {
    this.level = perMinute;
    this.at = now;
  }
  /** Ms to wait before `n` can be taken (0: now). */
  wait(n: number, now: number): number {
    this.refill(now);
    const need = Math.min(n, this.perMinute) - this.level;
    return need <= 0 ? 0 : Math.ceil((need * 60_000) / this.perMinute);
  }
  take(n: number, now: number): void {
    this.refill(now);
    this.level -= Math.min(n, this.perMinute);
  }
  private refill(now: number) {
    this.level = Math.min(this.perMinute, this.level + ((now - this.at) * this.perMinute) / 60_000);
    this.at = now;
  }
}

/** Options of {@link createRateLimiter}. */
export interface RateLimits {
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Waits `ms`; given the call's signal, it may end at its abort (the limiter stops waiting then either way). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** What a model adapter asks of its limiter. */
export interface RateLimiter {
  /** Wait until a request of about `tokens` tokens may go, and count it. */
  acquire(tokens: number, signal?: AbortSignal): Promise<void>;
  /** Read an answer's rate-limit headers: hold every call until the endpoint's reset when it says none is left. */
  observe(headers: Headers): void;
}

/**
 * A limiter over both buckets (either may be absent) and the endpoint's headers.
 * @example const limiter = createRateLimiter({ requestsPerMinute: 500, tokensPerMinute: 200_000, sleep })
 */
export function createRateLimiter(limits: RateLimits): RateLimiter {
  const now = limits.now ?? Date.now;
  const requests = limits.requestsPerMinute ? new Bucket(limits.requestsPerMinute, now()) : null;
  const tokens = limits.tokensPerMinute ? new Bucket(limits.tokensPerMinute, now()) : null;
  let heldUntil = 0;
  // calls take their turn in the order they asked: one waiting call does not starve behind later small ones
  let queue: Promise<void> = Promise.resolve();
  return {
    acquire(n, signal) {
      const turn = queue.then(async () => {
        for (;;) {
          signal?.throwIfAborted();
          const t = now();
          const wait = Math.max(heldUntil - t, requests?.wait(1, t) ?? 0, tokens?.wait(n, t) ?? 0);
          if (wait <= 0) break;
          // a cancel ends the wait at once (an endpoint's reset may hold calls for minutes)
          await untilAborted(limits.sleep(wait, signal), signal);
        }
        const t = now();
        requests?.take(1, t);
        tokens?.take(n, t);
      });
      queue = turn.catch(() => undefined);
      // a call cancelled while earlier ones still wait leaves the line at once (they keep their places)
      return untilAborted(turn, signal);
    },
    observe(headers) {
      for (const kind of ['requests', 'tokens'] as const) {
        if (headers.get(`x-ratelimit-remaining-${kind}`)?.trim() !== '0') continue;
        const reset = parseDuration(headers.get(`x-ratelimit-reset-${kind}`));
        if (reset !== undefined) heldUntil = Math.max(heldUntil, now() + Math.min(reset, 300_000));
      }
    },
  };
}

/**
 * An `x-ratelimit-reset-*` value in ms: `1s`, `6m0s`, `20ms`, `1h2m3.5s`, or a bare number of seconds.
 * @example parseDuration('6m0s') // 360000
 */
export function parseDuration(v: string | null): number | undefined {
  if (v === null) return undefined;
  const s = v.trim();
  if (/^\d+(?:\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0,
    seen = 0,
    m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    seen += m[0].length;
  }
  return seen === s.length && seen > 0 ? total : undefined;
}

/**
 * `p`, or the rejection of `signal`'s reason as soon as it aborts (whatever `p` still waits for).
 * @example await untilAborted(sleep(300_000), call.signal)
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
