/**
 * The sampled search's passages within its call budget (src/remote/sampling.ts): infini-gram mini, one window a
 * call, draws as many passages as its budget pays for at all their windows (less a small follow-up reserve), so that
 * a corpus holding nothing of the work gives a share whose upper end stays at or under 0.05 on both kinds, within
 * 400 calls; and where the calls left pay for it, a fourth window of every passage not found.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import type { Core } from '../../src/core/abi.js';
import { ALIGNMENT_KIT } from '../../src/corpus/alignment-kit.js';
import { SAMPLING_SENSITIVITY_WORST, wilson } from '../../src/corpus/share.js';
import type { SearchContext } from '../../src/remote/search.js';
import {
  CANARY_CALLS,
  CHAR_RESERVE_CALLS,
  CHAR_WINDOWS,
  CHAR_WINDOWS_MOST,
  sampleRemote,
  TOKEN_QUERIES,
} from '../../src/remote/sampling.js';

const RAW = readFileSync(new URL('../fixtures/texts/gutenberg/austen-persuasion.txt', import.meta.url), 'utf8');
/** About 30,000 words: sampled at the default 400 calls (above 12,000 words). */
const WORK = RAW.replace(/\r/g, '').split(/\s+/).slice(0, 30_000).join(' ');

let core: Core;
beforeAll(async () => {
  core = ((await createEngine()) as unknown as { assertLive(): Core }).assertLive();
});

/** A corpus of `kind` that holds nothing: every call answered "not found", each body kept. */
function emptyCorpus(kind: 'infini-gram' | 'infini-gram-mini', asked: Array<Record<string, unknown>>): SearchContext {
  return {
    config: {
      id: `empty-${kind}`,
      kind,
      index: kind === 'infini-gram' ? 'v4_test_llama' : 'v2_test',
      endpoint: 'http://127.0.0.1:9/',
      maxCalls: 400,
      deadlineMs: 60_000,
      boilerplateCount: 1_000_000,
      cacheTtlMs: 0,
      concurrency: 8,
    },
    post: async (body) => {
      asked.push(body);
      if (body.query_type === 'count') {
        // the terms OR-ed: one term's ids flat, several as one clause (the API's CNF)
        const terms = String(body.query).split(' OR ');
        const ids = terms.map((_, i) => [1000 + i]);
        return { body: { count: 0, token_ids: terms.length === 1 ? ids[0] : [ids] }, ms: 0 };
      }
      return { body: { cnt: 0, segment_by_shard: [[0, 0]] }, ms: 0 };
    },
    core: () => core,
    kit: ALIGNMENT_KIT,
  };
}

describe('sampled search: passages within the call budget', () => {
  it('mini: the passages of 400 calls, each asked all its windows, are enough for an upper end ≤ 0.05', () => {
    const n = Math.floor((400 - CANARY_CALLS - CHAR_RESERVE_CALLS) / CHAR_WINDOWS);
    const worst = wilson(SAMPLING_SENSITIVITY_WORST.hits, SAMPLING_SENSITIVITY_WORST.trials)[0];
    expect(wilson(0, n)[1] / worst).toBeLessThanOrEqual(0.05);
    // infini-gram: two calls a passage, a quarter of the budget kept back
    expect(TOKEN_QUERIES).toBe(2);
  });

  it('a corpus holding nothing: the upper end ≤ 0.05 on mini and infini-gram, ≤ 400 calls', async () => {
    const mini: Array<Record<string, unknown>> = [];
    const tokens: Array<Record<string, unknown>> = [];
    const [m, t] = [
      await sampleRemote(emptyCorpus('infini-gram-mini', mini), WORK),
      await sampleRemote(emptyCorpus('infini-gram', tokens), WORK),
    ];
    const ms = m.report.sampling!,
      ts = t.report.sampling!;
    expect(ms.found).toBe(0);
    expect(ms.passages).toBe(Math.floor((400 - CANARY_CALLS - CHAR_RESERVE_CALLS) / CHAR_WINDOWS));
    expect(ms.passages).toBeGreaterThanOrEqual(120);
    expect(ts.found).toBe(0);
    // nothing found: the upper end is the Wilson upper end of 0 of n over the least detection rate measured
    const upper =
      wilson(0, ms.passages)[1] / wilson(SAMPLING_SENSITIVITY_WORST.hits, SAMPLING_SENSITIVITY_WORST.trials)[0];
    expect(ms.share.ci_95[1]).toBeCloseTo(upper, 3);
    expect(ms.share.ci_95[1]).toBeLessThanOrEqual(0.05);
    expect(ts.share.ci_95[1]).toBeLessThanOrEqual(0.05);
    expect(mini.length).toBeLessThanOrEqual(400);
    expect(mini.length).toBeLessThanOrEqual(2 + ms.passages * CHAR_WINDOWS);
  }, 60_000);

  it('mini: a fourth window for every passage not found, where the calls left pay for all of them', async () => {
    // 40 calls: 4 passages of 3 windows (14 calls with the controls) leave 26, of which 16 are kept back for the
    // follow-up: 10 pay for the fourth window of the 4 passages not found; at 400 (above) they do not
    const asked: Array<Record<string, unknown>> = [];
    const { report } = await sampleRemote(emptyCorpus('infini-gram-mini', asked), WORK, { maxCalls: 40 });
    const n = report.sampling!.passages;
    expect(n).toBe(Math.floor((40 - CANARY_CALLS - CHAR_RESERVE_CALLS) / CHAR_WINDOWS));
    const finds = asked.filter((b) => b.query_type === 'find').length;
    expect(finds).toBe(CANARY_CALLS + n * CHAR_WINDOWS_MOST);
  }, 60_000);
});
