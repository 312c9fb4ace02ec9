/**
 * The executor table of the job model (src/services/jobs/executors.ts) over a recording engine port: what each type
 * passes to the engine (the job's account as owner, the plan's file limit, the item's signal, a scan's datasets and
 * options from the job's context), the one result shape per type, and the types this process cannot run.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, jobExecutors, type JobClaim, type JobEngine } from '../../src/library.js';
import { deleteAttached } from '../../src/services/jobs/attached.js';

const claim = (type: JobClaim['job']['type'], account: string, context: Record<string, unknown> = {}): JobClaim => ({
  job: {
    id: 'job_1',
    account,
    type,
    state: 'running',
    total: 1,
    done: 0,
    failed: 0,
    created: 0,
    started: 0,
    finished: null,
    eta_ms: null,
  },
  context,
  chunk: 0,
  first: 0,
  items: [],
  token: 't',
});

function recorder(withScan = true): { engine: JobEngine; calls: [string, unknown, unknown][] } {
  const calls: [string, unknown, unknown][] = [];
  const engine: JobEngine = {
    analyze: async (request, options) => {
      calls.push(['analyze', request, options]);
      return { analysis_id: 'an_1' };
    },
    score: async (request, options) => {
      calls.push(['score', request, options]);
      return { score: 0.5 };
    },
    findWork: async (hash, options) => {
      calls.push(['findWork', hash, options]);
      return {};
    },
    ...(withScan
      ? {
          scanItem: async (item, options) => {
            calls.push(['scanItem', item, options]);
            return [];
          },
        }
      : {}),
    memorization: {
      extractWork: async (request) => {
        calls.push(['extractWork', request, undefined]);
        return { nv_recall: 0 };
      },
      auditCatalogue: async (request) => {
        calls.push(['auditCatalogue', request, undefined]);
        return { audit_sha256: 'a' };
      },
    },
  };
  return { engine, calls };
}

describe('jobExecutors', () => {
  const signal = new AbortController().signal;

  it('analyze and score run as the job account, under the plan file limit and the item signal', async () => {
    const { engine, calls } = recorder();
    const { executors } = jobExecutors(engine, { work: { sliceMs: 7 } });
    const c = claim('analyze', 'acme', { max_file_bytes: 1024 });
    expect(await executors.analyze!({ content: 'x' }, c, signal)).toEqual({ analysis_id: 'an_1' });
    expect(calls[0]).toEqual(['analyze', { content: 'x' }, { owner: 'acme', maxFileBytes: 1024, signal, sliceMs: 7 }]);
    await executors.score!({ work_hash: 'w1' }, c, signal);
    expect(calls[1]).toEqual(['findWork', 'w1', { owner: 'acme' }]);
    expect(calls[2][2]).toMatchObject({ owner: 'acme', maxFileBytes: 1024, signal });
    // no check of its own: an item was read through SCORE_REQUEST at submission, and engine.score reads it again
    await executors.score!({}, c, signal);
    expect(calls.at(-1)?.[0]).toBe('score');
  });

  it('an analyze item of a chunk run again gives the analysis it stored, not a second one (with the real engine)', async () => {
    const engine = await createEngine();
    const { executors } = jobExecutors(engine);
    const c = claim('analyze', 'acme');
    const item = { content: 'A text of a few words, analysed in a job.', content_type: 'text' };
    const slice = (index: number) => ({ deadline: Date.now() + 60_000, limitMs: 60_000, index });
    const first = (await executors.analyze!(item, c, signal, slice(3))) as { analysis_id: string };
    // the chunk's process stopped before its results were written: the same item runs again
    const again = (await executors.analyze!(item, c, signal, slice(3))) as { analysis_id: string };
    expect(again).toEqual(first);
    const other = (await executors.analyze!(item, c, signal, slice(4))) as { analysis_id: string };
    expect(other.analysis_id).not.toBe(first.analysis_id);
    expect((await engine.store.scan('analysis/')).map(([k]) => k).sort()).toEqual(
      [`analysis/${first.analysis_id}`, `analysis/${other.analysis_id}`].sort(),
    );
    // the item's records go with the job
    await deleteAttached(engine.store, c.job.id);
    expect(await engine.store.scan('job-analysis/')).toEqual([]);
    engine.dispose();
  });

  it('scan gives { id, hits } with the datasets and options of the job; an operator job names no account', async () => {
    const { engine, calls } = recorder();
    const { executors } = jobExecutors(engine);
    const ctx = { datasets: ['books'], min_words: 20, paraphrase: false };
    expect(await executors.scan!({ id: 'o1', text: 't', extra: 1 }, claim('scan', 'acme', ctx), signal)).toEqual({
      id: 'o1',
      hits: [],
    });
    expect(calls[0]).toEqual([
      'scanItem',
      { id: 'o1', text: 't' },
      { account: 'acme', signal, datasets: ['books'], minWords: 20, paraphrase: false },
    ]);
    await executors.scan!({ id: 'o2', text: 't' }, claim('scan', '', ctx), signal);
    expect(calls[1][2]).not.toHaveProperty('account');
  });

  it('extract builds the model the item names with the host, passes the item signal on, and is unsupported without one', async () => {
    const { engine, calls } = recorder(false);
    expect(jobExecutors(engine).unsupported).toEqual({
      scan: 'this server has no scan',
      extract: 'this process builds no model for an extraction',
      audit: 'this process builds no model for an audit',
    });
    const model = { id: 'm' } as never;
    const { executors } = jobExecutors(engine, { model: async (spec) => ({ ...(model as object), spec }) as never });
    const item = new AbortController();
    await executors.extract!(
      { text: 'w', model: { base_url: 'https://m', model: 'x' }, budget_calls: 3 },
      claim('extract', 'a'),
      item.signal,
    );
    const [name, request, rest] = calls[0] as [string, { signal: AbortSignal; stop: AbortSignal }, unknown];
    const { signal: passed, stop, ...others } = request;
    expect([name, others, rest]).toEqual([
      'extractWork',
      { text: 'w', budget_calls: 3, model: { id: 'm', spec: { base_url: 'https://m', model: 'x' } } },
      undefined,
    ]);
    // the item's signal aborts the calls in flight; the run's own stop (a time slice can end it) lets them finish
    expect(passed).toBe(item.signal);
    expect(stop).toBeInstanceOf(AbortSignal);
    expect(stop.aborted).toBe(false);
    const cancelled = new AbortController();
    cancelled.abort(new Error('cancelled'));
    await executors.extract!(
      { text: 'w', model: { base_url: 'https://m', model: 'x' }, budget_calls: 3 },
      claim('extract', 'a'),
      cancelled.signal,
    ).catch(() => undefined);
    const second = (calls[1] as unknown as [string, { signal: AbortSignal; stop: AbortSignal }])[1];
    for (const aborted of [second.signal, second.stop]) {
      expect(aborted.aborted).toBe(true);
      expect((aborted.reason as Error).message).toBe('cancelled');
    }
  });

  it('audit runs the catalogue audit with the model the host builds, the item signal and a stop of its own', async () => {
    const { engine, calls } = recorder(false);
    const { executors, unsupported } = jobExecutors(engine, {
      model: async (spec) => ({ id: 'm', spec }) as never,
    });
    expect(unsupported.audit).toBeUndefined();
    const item = new AbortController();
    const works = [{ id: 'a', text: 'w' }];
    const out = await executors.audit!(
      { works, model: { base_url: 'https://m', model: 'x' }, budget_calls: 9 },
      claim('audit', 'a'),
      item.signal,
    );
    expect(out).toEqual({ audit_sha256: 'a' });
    const [name, request] = calls[0] as unknown as [string, { signal: AbortSignal; stop: AbortSignal }];
    const { signal: passed, stop, ...others } = request;
    expect([name, others]).toEqual([
      'auditCatalogue',
      { works, budget_calls: 9, model: { id: 'm', spec: { base_url: 'https://m', model: 'x' } } },
    ]);
    expect(passed).toBe(item.signal);
    expect(stop.aborted).toBe(false);
    // an engine whose memorization has no audit: audit jobs are unsupported, extract ones still run
    const { engine: bare } = recorder(false);
    const { auditCatalogue: _, ...rest } = bare.memorization;
    const table = jobExecutors({ ...bare, memorization: rest }, { model: async () => ({}) as never });
    expect(table.executors.audit).toBeUndefined();
    expect(table.unsupported.audit).toBe("this engine's memorization has no catalogue audit");
  });
});
