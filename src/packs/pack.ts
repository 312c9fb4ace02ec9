/**
 * Reference packs: portrait datasets of real public text (hashes only, never the text) with their
 * knowledge-base link and full provenance, built reproducibly from a manifest.
 *
 * **Format.** A pack file *is* a portrait dataset snapshot (src/datasets/snapshot.ts: msgpack,
 * versioned header, params id, CRC-32), so `engine.importDataset(bytes)` loads it like any dataset
 * file. What makes it a pack is its descriptor: `kb_dataset` names the curated dataset the texts
 * are a documented part of, and `meta` carries the provenance ({@link PackMeta}: name, version,
 * sources with commits, licence of the texts, build date, counts, shingle parameters); each
 * document's `meta` names the work ({@link PackDocumentMeta}: title, author, ebook number, URL,
 * SHA-256 of its text). A pack's own SHA-256, over the whole file, is kept outside it, in the pack
 * index (`packs/index.json`), and {@link verifyPack} checks both it and the CRC.
 *
 * **Determinism.** The build reads the documents in manifest order, takes its date from the
 * manifest (not the clock) and encodes the descriptor with a fixed key order, so the same
 * manifest and texts give the same bytes on every run and machine: the portrait's filters are a
 * function of the sorted distinct fingerprints, and the snapshot encoding of its input.
 */
import type { DatasetImportOptions, DocumentSource } from '../corpus/types.js';
import {
  checkDocumentArticles,
  type DocumentArticles,
  type PackedArticles,
  unpackArticles,
} from '../datasets/articles.js';
import {
  decodeDataset,
  decodePortraitForImport,
  encodeDataset,
  type PortraitDatasetData,
  withDecodedAhead,
} from '../datasets/snapshot.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import { sha256Hex } from '../fingerprint/sha256.js';
import {
  checkPackManifest,
  type PackLicence,
  type PackManifest,
  type PackManifestDocument,
  type PackSource,
} from './manifest.js';

/** `meta.format` of a pack's descriptor: what tells a pack from any other portrait dataset. */
export const PACK_FORMAT = 'trainprint.pack';
/** The pack meta layout version. */
export const PACK_VERSION = 1;
/** Words per shingle of every portrait (the engine's word 5-grams). */
const SHINGLE_WORDS = 5;

/** The dataset operations a pack needs: an `Engine` has them all. */
export interface PackEngine {
  addDataset(descriptor: DatasetDescriptor, documents: DocumentSource): Promise<DatasetStats>;
  finalizeDataset(id: string): DatasetStats;
  exportDataset(id: string): Uint8Array;
  importDataset(bytes: Uint8Array, options?: DatasetImportOptions): Promise<DatasetStats>;
  removeDataset(id: string): boolean;
  datasets(): DatasetStats[];
}

/** Provenance stored in a pack's descriptor `meta`. */
export interface PackMeta {
  readonly format: typeof PACK_FORMAT;
  readonly version: typeof PACK_VERSION;
  readonly name: string;
  readonly pack_version: string;
  readonly description: string;
  readonly kb_note?: string;
  readonly built: string;
  readonly sources: readonly PackSource[];
  readonly licence: PackLicence;
  readonly selection?: string;
  /** Documents, their word tokens, the distinct n-grams stored and the UTF-8 bytes of text hashed. */
  readonly counts: {
    readonly documents: number;
    readonly words: number;
    readonly ngrams: number;
    readonly text_bytes: number;
  };
  /** How the n-grams were made: word 5-grams, xxh64, winnowed with `window`; the params id says it exactly. */
  readonly shingles: { readonly words: number; readonly window: number; readonly params: string };
}

/** What a pack says about one document (its `meta`): the manifest's provenance of its text. */
export type PackDocumentMeta = Pick<
  PackManifestDocument,
  'sha256' | 'title' | 'author' | 'ebook' | 'url' | 'source' | 'source_path'
>;

/** A pack's description, read from its bytes ({@link readPackInfo}, {@link verifyPack}). */
export interface PackInfo {
  /** The dataset id it loads as. */
  readonly id: string;
  readonly name: string;
  readonly pack_version: string;
  readonly description: string;
  readonly kb_dataset: string | null;
  readonly models: readonly string[];
  readonly window: number;
  readonly params: string;
  readonly built: string;
  readonly sources: readonly PackSource[];
  readonly licence: PackLicence;
  readonly selection?: string;
  readonly kb_note?: string;
  readonly counts: PackMeta['counts'];
  /** Bytes of the pack file and its SHA-256 (hex). */
  readonly file_bytes: number;
  readonly sha256: string;
  /** Filter bytes per distinct n-gram stored (1.2 by design, plus rounding to 64-byte blocks). */
  readonly bytes_per_ngram: number;
  /** Filters in the portrait's chain. */
  readonly filters: number;
  readonly documents: ReadonlyArray<
    PackDocumentMeta & {
      readonly id: string;
      readonly words: number;
      readonly bytes: number;
      /** Articles named in the document (a file that holds many). */
      readonly articles?: number;
    }
  >;
}

/** A built pack: its bytes, their SHA-256 and what it holds. */
export interface BuiltPack {
  readonly bytes: Uint8Array;
  readonly sha256: string;
  readonly info: PackInfo;
}

/** Progress of {@link buildPack}, after each document. */
export interface PackBuildProgress {
  readonly documents: number;
  readonly total: number;
  /** UTF-8 bytes of text read so far. */
  readonly bytes: number;
}

/** Reads a document's text file (bytes as stored: they are checked against the manifest's SHA-256). */
export type PackTextReader = (doc: PackManifestDocument) => Promise<Uint8Array> | Uint8Array;

/** Drop undefined members, keeping the key order (the encoding, and so the file, depends on it). */
function defined<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

function packMeta(m: PackManifest, counts: PackMeta['counts'], params: string): PackMeta {
  return defined({
    format: PACK_FORMAT,
    version: PACK_VERSION,
    name: m.name,
    pack_version: m.pack_version,
    description: m.description,
    kb_note: m.kb_note,
    built: m.built,
    sources: m.sources.map((s) => defined({ repository: s.repository, commit: s.commit, url: s.url, note: s.note })),
    licence: defined({ texts: m.licence.texts, note: m.licence.note }),
    selection: m.selection,
    counts,
    shingles: { words: SHINGLE_WORDS, window: m.window, params },
  }) as PackMeta;
}

function documentMeta(d: PackManifestDocument): PackDocumentMeta {
  return defined({
    sha256: d.sha256,
    title: d.title,
    author: d.author,
    ebook: d.ebook,
    url: d.url,
    source: d.source,
    source_path: d.source_path,
  });
}

/**
 * The article table a pack stores for a manifest document (src/datasets/articles.ts): the manifest's `table`,
 * checked — its keys are the manifest's page ids and its titles the first line of each article in the text.
 * @throws INVALID_INPUT when the table does not inflate, or differs from the page ids or the text
 */
async function articlesOf(d: PackManifestDocument, text: string): Promise<PackedArticles> {
  const a = d.articles!;
  const where = `${d.file}: articles`;
  const titles = a.starts.map((start) => {
    const end = text.indexOf('\n', start);
    return start < text.length ? text.slice(start, end < 0 ? text.length : end).trim() : '';
  });
  const expected: DocumentArticles = { url: a.url, keys: a.page_ids.map(String), titles };
  checkDocumentArticles(expected, a.starts.length, where);
  const packed: PackedArticles = { url: a.url, count: a.starts.length, table: fromBase64(a.table) };
  let table: DocumentArticles;
  try {
    table = await unpackArticles(packed);
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${where}: the table does not inflate to ${a.starts.length} lines`, {
      cause: e,
    });
  }
  for (let j = 0; j < titles.length; j++) {
    if (table.keys[j] !== expected.keys[j] || table.titles[j] !== titles[j]) {
      throw new TrainprintError(
        'INVALID_INPUT',
        `${where}: the table's article ${j} is ${JSON.stringify(`${table.keys[j]} ${table.titles[j]}`)}, the manifest and text say ${JSON.stringify(`${expected.keys[j]} ${titles[j]}`)}`,
      );
    }
  }
  return packed;
}

/** Bytes of a base64 string (checked by the manifest). */
function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Build a pack from its manifest: every document's text is read with `readText`, checked against
 * the manifest's SHA-256 and byte count, and added, in manifest order, to a portrait dataset with
 * the manifest's window; the result is sealed, exported, given its final provenance (with the
 * counts) and returned with its SHA-256. The engine is left as it was (the dataset is removed).
 * @throws (rejects) INVALID_INPUT (bad manifest; a text missing, not UTF-8, or not the one the
 *   manifest names), ALREADY_EXISTS (the engine already has a dataset with the pack's id),
 *   NOT_FOUND (the manifest's `kb_dataset` is not in the knowledge base)
 * @example
 * const engine = await createEngine()
 * const { bytes, sha256 } = await buildPack(engine, manifest, (d) => readFile(join(textsDir, d.file)))
 */
export async function buildPack(
  engine: PackEngine,
  manifest: PackManifest,
  readText: PackTextReader,
  options: { onProgress?: (progress: PackBuildProgress) => void } = {},
): Promise<BuiltPack> {
  const m = checkPackManifest(manifest);
  if (typeof readText !== 'function') throw new TrainprintError('INVALID_OPTIONS', 'readText must be a function');
  if (engine.datasets().some((d) => d.id === m.id)) {
    throw new TrainprintError('ALREADY_EXISTS', `the engine already has a dataset "${m.id}"`);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let done = 0;
  let read = 0;
  async function* documents(): AsyncGenerator<DatasetDocument> {
    for (const d of m.documents) {
      let raw: Uint8Array;
      try {
        raw = await readText(d);
      } catch (e) {
        if (e instanceof TrainprintError) throw e;
        const why = e instanceof Error ? e.message : String(e);
        throw new TrainprintError('INVALID_INPUT', `${d.file}: cannot read the text (${why})`, { cause: e });
      }
      if (!(raw instanceof Uint8Array)) {
        throw new TrainprintError('INVALID_INPUT', `${d.file}: readText must give a Uint8Array`);
      }
      const sha = await sha256Hex(raw);
      if (sha !== d.sha256 || raw.length !== d.bytes) {
        throw new TrainprintError(
          'INVALID_INPUT',
          `${d.file}: not the text the manifest names ` +
            `(SHA-256 ${sha}, ${raw.length} bytes; expected ${d.sha256}, ${d.bytes} bytes)`,
        );
      }
      let text: string;
      try {
        text = decoder.decode(raw);
      } catch (e) {
        throw new TrainprintError('INVALID_INPUT', `${d.file}: not valid UTF-8`, { cause: e });
      }
      yield d.articles === undefined
        ? { id: d.id, text, meta: documentMeta(d) }
        : {
            id: d.id,
            text,
            meta: { ...documentMeta(d), articles: await articlesOf(d, text) },
            parts: d.articles.starts,
          };
      done++;
      read += raw.length;
      options.onProgress?.({ documents: done, total: m.documents.length, bytes: read });
    }
  }
  const descriptor: DatasetDescriptor = {
    id: m.id,
    name: m.name,
    kind: 'portrait',
    window: m.window,
    kb_dataset: m.kb_dataset,
    // every match names its document and section (src/datasets/locator.ts)
    locate: true,
    ...(m.common === undefined ? {} : { common: m.common }),
  };
  let exported: Uint8Array;
  let stats: DatasetStats;
  try {
    await engine.addDataset(descriptor, documents());
    stats = engine.finalizeDataset(m.id);
    exported = engine.exportDataset(m.id);
  } finally {
    engine.removeDataset(m.id);
  }
  const data = decodeDataset(exported, { kind: 'portrait' });
  const counts = {
    documents: stats.documents,
    words: stats.tokens,
    ngrams: stats.fingerprints,
    text_bytes: stats.bytes,
  };
  const final: PortraitDatasetData = {
    ...data,
    descriptor: { ...data.descriptor, meta: packMeta(m, counts, data.params) },
  };
  const bytes = encodeDataset(final);
  const sha256 = await sha256Hex(bytes);
  return { bytes, sha256, info: describe(final, bytes.length, sha256) };
}

function describe(data: PortraitDatasetData, fileBytes: number, sha256: string): PackInfo {
  const d = data.descriptor;
  const meta = d.meta as Partial<PackMeta> | undefined;
  if (!meta || typeof meta !== 'object' || meta.format !== PACK_FORMAT) {
    throw new TrainprintError(
      'SNAPSHOT_INCOMPATIBLE',
      `dataset "${d.id}" is a portrait but not a reference pack (no pack provenance in its meta)`,
    );
  }
  if (meta.version !== PACK_VERSION) {
    throw new TrainprintError(
      'SNAPSHOT_INCOMPATIBLE',
      `pack meta version ${JSON.stringify(meta.version)} is not supported (expected ${PACK_VERSION})`,
    );
  }
  const m = meta as PackMeta;
  const filterBytes = data.filters.reduce((a, f) => a + f.bits.length, 0);
  const keys = data.filters.reduce((a, f) => a + f.keys, 0);
  return defined({
    id: d.id,
    name: m.name,
    pack_version: m.pack_version,
    description: m.description,
    kb_dataset: d.kb_dataset ?? null,
    models: d.models ?? [],
    window: d.window ?? m.shingles?.window,
    params: data.params,
    built: m.built,
    sources: m.sources,
    licence: m.licence,
    selection: m.selection,
    kb_note: m.kb_note,
    counts: m.counts,
    file_bytes: fileBytes,
    sha256,
    bytes_per_ngram: keys === 0 ? 0 : filterBytes / keys,
    filters: data.filters.length,
    documents: data.docs.map((x) => {
      const { articles, ...rest } = (x.meta ?? {}) as PackDocumentMeta & { articles?: { count?: unknown } };
      return {
        id: x.id,
        ...rest,
        // the article table itself is deflated bytes: its size is what an overview says
        ...(articles !== undefined && Number.isSafeInteger(articles.count)
          ? { articles: articles.count as number }
          : {}),
        words: x.tokens,
        bytes: x.bytes,
      };
    }),
  }) as PackInfo;
}

/**
 * Read a pack's provenance from its bytes (the snapshot is fully validated, CRC included).
 * @throws (rejects) SNAPSHOT_INCOMPATIBLE (not a valid portrait snapshot, or a portrait without pack provenance)
 * @example (await readPackInfo(bytes)).counts.documents
 */
export async function readPackInfo(bytes: Uint8Array): Promise<PackInfo> {
  const data = decodeDataset(bytes, { kind: 'portrait' });
  return describe(data, bytes.length, await sha256Hex(bytes));
}

/**
 * Verify a pack: its CRC-32 and layout (by decoding it), that it is a pack, and — when `sha256`
 * is given (from the pack index) — that the file's SHA-256 is that one. Returns its provenance.
 * @throws (rejects) SNAPSHOT_INCOMPATIBLE (SHA-256 mismatch, corrupted or not a pack), INVALID_INPUT (not bytes)
 * @example const info = await verifyPack(bytes, { sha256: entry.sha256 })
 */
export async function verifyPack(bytes: Uint8Array, expect: { sha256?: string } = {}): Promise<PackInfo> {
  return (await verifiedPack(bytes, expect)).info;
}

/**
 * {@link verifyPack}'s provenance with the decoded pack it was read from; `forImport`: decoded for an import of the same
 * bytes, its filters views of them ({@link decodePortraitForImport}).
 */
async function verifiedPack(
  bytes: Uint8Array,
  expect: { sha256?: string },
  forImport = false,
): Promise<{ info: PackInfo; data: PortraitDatasetData }> {
  if (!(bytes instanceof Uint8Array)) throw new TrainprintError('INVALID_INPUT', 'a pack must be a Uint8Array');
  const sha = await sha256Hex(bytes);
  if (expect.sha256 !== undefined && sha !== expect.sha256.toLowerCase()) {
    throw new TrainprintError(
      'SNAPSHOT_INCOMPATIBLE',
      `SHA-256 mismatch (file ${sha}, expected ${expect.sha256}): the pack is not the one listed`,
    );
  }
  const data = forImport ? decodePortraitForImport(bytes) : decodeDataset(bytes, { kind: 'portrait' });
  return { info: describe(data, bytes.length, sha), data };
}

/**
 * Verify a pack ({@link verifyPack}) and load it into the engine: one call. Resolves to the
 * dataset's stats and the pack's provenance.
 * @throws (rejects) SNAPSHOT_INCOMPATIBLE, ALREADY_EXISTS (a dataset with the pack's id is loaded),
 *   NOT_FOUND (its kb_dataset is unknown to this engine's knowledge base)
 * @example const { stats, info } = await loadPack(engine, bytes, { sha256: entry.sha256 })
 */
export async function loadPack(
  engine: Pick<PackEngine, 'importDataset'>,
  bytes: Uint8Array,
  expect: { sha256?: string } = {},
  load: DatasetImportOptions = {},
): Promise<{ stats: DatasetStats; info: PackInfo }> {
  const { info, data } = await verifiedPack(bytes, expect, true);
  // the provenance returned shares none of its objects with the dataset loaded, which takes the pack as it was
  // decoded here (not decoded a second time; its filters copied into the core from the pack's bytes)
  const own = structuredClone(info);
  const stats = await withDecodedAhead(bytes, data, () => engine.importDataset(bytes, load));
  return { stats, info: own };
}
