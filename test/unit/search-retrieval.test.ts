/**
 * Exact search on edited passages: chains bridge the gap one edited word leaves between verbatim
 * runs (≤ 2·window + size − 1 shingles), so an edited passage is one match, not fragments.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { book } from '../fixtures/texts/index.js';

describe('exact search with word edits', () => {
  let engine: Engine;
  const src = book('austen-persuasion');
  const filler = book('shakespeare-caesar');
  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset({ id: 'books' }, [{ id: 'persuasion', text: src }]);
  });

  it('keeps a passage with a substituted word every 14 words as one match spanning it', () => {
    let found = 0;
    for (const at of [20_000, 90_000, 150_000, 230_000, 310_000, 380_000]) {
      const words = src.slice(at).split(/\s+/).slice(1, 101);
      const edited = words.map((w, i) => (i % 14 === 7 ? 'zqxv' : w)).join(' ');
      const prefix = filler.slice(5_000, 5_600) + '\n';
      const query = prefix + edited + '\n' + filler.slice(30_000, 30_600);
      const mine = engine.search(query).matches.filter((m) => m.document_id === 'persuasion');
      expect(mine.length).toBeGreaterThan(0);
      // 13 verbatim words between edits: every segment holds a hit, and consecutive hits are at most
      // 2·8 + 5 − 1 = 20 shingles apart, so one chain crosses every edit (spans may stop a window short)
      const best = mine[0];
      const covered =
        Math.min(best.query_end, prefix.length + edited.length) - Math.max(best.query_start, prefix.length);
      if (mine.length === 1 && covered > 0.65 * edited.length) found++;
      expect(best.source_end! - best.source_start!).toBeGreaterThan(0.6 * edited.length);
    }
    expect(found).toBe(6);
  });

  it('does not chain hits from unrelated places of the same document across the longer gap', () => {
    // two verbatim 40-word passages from far-apart places, separated by 10 unrelated words:
    // two matches (different diagonals), not one
    const a = src.slice(50_000).split(/\s+/).slice(1, 41).join(' ');
    const b = src.slice(250_000).split(/\s+/).slice(1, 41).join(' ');
    const query = a + ' the senate and the people shall see it done ' + b;
    const mine = engine.search(query).matches.filter((m) => m.document_id === 'persuasion');
    expect(mine.length).toBe(2);
    for (const m of mine) expect(m.source_end! - m.source_start!).toBeLessThan(400);
  });
});
