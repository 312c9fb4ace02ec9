/**
 * The engine builds its knowledge base on first use (`engine.kb`): a scan or a fingerprint never reads it, and
 * analyze, the look-ups and a descriptor naming a curated dataset, run after a scan, answer as on an engine that
 * never scanned.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine.js';
import { createEngine } from '../../src/library.js';
import { archive, plantedOutputs } from '../fixtures/scan-plant.js';

const docs = archive();

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * An engine with the archive loaded, and the count of its knowledge base's reads from its construction on (the getter
 * is spied on the class before the engine is made).
 */
async function engineWithArchive(): Promise<{ engine: Engine; reads: () => number }> {
  const spy = vi.spyOn(Engine.prototype, 'kb', 'get');
  const engine = await createEngine();
  await engine.addDataset({ id: 'arch' }, docs);
  return { engine, reads: () => spy.mock.calls.length };
}

/** An analysis without what differs between two runs of it (its id and time). */
function comparable(r: object): object {
  const { analysis_id, created_at, ...rest } = r as Record<string, unknown>;
  expect(typeof analysis_id).toBe('string');
  return rest;
}

describe('the knowledge base, built on first use', () => {
  it('is not read by a scan, a fingerprint or a dataset without curated ids', async () => {
    const { engine, reads } = await engineWithArchive();
    const planted = plantedOutputs(docs, 4, 7);
    const hits = [];
    for await (const h of engine.scan(planted.map((p, i) => ({ id: `out-${i}`, text: p.text })))) hits.push(h);
    expect(hits.length).toBeGreaterThan(0);
    await engine.fingerprint(planted[0].text);
    expect(reads()).toBe(0);
    const imported = await createEngine();
    await imported.importDataset(engine.exportDataset('arch'));
    expect(await imported.scanItem({ id: 'out', text: planted[0].text })).toEqual(
      await engine.scanItem({ id: 'out', text: planted[0].text }),
    );
    expect(reads()).toBe(0); // every engine's reads: this spy is on the class
  });

  it('answers analyze and the look-ups after a scan as an engine that never scanned', async () => {
    const { engine, reads } = await engineWithArchive();
    const fresh = await createEngine();
    await fresh.addDataset({ id: 'arch' }, docs);
    const [p] = plantedOutputs(docs, 1, 3);
    await engine.scanItem({ id: 'out', text: p.text });
    expect(reads()).toBe(0);
    const after = await engine.analyze({ content: p.text, content_type: 'text' });
    expect(reads()).toBeGreaterThan(0);
    expect(comparable(after)).toEqual(comparable(await fresh.analyze({ content: p.text, content_type: 'text' })));
    expect(engine.models()).toEqual(fresh.models());
    expect(engine.kbDataset('books3')).toEqual(fresh.kbDataset('books3'));
  });

  it('checks a descriptor naming a curated dataset when it is added', async () => {
    const { engine, reads } = await engineWithArchive();
    await engine.addDataset({ id: 'pile', kb_dataset: 'The Pile' }, docs.slice(0, 2));
    expect(reads()).toBeGreaterThan(0);
    await expect(engine.addDataset({ id: 'bad', kb_dataset: 'no-such-dataset' }, docs.slice(0, 1))).rejects.toThrow(
      /no-such-dataset/,
    );
  });
});
