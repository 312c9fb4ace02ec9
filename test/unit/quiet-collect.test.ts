/**
 * The serving process's collection after large work (src/node/quiet-collect.ts): when it starts, with a hand-moved
 * clock and timers the test fires itself — a note re-arms the quiet time, collections are at least the interval
 * apart, work noted during a collection brings another, stop ends them — and the real collection once, which frees
 * garbage that nothing else would have collected (a quiet process). Nothing is timed.
 */
import { describe, expect, it } from 'vitest';
import { collectIncrementally, collectWhenQuiet } from '../../src/node/quiet-collect.js';

/** Timers fired by hand: each armed one with its due time on the test's clock. */
function handTimers() {
  let clock = 0;
  const armed: { fire: () => void; at: number; cancelled: boolean }[] = [];
  return {
    now: () => clock,
    schedule: (fire: () => void, ms: number) => {
      const t = { fire, at: clock + ms, cancelled: false };
      armed.push(t);
      return () => {
        t.cancelled = true;
      };
    },
    /** The due times of the timers still armed. */
    pending: () => armed.filter((t) => !t.cancelled).map((t) => t.at),
    /** Moves the clock to `at` and fires what is due by then. */
    advance(at: number) {
      clock = at;
      for (const t of armed.splice(0)) {
        if (t.cancelled) continue;
        if (t.at <= at) t.fire();
        else armed.push(t);
      }
    },
  };
}

/** A collection the test ends: resolves when `finish()` is called. */
function heldCollect() {
  const calls: (() => void)[] = [];
  return {
    collect: () => new Promise<void>((r) => calls.push(r)),
    get started() {
      return calls.length;
    },
    finish: () => calls.at(-1)?.(),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('collectWhenQuiet', () => {
  it('collects once the quiet time has passed since the last note, not before', () => {
    const t = handTimers();
    const c = heldCollect();
    const collection = collectWhenQuiet({ quietMs: 5000, minIntervalMs: 60_000, ...t, collect: c.collect });
    collection.note();
    t.advance(4000);
    collection.note(); // more large work: the quiet time starts again
    expect(t.pending()).toEqual([9000]);
    t.advance(8999);
    expect(c.started).toBe(0);
    t.advance(9000);
    expect(c.started).toBe(1);
    expect(collection.collections).toBe(1);
  });

  it('keeps collections at least the interval apart', async () => {
    const t = handTimers();
    const c = heldCollect();
    const collection = collectWhenQuiet({ quietMs: 5000, minIntervalMs: 60_000, ...t, collect: c.collect });
    collection.note();
    t.advance(5000);
    c.finish();
    await settle();
    t.advance(10_000);
    collection.note();
    // the last one started at 5,000: the next not before 65,000, though quiet from 15,000
    expect(t.pending()).toEqual([65_000]);
    t.advance(64_999);
    expect(c.started).toBe(1);
    t.advance(65_000);
    expect(c.started).toBe(2);
  });

  it('collects again after a collection during which large work was noted, and not otherwise', async () => {
    const t = handTimers();
    const c = heldCollect();
    const collection = collectWhenQuiet({ quietMs: 5000, minIntervalMs: 0, ...t, collect: c.collect });
    collection.note();
    t.advance(5000);
    collection.note(); // while the collection runs
    expect(t.pending()).toEqual([]);
    c.finish();
    await settle();
    expect(t.pending()).toEqual([10_000]);
    t.advance(10_000);
    expect(c.started).toBe(2);
    c.finish();
    await settle();
    expect(t.pending()).toEqual([]);
  });

  it('a failed collection is ignored, and the next note collects again', async () => {
    const t = handTimers();
    let calls = 0;
    const collect = () => {
      calls++;
      throw new Error('no collection here');
    };
    const collection = collectWhenQuiet({ quietMs: 10, minIntervalMs: 0, ...t, collect });
    collection.note();
    t.advance(10);
    await settle();
    collection.note();
    t.advance(20);
    await settle();
    expect(calls).toBe(2);
  });

  it('collects nothing once stopped', () => {
    const t = handTimers();
    const c = heldCollect();
    const collection = collectWhenQuiet({ quietMs: 5000, ...t, collect: c.collect });
    collection.note();
    collection.stop();
    collection.note();
    t.advance(100_000);
    expect(c.started).toBe(0);
    expect(t.pending()).toEqual([]);
  });

  it('the real collection frees garbage that no allocation asked V8 to collect', async () => {
    let garbage: object | undefined = { works: Array.from({ length: 1000 }, (_, i) => ({ id: `w${i}` })) };
    const ref = new WeakRef(garbage);
    garbage = undefined;
    // at once ('eager'): the default one starts 10–20 s from now, at V8's choice
    await collectIncrementally('eager');
    expect(ref.deref()).toBeUndefined();
  });
});
