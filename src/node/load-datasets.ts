/**
 * Datasets named as the CLI's `--dataset` takes them, into an engine: dataset files imported, `postgres://` URLs
 * attached (every dataset of the URL's schema, or the one its `dataset` parameter names). `trainprint analyze`,
 * `serve`, `scan` (each thread of `scanFiles`) and `worker` load theirs with it.
 */
import { readFile } from 'node:fs/promises';
import { TrainprintError, type Engine } from '../library.js';
import { isPostgresUrl, openPostgresDatasets } from '../store/node.js';

/**
 * Loads `specs` into `engine`; resolves to what closes the attached datasets' connections.
 * @throws (rejects) INVALID_INPUT (an unreadable file), NOT_FOUND (no dataset at a URL), as importDataset does
 * @example
 * import { loadDatasetSpecs } from 'trainprint/node'
 * const close = await loadDatasetSpecs(engine, ['books.tpds', 'postgres://localhost/trainprint'])
 */
export async function loadDatasetSpecs(
  engine: Pick<Engine, 'importDataset' | 'attachDataset'>,
  specs: readonly string[],
): Promise<() => Promise<void>> {
  const attached: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    await Promise.all(attached.map((d) => d.close()));
  };
  try {
    for (const d of specs) {
      if (isPostgresUrl(d)) {
        const found = await openPostgresDatasets({ url: d });
        attached.push(...found);
        if (found.length === 0) throw new TrainprintError('NOT_FOUND', `no datasets in ${redact(d)}`);
        for (const ds of found) await engine.attachDataset(ds);
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(d);
      } catch {
        throw new TrainprintError('INVALID_INPUT', `${d}: cannot read the dataset file`);
      }
      // the file's bytes are read for this import alone: it may keep views of them rather than copy half the file
      await engine.importDataset(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { adopt: true });
    }
  } catch (e) {
    await close().catch(() => undefined);
    throw e;
  }
  return close;
}

/** A URL for messages: its password as ***. */
const redact = (url: string): string => url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
