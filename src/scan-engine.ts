/**
 * The scan engine, a composition root beside the Engine's: the {@link DatasetEngine} (the fingerprint engine with the
 * loaded datasets) and the scan service alone — no store of the services' records, analyze, registry, score, monitors,
 * marketplace or memorization. A file scan (`trainprint scan`) needs no more, and a bundle built from this module
 * (with src/scan-library.ts) is about two thirds of the library's, which a process compiles at its start
 * (docs/performance.md, "The scan and the fingerprint as whole processes"). The scan service is the same code the
 * Engine loads on a first scan (src/services/scan/scan.ts), so the same datasets and options give the same hits.
 */
import type { Core } from './core/abi.js';
import type { CoreVariant } from './core/load.js';
import { DatasetEngine } from './dataset-engine.js';
import { TrainprintError } from './errors.js';
import { instantiateCore, type FingerprintEngineOptions } from './fingerprint-engine.js';
import { knowledgeBase, type KnowledgeBase } from './services/kb/index.js';
import { kbLinks } from './services/kb/links.js';
import { createScanService, type ScanService } from './services/scan/scan.js';
import type { ScanHit, ScanItem, ScanOptions, ScanSummary } from './services/scan/types.js';
import { MemoryStore } from './store/memory.js';

/**
 * The datasets' operations and the scan, with the semantics of the Engine's `scan`, `scanItem` and `datasetDigest`
 * (engine.ts). A dataset descriptor that names a model or a curated dataset is checked against the shipped knowledge
 * base, built on first use, as the Engine's is.
 */
export class ScanEngine extends DatasetEngine {
  private readonly scans: ScanService;
  /** The shipped knowledge base once a descriptor named an id of it. */
  private kbBuilt: KnowledgeBase | null = null;

  /** @internal use {@link createScanEngine} */
  constructor(core: Core, variant: CoreVariant) {
    super(core, variant, new MemoryStore(), { links: kbLinks(() => (this.kbBuilt ??= knowledgeBase())) });
    this.scans = createScanService({ corpus: this.corpus });
  }

  /**
   * The hits of `items` against the exact datasets, item by item in input order; returns the summary (the Engine's
   * `scan`).
   * @throws (rejects) INVALID_OPTIONS, NOT_FOUND, INVALID_INPUT, `signal.reason` when aborted
   * @example for await (const hit of engine.scan(outputs, { minWords: 50 })) console.log(hit.id, hit.document_id)
   */
  scan(
    items: Iterable<ScanItem> | AsyncIterable<ScanItem>,
    options?: ScanOptions,
  ): AsyncGenerator<ScanHit, ScanSummary> {
    this.assertLive();
    return this.scans.scan(items, options);
  }

  /**
   * The hits of one item (the Engine's `scanItem`).
   * @throws (rejects) as {@link scan}
   * @example const hits = await engine.scanItem({ id: 'out-1', text: output })
   */
  scanItem(item: ScanItem, options?: ScanOptions): Promise<ScanHit[]> {
    this.assertLive();
    return this.scans.scanItem(item, options);
  }

  /**
   * An exact dataset's content digest (the Engine's `datasetDigest`).
   * @throws (rejects) NOT_FOUND, NOT_SUPPORTED, STORE_UNAVAILABLE
   * @example await engine.datasetDigest('books') // '5f1d…'
   */
  datasetDigest(id: string): Promise<string> {
    this.assertLive();
    return this.scans.digest(id);
  }
}

/**
 * Create a scan engine: the core compiled once per process (cached) and instantiated for it; `synonyms: false` leaves
 * the WordNet table unloaded (a scan for copies aligns without it, src/services/scan/scan.ts).
 * @throws (rejects) WASM_UNSUPPORTED, INVALID_OPTIONS (as `createEngine`)
 * @example
 * const engine = await createScanEngine({ synonyms: false })
 * await engine.importDataset(bytes)
 * const hits = await engine.scanItem({ id: 'out-1', text: output })
 */
export async function createScanEngine(options: FingerprintEngineOptions = {}): Promise<ScanEngine> {
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const { core, variant } = await instantiateCore(options);
  return new ScanEngine(core, variant);
}
