/**
 * Memorization building blocks: the two-sample statistics against brute force and known values,
 * the false-positive rate of the probe's document-level test on real non-member text, reference
 * sets, compare (model output vs registered works), the exact Min-K%++ path of the local LM,
 * and input checks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { Memorization } from '../../src/services/memorization/memorization.js';
import {
  aucInterval,
  holm,
  mannWhitney,
  mean,
  normalSf,
  pooledTTest,
  studentTSf,
} from '../../src/services/memorization/stats.js';
import { NgramLanguageModel } from '../../src/models/ngram.js';
import { membershipSplit, prng, sampleDocuments, shuffle } from '../fixtures/memorization/http.js';

/** Every way of choosing k of n indices. */
function* combinations(n: number, k: number, start = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) {
    yield acc;
    return;
  }
  for (let i = start; i < n; i++) yield* combinations(n, k, i + 1, [...acc, i]);
}

/** One-sided permutation p of U (exact, ties included) by enumerating every split. */
function permutationP(x: number[], y: number[]): number {
  const all = [...x, ...y];
  const u = (xs: number[], ys: number[]) =>
    xs.reduce((t, a) => t + ys.reduce((s, b) => s + (a > b ? 1 : a === b ? 0.5 : 0), 0), 0);
  const observed = u(x, y);
  let hits = 0,
    total = 0;
  for (const idx of combinations(all.length, x.length)) {
    const set = new Set(idx);
    const xs = idx.map((i) => all[i]),
      ys = all.filter((_, i) => !set.has(i));
    if (u(xs, ys) >= observed - 1e-9) hits++;
    total++;
  }
  return hits / total;
}

describe('statistics', () => {
  it('normal and Student t tails', () => {
    expect(normalSf(0)).toBe(0.5);
    expect(normalSf(1.959963984540054)).toBeCloseTo(0.025, 13);
    expect(normalSf(-1)).toBeCloseTo(0.8413447460685429, 13);
    expect(normalSf(3) / 0.0013498980316301035).toBeCloseTo(1, 10);
    expect(normalSf(10) / 7.619853024160527e-24).toBeCloseTo(1, 8);
    expect(studentTSf(2.2621571627982, 9)).toBeCloseTo(0.025, 10);
    expect(studentTSf(12.706204736174698, 1)).toBeCloseTo(0.025, 10);
    expect(studentTSf(-1.8331129326536335, 9)).toBeCloseTo(0.95, 10);
    expect(studentTSf(1.6448536269514722, 1e8)).toBeCloseTo(0.05, 6);
  });

  it('Mann–Whitney: exact equals enumeration; the normal approximation is close with ties', () => {
    expect(mannWhitney([5, 6, 7], [1, 2, 3])).toMatchObject({ u: 9, auc: 1, method: 'exact' });
    expect(mannWhitney([5, 6, 7], [1, 2, 3]).p_value).toBeCloseTo(1 / 20, 12);
    const rnd = prng(3);
    for (let t = 0; t < 5; t++) {
      const x = Array.from({ length: 5 }, () => rnd()),
        y = Array.from({ length: 6 }, () => rnd() - 0.2);
      const r = mannWhitney(x, y);
      expect(r.method).toBe('exact');
      expect(r.p_value).toBeCloseTo(permutationP(x, y), 12);
    }
    const x = Array.from({ length: 8 }, () => Math.round(rnd() * 4)),
      y = Array.from({ length: 8 }, () => Math.round(rnd() * 4) - 1);
    const r = mannWhitney(x, y);
    expect(r.method).toBe('normal');
    expect(Math.abs(r.p_value - permutationP(x, y))).toBeLessThan(0.02);
  });

  it('AUC, DeLong and clustered intervals; Holm; pooled t', () => {
    const x = [0.9, 0.8, 0.75, 0.6, 0.55],
      y = [0.7, 0.5, 0.4, 0.3, 0.55, 0.2];
    let pairs = 0;
    for (const a of x) for (const b of y) pairs += a > b ? 1 : a === b ? 0.5 : 0;
    const d = aucInterval(x, y);
    expect(d.auc).toBeCloseTo(pairs / 30, 12);
    expect(d.ci_95[0]).toBeLessThan(d.auc);
    expect(d.ci_95[1]).toBeGreaterThan(d.auc);
    // chunks that share their document's offset: clustering widens the interval
    const rnd = prng(9);
    const cx: number[] = [],
      vx: number[] = [],
      cy: number[] = [],
      vy: number[] = [];
    for (let doc = 0; doc < 8; doc++) {
      const off = rnd() * 2;
      for (let c = 0; c < 15; c++) {
        if (doc < 4) {
          cx.push(doc);
          vx.push(off + rnd() * 0.3);
        } else {
          cy.push(doc);
          vy.push(off + rnd() * 0.3);
        }
      }
    }
    const plain = aucInterval(vx, vy),
      clustered = aucInterval(vx, vy, { x: cx, y: cy });
    expect(clustered.method).toBe('clustered');
    expect(clustered.auc).toBe(plain.auc);
    expect(clustered.se).toBeGreaterThan(2 * plain.se);
    expect(holm([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    const t = pooledTTest([5], [1, 2, 3, 2, 1])!;
    // by hand: mean 1.8, ss 2.8, sp² = 2.8 / 4, se = sqrt(0.7 · 1.2)
    expect(t.t).toBeCloseTo(3.2 / Math.sqrt(0.84), 12);
    expect(t.df).toBe(4);
    expect(t.p_value).toBeCloseTo(studentTSf(3.2 / Math.sqrt(0.84), 4), 12);
    expect(pooledTTest([1], [2])).toBeNull();
  });

  it('on real non-member text the document-level test keeps its false-positive rate; chunk-level Mann–Whitney does not', () => {
    // an LM that saw neither side; "work" = 1 book section, reference = 10 others, 150 random splits
    const docs = sampleDocuments();
    const order = shuffle(docs, prng(77));
    const lm = NgramLanguageModel.train(
      order.slice(0, 50).map((d) => d.text),
      { order: 4 },
    );
    const pool = order.slice(50, 110).map((d) => {
      const s = lm.score(d.text);
      const out: number[] = [];
      for (let i = 0; i + 128 <= s.logprobs.length; i += 128) {
        const lp = s.logprobs.slice(i, i + 128).sort((a, b) => a - b);
        out.push(mean(lp.slice(0, Math.ceil(0.2 * lp.length)))); // Min-K%, k = 20 %
      }
      return out;
    });
    const rnd = prng(5);
    let docLevel = 0,
      chunkLevel = 0;
    const T = 150;
    for (let t = 0; t < T; t++) {
      const idx = shuffle(
        pool.map((_, i) => i),
        rnd,
      );
      const work = pool[idx[0]],
        ref = idx.slice(1, 11).map((i) => pool[i]);
      if (pooledTTest([mean(work)], ref.map(mean))!.p_value < 0.05) docLevel++;
      if (mannWhitney(work, ref.flat()).p_value < 0.05) chunkLevel++;
    }
    console.log(
      `false positives at α = 0.05 over ${T} splits: document-level t ${docLevel / T}, chunk-level Mann–Whitney ${chunkLevel / T}`,
    );
    expect(docLevel / T).toBeLessThanOrEqual(0.1);
    expect(chunkLevel / T).toBeGreaterThan(0.12);
  });
});

describe('operations', () => {
  let engine: Engine;
  let mem: Memorization;
  const split = membershipSplit();
  beforeAll(async () => {
    engine = await createEngine();
    mem = new Memorization(engine);
  });

  it('reference sets: add, get, list, delete; ids are unique; inputs checked', async () => {
    const info = await mem.addReferenceSet({
      id: 'post-cutoff-news',
      texts: ['One two three.', 'Four five six seven.'],
      basis: 'post_cutoff',
      published_after: '2025-01-01',
      description: 'news published after the cutoff',
    });
    expect(info).toMatchObject({
      id: 'post-cutoff-news',
      basis: 'post_cutoff',
      documents: 2,
      tokens: 7,
      published_after: '2025-01-01',
    });
    expect(await mem.getReferenceSet('post-cutoff-news')).toEqual(info);
    expect((await mem.listReferenceSets()).map((r) => r.id)).toContain('post-cutoff-news');
    await expect(
      mem.addReferenceSet({ id: 'post-cutoff-news', texts: ['x'], basis: 'unverified' }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(mem.addReferenceSet({ id: 'r2', texts: [], basis: 'unverified' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(mem.addReferenceSet({ id: 'r2', texts: ['x'], basis: 'matched' as never })).rejects.toThrow(/basis/);
    expect(await mem.deleteReferenceSet('post-cutoff-news')).toBe(true);
    await expect(mem.getReferenceSet('post-cutoff-news')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('compare: a model output against the registered works', async () => {
    const a = await engine.registerWork({ content: split.members[0].text, owner: 'o1', title: 'Work A' });
    const b = await engine.registerWork({ content: split.members[1].text, owner: 'o2', title: 'Work B' });
    const words = (t: string, from: number, n: number) =>
      t
        .split(/\s+/)
        .filter(Boolean)
        .slice(from, from + n)
        .join(' ');
    const copied = words(split.members[0].text, 300, 70);
    const output = `Here is what I recall: ${copied} And that is all I can say about it.`;
    const r = await mem.compare({ output });
    expect(r.examined).toBeGreaterThanOrEqual(2);
    expect(r.works[0].work_id).toBe(a.work_id);
    const v = r.works[0].verbatim[0];
    expect(v.tokens).toBeGreaterThanOrEqual(55);
    expect(output.slice(v.output_start, v.output_end)).toBe(
      copied.slice(copied.length - (v.output_end - v.output_start)),
    );
    expect(split.members[0].text.slice(v.work_start, v.work_end).replace(/\s+/g, ' ')).toBe(
      output.slice(v.output_start, v.output_end).replace(/\s+/g, ' '),
    );
    expect(r.factors).toEqual(['long_verbatim_run']);
    expect(r.works.some((w) => w.work_id === b.work_id && w.verbatim.length > 0)).toBe(false);
    // without work_ids, the works of one owner when it is given (the HTTP route's: the account's)
    expect((await mem.compare({ output }, { owner: 'o1' })).works.map((w) => w.work_id)).toEqual([a.work_id]);
    const other = await mem.compare({ output }, { owner: 'o2' });
    expect(other.examined).toBeGreaterThanOrEqual(1);
    expect(other.works.some((w) => w.work_id === a.work_id)).toBe(false);
    expect(await mem.compare({ output }, { owner: 'nobody' })).toMatchObject({ works: [], examined: 0, factors: [] });
    const none = await mem.compare({
      output: 'A completely unrelated sentence about quantum chromodynamics and lattice gauge theory.',
      work_ids: [a.work_id, b.work_id],
    });
    expect(none.works).toEqual([]);
    expect(none.limitations).toContain('short_text_low_power');
    expect(none.limitations).not.toContain('near_passages_not_compared');
    // an output past the sentence alignment's limit: the verbatim run still found, the near passages said unchecked
    const long = await mem.compare({
      output: `${output} ${'filler words again '.repeat(30_000)}`,
      work_ids: [a.work_id],
    });
    expect(long.works[0].verbatim[0].tokens).toBe(v.tokens);
    expect(long.works[0].near).toEqual([]);
    expect(long.limitations).toContain('near_passages_not_compared');
  });

  it('the local LM as a target model: exact Min-K%++ (full distribution)', async () => {
    const lm = NgramLanguageModel.train(
      [...split.background.slice(0, 8), ...split.members.slice(0, 3)].map((d) => d.text),
      { order: 3 },
    );
    const model = lm.asTargetModel({ id: 'ngram-local' });
    const r = await mem.probe({
      model,
      texts: split.members.slice(0, 3).map((d) => d.text),
      reference: { texts: split.reference.slice(0, 5).map((d) => d.text) },
      chunk_tokens: 64,
    });
    expect(r.distribution).toBe('full');
    expect(r.statistics.find((s) => s.name === 'min_k_plus_plus')!.approximate).toBe(false);
    expect(r.verdict).toBe('significant');
    expect(r.limitations).toContain('distribution_shift_risk'); // texts passed directly
    expect(r.statement).toMatch(/distribution_shift_risk/);
    expect(r.chunks.suspect[0]).toMatchObject({ document: 0, scored_tokens: 64 });
  });

  it('a reference model calibrates the loss: text both models saw is not evidence, text only the target saw is', async () => {
    const background = split.background.slice(0, 12).map((d) => d.text);
    const onlyTarget = split.members.slice(0, 2).map((d) => d.text);
    // the target saw the background and two works; the reference model saw the background only
    const target = NgramLanguageModel.train([...background, ...onlyTarget], { order: 3 }).asTargetModel({
      id: 'target',
    });
    const reference_model = NgramLanguageModel.train(background, { order: 3 }).asTargetModel({ id: 'earlier' });
    const reference = { texts: split.reference.slice(0, 6).map((d) => d.text) };
    const opts = { chunk_tokens: 32, min_chunks: 5 };
    const known = background[0]; // predictable to any model trained on that background
    const plain = await mem.probe({ model: target, text: known, reference, ...opts });
    expect(plain.verdict).toBe('significant');
    expect(plain.reference_model).toBeNull();
    expect(plain.statistics.map((s) => s.name)).not.toContain('calibrated_loss');
    expect(plain.statistics.every((s) => s.in_verdict && s.document_test!.p_holm !== null)).toBe(true);
    expect(plain.chunks.suspect.every((c) => c.calibrated_loss === null)).toBe(true);

    const calibrated = await mem.probe({ model: target, reference_model, text: known, reference, ...opts });
    expect(calibrated.verdict).toBe('not_significant');
    expect(calibrated.reference_model).toEqual({ id: 'earlier', access: reference_model.access });
    const cal = calibrated.statistics.find((s) => s.name === 'calibrated_loss')!;
    expect(cal.in_verdict).toBe(true);
    for (const s of calibrated.statistics.filter((x) => x.name !== 'calibrated_loss')) {
      expect(s.in_verdict).toBe(false);
      expect(s.significant).toBe(false);
      expect(s.document_test!.p_holm).toBeNull();
    }
    // reproducible from the chunks: NLL per character of both models, differenced
    const c = calibrated.chunks.suspect[0];
    const chunk = known.slice(c.start, c.end);
    const perChar = async (m: typeof target) =>
      -(await m.logprobs!(chunk)).logprobs.filter(Number.isFinite).reduce((a, b) => a + b, 0) / chunk.length;
    expect(c.calibrated_loss).toBeCloseTo((await perChar(target)) - (await perChar(reference_model)), 5);
    expect(calibrated.statement).toMatch(/calibrated by the reference model earlier/);
    expect(calibrated.method).toMatch(/calibrated loss/);

    const member = await mem.probe({ model: target, reference_model, text: onlyTarget[0], reference, ...opts });
    expect(member.verdict).toBe('significant');
    expect(member.statistics.find((s) => s.name === 'calibrated_loss')!.significant).toBe(true);

    const html = await mem.report(
      await mem.assess({
        work_id: (await engine.registerWork({ content: onlyTarget[1], owner: 'o9', title: 'Only target' })).work_id,
        model: target,
        extract: false,
        probe: { reference, reference_model, ...opts },
      }),
    );
    expect(html).toContain('loss calibrated by the reference model <code>earlier</code>');
    expect(html).toContain('Calibrated loss');

    const blind = { id: 'blind', access: 'generations_only' as const, generate: target.generate };
    await expect(mem.probe({ model: target, reference_model: blind, text: known, reference })).rejects.toThrow(
      /reference_model "blind" gives no log-probabilities/,
    );
    await expect(
      mem.probe({ model: target, reference_model: { id: 'x' } as never, text: known, reference }),
    ).rejects.toThrow(/reference_model must be a TargetModel/);
  });

  it('assess: corpus evidence through engine.score for a knowledge-base model; generations-only limits', async () => {
    const lm = NgramLanguageModel.train(
      [...Array<string>(6).fill(split.popular.text), ...split.background.slice(0, 5).map((d) => d.text)],
      { order: 4 },
    );
    const local = lm.asTargetModel({ id: 'ngram-local' });
    const chatOnly = { id: 'chat-only', access: 'generations_only' as const, generate: local.generate };
    const w = await engine.registerWork({
      content: split.popular.text,
      owner: 'o3',
      title: 'Popular',
      work_type: 'news',
      declarations: { tdm_opt_out: true },
    });
    const a = await mem.assess({
      work_id: w.work_id,
      model: chatOnly,
      kb_model: 'eleutherai/pythia-6.9b',
      jurisdiction: 'US',
      extract: { prefixes: 4 },
      probe: { reference: { texts: ['x y z'] } },
    });
    expect(a.corpus?.target_model).toBe('eleutherai/pythia-6.9b');
    expect(a.corpus).not.toHaveProperty('legal_risk');
    expect(a.limitations).toEqual(expect.arrayContaining(['no_logprob_access', 'model_datasets_not_indexed']));
    expect(a.probe).toBeNull();
    expect(a.traps).toBeNull();
    expect(a.extraction!.summary.verified).toBeGreaterThan(0);
    expect(a.evidence_tier).toBe('confirmed');
    // US: base 0.45 + opt-out 0.05 + news market 0.05 + verbatim memorization 0.20
    expect(a.risk.modifiers.map((m) => m.code)).toEqual([
      'tdm_opt_out_declared',
      'licensing_market_exists',
      'verbatim_memorization',
    ]);
    expect(a.risk.score).toBeCloseTo(0.75, 10);
    expect(a.level).toBe('high');
    expect(a.factors).toEqual(
      expect.arrayContaining(['fair_use_case_by_case', 'verbatim_extraction_verified', 'verbatim_memorization']),
    );
    const html = await mem.report(a);
    expect(html).toContain('Corpus evidence');
    expect(html).not.toContain('Probe against non-member text');
  });

  it('input checks name the field', async () => {
    const model = NgramLanguageModel.train(['a b c d e f']).asTargetModel();
    const workId = `wk_${'0'.repeat(32)}`;
    await expect(mem.extract({ model, text: 'x', work_id: workId } as never)).rejects.toThrow(
      /text: give only one of work_id, text/,
    );
    await expect(mem.extract({ model, text: 'x y z', prefixes: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      cause: { field: 'prefixes' },
    });
    await expect(mem.extract({ model: { id: 'm' } as never, text: 'x' })).rejects.toThrow(/TargetModel/);
    await expect(mem.extract({ model, text: 'x', bogus: 1 } as never)).rejects.toThrow(/bogus: is not a known field/);
    await expect(mem.probe({ model, text: 'x', reference: { texts: ['y'] }, k: 2 })).rejects.toThrow(/k: must be ≤ 1/);
    await expect(mem.extract({ model, work_id: 'wk_00000000000000000000000000000000' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const short = await mem.extract({ model, text: 'only a few words here' });
    expect(short.attempts).toEqual([]);
    expect(short.limitations).toEqual(['short_text_low_power']);
  });
});
