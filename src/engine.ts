/**
 * The Engine: one instance of the WebAssembly core and the operations that run on it.
 */
import { TrainprintError } from './errors.js';
import { fingerprintCore, fingerprintText, shingleHashesCore, toText, winnowCore } from './fingerprint/fingerprint.js';
import { paramsId, resolveOptions, type FingerprintOptions } from './fingerprint/options.js';
import { similarity } from './fingerprint/similarity.js';
import type { Fingerprint, Similarity } from './types.js';
import { MembershipFilter, type MembershipFilterOptions } from './sketch/filter.js';
import { minhashSignature, type MinhashOptions } from './sketch/minhash.js';
import { simhash64 } from './sketch/simhash.js';
import { Core } from './core/abi.js';
import { ExactDataset, NEAR_K, type ExactSearch } from './datasets/exact.js';
import { checkPortraitWindow, PORTRAIT_ALPHA, PortraitDataset, type PortraitSearch } from './datasets/portrait.js';
import { binomialUpperTail } from './stats/binomial.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats, NearMatch, PortraitHit, SearchMatch } from './datasets/types.js';
import { decodeDataset, encodeDataset } from './datasets/snapshot.js';
import { compareTexts, type CompareOptions, type Comparison } from './align/compare.js';
import { runAnalysis } from './services/analyze/analyze.js';
import type { AnalysisResult, AnalyzeOptions, AnalyzeRequest } from './services/analyze/types.js';
import { knowledgeBase, type KnowledgeBase } from './services/kb/index.js';
import type { KbDataset, KbModel, KbProvider } from './services/kb/types.js';
import { MemoryStore } from './store/memory.js';
import type { Store } from './store/types.js';
import { WebhookDeliverer, type WebhookDelivererOptions } from './services/monitors/webhook.js';
import { createMonitor, deleteMonitor, evaluateMonitors, getMonitor, listEvents, listMonitors, setMonitorState, type CreateMonitorRequest, type Monitor, type MonitorEvent } from './services/monitors/monitors.js';
import { checkReceipt, loadReceiptKey, type ReceiptKey } from './services/registry/receipts.js';
import { deleteWork, getWork, listWorks, registerWork, type RegisterWorkRequest, type RegisterWorkResult, type Work } from './services/registry/works.js';
import { scoreWork, type ScoreRequest, type ScoreResult } from './services/score/score.js';
import { createMarketplace, type Marketplace } from './services/market/index.js';
import { Memorization } from './services/memorization/memorization.js';
import { compileCore, pickVariant, type CoreVariant, type SimdChoice } from './core/load.js';

/** Options of {@link createEngine}. */
export interface EngineOptions {
  /** Use the SIMD build: `'auto'` (when the runtime validates it), `true` (required) or `false`. @default 'auto' */
  readonly simd?: SimdChoice;
  /**
   * Where the registry, analyses, monitors, events and deliveries live: a {@link Store}. The
   * default keeps them in memory (every runtime); `openFileStore(dir)` from `trainprint/node` is
   * durable. @default new MemoryStore()
   */
  readonly store?: Store;
  /**
   * Key of the registration receipts (HMAC-SHA256), ≥ 32 bytes. Without it the engine generates one
   * and keeps it in the store, so receipts verify across restarts with the same store.
   */
  readonly receiptKey?: string | Uint8Array;
  /** Webhook delivery settings (retries, timeouts; `fetch`, clock and sleep for tests). */
  readonly webhooks?: Omit<WebhookDelivererOptions, 'store' | 'resolveSecret'>;
}

/**
 * A fingerprinting engine bound to one WebAssembly instance (its own memory).
 * Create with {@link createEngine}; engines are cheap once the module is compiled.
 */
export class Engine {
  /** Which build of the core this engine runs. */
  readonly variant: CoreVariant;
  private core: Core | null;
  private readonly sets = new Map<string, ExactDataset | PortraitDataset>();
  /** The store of the registry, analyses, monitors, events and deliveries. */
  readonly store: Store;
  /** Webhook deliveries of monitor events (its `list`, `get`, `retry`, `start`, `stop`). */
  readonly webhooks: WebhookDeliverer;
  private readonly receiptKeyOption: string | Uint8Array | undefined;
  private receiptKey: Promise<ReceiptKey> | null = null;
  private monitorChain: Promise<unknown> = Promise.resolve();
  private market: Marketplace | null = null;
  private mem: Memorization | null = null;
  private monitorTimer: ReturnType<typeof setInterval> | null = null;

  /** @internal use {@link createEngine} */
  constructor(core: Core, variant: CoreVariant, options: EngineOptions = {}) {
    this.core = core;
    this.variant = variant;
    this.store = options.store ?? new MemoryStore();
    this.receiptKeyOption = options.receiptKey;
    const store = this.store;
    this.webhooks = new WebhookDeliverer({
      ...options.webhooks,
      store,
      resolveSecret: async (id) => {
        const s = await store.get(`monitor-secret/${id}`);
        return typeof s === 'string' ? s : undefined;
      },
    });
  }

  /** @internal the live core (throws ENGINE_DISPOSED after dispose). */
  get _core(): Core {
    if (!this.core) throw new TrainprintError('ENGINE_DISPOSED');
    return this.core;
  }

  /**
   * Fingerprint a text: normalisation, word or character shingles with spans in the original
   * string, winnowing, MinHash, SimHash, `work_hash` and the content id. Async because
   * `work_hash` uses WebCrypto; everything else runs synchronously in the core.
   *
   * @throws INVALID_INPUT (not a string / lone surrogate / bad UTF-8), INVALID_OPTIONS, OUT_OF_MEMORY
   * @example
   * const engine = await createEngine()
   * const fp = await engine.fingerprint('It was the best of times, it was the worst of times.')
   * fp.shingles.hashes.length // 8 word 5-grams
   */
  async fingerprint(text: string | Uint8Array, options?: FingerprintOptions): Promise<Fingerprint> {
    const core = this._core;
    const o = resolveOptions(options);
    return fingerprintText(core, toText(text), o);
  }

  /**
   * Word n-gram shingle hashes of a text or of UTF-8 bytes (sync): the same hashes as
   * `fingerprint(text).shingles.hashes`, without spans or sketches — the fast path for building
   * indexes from large corpora. Options other than `shingle.size` and `seed` are ignored.
   * Pass `into` (a buffer you reuse across calls) to receive the hashes without allocating: the
   * result is then `into.subarray(0, count)`.
   *
   * @throws INVALID_INPUT (not a string/bytes, lone surrogate, malformed UTF-8, `into` too small), INVALID_OPTIONS
   * @example engine.shingleHashes(new TextEncoder().encode(text)) // BigUint64Array
   */
  shingleHashes(input: string | Uint8Array, options?: FingerprintOptions, into?: BigUint64Array): BigUint64Array {
    const core = this._core;
    const o = resolveOptions(options);
    if (o.unit !== 'word') throw new TrainprintError('INVALID_OPTIONS', `shingleHashes supports shingle.unit 'word' only`);
    if (into !== undefined && !(into instanceof BigUint64Array)) throw new TrainprintError('INVALID_INPUT', 'into must be a BigUint64Array');
    if (!(input instanceof Uint8Array)) input = toText(input);
    return shingleHashesCore(core, input, o, into);
  }

  /**
   * Similarity of two fingerprints (sync): exact Jaccard and containment over distinct shingles,
   * MinHash estimate and SimHash distance.
   *
   * @throws PARAMS_MISMATCH when the fingerprints were made with different shingle parameters
   * @example
   * const s = engine.similarity(await engine.fingerprint(a), await engine.fingerprint(b))
   * s.jaccard // 0..1
   */
  similarity(a: Fingerprint, b: Fingerprint): Similarity {
    this._core;
    return similarity(a, b);
  }

  /**
   * Align two texts (sync): the reused passages with spans in both ORIGINAL strings, found by
   * sentence-level tf-idf seeds (cosine and Dice), grouped across gaps, merged to one detection
   * per passage, with word-exact edges for verbatim copies. `similarity` is the share of the
   * shorter text's word characters inside aligned spans; `jaccard` and containment are over
   * distinct word 5-grams. Evaluated with the PAN measures in bench/eval-pan.mjs.
   *
   * @throws INVALID_INPUT (non-strings, lone surrogates), INVALID_OPTIONS
   * @example
   * const { similarity, spans } = engine.compare(suspect, source)
   * spans[0] // { a_start, a_end, b_start, b_end, score }
   */
  compare(a: string, b: string, options?: CompareOptions): Comparison {
    return compareTexts(this._core, a, b, options);
  }

  /**
   * XXH64 of a string's UTF-8 bytes or of bytes (sync) — the hash family of every fingerprint.
   * @example engine.xxh64('abc') // 0x44bc2cf5ad770999n
   */
  xxh64(input: string | Uint8Array, seed: bigint | number = 0): bigint {
    const core = this._core;
    if (!(input instanceof Uint8Array)) input = toText(input); // INVALID_INPUT for anything else
    if ((typeof seed !== 'number' || !Number.isSafeInteger(seed)) && typeof seed !== 'bigint') {
      throw new TrainprintError('INVALID_INPUT', 'seed must be an integer or a bigint');
    }
    const data = input;
    const s = BigInt.asUintN(64, BigInt(seed));
    return core.guard(() => {
      const L = core.layout();
      const cap = typeof data === 'string' ? data.length * 3 : data.length;
      const ptr = L.take(cap);
      L.commit();
      let len: number;
      if (typeof data === 'string') len = core.writeUtf8(data, ptr, cap);
      else { core.writeBytes(ptr, data); len = data.length; }
      return BigInt.asUintN(64, core.raw.xxh64(ptr, len, s));
    });
  }

  /**
   * MinHash signature of a set of 64-bit hashes (sync). `mode: 'classic'` uses k independent
   * multiply-add-shift hash functions; `'oph'` one-permutation hashing with optimal densification.
   *
   * @throws INVALID_INPUT (not a BigUint64Array), INVALID_OPTIONS
   * @example engine.minhash(fp.shingles.hashes, { k: 128, mode: 'classic' }) // Uint32Array(128)
   */
  minhash(hashes: BigUint64Array, options?: Readonly<Partial<MinhashOptions>>): Uint32Array {
    return minhashSignature(this._core, hashes, options);
  }

  /**
   * 64-bit SimHash (Charikar) of 64-bit hashes (sync); duplicates count.
   * @throws INVALID_INPUT (not a BigUint64Array)
   * @example engine.simhash(fp.shingles.hashes) === fp.simhash
   */
  simhash(hashes: BigUint64Array): bigint {
    return simhash64(this._core, hashes);
  }

  /**
   * A blocked Bloom membership filter in its own WebAssembly instance (dropping it frees its
   * memory). ≈ 1.2 bytes per key and ≈ 1.16 % false positives at the default 9.6 bits/key.
   *
   * @throws INVALID_OPTIONS, OUT_OF_MEMORY
   * @example
   * const filter = await engine.createFilter({ capacity: 1_000_000 })
   * filter.add(fp.winnow!.hashes); filter.has(other.winnow!.hashes)
   */
  async createFilter(options: MembershipFilterOptions): Promise<MembershipFilter> {
    this._core;
    return MembershipFilter.create(await compileCore(this.variant), options);
  }

  /**
   * Add a reference dataset (or more documents to an existing one). `documents` may be any
   * Iterable or AsyncIterable of `{ id, text, meta? }`. Async; resolves to the dataset's stats.
   *
   * - `kind: 'exact'` (default): winnowed fingerprints stored with their spans (where a match is),
   *   and each document's one-permutation MinHash signature (k = 128, seed 0, over all its word
   *   5-grams) in an LSH index of 16 bands × 8 rows, for near-duplicate documents (`search`).
   * - `kind: 'portrait'`: only the distinct winnowed fingerprints, in a membership filter at
   *   1.2 bytes per stored n-gram (≈ 4.7 % of the corpus bytes at the default `window: 8`); a
   *   search says *which query passages* are in the corpus, not where. Adding more documents
   *   later rebuilds the open filter from the kept keys (exactly sized); `finalizeDataset` seals
   *   it and frees the kept keys. See src/datasets/portrait.ts for the statistics and what length is
   *   reliably reported (≈ 30 words at `window: 8`; ≥ 16 words with `window: 3`, ≈ 10.6 % of corpus bytes).
   *
   * @throws INVALID_INPUT (bad descriptor or document), INVALID_OPTIONS (unknown kind, `window`
   *   out of 1..64 or given for an exact dataset, kind/window differ from the existing dataset's),
   *   ALREADY_EXISTS (a document id already in the dataset)
   * @example
   * await engine.addDataset({ id: 'gutenberg-sample', models: ['example/model-1'] }, [{ id: 'alice', text }])
   * await engine.addDataset({ id: 'books-portrait', kind: 'portrait' }, books) // { index_bytes, fingerprints, fpr, … }
   */
  async addDataset(descriptor: DatasetDescriptor, documents: Iterable<DatasetDocument> | AsyncIterable<DatasetDocument>): Promise<DatasetStats> {
    const core = this._core;
    checkDescriptor(descriptor);
    if (documents === null || typeof documents !== 'object' || (!(Symbol.iterator in documents) && !(Symbol.asyncIterator in documents))) {
      throw new TrainprintError('INVALID_INPUT', 'documents must be an Iterable or AsyncIterable of { id, text }');
    }
    let ds = this.sets.get(descriptor.id);
    if (ds) {
      const kind = ds instanceof PortraitDataset ? 'portrait' : 'exact';
      if (descriptor.kind !== undefined && descriptor.kind !== kind) throw new TrainprintError('INVALID_OPTIONS', `dataset "${descriptor.id}" is of kind '${kind}'`);
      if (descriptor.window !== undefined && ds instanceof PortraitDataset && descriptor.window !== ds.window) {
        throw new TrainprintError('INVALID_OPTIONS', `dataset "${descriptor.id}" has window ${ds.window}`);
      }
    } else {
      const core2 = await Core.create(await compileCore(this.variant));
      ds = descriptor.kind === 'portrait' ? new PortraitDataset(core2, descriptor) : new ExactDataset(core2, descriptor, DATASET_PARAMS);
      this.sets.set(descriptor.id, ds);
    }
    const options = ds instanceof PortraitDataset ? ds.options : DATASET_OPTIONS;
    let at = 0;
    for await (const doc of documents as AsyncIterable<DatasetDocument>) {
      if (!doc || typeof doc !== 'object' || typeof doc.id !== 'string' || doc.id.length === 0 || doc.id.length > 1000) {
        throw new TrainprintError('INVALID_INPUT', `document ${at}: id must be a non-empty string of at most 1000 characters`);
      }
      const text = toText(doc.text);
      ds.addDocument(doc, winnowCore(core, text, options));
      at++;
    }
    if (ds instanceof PortraitDataset) ds.merge();
    this.datasetChanged(descriptor.id);
    return ds.stats();
  }

  /**
   * The datasets loaded in this engine, with their stats (sync).
   * @example engine.datasets().map((d) => `${d.id}: ${d.documents} documents`)
   */
  datasets(): DatasetStats[] {
    this._core;
    return [...this.sets.values()].map((d) => d.stats());
  }

  /**
   * Seal a portrait dataset (sync): its open filter joins the chain and the fingerprints kept
   * for rebuilding are dropped, so it holds only its filters (1.2 B per stored n-gram). Documents
   * added later go into a new filter. Exact datasets have nothing to seal. Returns the stats.
   * @throws NOT_FOUND
   * @example engine.finalizeDataset('books-portrait').index_bytes
   */
  finalizeDataset(id: string): DatasetStats {
    this._core;
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    if (d instanceof PortraitDataset) d.seal();
    return d.stats();
  }

  /**
   * Drop a dataset and free its memory (sync). Returns false when there was none with this id.
   * @example engine.removeDataset('gutenberg-sample') // true
   */
  removeDataset(id: string): boolean {
    this._core;
    const removed = this.sets.delete(id);
    if (removed) this.datasetChanged(id);
    return removed;
  }

  /**
   * Find passages of `text` that occur in the loaded datasets (sync): each match has spans in
   * the query and in the source document; `coverage` gives, per dataset, the share of the query's
   * tokens inside matches and the longest matched run. An exact match spans its matched
   * shingles, from the first to the last; it is reported when that covers at least `minTokens`
   * query words (default 8: two shared winnowed 5-grams at least 4 words apart — one shared
   * 5-gram alone is common phrasing, not evidence). Any shared run of ≥ 12 words shares at least
   * one fingerprint (the winnowing guarantee), but needs ≈ 15–20 words to show two.
   * Portrait datasets give matches with `kind: 'portrait'`, `document_id`/`source_*` null: runs of
   * consecutive hits among the query's winnowed fingerprints whose chance probability is ≤
   * `alpha` (default 1e-6 per query and dataset; `score` = 1 − that probability).
   *
   * Near-duplicate documents (exact datasets only), in addition to the passage matches: the
   * query's one-permutation MinHash (k = 128) over all its word 5-grams is looked up in each
   * dataset's LSH index (16 bands × 8 rows); every document sharing a band whose estimated
   * Jaccard similarity of 5-gram sets is ≥ `near` (default 0.5) gives one match `{ kind: 'near',
   * query_start: 0, query_end: query length, source_start: 0, source_end: document length,
   * tokens: query tokens, score: the estimate }`, listed after the passage matches. LSH makes a
   * document a candidate with probability 1 − (1 − J⁸)¹⁶: 0.06 at J = 0.5, 0.61 at 0.7, 0.95 at
   * 0.8, 0.9999 at 0.9 — so near-duplicates below J ≈ 0.7 are reported only sometimes, whatever
   * `near` says. Word edits cost more than they seem: 5 % of the words substituted one by one
   * leave J ≈ 0.95⁵ / (2 − 0.95⁵) ≈ 0.63 (each edit breaks five 5-grams; measured 0.62–0.67 on
   * the licence texts, found 4 times in 14), the same 5 % in runs of five words J ≈ 0.83 (found
   * 14 in 14). Near matches do not count in `coverage` (they say the documents are alike, not
   * which words are shared).
   *
   * @throws INVALID_INPUT, INVALID_OPTIONS (`minTokens`, `alpha`, `near` out of range), NOT_FOUND (an unknown dataset id in `datasets`)
   * @example
   * const { matches, coverage } = engine.search(suspectText)
   * matches[0] // { dataset_id, document_id, query_start, query_end, source_start, source_end, kind: 'exact', tokens, score }
   * engine.search(otherEdition, { near: 0.7 }).matches.filter((m) => m.kind === 'near') // [{ kind: 'near', document_id, score: 0.98, … }]
   */
  search(text: string | Uint8Array, options: SearchOptions = {}): SearchResult {
    return this._search(toText(text), options).result;
  }

  /**
   * @internal `search` with the per-dataset counts behind it (for the evidence statistics of
   * `analyze`): exact datasets give their chains' hit counts, portraits their runs.
   */
  _search(query: string, options: SearchOptions = {}): { result: SearchResult; details: Map<string, DatasetSearchDetail>; fingerprint: Fingerprint } {
    const core = this._core;
    if (options === null || typeof options !== 'object') throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
    const minTokens = options.minTokens ?? DEFAULT_MIN_TOKENS;
    if (!Number.isInteger(minTokens) || minTokens < 1) throw new TrainprintError('INVALID_OPTIONS', 'minTokens must be a positive integer');
    const alpha = options.alpha ?? PORTRAIT_ALPHA;
    if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1)) throw new TrainprintError('INVALID_OPTIONS', 'alpha must be a number in (0, 1)');
    const near = options.near ?? DEFAULT_NEAR;
    if (typeof near !== 'number' || !(near > 0 && near <= 1)) throw new TrainprintError('INVALID_OPTIONS', 'near must be a number in (0, 1]');
    const portraitHits = options.portraitHits ?? false;
    if (typeof portraitHits !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'portraitHits must be a boolean');
    let targets = [...this.sets.values()];
    if (options.datasets !== undefined) {
      if (!Array.isArray(options.datasets)) throw new TrainprintError('INVALID_OPTIONS', 'datasets must be an array of dataset ids');
      targets = options.datasets.map((id) => {
        const d = this.sets.get(id);
        if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
        return d;
      });
    }
    const { fp } = fingerprintCore(core, query, SEARCH_OPTIONS);
    const winnowed = new Map<number, Fingerprint>(); // portrait window → query winnowed with it
    const matches: SearchMatch[] = [];
    const nearMatches: NearMatch[] = [];
    const coverage: Record<string, DatasetCoverage> = {};
    const portraitRuns: PortraitHit[] = [];
    const details = new Map<string, DatasetSearchDetail>();
    for (const d of targets) {
      const id = d.descriptor.id;
      if (d instanceof PortraitDataset) {
        let qw = winnowed.get(d.window);
        if (!qw) winnowed.set(d.window, (qw = fingerprintCore(core, query, d.options).fp));
        const r = d.search(qw, alpha);
        if (portraitHits) portraitRuns.push(...r.runs);
        coverage[id] = { ...tokenCoverage(r.matches, fp), membership: membership(r) };
        matches.push(...r.matches);
        details.set(id, { kind: 'portrait', search: r, near: [] });
      } else {
        const r = d.search(fp, DEFAULT_WINDOW, DEFAULT_SIZE, minTokens);
        const nearFound = d.searchNear(fp.minhash!, near, query.length, fp.token_count);
        nearMatches.push(...nearFound);
        coverage[id] = tokenCoverage(r.matches, fp);
        matches.push(...r.matches);
        details.set(id, { kind: 'exact', search: r, near: nearFound });
      }
    }
    matches.sort((a, b) => b.tokens - a.tokens || a.query_start - b.query_start);
    nearMatches.sort((a, b) => b.score - a.score);
    matches.push(...nearMatches);
    const result: SearchResult = { matches, coverage, query_tokens: fp.token_count };
    return { result: portraitHits ? { ...result, portrait_hits: portraitRuns } : result, details, fingerprint: fp };
  }

  /**
   * A dataset as bytes (sync): msgpack with a versioned header, the parameter id and a checksum.
   * @throws NOT_FOUND
   * @example const bytes = engine.exportDataset('gutenberg-sample')
   */
  exportDataset(id: string): Uint8Array {
    this._core;
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    return encodeDataset(d.toData());
  }

  /**
   * Load a dataset exported by `exportDataset` (async). A truncated, corrupted or incompatible
   * file is refused with SNAPSHOT_INCOMPATIBLE; an id already loaded with ALREADY_EXISTS.
   * @example const stats = await engine.importDataset(bytes)
   */
  async importDataset(bytes: Uint8Array): Promise<DatasetStats> {
    this._core;
    const data = decodeDataset(bytes, { kind: 'any' });
    if (data.descriptor.kind === 'exact' && data.params !== DATASET_PARAMS) {
      throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `params mismatch: snapshot has ${JSON.stringify(data.params)}, expected ${JSON.stringify(DATASET_PARAMS)}`);
    }
    if (this.sets.has(data.descriptor.id)) throw new TrainprintError('ALREADY_EXISTS', `dataset "${data.descriptor.id}" is already loaded`);
    checkKbLinks(data.descriptor);
    const core2 = await Core.create(await compileCore(this.variant));
    const ds = 'filters' in data ? PortraitDataset.fromData(core2, data) : ExactDataset.fromData(core2, data);
    this.sets.set(ds.descriptor.id, ds);
    this.datasetChanged(ds.descriptor.id);
    return ds.stats();
  }

  /**
   * Declare what a loaded dataset samples (sync): `kb_dataset` (a knowledge-base dataset id) and/or
   * `models` (KB model ids); `null` removes a declaration. Attributions derived from it are labelled
   * as declared. Kept in the dataset's descriptor (and in its exported file). Monitors re-evaluate.
   * @throws NOT_FOUND (unknown dataset, KB dataset or model), INVALID_INPUT
   * @example engine.declareDataset('my-crawl', { kb_dataset: 'common-crawl' })
   */
  declareDataset(id: string, declaration: { kb_dataset?: string | null; models?: readonly string[] | null }): DatasetStats {
    this._core;
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    if (declaration === null || typeof declaration !== 'object') throw new TrainprintError('INVALID_INPUT', 'declaration must be an object { kb_dataset?, models? }');
    for (const k of Object.keys(declaration)) if (k !== 'kb_dataset' && k !== 'models') throw new TrainprintError('INVALID_INPUT', `declaration: unknown field "${k}" (allowed: kb_dataset, models)`);
    const next: { kb_dataset?: string; models?: readonly string[] } = { kb_dataset: d.descriptor.kb_dataset, models: d.descriptor.models };
    if (declaration.kb_dataset !== undefined) {
      if (declaration.kb_dataset !== null && typeof declaration.kb_dataset !== 'string') throw new TrainprintError('INVALID_INPUT', 'kb_dataset must be a string or null');
      next.kb_dataset = declaration.kb_dataset ?? undefined;
    }
    if (declaration.models !== undefined) {
      if (declaration.models !== null && (!Array.isArray(declaration.models) || declaration.models.some((m) => typeof m !== 'string'))) throw new TrainprintError('INVALID_INPUT', 'models must be an array of model ids or null');
      next.models = declaration.models === null ? undefined : [...declaration.models];
    }
    checkKbLinks(next);
    const { kb_dataset: _k, models: _m, ...rest } = d.descriptor;
    d.descriptor = {
      ...rest,
      ...(next.models === undefined ? {} : { models: next.models.map((m) => knowledgeBase().model(m).id) }),
      ...(next.kb_dataset === undefined ? {} : { kb_dataset: knowledgeBase().dataset(next.kb_dataset).id }),
    } as typeof d.descriptor;
    this.datasetChanged(id);
    return d.stats();
  }

  /** @internal the descriptor of a loaded dataset. */
  _descriptor(id: string): DatasetDescriptor {
    const d = this.sets.get(id);
    if (!d) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    return d.descriptor;
  }

  /**
   * Analyse content (async): corpus evidence from the loaded datasets, calibrated confidence,
   * attribution sources through the knowledge base, risk, revenue estimate and factor codes —
   * the service's result shape plus `matches`, `coverage`, `evidence` and `limitations`
   * (every field: README "analyze result"). The result is kept for {@link getAnalysis}.
   *
   * @throws INVALID_INPUT (missing/empty/non-string content, unknown content_type or metadata field, bad jurisdiction or date), PAYLOAD_TOO_LARGE (> 10 MiB), INVALID_OPTIONS, NOT_FOUND (unknown dataset in options.datasets)
   * @example
   * const r = await engine.analyze({ content: text, content_type: 'text', metadata: { jurisdiction: 'US' } })
   * r.confidence            // 0..100
   * r.attribution_sources   // [{ provider: 'EleutherAI', model: 'eleutherai/pythia-6.9b', training_dataset: 'The Pile', confidence: 0.94, … }]
   * r.risk_assessment       // { level: 'medium', factors: ['verbatim_overlap', 'dataset_disclosed_by_provider', …] }
   */
  async analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<AnalysisResult> {
    this._core;
    const result = await runAnalysis(this, request, options);
    await this.store.put(`analysis/${result.analysis_id}`, result);
    return result;
  }

  /**
   * A stored analysis by id (async), from the engine's store.
   * @throws NOT_FOUND
   * @example
   * const again = await engine.getAnalysis(r.analysis_id)
   */
  async getAnalysis(id: string): Promise<AnalysisResult> {
    const r = typeof id === 'string' && /^an_[0-9a-f]{32}$/.test(id) ? await this.store.get(`analysis/${id}`) : undefined;
    if (!r) throw new TrainprintError('NOT_FOUND', `no analysis "${String(id)}"`);
    return r as AnalysisResult;
  }

  // ---------------------------------------------------------------- registry

  /**
   * Register a work (async): from its `content` (kept, so `score` can search it) or from its
   * `fingerprint` (`{ fingerprint, work_hash }`, when the text stays with you). Returns the work
   * with a signed receipt over work_hash + owner + registered_at. The same owner registering the
   * same work_hash again gets the stored work (`created: false`); another owner gets a work of
   * their own and both list each other in `conflicting_claims`.
   * @throws INVALID_INPUT, PAYLOAD_TOO_LARGE
   * @example
   * const w = await engine.registerWork({ content: text, owner: 'acme-press', title: 'Persuasion', work_type: 'book', declarations: { tdm_opt_out: true, since: '2024-01-01' } })
   * w.work_hash // 'sha256:…'
   * await engine.verifyReceipt(w.receipt) // true
   */
  async registerWork(request: RegisterWorkRequest): Promise<RegisterWorkResult> {
    this._core;
    return registerWork(this, this.store, await this.key(), request);
  }

  /**
   * True when `receipt` was signed with this engine's receipt key and is unaltered.
   * @example await engine.verifyReceipt({ ...w.receipt, owner: 'someone-else' }) // false
   */
  async verifyReceipt(receipt: unknown): Promise<boolean> {
    return checkReceipt(await this.key(), receipt);
  }

  /**
   * A registered work. @throws NOT_FOUND
   * @example const w = await engine.getWork('wk_…')
   */
  async getWork(workId: string): Promise<Work> {
    return getWork(this.store, workId);
  }

  /**
   * Registered works, optionally of one owner: `{ works, next }` (pass `next` as `after` for the next page).
   * @example const { works, next } = await engine.listWorks({ owner: 'acme-press', limit: 50 })
   */
  listWorks(options?: { owner?: string; after?: string; limit?: number }): Promise<{ works: Work[]; next: string | null }> {
    return listWorks(this.store, options);
  }

  /**
   * Delete a work and its text; with `owner`, only that owner's. @throws FORBIDDEN
   * @example await engine.deleteWork(w.work_id, { owner: 'acme-press' }) // true
   */
  deleteWork(workId: string, options: { owner?: string } = {}): Promise<boolean> {
    return deleteWork(this.store, workId, options?.owner);
  }

  /**
   * How likely it is that `target_model` trained on a registered work (async): `score` 0–100, a
   * bootstrap `ci_95`, a `tier` from the interval's lower bound (or `confirmed` for exact corpus
   * evidence in a documented training dataset), the reused share with a Wilson interval, and a
   * separate `legal_risk` for the jurisdiction (src/services/score/score.ts, README "score").
   * @throws INVALID_INPUT (formats; an unknown jurisdiction shape lists what is accepted), NOT_FOUND (work_hash not registered, unknown model)
   * @example
   * const s = await engine.score({ work_hash: w.work_hash, target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' })
   * s.score, s.tier, s.ci_95 // 95, 'confirmed', [94.8, 95]
   */
  async score(request: ScoreRequest): Promise<ScoreResult> {
    this._core;
    return scoreWork(this, this.store, request);
  }

  /**
   * The licensing marketplace on this engine's store (listings, offers, signed licences, audit
   * log; src/services/market/, README "Licensing marketplace"). `caller` arguments are account ids.
   * @example
   * const l = await engine.marketplace.createListing('estate', { work_id, licence_type: 'training', territory: ['US'], term_months: 36, price: { amount_minor: 500_000, currency: 'USD' }, exclusive: true, status: 'active' })
   */
  get marketplace(): Marketplace {
    this.market ??= createMarketplace({ store: this.store, key: () => this.key() });
    return this.market;
  }

  /**
   * Memorization-risk operations on this engine and its store (register-work with canaries,
   * extract, probe, compare, assess, report; src/services/memorization/, README "Memorization risk").
   * @example
   * const a = await engine.memorization.assess({ work_id, model, probe: { reference: { reference_set: 'withheld' } } })
   */
  get memorization(): Memorization {
    this.mem ??= new Memorization(this);
    return this.mem;
  }

  // ---------------------------------------------------------------- monitors

  /**
   * Watch a registered work: re-evaluated when datasets change (and on `startMonitoring`'s
   * interval); `match.found` / `score.changed` events go to the event log and, signed, to the webhook.
   * @example
   * const m = await engine.createMonitor({ work_id: w.work_id, webhook: { url: 'https://example.org/hooks', secret: 'whsec_0123456789abcdef' } })
   */
  createMonitor(request: CreateMonitorRequest): Promise<Monitor> {
    return createMonitor(this.store, request);
  }

  /** A monitor. @throws NOT_FOUND @example await engine.getMonitor(m.monitor_id) */
  getMonitor(id: string): Promise<Monitor> {
    return getMonitor(this.store, id);
  }

  /** Monitors, optionally of one work. @example await engine.listMonitors({ work_id: w.work_id }) */
  listMonitors(options?: { work_id?: string }): Promise<Monitor[]> {
    return listMonitors(this.store, options);
  }

  /** Stop evaluating a monitor. @example await engine.pauseMonitor(m.monitor_id) */
  pauseMonitor(id: string): Promise<Monitor> {
    return setMonitorState(this.store, id, 'paused');
  }

  /** Evaluate a paused monitor again. @example await engine.resumeMonitor(m.monitor_id) */
  resumeMonitor(id: string): Promise<Monitor> {
    return setMonitorState(this.store, id, 'active');
  }

  /** Delete a monitor (its events stay). @example await engine.deleteMonitor(m.monitor_id) // true */
  deleteMonitor(id: string): Promise<boolean> {
    return deleteMonitor(this.store, id);
  }

  /**
   * Re-evaluate every active monitor now (after the evaluations dataset changes queued); returns the new events.
   * @example const events = await engine.evaluateMonitors()
   */
  evaluateMonitors(): Promise<MonitorEvent[]> {
    return this.queueMonitors('manual');
  }

  /**
   * The event log, oldest first. @example await engine.listEvents({ monitor_id: m.monitor_id })
   */
  listEvents(options?: { monitor_id?: string; after?: string; limit?: number }): Promise<MonitorEvent[]> {
    return listEvents(this.store, options);
  }

  /**
   * Wait until the monitor evaluations queued by dataset changes have run.
   * @example await engine.addDataset(d, docs); await engine.monitorsIdle(); await engine.listEvents()
   */
  async monitorsIdle(): Promise<void> {
    await this.monitorChain.catch(() => undefined);
  }

  /**
   * Re-evaluate all monitors every `intervalMs`, deliver due webhooks and expire marketplace offers (timers are unref'd in
   * Node, so they never keep a process alive). `stopMonitoring()` ends both.
   * @example engine.startMonitoring(60_000)
   */
  startMonitoring(intervalMs: number): void {
    if (!Number.isInteger(intervalMs) || intervalMs < 10) throw new TrainprintError('INVALID_OPTIONS', 'intervalMs must be an integer ≥ 10');
    this.stopTimer();
    this.monitorTimer = setInterval(() => { void this.queueMonitors('interval').catch(() => undefined); }, intervalMs);
    (this.monitorTimer as { unref?: () => void }).unref?.();
    this.webhooks.start(intervalMs);
    this.marketplace.start(intervalMs);
  }

  /** Stop the interval of {@link startMonitoring} and wait for running work. @example await engine.stopMonitoring() */
  async stopMonitoring(): Promise<void> {
    this.stopTimer();
    await this.market?.stop();
    await this.webhooks.stop();
    await this.monitorsIdle();
  }

  private stopTimer(): void {
    if (this.monitorTimer) clearInterval(this.monitorTimer);
    this.monitorTimer = null;
  }

  /** Queue an evaluation after the ones already queued (evaluations never overlap). */
  private queueMonitors(trigger: string, datasetId?: string): Promise<MonitorEvent[]> {
    const run = this.monitorChain.catch(() => undefined).then(() => evaluateMonitors(this, this.store, this.webhooks, trigger, datasetId));
    this.monitorChain = run;
    return run;
  }

  /** A dataset was added, grown, imported, sealed or removed: re-evaluate the monitors it may affect. */
  private datasetChanged(id: string): void {
    void this.queueMonitors(id, id).catch(() => undefined);
  }

  private key(): Promise<ReceiptKey> {
    this.receiptKey ??= loadReceiptKey(this.store, this.receiptKeyOption);
    return this.receiptKey;
  }

  /**
   * Models of the knowledge base, optionally filtered (sync).
   * @example engine.models({ dataset: 'the-pile' }).map((m) => m.id) // ['eleutherai/gpt-neo-2.7b', …]
   */
  models(filter?: Parameters<KnowledgeBase['models']>[0]): KbModel[] {
    return knowledgeBase().models(filter);
  }

  /**
   * One model by id (`provider/model_name`, case-insensitive).
   * @throws NOT_FOUND
   * @example engine.model('EleutherAI/pythia-6.9b').disclosure // 'full'
   */
  model(id: string): KbModel {
    return knowledgeBase().model(id);
  }

  /**
   * Providers and their models.
   * @example engine.providers().find((p) => p.id === 'meta')?.models.length
   */
  providers(): KbProvider[] {
    return knowledgeBase().providers();
  }

  /**
   * The curated training datasets of the knowledge base.
   * @example engine.kbDatasets().map((d) => d.id) // ['the-pile', 'books3', 'c4', …]
   */
  kbDatasets(): KbDataset[] {
    return knowledgeBase().datasets();
  }

  /**
   * One curated dataset by id.
   * @throws NOT_FOUND
   * @example engine.kbDataset('books3').pirated // true
   */
  kbDataset(id: string): KbDataset {
    return knowledgeBase().dataset(id);
  }

  /** Bytes of WebAssembly memory this engine holds (grows to the largest input seen, then stays). */
  get memoryBytes(): number {
    return this._core.memoryBytes;
  }

  /** Release the instance; later calls throw ENGINE_DISPOSED. */
  dispose(): void {
    this.core = null;
    this.sets.clear();
  }
}

/**
 * Create an engine: compiles the core once per process (cached), instantiates it per engine.
 *
 * @throws WASM_UNSUPPORTED when the runtime has no WebAssembly (or no SIMD with `simd: true`)
 * @example
 * import { createEngine } from 'trainprint'
 * const engine = await createEngine()
 * const fp = await engine.fingerprint('Call me Ishmael. Some years ago…')
 */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  if (options === null || typeof options !== 'object') throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const simd = options.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false) throw new TrainprintError('INVALID_OPTIONS', `simd must be 'auto', true or false`);
  const store = options.store;
  if (store !== undefined && (store === null || typeof store !== 'object' || ['get', 'put', 'delete', 'scan', 'batch', 'transaction', 'close'].some((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function'))) {
    throw new TrainprintError('INVALID_OPTIONS', 'store must implement the Store interface (get, put, delete, scan, batch, transaction, close)');
  }
  const variant = pickVariant(simd);
  const core = await Core.create(await compileCore(variant));
  return new Engine(core, variant, options);
}

/** Options of {@link Engine.search}. */
export interface SearchOptions {
  /** Only these datasets. @default all loaded */
  readonly datasets?: readonly string[];
  /** Shortest exact passage reported, in query words covered by its matched shingles. @default 8 */
  readonly minTokens?: number;
  /**
   * Portrait datasets: largest chance probability of a reported run, per query and dataset
   * (m · p^r for r distinct consecutive hits among m query fingerprints at false-positive rate p).
   * @default 1e-6
   */
  readonly alpha?: number;
  /**
   * Exact datasets: smallest estimated Jaccard similarity (of word 5-gram sets, MinHash-LSH) for
   * a whole indexed document to be reported as a near duplicate of the whole query (`kind:
   * 'near'`, one match per document, in addition to the passage matches). In (0, 1]. The LSH
   * bands (16 × 8) find a document with probability 0.06 at J = 0.5, 0.61 at 0.7, 0.95 at 0.8,
   * so values below ≈ 0.7 catch only some of the documents that similar.
   * @default 0.5
   */
  readonly near?: number;
  /**
   * Also return every run of portrait hits, reportable or not (`portrait_hits`): the raw
   * membership evidence, for a caller who wants to see the single hits that winnowing guarantees
   * for every shared run of ≥ window + 4 words. @default false
   */
  readonly portraitHits?: boolean;
}

/**
 * Hit count of a portrait search against what the filter's false positives alone would give:
 * `p_value` = P(X ≥ hits) for X ~ Binomial(tested, fpr). It tests the whole query ("more of its
 * n-grams are in the corpus than chance gives") and so counts overlaps too short to be a match.
 * It assumes clean text hits only by the filter's errors: measured 1.0–1.2 % against a design
 * 1.13 % for books vs a portrait of other books, but n-grams genuinely common in a large corpus
 * (boilerplate, stock phrases) raise the clean rate, so on web-scale portraits read it with care.
 */
export interface PortraitMembership {
  readonly tested: number;
  readonly hits: number;
  /** tested × fpr: the hits chance alone would give. */
  readonly expected: number;
  readonly fpr: number;
  readonly p_value: number;
}

/** Per dataset: how much of the query the matches cover. */
export interface DatasetCoverage {
  /** Share of the query's tokens inside matches, 0..1. */
  readonly share: number;
  /** Longest match, in query tokens. */
  readonly longest_run: number;
  /** Portrait datasets only: the hit count against chance. */
  readonly membership?: PortraitMembership;
}

/** @internal What one dataset's search found, with its counts (see `Engine._search`). */
export type DatasetSearchDetail =
  | { readonly kind: 'exact'; readonly search: ExactSearch; readonly near: NearMatch[] }
  | { readonly kind: 'portrait'; readonly search: PortraitSearch; readonly near: NearMatch[] };

/** Result of {@link Engine.search}. */
export interface SearchResult {
  /**
   * Matched passages (`kind: 'exact' | 'portrait'`), longest first, then the near-duplicate
   * documents (`kind: 'near'`, exact datasets), highest estimated Jaccard similarity first.
   */
  readonly matches: SearchMatch[];
  /** Per dataset id: share of the query's tokens inside matches (0..1) and the longest match in tokens. */
  readonly coverage: Record<string, DatasetCoverage>;
  /** Every run of portrait hits, in query order per dataset (only with `portraitHits: true`). */
  readonly portrait_hits?: PortraitHit[];
  /** Word tokens in the query. */
  readonly query_tokens: number;
}

const DEFAULT_SIZE = 5;
const DEFAULT_WINDOW = 8;
/** Two hits at least 4 words apart (measured: 0 false matches in 4,645 clean negatives, bench/eval-retrieval.mjs). */
const DEFAULT_MIN_TOKENS = 8;
/** Smallest estimated Jaccard similarity of a reported near-duplicate document. */
const DEFAULT_NEAR = 0.5;
/**
 * How exact-dataset documents are fingerprinted (and so what every exact dataset's params id
 * says): winnowed word 5-grams, and the one-permutation MinHash (k = 128, seed 0) of all of
 * them for near-duplicate search (`mh=oph128`).
 */
const NEAR_MINHASH = { mode: 'oph', permutations: NEAR_K } as const;
const DATASET_OPTIONS = resolveOptions({ minhash: NEAR_MINHASH, simhash: false, workHash: false });
/**
 * Params id of exact datasets: the fingerprint params plus the index layout (`idx=swap32`: keys
 * stored with their 32-bit halves swapped), so a file whose keys mean something else is refused.
 */
const DATASET_PARAMS = `${paramsId(DATASET_OPTIONS)};idx=swap32`;
/** Queries: every shingle is looked up, so no winnowing; the same MinHash as the documents. */
const SEARCH_OPTIONS = resolveOptions({ minhash: NEAR_MINHASH, simhash: false, workHash: false, winnow: false });

function checkDescriptor(d: DatasetDescriptor): void {
  if (!d || typeof d !== 'object') throw new TrainprintError('INVALID_INPUT', 'descriptor must be an object { id, name?, kind?, models?, kb_dataset?, meta? }');
  if (typeof d.id !== 'string' || d.id.length === 0 || d.id.length > 200) throw new TrainprintError('INVALID_INPUT', 'descriptor.id must be a non-empty string of at most 200 characters');
  if (d.kind !== undefined && d.kind !== 'exact' && d.kind !== 'portrait') throw new TrainprintError('INVALID_OPTIONS', `kind must be 'exact' or 'portrait'`);
  if (d.window !== undefined) {
    if (d.kind !== 'portrait') throw new TrainprintError('INVALID_OPTIONS', `window is an option of kind 'portrait' only`);
    checkPortraitWindow(d.window);
  }
  if (d.name !== undefined && typeof d.name !== 'string') throw new TrainprintError('INVALID_INPUT', 'descriptor.name must be a string');
  if (d.models !== undefined && (!Array.isArray(d.models) || d.models.some((m) => typeof m !== 'string'))) throw new TrainprintError('INVALID_INPUT', 'descriptor.models must be an array of strings');
  if (d.kb_dataset !== undefined && typeof d.kb_dataset !== 'string') throw new TrainprintError('INVALID_INPUT', 'descriptor.kb_dataset must be a string');
  checkKbLinks(d);
}

/**
 * A descriptor's declarations must name knowledge-base entries: `kb_dataset` a curated dataset
 * id, `models` KB model ids (NOT_FOUND otherwise, naming the unknown id).
 */
function checkKbLinks(d: { readonly kb_dataset?: string; readonly models?: readonly string[] }): void {
  const kb = knowledgeBase();
  if (d.kb_dataset !== undefined) kb.dataset(d.kb_dataset);
  for (const m of d.models ?? []) kb.model(m);
}

/** Share of query tokens covered by the union of the matches, and the longest match. */
function membership(r: PortraitSearch): PortraitMembership {
  return { tested: r.tested, hits: r.hits, expected: r.tested * r.fpr, fpr: r.fpr, p_value: binomialUpperTail(r.hits, r.tested, r.fpr) };
}

function tokenCoverage(matches: readonly SearchMatch[], fp: Fingerprint): { share: number; longest_run: number } {
  if (fp.token_count === 0 || matches.length === 0) return { share: 0, longest_run: 0 };
  // token index of a query offset: shingle i starts at token i
  const covered = new Uint8Array(fp.token_count);
  const starts = fp.shingles.starts; // non-decreasing: binary search the first shingle at a match's start
  const firstAt = (x: number): number => {
    let lo = 0, hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let longest = 0;
  for (const m of matches) {
    const first = firstAt(m.query_start);
    covered.fill(1, first, Math.min(fp.token_count, first + m.tokens));
    longest = Math.max(longest, m.tokens);
  }
  let n = 0;
  for (let i = 0; i < covered.length; i++) n += covered[i];
  return { share: n / fp.token_count, longest_run: longest };
}
