/**
 * A 2 MB analysis of one licence sentence repeated, against the SPDX licence texts (hundreds of which hold it):
 * hundreds of thousands of matches. They were appended with a spread (`push(...matches)`), one argument each, and
 * the search threw `RangeError: Maximum call stack size exceeded` — a 500 on `serve`'s analyze, found by its log line.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { loadStarterDataset } from '../../src/starter/index.js';

describe('an analysis whose text repeats one sentence that many documents hold', () => {
  it('is answered instead of overflowing the stack', async () => {
    const engine = await createEngine();
    try {
      await loadStarterDataset(engine);
      const content = 'Permission is hereby granted, free of charge, to any person. '.repeat(34_000);
      const r = await engine.analyze({ content, content_type: 'text' });
      expect(r.corpus_evidence.strongest).toMatchObject({ dataset_id: 'spdx-licenses' });
    } finally {
      engine.dispose();
    }
  }, 120_000);
});
