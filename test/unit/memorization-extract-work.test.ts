/**
 * The measure of work extraction: refusal detection, the in-order check anyone can redo, chains that never credit
 * the prompt's words, blocks merged across small edits and split across large gaps, and input checks (typed errors).
 */
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import type { TargetModel } from '../../src/models/types.js';
import type { MemorizationDeps } from '../../src/services/memorization/deps.js';
import { Memorization } from '../../src/services/memorization/memorization.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import {
  chainIn,
  inOrderShare,
  nearVerbatimBlocks,
  RunIndex,
  type AlignedOutput,
} from '../../src/services/memorization/nv-blocks.js';
import { isRefusal } from '../../src/services/memorization/refusal.js';
import { wordSpans } from '../../src/services/memorization/text.js';
import { MemoryStore } from '../../src/store/memory.js';
import { syntheticWork } from '../fixtures/memorised-chat-server.js';

const { text, words } = syntheticWork(1, 600, 11);
const work = wordSpans(text);
const index = new RunIndex(work.tokens);

/** An output that reproduces work words [a, b) as written, with `edit(i)` words replaced by 'xqz'. */
function output(a: number, b: number, edit: (i: number) => boolean = () => false): string {
  // words[] includes the heading's two words, as work.tokens does
  return words
    .slice(a, b)
    .map((w, k) => (edit(a + k) ? 'xqz' : w))
    .join(' ');
}

function aligned(call: number, out: string, from: number): AlignedOutput {
  const spans = wordSpans(out);
  return { call, text: out, spans, runs: chainIn(index, spans.tokens, from, work.tokens.length) };
}

describe('isRefusal', () => {
  it.each([
    "I'm sorry, but I can't help with that.",
    'I cannot reproduce copyrighted material.',
    'Sorry — that text is protected.',
    'As an AI language model, I will not output the rest.',
    'Here is a summary instead: I can’t provide the verbatim text of this copyrighted book.',
  ])('reads %j as a refusal', (s) => expect(isRefusal(s)).toBe(true));
  it.each(['', 'the rain fell on the roofs', 'He said he could not go; the night was cold.'])('reads %j as text', (s) =>
    expect(isRefusal(s)).toBe(false),
  );
});

describe('inOrderShare', () => {
  it('counts the span words found in order, case-insensitively', () => {
    expect(inOrderShare('It was the best of times', 'it WAS the best of all times')).toBe(1);
    expect(inOrderShare('a b c d', 'd c b a')).toBe(0.25);
    expect(inOrderShare('a b c d e f g h i j', 'a b c x e f g h i j')).toBe(0.9);
    expect(inOrderShare('', 'a')).toBe(0);
  });
});

describe('chainIn', () => {
  it('never credits words before the window (the prompt)', () => {
    const out = output(100, 200);
    const chain = chainIn(index, wordSpans(out).tokens, 150, work.tokens.length);
    expect(chain.length).toBeGreaterThan(0);
    expect(Math.min(...chain.map((r) => r.work_token))).toBe(150);
    expect(chain.reduce((t, r) => t + r.tokens, 0)).toBe(50);
  });
});

describe('nearVerbatimBlocks', () => {
  it('merges runs across single-word edits into one block with exact spans that pass the in-order check', () => {
    const out = output(100, 300, (i) => i % 41 === 7);
    const blocks = nearVerbatimBlocks(text, work, [aligned(0, out, 100)], 50);
    expect(blocks).toHaveLength(1);
    const [b] = blocks;
    expect(b.start).toBe(work.starts[100]);
    expect(b.end).toBe(work.ends[299]);
    expect(b.words).toBe(200);
    expect(b.reproduced_words).toBe(200 - [...Array(200).keys()].filter((k) => (100 + k) % 41 === 7).length);
    expect(inOrderShare(text.slice(b.start, b.end), b.generated)).toBeGreaterThanOrEqual(0.9);
    expect(b.calls).toEqual([0]);
  });

  it('joins the outputs of several calls and splits at a large gap', () => {
    const outs = [
      aligned(0, output(100, 180), 100),
      aligned(1, output(180, 260), 180),
      aligned(2, output(300, 420), 300),
    ];
    const blocks = nearVerbatimBlocks(text, work, outs, 50);
    expect(blocks.map((b) => [b.words, b.calls])).toEqual([
      [160, [0, 1]],
      [120, [2]],
    ]);
    for (const b of blocks) expect(inOrderShare(text.slice(b.start, b.end), b.generated)).toBeGreaterThanOrEqual(0.9);
  });

  it('drops a block too sparse to be near-verbatim (edits every 4th word)', () => {
    const out = output(100, 300, (i) => i % 4 === 0);
    expect(nearVerbatimBlocks(text, work, [aligned(0, out, 100)], 50)).toEqual([]);
  });

  it('finds nothing in unrelated text', () => {
    const out = 'zu fex wob nix jor yum cly ost '.repeat(30);
    expect(nearVerbatimBlocks(text, work, [aligned(0, out, 0)], 50)).toEqual([]);
  });
});

describe('extractWork input checks (the request read through its contract)', () => {
  const store = new MemoryStore();
  const memorization = new Memorization({ store } as unknown as MemorizationDeps);
  const model: TargetModel = { id: 'echo', access: 'generations_only', generate: async () => 'nothing' };
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      expect(e).toBeInstanceOf(TrainprintError);
      return (e as TrainprintError).code;
    }
    return 'resolved';
  };
  it.each([
    ['budget_calls 0', { budget_calls: 0 }, 'INVALID_INPUT'],
    ['budget_calls 1.5', { budget_calls: 1.5 }, 'INVALID_INPUT'],
    ['prefix_words 2', { prefix_words: 2 }, 'INVALID_INPUT'],
    ['max_tokens 1e9', { max_tokens: 1e9 }, 'INVALID_INPUT'],
    ['concurrency 0', { concurrency: 0 }, 'INVALID_INPUT'],
    ['not a model', { model: { id: 'x' } }, 'INVALID_INPUT'],
    ['empty text', { text: '' }, 'INVALID_INPUT'],
    ['too short a work', { text: 'too short a work' }, 'INVALID_INPUT'],
    ['sections reversed', { sections: [{ start: 10, end: 5 }] }, 'INVALID_INPUT'],
    ['sections past the end', { sections: [{ start: 0, end: text.length + 1 }] }, 'INVALID_INPUT'],
    ['unknown field', { surprise: 1 }, 'INVALID_INPUT'],
    ['negative price', { prices: { prompt_per_million: -1, completion_per_million: 1 } }, 'INVALID_INPUT'],
    ['prices not an object', { prices: 3 }, 'INVALID_INPUT'],
    [
      'prices with an unknown field',
      { prices: { prompt_per_million: 1, completion_per_million: 1, x: 1 } },
      'INVALID_INPUT',
    ],
  ])('%s → %s', async (_label, change, expected) => {
    expect(await code(memorization.extractWork({ text, model, ...change } as never))).toBe(expected);
  });

  it('a model that fails every call gives a result that says so: stopped upstream_errors, the error, the calls', async () => {
    const failing: TargetModel = {
      id: 'down',
      access: 'generations_only',
      generate: async () => {
        throw new TrainprintError('UPSTREAM_ERROR', 'https://m.example/v1/completions: status 404: "no such model"');
      },
    };
    const r = await runWorkExtraction(store, { text, model: failing, budget_calls: 10 });
    expect(r.stopped).toBe('upstream_errors');
    expect(r.error).toEqual({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('"no such model"') });
    expect(r.calls).toBe(3);
    expect(r.failed_calls).toBe(3);
    expect(r.nv_recall).toBe(0);
    // a budget smaller than the failing streak: every call failed, so not 'budget' but the same as a streak
    const short = await runWorkExtraction(store, { text, model: failing, budget_calls: 2 });
    expect(short.stopped).toBe('upstream_errors');
    expect(short.error?.code).toBe('UPSTREAM_ERROR');
    expect(short.failed_calls).toBe(short.calls);
    expect(short.calls).toBeGreaterThan(0);
  });

  it('refuses, before any call, a budget whose result could grow past the bound', async () => {
    expect(await code(runWorkExtraction(store, { text, model, budget_calls: 1_000_000 }))).toBe('PAYLOAD_TOO_LARGE');
  });
});
