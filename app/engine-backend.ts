/**
 * The in-browser backend: the trainprint engine (WebAssembly) with the starter dataset and the
 * default reference packs, all in this page — nothing is sent anywhere. worker.ts runs it off the
 * main thread, so the page paints first and the data arrives after.
 *
 * The library import ('../index.js') is rewritten by build/web.mjs to './index.js' and left
 * external: the page loads the package's own browser bundle, copied next to it. The data are
 * files beside it (build/web.mjs writes them): `starter.json` + `starter.tpds` (the starter
 * snapshot and its SHA-256) with `starter.tpci` (its content-word pair index, which the engine checks itself) and
 * `packs/` (the default packs and their index); each file is
 * checked against its SHA-256 before it is imported. EPUB, DOCX and PDF files are read here too:
 * the engine loads its document readers, which build/web.mjs bundles with pdf.js, when
 * the first file of a format is chosen.
 */
import type { AnalyzeRequest, Engine } from '../src/index.js';
import {
  BackendError,
  type Backend,
  type BackendInfo,
  type DatasetInfo,
  type DatasetStats,
  type MemorizationOutcome,
  type MemorizationRequest,
  type ModelEndpoint,
} from './backend.js';
import { MEMORIZATION_EXTRACT, referenceSetId } from './memorization-plan.js';
import { FORMAT_NAMES, type DocumentFormat } from './files.js';

/** File written by build/web.mjs next to the page: the starter dataset's snapshot and its checksum. */
export interface StarterFile {
  readonly id: string;
  /** Where the texts come from, e.g. 'npm spdx-license-list@6.12.0'. */
  readonly source: string;
  /** The snapshot file, relative to this description. */
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  /**
   * The snapshot's content-word pair index (`engine.exportContentIndex`), relative to this description: the engine
   * checks it against the dataset, and the first analysis does not build it. Absent in a build made before it.
   */
  readonly content_index?: string;
}

/** File written by build/web.mjs next to the page, for the served mode: the starter's document texts, by id. */
export interface StarterTexts {
  /** Must equal the starter's `source`: offsets are only meaningful into the texts indexed. */
  readonly source: string;
  readonly texts: Readonly<Record<string, string>>;
}

export interface EngineBackendOptions {
  /** Where the starter's description is (null: no starter). @default './starter.json' next to this module */
  readonly starterUrl?: string | URL | null;
  /** The packs folder (null: no packs). @default './packs/' next to this module */
  readonly packsUrl?: string | URL | null;
}

interface Loaded {
  readonly engine: Engine;
  readonly lib: typeof import('../src/index.js');
}

/** Fetch a file's bytes; an HTTP error is a failure, not an empty body. */
async function fetchBytes(url: URL): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok) throw new BackendError('INVALID_INPUT', `${url.href}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** The starter snapshot, checked against the SHA-256 its description lists, imported into `engine`. */
async function loadStarter(lib: Loaded['lib'], engine: Engine, url: URL): Promise<void> {
  const res = await fetch(url);
  if (!res.ok) throw new BackendError('INVALID_INPUT', `${url.href}: HTTP ${res.status}`);
  const starter = (await res.json()) as StarterFile;
  const bytes = await fetchBytes(new URL(starter.file, url));
  const sha = await lib.sha256Hex(bytes);
  if (sha !== starter.sha256) {
    throw new BackendError(
      'SNAPSHOT_INCOMPATIBLE',
      `The starter dataset is not the one listed (SHA-256 ${sha}, ` +
        `expected ${starter.sha256}): reload the page, or rebuild the web app.`,
    );
  }
  // the package's starter dataset: its texts' source is documented with it, not declared by anyone here
  await engine.importDataset(bytes, { supplied_by: 'shipped' });
  if (starter.content_index !== undefined)
    await adoptContentIndex(engine, starter.id, new URL(starter.content_index, url));
}

/**
 * The starter's content-word pair index from `url`, handed to the dataset `id`: a file that does not download or is
 * refused (made for other documents, or by another build) is left alone, and the first analysis builds the index
 * from the licence texts, as it would without it (a few hundred ms).
 */
async function adoptContentIndex(engine: Engine, id: string, url: URL): Promise<void> {
  try {
    await engine.importContentIndex(id, await fetchBytes(url));
  } catch {
    // built on the first search that needs it
  }
}

/**
 * The smallest files each reader opens before it needs its library: an empty zip (its end record alone) and a PDF
 * header with its end marker. Analysing one loads the reader and its library (its own inflater, or pdf.js with its worker
 * module: build/web.mjs bundles them beside the page) when a file is chosen, so Analyze does not wait for them; a
 * reader that loaded refuses the probe as unreadable (INVALID_INPUT).
 */
const PROBES: Readonly<Record<DocumentFormat, () => Uint8Array>> = {
  epub: () => Uint8Array.of(0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)),
  docx: () => Uint8Array.of(0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)),
  pdf: () => new TextEncoder().encode('%PDF-1.7\n%%EOF\n'),
};

/**
 * Whether `e` is a document reader that did not load: a dynamic import whose file does not download (the network is
 * gone, or the site was deployed anew while the page was open) rejects with a TypeError — as it is for the readers'
 * module, and as the cause of the engine's INTERNAL for a library that module imports.
 */
function readerDidNotLoad(e: unknown): boolean {
  const { code, cause } = e as { code?: unknown; cause?: unknown };
  return e instanceof TypeError || (code === 'INTERNAL' && cause instanceof TypeError);
}

/** What the page says when this page's engine could not load its reader of `format`. */
function readerMissing(format: DocumentFormat): string {
  return (
    `This page could not load its ${FORMAT_NAMES[format]} reader (a file of the page did not download). ` +
    "Reload the page, or choose a served trainprint API under Mode, or paste the file's text."
  );
}

/** Exact datasets that keep their texts can show a source passage (the engine has the text). */
function info(stats: DatasetStats, engine: Loaded['engine']): DatasetInfo {
  return {
    ...stats,
    has_text: (stats.text_bytes ?? 0) > 0,
    supplied_by: engine.datasetProvenance(stats.id).supplied_by,
  };
}

/** assess in this page: the engine calls the models itself, so their servers must allow this page's origin (CORS). */
async function assessInThisPage(loaded: Promise<Loaded>, request: MemorizationRequest): Promise<MemorizationOutcome> {
  const { engine, lib } = await loaded;
  const model = (m: ModelEndpoint) =>
    lib.createOpenAICompatibleModel({
      baseUrl: m.base_url,
      model: m.model,
      topLogprobs: 5,
      ...(m.api_key ? { apiKey: m.api_key } : {}),
    });
  const mem = engine.memorization;
  const { work_id } = await mem.registerWork({
    work: { content: request.work, owner: 'this-browser', ...(request.title ? { title: request.title } : {}) },
  });
  const set = await mem.addReferenceSet({
    id: referenceSetId(),
    texts: [...request.reference_texts],
    basis: request.randomized_split ? 'randomized_split' : 'unverified',
  });
  const assessment = await mem.assess({
    work_id,
    model: model(request.model),
    extract: MEMORIZATION_EXTRACT,
    probe: {
      reference: { reference_set: set.id },
      chunk_tokens: request.chunk_tokens,
      min_chunks: request.min_chunks,
      ...(request.reference_model ? { reference_model: model(request.reference_model) } : {}),
    },
  });
  return { assessment, html: await mem.report(assessment) };
}

/** The library and an engine with the starter and the default packs (by default from beside app.js). */
async function loadEngine(options: EngineBackendOptions): Promise<Loaded> {
  const starterUrl = options.starterUrl === undefined ? new URL('./starter.json', import.meta.url) : options.starterUrl;
  const packsUrl = options.packsUrl === undefined ? new URL('./packs/', import.meta.url) : options.packsUrl;
  const lib = await import('../src/index.js');
  const engine = await lib.createEngine();
  // The starter and the packs download at once; each is verified, then imported.
  await Promise.all([
    starterUrl === null ? null : loadStarter(lib, engine, new URL(starterUrl)),
    packsUrl === null ? null : lib.loadDefaultPacksFromUrl(engine, packsUrl),
  ]);
  return { engine, lib };
}

export function createEngineBackend(options: EngineBackendOptions = {}): Backend {
  const loaded = loadEngine(options);
  loaded.catch(() => {}); // reported by ready(); no unhandled rejection meanwhile
  /**
   * Whether each format's reader loads here, found out once, when the first file of the format arrives (the message
   * of one that did not load says to reload the page, which starts a new worker).
   */
  const refusals: Partial<Record<DocumentFormat, Promise<string | null>>> = {};

  return {
    async ready(): Promise<BackendInfo> {
      const l = await loaded;
      return {
        kind: 'browser',
        label: `In-browser engine (WebAssembly, ${l.engine.variant === 'simd' ? 'SIMD' : 'scalar'})`,
        analyzeBytes: l.lib.ANALYZE_MAX_BYTES,
        fileBytes: l.lib.ANALYZE_MAX_FILE_BYTES,
        canDeclare: typeof l.engine.declareDataset === 'function',
        datasets: l.engine.datasets().map((s) => info(s, l.engine)),
      };
    },

    async analyze(request: AnalyzeRequest) {
      const { engine } = await loaded;
      try {
        return await engine.analyze(request);
      } catch (e) {
        const format = request.content_type as DocumentFormat;
        if (Object.hasOwn(FORMAT_NAMES, format) && readerDidNotLoad(e))
          throw new BackendError('UNSUPPORTED', readerMissing(format));
        throw e;
      }
    },

    fileRefusal(format: DocumentFormat) {
      refusals[format] ??= (async () => {
        const { engine } = await loaded;
        try {
          await engine.analyze({ content: PROBES[format](), content_type: format });
          return null; // not reached: the probe is no readable file
        } catch (e) {
          return readerDidNotLoad(e) ? readerMissing(format) : null;
        }
      })();
      return refusals[format];
    },

    async compare(a: string, b: string) {
      const { engine } = await loaded;
      return engine.compare(a, b);
    },

    async loadIndex(bytes: Uint8Array) {
      const l = await loaded;
      return info(await l.engine.importDataset(bytes), l.engine);
    },

    async declare(datasetId: string, kbDataset: string | null) {
      const l = await loaded;
      // Feature-detected: engine.declareDataset arrived after the first web build.
      if (typeof l.engine.declareDataset !== 'function') {
        throw new BackendError(
          'UNSUPPORTED',
          'This build of the engine cannot record declarations (engine.declareDataset is missing): rebuild the package.',
        );
      }
      const stats = l.engine.declareDataset(datasetId, { kb_dataset: kbDataset });
      return info(stats, l.engine);
    },

    async datasets() {
      const l = await loaded;
      return l.engine.datasets().map((s) => info(s, l.engine));
    },

    async kbDatasets() {
      const { engine } = await loaded;
      return engine.kbDatasets();
    },

    async factors() {
      const { lib } = await loaded;
      return lib.factorTable();
    },

    async assessMemorization(request: MemorizationRequest) {
      try {
        return await assessInThisPage(loaded, request);
      } catch (e) {
        // a browser hides why a cross-origin call failed: a server that is down and one that does not allow
        // this page's origin look the same
        const detail = e instanceof Error ? e.message : String(e);
        if ((e as { code?: string }).code === 'UPSTREAM_ERROR' && /network error/.test(detail))
          throw new BackendError(
            'UPSTREAM_ERROR',
            `This page could not reach a model server (${detail}). Is it running, and does it allow this page's origin? Start it with \`trainprint model serve … --allow-origin ${location.origin}\`, or use the served mode.`,
            detail,
          );
        throw e;
      }
    },

    // the page's engine runs no extract jobs: it keeps no extraction of a work
    modelExtractions: async () => [],

    async sourceText(datasetId: string, documentId: string) {
      const { engine } = await loaded;
      // Feature-detected like declareDataset: documentText arrived after the first web build.
      if (typeof engine.documentText !== 'function') return null;
      try {
        return engine.documentText(datasetId, documentId);
      } catch {
        return null; // removed meanwhile: shown as "no source text"
      }
    },
  };
}
