/**
 * One answer: an extraction's calls, blocks, nv_recall and transcript digest are a function of the work, the options
 * and the model's answers — not of the concurrency, the time each answer takes or the order in which answers arrive.
 * Answers are delivered after seeded random delays (shuffled arrival orders) at concurrency 1, 4, 8 and 16; a run
 * stopped after any number of calls and started again with its journal ends with the same record; a finished run
 * started again with its journal makes no call. The last test does the same with the committed long-work model.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadByteGptModel } from '../../src/models/byte-gpt/model.js';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import { readModelDirectory } from '../../src/node/models.js';
import { memoryExtractionJournal } from '../../src/services/memorization/extraction-journal.js';
import { runWorkExtraction, type WorkExtractionResult } from '../../src/services/memorization/extract-work.js';
import { runInRounds } from '../../src/services/memorization/rounds.js';
import { MemoryStore } from '../../src/store/memory.js';
import { syntheticWork } from '../fixtures/memorised-chat-server.js';

const store = new MemoryStore();
const { text, words } = syntheticWork(4, 700, 5);

/** A seeded generator (32-bit LCG, exact with Math.imul). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A chat model that has memorised words [600, 1500) and [2000, 2600) of the work: it continues a prompt whose last 8
 * words it finds there with the next 70 words, one in 23 changed, else answers unrelated words; its answers come after
 * a delay drawn from `delays` (so the calls in flight come back in a shuffled order).
 */
function memorising(delays: () => number): TargetModel & { calls: () => number } {
  let calls = 0;
  const held = (w: number) => (w >= 600 && w < 1500) || (w >= 2000 && w < 2600);
  const answer = (prompt: string) => {
    const tail = prompt.split(/\s+/).filter(Boolean).slice(-8).join(' ');
    for (let i = 8; i < words.length; i++) {
      if (!held(i) || words.slice(i - 8, i).join(' ') !== tail) continue;
      const out: string[] = [];
      for (let k = i; k < Math.min(words.length, i + 70) && held(k); k++) out.push(k % 23 === 0 ? 'zzq' : words[k]);
      return out.join(' ');
    }
    return 'plain unrelated words of no work at all '.repeat(6).trim();
  };
  return {
    id: 'memorising',
    access: 'generations_only',
    chat: true,
    calls: () => calls,
    generate: async (_prompt: string, o: GenerateOptions) => {
      calls++;
      const last = o.messages?.at(-1)?.content ?? _prompt;
      await new Promise((r) => setTimeout(r, Math.floor(delays() * 4)));
      return answer(last);
    },
  };
}

/** What must be the same in every run: everything but the calls' times and the replay flags. */
function essence(r: WorkExtractionResult) {
  return {
    nv_recall: r.nv_recall,
    nv_recall_50: r.nv_recall_50,
    blocks: r.blocks,
    calls: r.calls,
    hits: r.hits,
    stopped: r.stopped,
    untried: r.untried,
    transcript: r.record.transcript_sha256,
    record: r.record.calls.map(({ time: _t, ms: _m, replayed: _r, ...c }) => c),
  };
}

describe('runInRounds', () => {
  it('answers each round in lane order and wakes the lanes one at a time, in lane order', async () => {
    const woken: number[] = [];
    const rounds: number[][] = [];
    await runInRounds<number, number>(
      3,
      async (k, ask) => {
        for (let x = k; x < 7; ) {
          woken.push(k);
          x = await ask(x);
        }
      },
      async (qs) => {
        rounds.push([...qs]);
        return qs.map((q) => q + 3);
      },
    );
    expect(rounds).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(woken).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });
});

describe('an extraction is one answer whatever the concurrency and arrival order', () => {
  it('gives one record at concurrency 1, 4, 8 and 16, answers in shuffled orders', async () => {
    const runs: ReturnType<typeof essence>[] = [];
    for (const [concurrency, seed] of [
      [1, 1],
      [4, 2],
      [4, 3],
      [8, 4],
      [8, 5],
      [16, 6],
      [16, 7],
    ]) {
      const model = memorising(rng(seed));
      const r = await runWorkExtraction(store, { text, model, concurrency, budget_calls: 400 });
      runs.push(essence(r));
    }
    expect(runs[0].nv_recall).toBeGreaterThan(0.45);
    for (const r of runs.slice(1)) expect(r).toEqual(runs[0]);
  });

  it('the same when the budget ends the run in the middle of a round', async () => {
    const a = await runWorkExtraction(store, { text, model: memorising(rng(1)), concurrency: 1, budget_calls: 37 });
    const b = await runWorkExtraction(store, { text, model: memorising(rng(9)), concurrency: 16, budget_calls: 37 });
    expect(a.stopped).toBe('budget');
    expect(essence(b)).toEqual(essence(a));
  });

  it('a run stopped after any number of calls and started again with its journal ends with the same record', async () => {
    const whole = await runWorkExtraction(store, { text, model: memorising(rng(1)), concurrency: 1 });
    const next = rng(42);
    for (let kill = 0; kill < 8; kill++) {
      const journal = memoryExtractionJournal();
      const after = 1 + Math.floor(next() * (whole.calls - 1));
      const stop = new AbortController();
      const base = memorising(rng(100 + kill));
      const stopping: TargetModel = {
        ...base,
        generate: (p, o) => {
          if (base.calls() + 1 >= after) stop.abort(new Error('killed'));
          return base.generate(p, o);
        },
      };
      const concurrency = [1, 4, 8, 16][kill % 4];
      await expect(
        runWorkExtraction(store, { text, model: stopping, concurrency, journal, stop: stop.signal }),
      ).rejects.toThrow('killed');
      const model = memorising(rng(200 + kill));
      const before = journal.size;
      const resumed = await runWorkExtraction(store, { text, model, concurrency: [16, 8, 4, 1][kill % 4], journal });
      expect(essence(resumed)).toEqual(essence(whole));
      // only what the journal did not hold was asked again
      expect(model.calls()).toBe(resumed.calls - resumed.replayed_calls);
      expect(resumed.replayed_calls).toBeGreaterThanOrEqual(before);
      // a finished run started again with its journal makes no call
      const quiet = memorising(rng(300 + kill));
      const again = await runWorkExtraction(store, { text, model: quiet, concurrency: 8, journal });
      expect(quiet.calls()).toBe(0);
      expect(again.record.transcript_sha256).toBe(whole.record.transcript_sha256);
    }
  });
});

describe('the committed long-work model: one digest at concurrency 1, 4, 8 and 16', () => {
  it('replays its answers in shuffled orders and gets the same nv_recall, blocks and digest', async () => {
    const dir = fileURLToPath(new URL('../../models/byte-gpt-long-work/', import.meta.url));
    const read = await readModelDirectory(dir);
    const manifest = read.manifest as unknown as { inserted: Array<{ text: string; times?: number }> };
    const work = manifest.inserted.find((d) => d.times === 16)!.text;
    const real = await loadByteGptModel(read.weights, { id: 'byte-gpt-long-work' });
    // the model's answers, asked once each: greedy decoding gives one answer a prompt, so a run at any
    // concurrency reads the same answers; here they come back after random delays, in shuffled orders
    const answers = new Map<string, Promise<string>>();
    const recorded = (seed: number): TargetModel => {
      const delay = rng(seed);
      return {
        id: real.id,
        access: 'generations_only',
        generate: async (prompt, o) => {
          const key = `${o.maxTokens}\n${prompt}`;
          if (!answers.has(key)) answers.set(key, real.generate(prompt, o));
          const a = await answers.get(key)!;
          await new Promise((r) => setTimeout(r, Math.floor(delay() * 3)));
          return a;
        },
      };
    };
    const runs: ReturnType<typeof essence>[] = [];
    for (const [concurrency, seed] of [
      [1, 1],
      [4, 2],
      [8, 3],
      [16, 4],
    ]) {
      const r = await runWorkExtraction(store, { text: work, model: recorded(seed), concurrency, max_tokens: 256 });
      runs.push(essence(r));
    }
    expect(runs[0].nv_recall).toBeGreaterThanOrEqual(0.95);
    for (const r of runs.slice(1)) expect(r).toEqual(runs[0]);
  }, 600_000);
});

describe('every section is probed before any is probed twice', () => {
  const book = syntheticWork(17, 300, 9);
  const starts = [...book.text.matchAll(/Chapter \d+/g)].map((m) => m.index);
  const sections = starts.map((start, k) => ({ start, end: k + 1 < starts.length ? starts[k + 1] : book.text.length }));
  const blank: TargetModel = {
    id: 'blank',
    access: 'generations_only',
    chat: true,
    generate: async () => 'plain unrelated words of no work at all',
  };

  it('a budget of 100 calls over 17 chapters probes every chapter', async () => {
    const r = await runWorkExtraction(store, { text: book.text, model: blank, sections, budget_calls: 100 });
    expect(r.sections.every((s) => s.probes >= 1)).toBe(true);
    const probed = new Set(r.record.calls.filter((c) => c.phase === 'probe').map((c) => c.position));
    for (const s of sections) expect([...probed].some((p) => p >= s.start && p < s.end)).toBe(true);
  });

  it('a budget that cannot probe every chapter says budget and lists the probes it left untried', async () => {
    const r = await runWorkExtraction(store, { text: book.text, model: blank, sections, budget_calls: 10 });
    expect(r.stopped).toBe('budget');
    expect(r.untried.probes.length).toBe(7);
    // the ten calls are the first probe of ten chapters, not three templates of four
    expect(new Set(r.record.calls.map((c) => c.position)).size).toBe(10);
  });
});
