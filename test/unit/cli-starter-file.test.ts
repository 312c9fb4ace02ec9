/**
 * The command line's starter dataset from the snapshot file beside dist/cli.js (src/cli/starter-file.ts): read when
 * starter.tpds and starter.json agree (length and SHA-256), refused — so that the embedded `trainprint/starter` is
 * imported instead — when either is missing, malformed or describes other bytes; and the file's snapshot gives the
 * same dataset as the embedded one. The content index beside it (starter.tpci) is taken when it is the dataset's, so
 * that a reworded search builds none, and left alone (the search builds it) when it is missing or another's.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { STARTER_SNAPSHOT } from '../../build/generated/starter-dataset.js';
import { adoptContentIndex, loadStarter, starterFile } from '../../src/cli/starter-file.js';
import { ContentWordIndex } from '../../src/corpus/content-words.js';
import { decodeBase64 } from '../../src/core/base64.js';
import { createEngine } from '../../src/index.js';
import { loadStarterDataset } from '../../src/starter/index.js';

const snapshot = decodeBase64(STARTER_SNAPSHOT.base64);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const dirs: string[] = [];

/** A folder (as a URL ending in /) holding `files`. */
function folder(files: Record<string, string | Uint8Array>): URL {
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-starter-file-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return pathToFileURL(`${dir}/`);
}
const record = (bytes: number, hash: string) => JSON.stringify({ id: 'spdx-licenses', bytes, sha256: hash });

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the starter snapshot file of the command line', () => {
  it('is read when its record describes it, and gives the dataset the embedded snapshot gives', async () => {
    const dir = folder({ 'starter.tpds': snapshot, 'starter.json': record(snapshot.length, sha256(snapshot)) });
    const bytes = await starterFile(dir);
    expect(bytes).toBeDefined();
    expect(Buffer.from(bytes as Uint8Array).equals(Buffer.from(snapshot))).toBe(true);
    const fromFile = await createEngine();
    const fromEntry = await createEngine();
    await fromFile.importDataset(bytes as Uint8Array, { supplied_by: 'shipped' });
    await loadStarterDataset(fromEntry);
    expect(fromFile.datasets()).toEqual(fromEntry.datasets());
    expect(Buffer.from(fromFile.exportDataset('spdx-licenses')).equals(Buffer.from(snapshot))).toBe(true);
  });

  it('is refused when a file is missing, the record is not JSON, or it describes other bytes', async () => {
    const good = record(snapshot.length, sha256(snapshot));
    const damaged = snapshot.slice();
    damaged[damaged.length >> 1] ^= 0xff;
    const cases: Array<Record<string, string | Uint8Array>> = [
      { 'starter.json': good },
      { 'starter.tpds': snapshot },
      { 'starter.tpds': snapshot, 'starter.json': '{"bytes": ' },
      { 'starter.tpds': snapshot, 'starter.json': 'null' },
      { 'starter.tpds': damaged, 'starter.json': good },
      { 'starter.tpds': snapshot.subarray(1), 'starter.json': good },
      { 'starter.tpds': snapshot, 'starter.json': record(snapshot.length, sha256(damaged)) },
    ];
    for (const files of cases) expect(await starterFile(folder(files))).toBeUndefined();
  });

  it('leaves the embedded entry to load the dataset where there is no file (here: beside the sources)', async () => {
    const engine = await createEngine();
    const stats = await loadStarter(engine);
    expect(stats).toMatchObject({ id: 'spdx-licenses', kind: 'exact', documents: STARTER_SNAPSHOT.documents });
  });
});

describe("the starter's content index file", () => {
  afterEach(() => vi.restoreAllMocks());
  const query = 'Permission is hereby granted, at no charge, to anybody holding a copy of this program and its notes.';

  it('is taken when it was made for the dataset, and the reworded search then builds no index', async () => {
    const maker = await createEngine();
    await maker.importDataset(snapshot);
    const dir = folder({ 'starter.tpci': await maker.exportContentIndex('spdx-licenses') });
    const engine = await createEngine();
    await engine.importDataset(snapshot, { supplied_by: 'shipped' });
    expect(await adoptContentIndex(engine, 'spdx-licenses', dir)).toBe(true);
    const build = vi.spyOn(ContentWordIndex, 'buildSteps');
    const read = await engine.searchAsync(query, { reworded: true });
    expect(build).not.toHaveBeenCalled();
    expect(JSON.stringify(read.matches)).toBe(
      JSON.stringify((await maker.searchAsync(query, { reworded: true })).matches),
    );
  });

  it('is left alone when missing or made for other documents: the search builds the index', async () => {
    const other = await createEngine();
    await other.addDataset({ id: 'spdx-licenses', kind: 'exact' }, [{ id: 'MIT', text: `${query} ${query}` }]);
    const engine = await createEngine();
    await engine.importDataset(snapshot, { supplied_by: 'shipped' });
    expect(await adoptContentIndex(engine, 'spdx-licenses', folder({}))).toBe(false);
    const dir = folder({ 'starter.tpci': await other.exportContentIndex('spdx-licenses') });
    expect(await adoptContentIndex(engine, 'spdx-licenses', dir)).toBe(false);
    const build = vi.spyOn(ContentWordIndex, 'buildSteps');
    await engine.searchAsync(query, { reworded: true });
    expect(build).toHaveBeenCalledTimes(1);
  });
});
