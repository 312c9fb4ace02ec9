/**
 * extractWork's journal, prompt variants and dropped connections against the fixture chat server on 127.0.0.1
 * (test/fixtures/memorised-chat-server.ts): a run stopped part-way and started again with its journal repeats no
 * answered request (the server's own log of bodies) and ends with the record of a run never stopped; a server that
 * refuses every conversation with a system message is reached by the template without one (best-of-N); connections
 * closed without an answer are retried inside a call and lose nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import { openExtractionJournal } from '../../src/node/extraction-journal.js';
import { memoryExtractionJournal } from '../../src/services/memorization/extraction-journal.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import { inOrderShare } from '../../src/services/memorization/nv-blocks.js';
import { wordSpans } from '../../src/services/memorization/text.js';
import { MemoryStore } from '../../src/store/memory.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const { text, words } = syntheticWork(3, 1000, 7);
const n = wordSpans(text).tokens.length;
const held: [number, number] = [1200, 2200];
const share = (held[1] - held[0]) / n;
const store = new MemoryStore();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trainprint-extract-resume-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const chat = (s: MemorisedServer, o: { maxRetries?: number } = {}) =>
  createOpenAICompatibleModel({
    baseUrl: s.baseUrl,
    model: 'fixture-memo-1',
    api: 'chat',
    maxRetries: o.maxRetries ?? 0,
    retryBaseMs: 0,
  });

/**
 * The model, stopped for good after `calls` calls (the next call never leaves); `settled` waits for the calls
 * already in flight, whose answers the run still journals.
 */
function killedAfter(model: TargetModel, calls: number): TargetModel & { settled(): Promise<void> } {
  let made = 0;
  const inflight: Array<Promise<unknown>> = [];
  return {
    ...model,
    generateCall: (prompt: string, o: GenerateOptions) => {
      if (++made > calls) return Promise.reject(new Error('killed'));
      const answer = model.generateCall!(prompt, o);
      inflight.push(answer.catch(() => {}));
      return answer;
    },
    settled: async () => {
      await Promise.all(inflight);
      await new Promise((resolve) => setImmediate(resolve)); // the journal's put after the last answer
    },
  };
}

describe('extractWork resumed from its journal', () => {
  it('repeats no answered request and ends with the record of an uninterrupted run', async () => {
    // the uninterrupted run, on a server of its own (the servers number their answers: same count, same bodies)
    const whole = await startMemorisedServer({ words, held });
    const parted = await startMemorisedServer({ words, held });
    try {
      const options = { text, budget_calls: 300, concurrency: 1 } as const;
      const reference = await runWorkExtraction(store, { ...options, model: chat(whole) });
      expect(reference.calls).toBeGreaterThan(30);

      const journal = await openExtractionJournal(join(dir, 'run.journal'));
      await expect(
        runWorkExtraction(store, { ...options, model: killedAfter(chat(parted), 20), journal }),
      ).rejects.toThrow('killed');
      await journal.close();
      const first = parted.bodies();
      expect(first).toHaveLength(20);

      // a new process: the journal read back from its file
      const reopened = await openExtractionJournal(join(dir, 'run.journal'));
      expect(reopened.size).toBe(20);
      const resumed = await runWorkExtraction(store, { ...options, model: chat(parted), journal: reopened });
      await reopened.close();
      const second = parted.bodies().slice(20);
      // no answered request asked again
      expect(new Set(parted.bodies()).size).toBe(parted.bodies().length);
      expect(second.filter((b) => first.includes(b))).toEqual([]);
      expect(resumed.replayed_calls).toBe(20);
      expect(second).toHaveLength(resumed.calls - 20);
      expect(resumed.record.calls.slice(0, 20).every((c) => c.replayed === true)).toBe(true);
      // the same result: blocks, share, calls and the transcript digest over every request and answer
      expect(resumed.record.transcript_sha256).toBe(reference.record.transcript_sha256);
      expect(resumed.nv_recall).toBe(reference.nv_recall);
      expect(resumed.blocks.map((b) => [b.start, b.end, b.generated])).toEqual(
        reference.blocks.map((b) => [b.start, b.end, b.generated]),
      );
      expect(resumed.calls).toBe(reference.calls);
    } finally {
      await whole.close();
      await parted.close();
    }
  });

  it('with calls in flight: a resumed run still repeats nothing and measures the same share', async () => {
    const server = await startMemorisedServer({ words, held });
    try {
      const journal = memoryExtractionJournal();
      const options = { text, budget_calls: 300, concurrency: 6, journal } as const;
      const killed = killedAfter(chat(server), 25);
      await expect(runWorkExtraction(store, { ...options, model: killed })).rejects.toThrow('killed');
      await killed.settled();
      const before = server.bodies().length;
      expect(journal.size).toBe(before);
      const resumed = await runWorkExtraction(store, { ...options, model: chat(server) });
      expect(new Set(server.bodies()).size).toBe(server.bodies().length);
      expect(resumed.replayed_calls).toBe(before);
      expect(resumed.nv_recall).toBeGreaterThan(share - 0.05);
      expect(resumed.nv_recall).toBeLessThanOrEqual(share + 0.001);
      // a third run calls nothing at all
      const again = await runWorkExtraction(store, { ...options, model: chat(server) });
      expect(server.bodies().length).toBe(before + resumed.calls - resumed.replayed_calls);
      expect(again.replayed_calls).toBe(again.calls);
    } finally {
      await server.close();
    }
  });
});

describe('extractWork prompt variants (best-of-N)', () => {
  it('reaches a model that refuses every conversation with a system message through the template without one', async () => {
    const server = await startMemorisedServer({ words, held, refuseSystem: true, refuseEvery: 0 });
    try {
      const one = await runWorkExtraction(store, { text, model: chat(server), budget_calls: 200, prompt_variants: 1 });
      expect(one.nv_recall).toBe(0);
      expect(one.refusals).toBe(one.calls);
      expect(one.blocks).toEqual([]);

      const best = await runWorkExtraction(store, { text, model: chat(server), budget_calls: 600 });
      expect(best.prompt_variants).toEqual(['continue', 'verbatim-passage', 'recite']);
      expect(best.nv_recall).toBeGreaterThan(share - 0.05);
      expect(best.refusals).toBeGreaterThan(0);
      for (const b of best.blocks) {
        expect(b.prompt_variant).toBe('verbatim-passage');
        expect(inOrderShare(text.slice(b.start, b.end), b.generated)).toBeGreaterThanOrEqual(0.9);
      }
      // every refused call is a template with a system line; no refusal aligned
      const refused = best.record.calls.filter((c) => c.refused);
      expect(refused.every((c) => c.variant !== 'verbatim-passage' && c.reproduced_words === 0)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a completions model has one prompt, the prefix', async () => {
    const server = await startMemorisedServer({ words, held });
    try {
      const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl, model: 'fixture-memo-1', topLogprobs: 0 });
      const r = await runWorkExtraction(store, { text, model, budget_calls: 300 });
      expect(r.prompt_variants).toEqual(['prefix']);
      expect(r.record.calls.every((c) => c.variant === 'prefix')).toBe(true);
      await expect(runWorkExtraction(store, { text, model, prompt_variants: 2 })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    } finally {
      await server.close();
    }
  });
});

describe('extractWork over dropped connections', () => {
  it('retries a dropped connection inside the call: no failed call, the same share', async () => {
    const server = await startMemorisedServer({ words, held, dropEvery: 4 });
    try {
      // one call at a time: every fourth request dropped, so no call loses two attempts in a row
      const r = await runWorkExtraction(store, {
        text,
        model: chat(server, { maxRetries: 1 }),
        budget_calls: 400,
        concurrency: 1,
      });
      expect(server.dropped()).toBeGreaterThan(0);
      expect(r.failed_calls).toBe(0);
      expect(r.calls).toBe(server.requests());
      expect(r.nv_recall).toBeGreaterThan(share - 0.05);
    } finally {
      await server.close();
    }
  });
});
