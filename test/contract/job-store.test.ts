/**
 * The JobStore contract (src/services/jobs/types.ts), run unchanged against the store backend on every store —
 * MemoryStore, the file store and the PostgreSQL store (skipped when there is no PostgreSQL) — and the one runner
 * over each: a chunk is completed exactly once (a late completion of a lost lease writes nothing, a second one
 * neither), an expired lease is claimed again, a released chunk at once, a cancel stops unclaimed chunks and keeps
 * the results so far, tenancy (another account's job is NOT_FOUND), the results in item order, and the retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '../../src/store/index.js';
import { openFileStore, openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import {
  createJobService,
  JobRunner,
  type JobClaim,
  type JobInfo,
  type JobResult,
  type JobService,
} from '../../src/library.js';
import { describePostgres } from '../pg/postgres.js';

let tmpRoot: string;
beforeAll(async () => {
  tmpRoot = await mkdtemp(join(tmpdir(), 'trainprint-job-store-'));
});
afterAll(async () => {
  await rm(tmpRoot, { recursive: true, force: true });
});
let dirs = 0;

const ok = (c: JobClaim): JobResult[] =>
  c.items.map((item, i) => ({ index: c.first + i, success: true as const, result: { item } }));

/** A job store on a fresh store, with a clock the test moves; `close` closes the store. */
type Open = (clock: () => number) => Promise<{ jobs: JobService; close: () => Promise<void> }>;
const tick = () => new Promise((r) => setTimeout(r, 5));

function contract(name: string, openStore: () => Promise<Store>): void {
  const open: Open = async (clock) => {
    const store = await openStore();
    return { jobs: createJobService({ store, clock, chunkItems: 2, retentionMs: 1000 }), close: () => store.close() };
  };
  describe(`${name}: JobStore contract`, () => {
    it("lists an account's jobs newest first, a page at a time; another account's never; a deleted one no more", async () => {
      let now = 1_000;
      const { jobs, close } = await open(() => now);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        now += 10;
        ids.push((await jobs.submit({ account: 'a', type: 'scan', items: [i] })).id);
      }
      const other = await jobs.submit({ account: 'b', type: 'scan', items: [9] });
      const first = await jobs.list({ owner: 'a', limit: 2 });
      expect(first.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
      expect(first.next).toBe(ids[1]);
      const second = await jobs.list({ owner: 'a', limit: 2, after: first.next! });
      expect(second).toEqual({ jobs: [expect.objectContaining({ id: ids[0], account: 'a' })], next: null });
      expect((await jobs.list({ owner: 'b' })).jobs.map((j) => j.id)).toEqual([other.id]);
      await expect(jobs.list({ owner: 'a', after: other.id })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await jobs.delete(ids[1], { owner: 'a' })).toBe(true);
      expect((await jobs.list({ owner: 'a' })).jobs.map((j) => j.id)).toEqual([ids[2], ids[0]]);
      await close();
    });

    it('completes each chunk exactly once: a lost lease and a second completion write nothing', async () => {
      let now = 1_000;
      const { jobs, close } = await open(() => now);
      const job = await jobs.submit({ account: 'a', type: 'scan', items: [1, 2, 3] });
      expect(job).toMatchObject({ state: 'queued', total: 3, done: 0, type: 'scan' });
      const a = (await jobs.claim(100))!;
      const b = (await jobs.claim(100))!;
      expect([a.first, b.first]).toEqual([0, 2]);
      expect(await jobs.claim(100)).toBeNull(); // both chunks held
      expect(await jobs.renew(a, 100)).toBe(true);
      now += 101; // a's lease (renewed at 1000) ran out; b's too
      const again = (await jobs.claim(100))!;
      expect(again.chunk).toBe(a.chunk);
      expect(await jobs.renew(a, 100)).toBe(false);
      expect(await jobs.watch(a)).toBe('lost');
      expect(await jobs.complete(a, ok(a))).toBe(false); // too late
      expect(await jobs.complete(again, ok(again))).toBe(true);
      expect(await jobs.complete(again, ok(again))).toBe(false); // never twice
      const b2 = (await jobs.claim(100))!;
      expect(b2.chunk).toBe(b.chunk);
      expect(await jobs.complete(b2, ok(b2))).toBe(true);
      expect(await jobs.status(job.id, { owner: 'a' })).toMatchObject({ state: 'done', done: 3, failed: 0 });
      const page = await jobs.results(job.id, { owner: 'a' });
      expect(page.results).toEqual([
        { index: 0, success: true, result: { item: 1 } },
        { index: 1, success: true, result: { item: 2 } },
        { index: 2, success: true, result: { item: 3 } },
      ]);
      expect(page.next).toBeNull();
      await close();
    });

    it('a streamed submission: chunks by items and bytes, run while it is read, done only once sealed', async () => {
      const { jobs, close } = await open(Date.now);
      let letIn!: () => void;
      const gate = new Promise<void>((r) => {
        letIn = r;
      });
      async function* items() {
        yield* [{ t: 'a' }, { t: 'b' }, { t: 'c' }];
        await gate;
        yield* [{ t: 'x'.repeat(100) }, { t: 'd' }];
      }
      const seen: JobInfo[] = [];
      const submitted = jobs.submitStream({ account: '', type: 'scan', chunkItems: 2 }, items(), {
        chunkBytes: 60,
        onChunk: (j) => seen.push(j),
      });
      while (!seen.some((j) => j.total >= 2)) await tick();
      const first = (await jobs.claim(60_000))!;
      expect(first).toMatchObject({ first: 0, items: [{ t: 'a' }, { t: 'b' }] });
      expect(await jobs.claim(60_000)).toBeNull(); // the rest is not stored yet
      expect(await jobs.complete(first, ok(first))).toBe(true);
      expect((await jobs.status(first.job.id, { owner: '' })).state).toBe('running'); // not sealed: not done
      letIn();
      expect(await submitted).toMatchObject({ id: first.job.id, total: 5, state: 'running' });
      const firsts: number[] = [];
      for (let c = await jobs.claim(60_000); c; c = await jobs.claim(60_000)) {
        firsts.push(c.first);
        await jobs.complete(c, ok(c));
      }
      expect(firsts).toEqual([2, 3, 4]); // [c], the large item alone, [d]
      expect(await jobs.status(first.job.id, { owner: '' })).toMatchObject({ state: 'done', done: 5 });
      const page = await jobs.results(first.job.id, { owner: '' });
      expect(page.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
      await close();
    });

    it('a streamed submission whose submitter stopped reads failed after its lease; one cut short leaves no job', async () => {
      let now = 1_000;
      const { jobs, close } = await open(() => now);
      let broken!: (e: Error) => void;
      const hang = new Promise<never>((_, reject) => {
        broken = reject;
      });
      async function* items() {
        yield* [1, 2, 3];
        await hang;
      }
      const seen: JobInfo[] = [];
      const submitted = jobs.submitStream({ account: '', type: 'scan', chunkItems: 2 }, items(), {
        leaseMs: 60_000,
        onChunk: (j) => seen.push(j),
      });
      while (!seen.some((j) => j.total >= 2)) await tick();
      const id = seen[0].id;
      expect((await jobs.status(id, { owner: '' })).state).toBe('queued');
      now += 60_001; // the submitter's lease ran out (its process died)
      expect(await jobs.status(id, { owner: '' })).toMatchObject({ state: 'failed', error: { code: 'INTERNAL' } });
      expect(await jobs.claim(60_000)).toBeNull(); // never run
      expect((await jobs.list({ owner: '' })).jobs).toEqual([expect.objectContaining({ id, state: 'failed' })]);
      broken(new Error('the input broke'));
      await expect(submitted).rejects.toThrow('the input broke');
      await expect(jobs.status(id, { owner: '' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(jobs.submitStream({ account: '', type: 'scan' }, [])).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      const stop = new AbortController();
      stop.abort(new Error('stopped'));
      await expect(jobs.submitStream({ account: '', type: 'scan' }, [1], { signal: stop.signal })).rejects.toThrow(
        'stopped',
      );
      expect((await jobs.list({ owner: '' })).jobs).toEqual([]);
      await close();
    });

    it('keeps jobs to their account', async () => {
      const { jobs, close } = await open(Date.now);
      const job = await jobs.submit({ account: 'a', type: 'analyze', items: [{}] });
      await expect(jobs.status(job.id, { owner: 'b' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(jobs.results(job.id, { owner: 'b' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(jobs.cancel(job.id, { owner: 'b' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await jobs.delete(job.id, { owner: 'b' })).toBe(false);
      expect((await jobs.status(job.id, { owner: 'a' })).state).toBe('queued');
      await expect(jobs.submit({ account: 'a', type: 'analyze', items: [] })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      await close();
    });

    it('gives a released chunk back at once; fails a job as a whole', async () => {
      const { jobs, close } = await open(Date.now);
      const job = await jobs.submit({ account: 'a', type: 'extract', items: [1, 2, 3] });
      const c = (await jobs.claim(60_000))!;
      await jobs.release(c);
      const again = (await jobs.claim(60_000))!;
      expect(again.chunk).toBe(c.chunk);
      await jobs.fail(again, { code: 'NOT_SUPPORTED', message: 'no model here' });
      expect(await jobs.status(job.id, { owner: 'a' })).toMatchObject({
        state: 'failed',
        error: { code: 'NOT_SUPPORTED' },
      });
      expect(await jobs.claim(60_000)).toBeNull();
      expect(await jobs.complete(again, ok(again))).toBe(false);
      await close();
    });

    it('cancel keeps the job as it answered and runs nothing more; delete and the retention remove the job', async () => {
      let now = 1_000;
      const { jobs, close } = await open(() => now);
      const job = await jobs.submit({ account: 'a', type: 'score', items: [1, 2, 3, 4, 5] });
      const c = (await jobs.claim(60_000))!;
      const r = await jobs.cancel(job.id, { owner: 'a' });
      expect(r).toMatchObject({ cancelled: true, job: { state: 'cancelled' } });
      expect(await jobs.watch(c)).toBe('finished');
      // the chunk that was running adds nothing: the job stays as the cancel answered it
      expect(await jobs.complete(c, ok(c))).toBe(false);
      expect(await jobs.claim(60_000)).toBeNull();
      expect((await jobs.results(job.id, { owner: 'a' })).results).toEqual([]);
      expect(await jobs.status(job.id, { owner: 'a' })).toEqual(r.job);
      expect(await jobs.cancel(job.id, { owner: 'a' })).toMatchObject({ cancelled: false });
      expect(await jobs.delete(job.id, { owner: 'a' })).toBe(true);
      await expect(jobs.status(job.id, { owner: 'a' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const old = await jobs.submit({ account: 'a', type: 'scan', items: [1] });
      const o = (await jobs.claim(60_000))!;
      await jobs.complete(o, ok(o));
      now += 999;
      expect(await jobs.expire()).toBe(0);
      now += 2;
      expect(await jobs.expire()).toBe(1);
      await expect(jobs.status(old.id, { owner: 'a' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await close();
    });

    it('the one runner runs every item once with its executor, a missing executor failing the job', async () => {
      const { jobs, close } = await open(Date.now);
      const scan = await jobs.submit({ account: 'a', type: 'scan', items: [1, 2, 3, 4, 5] });
      const extract = await jobs.submit({ account: 'a', type: 'extract', items: [1] });
      const seen: unknown[] = [];
      const runner = new JobRunner({
        jobs,
        pollMs: 5,
        executors: {
          scan: async (item) => {
            seen.push(item);
            return { twice: (item as number) * 2 };
          },
        },
        unsupported: { extract: 'no model here' },
      });
      runner.start();
      // until both end, however long a loaded machine takes (the test's timeout bounds a hang)
      for (;;) {
        const [s, e] = await Promise.all([
          jobs.status(scan.id, { owner: 'a' }),
          jobs.status(extract.id, { owner: 'a' }),
        ]);
        if (s.state === 'done' && e.state === 'failed') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await runner.stop();
      expect(seen.sort()).toEqual([1, 2, 3, 4, 5]);
      const page = await jobs.results(scan.id, { owner: 'a' });
      expect(page.results.map((r) => (r.success ? r.result : null))).toEqual(
        [2, 4, 6, 8, 10].map((twice) => ({ twice })),
      );
      expect(await jobs.status(extract.id, { owner: 'a' })).toMatchObject({
        state: 'failed',
        error: { code: 'NOT_SUPPORTED', message: expect.stringContaining('no model here') },
      });
      await close();
    });
  });
}

contract('MemoryStore', async () => new MemoryStore());
contract('FileStore', () => openFileStore(join(tmpRoot, `s${dirs++}`)));
describePostgres('PostgreSQL', (pg) => {
  contract('PostgresStore', () => openPostgresStore(pg.url, { schema: pg.schema() }));
});
