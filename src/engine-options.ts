/**
 * The options of `createEngine` and their checks, apart from the Engine (engine.ts) and its factory
 * (create-engine.ts), which both read them.
 */
import type { RemoteDatasetConfig } from './corpus/remote-types.js';
import { TrainprintError } from './errors.js';
import type { FingerprintEngineOptions } from './fingerprint-engine.js';
import { retentionRules, type AnalysisRetention } from './services/analyze/retention.js';
import { KnowledgeBase } from './services/kb/index.js';
import type { WebhookDelivererOptions } from './services/monitors/webhook.js';
import type { Store } from './store/types.js';
import { knownOptions } from './util/known-options.js';

/** Options of {@link createEngine} (with `simd` and `synonyms` of {@link FingerprintEngineOptions}). */
export interface EngineOptions extends FingerprintEngineOptions {
  /**
   * Where the registry, analyses, monitors, events and deliveries live: a {@link Store}. The default keeps them in
   * memory (every runtime); `openFileStore(dir)` from `trainprint/node` is durable. @default new MemoryStore()
   */
  readonly store?: Store;
  /**
   * Key of the registration receipts (HMAC-SHA256), ≥ 32 bytes. Without it the engine generates one and keeps it
   * in the store, so receipts verify across restarts with the same store.
   */
  readonly receiptKey?: string | Uint8Array;
  /** Webhook delivery settings (retries, timeouts; `fetch`, clock and sleep for tests). */
  readonly webhooks?: Omit<WebhookDelivererOptions, 'store' | 'resolveSecret'>;
  /**
   * Reference packs to load before the engine is handed over: `'default'` loads every default pack of the packs
   * folder at {@link packsUrl} (Project Gutenberg and English Wikipedia portraits, about 20 MB), each file checked
   * against the SHA-256 its index lists first (docs/packs.md). Nothing of them is in the bundle. @default 'none'
   */
  readonly packs?: 'default' | 'none';
  /**
   * Where the packs are: a folder URL holding `index.json` and the files it lists. The default is the `packs/`
   * folder of this package (read from disk in Node, Deno and Bun; fetched where the package is served from a CDN).
   * Pass one in browsers that serve the package files elsewhere.
   */
  readonly packsUrl?: string | URL;
  /**
   * How long stored analyses stay (`getAnalysis`): a time to live and a cap per owner (docs/analyze.md).
   * @default { ttlDays: 30, maxPerOwner: 10_000, maxBytesPerOwner: 256 MiB }
   */
  readonly analyses?: AnalysisRetention;
  /**
   * Remote training corpora to search beside the local datasets (see {@link Engine.addRemoteDataset}), added before
   * the engine is handed over. Off by default: analyze, score and monitors then send the text to these engines.
   * @default []
   */
  readonly remoteCorpora?: readonly RemoteDatasetConfig[];
  /**
   * The knowledge base of models, training datasets and their links that analyze, score, monitors, assess and the
   * `models`/`datasets` look-ups read: a {@link KnowledgeBase} made from the shipped facts extended or replaced
   * (`new KnowledgeBase({ datasets, entries, … })`, docs/knowledge-base.md). @default knowledgeBase(), the shipped one
   */
  readonly kb?: KnowledgeBase;
}

/** Every member of {@link EngineOptions}, held to the interface by the compiler: `createEngine` refuses others. */
const ENGINE_OPTION_KEYS = Object.keys({
  store: true,
  receiptKey: true,
  webhooks: true,
  packs: true,
  packsUrl: true,
  analyses: true,
  remoteCorpora: true,
  kb: true,
  simd: true,
  synonyms: true,
} satisfies Record<keyof EngineOptions, true>);

const STORE_METHODS = ['get', 'put', 'delete', 'scan', 'batch', 'transaction', 'close'];
const NOT_A_STORE = `store must implement the Store interface (${STORE_METHODS.join(', ')})`;

/**
 * Check the options of `createEngine` that need no core (the fingerprint ones are checked as the core is made):
 * INVALID_OPTIONS naming the first bad one.
 * @example checkEngineOptions({ packs: 'default' }) // ok; checkEngineOptions({ packs: 'all' }) throws
 */
export function checkEngineOptions(options: EngineOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  }
  knownOptions(options, ENGINE_OPTION_KEYS);
  const store = options.store as unknown as Record<string, unknown> | null | undefined;
  const isStore = !!store && typeof store === 'object' && STORE_METHODS.every((m) => typeof store[m] === 'function');
  if (store !== undefined && !isStore) throw new TrainprintError('INVALID_OPTIONS', NOT_A_STORE);
  const packs = options.packs ?? 'none';
  if (packs !== 'default' && packs !== 'none') {
    throw new TrainprintError('INVALID_OPTIONS', `packs must be 'default' or 'none'`);
  }
  retentionRules(options.analyses);
  if (options.kb !== undefined && !(options.kb instanceof KnowledgeBase))
    throw new TrainprintError('INVALID_OPTIONS', 'kb must be a KnowledgeBase (new KnowledgeBase(source))');
  if (options.remoteCorpora !== undefined && !Array.isArray(options.remoteCorpora))
    throw new TrainprintError('INVALID_OPTIONS', 'remoteCorpora must be an array of remote dataset configurations');
}
