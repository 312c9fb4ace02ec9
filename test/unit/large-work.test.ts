import { describe, expect, it } from 'vitest';
import { LargeWorkGate } from '../../src/http/large-work.js';

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

  it('validates its limits', () => {
    expect(() => new LargeWorkGate({ running: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => new LargeWorkGate({ waiting: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(new LargeWorkGate()).toMatchObject({ running: 4, waiting: 16 });
  });
});
