/**
 * The models of extract jobs, held in the memory of the process that accepted them. An extract item names an
 * OpenAI-compatible model service and may carry its key; a job's items are stored (they outlive the request, and every
 * process on the store reads them), so the key must not go with them. The host builds the model when the job is
 * submitted (its URL policy applied then), holds it here under a random handle, and stores the item with the handle
 * and without the key; the runner of the same process takes the model back by that handle. A process started again
 * holds nothing: its items sent with a key fail with INVALID_INPUT naming `model.api_key`, and the caller resubmits
 * with the key — the extraction's journal (in the store) replays every call already answered, so none is made twice;
 * an item sent without a key holds no secret and is built again from what is stored (`build`), so it resumes. Several
 * processes on one store: the holder runs the item while it is alive (./hand-back.ts).
 */
import { TrainprintError } from '../../errors.js';
import type { TargetModel } from '../../models/types.js';
import { newId } from '../../util/validate.js';
import { JOB_RETENTION_MS } from './service.js';

/** The model of an extract item as its job stores it: the service named, the key left out, the held model's handle. */
export interface StoredModelSpec {
  readonly base_url: string;
  readonly model: string;
  readonly api?: 'completions' | 'chat';
  readonly top_logprobs?: number;
  /** The handle of the model held in the accepting process's memory ({@link HeldJobModels.hold}). */
  readonly held: string;
  /** True when the item was sent with `api_key` (left out of the stored item): a restart then asks for it again. */
  readonly keyed?: true;
  /** The id of the accepting process's {@link HeldJobModels}, which holds the item while alive (./hand-back.ts). */
  readonly holder?: string;
}

/**
 * The models held by one process for its extract jobs. Handles are random and never reused; a model is released when
 * its job is cancelled or deleted, and at the latest after `ttlMs` (default: as long as a finished job is kept).
 * @example
 * const models = createHeldJobModels()
 * const held = models.hold(model)                  // stored with the item: { base_url, model, api, held }
 * models.take(held)                                // the model, in this process; undefined after a restart
 */
export interface HeldJobModels {
  /** This holder's id (random): stored with each item as `holder`, and beaten into the store by its runner. */
  readonly id: string;
  /** Holds `model` and answers its handle. */
  hold(model: TargetModel): string;
  /** The model held under `handle`, if this process holds it. */
  take(handle: string): TargetModel | undefined;
  /** Records that `handles` are the models of job `jobId`, for {@link HeldJobModels.releaseJob}. */
  bind(jobId: string, handles: Iterable<string>): void;
  /** Forgets the models of job `jobId` (cancelled or deleted: none of its items runs again). */
  releaseJob(jobId: string): void;
  /** Models held now. */
  readonly size: number;
  /**
   * Builds the model of an item sent without a key from its stored spec (base_url, model, options: nothing secret),
   * when no live process holds it — after a restart, so such an item resumes. The handler given this object sets it
   * (its model-host policy applies again); without it, such an item fails as a keyed one does.
   */
  build?: (spec: Readonly<Record<string, unknown>>) => Promise<TargetModel>;
  /**
   * Gives back to `account`'s plan the `units` an item was charged (at `chargedAt`, ms) for calls it did not make: an
   * extract or audit item is charged its whole budget at submission and, when it ends, owes only the calls it made (a
   * resubmission replays its journal). The handler given this object sets it (its rate limiter); without it nothing
   * is given back.
   */
  giveBack?: (account: string, units: number, chargedAt: number) => Promise<void>;
}

/**
 * A process's {@link HeldJobModels}: give the same one to the handler (which holds) and to the runner (which takes).
 * @example const jobModels = createHeldJobModels(); createHandler(engine, { jobModels }); startJobRunner(engine, { jobModels })
 */
export function createHeldJobModels(
  options: { readonly ttlMs?: number; readonly now?: () => number } = {},
): HeldJobModels {
  const ttl = options.ttlMs ?? JOB_RETENTION_MS;
  const now = options.now ?? Date.now;
  const held = new Map<string, { model: TargetModel; until: number }>();
  const jobs = new Map<string, { handles: string[]; until: number }>();
  const sweep = () => {
    const t = now();
    for (const [k, v] of held) if (v.until <= t) held.delete(k);
    for (const [k, v] of jobs) if (v.until <= t) jobs.delete(k);
  };
  return {
    id: newId('hh_'),
    hold(model) {
      sweep();
      const handle = newId('hm_');
      held.set(handle, { model, until: now() + ttl });
      return handle;
    },
    take(handle) {
      const h = held.get(handle);
      return h && h.until > now() ? h.model : undefined;
    },
    bind(jobId, handles) {
      jobs.set(jobId, { handles: [...handles], until: now() + ttl });
    },
    releaseJob(jobId) {
      for (const h of jobs.get(jobId)?.handles ?? []) held.delete(h);
      jobs.delete(jobId);
    },
    get size() {
      return held.size;
    },
  };
}

/**
 * The error of an extract item whose model this process does not hold (it restarted, or another process on the store
 * accepted the job): naming `model.api_key` when the item was sent with a key, else `model`.
 * @example throw modelNotHeld()
 */
export function modelNotHeld(keyed = true): TrainprintError {
  const where =
    'kept only in the memory of the server process that accepted the job, and that process no longer holds it (it restarted, or another process runs this item)';
  const replayed = "the calls already answered are replayed from the extraction's journal, none is made again";
  // an item sent without a key is not told to send one: its model is held in memory all the same
  const field = keyed ? 'model.api_key' : 'model';
  const reason = keyed
    ? `is ${where.replace('kept only', 'kept only, never stored,')}; resubmit the job with the key: ${replayed}`
    : `is ${where}; resubmit the job: ${replayed}`;
  return new TrainprintError('INVALID_INPUT', `${field} ${reason}`, {
    cause: { location: 'body', field, reason },
  });
}
