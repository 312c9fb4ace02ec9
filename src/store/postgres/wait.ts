/**
 * The wait for a database that is away (a restart, a failover) while a step that needs it is tried (a scan worker's
 * start: `openScanQueue`'s `waitForDatabaseMs`): the step tried again, the wait doubled after each outage
 * ({@link isOutage}), for a bounded time; then STORE_UNAVAILABLE saying how long it waited. A refused login, a missing
 * database or any other error is thrown at once: waiting does not mend them.
 */
import { TrainprintError } from '../../errors.js';
import { sleep } from '../../util/timers.js';
import { isOutage, unavailable, type PostgresTarget } from './connection.js';

/** The longest wait between two tries while the database cannot be reached (ms). */
const MAX_BACKOFF_MS = 10_000;

/** The wait before try `failures + 1`: `pollMs` (at least 250 ms) doubled each time, at most 10 s. @example backoff(1000, 3) // 8000 */
const backoff = (pollMs: number, failures: number): number =>
  Math.min(MAX_BACKOFF_MS, Math.max(pollMs, 250) * 2 ** Math.min(failures, 16));

/** Options of {@link waitOut}. */
export interface WaitOutOptions {
  /** The longest wait in all (ms), from the first try: 0 tries once; `Infinity` waits until `signal` aborts. */
  readonly waitMs: number;
  /** The first wait between two tries (ms), see {@link backoff}. */
  readonly pollMs: number;
  /** Stops the wait: the last failure is thrown at once. */
  readonly signal?: AbortSignal;
  /** Told of each failure waited out (as STORE_UNAVAILABLE). */
  readonly onError?: (error: TrainprintError) => void;
  /** The clock (ms); a test's own. @default Date.now */
  readonly now?: () => number;
}

/**
 * `attempt`, tried again while it fails with an outage of the database at `target`, for at most `waitMs` in all.
 * @throws STORE_UNAVAILABLE naming the wait when the database was still away after it; any other error of `attempt`
 * @example const store = await waitOut(target, () => openPostgresStore(url), { waitMs: 300_000, pollMs: 1000 })
 */
export async function waitOut<T>(
  target: PostgresTarget,
  attempt: () => Promise<T>,
  options: WaitOutOptions,
): Promise<T> {
  const now = options.now ?? Date.now;
  const started = now();
  for (let failures = 0; ; failures++) {
    let down: TrainprintError;
    try {
      return await attempt();
    } catch (error) {
      const mapped = unavailable(error, target);
      if (!mapped || !isOutage(error)) throw mapped ?? error;
      down = mapped;
    }
    const waited = now() - started;
    const delay = backoff(options.pollMs, failures);
    if (!options.signal?.aborted && waited + delay <= options.waitMs) {
      options.onError?.(down);
      await sleep(delay, options.signal).catch(() => undefined); // an abort ends the wait
      if (!options.signal?.aborted) continue;
    }
    if (failures === 0) throw down;
    const seconds = Math.round((now() - started) / 100) / 10;
    throw new TrainprintError(
      'STORE_UNAVAILABLE',
      `${down.detail ?? target.label}; still so after ${failures + 1} tries in ${seconds} s`,
      { cause: down.cause ?? down },
    );
  }
}
