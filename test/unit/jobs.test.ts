/**
 * The job service's chunks and leases (src/services/jobs/): a chunk whose lease expired is claimed again and the
 * first holder's late completion is dropped (one result per item); a chunk abandoned JOB_MAX_ATTEMPTS times gets
 * failed results; a page of results never skips an item still running; finished jobs go after the retention; and a
 * runner stopped mid-chunk gives its chunk back at once (or finishes it, told to), and ends on a fatal store error.
 */
import { describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { createJobService, JOB_MAX_ATTEMPTS, JobRunner, type JobClaim } from '../../src/library.js';

const ok = (c: JobClaim) => c.items.map((_, i) => ({ index: c.first + i, success: true as const, result: i }));

/**
 * A job of four items in one chunk, and its `scan` executor, whose first item waits at a gate (`atGate` when it is
 * there, `release` to let it on); `ran()` counts the items run.
 */
async function chunkOfFour() {
  const jobs = createJobService({ store: new MemoryStore(), chunkItems: 4 });
  const job = await jobs.submit({ account: 'a', type: 'scan', items: [0, 1, 2, 3] });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const atGate = new Promise<void>((r) => (reached = r));
  let ran = 0;
  const scan = async (item: unknown) => {
    if (item === 0) {
      reached();
      await gate;
    }
    ran++;
    return item;
  };
  return { jobs, job, scan, release, atGate, ran: () => ran };
}

describe('job service', () => {
  it("claims an expired lease again; the first holder's late completion is dropped", async () => {
    let now = 1_000;
    const jobs = createJobService({ store: new MemoryStore(), clock: () => now, chunkItems: 2 });
    const job = await jobs.submit({ account: 'a', type: 'scan', items: [1, 2, 3] });
    const a = (await jobs.claim(100))!;
    const b = (await jobs.claim(100))!;
    expect([a.chunk, b.chunk]).toEqual([0, 1]);
    expect(await jobs.claim(100)).toBeNull(); // both held
    now += 101; // a's and b's processes died
    const a2 = (await jobs.claim(100))!;
    expect(a2.chunk).toBe(0);
    expect(await jobs.complete(a, ok(a))).toBe(false); // too late: the chunk is a2's
    expect(await jobs.complete(a2, ok(a2))).toBe(true);
    expect(await jobs.complete(a2, ok(a2))).toBe(false); // never twice
    const b2 = (await jobs.claim(100))!;
    expect(await jobs.complete(b2, ok(b2))).toBe(true);
    const info = await jobs.status(job.id, { owner: 'a' });
    expect(info).toMatchObject({ state: 'done', done: 3, failed: 0 });
    const page = await jobs.results(job.id, { owner: 'a' });
    expect(page.results.map((r) => r.index)).toEqual([0, 1, 2]);
    expect(page.next).toBeNull();
    await expect(jobs.status(job.id, { owner: 'b' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it(`fails a chunk's items after ${JOB_MAX_ATTEMPTS} abandoned claims, and the job goes on`, async () => {
    let now = 0;
    const jobs = createJobService({ store: new MemoryStore(), clock: () => now, chunkItems: 1 });
    const job = await jobs.submit({ account: 'a', type: 'scan', items: ['x', 'y'] });
    for (let i = 0; i < JOB_MAX_ATTEMPTS; i++) {
      expect((await jobs.claim(10))?.chunk).toBe(0);
      if (i === 0) {
        const c1 = (await jobs.claim(10))!;
        expect(await jobs.complete(c1, ok(c1))).toBe(true);
      }
      now += 11;
    }
    expect(await jobs.claim(10)).toBeNull();
    const info = await jobs.status(job.id, { owner: 'a' });
    expect(info).toMatchObject({ state: 'done', done: 2, failed: 1 });
    const page = await jobs.results(job.id, { owner: 'a' });
    expect(page.results[0]).toMatchObject({ index: 0, success: false, error: { code: 'INTERNAL' } });
  });

  it('a page of a running job stops before an item without its result', async () => {
    const jobs = createJobService({ store: new MemoryStore(), chunkItems: 2 });
    const job = await jobs.submit({ account: 'a', type: 'scan', items: [1, 2, 3, 4, 5] });
    const c0 = (await jobs.claim(60_000))!;
    const c1 = (await jobs.claim(60_000))!;
    await jobs.complete(c1, ok(c1)); // items 2, 3 before 0, 1
    let page = await jobs.results(job.id, { owner: 'a' });
    expect(page).toEqual({ results: [], next: -1 });
    await jobs.complete(c0, ok(c0));
    page = await jobs.results(job.id, { owner: 'a', limit: 3 });
    expect(page.results.map((r) => r.index)).toEqual([0, 1, 2]);
    page = await jobs.results(job.id, { owner: 'a', after: page.next! });
    expect(page.results.map((r) => r.index)).toEqual([3]);
    expect(page.next).toBe(3); // item 4 is still to come
  });

  it('deletes finished jobs after the retention', async () => {
    let now = 0;
    const store = new MemoryStore();
    const jobs = createJobService({ store, clock: () => now, retentionMs: 1000 });
    const job = await jobs.submit({ account: 'a', type: 'scan', items: [1] });
    const c = (await jobs.claim(100))!;
    await jobs.complete(c, ok(c));
    now += 999;
    expect(await jobs.expire()).toBe(0);
    now += 2;
    expect(await jobs.expire()).toBe(1);
    await expect(jobs.status(job.id, { owner: 'a' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await store.scan('job')).toEqual([]);
  });

  it('a runner runs every item once; stopped mid-chunk, it gives the chunk back at once', async () => {
    const store = new MemoryStore();
    const jobs = createJobService({ store, chunkItems: 3 });
    const job = await jobs.submit({ account: 'a', type: 'scan', items: Array.from({ length: 9 }, (_, i) => i) });
    const seen: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // the item waiting at the gate is under way (an event, not a time a loaded machine may not keep)
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    const first = new JobRunner({
      jobs,
      pollMs: 5,
      executors: {
        scan: async (item) => {
          if (item === 1) {
            reached();
            await gate;
          }
          return item;
        },
      },
      unsupported: {},
    });
    first.start();
    await atGate;
    const stopping = first.stop();
    release();
    await stopping;
    expect((await jobs.status(job.id, { owner: 'a' })).done).toBe(0);
    const second = new JobRunner({
      jobs,
      pollMs: 5,
      executors: {
        scan: async (item) => {
          seen.push(item as number);
          if (item === 4) throw new Error('boom');
          return item;
        },
      },
      unsupported: {},
    });
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void logged.push(line));
    second.start();
    for (let i = 0; i < 200 && (await jobs.status(job.id, { owner: 'a' })).state !== 'done'; i++)
      await new Promise((r) => setTimeout(r, 5));
    await second.stop();
    spy.mockRestore();
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const info = await jobs.status(job.id, { owner: 'a' });
    expect(info).toMatchObject({ state: 'done', done: 9, failed: 1 });
    const page = await jobs.results(job.id, { owner: 'a' });
    expect(page.results[4]).toMatchObject({ index: 4, success: false, error: { code: 'INTERNAL' } });
    // the unexpected error: a request id in the result, and one stderr line under it that says what happened
    const { message } = (page.results[4] as { error: { message: string } }).error;
    const id = /^An unexpected error occurred \(request id (req_[0-9a-f]{24})\)$/.exec(message)?.[1];
    expect(id).toBeDefined();
    expect(logged.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        msg: 'job item failed: INTERNAL',
        request_id: id,
        job: job.id,
        item: 4,
        error: expect.objectContaining({ class: 'Error', message: 'boom' }),
      }),
    ]);
  });

  it("a claim that skips an account finds another account's job behind many of theirs", async () => {
    let now = 0;
    const jobs = createJobService({ store: new MemoryStore(), clock: () => now++, chunkItems: 1 });
    for (let i = 0; i < 40; i++) await jobs.submit({ account: 'busy', type: 'scan', items: [i] });
    const other = await jobs.submit({ account: 'other', type: 'scan', items: ['x'] });
    expect((await jobs.claim(1000))?.job.account).toBe('busy'); // oldest first
    const c = await jobs.claim(1000, { skip: (account) => account === 'busy' });
    expect(c?.job.id).toBe(other.id);
    expect(await jobs.claim(1000, { skip: (account) => account === 'busy' })).toBeNull();
  });

  it('watch says whether a chunk is still held, lost to another runner, or its job finished', async () => {
    let now = 0;
    const jobs = createJobService({ store: new MemoryStore(), clock: () => now });
    const job = await jobs.submit({ account: 'a', type: 'scan', items: [1] });
    const c = (await jobs.claim(10))!;
    expect(await jobs.watch(c)).toBe('held');
    now += 11;
    const again = (await jobs.claim(10))!;
    expect(await jobs.watch(c)).toBe('lost');
    expect(await jobs.cancel(job.id, { owner: 'a' })).toMatchObject({ cancelled: true });
    expect(await jobs.watch(again)).toBe('finished');
  });

  it('a job cancelled while a chunk runs stays as the cancel answered it: no result of that chunk is added', async () => {
    const { jobs, job, scan, release, atGate, ran } = await chunkOfFour();
    let chunks = 0;
    const runner = new JobRunner({
      jobs,
      pollMs: 5,
      watchMs: 60_000, // the cancel is not seen while the chunk runs: its later items run after it
      finishChunks: true,
      executors: { scan },
      unsupported: {},
      onChunk: () => void chunks++,
    });
    runner.start();
    await atGate;
    const cancel = await jobs.cancel(job.id, { owner: 'a' });
    expect(cancel.job).toMatchObject({ state: 'cancelled', done: 0 });
    release();
    await runner.stop({ graceMs: 60_000 });
    expect(ran()).toBe(4); // they ran, unseen by the runner
    expect([chunks, await jobs.status(job.id, { owner: 'a' })]).toEqual([0, cancel.job]);
    expect((await jobs.results(job.id, { owner: 'a' })).results).toEqual([]);
  });

  it('a runner told to finish its chunks does so on stop; a fatal store error ends it, settled rejecting with it', async () => {
    const { jobs, job, scan, release, atGate } = await chunkOfFour();
    const runner = new JobRunner({
      jobs,
      pollMs: 5,
      finishChunks: true,
      executors: { scan },
      unsupported: {},
    });
    runner.start();
    await atGate; // its chunk is claimed and under way: the stop below must finish it
    const stopping = runner.stop({ graceMs: 60_000 });
    release();
    await stopping;
    expect(await jobs.status(job.id, { owner: 'a' })).toMatchObject({ state: 'done', done: 4 });

    const refusal = new Error('refused');
    const refusing = new JobRunner({
      jobs: { expire: async () => 0, claim: async () => Promise.reject(refusal) } as never,
      pollMs: 5,
      concurrency: 2,
      executors: {},
      unsupported: {},
      fatal: (e) => e === refusal,
    });
    refusing.start();
    await expect(refusing.settled).rejects.toBe(refusal);
  });
});
