/**
 * The catalogue audit: one budget over several works, a first pass of a few probes each, the rest spent where the
 * model reproduces; per work a verdict (reproduced, or not_found with the chance of missing a reproduced work), the
 * catalogue's share with its interval; the same result at every concurrency; a budget too small leaves works untried.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import { auditCatalogue } from '../../src/services/memorization/audit.js';
import {
  memoryExtractionJournal,
  type ExtractionJournal,
  type RecordedCall,
} from '../../src/services/memorization/extraction-journal.js';
import { MemoryStore } from '../../src/store/memory.js';
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

  it('refuses a bad request with a typed error', async () => {
    const model = memorising(rnd);
    await expect(auditCatalogue(store, { model, works: [] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(auditCatalogue(store, { model, works, level: 1 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    const twice = [works[0], works[0]];
    await expect(auditCatalogue(store, { model, works: twice })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
