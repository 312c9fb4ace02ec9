/**
 * A fingerprint's work as it crosses to a worker pool's thread and back (src/corpus/work.ts): the thread computes the
 * per-shingle columns the work names in its one pass and sends those only, with the shingle count; the asking thread
 * reads them as the engine gives them, reads the count without them, and a column that was not asked for is
 * NOT_SUPPORTED, naming it, rather than undefined. A work that names no columns gets all of them, as before columns
 * could be named. Everything else in the result (id, sketches, winnowed postings) crosses whole. The crossing is
 * `structuredClone`, which is what `postMessage` does.
 */
import { describe, expect, it } from 'vitest';
import { resultReceived, resultToSend, workToRun, type PureWork } from '../../src/corpus/work.js';
import type { Columns } from '../../src/fingerprint/fingerprint.js';
import { resolveOptions } from '../../src/fingerprint/options.js';
import { createEngine, shingleCount } from '../../src/index.js';
import { book } from '../fixtures/texts/index.js';

const text = book('austen-persuasion').slice(0, 60_000);

/** `work` as a pool runs it: on an engine of its own, sent through a structured clone, as the asking thread reads it. */
async function acrossThreads<W extends PureWork>(work: W) {
  const engine = await createEngine();
  try {
    return resultReceived(work, structuredClone(resultToSend(work, engine.runWork(workToRun(work)))));
  } finally {
    engine.dispose();
  }
}

/** The fingerprint work of `text` with the default options less the work hash, asking for `columns`. */
const fingerprintWork = (columns?: Columns) =>
  ({
    kind: 'fingerprint',
    text,
    options: resolveOptions({ workHash: false }),
    ...(columns ? { columns } : {}),
  }) as const;

/** Reading a column that was not sent is NOT_SUPPORTED, naming it. */
const missing = (read: () => unknown, column: string) =>
  expect(read).toThrow(
    expect.objectContaining({ code: 'NOT_SUPPORTED', message: expect.stringContaining(`shingles.${column}`) }),
  );

describe('a fingerprint across threads', () => {
  it('sends the columns its work names, and no others', async () => {
    const engine = await createEngine();
    const here = engine.runWork(fingerprintWork({ hashes: true, spans: true }));
    const { shingles: all, ...rest } = here;
    for (const [columns, present] of [
      [{}, []],
      [{ hashes: true }, ['hashes']],
      [{ spans: true }, ['starts', 'ends']],
      [{ hashes: true, spans: true }, ['hashes', 'starts', 'ends']],
    ] as const) {
      const there = await acrossThreads(fingerprintWork(columns));
      const { shingles, ...others } = there;
      expect(others).toEqual(rest); // the id, the counts, the sketches and the winnowed postings whole
      expect(shingleCount(shingles)).toBe(all.hashes.length);
      for (const column of ['hashes', 'starts', 'ends'] as const) {
        if ((present as readonly string[]).includes(column)) expect(shingles[column]).toEqual(all[column]);
        else missing(() => shingles[column], column);
      }
      // what is not there is not listed either: a copy or a spread of the set does not throw
      expect(Object.keys(shingles).sort()).toEqual([...present].sort());
      expect(() => structuredClone(there)).not.toThrow();
    }
    engine.dispose();
  });

  it('sends every column of a work that names none, as before a work could name them', async () => {
    const engine = await createEngine();
    const there = await acrossThreads(fingerprintWork());
    const here = engine.runWork(fingerprintWork({ hashes: true, spans: true }));
    expect(there).toEqual(here);
    engine.dispose();
  });

  it('leaves other work as it is', async () => {
    const work = { kind: 'compare', a: text.slice(0, 20_000), b: text.slice(10_000, 30_000) } as const;
    const engine = await createEngine();
    expect(await acrossThreads(work)).toEqual(engine.runWork(work));
    engine.dispose();
  });
});
