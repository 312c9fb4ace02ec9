/**
 * Memorization operations, end to end over real HTTP: a Kneser-Ney n-gram LM trained on known
 * book sections (test/fixtures/texts) is served as an OpenAI-compatible endpoint on 127.0.0.1 and reached
 * through `createOpenAICompatibleModel`. The acceptance experiments: with the LM trained on the
 * member documents the probe separates them from held-out documents of the same genres and
 * extraction recovers the memorised text; with an LM trained on other text the probe finds
 * nothing — the statistics do not invent evidence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { Memorization } from '../../src/services/memorization/memorization.js';
import { createNgramHandler } from '../../src/models/ngram-server.js';
import { NgramLanguageModel } from '../../src/models/ngram.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import type { TargetModel } from '../../src/models/types.js';
import { membershipSplit, serveFetchHandler, type Served } from '../fixtures/memorization/http.js';

const split = membershipSplit();
const texts = (ds: ReadonlyArray<{ text: string }>) => ds.map((d) => d.text);

let engine: Engine;
let mem: Memorization;
const servers: Served[] = [];
let memberModel: TargetModel, otherModel: TargetModel, memberChat: TargetModel;

/** Serve an LM over HTTP and return the adapter to it. */
async function served(
  lm: NgramLanguageModel,
  name: string,
  api: 'completions' | 'chat' = 'completions',
): Promise<TargetModel> {
  const s = await serveFetchHandler(createNgramHandler(lm, { model: name, apiKey: `key-${name}` }));
  servers.push(s);
  return createOpenAICompatibleModel({
    baseUrl: `${s.url}/v1`,
    apiKey: `key-${name}`,
    model: name,
    api,
    topLogprobs: 5,
    id: `${name}${api === 'chat' ? ' (chat)' : ''}`,
  });
}

beforeAll(async () => {
  engine = await createEngine();
  mem = new Memorization(engine);
  // both LMs see 51 distinct documents; only the member LM sees the members (once) and the popular text (six times)
  const member = NgramLanguageModel.train(
    [...texts(split.background), ...texts(split.members), ...Array(6).fill(split.popular.text)],
    { order: 4 },
  );
  const other = NgramLanguageModel.train([...texts(split.background), ...texts(split.other)], { order: 4 });
  memberModel = await served(member, 'ngram-members');
  otherModel = await served(other, 'ngram-other');
  memberChat = await served(member, 'ngram-members-chat', 'chat');
  await mem.addReferenceSet({
    id: 'held-out-sections',
    texts: texts(split.reference),
    basis: 'randomized_split',
    description: 'book sections dealt at random (seeded, within book) away from the members; never trained on',
  });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('acceptance: probe', () => {
  it('LM trained on the members: the probe separates them from matched non-members (AUC ≥ 0.9, p < 0.01)', async () => {
    const r = await mem.probe({
      model: memberModel,
      texts: texts(split.members),
      reference: { reference_set: 'held-out-sections' },
    });
    console.log(
      'member LM probe',
      r.verdict,
      r.n_chunks,
      r.statistics.map(
        (s) =>
          `${s.name} auc ${s.auc} [${s.auc_ci_95}] p ${s.document_test?.p_value} p_holm ${s.document_test?.p_holm} mw ${s.mann_whitney.p_value}`,
      ),
    );
    expect(r.access).toBe('top_k');
    expect(r.distribution).toBe('top_k');
    expect(r.verdict).toBe('significant');
    expect(r.reference).toEqual({
      source: 'reference_set',
      id: 'held-out-sections',
      basis: 'randomized_split',
      matched: true,
    });
    expect(r.limitations).not.toContain('distribution_shift_risk');
    expect(r.n_documents).toEqual({ suspect: 10, reference: 10 });
    for (const s of r.statistics) {
      expect(s.auc).toBeGreaterThanOrEqual(0.9);
      expect(s.document_test!.p_holm).toBeLessThan(0.01);
      expect(s.significant).toBe(true);
    }
    expect(r.statistics.map((s) => s.name)).toEqual(['loss', 'zlib_ratio', 'min_k', 'min_k_plus_plus']);
    expect(r.statistics[3].approximate).toBe(true); // top-5 over HTTP
    expect(r.statement).toMatch(/set-level evidence/);
  });

  it('LM trained on other text: AUC ≈ 0.5 and not significant — and it says so', async () => {
    const r = await mem.probe({
      model: otherModel,
      texts: texts(split.members),
      reference: { reference_set: 'held-out-sections' },
    });
    console.log(
      'other LM probe',
      r.verdict,
      r.statistics.map(
        (s) =>
          `${s.name} auc ${s.auc} [${s.auc_ci_95}] p ${s.document_test?.p_value} p_holm ${s.document_test?.p_holm} mw ${s.mann_whitney.p_value}`,
      ),
    );
    expect(r.verdict).toBe('not_significant');
    for (const s of r.statistics) {
      expect(s.auc).toBeGreaterThanOrEqual(0.35);
      expect(s.auc).toBeLessThanOrEqual(0.65);
      expect(s.significant).toBe(false);
      expect(s.auc_ci_95[0]).toBeLessThan(0.5);
      expect(s.auc_ci_95[1]).toBeGreaterThan(0.5);
    }
    expect(r.statement).toMatch(/not evidence that the model did not train/);
  });
});

describe('acceptance: extract', () => {
  it('recovers memorised continuations from the member LM, not from the other LM', async () => {
    const w = await engine.registerWork({
      content: split.popular.text,
      owner: 'press',
      title: `Section ${split.popular.id}`,
      work_type: 'article',
    });
    const hit = await mem.extract({ model: memberModel, work_id: w.work_id, prefixes: 12 });
    console.log(
      'member LM extract',
      hit.summary,
      hit.attempts.map((a) => a.exact_continuation_tokens),
    );
    expect(hit.summary.verified).toBeGreaterThanOrEqual(3);
    expect(hit.factors).toEqual(['verbatim_extraction_verified']);
    const v = hit.attempts.find((a) => a.verified)!;
    const work = split.popular.text;
    // the span really is the same words in the work and in the output
    const norm = (s: string) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim();
    expect(norm(work.slice(v.longest_match!.work_start, v.longest_match!.work_end))).toBe(
      norm(v.output.slice(v.longest_match!.output_start, v.longest_match!.output_end)),
    );
    expect(v.longest_match!.work_start).toBeGreaterThanOrEqual(v.prefix_end);

    const miss = await mem.extract({ model: otherModel, work_id: w.work_id, prefixes: 12 });
    console.log('other LM extract', miss.summary);
    expect(miss.summary.verified).toBe(0);
    expect(miss.factors).toEqual([]);
    expect(miss.summary.longest_match_tokens).toBeLessThan(20);
  });

  it('works with generations only (chat); the probe then reports no_logprob_access', async () => {
    const r = await mem.extract({ model: memberChat, text: split.popular.text, prefixes: 4 });
    expect(r.access).toBe('generations_only');
    expect(r.summary.verified).toBeGreaterThanOrEqual(1);
    const p = await mem.probe({
      model: memberChat,
      text: split.popular.text,
      reference: { reference_set: 'held-out-sections' },
    });
    expect(p.verdict).toBe('not_applicable');
    expect(p.limitations).toContain('no_logprob_access');
  });
});

describe('probe refusals', () => {
  it('no verdict below the minimum number of chunks; ad-hoc reference texts carry distribution_shift_risk', async () => {
    const head = (t: string) => t.slice(0, 3500);
    const short = split.members[0].text.slice(0, 3000);
    const r = await mem.probe({
      model: memberModel,
      text: short,
      reference: { texts: texts(split.reference).slice(0, 6).map(head) },
    });
    expect(r.n_chunks.suspect).toBeLessThan(20);
    expect(r.n_documents.reference).toBe(6);
    expect(r.verdict).toBe('insufficient_data');
    expect(r.limitations).toEqual(expect.arrayContaining(['short_text_low_power', 'distribution_shift_risk']));
    expect(r.reference.matched).toBe(false);
    for (const s of r.statistics) {
      expect(s.document_test).toBeNull();
      expect(s.mann_whitney.p_value).toBeNull();
    }
    expect(r.statement).toMatch(/Too little text for a verdict/);
    // too few reference documents: no verdict either, however many chunks
    const few = await mem.probe({
      model: memberModel,
      texts: texts(split.members).slice(0, 2),
      reference: { texts: texts(split.reference).slice(0, 3) },
      chunk_tokens: 64,
    });
    expect(few.n_chunks.suspect).toBeGreaterThanOrEqual(20);
    expect(few.n_chunks.reference).toBeGreaterThanOrEqual(20);
    expect(few.verdict).toBe('insufficient_data');
  });
});
