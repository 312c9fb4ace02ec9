/**
 * The worker pool's idle end (src/node/offload.ts): a thread that waited `idleMs` for a task is ended and the next task
 * starts a new one; a task given as a thread ends is answered by another; close() cancels the idle ends and waits for
 * every thread, the ending ones too, to exit. The threads are real (test/fixtures/echo-worker.mjs answers each task
 * with its thread id); the idle timers are fired by hand, so nothing is timed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorkerPool, type WorkerPool } from '../../src/node/offload.js';
import { isTrainprintError, type PureWork } from '../../src/library.js';

const ECHO = new URL('../fixtures/echo-worker.mjs', import.meta.url);

/** Idle timers fired by hand: each armed one with whether it was cancelled or fired. */
function handTimers() {
  const armed: { fire: () => void; ms: number; cancelled: boolean; fired: boolean }[] = [];
  return {
    schedule: (fire: () => void, ms: number) => {
      const t = {
        fire: () => {
          t.fired = true;
          fire();
        },
        ms,
        cancelled: false,
        fired: false,
      };
      armed.push(t);
      return () => {
        t.cancelled = true;
      };
    },
    /** The timers neither cancelled nor fired. */
    pending: () => armed.filter((t) => !t.cancelled && !t.fired),
    /** Every timer armed so far, cancelled or not. */
    all: () => [...armed],
  };
}

/** A task for the echo thread (it answers any message): `n` comes back with the thread that ran it. */
const task = (n: number) => ({ kind: 'echo', n }) as unknown as PureWork;
const ran = async (pool: WorkerPool, n: number) => (await pool.run(task(n))) as unknown as { thread: number };

const pools: WorkerPool[] = [];
const open = (options: Parameters<typeof createWorkerPool>[0], timers: ReturnType<typeof handTimers>) => {
  const pool = createWorkerPool(options, { url: ECHO, schedule: timers.schedule });
  pools.push(pool);
  return pool;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('worker pool: idle threads end', () => {
  it('ends a thread idle for idleMs; the next task starts a new one', async () => {
    const timers = handTimers();
    const pool = open({ threads: 2, idleMs: 1234 }, timers);
    expect([pool.started, pool.live, pool.idleMs]).toEqual([0, 0, 1234]);
    const first = await ran(pool, 1);
    expect(timers.pending().map((t) => t.ms)).toEqual([1234]); // its end, armed as it went idle
    expect([pool.started, pool.live]).toEqual([1, 1]);
    timers.pending()[0].fire();
    await vi.waitFor(() => expect(pool.live).toBe(0)); // the thread exited: no thread left behind
    const second = await ran(pool, 2);
    expect(second.thread).not.toBe(first.thread);
    expect([pool.started, pool.live]).toEqual([2, 1]);
  });

  it('keeps a thread that took a task before its end came (the end is cancelled; a late one is a no-op)', async () => {
    const timers = handTimers();
    const pool = open({ threads: 1, idleMs: 1000 }, timers);
    const first = await ran(pool, 1);
    const end = timers.pending()[0];
    const again = ran(pool, 2);
    expect(end.cancelled).toBe(true);
    end.fire(); // a timer that fires anyway, after its cancel: the thread is busy, not idle
    expect((await again).thread).toBe(first.thread);
    expect((await ran(pool, 3)).thread).toBe(first.thread);
    expect([pool.started, pool.live]).toEqual([1, 1]);
  });

  it('answers a task given in the same turn as its thread ends, on a new thread', async () => {
    const timers = handTimers();
    const pool = open({ threads: 1, idleMs: 1000 }, timers);
    const first = await ran(pool, 1);
    timers.pending()[0].fire(); // the thread is terminating, its exit not yet seen …
    const answer = await ran(pool, 2); // … and a task comes: the pool's one place is free for a new thread
    expect(answer).toEqual({ thread: expect.any(Number), work: task(2) });
    expect(answer.thread).not.toBe(first.thread);
    await vi.waitFor(() => expect(pool.live).toBe(1));
    expect(pool.started).toBe(2);
  });

  it('keeps its bound: tasks beyond the threads wait; the thread idle least takes the next, the other ends', async () => {
    const timers = handTimers();
    const pool = open({ threads: 2, idleMs: 1000 }, timers);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => ran(pool, n)));
    expect(new Set(answers.map((a) => a.thread)).size).toBe(2);
    expect([pool.started, pool.live]).toEqual([2, 2]);
    // one at a time now: the thread that went idle last takes each, so the other waits on and ends
    const last = (await ran(pool, 6)).thread;
    for (let n = 7; n < 10; n++) expect((await ran(pool, n)).thread).toBe(last);
    const ends = timers.pending();
    expect(ends).toHaveLength(2);
    ends[0].fire(); // the thread idle longest
    await vi.waitFor(() => expect(pool.live).toBe(1));
    expect((await ran(pool, 10)).thread).toBe(last);
  });

  it('close() cancels the idle ends and waits for every thread, an ending one too', async () => {
    const timers = handTimers();
    const pool = open({ threads: 3, idleMs: 1000 }, timers);
    await Promise.all([1, 2, 3].map((n) => ran(pool, n)));
    expect(pool.live).toBe(3);
    const ends = timers.pending();
    expect(ends).toHaveLength(3);
    ends[0].fire(); // one thread ending as the pool closes
    await pool.close();
    expect(timers.pending()).toEqual([]);
    expect(pool.live).toBe(0);
    // an end firing after close() does nothing, and the pool refuses work
    for (const t of timers.all()) t.fire();
    const refused = await pool.run(task(4)).catch((e: unknown) => e);
    expect(isTrainprintError(refused, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(pool.live).toBe(0);
  });

  it('refuses an idleMs outside 1..86400000', () => {
    for (const idleMs of [0, -1, 1.5, 86_400_001, Number.NaN]) {
      expect(() => createWorkerPool({ idleMs })).toThrow(/idleMs/);
    }
  });
});
