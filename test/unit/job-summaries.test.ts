/**
 * What a job type says of an item's result in one line (`summarize`, read through `jobResultSummary`): each built-in
 * type's line from a result of its own shape, a failed item's error, and the neutral line of a type without a
 * `summarize` — a host's own type, or one the registry does not hold — which claims nothing about the result.
 */
import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_JOB_TYPES,
  defineJobType,
  jobResultSummary,
  jobTypeRegistry,
  neutralSummary,
  type JobResult,
} from '../../src/entries/jobs.js';
import * as accounts from '../../src/entries/accounts.js';
import * as jobs from '../../src/entries/jobs.js';
import { hitLine } from '../../src/node/index.js';

const done = (result: unknown): JobResult => ({ index: 0, success: true, result });

describe('each built-in type summarizes its result', () => {
  it('scan: its hits counted', () => {
    expect(jobResultSummary('scan', done({ id: 'out-1', hits: [] }))).toBe('0 hits');
    expect(jobResultSummary('scan', done({ id: 'out-1', hits: [{}] }))).toBe('1 hit');
    expect(jobResultSummary('scan', done({ id: 'out-1', hits: [{}, {}, {}] }))).toBe('3 hits');
  });

  it('analyze: its matches and confidence', () => {
    expect(jobResultSummary('analyze', done({ analysis_id: 'an_1', matches: [{}], confidence: 0.42 }))).toBe(
      '1 match, confidence 0.42',
    );
    expect(jobResultSummary('analyze', done({ matches: [] }))).toBe('0 matches, confidence —');
  });

  it('score: its score and tier', () => {
    expect(jobResultSummary('score', done({ work_hash: 'h', score: 87, tier: 'likely' }))).toBe(
      'score 87, tier likely',
    );
    expect(jobResultSummary('score', done({}))).toBe('score —');
  });

  it('extract: nv-recall, blocks and calls', () => {
    expect(jobResultSummary('extract', done({ nv_recall: 0.1234, blocks: [{}, {}], calls: 40 }))).toBe(
      'nv-recall 12.3 %, 2 blocks, 40 calls',
    );
    expect(jobResultSummary('extract', done({ blocks: [{}] }))).toBe('nv-recall —, 1 block, 0 calls');
  });

  it('audit: works reproduced, the share with its interval, calls, an early stop and a partial line', () => {
    const catalogue = { works: 3, measured: 3, reproduced: 1, share: 1 / 3, ci_95: [0.0615, 0.7923] };
    expect(jobResultSummary('audit', done({ catalogue, calls: 412, stopped: 'done', works: [] }))).toBe(
      '1 of 3 works reproduced, share 33.3 % [6.2 %, 79.2 %], 412 calls',
    );
    const big = {
      catalogue: { ...catalogue, works: 900 },
      calls: 5,
      stopped: 'budget',
      works: [{}, {}],
      works_next: 2,
    };
    expect(jobResultSummary('audit', done(big))).toBe(
      '1 of 3 works reproduced, share 33.3 % [6.2 %, 79.2 %], 5 calls; the budget ended first; ' +
        'the line holds its first 2 of 900 works',
    );
  });

  it('every built-in type has a summarize; the model-calling ones describe themselves for the documentation', () => {
    for (const [name, type] of BUILT_IN_JOB_TYPES) expect(typeof type.summarize, name).toBe('function');
    for (const name of ['extract', 'audit'])
      expect(BUILT_IN_JOB_TYPES.get(name)?.description).toMatch(new RegExp(`^An \`${name}\` item `));
  });

  it("scan's rows are its hits, each written as `scan --out` writes its hit line", () => {
    // stored with its fields in another order (a store may give them so)
    const hit = { kind: 'verbatim', words: 60, id: 'a', source_end: 9, source_start: 1, query_end: 8 } as const;
    const stored = { ...hit, query_start: 0, document_id: 'd', dataset_id: 's' };
    const rows = BUILT_IN_JOB_TYPES.get('scan')?.rows;
    expect(rows?.noun).toBe('hits');
    const [row] = rows!.of({ id: 'a', hits: [stored] });
    expect(`${JSON.stringify(row)}\n`).toBe(hitLine(stored));
    expect(rows!.of({ id: 'a' })).toEqual([]);
  });
});

describe('a failed item and a type without summarize', () => {
  it("a failed item's line is its error, whatever its type", () => {
    const failed: JobResult = { index: 3, success: false, error: { code: 'NOT_FOUND', message: 'no work w_1' } };
    for (const type of ['scan', 'audit', 'upper'])
      expect(jobResultSummary(type, failed)).toBe('NOT_FOUND: no work w_1');
  });

  it('a host type without summarize, or a type the registry lacks, gets the neutral line (never a score)', () => {
    const upper = defineJobType({ name: 'upper', summary: '`upper`', itemSchema: {}, executor: () => async (x) => x });
    const registry = jobTypeRegistry([upper]);
    expect(jobResultSummary('upper', done({ text: 'ABC', length: 3 }), registry)).toBe('a result with text, length');
    expect(jobResultSummary('unknown', done({ score: 9 }))).toBe('a result with score');
  });

  it("a host type's own summarize is used", () => {
    const upper = defineJobType({
      name: 'upper',
      summary: '`upper`',
      summarize: (r) => `upper-cased: ${(r as { text: string }).text}`,
      itemSchema: {},
      executor: () => async (x) => x,
    });
    expect(jobResultSummary('upper', done({ text: 'ABC' }), jobTypeRegistry([upper]))).toBe('upper-cased: ABC');
  });

  it('the neutral line: the fields named (six at most), or the value cut to 80 characters', () => {
    expect(neutralSummary({})).toBe('an empty result');
    expect(neutralSummary({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 })).toBe('a result with a, b, c, d, e, f, …');
    expect(neutralSummary(42)).toBe('a result: 42');
    expect(neutralSummary(null)).toBe('a result: null');
    expect(neutralSummary('x'.repeat(100))).toBe(`a result: "${'x'.repeat(78)}…`);
    expect(neutralSummary([1, 2])).toBe('a result: [1,2]');
  });
});

describe('trainprint/jobs', () => {
  it('exports the job model, which trainprint/accounts no longer does', () => {
    for (const name of ['defineJobType', 'createJobService', 'startJobRunner', 'BUILT_IN_JOB_TYPES', 'JOB_TYPES']) {
      expect(typeof (jobs as Record<string, unknown>)[name], name).not.toBe('undefined');
      expect(name in accounts, name).toBe(false);
    }
  });
});
