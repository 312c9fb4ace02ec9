/**
 * Back-off after failed authentication: API keys and OAuth client secrets cannot be guessed at speed. Failures are
 * counted per subject — the client's address (when the server knows it), the credential presented — over a sliding {@link FAILURE_WINDOW_MS}; past {@link FREE_FAILURES}, each further failure doubles
 * how long that subject must wait (1 s, 2 s, 4 s … up to {@link MAX_WAIT_S}), and an attempt within the wait is
 * refused with 429 and `Retry-After` before any key is looked up. A success does not clear an address (an attacker
 * may hold one valid key); the counts fade with the window. Kept in this process's memory, bounded.
 */

/** Failures of one subject allowed within the window before it must wait. */
export const FREE_FAILURES = 10;
/** How long a failure counts. */
export const FAILURE_WINDOW_MS = 10 * 60 * 1000;
/** Longest wait, in seconds. */
export const MAX_WAIT_S = 15 * 60;
/** Subjects remembered at most (the oldest are dropped first). */
const MAX_SUBJECTS = 100_000;

interface Record {
  failures: number;
  since: number;
  until: number;
}

/**
 * Failed-authentication counts and waits per subject.
 * @example
 * const t = new AuthThrottle(Date.now)
 * if (t.wait(['addr:203.0.113.9']) > 0) refuse()
 * t.failed(['addr:203.0.113.9', 'key:tp_live_abcd1234'])
 */
export class AuthThrottle {
  private readonly subjects = new Map<string, Record>();

  constructor(private readonly now: () => number) {}

  /** Seconds the longest-waiting of `subjects` must still wait (0: an attempt may go ahead). */
  wait(subjects: readonly string[]): number {
    const now = this.now();
    let longest = 0;
    for (const s of subjects) {
      const r = this.current(s, now);
      if (r && r.until > now) longest = Math.max(longest, Math.ceil((r.until - now) / 1000));
    }
    return longest;
  }

  /** Count a failed attempt against each of `subjects`. */
  failed(subjects: readonly string[]): void {
    const now = this.now();
    for (const s of subjects) {
      const r = this.current(s, now) ?? { failures: 0, since: now, until: 0 };
      r.failures++;
      if (r.failures > FREE_FAILURES)
        r.until = now + 1000 * Math.min(MAX_WAIT_S, 2 ** (r.failures - FREE_FAILURES - 1));
      this.subjects.delete(s); // most recent last: the oldest go first when the map is full
      this.subjects.set(s, r);
      if (this.subjects.size > MAX_SUBJECTS) this.subjects.delete(this.subjects.keys().next().value!);
    }
  }

  /** The subject's record while its window or wait lasts. */
  private current(subject: string, now: number): Record | undefined {
    const r = this.subjects.get(subject);
    if (r && now - r.since > FAILURE_WINDOW_MS && r.until <= now) {
      this.subjects.delete(subject);
      return undefined;
    }
    return r;
  }
}

/**
 * Whether an address is this machine's (127.0.0.0/8, ::1, and IPv4 loopback mapped into IPv6).
 * @example isLoopback('::ffff:127.0.0.1') // true
 */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase();
  return a === '::1' || /^(::ffff:)?127\./.test(a);
}
