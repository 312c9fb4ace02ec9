/**
 * An item given back to the job store rather than given a result: the executor throws {@link ItemHandedBack} and the
 * runner releases the item's chunk (not counted as an attempt), to be claimed again.
 *
 *  - `continues`: an item that makes progress across time slices (an extraction of a whole book: every answered call
 *    is in its journal, so the next slice replays them and asks only the rest) reached the end of its slice before
 *    the item's time limit; any runner claims it again at once.
 *  - `elsewhere`: the item needs what only another live process holds (an extract job's model key, kept only in the
 *    memory of the process that accepted the job); this runner leaves the job to the others for `retryMs`.
 *
 * Whether the process holding an extract job's models is alive: it beats in the store while its runner runs
 * ({@link beatModelHolder}); one that stopped or died stops beating, and an item that needs it then fails at once
 * (INVALID_INPUT naming `model.api_key`: resubmit), never waiting for it. A clean stop removes the beat at once; a
 * process killed without one reads as alive until {@link HOLDER_TTL_MS} after its last beat, and meanwhile the other
 * processes keep handing its items back (a claim and a release every `HAND_BACK_RETRY_MS`), so the bound is short.
 */
import type { Store } from '../../store/types.js';
import { unrefTimer } from '../../util/timers.js';

/** See the module's documentation. */
export class ItemHandedBack extends Error {
  readonly kind: 'continues' | 'elsewhere';
  /** `elsewhere`: how long this runner leaves the job to the others (ms). */
  readonly retryMs: number;
  constructor(kind: 'continues' | 'elsewhere', detail: string, retryMs = 0) {
    super(detail);
    this.name = 'ItemHandedBack';
    this.kind = kind;
    this.retryMs = retryMs;
  }
}

const HOLDER_PREFIX = 'extract-model-holder/';

/**
 * How long a holder reads as alive after its last beat (ms): the longest a killed process reads as alive. Beaten every
 * third of it, so two beats may be lost; `until` is read by the others' clocks, as job leases are (NTP keeps them close).
 */
export const HOLDER_TTL_MS = 15_000;
/** How often a holder beats (ms): one small `put` per process that holds models. */
export const HOLDER_BEAT_MS = HOLDER_TTL_MS / 3;

/**
 * Beats `holder` (a {@link HeldJobModels}'s id) into `store` every {@link HOLDER_BEAT_MS} until stopped: the other
 * processes on the store read it as alive until {@link HOLDER_TTL_MS} after the last beat. `stop()` removes it at once.
 * @example const beat = beatModelHolder(engine.store, jobModels.id); … await beat.stop()
 */
export function beatModelHolder(store: Store, holder: string): { stop(): Promise<void> } {
  const key = HOLDER_PREFIX + holder;
  let stopped = false;
  const beat = () => {
    if (!stopped) store.put(key, { until: Date.now() + HOLDER_TTL_MS }).catch(() => undefined);
  };
  beat();
  const timer = unrefTimer(setInterval(beat, HOLDER_BEAT_MS));
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await store.delete(key).catch(() => false);
    },
  };
}

/**
 * Whether the process holding `holder`'s models beat within its time to live.
 * @example if (await modelHolderAlive(store, spec.holder)) throw new ItemHandedBack('elsewhere', '…', 1000)
 */
export async function modelHolderAlive(store: Store, holder: string, now = Date.now()): Promise<boolean> {
  const v = (await store.get(HOLDER_PREFIX + holder)) as { until?: unknown } | undefined;
  return typeof v?.until === 'number' && v.until > now;
}
