/**
 * `createWorkerPool()` from the built `trainprint/node`: its threads give what the engine gives in-thread
 * (fingerprints, content-word pairs, compare), errors come back as the same TrainprintError codes, tasks
 * beyond its threads wait their turn, and a closed pool refuses work.
 */
import { describe, expect, it } from 'vitest';
import { book } from '../fixtures/texts/index.js';

const dist = (entry: string) => import(new URL(`../../dist/${entry}`, import.meta.url).href);

describe('worker pool', () => {
  it('answers what runWork answers in this thread, for more tasks than it has threads', async () => {
    const { createEngine, resolveOptions } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const engine = await createEngine();
    const pool = createWorkerPool({ threads: 2 });
    try {
      const text = book('austen-persuasion');
      const options = resolveOptions({ minhash: { mode: 'oph', permutations: 128 }, simhash: false, workHash: false });
      const works = [
        { kind: 'fingerprint', text, options },
        { kind: 'pairs', text },
        { kind: 'compare', a: text.slice(0, 40_000), b: text.slice(20_000, 60_000) },
        { kind: 'compare', a: text.slice(100_000, 120_000), b: book('chesterton-thursday').slice(0, 20_000) },
      ] as const;
      const answers = await Promise.all(works.map((w) => pool.run(w)));
      works.forEach((w, i) => expect(answers[i]).toEqual(engine.runWork(w)));
      expect(answers[2].spans.length).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it('rejects with the TrainprintError the work throws, and refuses work once closed', async () => {
    const { isTrainprintError } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const pool = createWorkerPool({ threads: 1 });
    const bad = await pool.run({ kind: 'compare', a: 'one', b: 'two', options: { maxGap: -1 } }).catch((e: unknown) => e);
    expect(isTrainprintError(bad, 'INVALID_OPTIONS')).toBe(true);
    // the thread is still usable after an error
    expect((await pool.run({ kind: 'compare', a: 'same words here', b: 'same words here' })).similarity).toBe(1);
    await pool.close();
    const closed = await pool.run({ kind: 'pairs', text: 'x' }).catch((e: unknown) => e);
    expect(isTrainprintError(closed, 'ENGINE_DISPOSED')).toBe(true);
    expect(() => createWorkerPool({ threads: 0 })).toThrow(/threads/);
  });
});
