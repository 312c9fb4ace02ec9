/**
 * Catalogue jobs cannot starve each other (src/services/jobs/runner.ts through the handler): an item that never
 * ends on its own — an evidence source that answers only when aborted, or never — is stopped at the item time limit
 * with a failed result naming it; another account's job finishes while a poison job holds a runner; a cancel reaches
 * the item running (its signal aborts) and keeps the results so far; stopping the runner aborts the items running,
 * even one that ignores its signal, and gives their chunk back.
 *
 * The slowness is by construction, never by timing: the source's search for a text with a marker word waits for its
 * signal (or forever); every other text is answered at once with nothing found. The item time limit of the tests that
 * use one is reached when the test says so ({@link manualLimits}: the runner's `itemTimer`), once the hanging item is
 * seen waiting — never by the clock, which on a loaded 2-core machine also stopped the ordinary item (a limit of
 * 150 ms: "failed: 3" for 2). Every wait is for an event, bounded only by the test's own timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type EvidenceSource } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { handlerWithJobs as createHandler, stopJobs } from '../fixtures/http/jobs-handler.js';
import { createJobService } from '../../src/library.js';
import { waitingModelSource } from '../fixtures/waiting-source.js';

const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
  'documentation files (the "Software"), to deal in the Software without restriction, including without ' +
  'limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the ' +
  'Software, and to permit persons to whom the Software is furnished to do so';

/** Waits for the signal's abort (then rejects with its reason). */
const HANG = 'hangs until aborted';
/** Never settles and never looks at its signal. */
const DEAF = 'hangs and ignores every signal';

/** What the source saw: searches that started hanging and those whose signal aborted them. */
const seen = { hanging: 0, aborted: 0, deaf: 0 };

const stalling: EvidenceSource = {
  descriptor: { id: 'stalling-source', kind: 'test-stall' },
  stats: () => ({ documents: 0, tokens: 0 }),
  search: (query, { signal }) => {
    if (query.includes(DEAF)) {
      seen.deaf++;
      return new Promise(() => {});
    }
    if (query.includes(HANG)) {
      seen.hanging++;
      return new Promise((_, reject) => {
        const stop = () => {
          seen.aborted++;
          reject(signal?.reason);
        };
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
      });
    }
    return { passages: [], tested: 1, found: 0, background_rate: 0.01, runs: 1, chance: 1 };
  },
};

/** A score's search of a text with this marker waits for its signal (then rejects with its reason). */
const SCORE_HANG = 'a score waits here until aborted';
/** The model's source, so that a score searches it: a text with SCORE_HANG waits for its signal. */
const { source: stallingForModel, seen: scoredSeen } = waitingModelSource(SCORE_HANG, 'stalling-model-source');
/** What the model's source saw: score searches that started waiting and those whose signal aborted them. */
const scored = {
  get hanging() {
    return scoredSeen.waiting;
  },
  get aborted() {
    return scoredSeen.aborted;
  },
};

let engine: Engine;
let keys: KeyStore;

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'licences' }, [{ id: 'MIT', text: `Copyright (c) <year> <holder>\n\n${MIT}` }]);
  engine.addEvidenceSource(stalling);
  engine.addEvidenceSource(stallingForModel);
  keys = new KeyStore(engine.store);
}, 60_000);
afterAll(() => engine?.dispose());

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: Record<string, any> }>;

async function caller(handler: Handler, account: string): Promise<Call> {
  const key = (await keys.createKey({ account, plan: 'scale', scopes: ['analyze'] })).key;
  return async (method, path, body) => {
    const res = await handler(
      new Request(`http://api.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    const ndjson = res.headers.get('content-type') === 'application/x-ndjson';
    return { status: res.status, json: ndjson ? { lines: text } : JSON.parse(text) };
  };
}

/** The item time limit where one is tested, as its error names it (the test reaches it: {@link manualLimits}). */
const ITEM_LIMIT_MS = 3000;

/**
 * Item time limits the test reaches itself (the runner's `itemTimer`): each limit started waits until `expire()`
 * fires those pending — those of the items running then; an item that ended took its own away.
 */
function manualLimits() {
  const pending = new Set<() => void>();
  return {
    itemTimer: (fire: () => void) => {
      pending.add(fire);
      return () => void pending.delete(fire);
    },
    expire: () => {
      for (const fire of [...pending]) {
        pending.delete(fire);
        fire();
      }
    },
  };
}

const analyzeItem = (text: string) => ({ content: text, content_type: 'text', search_remote: false });

/** Waits until `cond` holds, looking again every 20 ms (no deadline of its own: the test's timeout bounds a hang). */
async function until(_what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 20));
}

const state = async (call: Call, id: string) => (await call('GET', `/api/v1/jobs/${id}`)).json;
const finished = (j: Record<string, any>) => ['done', 'failed', 'cancelled'].includes(j.state);

describe('catalogue jobs that cannot starve each other', () => {
  it("another account's 1-item job finishes while an 11-item poison job holds a runner; cancel aborts the item running", async () => {
    const handler = createHandler(engine, { keys, jobs: { pollMs: 20 } }); // 2 loops; default item limit
    try {
      const dave = await caller(handler, 'dave');
      const carol = await caller(handler, 'carol');
      const before = { ...seen };
      const items = Array.from({ length: 11 }, (_, i) => analyzeItem(`Poison ${i}: this ${HANG}. ${MIT}`));
      const poison = await dave('POST', '/api/v1/jobs', { type: 'analyze', items });
      expect(poison.status).toBe(202);
      await until('a poison item runs', () => seen.hanging > before.hanging);
      const victim = await carol('POST', '/api/v1/jobs', { type: 'scan', items: [{ id: 'victim', text: MIT }] });
      expect(victim.status).toBe(202);
      await until('the victim job finishes', async () => finished(await state(carol, victim.json.job_id)));
      expect(await state(carol, victim.json.job_id)).toMatchObject({ state: 'done', done: 1, failed: 0 });
      // the poison job is still running its first item: it held one loop, never both
      expect(await state(dave, poison.json.job_id)).toMatchObject({ state: 'running', done: 0 });
      expect(seen.hanging - before.hanging).toBe(1);

      const cancel = await dave('DELETE', `/api/v1/jobs/${poison.json.job_id}`);
      expect(cancel.json).toMatchObject({ state: 'cancelled', deleted: false });
      // the runner sees the cancel and aborts the item running: its signal reaches the source
      await until('the running item is aborted', () => seen.aborted > before.aborted);
      expect(seen.hanging - before.hanging).toBe(1); // and no other poison item ever started
      expect(await state(dave, poison.json.job_id)).toMatchObject({ state: 'cancelled', done: 0 });
    } finally {
      await stopJobs(handler);
    }
  });

  it('an item past the time limit fails naming the limit, whether or not it heeds its signal; the job goes on', async () => {
    const limits = manualLimits();
    const { itemTimer } = limits;
    const handler = createHandler(engine, {
      keys,
      jobs: { pollMs: 20, itemTimeoutMs: ITEM_LIMIT_MS, itemTimer, chunkItems: 2 },
    });
    try {
      const erin = await caller(handler, 'erin');
      const before = { ...seen };
      const items = [
        analyzeItem(`First: this ${HANG}. ${MIT}`),
        analyzeItem(`Second, an ordinary text. ${MIT}`),
        analyzeItem(`Third: this ${DEAF}. ${MIT}`),
      ];
      const job = await erin('POST', '/api/v1/jobs', { type: 'analyze', items });
      // the limit of each hanging item, once it hangs (one chunk at a time: one account's job takes one loop)
      await until('the first item hangs', () => seen.hanging > before.hanging);
      limits.expire();
      await until('the third item hangs', () => seen.deaf > before.deaf);
      limits.expire();
      await until('the job finishes', async () => finished(await state(erin, job.json.job_id)));
      expect(await state(erin, job.json.job_id)).toMatchObject({ state: 'done', total: 3, done: 3, failed: 2 });
      const lines = String((await erin('GET', `/api/v1/jobs/${job.json.job_id}/results`)).json.lines)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(lines.map((r) => r.success)).toEqual([false, true, false]);
      for (const r of [lines[0], lines[2]]) {
        expect(r.error.code).toBe('PAYLOAD_TOO_LARGE');
        expect(r.error.message).toContain('time limit of a job item (3 s)');
      }
      expect(lines[1].result.matches[0]).toMatchObject({ dataset_id: 'licences', document_id: 'MIT' });
      expect(seen.aborted - before.aborted).toBe(1); // the item that heeds its signal was aborted
      expect(seen.deaf - before.deaf).toBe(1);
    } finally {
      await stopJobs(handler);
    }
  });

  it('a score item past the time limit is aborted too: its signal reaches the searches of its chunks', async () => {
    const limits = manualLimits();
    const { itemTimer } = limits;
    const handler = createHandler(engine, { keys, jobs: { pollMs: 20, itemTimeoutMs: ITEM_LIMIT_MS, itemTimer } });
    try {
      const gina = await caller(handler, 'gina');
      const scoreItem = (text: string) => ({ content: text, target_model: 'meta/llama-7b', jurisdiction: 'US' });
      const items = [scoreItem(`First: ${SCORE_HANG}. ${MIT}`), scoreItem(`Second, an ordinary text. ${MIT}`)];
      const job = await gina('POST', '/api/v1/jobs', { type: 'score', items });
      expect(job.status).toBe(202);
      await until("the first item's search waits", () => scored.hanging > 0);
      limits.expire();
      await until('the job finishes', async () => finished(await state(gina, job.json.job_id)));
      expect(await state(gina, job.json.job_id)).toMatchObject({ state: 'done', total: 2, done: 2, failed: 1 });
      const lines = String((await gina('GET', `/api/v1/jobs/${job.json.job_id}/results`)).json.lines)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(lines.map((r) => r.success)).toEqual([false, true]);
      expect(lines[0].error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      expect(lines[0].error.message).toContain('time limit of a job item (3 s)');
      expect(lines[1].result).toMatchObject({ target_model: 'meta/llama-7b', work_id: null });
      // the score's search was aborted, not left waiting in the background
      expect(scored).toEqual({ hanging: 1, aborted: 1 });
    } finally {
      await stopJobs(handler);
    }
  });

  it('stopping the runner aborts the item running, even one deaf to its signal, and gives its chunk back', async () => {
    const handler = createHandler(engine, { keys, jobs: { pollMs: 20 } });
    const frank = await caller(handler, 'frank');
    const before = { ...seen };
    const job = await frank('POST', '/api/v1/jobs', {
      type: 'analyze',
      items: [analyzeItem(`Only: this ${DEAF}. ${MIT}`), analyzeItem(`Next: ${MIT}`)],
    });
    await until('the deaf item runs', () => seen.deaf > before.deaf);
    await stopJobs(handler); // resolves although the item never settles
    expect(await state(frank, job.json.job_id)).toMatchObject({ state: 'running', done: 0 });
    // the chunk is free at once for another runner (not after its lease)
    const claim = await createJobService({ store: engine.store }).claim(60_000);
    expect(claim).toMatchObject({ job: { id: job.json.job_id }, chunk: 0, first: 0 });
    expect(claim?.items).toHaveLength(2);
  });
});
