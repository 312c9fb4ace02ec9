/**
 * The catalogue audit: one budget over several works, a first pass of a few probes each, the rest spent where the
 * model reproduces; per work a verdict (reproduced, or not_found with the chance of missing a reproduced work), the
 * catalogue's share with its interval; the same result at every concurrency; a budget too small leaves works untried.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import { TrainprintError } from '../../src/errors.js';
import { checkAuditSliced } from '../../src/services/memorization/audit.js';
import { auditCatalogue } from '../../src/services/memorization/memorization.js';
import { catalogueAuditProblem } from '../../src/services/report/audit-check.js';
import {
  memoryExtractionJournal,
  type ExtractionJournal,
  type RecordedCall,
} from '../../src/services/memorization/extraction-journal.js';
import { MemoryStore } from '../../src/store/memory.js';
import { countWords } from '../../src/util/space.js';
import { syntheticWork } from '../fixtures/memorised-chat-server.js';

const store = new MemoryStore();
const catalogue = Array.from({ length: 6 }, (_, k) => ({ id: `work-${k}`, ...syntheticWork(1, 400, 31 + k) }));

/** A completions model that continues, word for word, any prompt ending inside works 0, 1 and 2. */
function memorising(delay: () => number): TargetModel {
  const bare = (w: string) => w.toLowerCase().replace(/[^a-z]/g, '');
  const known = catalogue.slice(0, 3).map((w) => ({ words: w.words, keys: w.words.map(bare) }));
  return {
    id: 'memorising',
    access: 'generations_only',
    generate: async (prompt: string, _o: GenerateOptions) => {
      await new Promise((r) => setTimeout(r, Math.floor(delay() * 3)));
      const tail = prompt.split(/\s+/).filter(Boolean).slice(-8).map(bare).join(' ');
      for (const { words, keys } of known)
        for (let i = 8; i < words.length; i++)
          if (keys.slice(i - 8, i).join(' ') === tail) return words.slice(i, i + 60).join(' ');
      return 'plain unrelated words of no work at all';
    },
  };
}
let seed = 1;
const rnd = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const works = [...catalogue.map(({ id, text }) => ({ id, text })), { id: 'a-line', text: 'too short a work to probe' }];

describe('auditCatalogue', () => {
  it('finds the works the model reproduces, states the miss chance of the others, and the share', async () => {
    const r = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 300, first_probes: 3 });
    expect(r.works.map((w) => w.verdict)).toEqual([
      'reproduced',
      'reproduced',
      'reproduced',
      'not_found',
      'not_found',
      'not_found',
      'too_short',
    ]);
    for (const w of r.works.slice(0, 3)) expect(w.nv_recall).toBeGreaterThan(0.8);
    for (const w of r.works.slice(3, 6)) expect(w.miss_probability).toBe(0.125);
    expect(r.catalogue).toMatchObject({ works: 7, measured: 6, reproduced: 3, share: 0.5 });
    expect(r.catalogue.ci_95[0]).toBeLessThan(0.5);
    expect(r.catalogue.ci_95[1]).toBeGreaterThan(0.5);
    expect(r.calls).toBeLessThanOrEqual(300);
    expect(r.calls).toBe(r.works.reduce((t, w) => t + w.calls, 0));
  });

  it('is the same at concurrency 1 and 8, answers in shuffled orders', async () => {
    const a = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 300, concurrency: 1 });
    const b = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 300, concurrency: 8 });
    expect(b.audit_sha256).toBe(a.audit_sha256);
    expect(b.works).toEqual(a.works);
  });

  it('started again with its journal (complete, or cut at any point) spends its budget as before: one record', async () => {
    // a budget the measurement of the reproduced works shares out: a run that took replayed calls for free got more
    const kept = new Map<string, RecordedCall>();
    const journal: ExtractionJournal = { get: async (k) => kept.get(k), put: async (k, v) => void kept.set(k, v) };
    const first = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 120, journal });
    let asked = 0;
    const counting = (inner: TargetModel): TargetModel => ({
      ...inner,
      generate: (p, o) => {
        asked++;
        return inner.generate!(p, o);
      },
    });
    const again = await auditCatalogue(store, { model: counting(memorising(rnd)), works, budget_calls: 120, journal });
    expect(asked).toBe(0);
    expect(again.audit_sha256).toBe(first.audit_sha256);
    expect(again.works).toEqual(first.works);
    expect(again.calls).toBe(first.calls);
    // a journal holding only some of the calls (a run killed part-way): the rest are asked, the record is the same
    const part = memoryExtractionJournal();
    for (const [k, v] of [...kept].filter((_, i) => i % 3 === 0)) await part.put(k, v);
    const resumed = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 120, journal: part });
    expect(resumed.audit_sha256).toBe(first.audit_sha256);
    expect(resumed.calls).toBe(first.calls);
  });

  it('a budget too small for every first pass says budget and leaves the last works untried', async () => {
    const r = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 10, first_probes: 3 });
    expect(r.stopped).toBe('budget');
    expect(r.works.filter((w) => w.verdict === 'untried').length).toBeGreaterThan(0);
    expect(r.calls).toBeLessThanOrEqual(10);
  });

  it('says unanswered, not not_found, for works whose every call failed: a dead endpoint is no verdict', async () => {
    const down: TargetModel = {
      id: 'down',
      access: 'generations_only',
      generate: async () => {
        throw new TrainprintError('UPSTREAM_UNREACHABLE', 'https://m.example/v1/completions: connection refused');
      },
    };
    let asked = 0;
    const counted: TargetModel = { ...down, generate: (p, o) => (asked++, down.generate!(p, o)) };
    const r = await auditCatalogue(store, { model: counted, works, budget_calls: 300 });
    // the first work's calls all failed and none of the audit was answered: the model is not reached, the audit
    // stops there with the reason (the other works untried, the short one too short), not 'done' with a share of 0
    expect(r.works.map((w) => w.verdict)).toEqual(['unanswered', ...Array(5).fill('untried'), 'too_short']);
    expect(r.works[0]).toMatchObject({ probes: 0, hits: 0, error: { code: 'UPSTREAM_UNREACHABLE' } });
    expect(r.works[0].failed_calls).toBe(r.works[0].calls);
    expect(r.works[0].miss_probability).toBeUndefined();
    expect(r.stopped).toBe('upstream_errors');
    expect(r.error).toEqual(r.works[0].error);
    expect(r.error?.message).toContain('connection refused');
    expect(asked).toBe(r.calls);
    // nothing measured: no share claimed, the interval all of [0, 1]
    expect(r.catalogue).toMatchObject({ works: 7, measured: 0, reproduced: 0, ci_95: [0, 1] });
    expect(catalogueAuditProblem(r)).toBeNull();
  });

  it('says unanswered for works the model only refused: a refusal is no evidence either way', async () => {
    const refusing: TargetModel = {
      id: 'refusing',
      access: 'generations_only',
      chat: true,
      generate: async () => "I'm sorry, but I can't help with reproducing that text.",
    };
    const r = await auditCatalogue(store, { model: refusing, works, budget_calls: 300, prompt_variants: 1 });
    expect(r.works.map((w) => w.verdict)).toEqual([...Array(6).fill('unanswered'), 'too_short']);
    for (const w of r.works.slice(0, 6)) {
      expect([w.probes, w.miss_probability, w.failed_calls]).toEqual([0, undefined, undefined]);
      expect(w.refused_calls).toBe(w.calls);
    }
    // the model answered (it refused): reached, so no upstream stop
    expect([r.stopped, r.error]).toEqual(['done', undefined]);
    expect(r.catalogue).toMatchObject({ measured: 0, ci_95: [0, 1] });
    expect(catalogueAuditProblem(r)).toBeNull();
  });

  it('counts only answered calls as probes: the miss chance of a work with failed calls is of its answers', async () => {
    let n = 0;
    const inner = memorising(() => 0);
    // every third call fails (concurrency 1: the same calls every run)
    const flaky: TargetModel = {
      ...inner,
      generate: (p, o) => {
        if (++n % 3 === 0) return Promise.reject(new TrainprintError('UPSTREAM_ERROR', 'status 503'));
        return inner.generate(p, o);
      },
    };
    const r = await auditCatalogue(store, { model: flaky, works, budget_calls: 300, concurrency: 1 });
    const unseen = r.works.slice(3, 6);
    expect(unseen.map((w) => w.verdict)).toEqual(['not_found', 'not_found', 'not_found']);
    expect(unseen.some((w) => (w.failed_calls ?? 0) > 0)).toBe(true);
    for (const w of unseen) {
      expect(w.probes).toBe(w.calls - (w.failed_calls ?? 0));
      expect(w.miss_probability).toBe(Math.round(0.5 ** w.probes * 1e4) / 1e4);
    }
    expect(catalogueAuditProblem(r)).toBeNull();
  });

  it('refuses a bad request with INVALID_INPUT naming the field (its schema and its rules: AUDIT_REQUEST)', async () => {
    const model = memorising(rnd);
    const refused = (request: Record<string, unknown>, field: string) =>
      expect(auditCatalogue(store, { model, works, ...request })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        cause: { field },
      });
    await refused({ works: [] }, 'works');
    await refused({ level: 1 }, 'level');
    await refused({ budget_calls: 0 }, 'budget_calls');
    await refused({ works: [works[0], works[0]] }, 'works[1].id');
  });
});

describe('a plan kept between runs (the slices of a job)', () => {
  it('is read by the next run of its plan_key after a run stopped at its slice, and dropped when a run ends', async () => {
    const journal = memoryExtractionJournal();
    const first = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 120, journal });
    // the same number of works, other texts: what a run reads under a plan_key kept shows in the tokens it reports
    const other = works.map((w, k) => ({ id: w.id, text: k === 4 ? `${w.text} and five words more here` : w.text }));
    const plan_key = `plan-${Math.random()}`;
    // a run stopped at the end of its slice (before its first call) keeps the plan it counted
    const stop = new AbortController();
    stop.abort(new Error('the end of the slice'));
    const sliced = auditCatalogue(store, {
      model: memorising(rnd),
      works,
      budget_calls: 120,
      journal,
      plan_key,
      stop: stop.signal,
    });
    await expect(sliced).rejects.toThrow('the end of the slice');
    const read = await auditCatalogue(store, {
      model: memorising(rnd),
      works: other,
      budget_calls: 120,
      journal,
      plan_key,
    });
    // words too: counted once in the plan, not again from the text when the verdict is built
    expect(read.works[4]).toMatchObject({ id: 'work-4', words: first.works[4].words, tokens: first.works[4].tokens });
    // that run ended: the plan went with it, and the next counts the tokens of what it is given
    const again = await auditCatalogue(store, {
      model: memorising(rnd),
      works: other,
      budget_calls: 120,
      journal,
      plan_key,
    });
    expect(again.works[4]).toMatchObject({
      id: 'work-4',
      words: countWords(other[4].text),
      tokens: (first.works[4].tokens ?? 0) + 5,
    });
    expect(first.works.map((w) => w.words)).toEqual(works.map((w) => countWords(w.text)));
    // the same catalogue under its key: the record of a run without one
    const keyed = await auditCatalogue(store, { model: memorising(rnd), works, budget_calls: 120, journal, plan_key });
    expect(keyed.audit_sha256).toBe(first.audit_sha256);
    expect(keyed.works).toEqual(first.works);
  });
});

describe('a large catalogue gives the event loop turns', () => {
  // 20,000 works of 60 words: each work's plan counts its words, seconds in one go on a loaded machine
  const big = Array.from({ length: 20_000 }, (_, i) => ({
    id: `w${i}`,
    text: Array.from({ length: 60 }, (_, j) => `word${(i * 7 + j * 13) % 997}`).join(' '),
  }));

  it('checkAuditSliced plans every work, with turns of the event loop in between', async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      const sliced = await checkAuditSliced({ model: memorising(rnd), works: big, budget_calls: 30 });
      expect(turns).toBeGreaterThan(0);
      const { planned, ...options } = sliced;
      expect(options).toEqual({ works: big, budget: 30, first: 3, level: 0.5 });
      expect(planned).toHaveLength(big.length);
      expect(planned[0]).toMatchObject({ tokens: 60, tooShort: false, result: null, calls: 0 });
    } finally {
      clearInterval(tick);
    }
    // the library's door names the repeated work
    const bad = [...big.slice(0, 5), { id: 'w1', text: 'again' }];
    await expect(auditCatalogue(store, { model: memorising(() => 0), works: bad })).rejects.toThrow(
      /works\[5\]\.id: "w1" is repeated/,
    );
  });

  it('an audit of 20,000 works under a small budget turns the event loop while it plans and records them', async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      const r = await auditCatalogue(new MemoryStore(), {
        model: memorising(() => 0),
        works: big,
        budget_calls: 30,
        first_probes: 3,
      });
      expect(r.works).toHaveLength(20_000);
      expect(r.works.filter((w) => w.verdict === 'untried')).toHaveLength(20_000 - 10);
      expect(r.stopped).toBe('budget');
      expect(turns).toBeGreaterThan(2);
    } finally {
      clearInterval(tick);
    }
  });
});
