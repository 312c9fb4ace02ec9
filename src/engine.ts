/**
 * The Engine, the composition root: a {@link DatasetEngine} (the fingerprint engine with the corpus of loaded
 * datasets, dataset-engine.ts) plus the services built over it and one store — analyze, registry, score, monitors,
 * marketplace, memorization and the knowledge base. It wires; the work is in src/corpus and src/services (each service
 * takes only what it needs, never the Engine). Its options are in engine-options.ts, its factory `createEngine` in
 * create-engine.ts.
 */
import type { Core } from './core/abi.js';
import type { CoreVariant } from './core/load.js';
import { DatasetEngine } from './dataset-engine.js';
import { TrainprintError } from './errors.js';
import type { EngineOptions } from './engine-options.js';
import { createAnalysisService, type AnalysisService, type StoredAnalysis } from './services/analyze/service.js';
import { retentionRules } from './services/analyze/retention.js';
import type { AnalysisResult, AnalyzeOptions, AnalyzeRequest } from './services/analyze/types.js';
import { knowledgeBase, type KnowledgeBase } from './services/kb/index.js';
import { kbLinks } from './services/kb/links.js';
import type { KbDataset, KbModel, KbProvider } from './services/kb/types.js';
import { createMarketplace, type Marketplace } from './services/market/index.js';
import { Memorization } from './services/memorization/memorization.js';
import type { CreateMonitorRequest, Monitor, MonitorEvent } from './services/monitors/monitors.js';
import { createMonitorService, type MonitorService } from './services/monitors/service.js';
import type { WebhookDeliverer } from './services/monitors/webhook.js';
import { createRegistryService, type RegistryService } from './services/registry/service.js';
import type * as Registry from './services/registry/works.js';
import type { ScoreOptions, ScoreRequest, ScoreResult } from './services/score/types.js';
import { createScoreService, type ScoreService } from './services/score/service.js';
import { createScanService, type ScanService } from './services/scan/index.js';
import type { ScanHit, ScanItem, ScanOptions, ScanSummary } from './services/scan/index.js';
import { MemoryStore } from './store/memory.js';

/**
 * Arena bytes a default word fingerprint lays out per UTF-8 byte of its text (its UTF-8 at three bytes a UTF-16 unit,
 * then starts, ends, hashes and a spare column per token of room): 10 MB of English grew the memory to 154 MiB.
 * {@link Engine.reserveMemory} grows the memory by this much per byte of the text it is told of.
 */
const ARENA_BYTES_PER_TEXT_BYTE = 16;
/** Bytes of an operating-system page (4 KiB on x86-64 and most ARM64 hosts; larger pages are written more than once). */
const PAGE = 4096;

/**
 * The training-data attribution engine, made by `createEngine` (create-engine.ts). The fingerprint operations come
 * from {@link FingerprintEngine}, the dataset operations from {@link DatasetEngine} (handed to the corpus); the rest
 * are services on {@link store}.
 */
export class Engine extends DatasetEngine {
  /** The knowledge base given to `createEngine({ kb })`, or null for the shipped one. */
  private readonly kbGiven: KnowledgeBase | null;
  /** The knowledge base once built (see {@link kb}). */
  private kbBuilt: KnowledgeBase | null = null;
  private readonly analyses: AnalysisService;
  private readonly registry: RegistryService;
  private readonly scores: ScoreService;
  private readonly monitors: MonitorService;
  private readonly scans: ScanService;
  private market: Marketplace | null = null;
  private mem: Memorization | null = null;

  /**
   * Grow the core's memory now for a text of `textBytes` UTF-8 bytes and map its pages (docs/fingerprints.md).
   * @throws INVALID_OPTIONS, OUT_OF_MEMORY
   * @example engine.reserveMemory(1 << 20) // a first text of 1 MB lands on mapped memory
   */
  reserveMemory(textBytes: number): void {
    if (!Number.isSafeInteger(textBytes) || textBytes < 0)
      throw new TrainprintError('INVALID_OPTIONS', 'textBytes must be a non-negative integer');
    const core = this.assertLive();
    core.guard(() => {
      const bytes = textBytes * ARENA_BYTES_PER_TEXT_BYTE;
      core.reserve(bytes);
      const u8 = core.u8; // one write per page: the operating system maps it now, not inside the next call
      for (let p = core.arenaBase; p < core.arenaBase + bytes; p += PAGE) u8[p] |= 0;
    });
  }

  /** @internal use `createEngine` (create-engine.ts) */
  constructor(core: Core, variant: CoreVariant, options: EngineOptions = {}) {
    super(core, variant, options.store ?? new MemoryStore(), {
      links: kbLinks(() => this.kb),
      onChange: (id) => this.monitors.datasetChanged(id),
    });
    this.kbGiven = options.kb ?? null;
    const { store, corpus } = this;
    const fingerprint = this.fingerprint.bind(this);
    const kbOf = () => this.kb;
    // the services read `kb` when they answer, not when they are made: an engine that only scans or fingerprints
    // never builds the knowledge base
    const withKb = <T extends object>(deps: T): T & { readonly kb: KnowledgeBase } =>
      Object.defineProperty(deps, 'kb', { get: kbOf, enumerable: true }) as T & { readonly kb: KnowledgeBase };
    this.analyses = createAnalysisService(withKb({ corpus, store, retention: retentionRules(options.analyses) }));
    this.registry = createRegistryService({ store, fingerprint, receiptKey: options.receiptKey });
    this.scores = createScoreService(withKb({ corpus, store, fingerprint }));
    this.monitors = createMonitorService(withKb({ corpus, store, scores: this.scores, webhooks: options.webhooks }));
    this.scans = createScanService({ corpus });
  }

  /**
   * The knowledge base this engine reads (`createEngine({ kb })`; the shipped one by default), built on first use:
   * analyze, score, monitors, the model and dataset look-ups, and a dataset descriptor that names a model or a
   * curated dataset read it; a scan or a fingerprint does not (the shipped one's tables cost ≈ 4 ms of CPU to build).
   * @example engine.kb.resolveDatasetName('The Pile') // 'the-pile'
   */
  get kb(): KnowledgeBase {
    return (this.kbBuilt ??= this.kbGiven ?? knowledgeBase());
  }

  /** Webhook deliveries of monitor events (its `list`, `get`, `retry`, `start`, `stop`). */
  get webhooks(): WebhookDeliverer {
    return this.monitors.webhooks;
  }

  // ---------------------------------------------------------------- scan (docs/scan.md)

  /**
   * Scan a stream of items (model outputs, documents) against the exact datasets: yields a hit for every passage of
   * an item of at least `minWords` (default 50) whitespace-separated words that an exact dataset holds — verbatim or
   * edited (with `paraphrase: true`, reworded too) — item by item in input order, each item's hits in the order of
   * its text; returns the summary. Only the loaded datasets are searched (never a remote corpus). The same datasets
   * and options give the same hits in the same order. `stop` ends it before its next item (the summary of the items
   * done), where `signal` rejects; `readAhead` lets it read a generator's items in batches, as an array's.
   * @throws (rejects) INVALID_OPTIONS (an option, a dataset that is not exact, no exact dataset), NOT_FOUND (an
   *   unknown dataset), INVALID_INPUT (an item that is not `{ id, text }`), `signal.reason` when aborted
   * @example
   * for await (const hit of engine.scan(outputs, { minWords: 50 })) console.log(hit.id, hit.document_id, hit.words)
   * const stop = new AbortController() // ends the scan after the item at which it is aborted, without rejecting
   * for await (const hit of engine.scan(readDocuments(['outputs.jsonl']), { readAhead: true, stop: stop.signal })) stop.abort()
   * const it = engine.scan(outputs); let r; while (!(r = await it.next()).done) save(r.value); r.value.items // summary
   */
  scan(
    items: Iterable<ScanItem> | AsyncIterable<ScanItem>,
    options?: ScanOptions,
  ): AsyncGenerator<ScanHit, ScanSummary> {
    this.assertLive();
    return this.scans.scan(items, options);
  }
  /**
   * The hits of one item: what {@link scan} yields for it (for workers that take one item at a time).
   * @throws (rejects) as {@link scan}
   * @example const hits = await engine.scanItem({ id: 'out-1', text: output }, { datasets: ['books'] })
   */
  scanItem(item: ScanItem, options?: ScanOptions): Promise<ScanHit[]> {
    this.assertLive();
    return this.scans.scanItem(item, options);
  }
  /**
   * The content digest of an exact dataset: hex SHA-256 over its params, counts and documents (ids, sizes, MinHash
   * signatures), the same whether it was built here, imported from a dataset file or attached from PostgreSQL (read
   * once there, kept until the dataset grows). A worker compares digests to refuse a job made against other data.
   * @throws (rejects) NOT_FOUND, NOT_SUPPORTED (not an exact dataset), STORE_UNAVAILABLE
   * @example await engine.datasetDigest('books') // '5f1d…' (64 hex digits)
   */
  datasetDigest(id: string): Promise<string> {
    this.assertLive();
    return this.scans.digest(id);
  }

  // ---------------------------------------------------------------- analyze

  /**
   * Analyse content: corpus evidence, calibrated confidence, attribution sources through the knowledge base, risk,
   * revenue and factor codes (docs/analyze.md); the result is stored for {@link getAnalysis}.
   * @throws INVALID_INPUT, PAYLOAD_TOO_LARGE (> 10 MiB), INVALID_OPTIONS, NOT_FOUND (unknown dataset in options)
   * @example const r = await engine.analyze({ content: text, content_type: 'text', metadata: { jurisdiction: 'US' } })
   */
  analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<AnalysisResult> {
    this.assertLive();
    return this.analyses.analyze(request, options);
  }
  /**
   * A stored analysis by id; with `owner`, only one made for that owner (`analyze(…, { owner })`) is found.
   * @throws NOT_FOUND @example await engine.getAnalysis(r.analysis_id, { owner: 'alice' })
   */
  getAnalysis(id: string, options?: { readonly owner?: string }): Promise<AnalysisResult> {
    return this.analyses.get(id, options);
  }
  /**
   * A stored analysis with what is kept beside it: the text its spans point into (a file's extracted text, or the
   * content) and each remote corpus's transcript (the digests of every answer used) — what its report and its
   * evidence bundle are made of.
   * @throws NOT_FOUND @example const { result, text } = await engine.getAnalysisRecord(r.analysis_id)
   */
  getAnalysisRecord(id: string, options?: { readonly owner?: string }): Promise<StoredAnalysis> {
    return this.analyses.record(id, options);
  }

  // ---------------------------------------------------------------- registry and score (docs/registry.md)

  /**
   * Register a work from its `content` (kept, so `score` can search it) or its `fingerprint`; returns the work with
   * a signed receipt. The same owner and work_hash again gets the stored work (`created: false`).
   * `options.offload` extracts and fingerprints long content on another thread (the same work).
   * @throws INVALID_INPUT, PAYLOAD_TOO_LARGE
   * @example const w = await engine.registerWork({ content: text, owner: 'acme-press', title: 'Persuasion' })
   */
  registerWork(
    request: Registry.RegisterWorkRequest,
    options?: Registry.RegisterOptions,
  ): Promise<Registry.RegisterWorkResult> {
    this.assertLive();
    return this.registry.register(request, options);
  }
  /** True when `receipt` was signed with this engine's key, unaltered. @example engine.verifyReceipt(w.receipt) */
  verifyReceipt(receipt: unknown): Promise<boolean> {
    return this.registry.verifyReceipt(receipt);
  }
  /**
   * A registered work; with `owner`, only that owner's. @throws NOT_FOUND
   * @example await engine.getWork(w.work_id, { owner: 'acme-press' })
   */
  getWork(workId: string, options?: { readonly owner?: string }): Promise<Registry.Work> {
    return this.registry.get(workId, options);
  }
  /**
   * The work `owner` registered with `work_hash` (never another owner's with the same bytes). @throws NOT_FOUND
   * @example await engine.findWork(w.work_hash, { owner: 'acme-press' })
   */
  findWork(workHash: string, options: { readonly owner: string }): Promise<Registry.Work> {
    return this.registry.find(workHash, options?.owner);
  }
  /** Registered works, optionally of one owner, paged. @example await engine.listWorks({ owner: 'acme-press' }) */
  listWorks(options?: Registry.ListWorksOptions): Promise<Registry.WorkPage> {
    return this.registry.list(options);
  }
  /** Delete a work and its text; with `owner`, only that owner's. @throws FORBIDDEN @example engine.deleteWork(id) */
  deleteWork(workId: string, options: { owner?: string } = {}): Promise<boolean> {
    return this.registry.delete(workId, options?.owner);
  }

  /**
   * How likely it is that `target_model` trained on a registered work (`work_hash`), or on a work sent as `content`
   * (text, markup or a file, as analyze takes it; `work_id` null, `extraction` for a file): `score` 0–100, a bootstrap
   * `ci_95`, a `tier` and a separate `legal_risk` for the jurisdiction (docs/registry.md). Its chunk searches share
   * the thread as analyze's search does (`options.sliceMs`, default 3 ms; `Infinity`: in one go) and the work's chunking runs on
   * `options.offload` when given; the result is the same either way. With `options.owner` (an account) it reads
   * the datasets every account shares and that account's own, never another account's. `options.signal` stops it
   * between chunks (and cancels a file's extraction and the remote calls): it then rejects with the signal's reason.
   * @throws INVALID_INPUT, NOT_FOUND (work_hash not registered, unknown model), INVALID_OPTIONS (sliceMs, owner,
   * maxFileBytes, signal), PAYLOAD_TOO_LARGE (a file over `options.maxFileBytes`, default 64 MiB; a text over 10 MiB)
   * @example
   * const s = await engine.score({ work_hash, target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' })
   * const f = await engine.score({ content: pdf, content_type: 'pdf', target_model: 'meta/llama-7b', jurisdiction: 'GB' })
   */
  score(request: ScoreRequest, options?: ScoreOptions): Promise<ScoreResult> {
    this.assertLive();
    return this.scores.score(request, undefined, options);
  }

  /** The licensing marketplace (docs/marketplace.md). @example engine.marketplace.listListings() */
  get marketplace(): Marketplace {
    return (this.market ??= createMarketplace({ store: this.store, key: () => this.registry.key() }));
  }

  /** Memorization-risk operations (docs/memorization.md). @example await engine.memorization.assess(request) */
  get memorization(): Memorization {
    return (this.mem ??= new Memorization(this));
  }

  // ---------------------------------------------------------------- monitors (docs/registry.md)

  /**
   * Watch a work: events to the log and, signed, to its webhook. With `owner` (an account) the monitor is that
   * account's (the owner-scoped calls below find it), and its evaluations read the datasets every account shares and
   * that account's own, never another account's.
   * @example createMonitor(r, { owner: 'alice' })
   */
  createMonitor(request: CreateMonitorRequest, options: { readonly owner?: string } = {}): Promise<Monitor> {
    return this.monitors.create(request, options?.owner);
  }
  /**
   * A monitor; with `owner`, only that owner's. @throws NOT_FOUND
   * @example await engine.getMonitor(m.monitor_id, { owner: 'alice' })
   */
  getMonitor(id: string, options?: { readonly owner?: string }): Promise<Monitor> {
    return this.monitors.get(id, options);
  }
  /**
   * Monitors, optionally of one work; with `owner`, that owner's (read from its index).
   * @example await engine.listMonitors({ owner: 'alice', work_id: w.work_id })
   */
  listMonitors(options?: { work_id?: string; owner?: string }): Promise<Monitor[]> {
    return this.monitors.list(options);
  }
  /** Stop evaluating a monitor (with `owner`: only that owner's). @example await engine.pauseMonitor(m.monitor_id) */
  pauseMonitor(id: string, options?: { readonly owner?: string }): Promise<Monitor> {
    return this.monitors.setState(id, 'paused', options);
  }
  /** Evaluate a paused monitor again. @example await engine.resumeMonitor(m.monitor_id) */
  resumeMonitor(id: string, options?: { readonly owner?: string }): Promise<Monitor> {
    return this.monitors.setState(id, 'active', options);
  }
  /**
   * Delete a monitor (its events stay); with `owner`, only that owner's (false for another's).
   * @example await engine.deleteMonitor(m.monitor_id) // true
   */
  deleteMonitor(id: string, options?: { readonly owner?: string }): Promise<boolean> {
    return this.monitors.delete(id, options);
  }
  /** Re-evaluate every active monitor now; returns the new events. @example await engine.evaluateMonitors() */
  evaluateMonitors(): Promise<MonitorEvent[]> {
    return this.monitors.evaluate();
  }
  /** The event log, oldest first. @example await engine.listEvents({ monitor_id: m.monitor_id }) */
  listEvents(options?: { monitor_id?: string; after?: string; limit?: number }): Promise<MonitorEvent[]> {
    return this.monitors.events(options);
  }
  /** Wait until the evaluations queued by dataset changes have run. @example await engine.monitorsIdle() */
  monitorsIdle(): Promise<void> {
    return this.monitors.idle();
  }

  /**
   * Re-evaluate all monitors every `intervalMs`, deliver due webhooks and expire marketplace offers (timers are
   * unref'd in Node, so they never keep a process alive). `stopMonitoring()` ends them.
   * @throws INVALID_OPTIONS @example engine.startMonitoring(60_000)
   */
  startMonitoring(intervalMs: number): void {
    this.monitors.start(intervalMs);
    this.marketplace.start(intervalMs);
  }
  /**
   * Stop the interval of {@link startMonitoring} and wait for running work. Webhook requests in flight get
   * `graceMs` (default: their request timeout) to finish; one still unanswered then is handed back — its lease
   * released, no attempt logged — for another process on the store or the next start to send.
   * @example await engine.stopMonitoring({ graceMs: 5_000 })
   */
  async stopMonitoring(options: { readonly graceMs?: number } = {}): Promise<void> {
    await this.market?.stop();
    await this.monitors.stop(options);
  }

  // ---------------------------------------------------------------- knowledge base (docs/knowledge-base.md)

  /** Models of the knowledge base, optionally filtered. @example engine.models({ dataset: 'the-pile' }) */
  models(filter?: Parameters<KnowledgeBase['models']>[0]): KbModel[] {
    return this.kb.models(filter);
  }
  /** One model by id (case-insensitive). @throws NOT_FOUND @example engine.model('EleutherAI/pythia-6.9b') */
  model(id: string): KbModel {
    return this.kb.model(id);
  }
  /** Providers and their models. @example engine.providers().find((p) => p.id === 'meta') */
  providers(): KbProvider[] {
    return this.kb.providers();
  }
  /** The curated training datasets. @example engine.kbDatasets().map((d) => d.id) */
  kbDatasets(): KbDataset[] {
    return this.kb.datasets();
  }
  /** One curated dataset by id. @throws NOT_FOUND @example engine.kbDataset('books3').pirated // true */
  kbDataset(id: string): KbDataset {
    return this.kb.dataset(id);
  }
}
