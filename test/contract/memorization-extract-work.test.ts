/**
 * extractWork against a real OpenAI-compatible server on 127.0.0.1 (test/fixtures/memorised-chat-server.ts) that
 * memorised one stretch of a work: nv_recall close to the held share, every block inside the held stretch and
 * checkable (≥ 90 % of its words in order in `generated`), refusals counted and never aligned, the budget never
 * exceeded (the server's own count), a model that memorised nothing → 0, and the completions API as well as chat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import type { GenerateOptions } from '../../src/models/types.js';
import { inOrderShare } from '../../src/services/memorization/nv-blocks.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import { wordSpans } from '../../src/services/memorization/text.js';
import { MemoryStore } from '../../src/store/memory.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const { text, words } = syntheticWork(3, 1000, 7);
const work = wordSpans(text);
const n = work.tokens.length;
// the held stretch: words 1200..2200 of the work (a third), across the second chapter's heading
const held: [number, number] = [1200, 2200];
const store = new MemoryStore();
let memo: MemorisedServer;
let blank: MemorisedServer;

beforeAll(async () => {
  expect(words.length).toBe(n); // the fixture's words are the engine's word tokens, one for one
  memo = await startMemorisedServer({ words, held });
  blank = await startMemorisedServer({ words, held: [0, 0] });
});

afterAll(async () => {
  await memo?.close();
  await blank?.close();
});

const chat = (s: MemorisedServer) =>
  createOpenAICompatibleModel({ baseUrl: s.baseUrl, model: 'fixture-memo-1', api: 'chat', maxRetries: 0 });

describe('extractWork against a chat model that memorised a stretch', () => {
  it('measures nv_recall close to the held share, with checkable blocks inside the stretch', async () => {
    const before = memo.requests();
    const r = await runWorkExtraction(store, { text, model: chat(memo), budget_calls: 400 });
    const share = (held[1] - held[0]) / n;
    console.log(
      `held share ${share.toFixed(4)}, nv_recall ${r.nv_recall}, calls ${r.calls}, refusals ${r.refusals}, blocks ${r.blocks.length}`,
    );
    expect(r.nv_recall).toBeGreaterThan(share - 0.05);
    expect(r.nv_recall).toBeLessThanOrEqual(share + 0.001);
    expect(r.blocks.length).toBeGreaterThan(0);
    for (const b of r.blocks) {
      expect(b.start).toBeGreaterThanOrEqual(work.starts[held[0]]);
      expect(b.end).toBeLessThanOrEqual(work.ends[held[1] - 1]);
      // the check anyone can redo: ≥ 90 % of the span's whitespace words, lower-cased, in order in `generated`
      expect(inOrderShare(text.slice(b.start, b.end), b.generated)).toBeGreaterThanOrEqual(0.9);
      expect(b.calls.length).toBeGreaterThan(0);
      expect(b.prompt.length).toBeGreaterThan(0);
    }
    // every call counted and recorded in order, the server's count the same
    expect(r.calls).toBe(memo.requests() - before);
    expect(r.calls).toBeLessThanOrEqual(400);
    expect(r.record.calls.map((c) => c.id)).toEqual([...Array(r.calls).keys()]);
    const lines = r.record.calls.map((c) => `${c.id} ${c.request_sha256} ${c.answer_sha256 ?? '-'}\n`).join('');
    expect(r.record.transcript_sha256).toBe(createHash('sha256').update(lines).digest('hex'));
    expect(r.record.calls.every((c) => c.model === 'fixture-memo-1')).toBe(true);
    expect(r.usage?.calls_reporting).toBe(r.calls);
    expect(r.cost).toBeNull();
    expect(r.stopped).toBe('done');
    // the second section holds most of the stretch
    expect(r.sections).toHaveLength(1);
    expect(r.hits).toBeGreaterThan(0);
  });

  it("counts refusals and never aligns them; prices the tokens by the caller's table", async () => {
    const prices = { prompt_per_million: 2.5, completion_per_million: 10, currency: 'USD' };
    const r = await runWorkExtraction(store, { text, model: chat(memo), budget_calls: 400, prices });
    const u = r.usage!;
    expect(r.cost).toEqual({
      amount: Math.round(u.prompt_tokens * 2.5 + u.completion_tokens * 10) / 1e6,
      currency: 'USD',
      calls_priced: r.calls,
    });
    expect(r.refusals).toBeGreaterThan(0);
    const refused = r.record.calls.filter((c) => c.refused);
    expect(refused.length).toBe(r.refusals);
    expect(refused.every((c) => c.reproduced_words === 0)).toBe(true);
    for (const b of r.blocks) expect(b.generated).not.toMatch(/sorry/i);
  });

  it('stops at the budget with a partial answer that says what was not tried', async () => {
    const before = memo.requests();
    const r = await runWorkExtraction(store, { text, model: chat(memo), budget_calls: 5, probes: 12, concurrency: 3 });
    expect(memo.requests() - before).toBe(5);
    expect(r.calls).toBe(5);
    expect(r.stopped).toBe('budget');
    expect(r.untried.probes.length + r.untried.loops.length).toBeGreaterThan(0);
  });

  it('spreads the probes over the sections it is given and reports each', async () => {
    const at = (w: number) => work.starts[w];
    const sections = [
      { start: 0, end: at(1001), title: 'One' },
      { start: at(1001), end: at(2002), title: 'Two' },
      { start: at(2002), end: text.length, title: 'Three' },
    ];
    const r = await runWorkExtraction(store, { text, model: chat(memo), budget_calls: 400, sections });
    expect(r.sections.map((s) => s.title)).toEqual(['One', 'Two', 'Three']);
    expect(r.sections.every((s) => s.probes >= 3)).toBe(true);
    // held words 1200..2200: none of the first section, ~800 of the second's 1001, ~198 of the third's
    expect(r.sections[0].nv_recall).toBe(0);
    expect(r.sections[1].nv_recall).toBeGreaterThan(0.75);
    expect(r.sections[2].nv_recall).toBeGreaterThan(0.15);
    expect(r.sections[2].nv_recall).toBeLessThanOrEqual(0.2);
  });
});

describe('extractWork against a rate-limited API that refuses in its own field', () => {
  it('honours 429 + Retry-After inside each call, counts API refusals, and measures the same', async () => {
    const server = await startMemorisedServer({ words, held, rateLimitEvery: 5, apiRefusals: true });
    try {
      const model = createOpenAICompatibleModel({
        baseUrl: server.baseUrl,
        model: 'fixture-memo-1',
        api: 'chat',
        retryBaseMs: 0,
      });
      const r = await runWorkExtraction(store, { text, model, budget_calls: 400 });
      expect(server.rateLimited()).toBeGreaterThan(0);
      // a call retried after a 429 is one call: the budget counts calls, the API saw the retries too
      expect(r.calls).toBe(server.requests());
      expect(r.failed_calls).toBe(0);
      expect(r.refusals).toBe(server.refusals());
      expect(r.refusals).toBeGreaterThan(0);
      expect(r.nv_recall).toBeGreaterThan((held[1] - held[0]) / n - 0.05);
    } finally {
      await server.close();
    }
  });

  it('stops with a partial answer when calls keep failing after a first success', async () => {
    const server = await startMemorisedServer({ words, held });
    const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl, model: 'm', api: 'chat', maxRetries: 0 });
    let calls = 0;
    const flaky = {
      ...model,
      generateCall: (prompt: string, o: GenerateOptions) =>
        ++calls <= 2 ? model.generateCall!(prompt, o) : server.close().then(() => model.generateCall!(prompt, o)),
    };
    const r = await runWorkExtraction(store, { text, model: flaky, budget_calls: 50, concurrency: 1 });
    expect(r.stopped).toBe('upstream_errors');
    expect(r.failed_calls).toBe(3);
    expect(r.calls).toBe(5);
    // the server closed: its calls fail as unreachable (the URL only, not the socket's error)
    expect(r.record.calls.slice(2).every((c) => c.error === 'UPSTREAM_UNREACHABLE' && c.response_sha256 === null)).toBe(
      true,
    );
    expect(r.untried.probes.length).toBeGreaterThan(0);
  });
});

describe('extractWork against models that memorised nothing', () => {
  it('a chat model answering unrelated text: nv_recall 0, no block', async () => {
    const r = await runWorkExtraction(store, { text, model: chat(blank), budget_calls: 100 });
    expect(r.nv_recall).toBe(0);
    expect(r.nv_recall_50).toBe(0);
    expect(r.blocks).toEqual([]);
    expect(r.hits).toBe(0);
  });

  it('the completions API as well', async () => {
    const model = createOpenAICompatibleModel({ baseUrl: memo.baseUrl, model: 'fixture-memo-1', topLogprobs: 0 });
    const r = await runWorkExtraction(store, { text, model, budget_calls: 400 });
    expect(r.nv_recall).toBeGreaterThan((held[1] - held[0]) / n - 0.05);
  });
});
