/**
 * The command line's starter dataset from the snapshot file beside dist/cli.js (src/cli/starter-file.ts): read when
 * starter.tpds and starter.json agree (length and SHA-256), refused — so that the embedded `trainprint/starter` is
 * imported instead — when either is missing, malformed or describes other bytes; and the file's snapshot gives the
 * same dataset as the embedded one.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { STARTER_SNAPSHOT } from '../../build/generated/starter-dataset.js';
import { loadStarter, starterFile } from '../../src/cli/starter-file.js';
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
