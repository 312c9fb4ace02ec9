/**
 * The web app's engine (app/engine-backend.ts) fetches the starter's snapshot and, where its description lists one,
 * the starter's content-word pair index (starter.tpci, written by build/web.mjs): read, the first analysis builds no
 * index and answers as an engine that built its own; missing or made for other documents, it is left alone and the
 * analysis builds it. The files are served over HTTP on 127.0.0.1, as a static host serves dist/web/.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngineBackend } from '../../app/engine-backend.js';
import { STARTER_SNAPSHOT } from '../../build/generated/starter-dataset.js';
import { decodeBase64 } from '../../src/core/base64.js';
import { ContentWordIndex } from '../../src/corpus/content-words.js';
import { createEngine } from '../../src/index.js';

const snapshot = decodeBase64(STARTER_SNAPSHOT.base64);
const files = new Map<string, Uint8Array | string>();
let server: Server;
let base: string;

beforeAll(async () => {
  const maker = await createEngine();
  await maker.importDataset(snapshot);
  const other = await createEngine();
  await other.addDataset({ id: 'spdx-licenses', kind: 'exact' }, [
    { id: 'MIT', text: 'Permission is hereby granted.' },
  ]);
  const description = (content_index?: string) =>
    JSON.stringify({
      id: 'spdx-licenses',
      source: STARTER_SNAPSHOT.source,
      file: 'starter.tpds',
      bytes: snapshot.length,
      sha256: createHash('sha256').update(snapshot).digest('hex'),
      ...(content_index === undefined ? {} : { content_index }),
    });
  files.set('/starter.tpds', snapshot);
  files.set('/starter.tpci', await maker.exportContentIndex('spdx-licenses'));
  files.set('/other.tpci', await other.exportContentIndex('spdx-licenses'));
  files.set('/with-index.json', description('starter.tpci'));
  files.set('/with-other.json', description('other.tpci'));
  files.set('/with-missing.json', description('missing.tpci'));
  files.set('/without.json', description());
  maker.dispose();
  other.dispose();
  server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));
afterEach(() => vi.restoreAllMocks());

/** An analysis of a reworded licence passage, as the page asks it: the starter alone, no packs. */
async function analyzeWith(description: string): Promise<{ built: number; matches: string }> {
  const backend = createEngineBackend({ starterUrl: `${base}/${description}`, packsUrl: null });
  const ready = await backend.ready();
  expect(ready.datasets.map((d) => d.id)).toEqual(['spdx-licenses']);
  const build = vi.spyOn(ContentWordIndex, 'buildSteps');
  const result = await backend.analyze({
    content_type: 'text',
    content:
      'Permission is hereby granted, at no charge, to anybody holding a copy of this program and the notes that ' +
      'come with it, to deal in the program without restriction, including the rights to use, copy and change it.',
  });
  const built = build.mock.calls.length;
  build.mockRestore();
  return { built, matches: JSON.stringify(result.matches) };
}

describe("the web app's starter content index", () => {
  it('is read where the description lists it: the first analysis builds none and answers the same', async () => {
    const read = await analyzeWith('with-index.json');
    const built = await analyzeWith('without.json');
    expect(read.built).toBe(0);
    expect(built.built).toBe(1);
    expect(read.matches).toBe(built.matches);
  });

  it('is left alone when it is missing or made for other documents: the analysis builds it', async () => {
    for (const description of ['with-missing.json', 'with-other.json'])
      expect((await analyzeWith(description)).built, description).toBe(1);
  });
});
