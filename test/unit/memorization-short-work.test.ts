/**
 * The short-work probe (short-work.ts): a work under 58 words is asked in splits — a prompt of its first words, a hit
 * when the model writes out all the rest verbatim and the rest could not be written by chance (≥ 20 words, or a
 * number of ≥ 10 digits). A canary the model saw is reproduced; a never-seen canary of the same template is not,
 * though the model writes the template out (with the number it learnt); a short line with neither is too short.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import { auditCatalogue } from '../../src/services/memorization/audit.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import { restWrittenOut, shortWorkSplits } from '../../src/services/memorization/short-work.js';
import { wordSpans } from '../../src/services/memorization/text.js';
import { MemoryStore } from '../../src/store/memory.js';

const store = new MemoryStore();
const seen = 'Record 00: the combination of the archive safe is 072518763196, and it is never written down.';
const unseen = 'Record 16: the combination of the archive safe is 898788834622, and it is never written down.';
const plainLine = 'A short line of verse, with nothing in it that a model could not guess.';
const poem = Array.from({ length: 34 }, (_, k) => `w${k}`).join(' ');

/**
 * A model that learnt `seen` and the shape of its sentence: any prompt that opens like it is continued with the seen
 * sentence's own characters from where the prompt stops (so its number, whatever record the prompt names); the poem's
 * opening is continued with the poem; anything else with unrelated words. `preface` comes first in every answer.
 */
function learnt(preface = '', delay = () => 0): TargetModel {
  const poemWords = poem.split(' ');
  return {
    id: 'learnt',
    access: 'generations_only',
    async generate(prompt: string, _o: GenerateOptions) {
      await new Promise((r) => setTimeout(r, delay()));
      const p = prompt.trim().split(/\s+/);
      if (p[0] === 'Record') return `${preface}${seen.slice(prompt.trim().length)}`;
      if (p[0] === 'w0') return `${preface}${poemWords.slice(p.length).join(' ')}`;
      return `${preface}the weather was mild and nothing else happened`;
    },
  };
}

describe('the splits of a short work', () => {
  it('asks the longest prompt whose rest counts first, then the shortest, then those between by halving', () => {
    const splits = (text: string) => shortWorkSplits(wordSpans(text), text).map((x) => [x.words, x.digits]);
    // into the 12-digit number by 2 and 1 digits (10 stay in the rest), before it, then one word, then by halving
    expect(splits(seen)).toEqual([
      [9, 2],
      [9, 1],
      [9, 0],
      [1, 0],
      [5, 0],
      [7, 0],
      [3, 0],
      [8, 0],
      [6, 0],
      [4, 0],
      [2, 0],
    ]);
    // 34 words, no number: the rest must be ≥ 20 words, so prompts of 1..14 words
    const s = splits(poem).map(([w]) => w);
    expect(s.slice(0, 3)).toEqual([14, 1, 7]);
    expect([...s].sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, k) => k + 1));
    // under 21 words and no 10-digit number: nothing could be told from chance
    expect(splits(plainLine)).toEqual([]);
    expect(splits('Call 555 0100 1234 today, ask for the manager.')).toEqual([]);
    // a number of exactly 10 digits: no prompt ends inside it; one of 14 digits: at most 3 digits in the prompt
    expect(splits('Serial 0123456789 of the unit.')).toEqual([[1, 0]]);
    expect(splits('Serial 01234567890123 of the unit.').slice(0, 4)).toEqual([
      [1, 3],
      [1, 2],
      [1, 1],
      [1, 0],
    ]);
  });

  it('the rest written out: whole, one exact run, within the first 40 words of the answer', () => {
    const work = wordSpans(seen).tokens;
    expect(restWrittenOut(work, 9, wordSpans('072518763196, and it is never written down.').tokens)).toBe(0);
    expect(restWrittenOut(work, 9, wordSpans('Sure: 072518763196, and it is never written down').tokens)).toBe(1);
    // one word short, or another number: not written out
    expect(restWrittenOut(work, 9, wordSpans('072518763196, and it is never written').tokens)).toBe(-1);
    expect(restWrittenOut(work, 9, wordSpans('072518763197, and it is never written down.').tokens)).toBe(-1);
    const far = `${'so '.repeat(41)}072518763196 and it is never written down`;
    expect(restWrittenOut(work, 9, wordSpans(far).tokens)).toBe(-1);
    // after a prompt that ends with the number's first two digits: its other ten, or the whole number, then the words
    expect(restWrittenOut(work, 9, wordSpans('2518763196, and it is never written down.').tokens, 2)).toBe(0);
    expect(restWrittenOut(work, 9, wordSpans('072518763196, and it is never written down.').tokens, 2)).toBe(0);
    expect(restWrittenOut(work, 9, wordSpans('2518763197, and it is never written down.').tokens, 2)).toBe(-1);
  });
});

describe('extractWork of a short work', () => {
  it('a seen canary: reproduced from the shortest prompt that hit, nv_recall the share written out', async () => {
    const r = await runWorkExtraction(store, { text: seen, model: learnt(), concurrency: 4 });
    expect(r.short_work).toBe(true);
    expect(r.calls).toBe(11);
    expect(r.hits).toBe(11);
    // from a one-word prompt the model wrote the other 15 words
    expect([r.nv_recall, r.nv_recall_50]).toEqual([0.9375, 0.9375]);
    expect(r.blocks).toHaveLength(1);
    expect(seen.slice(r.blocks[0].start, r.blocks[0].end)).toBe(
      '00: the combination of the archive safe is 072518763196, and it is never written down',
    );
    expect(r.blocks[0].in_order_share).toBe(1);
    expect(r.method).toMatch(/short-work probe/);
  });

  it('a never-seen canary of the same template: not reproduced, though every answer writes the template out', async () => {
    const r = await runWorkExtraction(store, { text: unseen, model: learnt() });
    expect(r.short_work).toBe(true);
    expect([r.calls, r.hits, r.nv_recall, r.blocks.length]).toEqual([11, 0, 0, 0]);
    // the one-word prompt's answer writes 13 of the 15 words after it (all but the record's and the safe's numbers):
    // the aligner finds them, and a hit needs them all
    expect(Math.max(...r.record.calls.map((c) => c.reproduced_words))).toBe(13);
  });

  it('a refusal sentence before the rest still counts; the budget bounds the splits asked', async () => {
    const preface = "I'm sorry, but I can't continue that text. ";
    const r = await runWorkExtraction(store, { text: seen, model: learnt(preface), budget_calls: 2, probes: 9 });
    expect([r.calls, r.hits, r.refusals, r.stopped]).toEqual([2, 2, 0, 'budget']);
    // the two prompts into the number: the rest from its second digit (the shorter prompt), 6 whole words of 16
    expect(r.nv_recall).toBe(0.375);
    expect([r.blocks[0].words, r.record.calls[0].reproduced_words]).toEqual([6, 6]);
    expect(seen.slice(r.blocks[0].start, r.blocks[0].end)).toBe('72518763196, and it is never written down');
    expect(r.untried.probes.length).toBe(7);
  });

  it('a short line with no split that counts is refused with a typed error', async () => {
    await expect(runWorkExtraction(store, { text: plainLine, model: learnt() })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('one answer whatever the concurrency and the order answers arrive in', async () => {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % 5) as number;
    const a = await runWorkExtraction(store, { text: poem, model: learnt('', rnd), concurrency: 1 });
    const b = await runWorkExtraction(store, { text: poem, model: learnt('', rnd), concurrency: 8 });
    expect(a.nv_recall).toBe(round(33 / 34));
    expect(b.record.transcript_sha256).toBe(a.record.transcript_sha256);
    expect(b.blocks).toEqual(a.blocks);
  });
});

const round = (x: number) => Math.round(x * 10_000) / 10_000;

describe('the audit of short works', () => {
  it('seen canaries reproduced, never-seen not (with the miss chance), a line with no distinctive rest too short', async () => {
    const works = [
      { id: 'seen', text: seen },
      { id: 'unseen', text: unseen },
      { id: 'line', text: plainLine },
      { id: 'poem', text: poem },
    ];
    const r = await auditCatalogue({ model: learnt(), works, budget_calls: 100, first_probes: 3 });
    expect(r.works.map((w) => [w.id, w.verdict, w.short_work ?? false])).toEqual([
      ['seen', 'reproduced', true],
      ['unseen', 'not_found', true],
      ['line', 'too_short', false],
      ['poem', 'reproduced', true],
    ]);
    const [s, u, l, p] = r.works;
    // the first pass asked 3 splits, the measurement every split (the first three replayed, not paid twice)
    expect([s.probes, s.calls, s.nv_recall]).toEqual([11, 11, 0.9375]);
    expect([u.probes, u.calls, u.miss_probability]).toEqual([3, 3, 0.125]);
    expect([l.probes, l.calls]).toEqual([0, 0]);
    expect([p.probes, p.nv_recall]).toEqual([14, round(33 / 34)]);
    expect(r.catalogue).toMatchObject({ works: 4, measured: 3, reproduced: 2 });
    expect(r.calls).toBe(11 + 3 + 14);
  });
});
