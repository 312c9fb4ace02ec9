/**
 * The synonym table is a module of its own, loaded by `createEngine` (a dynamic import) unless `synonyms: false`.
 * This file runs in a module graph of its own (vitest isolates test files), so it starts with the table unloaded:
 * an engine made with `synonyms: false` compares words as written and says so; once any engine has loaded the
 * table, compare reads it and the results equal those of an engine made with it.
 */
import { describe, expect, it } from 'vitest';
import { synonymsLoaded } from '../../src/align/synonyms.js';
import { createEngine, createFingerprintEngine, isTrainprintError } from '../../src/index.js';
import { filler, REWORDED, SOURCE } from '../fixtures/synonym-pair.js';

const a = `${filler} ${REWORDED} ${filler}`;
const b = `A preface about ships and harbours. ${SOURCE} A closing note on the printing.`;

describe('the synonym table, loaded on demand', () => {
  it('synonyms: false skips it; compare then reads words as written and says so', async () => {
    const light = await createFingerprintEngine({ synonyms: false });
    expect(synonymsLoaded()).toBe(false);
    const asked = light.compare(a, b);
    expect(asked.limitations).toEqual(['synonyms_not_loaded']);
    const { limitations: _, ...rest } = asked;
    // the same as asking for words as written, which has nothing to report
    const written = light.compare(a, b, { synonyms: false });
    expect(written.limitations).toBeUndefined();
    expect(rest).toEqual(written);
    for (const s of written.spans) expect(s.score).toBeLessThan(0.5);
  });

  it('a bad synonyms option is INVALID_OPTIONS, for both engines', async () => {
    for (const make of [createFingerprintEngine, createEngine] as const) {
      const err = await make({ synonyms: 'yes' as never }).catch((e: unknown) => e);
      expect(isTrainprintError(err) && err.code).toBe('INVALID_OPTIONS');
      expect((err as Error).message).toContain('synonyms must be a boolean');
    }
  });

  it('the default loads it before the engine is handed over: the reworded passage aligns as nearly its source', async () => {
    const light = await createFingerprintEngine({ synonyms: false });
    const full = await createEngine();
    expect(synonymsLoaded()).toBe(true);
    const found = full.compare(a, b);
    expect(found.limitations).toBeUndefined();
    expect(found.spans).toHaveLength(1);
    expect(found.spans[0].score).toBeGreaterThan(0.9);
    // the table is the process's: an engine made without it reads it once it is there
    expect(light.compare(a, b)).toEqual(found);
  });
});
