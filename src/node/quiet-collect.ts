/**
 * One major garbage collection once a serving process has gone quiet after large work: a job's chunk done, a
 * request body of {@link LARGE_BODY_BYTES} or more answered.
 *
 * V8 collects its old space when allocation asks for it. A server that has just parsed a 40 MB catalogue, checked,
 * encoded and decoded it as a job item, and then goes quiet but for a few small requests allocates too little to ask:
 * the garbage of that work (the body's string and tree, the item's decoded copy, a hundred thousand per-work objects)
 * stayed in the heap, and the process's RSS with it, for as long as it stayed quiet. Forty-five seconds after a
 * 100,000-work audit, three runs had 158–254 MB of heap in use where a collection left 69–71 MB (docs/performance.md).
 *
 * The collection asked for is `vm.measureMemory()`'s: V8 starts *incremental* marking (the concurrent marking of its
 * own collections) 10–20 s later (its delay, at random) and the measurement is answered once that collection is over;
 * its answer, the heap's size, is not used. Not `execution: 'eager'`: that one finalises a marking already under way
 * in one atomic step, and `gc()` (behind `--expose-gc`) marks the whole heap in one pause — each held the thread for
 * 0.5–0.9 s with a heap of 470 MB on a loaded 2-core machine (bench/quiet-collect.mjs). Node prints one
 * ExperimentalWarning for `vm.measureMemory`, the first time, in the server's log.
 *
 * @example
 * const collection = collectWhenQuiet()
 * const runner = startJobRunner(engine, { onChunk: () => collection.note() }) // after each large piece of work
 * // … on shutdown
 * collection.stop()
 */
import { measureMemory } from 'node:vm';

/**
 * A request body of this many bytes or more is large work: its text and parse leave tens of MB in the old space. The
 * bodies a service answers all day (a 2 MB analyze) are left to V8's own collections, which keep pace with them.
 */
export const LARGE_BODY_BYTES = 8 << 20;

/** How long the process must have been without large work before it collects (ms). */
export const QUIET_MS = 5_000;

/**
 * The least time between two collections (ms): while large work keeps coming, one at most a minute (about 0.3 s of
 * the main thread's CPU and V8's background threads marking, for a heap of 470 MB, 148 MB of it live).
 */
export const MIN_INTERVAL_MS = 60_000;

/** Options of {@link collectWhenQuiet}; the defaults are the serving process's. */
export interface CollectWhenQuietOptions {
  /** @default {@link QUIET_MS} */
  readonly quietMs?: number;
  /** @default {@link MIN_INTERVAL_MS} */
  readonly minIntervalMs?: number;
  /** The collection. @default an incremental major collection (see the module comment) */
  readonly collect?: () => Promise<unknown>;
  /** The clock, ms. @default performance.now */
  readonly now?: () => number;
  /**
   * Calls `fire` after `ms` unless the function it answers is called first. A test gives one it fires itself.
   * @default an unreferenced timer (it keeps no process alive)
   */
  readonly schedule?: (fire: () => void, ms: number) => () => void;
}

/** The collection of a serving process: told of large work, it collects once things are quiet. */
export interface QuietCollection {
  /** Large work has just been done: a collection follows once none has been done for the quiet time. */
  note(): void;
  /** No collection from now on (shutdown). */
  stop(): void;
  /** The collections started so far. */
  readonly collections: number;
}

/**
 * An incremental major collection of this thread's heap (the module comment says why this call); settles once it is
 * over. `'default'` starts it 10–20 s from now; `'eager'` at once, but finishes at once a marking already under way.
 * @example await collectIncrementally('eager')
 */
export function collectIncrementally(execution: 'default' | 'eager' = 'default'): Promise<unknown> {
  return measureMemory({ mode: 'summary', execution });
}

function unrefTimeout(fire: () => void, ms: number): () => void {
  const timer = setTimeout(fire, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * Collects the garbage of large work once the process has gone quiet: {@link QuietCollection.note} after each large
 * piece of work; a collection starts when none has been noted for `quietMs`, and at most one every `minIntervalMs`.
 * A failed collection is ignored (the next note tries again).
 * @example
 * const collection = collectWhenQuiet({ quietMs: 5000 })
 * collection.note() // a 40 MB body answered: collected 5 s from now unless more comes
 */
export function collectWhenQuiet(options: CollectWhenQuietOptions = {}): QuietCollection {
  const quietMs = options.quietMs ?? QUIET_MS;
  const minIntervalMs = options.minIntervalMs ?? MIN_INTERVAL_MS;
  const collect = options.collect ?? (() => collectIncrementally());
  const now = options.now ?? (() => performance.now());
  const schedule = options.schedule ?? unrefTimeout;
  let cancel: (() => void) | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;
  let running = false;
  // large work noted while a collection ran: its garbage may be younger than the collection's marking
  let noted = false;
  let stopped = false;
  let collections = 0;

  const arm = () => {
    cancel?.();
    const wait = Math.max(quietMs, lastStart + minIntervalMs - now());
    cancel = schedule(fire, wait);
  };
  const fire = () => {
    cancel = undefined;
    if (stopped) return;
    running = true;
    noted = false;
    lastStart = now();
    collections++;
    const done = () => {
      running = false;
      if (noted && !stopped) arm();
    };
    let collecting: Promise<unknown>;
    try {
      collecting = collect();
    } catch (e) {
      // a collection that throws (a runtime without it) is one that failed: ignored like a rejected one
      collecting = Promise.reject(e);
    }
    collecting.then(done, done);
  };
  return {
    note() {
      if (stopped) return;
      if (running) noted = true;
      else arm();
    },
    stop() {
      stopped = true;
      cancel?.();
      cancel = undefined;
    },
    get collections() {
      return collections;
    },
  };
}
