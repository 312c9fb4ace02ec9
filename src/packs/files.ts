/**
 * Reference packs as files: build a pack file from its manifest and a folder of texts, read the
 * pack index, list, verify and load pack files. The file system is passed in ({@link PackFs}:
 * Node's `node:fs/promises` and `node:path` functions fit it as they are), so this runs wherever
 * those exist, and `trainprint/node` (src/node/packs.ts) only hands Node's over.
 *
 * Layout of a packs folder (the one shipped with the library is `packs/` at the package root):
 *
 * ```text
 * index.json             the packs, their files, SHA-256, sizes and which load by default
 * <name>.tpk             a pack (a portrait dataset snapshot with pack provenance)
 * <name>/manifest.json   everything needed to rebuild it from its texts
 * ```
 */
import type { DatasetImportOptions } from '../corpus/types.js';
import type { DatasetStats } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import { randomHex } from '../util/validate.js';
import {
  checkPackIndex,
  checkPackManifest,
  PACK_INDEX_FORMAT,
  PACK_MANIFEST_VERSION,
  type PackIndex,
  type PackIndexEntry,
  type PackManifest,
} from './manifest.js';
import { buildPack, loadPack, verifyPack, type PackBuildProgress, type PackEngine, type PackInfo } from './pack.js';

/** The pack index's file name inside a packs folder. */
export const PACK_INDEX_FILE = 'index.json';

/** File operations the pack files need, shaped like Node's (`node:fs/promises`, `node:fs`, `node:path`). */
export interface PackFs {
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array | string, options: { flag: 'wx' }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: true }): Promise<void>;
  existsSync(path: string): boolean;
  resolve(...paths: string[]): string;
  dirname(path: string): string;
  relative(from: string, to: string): string;
  /** The platform's path separator. */
  readonly sep: string;
}

function ioError(path: string, what: string, e: unknown): TrainprintError {
  const code = (e as { code?: unknown })?.code;
  const why =
    code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
  return new TrainprintError('INVALID_INPUT', `${path}: cannot ${what} (${why})`, { cause: e });
}

async function readBytes(fs: PackFs, path: string, what: string): Promise<Uint8Array> {
  try {
    const b = await fs.readFile(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } catch (e) {
    throw ioError(path, `read the ${what}`, e);
  }
}

async function readJson(fs: PackFs, path: string, what: string): Promise<unknown> {
  const text = new TextDecoder().decode(await readBytes(fs, path, what));
  try {
    return JSON.parse(text);
  } catch (e) {
    const why = (e as Error).message;
    throw new TrainprintError('INVALID_INPUT', `${path}: the ${what} is not valid JSON (${why})`, { cause: e });
  }
}

/** Write through a new temporary file beside `path` and a rename: `path` is the old file or the whole new one. */
async function writeAtomic(fs: PackFs, path: string, data: Uint8Array | string): Promise<void> {
  const salt = randomHex(4);
  const tmp = fs.resolve(fs.dirname(path), `.${path.slice(fs.dirname(path).length + 1)}.${salt}.tmp`);
  try {
    await fs.writeFile(tmp, data, { flag: 'wx' });
    await fs.rename(tmp, path);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw ioError(path, 'write the file', e);
  }
}

/**
 * Read and check a pack manifest file.
 * @throws (rejects) INVALID_INPUT (unreadable, not JSON, not a valid manifest)
 * @example const manifest = await readPackManifestWith(fs, 'packs/gutenberg/manifest.json')
 */
export async function readPackManifestWith(fs: PackFs, path: string): Promise<PackManifest> {
  return checkPackManifest(await readJson(fs, path, 'pack manifest'));
}

/**
 * Read and check the index of a packs folder.
 * @throws (rejects) INVALID_INPUT (unreadable or invalid index)
 * @example (await readPackIndexWith(fs, 'packs')).packs.length
 */
export async function readPackIndexWith(fs: PackFs, dir: string): Promise<PackIndex> {
  return checkPackIndex(await readJson(fs, fs.resolve(dir, PACK_INDEX_FILE), 'pack index'));
}

/** A pack of an index with its file's path resolved. */
export interface ListedPack extends PackIndexEntry {
  /** Absolute path of the pack file. */
  readonly path: string;
}

/**
 * The packs of a packs folder's index, with their files' paths.
 * @example (await listPacksWith(fs, 'packs')).filter((p) => p.default)
 */
export async function listPacksWith(fs: PackFs, dir: string): Promise<ListedPack[]> {
  const index = await readPackIndexWith(fs, dir);
  return index.packs.map((p) => ({ ...p, path: fs.resolve(dir, p.file) }));
}

/** Options of {@link buildPackFileWith} (and of `buildPackFile` in `trainprint/node`). */
export interface BuildPackFileOptions {
  /** The manifest file. */
  readonly manifest: string;
  /** The folder of texts (default: the manifest's `texts`, relative to the manifest). */
  readonly texts?: string;
  /** The pack file to write (default: `<manifest's folder>.tpk`, e.g. packs/gutenberg.tpk). */
  readonly out?: string;
  /**
   * A pack index to record the pack in (SHA-256, size, counts): an entry with the same id is
   * replaced, keeping its `default` flag; a new one is not a default pack.
   */
  readonly index?: string;
  readonly onProgress?: (progress: PackBuildProgress) => void;
}

/** Result of {@link buildPackFileWith}. */
export interface BuildPackFileResult {
  readonly out: string;
  readonly sha256: string;
  readonly file_bytes: number;
  readonly elapsed_ms: number;
  readonly info: PackInfo;
}

/**
 * Build a pack file from a manifest and its texts (`buildPack`: every text checked against the
 * manifest's SHA-256; the same inputs always give the same bytes), written atomically.
 * @throws (rejects) INVALID_OPTIONS (no texts folder), INVALID_INPUT (bad manifest, missing or
 *   different text, unwritable output), NOT_FOUND (unknown kb_dataset), ALREADY_EXISTS
 * @example
 * await buildPackFileWith(engine, fs, { manifest: 'packs/gutenberg/manifest.json', texts: 'pack-texts/gutenberg' })
 */
export async function buildPackFileWith(
  engine: PackEngine,
  fs: PackFs,
  options: BuildPackFileOptions,
): Promise<BuildPackFileResult> {
  if (options === null || typeof options !== 'object' || typeof options.manifest !== 'string') {
    throw new TrainprintError('INVALID_OPTIONS', 'options.manifest must be the manifest file');
  }
  const t0 = performance.now();
  const manifestPath = fs.resolve(options.manifest);
  const manifest = await readPackManifestWith(fs, manifestPath);
  const texts =
    options.texts ?? (manifest.texts === undefined ? undefined : fs.resolve(fs.dirname(manifestPath), manifest.texts));
  if (texts === undefined) {
    throw new TrainprintError('INVALID_OPTIONS', 'no texts folder: pass one (the manifest names none)');
  }
  const out = fs.resolve(options.out ?? `${fs.dirname(manifestPath)}.tpk`);
  if (options.index !== undefined) checkIndexPlace(fs, fs.resolve(options.index), manifestPath, out);
  const built = await buildPack(
    engine,
    manifest,
    (d) => readBytes(fs, fs.resolve(texts, d.file), `text of ${d.id}`),
    options.onProgress ? { onProgress: options.onProgress } : {},
  );
  await writeAtomic(fs, out, built.bytes);
  if (options.index !== undefined) await recordInIndex(fs, fs.resolve(options.index), manifestPath, out, built.info);
  const elapsed = performance.now() - t0;
  return { out, sha256: built.sha256, file_bytes: built.bytes.length, elapsed_ms: elapsed, info: built.info };
}

/**
 * Whether a pack index at `indexPath` can list the pack file `out` and its manifest, checked before the pack is built:
 * its entries are paths relative to its folder without "..", so that folder must hold both (the layout
 * `packs/index.json`, `packs/NAME.tpk`, `packs/NAME/manifest.json`) and be there.
 */
function checkIndexPlace(fs: PackFs, indexPath: string, manifestPath: string, out: string): void {
  const dir = fs.dirname(indexPath);
  if (!fs.existsSync(dir)) throw new TrainprintError('INVALID_INPUT', `pack index ${indexPath}: no folder ${dir}`);
  for (const [what, path] of [
    ['pack file', out],
    ['manifest', manifestPath],
  ] as const) {
    const rel = fs.relative(dir, path);
    const up = rel === '..' || rel.startsWith(`..${fs.sep}`);
    if (rel === '' || up || fs.resolve(dir, rel) !== path)
      throw new TrainprintError(
        'INVALID_INPUT',
        `pack index ${indexPath}: its folder must hold the ${what} ${path} (the index lists paths relative to it)`,
      );
  }
}

async function recordInIndex(
  fs: PackFs,
  indexPath: string,
  manifestPath: string,
  out: string,
  info: PackInfo,
): Promise<void> {
  const dir = fs.dirname(indexPath);
  const rel = (to: string) => fs.relative(dir, to).split(fs.sep).join('/'); // the index is the same file on every OS
  const index: PackIndex = fs.existsSync(indexPath)
    ? await readPackIndexWith(fs, dir)
    : { format: PACK_INDEX_FORMAT, version: PACK_MANIFEST_VERSION, packs: [] };
  const old = index.packs.find((p) => p.id === info.id);
  const entry: PackIndexEntry = {
    id: info.id,
    file: rel(out),
    manifest: rel(manifestPath),
    sha256: info.sha256,
    bytes: info.file_bytes,
    default: old?.default ?? false,
    name: info.name,
    pack_version: info.pack_version,
    kb_dataset: info.kb_dataset ?? '',
    documents: info.counts.documents,
    words: info.counts.words,
    ngrams: info.counts.ngrams,
    // the background was measured on these bytes: a pack that changed must be measured again
    ...(old?.background && old.sha256 === info.sha256 ? { background: old.background } : {}),
  };
  const next = { ...index, packs: old ? index.packs.map((p) => (p === old ? entry : p)) : [...index.packs, entry] };
  checkPackIndex(next);
  await writeAtomic(fs, indexPath, `${JSON.stringify(next, null, 2)}\n`);
}

/**
 * Verify a pack file: CRC-32 and layout, pack provenance, and its SHA-256 against `sha256` or,
 * without it, against the entry of the index in `dir` that lists this file (when there is one).
 * `listed` says whether a SHA-256 was known to check against.
 * @throws (rejects) SNAPSHOT_INCOMPATIBLE (corrupted, not a pack, SHA-256 mismatch), INVALID_INPUT (unreadable)
 * @example (await verifyPackFileWith(fs, 'packs/gutenberg.tpk', { dir: 'packs' })).listed // true
 */
export async function verifyPackFileWith(
  fs: PackFs,
  path: string,
  options: { sha256?: string; dir?: string | null } = {},
): Promise<PackInfo & { listed: boolean }> {
  let sha256 = options.sha256;
  if (sha256 === undefined && options.dir && fs.existsSync(fs.resolve(options.dir, PACK_INDEX_FILE))) {
    sha256 = (await listPacksWith(fs, options.dir)).find((p) => p.path === fs.resolve(path))?.sha256;
  }
  const info = await verifyPack(await readBytes(fs, path, 'pack'), sha256 === undefined ? {} : { sha256 });
  return { ...info, listed: sha256 !== undefined };
}

/**
 * Verify a pack file and load it into an engine (one call).
 * @throws (rejects) as {@link verifyPackFileWith}, ALREADY_EXISTS (already loaded)
 * @example const { stats } = await loadPackFileWith(engine, fs, 'packs/gutenberg.tpk', { sha256 })
 */
export async function loadPackFileWith(
  engine: Pick<PackEngine, 'importDataset'>,
  fs: PackFs,
  path: string,
  expect: { sha256?: string } = {},
  load: DatasetImportOptions = {},
): Promise<{ stats: DatasetStats; info: PackInfo }> {
  return loadPack(engine, await readBytes(fs, path, 'pack'), expect, load);
}

/**
 * Load every default pack of a packs folder's index, each checked against its listed SHA-256 first.
 * @throws (rejects) INVALID_INPUT (no readable index), SNAPSHOT_INCOMPATIBLE (a pack is not the one
 *   listed), ALREADY_EXISTS (a pack is already loaded)
 * @example const loaded = await loadDefaultPacksWith(engine, fs, 'packs') // [{ stats, info }, …]
 */
export async function loadDefaultPacksWith(
  engine: Pick<PackEngine, 'importDataset'>,
  fs: PackFs,
  dir: string,
): Promise<Array<{ stats: DatasetStats; info: PackInfo }>> {
  const out: Array<{ stats: DatasetStats; info: PackInfo }> = [];
  for (const p of await listPacksWith(fs, dir)) {
    // the package's reference packs: every account reads them, and their sources are documented with them
    if (p.default)
      out.push(
        await loadPackFileWith(
          engine,
          fs,
          p.path,
          { sha256: p.sha256 },
          { supplied_by: 'shipped', ...(p.background ? { background: p.background } : {}) },
        ),
      );
  }
  return out;
}
