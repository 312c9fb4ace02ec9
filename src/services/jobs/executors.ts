/**
 * The executor table of the job model: what one item of each job type runs, `{ analyze, score, scan, extract, audit }`,
 * behind a narrow port of the engine ({@link JobEngine}: `Engine` is one). The one runner (./runner.ts) looks an
 * item's executor up here, whichever backend the job came from — so a scan item of the PostgreSQL queue and of an
 * HTTP job run the same code and give the same result shape:
 *
 *   analyze  → the `AnalysisResult` of `engine.analyze(item, { owner })`
 *   score    → the `ScoreResult` of `engine.score(item, { owner })` (a `work_hash` must be the owner's)
 *   scan     → `{ id, hits }`: the item's id and its `ScanHit`s, in the order `engine.scan` yields them
 *   extract  → the `WorkExtractionResult` of `engine.memorization.extractWork` with the model held for the item (or built
 *              by the host) and a journal in the store
 *   audit    → the `CatalogueAuditResult` of `engine.memorization.auditCatalogue` over the item's catalogue, the model
 *              and the journal as for extract (one journal for the catalogue)
 *
 * An executor takes the item, the claim (its job's account and context: the plan's file limit, a scan's datasets and
 * options) and the item's abort signal (its time limit, a cancel, a shutdown).
 */
import { TrainprintError } from '../../errors.js';
import type { SliceOptions } from '../../corpus/types.js';
import type { TargetModel } from '../../models/types.js';
import type { AnalyzeOptions, AnalyzeRequest } from '../analyze/types.js';
import type { ExtractWorkRequest } from '../memorization/extract-work.js';
import type { CatalogueAuditRequest, CatalogueAuditResult } from '../memorization/audit.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import type { ExtractionJournal } from '../memorization/extraction-journal.js';
import { storeExtractionJournal } from '../memorization/store-journal.js';
import { storeWorkExtraction } from '../memorization/stored-extractions.js';
import { storeCatalogueAudit } from '../memorization/stored-audits.js';
import type { WorkExtractionResult } from '../memorization/extract-work.js';
import type { ScanHit, ScanItem, ScanOptions } from '../scan/types.js';
import type { Store } from '../../store/types.js';
import { modelNotHeld, type HeldJobModels, type StoredModelSpec } from './held-models.js';
import { ItemHandedBack, modelHolderAlive } from './hand-back.js';
import { unrefTimer } from '../../util/timers.js';
import type { ScoreOptions, ScoreRequest } from '../score/types.js';
import type { JobClaim, JobType } from './types.js';

/**
 * What the executors ask of an engine; `Engine` is one. A host without a scan (no exact datasets' scan) leaves
 * `scanItem` out, and scan jobs fail as a whole with NOT_SUPPORTED.
 * @example const executors = jobExecutors(engine)
 */
export interface JobEngine {
  analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<unknown>;
  score(request: ScoreRequest, options?: ScoreOptions): Promise<unknown>;
  /** @throws NOT_FOUND when the owner has no such work */
  findWork(workHash: string, options: { readonly owner: string }): Promise<unknown>;
  scanItem?(item: ScanItem, options?: ScanOptions): Promise<readonly ScanHit[]>;
  readonly memorization: {
    extractWork(request: ExtractWorkRequest): Promise<unknown>;
    /** The catalogue audit; without it audit jobs fail with NOT_SUPPORTED. */
    auditCatalogue?(request: CatalogueAuditRequest): Promise<unknown>;
  };
}

/**
 * Runs one item: its result (plain JSON) or a thrown error, which becomes the item's failed result.
 * @example const run: JobExecutor = (item, claim, signal) => engine.analyze(item as AnalyzeRequest, { owner: claim.job.account, signal })
 */
export type JobExecutor = (item: unknown, claim: JobClaim, signal: AbortSignal, slice?: ItemSlice) => Promise<unknown>;

/**
 * The time an item has, as the runner gives it: `deadline` (ms since the epoch) when its time limit (`limitMs`) ends.
 * An executor that can go on later stops before it and throws `ItemHandedBack('continues')` (./hand-back.ts).
 */
export interface ItemSlice {
  readonly deadline: number;
  readonly limitMs: number;
}

/**
 * Model calls one plan unit pays for in an extract item: an item is charged a unit per this many calls of its
 * `budget_calls` (2,000 by default: 20 units), at submission with the job's other items — the most it can make, since
 * the budget is never exceeded. Other items are one unit each.
 * @example jobUnits('extract', [{ budget_calls: 250 }]) // 3
 */
export const EXTRACT_CALLS_PER_UNIT = 100;

/**
 * The plan units a job's items are charged at submission: one an item, an extract item one per
 * {@link EXTRACT_CALLS_PER_UNIT} calls of its budget, an audit item likewise (default 2,000).
 * @example jobUnits('scan', items) // items.length
 */
export function jobUnits(type: JobType, items: readonly unknown[]): number {
  if (type !== 'extract' && type !== 'audit') return items.length;
  let units = 0;
  for (const item of items) {
    const budget = (item as { budget_calls?: unknown } | null)?.budget_calls;
    const calls = typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : 2000;
    units += Math.ceil(calls / EXTRACT_CALLS_PER_UNIT);
  }
  return units;
}

/** How long a runner leaves an extract job whose model another live process holds, before it looks again (ms). */
export const HAND_BACK_RETRY_MS = 1000;

/**
 * How long before the item's limit a slice of an extraction ends, for the calls in flight to be answered and
 * journaled: a quarter of the limit, at least 20 ms and at most 65 s (a model call's own limit is 60 s by default,
 * `createOpenAICompatibleModel`'s `timeoutMs`; at the 5-minute default a slice runs 235 s).
 */
function sliceMargin(limitMs: number): number {
  return Math.min(65_000, Math.max(20, Math.floor(limitMs / 4)));
}

/**
 * One executor per job type; a type without one cannot run in this process (its jobs fail with NOT_SUPPORTED and
 * the reason in `unsupported`).
 * @example const table: JobExecutors = { executors: { scan: (item) => scan(item) }, unsupported: {} }
 */
export interface JobExecutors {
  readonly executors: Readonly<Partial<Record<JobType, JobExecutor>>>;
  /** Why a type has no executor here. */
  readonly unsupported: Readonly<Partial<Record<JobType, string>>>;
}

/** The item of an extract job: the request of `extractWork` with its model named (`base_url`, `model`), not built. */
export type ExtractJobItem = Omit<ExtractWorkRequest, 'model'> & { readonly model: Readonly<Record<string, unknown>> };

/** The item of an audit job: the request of `auditCatalogue` (a catalogue of works) with its model named, not built. */
export type AuditJobItem = Omit<CatalogueAuditRequest, 'model' | 'journal' | 'signal' | 'stop'> & {
  readonly model: Readonly<Record<string, unknown>>;
};

/**
 * Options of {@link jobExecutors}.
 * @example jobExecutors(engine, { work: { sliceMs: 3, offload: pool } })
 */
export interface JobExecutorOptions {
  /** How analyze and score slice their work and where they offload it (as over HTTP). */
  readonly work?: SliceOptions;
  /**
   * Builds the model an extract item names (the host's URL policy applies), for items without a held model.
   * Without it, and without `jobModels`, extract jobs fail with NOT_SUPPORTED: a model's key is never kept with a
   * job's items, so only the host can supply it.
   */
  readonly model?: (spec: Readonly<Record<string, unknown>>) => Promise<TargetModel>;
  /**
   * The models the host's handler held for the extract jobs it accepted (`model.held` of an item): the same object
   * the handler was given. An item whose model this process does not hold fails with INVALID_INPUT naming
   * `model.api_key` (resubmit with the key).
   */
  readonly jobModels?: HeldJobModels;
  /**
   * Where extract items keep their journal (every answered call, by account, service, model, work and request
   * SHA-256): a job resubmitted or run again after a restart replays those calls. Without it an item has no journal.
   */
  readonly journalStore?: Store;
}

/** The datasets and options a scan job carries in its context. */
function scanOptions(claim: JobClaim, signal: AbortSignal): ScanOptions {
  const c = claim.context;
  const account = claim.job.account;
  return {
    // a job without an account is the operator's (the scan queue's, enqueued from the command line)
    ...(account === '' ? {} : { account }),
    signal,
    ...(Array.isArray(c.datasets) ? { datasets: c.datasets as string[] } : {}),
    ...(typeof c.min_words === 'number' ? { minWords: c.min_words } : {}),
    ...(typeof c.paraphrase === 'boolean' ? { paraphrase: c.paraphrase } : {}),
  };
}

/**
 * The scan executor over a scan of one item: `{ id, hits }` with the datasets and options of the job's context —
 * the one a `trainprint worker` of the PostgreSQL queue runs, and the table's `scan`.
 * @example const run = scanExecutor((item, o) => engine.scanItem(item, o))
 */
export function scanExecutor(
  scanItem: (item: ScanItem, options: ScanOptions) => Promise<readonly ScanHit[]>,
): JobExecutor {
  return async (item, claim, signal) => {
    const { id, text } = item as ScanItem;
    return { id, hits: await scanItem({ id, text }, scanOptions(claim, signal)) };
  };
}

/**
 * The executor table of `engine`: analyze and score as their requests run over HTTP (the job's account as owner,
 * the plan's file limit when it was submitted, the item's signal reaching a file's extraction, the remote corpora
 * and evidence sources), scan against the exact datasets the job names, extract with the host's model.
 * @example const runner = new JobRunner({ jobs, ...jobExecutors(engine, { work: { sliceMs: 3 } }) })
 */
export function jobExecutors(engine: JobEngine, options: JobExecutorOptions = {}): JobExecutors {
  const work = options.work ?? {};
  const fileLimit = (claim: JobClaim) =>
    typeof claim.context.max_file_bytes === 'number' ? claim.context.max_file_bytes : undefined;
  const executors: Partial<Record<JobType, JobExecutor>> = {
    analyze: (item, claim, signal) =>
      engine.analyze(item as AnalyzeRequest, {
        owner: claim.job.account,
        maxFileBytes: fileLimit(claim),
        signal,
        ...work,
      }),
    score: async (item, claim, signal) => {
      const request = item as ScoreRequest;
      const owner = claim.job.account;
      if ((request.work_hash !== undefined) === (request.content !== undefined))
        throw new TrainprintError('INVALID_INPUT', 'give work_hash or content, one of them');
      if (request.work_hash !== undefined) await engine.findWork(request.work_hash, { owner });
      return engine.score(request, { ...work, owner, maxFileBytes: fileLimit(claim), signal });
    },
  };
  const unsupported: Partial<Record<JobType, string>> = {};
  const scanItem = engine.scanItem?.bind(engine);
  if (scanItem) executors.scan = scanExecutor(scanItem);
  else unsupported.scan = 'this server has no scan';
  const { model, jobModels, journalStore } = options;
  if (model || jobModels) {
    const modelOf = (spec: Readonly<Record<string, unknown>>) => itemModel(spec, options);
    // an item's journal in the store (none without one): by account, service, model and what the item reads
    const journalOf = (
      claim: JobClaim,
      spec: Readonly<Record<string, unknown>>,
      what: { readonly text?: string } | { readonly workId: string },
    ) =>
      journalStore === undefined
        ? undefined
        : storeExtractionJournal(journalStore, {
            account: claim.job.account,
            baseUrl: String(spec.base_url ?? ''),
            model: String(spec.model ?? ''),
            ...what,
          });
    executors.extract = async (item, claim, signal, slice) => {
      const { model: spec, ...request } = item as ExtractJobItem;
      const target = await modelOf(spec);
      const journal = journalOf(
        claim,
        spec,
        request.work_id === undefined ? { text: request.text } : { workId: request.work_id },
      );
      const result = (await slicedRun(journal, signal, slice, (stop, counted) =>
        engine.memorization.extractWork({
          ...request,
          model: target,
          // a cancel, the item's limit or a shutdown aborts the calls in flight; the end of a slice lets them finish
          signal,
          stop,
          ...(counted ? { journal: counted } : {}),
        }),
      )) as WorkExtractionResult;
      // kept with the account's works: an analysis of the same text bundles it and draws it in its report
      if (journalStore !== undefined) await storeWorkExtraction(journalStore, claim.job.account, result);
      return result;
    };
    const audit = engine.memorization.auditCatalogue?.bind(engine.memorization);
    if (audit)
      executors.audit = async (item, claim, signal, slice) => {
        const { model: spec, ...request } = item as AuditJobItem;
        const target = await modelOf(spec);
        // one journal for the catalogue: its works' calls, by account, service, model and the catalogue's works
        const journal = journalOf(claim, spec, {
          text: `audit\n${JSON.stringify(request.works.map((w) => [w.id, w.text, w.sections ?? null]))}`,
        });
        const result = (await slicedRun(journal, signal, slice, (stop, counted) =>
          audit({ ...request, model: target, signal, stop, ...(counted ? { journal: counted } : {}) }),
        )) as CatalogueAuditResult;
        // kept with the account's works: an analysis of any of their texts bundles it
        if (journalStore !== undefined)
          await storeCatalogueAudit(journalStore, claim.job.account, result, await textDigests(request.works));
        return result;
      };
    else unsupported.audit = "this engine's memorization has no catalogue audit";
  } else {
    unsupported.extract = 'this process builds no model for an extraction';
    unsupported.audit = 'this process builds no model for an audit';
  }
  return { executors, unsupported };
}

/**
 * The model of an extract or audit item: the one held for it in this process, or built by the host (`model`).
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
    throw modelNotHeld(stored.keyed === true);
  }
  if (model) return model(spec);
  throw modelNotHeld();
}

/** The SHA-256 (hex, UTF-8) of each work's text, in the catalogue's order: the keys its audit is kept under. */
async function textDigests(works: ReadonlyArray<{ readonly text: string }>): Promise<string[]> {
  const digests: string[] = [];
  for (const w of works) digests.push(await sha256Hex(w.text));
  return digests;
}

/** A journal that counts the calls answered and journaled in this slice. */
type CountedJournal = { get: ExtractionJournal['get']; put: ExtractionJournal['put'] };

/**
 * Runs a journaled model run (an extraction, an audit) in the item's time slice: with a journal it stops before the
 * item's limit, after the calls in flight are journaled, and is claimed again (`ItemHandedBack('continues')`); the next
 * slice replays every answered call and asks only the rest. A slice that journaled no new call is the time limit.
 */
async function slicedRun<T>(
  journal: ExtractionJournal | undefined,
  signal: AbortSignal,
  slice: ItemSlice | undefined,
  run: (stop: AbortSignal, journal: CountedJournal | undefined) => Promise<T>,
): Promise<T> {
  const sliced = journal !== undefined && slice !== undefined;
  const stop = new AbortController();
  const onItem = () => stop.abort(signal.reason);
  if (signal.aborted) onItem();
  else signal.addEventListener('abort', onItem, { once: true });
  const endOfSlice = new TrainprintError('PAYLOAD_TOO_LARGE', 'the end of the time slice');
  const timer = sliced
    ? unrefTimer(
        setTimeout(() => stop.abort(endOfSlice), Math.max(1, slice.deadline - Date.now() - sliceMargin(slice.limitMs))),
      )
    : null;
  let fresh = 0;
  const counted =
    journal === undefined
      ? undefined
      : {
          get: journal.get,
          put: async (k: string, c: Parameters<typeof journal.put>[1]) => {
            await journal.put(k, c);
            fresh++;
          },
        };
  try {
    return await run(stop.signal, counted);
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
    signal.removeEventListener('abort', onItem);
  }
}
