/**
 * The default reference packs read by URL, for every runtime: `createEngine({ packs: 'default' })`
 * and the web app load them with this. A packs folder is its `index.json` and the files it lists;
 * a `file:` folder (the one shipped beside the package, in Node, Deno or Bun) is read with
 * `node:fs`, anything else with `fetch`. The pack bytes are never part of a bundle: they are read
 * when asked for, and each file is checked against the SHA-256 the index lists before it is loaded.
 */
import type { DatasetStats } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import { checkPackIndex } from './manifest.js';
import { loadPack, type PackEngine, type PackInfo } from './pack.js';

/** Options of {@link loadDefaultPacksFromUrl}. */
export interface PackUrlOptions {
  /** The fetch to use for non-`file:` URLs (a proxy, a cache, a test double). @default globalThis.fetch */
  readonly fetch?: (url: URL) => Promise<Response>;
}

/** Read the bytes behind a URL: `file:` with `node:fs` (loaded only then), others with fetch. */
async function readUrl(url: URL, fetchUrl: PackUrlOptions['fetch']): Promise<Uint8Array> {
  try {
    // a runtime-only import: browsers never take this branch, and bundlers must not try to resolve it
    const fs =
      url.protocol === 'file:' ? await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises') : null;
    if (fs) return new Uint8Array(await fs.readFile(url));
    const res = await (fetchUrl ?? fetch)(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${url.href}: cannot read it (${(e as Error).message})`, { cause: e });
  }
}

/**
 * Load every default pack of the packs folder at `base` (a URL whose `index.json` is a pack index):
 * the files are read in parallel, each verified against the SHA-256 the index lists (and its CRC-32)
 * and only then loaded, in the index's order. Resolves to each pack's dataset stats and provenance.
 * @throws (rejects) INVALID_INPUT (not a URL, an unreadable index or file, an invalid index), SNAPSHOT_INCOMPATIBLE
 *   (a file whose SHA-256 is not the listed one, or corrupted), ALREADY_EXISTS (a pack is already loaded)
 * @example
 * import { createEngine, loadDefaultPacksFromUrl } from 'trainprint'
 * const engine = await createEngine()
 * const loaded = await loadDefaultPacksFromUrl(engine, 'https://cdn.jsdelivr.net/npm/trainprint/packs/')
 * loaded.map((p) => p.info.kb_dataset) // ['project-gutenberg', 'wikipedia']
 */
export async function loadDefaultPacksFromUrl(
  engine: Pick<PackEngine, 'importDataset'>,
  base: string | URL,
  options: PackUrlOptions = {},
): Promise<Array<{ stats: DatasetStats; info: PackInfo }>> {
  let dir: URL;
  let index: ReturnType<typeof checkPackIndex>;
  try {
    // a folder: 'packs' and 'packs/' mean the same
    dir = new URL(`${base}`.replace(/\/?$/, '/'));
    const text = new TextDecoder().decode(await readUrl(new URL('index.json', dir), options.fetch));
    index = checkPackIndex(JSON.parse(text));
  } catch (e) {
    throw e instanceof TrainprintError ? e : new TrainprintError('INVALID_INPUT', `pack index at ${base}: ${e}`);
  }
  const packs = index.packs.filter((p) => p.default);
  const files = packs.map((p) => readUrl(new URL(p.file, dir), options.fetch));
  files.forEach((f) => {
    f.catch(() => {});
  }); // awaited in order below; a later failure must not go unhandled meanwhile
  const out = [];
  // the package's reference packs: every account reads them, and their sources are documented with them
  for (const [i, p] of packs.entries())
    out.push(
      await loadPack(
        engine,
        await files[i]!,
        { sha256: p.sha256 },
        { supplied_by: 'shipped', ...(p.background ? { background: p.background } : {}) },
      ),
    );
  return out;
}
