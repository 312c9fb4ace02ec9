/**
 * Reference packs on disk with Node's file system: `trainprint pack build` and `trainprint packs
 * list|info|verify` are built on these. The work is in src/packs/files.ts (trainprint/packs); this
 * hands it `node:fs` and `node:path`, and finds the packs folder shipped with the library.
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildPackFileWith,
  createEngine,
  listPacksWith,
  loadDefaultPacksWith,
  PACK_INDEX_FILE,
  verifyPackFileWith,
  type BuildPackFileOptions,
  type BuildPackFileResult,
  type DatasetStats,
  type ListedPack,
  type PackEngine,
  type PackFs,
  type PackInfo,
} from '../library.js';

/**
 * Node's file system as the pack files need it: pass it to the `…With` functions of trainprint/packs
 * (`readPackManifestWith(nodePackFs, path)`, `loadPackFileWith(engine, nodePackFs, path)` …).
 */
export const nodePackFs: PackFs = { readFile, writeFile, rename, rm, existsSync, resolve, dirname, relative, sep };

/**
 * The packs folder shipped with the library (`packs/` at the package root), or null when this copy has none.
 * @example packsDir() // '/…/node_modules/trainprint/packs'
 */
export function packsDir(): string | null {
  // dist/node.js is one level below the package root, src/node/packs.ts (run by the tests) two
  for (const up of ['../packs', '../../packs']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(resolve(dir, PACK_INDEX_FILE))) return dir;
  }
  return null;
}

/** `dir`, else the shipped packs folder; without one, reading its index fails with INVALID_INPUT naming the path. */
const dirOf = (dir: string | undefined): string => dir ?? packsDir() ?? 'packs';

/** The packs of a packs folder (default: the shipped one), with their paths. @example (await listPacks())[0].path */
export const listPacks = async (dir?: string): Promise<ListedPack[]> => listPacksWith(nodePackFs, dirOf(dir));

/**
 * Build a pack file from its manifest and texts, on an engine of its own (see `buildPackFileWith`).
 * @example const r = await buildPackFile({ manifest: 'packs/gutenberg/manifest.json', texts: 'pack-texts/gutenberg' })
 */
export async function buildPackFile(options: BuildPackFileOptions): Promise<BuildPackFileResult> {
  const engine = await createEngine();
  return buildPackFileWith(engine, nodePackFs, options).finally(() => engine.dispose());
}

/**
 * Verify a pack file (CRC-32, layout, provenance) and its SHA-256: `sha256`, else the one listed for
 * it in the index of `dir` (default: the shipped packs folder).
 * @example (await verifyPackFile('packs/gutenberg.tpk')).listed // true
 */
export const verifyPackFile = (
  path: string,
  options: { sha256?: string; dir?: string } = {},
): Promise<PackInfo & { listed: boolean }> => verifyPackFileWith(nodePackFs, path, { dir: packsDir(), ...options });

/**
 * Load every default pack (default: of the shipped packs folder), each checked against its listed SHA-256.
 * @example const loaded = await loadDefaultPacks(engine) // [{ stats, info }, …]
 */
export const loadDefaultPacks = async (
  engine: Pick<PackEngine, 'importDataset'>,
  options: { dir?: string } = {},
): Promise<Array<{ stats: DatasetStats; info: PackInfo }>> =>
  loadDefaultPacksWith(engine, nodePackFs, dirOf(options.dir));
