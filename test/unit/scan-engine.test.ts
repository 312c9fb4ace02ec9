/**
 * The scan engine (src/scan-engine.ts) that `trainprint scan` runs on (src/node/scan/alone.ts, dist/scan-files.js):
 * the same hit lines as the Engine's `scanFiles`, byte for byte, from the same dataset file; the same digest; a
 * dataset file whose descriptor names a model or a curated dataset imported with the same ids (the knowledge base's,
 * built on first use), and one naming an unknown model refused with the same error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { scanFiles } from '../../src/node/index.js';
import { scanFilesAlone } from '../../src/node/scan/alone.js';
import { createScanEngine } from '../../src/scan-engine.js';
import { archive, cleanOutputs, plantedOutputs } from '../fixtures/scan-plant.js';

let dir: string;
let engine: Engine;
const at = (f: string) => join(dir, f);
const docs = archive().slice(0, 120);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-engine-'));
  engine = await createEngine({ synonyms: false });
  await engine.addDataset({ id: 'archive', models: ['EleutherAI/pythia-6.9b'], kb_dataset: 'project-gutenberg' }, docs);
  writeFileSync(at('archive.tpds'), engine.exportDataset('archive'));
  const planted = plantedOutputs(docs, 30, 11);
  const clean = cleanOutputs(60, 12);
  const lines = [...planted.map((p) => p.text), ...clean].map((text, i) => JSON.stringify({ id: `o-${i}`, text }));
  writeFileSync(at('in.jsonl'), `${lines.join('\n')}\n`);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the scan engine', () => {
  it('writes the hit lines scanFiles writes, byte for byte, at 50 and at 20 words', async () => {
    for (const minWords of [50, 20]) {
      const options = { datasets: [at('archive.tpds')], inputs: [at('in.jsonl')], minWords };
      const full = await scanFiles({ ...options, out: at(`full-${minWords}.jsonl`) });
      const alone = await scanFilesAlone({ ...options, out: at(`alone-${minWords}.jsonl`) });
      expect(alone).toMatchObject({ items: full.items, hits: full.hits, skipped: full.skipped, bytes: full.bytes });
      expect(full.hits).toBeGreaterThan(20);
      expect(readFileSync(at(`alone-${minWords}.jsonl`), 'utf8')).toBe(
        readFileSync(at(`full-${minWords}.jsonl`), 'utf8'),
      );
    }
  }, 120_000);

  it('imports the file with the descriptor the Engine reads and gives the same digest', async () => {
    const scanner = await createScanEngine({ synonyms: false });
    try {
      const stats = await scanner.importDataset(readFileSync(at('archive.tpds')));
      expect(stats).toEqual(engine.datasets().find((d) => d.id === 'archive'));
      expect(scanner.corpus.descriptor('archive')).toEqual(engine.corpus.descriptor('archive'));
      expect(await scanner.datasetDigest('archive')).toBe(await engine.datasetDigest('archive'));
      const item = { id: 'one', text: plantedOutputs(docs, 1, 13)[0].text };
      expect(await scanner.scanItem(item)).toEqual(await engine.scanItem(item));
    } finally {
      scanner.dispose();
    }
  });

  it('refuses a descriptor naming an unknown model as the Engine does', async () => {
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: { code?: string; message?: string }) => [e.code, e.message],
      );
    const scanner = await createScanEngine({ synonyms: false });
    const full = await createEngine({ synonyms: false });
    try {
      const add = (e: { addDataset: Engine['addDataset'] }) =>
        e.addDataset({ id: 'x', models: ['no-such/model-1'] }, [{ id: 'd', text: 'a b c d e f g' }]);
      const expected = await refusal(add(full));
      expect(expected?.[0]).toBe('NOT_FOUND');
      expect(await refusal(add(scanner))).toEqual(expected);
    } finally {
      scanner.dispose();
      full.dispose();
    }
  });

  it('checks its options as createEngine does', async () => {
    await expect(createScanEngine({ simd: 'yes' as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(createScanEngine(null as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});
