/**
 * The starter dataset for the command line: the snapshot file beside dist/cli.js (dist/starter.tpds, written by
 * build/starter.mjs with the bytes `trainprint/starter` embeds), checked against its record (dist/starter.json: its
 * length and SHA-256), else the embedded entry itself; and its content-word pair index (dist/starter.tpci), which
 * the engine checks against the dataset it loaded.
 *
 * Why a file: `trainprint/starter` carries the snapshot as 12 MB of base64 in a JavaScript module, so that it loads
 * in every runtime; importing it cost a process about 0.25 s of CPU (V8 parsing the module, then the base64 decoded)
 * and 60 MB of memory, which `trainprint analyze` and `demo` paid on every run and `serve` in every process, against
 * about 10 ms to read the bytes and hash them. The dataset is the same either way: where the file is missing or does
 * not match its record (a copy of dist/ without it, a checkout run from its sources), the entry is imported.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DatasetStats, Engine } from '../library.js';

/** What dist/starter.json says of dist/starter.tpds. */
interface StarterRecord {
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * Adds the starter dataset to `engine`, from the snapshot file beside this bundle when it is there and matches its
 * record, else from `trainprint/starter`.
 * @example const stats = await loadStarter(engine) // { id: 'spdx-licenses', documents: 727, … }
 */
export async function loadStarter(engine: Engine): Promise<DatasetStats> {
  // import.meta.url is dist/cli.js (this module is bundled into it): the files are beside it
  const dir = new URL('./', import.meta.url);
  const bytes = await starterFile(dir);
  const stats =
    bytes !== undefined
      ? await engine.importDataset(bytes, { supplied_by: 'shipped' })
      : await (await import('../starter/index.js')).loadStarterDataset(engine);
  await adoptContentIndex(engine, stats.id, dir);
  return stats;
}

/**
 * Hands the starter dataset `id` its content-word pair index from starter.tpci in `dir` (written by
 * build/starter.mjs), so that analyze's reworded search does not build it from the licence texts (≈ 0.25 s of CPU a
 * process). A file that is missing or refused (made for other documents, or by another build) is left alone: the
 * first search that needs the index builds it, as it would have. Returns whether the file was taken.
 * @example await adoptContentIndex(engine, 'spdx-licenses', new URL('./', import.meta.url)) // true
 */
export async function adoptContentIndex(engine: Engine, id: string, dir: URL): Promise<boolean> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(new URL('starter.tpci', dir));
  } catch {
    return false;
  }
  try {
    await engine.importContentIndex(id, bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The bytes of starter.tpds in the folder `dir` (a URL ending in /) when it and starter.json are there and agree (its
 * length and SHA-256), else undefined.
 * @example await starterFile(new URL('./', import.meta.url)) // Uint8Array(8961295) beside dist/cli.js
 */
export async function starterFile(dir: URL): Promise<Uint8Array | undefined> {
  let record: StarterRecord;
  let bytes: Uint8Array;
  try {
    record = JSON.parse(await readFile(new URL('starter.json', dir), 'utf8')) as StarterRecord;
    bytes = await readFile(new URL('starter.tpds', dir));
  } catch {
    return undefined;
  }
  if (record === null || typeof record !== 'object') return undefined;
  if (bytes.length !== record.bytes) return undefined;
  return createHash('sha256').update(bytes).digest('hex') === record.sha256 ? bytes : undefined;
}
