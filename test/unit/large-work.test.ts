import { afterEach, describe, expect, it, vi } from 'vitest';
import { LargeWorkGate } from '../../src/http/large-work.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('LargeWorkGate: large requests run a few at a time, the rest wait in order or are refused', () => {
  it('gives places in order, refuses beyond the queue, and a place is given back once', async () => {
    const gate = new LargeWorkGate({ running: 2, waiting: 2 });
    const a = await gate.enter();
    const b = await gate.enter();
    expect(gate.active).toBe(2);
    const order: string[] = [];
    const c = gate.enter().then((r) => (order.push('c'), r));
    const d = gate.enter().then((r) => (order.push('d'), r));
    expect(gate.queued).toBe(2);
    await expect(gate.enter()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    a();
    a(); // twice: no second place freed
    const rc = await c;
    expect(order).toEqual(['c']);
    expect(gate.active).toBe(2);
    b();
    const rd = await d;
    expect(order).toEqual(['c', 'd']);
    rc();
    rd();
    expect(gate.active).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it('refuses a request that waited waitMs for a place (503), and one whose client went away leaves the line', async () => {
    vi.useFakeTimers();
    const gate = new LargeWorkGate({ running: 1, waiting: 4, waitMs: 1000 });
    const held = await gate.enter();
    const late = gate.enter();
    const gone = new AbortController();
    const leaving = gate.enter(gone.signal);
    expect(gate.queued).toBe(2);
    gone.abort();
    await expect(leaving).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: 'the client went away' });
    expect(gate.queued).toBe(1);
    vi.advanceTimersByTime(1000);
    await expect(late).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(late).rejects.toThrow(/waited 1 s for a place/);
    expect(gate.queued).toBe(0);
    held();
    expect(gate.active).toBe(0); // nobody in line: the place is free, not passed on to a refused request
  });

  it('validates its limits', () => {
    expect(() => new LargeWorkGate({ running: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => new LargeWorkGate({ waiting: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => new LargeWorkGate({ waitMs: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(new LargeWorkGate()).toMatchObject({ running: 4, waiting: 16, waitMs: 30_000 });
  });
});
