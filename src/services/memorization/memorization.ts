/**
 * The memorization operations on an engine and its store: register-work (with canaries),
 * reference sets, extract, probe, compare, assess, report. Records live under `mem/…`:
 * `mem/work/<work_id>`, `mem/refset/<id>`, `mem/assessment/<id>`. The operations themselves (./operations.ts) load
 * on the first call, so a program that never runs them carries none of their code.
 */
import type { MemorizationDeps } from './deps.js';
import type { Store } from '../../store/types.js';
import { loadOnce } from '../../util/load-once.js';
import { workText } from '../registry/works.js';
import type { ExtractWorkRequest, WorkExtractionResult } from './extract-work.js';
import type { CatalogueAuditRequest, CatalogueAuditResult } from './audit.js';
import { renderReport, type ReportOptions } from './report.js';
import {
  ASSESS_REQUEST,
  AUDIT_REQUEST,
  type AuditContext,
  COMPARE_OUTPUT_REQUEST,
  EXTRACT_REQUEST,
  EXTRACT_WORK_REQUEST,
  PROBE_REQUEST,
  REFERENCE_SET_REQUEST,
  TRACK_WORK_REQUEST,
  REPORT_REQUEST,
} from './schemas.js';
import { invalidField, readThrough, type RequestContract } from '../../util/schema-check.js';
import type {
  Assessment,
  AssessRequest,
  CompareOutputRequest,
  CompareOutputResult,
  ExtractionResult,
  ExtractRequest,
  ProbeRequest,
  ProbeResult,
  ReferenceSetInfo,
  ReferenceSetRequest,
  TrackedWork,
  TrackWorkRequest,
} from './types.js';

/** The operations, imported once, on the first call (a file of their own in the package). */
const operations = loadOnce(() => import('./operations.js'));

/**
 * Which works of a catalogue the model writes out, under one call budget for the whole catalogue (./audit.ts); its
 * code loads on the first call. The store is the other operations' first argument: an audit reads and keeps nothing
 * in it (its works are given whole; its journal is the request's).
 * @throws INVALID_INPUT, INVALID_OPTIONS, UPSTREAM_ERROR, UPSTREAM_TIMEOUT
 * @example const audit = await auditCatalogue(engine.store, { model, works: [{ id: 'a.txt', text }], budget_calls: 2000 })
 */
export async function auditCatalogue(_store: Store, request: CatalogueAuditRequest): Promise<CatalogueAuditResult> {
  const ops = await operations();
  return ops.auditCatalogue(await readModelRun(AUDIT_REQUEST, request, {}, MODEL_RUN_OBJECTS, ops.readThroughSliced));
}

/** The members of a request that are objects its schema does not describe: kept as given. */
type RunObject = 'model' | 'reference_model' | 'journal' | 'signal' | 'stop' | 'plan_key';

/** The objects an audit or a whole-work extraction takes beside its JSON members. */
const MODEL_RUN_OBJECTS: readonly RunObject[] = ['model', 'journal', 'signal', 'stop', 'plan_key'];

/**
 * A request of an operation that calls a model, read through its contract by `read` (its schema, then its rules), the
 * one stop of its validation — a catalogue's by the sliced read-through (turns of the event loop while 100,000 works
 * are copied and checked), loaded on demand with the operations; the model, journal and signals, objects the schema
 * does not describe, kept as given (`objects` names those the operation takes), and an audit's `plan_key`, which a
 * host names (a job's slices), never a JSON request.
 */
async function readModelRun<R extends object, J, C>(
  contract: RequestContract<J, C>,
  request: R,
  context: C,
  objects: readonly RunObject[] = MODEL_RUN_OBJECTS,
  read: (contract: RequestContract<J, C>, value: unknown, context: C) => J | Promise<J> = readThrough,
): Promise<R> {
  if (request === null || typeof request !== 'object') invalidField('request', 'must be an object');
  const json: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  const kept: Record<string, unknown> = {};
  for (const k of objects) {
    if (json[k] !== undefined) kept[k] = json[k];
    delete json[k];
  }
  return { ...((await read(contract, json, context)) as object), ...kept } as R;
}

/**
 * An assessment's request read through {@link ASSESS_REQUEST}: its model and its probe's reference model kept as
 * given.
 */
async function readAssess(request: AssessRequest): Promise<AssessRequest> {
  const settings: unknown = request?.probe;
  if (settings === null || typeof settings !== 'object') return readModelRun(ASSESS_REQUEST, request, undefined);
  const { reference_model, ...probe } = settings as Record<string, unknown>;
  const read = await readModelRun(ASSESS_REQUEST, { ...request, probe } as AssessRequest, undefined);
  return { ...read, probe: { ...(read.probe as object), reference_model } } as AssessRequest;
}

/**
 * The audit's service check: what its run checks before its first call beyond `AUDIT_REQUEST`'s rules (which it reads
 * the request through, within a job's plan: `context`) — its model, journal and signals, and each work's plan within
 * the result's bound, counted on its text (sliced: a second for 100,000 works). A job runs it at submission.
 * @throws INVALID_INPUT, INVALID_OPTIONS, PAYLOAD_TOO_LARGE as the run would
 * @example await checkAuditRun({ model, works, budget_calls: 2000 }, { jobItems: 100, plan: 'free' })
 */
export async function checkAuditRun(request: CatalogueAuditRequest, context: AuditContext = {}): Promise<void> {
  const ops = await operations();
  await ops.checkAuditSliced(
    await readModelRun(AUDIT_REQUEST, request, context, MODEL_RUN_OBJECTS, ops.readThroughSliced),
  );
}

/**
 * The whole-work extraction's service check: what its run checks before its first call beyond
 * `EXTRACT_WORK_REQUEST`'s rules (which it reads the request through) — its model and journal, a `work_id` known to
 * `store` with its text, and that text's words, sections and result bound. A job runs it at submission.
 * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND, PAYLOAD_TOO_LARGE as the run would
 * @example await checkExtractWorkRun(engine.store, { model, text, budget_calls: 500 })
 */
export async function checkExtractWorkRun(store: Store, request: ExtractWorkRequest): Promise<void> {
  const ops = await operations();
  await ops.readExtraction(store, await readModelRun(EXTRACT_WORK_REQUEST, request, undefined));
}

/**
 * Memorization risk of registered works against target models.
 *
 * @example
 * const mem = new Memorization(engine)
 * const tracked = await mem.registerWork({ work: { content: text, owner: 'acme', title: 'Persuasion' }, canaries: { count: 10 } })
 * const model = createOpenAICompatibleModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'my-model' })
 * const a = await mem.assess({ work_id: tracked.work_id, model, probe: { reference: { reference_set: 'post-2024-novels' } }, jurisdiction: 'DE' })
 * const html = await mem.report(a.assessment_id)
 */
export class Memorization {
  private readonly deps: MemorizationDeps;
  readonly store: Store;

  /** `deps`: an Engine, or any object with its registry, score and compare (see {@link MemorizationDeps}). */
  constructor(deps: MemorizationDeps, store: Store = deps.store) {
    this.deps = deps;
    this.store = store;
  }

  /**
   * Track a work for memorization (an already registered `work_id`, or `work` to register now),
   * optionally generating canary sequences to embed before publishing (kept with their controls).
   * @throws INVALID_INPUT, NOT_FOUND (unknown work_id), CONFLICT (canaries already generated)
   */
  async registerWork(request: TrackWorkRequest): Promise<TrackedWork> {
    return (await operations()).trackWork(this.deps, this.store, readThrough(TRACK_WORK_REQUEST, request, undefined));
  }

  /** A tracked work with its canaries and controls. @throws NOT_FOUND */
  async getTrackedWork(workId: string): Promise<TrackedWork> {
    return (await operations()).getTracked(this.store, workId);
  }

  /**
   * Keep a non-member reference set for probes, with how it was made (`basis`).
   * @throws INVALID_INPUT, ALREADY_EXISTS, PAYLOAD_TOO_LARGE
   */
  async addReferenceSet(request: ReferenceSetRequest): Promise<ReferenceSetInfo> {
    const read = readThrough(REFERENCE_SET_REQUEST, request, undefined);
    return (await operations()).addReferenceSet(this.store, read);
  }

  /** @throws NOT_FOUND */
  async getReferenceSet(id: string): Promise<ReferenceSetInfo> {
    return (await operations()).getReferenceSet(this.store, id);
  }

  async listReferenceSets(): Promise<ReferenceSetInfo[]> {
    return (await operations()).listReferenceSets(this.store);
  }

  async deleteReferenceSet(id: string): Promise<boolean> {
    return (await operations()).deleteReferenceSet(this.store, id);
  }

  /**
   * Prefixes of the work → greedy continuation → verbatim match against the work.
   * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND, UPSTREAM_ERROR, UPSTREAM_TIMEOUT
   */
  async extract(request: ExtractRequest): Promise<ExtractionResult> {
    const ops = await operations();
    return ops.runExtraction(this.store, await readModelRun(EXTRACT_REQUEST, request, undefined, ['model']));
  }

  /**
   * How much of a whole work the model writes out: phase-1 probes over every section, continuation loops from each
   * hit, the outputs aligned into near-verbatim blocks; `nv_recall` = share of the work's words in blocks of ≥ 100
   * words (Ahmed et al. 2026, arXiv 2601.02671), with every call counted against `budget_calls` and recorded.
   * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND (failing calls end the run: `stopped`, `error`)
   * @example
   * const model = createOpenAICompatibleModel({ baseUrl: 'https://api.example.com/v1', model: 'm', api: 'chat' })
   * const { nv_recall, blocks, calls } = await engine.memorization.extractWork({ text, model, budget_calls: 2000 })
   */
  async extractWork(request: ExtractWorkRequest): Promise<WorkExtractionResult> {
    const ops = await operations();
    return ops.runWorkExtraction(this.store, await readModelRun(EXTRACT_WORK_REQUEST, request, undefined));
  }

  /**
   * Which works of a catalogue the model writes out, under one call budget for the whole catalogue (./audit.ts).
   * @throws INVALID_INPUT, INVALID_OPTIONS, UPSTREAM_ERROR, UPSTREAM_TIMEOUT
   * @example
   * const audit = await engine.memorization.auditCatalogue({ model, works: [{ id: 'a.txt', text }], budget_calls: 2000 })
   * audit.catalogue.share // with audit.catalogue.ci_95
   */
  async auditCatalogue(request: CatalogueAuditRequest): Promise<CatalogueAuditResult> {
    return auditCatalogue(this.store, request);
  }

  /**
   * Per-chunk likelihood statistics of the work against a non-member reference set, with a
   * set-level test; no verdict below the minimum amount of text.
   * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND, UPSTREAM_ERROR, UPSTREAM_TIMEOUT
   */
  async probe(request: ProbeRequest): Promise<ProbeResult> {
    const read = await readModelRun(PROBE_REQUEST, request, undefined, ['model', 'reference_model']);
    return (await operations()).runProbe(this.store, read);
  }

  /**
   * A model output against the registered works (without `work_ids`, those of `options.owner` when given): verbatim
   * runs and near passages. @throws INVALID_INPUT, NOT_FOUND
   */
  async compare(
    request: CompareOutputRequest,
    options: { readonly owner?: string } = {},
  ): Promise<CompareOutputResult> {
    const read = readThrough(COMPARE_OUTPUT_REQUEST, request, undefined);
    return (await operations()).compareOutput(this.deps, this.store, read, options.owner);
  }

  /**
   * Risk for a work × model from corpus evidence, extraction, probe and canaries; stored.
   * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND, UPSTREAM_ERROR, UPSTREAM_TIMEOUT
   */
  async assess(request: AssessRequest): Promise<Assessment> {
    return (await operations()).runAssessment(this.deps, this.store, await readAssess(request));
  }

  /** A stored assessment. @throws NOT_FOUND */
  async getAssessment(id: string): Promise<Assessment> {
    return (await operations()).getAssessment(this.store, id);
  }

  /**
   * The self-contained HTML report of an assessment (object or id); the work's text is read
   * from the registry to show the evidence spans.
   * @throws NOT_FOUND
   */
  async report(assessment: Assessment | string, options: Omit<ReportOptions, 'workText'> = {}): Promise<string> {
    const id = typeof assessment === 'string' ? assessment : assessment?.assessment_id;
    const { max_spans } = readThrough(REPORT_REQUEST, { assessment_id: id, max_spans: options.maxSpans }, undefined);
    const a = typeof assessment === 'string' ? await this.getAssessment(id) : assessment;
    return renderReport(a, { maxSpans: max_spans, workText: await workText(this.store, a.work.work_id) });
  }
}
