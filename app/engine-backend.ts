/**
 * The in-browser backend: the trainprint engine (WebAssembly) with the starter dataset, all in
 * this page — nothing is sent anywhere. worker.ts runs it off the main thread.
 *
 * The imports of the library ('../index.js', '../starter/index.js') are rewritten by
 * build/web.mjs to './index.js' and './starter.js' and left external: the page loads the
 * package's own browser bundles, copied next to it.
 */
import type { AnalyzeRequest, Engine } from '../src/index.js';
import { BackendError, type Backend, type BackendInfo, type DatasetInfo, type DatasetStats } from './backend.js';

/** File written by build/web.mjs next to the page: the starter's document texts, by id. */
export interface StarterTexts {
  /** Must equal `STARTER_DATASET.source`: offsets are only meaningful into the texts indexed. */
  readonly source: string;
  readonly texts: Readonly<Record<string, string>>;
}

export interface EngineBackendOptions {
  /** Load the embedded starter dataset (727 SPDX licence texts). @default true */
  readonly starter?: boolean;
  /** Where the starter's texts are. @default './starter-texts.json' next to this module */
  readonly starterTextsUrl?: string | URL;
}

interface Loaded {
  readonly engine: Engine;
  readonly lib: typeof import('../src/index.js');
  /** `STARTER_DATASET` when the starter was loaded. */
  readonly starter: { readonly id: string; readonly source: string } | null;
}

export function createEngineBackend(options: EngineBackendOptions = {}): Backend {
  const textsUrl = options.starterTextsUrl ?? new URL('./starter-texts.json', import.meta.url);
  /** Declarations made here, for engines whose stats do not report `kb_dataset`. */
  let texts: Promise<StarterTexts | null> | null = null;

  const loaded: Promise<Loaded> = (async () => {
    // Both bundles start downloading at once; the starter imports the same './index.js'.
    const [lib, starterModule] = await Promise.all([
      import('../src/index.js'),
      options.starter === false ? null : import('../src/starter/index.js'),
    ]);
    const engine = await lib.createEngine();
    if (starterModule) await starterModule.loadStarterDataset(engine);
    return { engine, lib, starter: starterModule && starterModule.STARTER_DATASET };
  })();
  loaded.catch(() => {}); // reported by ready(); no unhandled rejection meanwhile

  function info(l: Loaded, stats: DatasetStats): DatasetInfo {
    return { ...stats, has_text: stats.id === l.starter?.id };
  }

  return {
    async ready(): Promise<BackendInfo> {
      const l = await loaded;
      return {
        kind: 'browser',
        label: `In-browser engine (WebAssembly, ${l.engine.variant === 'simd' ? 'SIMD' : 'scalar'})`,
        analyzeBytes: l.lib.ANALYZE_MAX_BYTES,
        canDeclare: typeof l.engine.declareDataset === 'function',
        datasets: l.engine.datasets().map((s) => info(l, s)),
      };
    },

    async analyze(request: AnalyzeRequest) {
      const { engine } = await loaded;
      return engine.analyze(request);
    },

    async compare(a: string, b: string) {
      const { engine } = await loaded;
      return engine.compare(a, b);
    },

    async loadIndex(bytes: Uint8Array) {
      const l = await loaded;
      return info(l, await l.engine.importDataset(bytes));
    },

    async declare(datasetId: string, kbDataset: string | null) {
      const l = await loaded;
      // Feature-detected: engine.declareDataset arrived after the first web build.
      if (typeof l.engine.declareDataset !== 'function') {
        throw new BackendError('UNSUPPORTED', 'This build of the engine cannot record declarations (engine.declareDataset is missing): rebuild the package.');
      }
      const stats = l.engine.declareDataset(datasetId, { kb_dataset: kbDataset });
      return info(l, stats);
    },

    async datasets() {
      const l = await loaded;
      return l.engine.datasets().map((s) => info(l, s));
    },

    async kbDatasets() {
      const { engine } = await loaded;
      return engine.kbDatasets();
    },

    async factors() {
      const { lib } = await loaded;
      return lib.factorTable();
    },

    async sourceText(datasetId: string, documentId: string) {
      const l = await loaded;
      if (!l.starter || datasetId !== l.starter.id) return null;
      const source = l.starter.source;
      texts ??= fetch(textsUrl)
        .then((r) => (r.ok ? (r.json() as Promise<StarterTexts>) : null))
        .then((t) => (t && t.source === source && t.texts && typeof t.texts === 'object' ? t : null))
        .catch(() => null);
      const t = await texts;
      const text = t ? t.texts[documentId] : undefined;
      return typeof text === 'string' ? text : null;
    },
  };
}
