/**
 * What a job type is ({@link JobTypeDefinition}): one module (./types/<name>.ts) that carries everything about it,
 * registered in one line of ./registry.ts; a host registers types of its own the same way ({@link defineJobType}).
 * The store and the runner take a type's chunk size at submission and its executor from the table `jobExecutors`
 * builds.
 */
import { TrainprintError } from '../../errors.js';
import type { SliceOptions } from '../../corpus/types.js';
import type { TargetModel } from '../../models/types.js';
import type { Store } from '../../store/types.js';
import type { JsonSchema } from '../../util/json-schema.js';
import { positiveInt } from '../../util/validate.js';
import type { AnalyzeOptions, AnalyzeRequest } from '../analyze/types.js';
import type { CatalogueAuditRequest } from '../memorization/audit.js';
import type { ExtractWorkRequest } from '../memorization/extract-work.js';
import type { ScanHit, ScanItem, ScanOptions } from '../scan/types.js';
import type { ScoreOptions, ScoreRequest } from '../score/types.js';
import type { HeldJobModels } from './held-models.js';
import { JOB_TYPE_NAME, JOB_TYPE_NAME_WORDS } from './request.js';
import type { JobClaim } from './types.js';

/**
 * What the built-in executors ask of an engine; `Engine` is one. A host without a scan (no exact datasets' scan)
 * leaves `scanItem` out, and scan jobs fail as a whole with NOT_SUPPORTED.
 * @example const executors = jobExecutors(engine)
 */
export interface JobEngine {
  analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<unknown>;
  /**
   * A stored analysis, and the store where an analyze item records the one it stored: with both, an item of a chunk
   * run again gives the analysis it stored before rather than storing another.
   */
  getAnalysis?(id: string, options: { readonly owner: string }): Promise<unknown>;
  readonly store?: Store;
  score(request: ScoreRequest, options?: ScoreOptions): Promise<unknown>;
  /** @throws NOT_FOUND when the owner has no such work */
  findWork(workHash: string, options: { readonly owner: string }): Promise<unknown>;
  scanItem?(item: ScanItem, options?: ScanOptions): Promise<readonly ScanHit[]>;
  /** A loaded dataset's SHA-256 (a scan job made against a dataset's digest runs only where it matches). */
  datasetDigest?(id: string): Promise<string>;
  readonly memorization: {
    extractWork(request: ExtractWorkRequest): Promise<unknown>;
    /** The catalogue audit; without it audit jobs fail with NOT_SUPPORTED. */
    auditCatalogue?(request: CatalogueAuditRequest): Promise<unknown>;
  };
}

/**
 * The time an item has, as the runner gives it: `deadline` (ms since the epoch) when its time limit (`limitMs`) ends,
 * and which item of the job it is (`index`).
 * An executor that can go on later stops before it and throws `ItemHandedBack('continues')` (./hand-back.ts).
 */
export interface ItemSlice {
  readonly deadline: number;
  readonly limitMs: number;
  /** The item's index in its job (0-based), as its result line names it. */
  readonly index?: number;
}

/**
 * Runs one item: its result (plain JSON) or a thrown error, which becomes the item's failed result. It takes the
 * item, the claim (its job's account and context: the plan's file limit, a scan's datasets and options), the item's
 * abort signal (its time limit, a cancel, a shutdown) and its time slice.
 * @example const run: JobExecutor = (item, claim, signal) => engine.analyze(item as AnalyzeRequest, { owner: claim.job.account, signal })
 */
export type JobExecutor = (item: unknown, claim: JobClaim, signal: AbortSignal, slice?: ItemSlice) => Promise<unknown>;

/**
 * Options of `jobExecutors`: what the executors are built with besides the engine.
 * @example jobExecutors(engine, { work: { sliceMs: 3, offload: pool } })
 */
export interface JobExecutorOptions {
  /** How analyze and score slice their work and where they offload it (as over HTTP). */
  readonly work?: SliceOptions;
  /**
   * Builds the model an extract or audit item names (the host's URL policy applies), for items without a held model.
   * Without it, and without `jobModels`, those jobs fail with NOT_SUPPORTED: a model's key is never kept with a job's
   * items, so only the host can supply it.
   */
  readonly model?: (spec: Readonly<Record<string, unknown>>) => Promise<TargetModel>;
  /**
   * The models the host's handler held for the jobs it accepted (`model.held` of an item; one this process does not
   * hold: `modelNotHeld`): the same object the handler was given.
   */
  readonly jobModels?: HeldJobModels;
  /**
   * Where extract and audit items keep their journal (every answered call, by account, service, model, work and
   * request SHA-256): a job resubmitted or run again after a restart replays those calls. Without it, none.
   */
  readonly journalStore?: Store;
}

/** What a type's executor is built from: the engine and the executors' options. */
export interface JobTypeHost {
  readonly engine: JobEngine;
  readonly options: JobExecutorOptions;
}

/**
 * What a submission gives a type's preparation: the account and its plan, and the host's checks and models.
 * @example await type.prepare?.(items, { account: 'acme', plan: 'pro', jobItems: 10_000, … })
 */
export interface JobPrepareContext {
  readonly account: string;
  /** The plan's name and its `jobItems` (the most items of a job). */
  readonly plan: string;
  readonly jobItems: number;
  /** The model an item names, built now with the host's model-host policy. @throws INVALID_INPUT naming `field` */
  targetModel(spec: Readonly<Record<string, unknown>>, field: string): Promise<TargetModel>;
  /** @throws NOT_FOUND when the account has no work `workId` */
  ownWork(workId: string): Promise<void>;
  /** @throws NOT_FOUND when the account has no work of this `work_hash` */
  ownWorkByHash(workHash: string): Promise<void>;
  /** The largest file of the plan (an item's `max_file_bytes` when it runs). */
  readonly maxFileBytes: number;
  /** The engine's store: where a run reads a work's text (`work_id`), for the checks the run makes. */
  readonly store: Store;
  /** Where the accepted items' models are held, or null: this host holds none. */
  readonly jobModels: HeldJobModels | null;
  /** The engine the items will run on, and the job's `options` as submitted: for the checks their run makes. */
  readonly engine?: JobEngine;
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * The items of a submission as they are stored, once charged: `bind` is told the job's id (the held models are the
 * job's, released when it is cancelled or deleted).
 */
export interface PreparedItems {
  readonly items: readonly unknown[];
  /** What the submitter is told with the job (a key held in memory only: a restart fails the items). */
  readonly notice?: string;
  bind(jobId: string): void;
}

/**
 * One job type. `Item` is what one item is (its schema's shape).
 * @example
 * const upper = defineJobType<{ text: string }>({
 *   name: 'upper',
 *   summary: '`upper` (`{ text }`, upper-cased)',
 *   summarize: (result) => (result as { text: string }).text,
 *   itemSchema: { type: 'object', required: ['text'], additionalProperties: false, properties: { text: { type: 'string' } } },
 *   executor: () => async (item) => ({ text: (item as { text: string }).text.toUpperCase() }),
 * })
 */
export interface JobTypeDefinition<Item = unknown> {
  /** The type's name: `type` of a submission (lowercase letters, digits, `_` and `-`). */
  readonly name: string;
  /** What the type runs on an item, one clause for the description of `type` in the API's documentation. */
  readonly summary: string;
  /**
   * What the documentation of a submission says of this type beyond `summary` (its item, its model, its result), in
   * Markdown: the job route's description gathers the types'. @default nothing more
   */
  readonly description?: string;
  /**
   * One line of what an item's result found, for people: the web app's job table, `trainprint jobs status`.
   * @default a neutral line naming the result's fields (`neutralSummary`)
   * @example summarize: (r) => counted(lengthOf((r as { hits?: unknown }).hits), 'hit')
   */
  summarize?(result: unknown): string;
  /**
   * The rows a result is exported as, one JSON line each (`trainprint jobs export`, the web app's second download),
   * and what they are called: a scan's hits. @default none (a result is exported as its line)
   */
  readonly rows?: { readonly noun: string; of(result: unknown): readonly unknown[] };
  /**
   * The JSON Schema (2020-12) of one item: each item is checked against it at submission (422 `items[i].field`); a
   * JSON-lines body's items by the submission's rules (`JOB_REQUEST`), which read the keywords `checkSchema` reads.
   */
  readonly itemSchema: JsonSchema;
  /** The schema of the job's `options` (stored with the job as its context), when it takes any. */
  readonly optionsSchema?: JsonSchema;
  /** Items a chunk holds: what a runner claims at once. @default the store's (10) */
  readonly chunkItems?: number;
  /** The plan units one item is charged at submission (the most it can cost). @default 1 */
  units?(item: Item): number;
  /**
   * Checks what the schema cannot say and prepares the items before they are charged (a refusal charges nothing):
   * every check the item's run would make before its work, so that no item is accepted, charged and then refused;
   * the function it answers gives the items as stored, once charged.
   * @throws INVALID_INPUT, NOT_FOUND, NOT_SUPPORTED, PAYLOAD_TOO_LARGE as the submission's answer
   */
  prepare?(items: readonly Item[], context: JobPrepareContext): Promise<() => PreparedItems>;
  /** The executor of one item on this host, or why this host cannot run the type (its jobs fail with NOT_SUPPORTED). */
  executor(host: JobTypeHost): JobExecutor | string;
}

/**
 * What a job type says of its results, and nothing else (no schema, no executor): its name, its `summarize` and its
 * `rows`. A built-in type keeps these in ./lines/<name>.ts, which the web app reads without the library
 * (./descriptions.ts).
 * @example const lines: JobTypeDescription = { name: 'upper', summarize: (r) => String(r) }
 */
export type JobTypeDescription = Pick<JobTypeDefinition, 'name' | 'summarize' | 'rows'>;

/**
 * A job type, its name checked: give it to `createHandler(engine, { jobTypes })` and `startJobRunner(engine,
 * { jobTypes })` (the handler checks and stores its items, the runner runs them).
 * @throws INVALID_OPTIONS for a bad name or chunk size
 * @example const upper = defineJobType({ name: 'upper', summary: '…', itemSchema, executor: () => async (item) => item })
 */
export function defineJobType<Item>(definition: JobTypeDefinition<Item>): JobTypeDefinition<Item> {
  if (!JOB_TYPE_NAME.test(definition.name))
    throw new TrainprintError('INVALID_OPTIONS', `a job type's name ${JOB_TYPE_NAME_WORDS}: ${definition.name}`);
  // only checked: without it, the store's (the fallback is not used)
  positiveInt(`chunkItems of job type ${definition.name}`, definition.chunkItems, 1, 10_000);
  return Object.freeze({ ...definition });
}
