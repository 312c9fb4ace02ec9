/**
 * What the job types that call a model service share (./extract.ts, ./audit.ts): the units of a call budget, the
 * models held at submission (the key stays in the accepting process: ../held-models.ts), the model of an item at run
 * time, its journal in the store, and the run in time slices that goes on from that journal.
 */
import { TrainprintError } from '../../../errors.js';
import type { TargetModel } from '../../../models/types.js';
import type { Store } from '../../../store/types.js';
import { anySignal } from '../../../util/signals.js';
import { unrefTimer } from '../../../util/timers.js';
import type { ExtractionJournal } from '../../memorization/extraction-journal.js';
import { MEMORIZATION_LIMITS } from '../../memorization/limits.js';
import {
  storeExtractionJournal,
  storeJournalPrefix,
  storeJournalPrefixOfParts,
  type StoreJournalScope,
} from '../../memorization/store-journal.js';
import { turnsEvery } from '../../../util/steps.js';
import { attachToJob } from '../attached.js';
import { ItemHandedBack, modelHolderAlive } from '../hand-back.js';
import { modelNotHeld, type StoredModelSpec } from '../held-models.js';
import type { ItemSlice, JobExecutor, JobExecutorOptions, JobPrepareContext, PreparedItems } from '../job-type.js';
import type { JobClaim } from '../types.js';

/**
 * Model calls one plan unit pays for in an extract or audit item: an item is charged a unit per this many calls of
 * its `budget_calls` (2,000 by default: 20 units), at submission — the most it can make, since the budget is never
 * exceeded — and when it ends owes a unit per this many calls it made (at least one), the rest given back.
 * @example budgetUnits({ budget_calls: 250 }) // 3
 */
export const EXTRACT_CALLS_PER_UNIT = 100;

/** How long a runner leaves a job whose model another live process holds, before it looks again (ms). */
export const HAND_BACK_RETRY_MS = 1000;

/** The units of an item with a call budget ({@link EXTRACT_CALLS_PER_UNIT}), its schema's: 1..1,000,000 or the default. */
export function budgetUnits(item: { readonly budget_calls?: number }): number {
  const calls = item.budget_calls ?? MEMORIZATION_LIMITS.extractWork.budget_calls.default;
  return Math.ceil(calls / EXTRACT_CALLS_PER_UNIT);
}

type ModelItem = { readonly model: Readonly<Record<string, unknown>> };

/**
 * The work an item's journal is kept by (its text or `work_id`; an audit: its catalogue, as the parts of its text), with
 * the account and model.
 */
export type JournalWork<I> = (
  request: Omit<I, 'model'>,
) => { readonly text?: string } | { readonly workId: string } | { readonly textParts: Iterable<string> };

/**
 * What a submitted item was charged, stored with it: the units of its whole budget (the most it can make), and the
 * answered calls its journal held then (a resubmission's: replayed, not made). When it ends, the units of the calls it
 * did not make are given back ({@link settleCharge}).
 */
interface ItemCharge {
  readonly units: number;
  readonly journaled: number;
}

/** The answered calls in the store journal under `prefix` (a {@link storeJournalPrefix}). */
async function journaledCalls(store: Store, prefix: string): Promise<number> {
  return (await store.scan(prefix)).length;
}

/** Where an item's settled charge is flagged (attached to its job, deleted with it). */
const SETTLED = 'job-settled/';

/**
 * What an item that ended owes: a unit per {@link EXTRACT_CALLS_PER_UNIT} calls it made — the answered calls its
 * journal gained since submission (its own, across slices and restarts; a failed call is not kept, not counted) — at
 * least one; the rest of its charge is given back through the host's `jobModels.giveBack`, once per item.
 */
async function settleCharge(
  store: Store,
  options: JobExecutorOptions,
  claim: JobClaim,
  prefix: string,
  charge: ItemCharge,
): Promise<void> {
  const giveBack = options.jobModels?.giveBack;
  if (!giveBack) return;
  const made = (await journaledCalls(store, prefix)) - charge.journaled;
  const owed = Math.max(1, Math.ceil(Math.max(0, made) / EXTRACT_CALLS_PER_UNIT));
  if (owed >= charge.units) return;
  const flag = `${SETTLED}${claim.job.id}/${prefix}`;
  const first = await store.transaction(async (tx) => {
    if ((await tx.get(flag)) !== undefined) return false;
    tx.put(flag, true);
    return true;
  });
  if (!first) return;
  await attachToJob(store, claim.job.id, flag);
  await giveBack(claim.job.account, charge.units - owed, claim.job.created);
}

/** The journal scope of an item: its account, its model service and model, and its work (none for a text in parts). */
function journalScope(
  account: string,
  spec: Readonly<Record<string, unknown>>,
  work: ReturnType<JournalWork<never>>,
): StoreJournalScope {
  const scope = { account, baseUrl: String(spec.base_url ?? ''), model: String(spec.model ?? '') };
  return 'textParts' in work ? scope : { ...scope, ...work };
}

/**
 * Work between two turns of the event loop while a work given in parts is hashed for its journal's prefix, in ms:
 * a catalogue of 100,000 works is about 40 MB of JSON.
 */
const PREFIX_SLICE_MS = 5;

/**
 * The store prefix of an item's journal ({@link storeJournalPrefix}); a work given in parts is hashed part by part
 * with turns of the event loop between them, to the same prefix as its text whole.
 */
function journalPrefix(scope: StoreJournalScope, work: ReturnType<JournalWork<never>>): Promise<string> {
  if (!('textParts' in work)) return Promise.resolve(storeJournalPrefix(scope));
  return storeJournalPrefixOfParts(scope, work.textParts, turnsEvery(PREFIX_SLICE_MS));
}

/**
 * Each item's model built now (the host's policy applied to its `base_url`, 422 naming `items[i].model.base_url`);
 * once charged the models are held in this process's memory and the items stored by the held model's handle, without
 * the key. `check` runs on each item with its model: the checks its run makes before any call
 * ({@link itemChecked} names the item in their errors).
 * @throws NOT_SUPPORTED when the host holds no models
 */
export async function holdModels<I extends ModelItem & { readonly budget_calls?: number }>(
  type: string,
  items: readonly I[],
  context: JobPrepareContext,
  check: (item: I, i: number, model: TargetModel) => Promise<void>,
  work: JournalWork<I>,
): Promise<() => PreparedItems> {
  const held = context.jobModels;
  if (held === null)
    throw new TrainprintError('NOT_SUPPORTED', `this server runs no ${type} jobs (its host holds no models for them)`);
  const built: TargetModel[] = [];
  const charges: ItemCharge[] = [];
  for (let i = 0; i < items.length; i++) {
    const model = await context.targetModel(items[i].model, `items[${i}].model`);
    await check(items[i], i, model);
    built.push(model);
    const { model: spec, ...request } = items[i];
    const asked = work(request);
    const prefix = await journalPrefix(journalScope(context.account, spec, asked), asked);
    const journaled = await journaledCalls(context.store, prefix);
    charges.push({ units: budgetUnits(items[i]), journaled });
  }
  return () => {
    const handles = built.map((m) => held.hold(m));
    const stored = items.map(({ model, ...rest }, i) => {
      const { api_key: key, ...named } = model;
      const keyed = key === undefined ? {} : { keyed: true as const };
      return { ...rest, charge: charges[i], model: { ...named, held: handles[i], holder: held.id, ...keyed } };
    });
    const keyed = items.some((item) => item.model.api_key !== undefined);
    return {
      items: stored,
      bind: (jobId: string) => held.bind(jobId, handles),
      ...(keyed ? { notice: KEY_IN_MEMORY } : {}),
    };
  };
}

/** What a submission with a key is told: where the key is, and what a restart does. */
const KEY_IN_MEMORY =
  "model.api_key is held in this server process's memory only, never stored: if the process restarts before the " +
  'items finish, they fail naming model.api_key; resubmit them with the key (the journal replays every call answered, ' +
  'and only the calls still to make are charged)';

/**
 * The model of an item: the one held for it in this process, or built by the host (`model`) — or, for an item sent
 * without a key (nothing secret: its stored spec is all of it), built again from its spec once no live process holds
 * it (a restart), the host's model-host policy applied again (`jobModels.build`).
 * @throws ItemHandedBack while another live process holds it; INVALID_INPUT naming `model.api_key` when none does
 */
async function itemModel(spec: Readonly<Record<string, unknown>>, options: JobExecutorOptions): Promise<TargetModel> {
  const { model, jobModels, journalStore } = options;
  const stored = spec as Partial<StoredModelSpec>;
  if (typeof stored.held === 'string') {
    const target = jobModels?.take(stored.held);
    if (target) return target;
    // another live process holds the key: it runs the item; none does: fail now, the caller resubmits
    const holder = stored.holder;
    if (
      typeof holder === 'string' &&
      holder !== jobModels?.id &&
      journalStore !== undefined &&
      (await modelHolderAlive(journalStore, holder))
    )
      throw new ItemHandedBack('elsewhere', 'the model is held by another process', HAND_BACK_RETRY_MS);
    const build = model ?? jobModels?.build;
    if (stored.keyed !== true && build) {
      const { held: _handle, holder: _holder, ...named } = stored;
      return build(named);
    }
    throw modelNotHeld(stored.keyed === true);
  }
  if (model) return model(spec);
  throw modelNotHeld();
}

/**
 * Runs a journaled model run (an extraction, an audit) in the item's time slice: with a journal it stops before the
 * item's limit, after the calls in flight are journaled, and is claimed again (`ItemHandedBack('continues')`); the next
 * slice replays every answered call and asks only the rest. A slice that journaled no new call is the time limit.
 */
async function slicedRun<T>(
  journal: ExtractionJournal | undefined,
  signal: AbortSignal,
  slice: ItemSlice | undefined,
  run: (stop: AbortSignal, journal: ExtractionJournal | undefined) => Promise<T>,
): Promise<T> {
  const sliced = journal !== undefined && slice !== undefined;
  // the end of the slice (the item's signal stops the run too), before the item's limit by a margin for the calls in
  // flight to be answered and journaled: a quarter of the limit, at least 20 ms and at most 65 s (a model call's own
  // limit is 60 s by default, `createOpenAICompatibleModel`'s `timeoutMs`; at the 5-minute default a slice runs 235 s)
  const stop = new AbortController();
  const endOfSlice = new TrainprintError('PAYLOAD_TOO_LARGE', 'the end of the time slice');
  const margin = sliced ? Math.min(65_000, Math.max(20, Math.floor(slice.limitMs / 4))) : 0;
  const timer = sliced
    ? unrefTimer(setTimeout(() => stop.abort(endOfSlice), Math.max(1, slice.deadline - Date.now() - margin)))
    : null;
  // the journal as the run sees it, counting the calls answered and journaled in this slice
  let fresh = 0;
  const counted: ExtractionJournal | undefined = journal && {
    ...(journal.compact ? { compact: true } : {}),
    get: journal.get,
    put: async (k, c) => {
      await journal.put(k, c);
      fresh++;
    },
  };
  try {
    return await run(anySignal([signal, stop.signal]), counted);
  } catch (e) {
    if (e !== endOfSlice || signal.aborted) throw e;
    // a slice that answered no new call would be followed by another like it: that is the time limit
    if (fresh === 0)
      throw new TrainprintError(
        'PAYLOAD_TOO_LARGE',
        `the item made no new model call within the time limit of a job item (${Math.round(slice!.limitMs / 1000)} s)`,
      );
    throw new ItemHandedBack('continues', `${fresh} new calls journaled in this slice`);
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}

/** What an item's run passes on to the engine's operation, beside the request and the model. */
export interface ModelRunControls {
  /** The item's signal: a cancel, the item's limit or a shutdown aborts the calls in flight. */
  readonly signal: AbortSignal;
  /** The end of the slice as well: the calls in flight are let finish and journaled. */
  readonly stop: AbortSignal;
  /** The item's journal, counting the calls of this slice (none without a store). */
  readonly journal?: ExtractionJournal;
}

/** How the items of a type that calls a model service run: what the request reads, the operation, what is kept. */
export interface ModelItemRun<I extends ModelItem, T> {
  /** What the request (the item less its model) reads: its journal is by account, service, model and this. */
  readonly reads: JournalWork<I>;
  /**
   * The engine's operation on the request with the item's model and the controls to pass on; `journalPrefix`, the
   * item's journal's store prefix (none without a store), names the item's run across its slices.
   */
  run(request: Omit<I, 'model'>, model: TargetModel, controls: ModelRunControls, journalPrefix?: string): Promise<T>;
  /** Keeps the result with the account's works, in the store of the journals (not without one). */
  keep(store: Store, account: string, result: T, request: Omit<I, 'model'>): Promise<void>;
  /**
   * What the item's result line holds once `keep` kept the result (a large result's first page: the rest read from
   * the store by pages). Without it, or without a store: the result whole.
   */
  line?(result: T): unknown;
}

/**
 * The executor of a type whose items call a model service (an extraction, an audit): an item's model
 * ({@link itemModel}), its journal in the host's store (none without one), `run` in the item's time slice
 * ({@link slicedRun}), then its result kept. Why the host runs none of `what` when it builds and holds no models.
 * @throws ItemHandedBack at the end of a slice, or while another live process holds the model
 * @example
 * modelItemExecutor(options, 'extraction', { reads: (r) => ({ text: r.text }), keep, run: (r, model, controls) =>
 *   engine.memorization.extractWork({ ...r, model, ...controls }) })
 */
export function modelItemExecutor<I extends ModelItem, T>(
  options: JobExecutorOptions,
  what: string,
  how: ModelItemRun<I, T>,
): JobExecutor | string {
  if (!options.model && !options.jobModels) return `this process builds no model for an ${what}`;
  const store = options.journalStore;
  return async (item, claim, signal, slice) => {
    const { model: spec, charge, ...request } = item as I & { readonly charge?: ItemCharge };
    const asked = request as Omit<I, 'model'>;
    const work = how.reads(asked);
    const scope = journalScope(claim.job.account, spec, work);
    // once a slice: an audit's scope is its catalogue, tens of MB to digest (between turns of the event loop)
    const prefix = store ? await journalPrefix(scope, work) : undefined;
    try {
      const target = await itemModel(spec, options);
      // the journal goes with the job (deleted with it, or when its retention ends)
      if (store && prefix) await attachToJob(store, claim.job.id, prefix);
      const journal = store && storeExtractionJournal(store, scope, { prefix });
      const result = await slicedRun(journal, signal, slice, (stop, counted) =>
        how.run(asked, target, { signal, stop, journal: counted }, prefix),
      );
      if (!store || !prefix) return result;
      await how.keep(store, claim.job.account, result, asked);
      if (charge) await settleCharge(store, options, claim, prefix, charge);
      return how.line ? how.line(result) : result;
    } catch (e) {
      // an item that ends (not handed back, not stopped by a cancel or a shutdown) owes only the calls it made
      if (store && prefix && charge && !(e instanceof ItemHandedBack) && !signal.aborted)
        await settleCharge(store, options, claim, prefix, charge);
      throw e;
    }
  };
}
