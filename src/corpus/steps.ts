/**
 * Work written as steps (generators) that pause where a sliced search may give the event loop a turn:
 * the synchronous callers run them to the end with {@link finish}, `Corpus.searchDetailedAsync` awaits a
 * macrotask at a pause once its slice of time is used. One body for both, so both give the same result.
 */

/** A point where sliced work may give the event loop a turn. */
export const PAUSE = Object.freeze({ kind: 'pause' } as const);
/** {@link PAUSE}'s type. */
export type Pause = typeof PAUSE;

/** Steps that only pause and return a `T`. */
export type Steps<T> = Generator<Pause, T, unknown>;

/** Pause every this many items of a long loop (well under a millisecond to a few each on the loops that use it). */
export const ITEMS_PER_PAUSE = 1 << 12;

/**
 * Run steps that only pause to completion, in one go (the synchronous callers).
 * @example const outcome = finish(alignSteps(core, query, jobs, 50, 2000, pairs))
 */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
