/**
 * What a model that does not answer the question leaves: refusals are counted, kept out of extract's share and named
 * in the limitations (`model_refused_prompts`, in an assessment too), and a model that gives no log-probabilities
 * fails the probe and the canary test instead of reading as "not significant" or "not detected".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import type { TargetModel } from '../../src/models/types.js';
import { NgramLanguageModel } from '../../src/models/ngram.js';
import { Memorization } from '../../src/services/memorization/memorization.js';
import { membershipSplit } from '../fixtures/memorization/http.js';

const split = membershipSplit();
/** A model whose logprobs answer holds none (a backend that scores nothing of the text). */
const silent: TargetModel = {
  id: 'silent',
  access: 'logprobs',
  generate: async () => 'plain words of no work',
  logprobs: async () => ({ tokens: [], logprobs: [] }),
};

describe('a model that does not answer', () => {
  let engine: Engine;
  let mem: Memorization;
  beforeAll(async () => {
    engine = await createEngine();
    mem = new Memorization(engine);
  });

  it('extract: refusals are counted and left out of the extractable share', async () => {
    const text = split.members[0].text;
    const refuser: TargetModel = {
      id: 'refuser',
      access: 'generations_only',
      generate: async () => "I'm sorry, but I can't reproduce copyrighted text.",
    };
    const r = await mem.extract({ model: refuser, text });
    expect(r.summary).toMatchObject({ attempts: 16, refusals: 16, extractable: { count: 0, share: 0, ci_95: [0, 1] } });
    expect(r.attempts.every((a) => a.refused === true)).toBe(true);
    // the result says so: a refusal is no evidence of absence
    expect(r.limitations).toContain('model_refused_prompts');
    // a model that continues the work is never taken for a refusal
    const copier = NgramLanguageModel.train(Array<string>(6).fill(text), { order: 4 }).asTargetModel({ id: 'copier' });
    const c = await mem.extract({ model: copier, text, prefixes: 4 });
    expect(c.summary.refusals).toBe(0);
    expect(c.limitations).not.toContain('model_refused_prompts');
    expect(c.attempts.some((a) => 'refused' in a)).toBe(false);
    expect(c.summary.mean_exact_continuation_tokens).toBeGreaterThan(10);
  });

  it('probe: no log-probabilities is an upstream error, not "not significant"', async () => {
    const texts = split.members.slice(0, 3).map((d) => d.text);
    const reference = { texts: split.reference.slice(0, 5).map((d) => d.text) };
    await expect(mem.probe({ model: silent, texts, reference, chunk_tokens: 64 })).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
    });
    const lm = NgramLanguageModel.train(split.background.slice(0, 4).map((d) => d.text)).asTargetModel({ id: 'lm' });
    await expect(
      mem.probe({ model: lm, reference_model: silent, texts, reference, chunk_tokens: 64 }),
    ).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
  });

  it('assess: canaries without log-probabilities are an upstream error, not "not detected"', async () => {
    const w = await mem.registerWork({
      work: { content: split.members[1].text, owner: 'o', title: 'Traps' },
      canaries: { count: 5 },
    });
    await expect(mem.assess({ work_id: w.work_id, model: silent, extract: false })).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
    });
  });

  it('assess: a model that refuses every prompt is no evidence of absence, and the limitations say so', async () => {
    const w = await mem.registerWork({ work: { content: split.members[2].text, owner: 'o', title: 'Refused' } });
    const refuser: TargetModel = {
      id: 'refuser',
      access: 'generations_only',
      generate: async () => "I'm sorry, but I can't reproduce copyrighted text.",
    };
    const a = await mem.assess({ work_id: w.work_id, model: refuser, extract: { prefixes: 4 } });
    expect(a.extraction?.summary).toMatchObject({ attempts: 4, refusals: 4, verified: 0 });
    expect(a.limitations).toContain('model_refused_prompts');
    expect(a.summary.join(' ')).toContain('4 refused');
  });
});
