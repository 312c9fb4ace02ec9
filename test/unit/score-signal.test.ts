/**
 * A score's `signal` (src/services/score/score.ts): an aborted score rejects with the signal's reason, as analyze
 * does — before it starts, and between chunks once it is running — and a live signal changes nothing.
 *
 * The mid-run abort is by construction, never by timing: an evidence source linked to the model is searched once
 * per chunk, and aborts the controller during its third search.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type EvidenceSource } from '../../src/index.js';
import { TrainprintError } from '../../src/errors.js';
import { CHUNK_WORDS } from '../../src/services/score/score.js';
import { book } from '../fixtures/texts/index.js';
import { passageAt } from '../reference/core.js';

const MODEL = 'meta/llama-7b';
/** Ten chunks: the source is searched ten times by a score that runs to the end. */
const work = passageAt(book('chesterton-thursday'), 9_000, 10 * CHUNK_WORDS).text;
/** 50 words inside the work's second chunk, which the source holds: the score finds something, not all zeros. */
const words = [...work.matchAll(/\S+/g)];
const held = work.slice(words[250].index, words[299].index + words[299][0].length);

/** What the source did: its searches, and what to do during the search numbered `abortAt` (1-based). */
const calls = { count: 0, abortAt: 0, abort: (): void => undefined };

const counting: EvidenceSource = {
  descriptor: { id: 'counting-source', kind: 'test-count', models: [MODEL] },
  stats: () => ({ documents: 1, tokens: 60 }),
  search(query) {
    calls.count++;
    if (calls.count === calls.abortAt) calls.abort();
    const at = query.indexOf(held);
    const passages =
      at < 0
        ? []
        : [
            {
              document_id: 'held',
              query_start: at,
              query_end: at + held.length,
              source_start: 0,
              source_end: held.length,
              tokens: held.split(/\s+/).filter(Boolean).length,
            },
          ];
    return {
      passages,
      tested: 200,
      found: passages.length,
      background_rate: 0,
      runs: passages.length,
      chance: passages.length === 0 ? 1 : 1e-12,
    };
  },
};

const request = { content: work, target_model: MODEL, jurisdiction: 'US' } as const;

describe('score under an abort signal', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    engine.addEvidenceSource(counting);
  });

  it('gives the same result with a live signal as without one', async () => {
    calls.abortAt = 0;
    const before = calls.count;
    const plain = await engine.score(request);
    expect(calls.count - before).toBe(10); // one search per chunk
    expect(plain.reused_share.n_chunks).toBe(10);
    expect(plain.score).toBeGreaterThan(0);
    const live = new AbortController();
    expect(await engine.score(request, { signal: live.signal })).toEqual(plain);
    expect(await engine.score(request, { signal: live.signal, sliceMs: Infinity })).toEqual(plain);
  });

  it('rejects at once with the reason of a signal aborted before it starts', async () => {
    const reason = new TrainprintError('PAYLOAD_TOO_LARGE', 'the item ran past its time limit');
    const before = calls.count;
    await expect(engine.score(request, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    // no reason given: the runtime's AbortError, as fetch rejects
    await expect(engine.score(request, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls.count).toBe(before); // nothing was searched
  });

  it('stops between chunks once the signal aborts mid-run, and rejects with its reason', async () => {
    const controller = new AbortController();
    const reason = new TrainprintError('PAYLOAD_TOO_LARGE', 'the item ran past its time limit');
    const before = calls.count;
    calls.abortAt = before + 3;
    calls.abort = () => controller.abort(reason);
    await expect(engine.score(request, { signal: controller.signal })).rejects.toBe(reason);
    calls.abortAt = 0;
    expect(calls.count - before).toBe(3); // the chunks after the abort were never searched
    // a score after it is whole again: what the aborted one had seen was not kept
    const again = await engine.score(request, { signal: new AbortController().signal });
    expect(again).toEqual(await engine.score(request));
  });

  it('refuses a signal that is not an AbortSignal', async () => {
    await expect(engine.score(request, { signal: {} as AbortSignal })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });
});
