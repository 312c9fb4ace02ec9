/**
 * A content-word index built in batches on other threads (src/corpus/pair-build.ts) is the index built in one
 * thread: with the batches made by an offload, by the caller's steps, by both at once, when the offload fails on
 * every batch, when its answers never come (steps run in one go), and through `prepareSearch` with an offload.
 */
import { describe, expect, it } from 'vitest';
import { contentPairs, type TokenSource } from '../../src/corpus/content-pairs.js';
import { ContentWordIndex } from '../../src/corpus/content-words.js';
import { BATCH_UNITS, BatchedPairBuild } from '../../src/corpus/pair-build.js';
import { withTokenHashes } from '../../src/fingerprint/words.js';
import { createEngine, TrainprintError, type Offload, type PureWork } from '../../src/library.js';
import { finish, sliced } from '../../src/util/steps.js';
import { coreOf } from './abi/helpers.js';
import { recordingOffload } from '../fixtures/offload.js';
import { book } from '../fixtures/texts/index.js';
import { randomWords } from './property/gen.js';

/** Documents enough for a dozen batches: book chapters and word salads, a few not kept. */
function documents(): Array<string | null> {
  const books = ['austen-persuasion', 'chesterton-thursday', 'shakespeare-caesar'].map(book).join('\n\n');
  const out: Array<string | null> = [];
  for (let at = 0, i = 0; out.length < 400; at = (at + 40_000) % (books.length - 40_000), i++) {
    out.push(i % 13 === 5 ? null : i % 3 === 0 ? randomWords(i, 6000).join(' ') : books.slice(at, at + 40_000));
  }
  return out;
}

/**
 * The index's columns (private fields, read here to compare every posting and its order), its postings for every
 * pair of `queries` and its candidates (what a search reads of it).
 */
function readOut(index: ContentWordIndex, queries: string[]): unknown {
  const { keys, docs, offsets } = index as unknown as Record<'keys' | 'docs' | 'offsets', Uint32Array>;
  const read = queries.map((q) => {
    const pairs = contentPairs(q),
      at = index.postings(pairs);
    return [Array.from(at.from), Array.from(at.to), index.candidates(pairs, at), index.bytes, index.documents];
  });
  return {
    keys: Buffer.from(keys.buffer).toString('base64'),
    docs: Buffer.from(docs.buffer).toString('base64'),
    offsets: Buffer.from(offsets.buffer).toString('base64'),
    read,
  };
}

describe('BatchedPairBuild = ContentWordIndex.buildSteps', async () => {
  const core = await coreOf('core.simd.wasm');
  const tokens: TokenSource = (text, use) => withTokenHashes(core, text, use);
  const texts = documents();
  const queries = [book('austen-persuasion').slice(50_000, 56_000), book('shakespeare-caesar').slice(9_000, 12_000)];
  const want = readOut(ContentWordIndex.build(texts, tokens), queries);
  const units = texts.reduce((n, t) => n + (t?.length ?? 0), 0);

  it("with batches on an offload and in the caller's sliced steps at once", async () => {
    expect(units).toBeGreaterThan(8 * BATCH_UNITS);
    const { offload, kinds } = await recordingOffload();
    const build = new BatchedPairBuild(texts, tokens);
    const [, , index] = await Promise.all([build.runOn(offload), build.runOn(offload), sliced(build.steps(), 0)]);
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds.every((k) => k === 'pair-postings')).toBe(true);
    expect(readOut(index, queries)).toEqual(want);
  });

  it('when the offload fails on every batch, and when its answers never come (steps in one go)', async () => {
    const failing: Offload = {
      run: async () => {
        throw new Error('closed');
      },
    };
    const a = new BatchedPairBuild(texts, tokens);
    const [, index] = await Promise.all([a.runOn(failing), sliced(a.steps(), 3)]);
    expect(readOut(index, queries)).toEqual(want);
    const never: Offload = { run: () => new Promise(() => undefined) };
    const b = new BatchedPairBuild(texts, tokens);
    void b.runOn(never); // takes one batch and keeps it: the steps make it after waiting a little
    expect(readOut(finish(b.steps()), queries)).toEqual(want);
  });

  it('two callers moving the same steps on get the same index', async () => {
    const build = new BatchedPairBuild(texts, tokens);
    const steps = build.steps();
    const first = sliced(steps, 0);
    const { offload } = await recordingOffload();
    await build.runOn(offload);
    expect(readOut(await first, queries)).toEqual(want);
  });
});

describe('prepareSearch with an offload', () => {
  it('builds the index in batches there and here, and searches then give what they give without it', async () => {
    const docs = documents().flatMap((text, i) => (text === null ? [] : [{ id: `d${i}`, text }]));
    const query = `${book('chesterton-thursday').slice(70_000, 74_000)} ${randomWords(7, 500).join(' ')}`;
    const plain = await createEngine();
    await plain.addDataset({ id: 'mixed' }, docs);
    const want = plain.search(query, { alignBudgetMs: 60_000 });
    const engine = await createEngine();
    await engine.addDataset({ id: 'mixed' }, docs);
    const { offload, kinds } = await recordingOffload();
    await engine.corpus.prepareSearch({ offload: Object.assign(offload, { threads: 2 }), sliceMs: 0 });
    expect(kinds.filter((k) => k === 'pair-postings').length).toBeGreaterThan(0);
    expect(await engine.searchAsync(query, { alignBudgetMs: 60_000 })).toEqual(want);
  });
});

describe('bad input to the content-word work and to prepareSearch', () => {
  it('runWork refuses texts that are not strings and a first document that is no number (INVALID_INPUT)', async () => {
    const engine = await createEngine();
    const bad = [
      { kind: 'pairs', text: 5 },
      { kind: 'pair-postings', texts: 'a text', first: 0 },
      { kind: 'pair-postings', texts: ['a', 5], first: 0 },
      { kind: 'pair-postings', texts: ['a'], first: -1 },
      { kind: 'pair-postings', texts: ['a'], first: 1.5 },
    ] as unknown as PureWork[];
    for (const work of bad) {
      const e = (() => {
        try {
          engine.runWork(work);
        } catch (x) {
          return x;
        }
      })();
      expect(e).toBeInstanceOf(TrainprintError);
      expect((e as TrainprintError).code).toBe('INVALID_INPUT');
    }
    const fine = engine.runWork({ kind: 'pair-postings', texts: ['one two three four', null], first: 7 });
    expect(fine.docs.every((d) => d === 7)).toBe(true);
  });

  it('an offload claiming absurd thread counts gets at most one lane a batch, and the index is built', async () => {
    const docs = documents().flatMap((text, i) => (text === null ? [] : [{ id: `d${i}`, text }]));
    for (const threads of [1e9, Number.NaN, -3]) {
      const engine = await createEngine();
      await engine.addDataset({ id: 'mixed' }, docs);
      let asked = 0;
      const offload: Offload & { threads: number } = {
        threads,
        run: async () => {
          asked++;
          throw new Error('this pool is closed');
        },
      };
      await engine.corpus.prepareSearch({ offload });
      expect(asked).toBeLessThanOrEqual(Math.ceil(docs.reduce((n, d) => n + d.text.length, 0) / BATCH_UNITS) + 1);
      expect(engine.search(docs[1].text.slice(0, 3000)).matches.length).toBeGreaterThan(0);
    }
  });
});
