/**
 * The scan's contract on planted passages (the recall target, at a small size): passages of 50–150 words of a small
 * archive (the committed Gutenberg books) planted in natural outputs (Alice, which the archive does not hold), a
 * third of them with words changed, are all found with their spans; clean outputs give no hit. bench/scan.mjs
 * measures the same at size.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type ScanHit } from '../../src/index.js';
import { archive, cleanOutputs, exactSpan, plantedOutputs } from '../fixtures/scan-plant.js';

describe('scan recall on planted passages', () => {
  it('finds every planted passage with its spans, and nothing in clean outputs', async () => {
    const engine = await createEngine();
    const docs = archive();
    await engine.addDataset({ id: 'archive' }, docs);
    const planted = plantedOutputs(docs, 150, 2024);
    const clean = cleanOutputs(1500, 2025);
    const items = [
      ...planted.map((p, i) => ({ id: `planted-${i}`, text: p.text })),
      ...clean.map((text, i) => ({ id: `clean-${i}`, text })),
    ];
    const hits = new Map<string, ScanHit[]>();
    const scan = engine.scan(items, { minWords: 50 });
    for await (const h of scan) hits.set(h.id, [...(hits.get(h.id) ?? []), h]);
    const missed = planted.filter((p, i) => {
      const found = hits.get(`planted-${i}`) ?? [];
      return !found.some((h) => h.document_id === p.document_id && exactSpan(p.text, h, p));
    });
    expect(missed).toEqual([]);
    expect([...hits.keys()].filter((id) => id.startsWith('clean-'))).toEqual([]);
    expect(planted.filter((p) => p.edited).length).toBe(50);
  }, 120_000);
});
